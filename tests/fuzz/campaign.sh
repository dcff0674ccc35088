#!/usr/bin/env bash
# A campaign of one libFuzzer target (build-fuzz/: cmake --preset fuzz && cmake --build
# --preset fuzz): 10 million executions or MINUTES (default 30), whichever comes first,
# seeded with corpus/<target>/ and regressions/<target>/, with the dictionary, ASan and UBSan.
# New inputs go to WORK/<target>/new (fold the small ones into the corpus with -merge=1),
# a failing input to WORK/<target>/crash-*. Prints one line for the README's table.
#   campaign.sh TARGET [MINUTES] [WORK]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=$1 minutes=${2:-30} work=${3:-/tmp/mpa-fuzz}
binary="$here/../../build-fuzz/tests/fuzz/fuzz_$target"
[ -x "$binary" ] || { echo "campaign: $binary missing (cmake --preset fuzz && cmake --build --preset fuzz)"; exit 2; }
max_len=$(awk -v t="$target" '$1 == t { print $2 }' "$here/targets.txt")
[ -n "$max_len" ] || { echo "campaign: $target is not in $here/targets.txt"; exit 2; }
mkdir -p "$work/$target/new"
log="$work/$target/campaign.log"
start=$(date +%s)
status=0
seeds=("$here/corpus/$target")
[ -d "$here/regressions/$target" ] && seeds+=("$here/regressions/$target")
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  "$binary" "$work/$target/new" "${seeds[@]}" \
  -dict="$here/mpa.dict" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
  -max_total_time=$((minutes * 60)) -runs=10000000 -print_final_stats=1 \
  -artifact_prefix="$work/$target/" >"$log" 2>&1 || status=$?
elapsed=$(($(date +%s) - start))
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
coverage=$( (grep -E '^#[0-9]+.*cov: ' "$log" || true) | tail -1 | sed -nE 's/.*cov: ([0-9]+) ft: ([0-9]+).*/cov \1 ft \2/p')
crashes=$(find "$work/$target" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
echo "$target: ${runs:-?} executions in $((elapsed / 60)) min $((elapsed % 60)) s, ${coverage:-cov ?}, $crashes failing inputs (exit $status), at $(git -C "$here" rev-parse --short HEAD)"
exit $status
