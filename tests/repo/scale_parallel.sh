#!/usr/bin/env bash
# Runs docs/scale.md's GNU parallel recipe (local jobs instead of ssh) over captures/ and checks
# that the shards merged by --from-json give the JSON report of one run over the folder.
# Usage: scale_parallel.sh SOURCE_DIR MPA_CHECK WORK_DIR   (exit 77: GNU parallel not installed)
set -euo pipefail
src=$(cd "$1" && pwd)
mpa_check=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
work=$3
if ! command -v parallel >/dev/null; then
  echo "SKIP: GNU parallel is not installed (Debian package 'parallel'; bash .ci/setup installs it)"
  exit 77
fi
doc="$src/docs/scale.md"
# The list step and the parallel block, as the page gives them.
list=$(grep -m1 -- "-regextype posix-extended" "$doc" | sed 's/^ *//')
block=$(awk '/run by tests\/repo\/scale_parallel.sh/ { marked = 1; next }
             marked && /^```sh/ { inside = 1; next }
             inside && /^```/ { exit }
             inside { print }' "$doc")
[ -n "$list" ] && [ -n "$block" ] || { echo "FAIL: $doc has no list step or no marked parallel block"; exit 1; }
# Local jobs: the recipe without its ssh line (--sshloginfile, --transferfile, --return, --cleanup).
local_block=$(printf '%s\n' "$block" | grep -v -- '--sshloginfile')
[ "$local_block" != "$block" ] || { echo "FAIL: the parallel block has no --sshloginfile line to drop"; exit 1; }
rm -rf "$work" && mkdir -p "$work/bin" && cd "$work"
ln -s "$src/captures" captures
ln -s "$mpa_check" bin/mpa-check
export PATH="$work/bin:$PATH" LC_ALL=C.UTF-8
printf '== %s\n' "$list" "$local_block"
bash -c "$list"
[ -s captures.list ] || { echo "FAIL: the list step found no captures"; exit 1; }
# The block's last line is the merge: it prints the text report; the same line with
# --format json gives the JSON report.
merge=$(printf '%s\n' "$local_block" | tail -1)
case $merge in mpa-check\ --from-json*) ;; *) echo "FAIL: the block does not end with the merge: $merge"; exit 1 ;; esac
bash -c "$(printf '%s\n' "$local_block" | sed '$d')"
merge_status=0
bash -c "$merge" >merged.txt || merge_status=$?
bash -c "$merge --format json" >merged.json || true
one_status=0
mpa-check captures/ >one.txt || one_status=$?
mpa-check --format json captures/ >one.json || true
status=0
python3 - one.json merged.json <<'EOF' || status=1
import json, re, sys
# Volatile fields (wall times of a run) may differ between runs; nothing else may.
VOLATILE = re.compile(r"(^|_)(elapsed|wall|wall_time|analysis_time|run_time)($|_)")
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if not VOLATILE.search(k)}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
one, merged = (clean(json.load(open(p))) for p in sys.argv[1:])
n = len(one["captures"])
if one == merged:
    print(f"merged shards equal one run: {n} captures, {one['summary']['connections']} connections")
    sys.exit(0)
for key in one:
    if one.get(key) != merged.get(key):
        print(f"FAIL: '{key}' differs between one run and the merged shards")
sys.exit(1)
EOF
if ! diff one.txt merged.txt >text.diff; then
  head -20 text.diff
  echo "FAIL: the text reports differ (one run: one.txt, merged: merged.txt)"
  status=1
fi
if [ "$merge_status" != "$one_status" ]; then
  echo "FAIL: exit status $merge_status of the merge, $one_status of one run"
  status=1
fi
shards=$(ls shards/*.json | wc -l)
echo "$shards shards, $(wc -l <captures.list) captures listed"
exit $status
