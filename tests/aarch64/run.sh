#!/usr/bin/env bash
# Builds the core's unit tests for aarch64 (CMakeLists.txt here) and runs them under
# qemu-user on a CPU with the ARMv8 CRC32 instructions (qemu's "max"), with the armv8-crc
# implementation forced, and the CRC32c tests again with the table forced (what a CPU without
# them runs).
#   run.sh BUILD_DIR
# Exit 77 (skipped) when the cross compiler or qemu is missing, except under CI, where
# .ci/setup installs both and a missing tool is a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
missing=()
command -v aarch64-linux-gnu-g++ >/dev/null || missing+=(g++-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
if ((${#missing[@]})); then
  echo "aarch64: missing ${missing[*]} (bash .ci/setup installs them)"
  [ -n "${CI:-}" ] && exit 1
  exit 77
fi
cmake -S "$here" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$here/toolchain.cmake" \
  -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS=-O1 -DCMAKE_UNITY_BUILD=ON >"$build.log" 2>&1 || { cat "$build.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >>"$build.log" 2>&1 || { tail -40 "$build.log"; exit 1; }
aarch64-linux-gnu-readelf -h "$build/mpa_core_tests_aarch64" | grep -q 'Machine: *AArch64' || { echo "not an aarch64 binary"; exit 1; }
echo "== qemu-aarch64 -cpu max, MPA_CRC32C=armv8-crc"
MPA_CRC32C=armv8-crc qemu-aarch64 -cpu max "$build/mpa_core_tests_aarch64" --gtest_brief=1
# The table is the same portable C++ on every architecture, and the analysis under it is tested
# natively (unit.crc32c-table, golden.crc32c-table): here its own tests, on this byte order and
# alignment.
echo "== qemu-aarch64 -cpu max, MPA_CRC32C=table, Crc32c.*"
MPA_CRC32C=table qemu-aarch64 -cpu max "$build/mpa_core_tests_aarch64" --gtest_brief=1 --gtest_filter='Crc32c.*'

