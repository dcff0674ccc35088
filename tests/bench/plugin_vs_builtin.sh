#!/usr/bin/env bash
# plugin_vs_builtin.sh: tshark with our MPA plugin (built-in iwarp_mpa off) against tshark
# with Wireshark's built-in iwarp_mpa (our plugin disabled), on synthetic captures of at
# least 100 MB: first with markers and CRCs in both directions, then (for a like-for-like
# speed comparison, since the built-in loses track of most marker-bearing FPDUs) with CRCs
# only. Each capture is read twice by all three: with the whole stack (every FPDU found goes
# on to DDP/RDMAP) and with DDP/RDMAP disabled (the MPA layer alone), in one pass; the plugin
# and the built-in also with two passes (tshark -2, as the plugin's end-of-capture findings
# need; the second pass revisits every frame, as Wireshark does when a display filter is
# applied). Prints wall time, CPU time (user + system: what counts on a shared machine),
# throughput, peak RSS and FPDUs shown of each, and the ratios: plugin/built-in in one and in
# two passes, and the plugin's two passes against its one.
# Last, tshark -2 over every capture of the corpus (captures/, captures/siw) with the plugin
# and with the built-in: the total, and the captures where the plugin is slowest.
# Not part of ctest.
#
# Usage: tests/bench/plugin_vs_builtin.sh [BUILD_DIR] [MEGABYTES]
#   BUILD_DIR  a configured and built tree (default: build-plugin, else build)
#   MEGABYTES  capture size to aim for (default 110)
#   REPEAT=N   runs per measurement, the fastest wall and CPU times count (default 3)
#   CORPUS=0   skip the corpus part
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

measure() {  # name, bytes, output file, tshark arguments... (prints a line; $work/NAME.result)
  local name=$1 bytes=$2 out=$3
  shift 3
  local wall="" cpu="" rss=0 fpdus run w c r
  for ((run = 0; run < repeat; run++)); do
    # (Exit status 2: a capture cut short, as some of the corpus are on purpose.)
    /usr/bin/time -v -o "$work/$name.time" bash -c 'run_tshark "$@"' _ "$@" > "$out" 2> "$work/$name.err" \
      || [[ $? == 2 ]] || { echo "$name: tshark failed"; cat "$work/$name.err"; exit 1; }
    w=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$name.time" \
        | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    c=$(sed -n 's/.*User time (seconds): //p; s/.*System time (seconds): //p' "$work/$name.time" \
        | awk '{ s += $1 } END { print s }')
    r=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$name.time")
    if [[ -z "$wall" ]] || (( $(echo "$w < $wall" | bc) )); then wall=$w; fi
    if [[ -z "$cpu" ]] || (( $(echo "$c < $cpu" | bc) )); then cpu=$c; fi
    (( r > rss )) && rss=$r
  done
  fpdus=$(awk -F'\t' '$2 != "" { n += split($2, a, ",") } END { print n + 0 }' "$out")
  [[ $name == tcp-only* ]] && fpdus="-"
  printf '  %-12s %8.2f s %8.2f s CPU %8.1f MB/s %8d MB peak RSS %9s FPDUs shown\n' "$name" "$wall" \
    "$cpu" "$(echo "$bytes / 1000000 / $wall" | bc -l)" $((rss / 1024)) "$fpdus"
  echo "$wall $rss $cpu" > "$work/$name.result"
}

compare() {  # label, bytes, capture, extra tshark arguments for every run...
  local label=$1 bytes=$2 capture=$3
  shift 3
  echo "  $label"
  measure plugin "$bytes" "$work/plugin.txt" -r "$capture" "$@" -T fields -e frame.number \
    -e mpa.ulpdu_length
  measure built-in "$bytes" "$work/builtin.txt" -r "$capture" --disable-protocol mpa "$@" \
    -T fields -e frame.number -e iwarp_mpa.ulpdulength
  measure tcp-only "$bytes" "$work/baseline.txt" -r "$capture" --disable-protocol mpa \
    --disable-protocol iwarp_mpa "$@" -T fields -e frame.number -e tcp.len
  measure "plugin -2" "$bytes" "$work/plugin2.txt" -2 -r "$capture" "$@" -T fields -e frame.number \
    -e mpa.ulpdu_length
  measure "built-in -2" "$bytes" "$work/builtin2.txt" -2 -r "$capture" --disable-protocol mpa "$@" \
    -T fields -e frame.number -e iwarp_mpa.ulpdulength
  local pw pr pc bw br bc_ p2w p2r p2c b2w b2r b2c
  read -r pw pr pc < "$work/plugin.result"
  read -r bw br bc_ < "$work/built-in.result"
  read -r p2w p2r p2c < "$work/plugin -2.result"
  read -r b2w b2r b2c < "$work/built-in -2.result"
  printf '  plugin/built-in, one pass: wall time x%.2f, CPU x%.2f, peak RSS x%.2f\n' \
    "$(echo "$pw / $bw" | bc -l)" "$(echo "$pc / $bc_" | bc -l)" "$(echo "$pr / $br" | bc -l)"
  printf '  plugin/built-in, two passes (-2): wall time x%.2f, CPU x%.2f, peak RSS x%.2f\n' \
    "$(echo "$p2w / $b2w" | bc -l)" "$(echo "$p2c / $b2c" | bc -l)" "$(echo "$p2r / $b2r" | bc -l)"
  printf '  plugin, two passes against one: wall time x%.2f, CPU x%.2f, peak RSS x%.2f\n' \
    "$(echo "$p2w / $pw" | bc -l)" "$(echo "$p2c / $pc" | bc -l)" "$(echo "$p2r / $pr" | bc -l)"
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
  echo "$label: $((bytes / 1000000)) MB capture; fields frame.number and ULPDU_Length, one pass and two (-2), best of $repeat"
  # As installed: every FPDU a dissector finds goes on to DDP/RDMAP, which by default also
  # reassembles RDMA Send messages (iwarp_ddp_rdmap.reassemble_iwarp_rdma_send).
  compare "whole stack (default preferences):" "$bytes" "$capture"
  # The MPA layer alone: DDP/RDMAP off in all three runs, so a dissector that finds more
  # FPDUs is not charged for the DDP work they lead to.
  compare "MPA layer alone (iwarp_ddp_rdmap disabled in every run):" "$bytes" "$capture" \
    --disable-protocol iwarp_ddp_rdmap
  rm -f "$capture"
}

corpus() {  # tshark -2 over every capture of the corpus, with the plugin and with the built-in
  local total_p=0 total_b=0 n=0 capture p b
  : > "$work/corpus.txt"
  for capture in "$here"/captures/*.pcap "$here"/captures/*.pcapng "$here"/captures/siw/*.pcap; do
    [[ -f "$capture" ]] || continue
    cp "$capture" "$work/corpus.pcap"
    measure "plugin -2" 0 /dev/null -2 -r "$work/corpus.pcap" -T fields -e frame.number -e mpa.ulpdu_length > /dev/null
    read -r _ _ p < "$work/plugin -2.result"
    measure "built-in -2" 0 /dev/null -2 -r "$work/corpus.pcap" --disable-protocol mpa -T fields -e frame.number \
      -e iwarp_mpa.ulpdulength > /dev/null
    read -r _ _ b < "$work/built-in -2.result"
    total_p=$(echo "$total_p + $p" | bc -l)
    total_b=$(echo "$total_b + $b" | bc -l)
    n=$((n + 1))
    echo "$p $b $(basename "$capture")" >> "$work/corpus.txt"
  done
  printf 'corpus: %d captures, tshark -2, CPU time, best of %d: plugin %.2f s, built-in %.2f s (x%.2f)\n' "$n" \
    "$repeat" "$total_p" "$total_b" "$(echo "$total_p / $total_b" | bc -l)"
  echo "  slowest against the built-in (plugin s CPU, built-in s CPU, capture):"
  awk '{ printf "%.3f %s\n", $1 - $2, $0 }' "$work/corpus.txt" | sort -rn | head -5 | cut -d' ' -f2- | sed 's/^/    /'
}

bench "markers and CRC, both directions" --request-m 1 --reply-m 1 --request-c 1 --reply-c 1
bench "CRC only (no markers), both directions" --request-m 0 --reply-m 0 --request-c 1 --reply-c 1
[[ ${CORPUS:-1} == 0 ]] || corpus
