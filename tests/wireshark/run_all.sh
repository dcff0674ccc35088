#!/usr/bin/env bash
# The plugin under every Wireshark we support besides the machine's own: 4.4 (Debian
# trixie) and 4.6 (Debian sid), each in its chroot (chroot.sh, test_in_chroot.sh).
# Skipped (with a message) where no chroot can be made: not root, or no archive.
#   run_all.sh SOURCE_DIR [all|build|test]   (the phases of test_in_chroot.sh; all by default)
# The two run side by side (each in its own chroot, with its own /src and /build): each
# spends much of its time in single-threaded steps (cmake's configure, the links, one tshark
# at a time in a test), which the other fills. Their outputs are shown one after the other.
set -uo pipefail
src=$1
phase=${2:-all}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -ne 0 ]; then
  echo "wireshark: the 4.4/4.6 plugin tests need root (chroot); skipped"
  exit 0
fi
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
suites=(trixie sid)
pids=()
for suite in "${suites[@]}"; do
  bash "$here/test_in_chroot.sh" "$suite" "$src" "$phase" >"$logs/$suite.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!suites[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "$logs/${suites[$i]}.log"
done
exit $status
