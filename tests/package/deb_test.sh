#!/usr/bin/env bash
# The Debian package, as a user gets it: mpa-check_<version>_<arch>.deb packed (cpack, prefix
# /usr, stripped; only what the install rules name: no tests) from a build tree that exists
# already (.ci/test packs build/ rather than build everything a second time), installed on
# this machine; the installed mpa-check run on a bundled capture; tshark shown to list the
# plugin for an ordinary (non-root) user; then the package removed and what was there before
# put back. Needs root (dpkg).
#   deb_test.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd) work=$3
[ "$(id -u)" -eq 0 ] || { echo "deb_test: needs root (dpkg -i)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && work=$(cd "$work" && pwd)
(cd "$build" && cpack -G DEB -D CPACK_PACKAGING_INSTALL_PREFIX=/usr -B "$work/package" >"$work/cpack.log") ||
  { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work/package"/mpa-check_*_*.deb)
echo "deb_test: built $(basename "$deb")"
dpkg-deb -c "$deb" | awk '{print $6}' > "$work/contents.txt"
for want in ./usr/bin/mpa-check ./usr/share/man/man1/mpa-check.1.gz \
            ./usr/share/bash-completion/completions/mpa-check ./usr/share/doc/mpa-check/copyright \
            ./usr/share/doc/mpa-check/changelog.gz ./usr/share/mpa-check/mpa.colorfilters; do
  grep -qx "$want" "$work/contents.txt" || { echo "FAIL: $want not in the package"; cat "$work/contents.txt"; exit 1; }
done
plugin=$(grep '/wireshark/plugins/.*/epan/mpa.so$' "$work/contents.txt") || { echo "FAIL: no plugin in the package"; exit 1; }
# The control fields as Debian reads them: a text description (no CMake list separators), a
# changelog whose version is the package's, a DEP-5 copyright file.
description=$(dpkg-deb -f "$deb" Description)
[[ "$description" != *";"* ]] && [ "$(echo "$description" | wc -l)" -ge 3 ] &&
  [ -z "$(echo "$description" | awk 'length > 80')" ] ||
  { echo "FAIL: Description is not text:"; echo "$description"; exit 1; }
version=$(dpkg-deb -f "$deb" Version)
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/mpa-check/changelog.gz | gzip -dc > "$work/changelog"
head -1 "$work/changelog" | grep -q "^mpa-check ($version) " ||
  { echo "FAIL: changelog's first entry is not version $version:"; head -1 "$work/changelog"; exit 1; }
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/mpa-check/copyright | head -1 |
  grep -q "^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ||
  { echo "FAIL: the copyright file is not machine-readable (DEP-5)"; exit 1; }
depends=$(dpkg-deb -f "$deb" Depends)
echo "deb_test: Depends: $depends"
[[ "$depends" == *libwireshark* ]] || { echo "FAIL: no libwireshark dependency"; exit 1; }

# Install. The first README command installs the package too (as root): then the package
# built here (from the same tree) stays installed; otherwise it is removed at the end, and a
# plugin file no package owned (an older bootstrap's copy) is put back.
system_plugin="/${plugin#./}"
was_installed=0
dpkg-query -W -f='${Status}' mpa-check 2>/dev/null | grep -q "install ok installed" && was_installed=1
[ "$was_installed" -eq 0 ] && [ -f "$system_plugin" ] && cp "$system_plugin" "$work/previous-mpa.so"
restore() {
  [ "$was_installed" -eq 1 ] && return
  dpkg -r mpa-check >/dev/null 2>&1 || true
  if [ -f "$work/previous-mpa.so" ]; then install -D -m 0644 "$work/previous-mpa.so" "$system_plugin"; fi
}
trap restore EXIT
dpkg -i "$deb" >/dev/null
owner=$(dpkg -S "$system_plugin" 2>/dev/null | cut -d: -f1)
[ "$owner" = "mpa-check" ] || { echo "FAIL: $system_plugin is owned by '$owner', not the package"; exit 1; }
status=0
/usr/bin/mpa-check "$src/captures/valid-rev2-client-server.pcap" > "$work/run.txt" || status=$?
[ "$status" -eq 0 ] && grep -q "valid-rev2-client-server.pcap: ok:" "$work/run.txt" \
  || { echo "FAIL: installed mpa-check (exit $status)"; cat "$work/run.txt"; exit 1; }
/usr/bin/mpa-check --version | head -1
man -w mpa-check >/dev/null 2>&1 || [ -f /usr/share/man/man1/mpa-check.1 ]
# An ordinary user: nobody, with a home of its own (Wireshark reads its profile there), under
# /tmp: WORK_DIR may be in a private folder nobody cannot enter (.ci/test: in the clone).
home=$(mktemp -d /tmp/mpa-deb-home.XXXXXX) && chmod 0777 "$home"
trap 'rm -rf "$home"; restore' EXIT
listing=$(cd "$home" && HOME="$home" setpriv --reuid=65534 --regid=65534 --clear-groups tshark -G plugins 2>/dev/null)
echo "$listing" | grep -w "mpa.so" || { echo "FAIL: tshark -G plugins (as nobody) does not list mpa.so"; exit 1; }
echo "deb_test: ok"
