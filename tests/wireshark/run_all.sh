#!/usr/bin/env bash
# The plugin under every Wireshark we support besides the machine's own: 4.4 (Debian
# trixie) and 4.6 (Debian sid), each in its chroot (chroot.sh, test_in_chroot.sh).
# Skipped (with a message) where no chroot can be made: not root, or no archive.
#   run_all.sh SOURCE_DIR
set -uo pipefail
src=$1
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -ne 0 ]; then
  echo "wireshark: the 4.4/4.6 plugin tests need root (chroot); skipped"
  exit 0
fi
status=0
for suite in trixie sid; do
  bash "$here/test_in_chroot.sh" "$suite" "$src" || status=1
done
exit $status
