#!/usr/bin/env bash
# plugin_vs_builtin.sh: tshark with our MPA plugin (built-in iwarp_mpa off) against tshark
# with Wireshark's built-in iwarp_mpa (our plugin disabled), on synthetic captures of at
# least 100 MB: first with markers and CRCs in both directions, then (for a like-for-like
# speed comparison, since the built-in loses track of most marker-bearing FPDUs) with CRCs
# only. Each capture is read twice by all three: with the whole stack (every FPDU found goes
# on to DDP/RDMAP) and with DDP/RDMAP disabled (the MPA layer alone). Prints wall time,
# throughput, peak RSS and FPDUs shown of each, and the ratios.
# Not part of ctest.
#
# Usage: tests/bench/plugin_vs_builtin.sh [BUILD_DIR] [MEGABYTES]
#   BUILD_DIR  a configured and built tree (default: build-plugin, else build)
#   MEGABYTES  capture size to aim for (default 110)
#   REPEAT=N   runs per measurement, the fastest wall time counts (default 3)
# The captures are made by BUILD_DIR/tests/synth/mpa-synth: Rev 2, 4 KiB messages, one
# FPDU per segment (the only layout the built-in dissector handles with markers). Both
# runs print comparable fields: frame number and ULPDU_Length.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-}
if [[ -z "$build" ]]; then
  for b in "$here/build-plugin" "$here/build"; do [[ -f "$b/plugin/mpa.so" ]] && build=$b && break; done
fi
megabytes=${2:-110}
repeat=${REPEAT:-3}  # runs per measurement; the fastest counts
plugin="$build/plugin/mpa.so"
synth="$build/tests/synth/mpa-synth"
for f in "$plugin" "$synth"; do
  [[ -x "$f" || -f "$f" ]] || { echo "missing $f (build the tree first)" >&2; exit 2; }
done
command -v tshark >/dev/null || { echo "tshark not found" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time (GNU time) not found" >&2; exit 2; }

work=$(mktemp -d /tmp/mpa-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
abi=$(tshark --version | sed -n 's/^TShark (Wireshark) \([0-9]*\.[0-9]*\).*/\1/p')
mkdir -p "$work/home/.local/lib/wireshark/plugins/$abi/epan" "$work/home/.config" "$work/global-plugins"
cp "$plugin" "$work/home/.local/lib/wireshark/plugins/$abi/epan/"

# Wireshark ignores personal plugins when run by root: then run tshark as nobody. An empty
# global plugin folder keeps a system-wide mpa.so (the README's first command installs one)
# from loading beside the copy under test.
run_tshark() {
  if [[ $(id -u) == 0 ]]; then
    chmod -R a+rX "$work"
    env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" WIRESHARK_PLUGIN_DIR="$work/global-plugins" \
      setpriv --reuid=65534 --regid=65534 --clear-groups tshark "$@"
  else
    env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" WIRESHARK_PLUGIN_DIR="$work/global-plugins" tshark "$@"
  fi
}
export -f run_tshark
export work

measure() {  # name, bytes, output file, tshark arguments...
  local name=$1 bytes=$2 out=$3
  shift 3
  local wall="" rss=0 fpdus run w r
  for ((run = 0; run < repeat; run++)); do
    /usr/bin/time -v -o "$work/$name.time" bash -c 'run_tshark "$@"' _ "$@" > "$out" 2> "$work/$name.err" \
      || { echo "$name: tshark failed"; cat "$work/$name.err"; exit 1; }
    w=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$name.time" \
        | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    r=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$name.time")
    if [[ -z "$wall" ]] || (( $(echo "$w < $wall" | bc) )); then wall=$w; fi
    (( r > rss )) && rss=$r
  done
  fpdus=$(awk -F'\t' '$2 != "" { n += split($2, a, ",") } END { print n + 0 }' "$out")
  [[ $name == tcp-only ]] && fpdus="-"
  printf '  %-9s %8.2f s %8.1f MB/s %8d MB peak RSS %9s FPDUs shown\n' "$name" "$wall" \
    "$(echo "$bytes / 1000000 / $wall" | bc -l)" $((rss / 1024)) "$fpdus"
  echo "$wall $rss" > "$work/$name.result"
}

compare() {  # label, bytes, capture, extra tshark arguments for all three runs...
  local label=$1 bytes=$2 capture=$3
  shift 3
  echo "  $label"
  measure plugin "$bytes" "$work/plugin.txt" -r "$capture" "$@" -T fields -e frame.number \
    -e mpa.ulpdu_length
  measure built-in "$bytes" "$work/builtin.txt" -r "$capture" --disable-protocol mpa "$@" \
    -T fields -e frame.number -e iwarp_mpa.ulpdulength
  measure tcp-only "$bytes" "$work/baseline.txt" -r "$capture" --disable-protocol mpa \
    --disable-protocol iwarp_mpa "$@" -T fields -e frame.number -e tcp.len
  local pw pr bw br
  read -r pw pr < "$work/plugin.result"
  read -r bw br < "$work/built-in.result"
  printf '  plugin/built-in: wall time x%.2f, peak RSS x%.2f\n' \
    "$(echo "$pw / $bw" | bc -l)" "$(echo "$pr / $br" | bc -l)"
}

bench() {  # label, mpa-synth options...
  local label=$1
  shift
  # About 4.5 MB per 1000 messages of 4 KiB each way.
  local messages=$(( megabytes * 1000 / 9 + 1 ))
  local capture="$work/bench.pcap"
  "$synth" -o "$capture" --rev 2 "$@" --initiator-messages "$messages" \
    --responder-messages "$messages" --sizes 4096 --segmentation one --seed 7
  local bytes
  bytes=$(stat -c %s "$capture")
  echo "$label: $((bytes / 1000000)) MB capture; fields frame.number and ULPDU_Length, single pass, best of $repeat"
  # As installed: every FPDU a dissector finds goes on to DDP/RDMAP, which by default also
  # reassembles RDMA Send messages (iwarp_ddp_rdmap.reassemble_iwarp_rdma_send).
  compare "whole stack (default preferences):" "$bytes" "$capture"
  # The MPA layer alone: DDP/RDMAP off in all three runs, so a dissector that finds more
  # FPDUs is not charged for the DDP work they lead to.
  compare "MPA layer alone (iwarp_ddp_rdmap disabled in every run):" "$bytes" "$capture" \
    --disable-protocol iwarp_ddp_rdmap
  rm -f "$capture"
}

bench "markers and CRC, both directions" --request-m 1 --reply-m 1 --request-c 1 --reply-c 1
bench "CRC only (no markers), both directions" --request-m 0 --reply-m 0 --request-c 1 --reply-c 1
