#!/usr/bin/env bash
# soak.sh (issue 44, item 5): a long live run stays bounded. A capture of 100,000 short MPA
# connections (mpa_check_bench --write-soak: startup, one small message each way, 1,000 open at
# once; half close with FINs, half never close) is replayed LOOPS times by tcpreplay
# --unique-ip (each loop new addresses, so new connections: 2,000,000 by default, 1,000,000 of
# them never closed) onto one end of a veth pair in a network namespace made for the run,
# while `mpa-check -i` (--idle-timeout SECONDS, JSON Lines) captures on the other end. Every
# second it samples mpa-check's resident set; it prints the samples by tenths of the run, the
# peak, and the connections mpa-check reported (ended, of them expired). RSS stays flat when
# connections that never close are let go (expired) at the rate they come.
# Not part of ctest (measured here, not asserted); skipped (exit 77) where no network namespace
# can be made. Needs root, iproute2, tcpreplay.
#
# Usage: tests/bench/soak.sh MPA_CHECK MPA_CHECK_BENCH [WORKDIR]
#   LOOPS=N         replays of the capture (default 20)
#   MBPS=N          tcpreplay's rate (default 100 Mbit/s: 2,000,000 connections in about 3
#                   minutes; a rate mpa-check keeps up with, so that few frames are dropped)
#   IDLE_TIMEOUT=S  mpa-check's --idle-timeout (default 2 seconds)
set -euo pipefail

mpa_check=$(realpath "${1:?usage: soak.sh MPA_CHECK MPA_CHECK_BENCH [WORKDIR]}")
bench=$(realpath "${2:?usage: soak.sh MPA_CHECK MPA_CHECK_BENCH [WORKDIR]}")
loops=${LOOPS:-20}
mbps=${MBPS:-100}
idle=${IDLE_TIMEOUT:-2}
work=${3:-$(mktemp -d /tmp/mpa-soak.XXXXXX)}
mkdir -p "$work"
for tool in ip tcpreplay; do
  command -v "$tool" > /dev/null || { echo "SKIP: $tool not found"; exit 77; }
done

ns="mpa-soak-$$"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2> /dev/null || true; done
  ip netns del "$ns" 2> /dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

capture="$work/soak.pcap"
[[ -f $capture ]] || "$bench" --write-soak "$capture"
if ! ip netns add "$ns" 2> "$work/netns.err"; then
  echo "SKIP: cannot make a network namespace here ($(cat "$work/netns.err"))"
  exit 77
fi
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link add mpa0 type veth peer name mpa1
for end in mpa0 mpa1; do in_ns ip link set "$end" mtu 9000 up; done
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || true

# (ip netns exec becomes mpa-check: $! is the process whose RSS is sampled.)
ip netns exec "$ns" "$mpa_check" -i mpa1 -f tcp --idle-timeout "$idle" --format json --progress never \
  > "$work/live.jsonl" 2> "$work/live.err" &
pids+=($!)
checker=$!
sleep 2
: > "$work/rss.txt"
(while kill -0 "$checker" 2> /dev/null; do
  awk '/^VmRSS/ { print $2 }' "/proc/$checker/status" 2> /dev/null >> "$work/rss.txt" || true
  sleep 1
done) &
pids+=($!)
start=$(date +%s)
in_ns tcpreplay -q -i mpa0 --mbps "$mbps" --loop "$loops" --unique-ip "$capture" > "$work/replay.txt" 2>&1
sleep $((idle + 2))
kill -INT "$checker"
wait "$checker" || true
elapsed=$(($(date +%s) - start))

python3 - "$work" "$loops" "$elapsed" "$idle" << 'EOF'
import json, sys
work, loops, elapsed, idle = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rss = [int(x) for x in open(f"{work}/rss.txt") if x.strip()]
ended = expired = 0
for line in open(f"{work}/live.jsonl"):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if o.get("event") == "connection":
        ended += 1
        expired += bool(o.get("expired"))
print(f"soak: {loops} loops of 100,000 connections (half never closed) in {elapsed} s, "
      f"--idle-timeout {idle}")
if rss:
    tenths = [rss[min(len(rss) - 1, len(rss) * k // 10)] for k in range(10)] + [rss[-1]]
    print("RSS by tenths of the run (MiB): " + " ".join(f"{v / 1024:.1f}" for v in tenths))
    print(f"peak {max(rss) / 1024:.1f} MiB over {len(rss)} samples")
end = [json.loads(l) for l in open(f"{work}/live.jsonl") if l.startswith('{"event":"end"')]
print(f"connections reported: {ended}, of them expired: {expired}")
if end:
    live = end[-1].get("live", {})
    print(f"frames analysed {end[-1].get('frames')}, received {live.get('packets_received')}, "
          f"dropped {live.get('packets_dropped')}")
EOF
grep -iE "packets|Actual" "$work/replay.txt" | head -3 || true
