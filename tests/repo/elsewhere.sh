#!/usr/bin/env bash
# The unit and golden tests as someone else runs them: a user who is not root (when run as
# root: nobody), another time zone (a POSIX TZ string, no tzdata needed), another locale and
# another working folder. Nothing in them may depend on who, when, where or in which language.
#   elsewhere.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
as=()
if [ "$(id -u)" -eq 0 ]; then
  as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  # nobody must reach the tree: every folder above it searchable.
  if ! "${as[@]}" test -r "$build/tests/mpa_unit_tests" -a -r "$src/captures"; then
    echo "elsewhere: user nobody cannot read $src and $build (a folder above them is private)"
    exit 1
  fi
fi
scratch=$(mktemp -d)
chmod 0777 "$scratch"
trap 'rm -rf "$scratch"' EXIT
run() {
  (cd "$scratch" && "${as[@]}" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$scratch" TMPDIR="$scratch" \
     TZ='CHAST-12:45CHADT,M9.5.0/2:45,M4.1.0/3:45' LANG=C.UTF-8 LC_ALL=C.UTF-8 "$@")
}
echo "elsewhere: as $(run id -un), TZ $(run date +%Z), in $scratch"
run "$build/tests/mpa_unit_tests" --gtest_brief=1
run python3 "$src/tests/golden/golden.py" check-all "$build/analyzer/mpa-check" \
  "$src/captures" "$src/captures" "$src/captures/siw" "$src/tests/golden/siw"
