#!/usr/bin/env bash
# A Debian chroot with another Wireshark than the machine's, to build and test the plugin
# against it: trixie (Wireshark 4.4) or sid (4.6), from Debian's archive, without touching the
# machine's apt sources or its installed Wireshark. Made once (mmdebstrap), kept in a cache
# folder outside the source tree; quick when it exists already.
#   chroot.sh SUITE          prints the chroot's path on the last line
# MPA_CHROOT_CACHE (default /var/cache/mpa-check/chroots) holds the chroots. Release files
# past their Valid-Until are accepted: the archive this machine reaches may be a snapshot.
set -euo pipefail
suite=$1
cache=${MPA_CHROOT_CACHE:-/var/cache/mpa-check/chroots}
root="$cache/$suite"
packages="build-essential cmake pkg-config libpcap-dev libfmt-dev libcli11-dev nlohmann-json3-dev zlib1g-dev libzstd-dev
  libwireshark-dev libglib2.0-dev tshark python3 util-linux"
stamp="$root/.mpa-check-chroot"
want=$(echo "$suite $packages" | tr -s ' \n' ' ')
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$root"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "chroot.sh: needs root" >&2; exit 77; }
command -v mmdebstrap >/dev/null || { echo "chroot.sh: mmdebstrap missing (bash .ci/setup installs it)" >&2; exit 1; }
rm -rf "$root.new"
mkdir -p "$cache"
start=$(date +%s)
mmdebstrap --variant=apt --quiet \
  --include="$(echo $packages | tr ' ' ',')" \
  --aptopt='Acquire::Retries "3"' --aptopt='Acquire::Check-Valid-Until "false"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  "$suite" "$root.new" http://deb.debian.org/debian >&2
rm -rf "$root"
mv "$root.new" "$root"
echo "$want" > "$stamp"
echo "chroot.sh: $suite made in $(( $(date +%s) - start )) s; $(chroot "$root" tshark --version | head -1)" >&2
echo "$root"
