#!/usr/bin/env bash
# The unit and golden tests as someone else runs them: a user who is not root (when run as
# root: nobody), another time zone (a POSIX TZ string, no tzdata needed), another locale and
# another working folder. Nothing in them may depend on who, when, where or in which language.
# The clone may be in a private folder (mode 0700, as /root and `mktemp -d` make them) that
# nobody cannot enter: what the tests read is copied to a new folder under /tmp that everyone
# can read (removed at the end): the unit tests and mpa-check, the captures, the golden script
# and expectations, the unit tests' data. The unit tests read their data at the source path
# compiled into them (MPA_SOURCE_DIR, tests/CMakeLists.txt); where nobody cannot read it there,
# they run in a mount namespace of their own in which the private folder is covered by one
# that holds the copy at that path (nothing changes outside; root can make one unless a
# container forbids it).
#   elsewhere.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
as=()
[ "$(id -u)" -eq 0 ] && as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
# Whether the user the tests run as can read these paths and enter every folder on the way.
readable() {
  local out
  out=$(cd / && "${as[@]}" find "$@" \( ! -readable -o -type d ! -executable \) -print -quit 2>&1) &&
    [ -z "$out" ]
}
tmp=$(mktemp -d /tmp/mpa-elsewhere.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
# The source folder the unit tests were compiled with (MPA_SOURCE_DIR = PROJECT_SOURCE_DIR).
compiled=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
[ -n "$compiled" ] || compiled=$src
data=(captures tests/unit/data tests/golden/siw)
cover=
copy=$tmp/source
if ((${#as[@]})) && ! readable "${data[@]/#/$compiled/}"; then
  # The first folder on the way that nobody cannot enter (else the source folder itself) is
  # covered, in the tests' mount namespace, by $tmp/cover, which holds the copy where the
  # source is below it.
  cover=$compiled
  IFS=/ read -ra parts <<<"${compiled#/}"
  folder=
  for part in "${parts[@]}"; do
    folder=$folder/$part
    "${as[@]}" test -x "$folder" || { cover=$folder && break; }
  done
  copy=$tmp/cover${compiled#"$cover"}
  unshare --mount true 2>/dev/null || {
    echo "elsewhere: user nobody cannot read $compiled (a folder above it is private), and no"
    echo "elsewhere: mount namespace can be made here to show it a copy there"
    exit 1
  }
fi
mkdir -p "$copy/tests/unit" "$copy/tests/golden" "$tmp/bin" "$tmp/work"
cp -R "$src/captures" "$copy/"
cp -R "$src/tests/unit/data" "$copy/tests/unit/"
cp -R "$src/tests/golden/golden.py" "$src/tests/golden/siw" "$copy/tests/golden/"
cp "$build/tests/mpa_unit_tests" "$build/analyzer/mpa-check" "$tmp/bin/"
chmod -R u+w,go=rX "$tmp"
chmod 0777 "$tmp/work"
readable "$tmp" || { echo "elsewhere: user nobody cannot read $tmp"; exit 1; }
ns=()
[ -n "$cover" ] && ns=(unshare --mount --propagation private
  sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$tmp/cover" "$cover")
run() {
  (cd "$tmp/work" && "${ns[@]}" "${as[@]}" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$tmp/work" \
     TMPDIR="$tmp/work" TZ='CHAST-12:45CHADT,M9.5.0/2:45,M4.1.0/3:45' LANG=C.UTF-8 LC_ALL=C.UTF-8 "$@")
}
echo "elsewhere: as $(run id -un), TZ $(run date +%Z), in $tmp/work, from a copy in $tmp"
[ -z "$cover" ] || echo "elsewhere: $cover is private: the unit tests see the copy there"
run "$tmp/bin/mpa_unit_tests" --gtest_brief=1
run python3 "$copy/tests/golden/golden.py" check-all "$tmp/bin/mpa-check" \
  "$copy/captures" "$copy/captures" "$copy/captures/siw" "$copy/tests/golden/siw"
