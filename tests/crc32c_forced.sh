#!/usr/bin/env bash
# Runs COMMAND with MPA_CRC32C=IMPL (one CRC32c implementation forced), or exits 77 (ctest:
# skipped) when this CPU cannot run IMPL: mpa-check --version refuses it then. The one place
# that decides it for the unit and the golden tests run under each implementation.
#   crc32c_forced.sh MPA_CHECK IMPL COMMAND...
set -u
mpa_check=$1 impl=$2
shift 2
if ! refused=$(MPA_CRC32C=$impl "$mpa_check" --version 2>&1 >/dev/null); then
  if grep -q "this CPU can run" <<<"$refused"; then
    echo "skipped: $refused"
    exit 77
  fi
  echo "crc32c_forced: mpa-check --version with MPA_CRC32C=$impl: $refused" >&2
  exit 1
fi
MPA_CRC32C=$impl exec "$@"
