#!/usr/bin/env bash
# The plugin built against another Wireshark and tested under that Wireshark's own tshark,
# inside its Debian chroot (chroot.sh): it loads (-G plugins), its fields, its coloring rules, the (frame,
# finding id) agreement with mpa-check on the bundled and the real siw captures, where its expert
# items hang (experts), and the
# robustness run over the capture-shaped fuzz inputs.
#   test_in_chroot.sh SUITE SOURCE_DIR [all|build|test]
# all (the default) builds and tests; build only copies the source and builds (.ci/test does
# it while the main suite runs, niced, in the CPU time the suite leaves); test then tests that
# build (and builds first if there is none).
set -euo pipefail
suite=$1
src=$(cd "$2" && pwd)
phase=${3:-all}
case $phase in all | build | test) ;; *) echo "test_in_chroot.sh: phase all, build or test, not $phase" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(bash "$here/chroot.sh" "$suite" | tail -1)
version=$(chroot "$root" tshark --version | sed -n 's/^TShark (Wireshark) \([0-9.]*\).*/\1/p')
echo "== Wireshark $version ($suite)"
built="$root/build/.mpa-check-built"
[ "$phase" = test ] && [ ! -f "$built" ] && phase=all

if [ "$phase" != test ]; then
  # A copy of the source tree (tracked and untracked files, no build folders).
  rm -rf "$root/src" "$root/build"
  mkdir -p "$root/src"
  tar -C "$src" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$root/src" -xf -
fi
mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
for fs in proc dev; do
  mkdir -p "$root/$fs"
  if [ "$fs" = proc ]; then mount -t proc proc "$root/proc"; else mount --rbind /dev "$root/dev"; fi
  mounted+=("$root/$fs")
done

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
# Wall and CPU seconds of a step (bash's time keyword), for the log.
TIMEFORMAT='%0R s, CPU %0U s user %0S s system'
# Unoptimised: what this proves is that the plugin builds against that Wireshark and works in
# it, and no optimisation (build type None: no flags) compiles much faster; the tests run as well.
# A unity build (CMAKE_UNITY_BUILD: a few .cpp files per compile) cuts the compile time again.
if [ "$phase" != test ]; then
  { time in_root sh -c "cmake -S /src -B /build -DCMAKE_BUILD_TYPE=None -DMPA_WERROR=ON -DCMAKE_UNITY_BUILD=ON >/build.log 2>&1 \
    && cmake --build /build -j$(nproc) --target mpa-check mpa_plugin >>/build.log 2>&1"; } 2>"$root/build.time" \
    || { echo "FAIL: build against Wireshark $version"; grep -E 'error|Error' "$root/build.log" | head -30; exit 1; }
  touch "$built"
fi
echo "built in $(cat "$root/build.time")"
[ "$phase" = build ] && exit 0
ldd "$root/build/plugin/mpa.so" >/dev/null 2>&1 || true
status=0
# agreement's tshark -2 -T pdml runs, kept in /build/dissected, serve experts too (plugin_test.py
# dissect).
for test in loads fields colouring agreement experts robustness; do
  if { time in_root python3 /src/tests/plugin/plugin_test.py --tshark /usr/bin/tshark --plugin /build/plugin/mpa.so \
       --mpa-check /build/analyzer/mpa-check --captures /src/captures --captures /src/captures/siw \
       --require-markers --fuzz-dir /src/tests/fuzz --cache /build/dissected $test > "$root/test-$test.log" 2>&1; } 2>"$root/test-$test.time"; then
    echo "ok   plugin.$test under Wireshark $version ($(cat "$root/test-$test.time"))"
  else
    echo "FAIL plugin.$test under Wireshark $version"; tail -30 "$root/test-$test.log"; status=1
  fi
done
exit $status
