#!/usr/bin/env bash
# live_rate.sh (issue 24): the highest rate at which `mpa-check -i` loses nothing. A capture of
# realistic size (default 384 MiB written by mpa_check_bench --write-only: 72 MPA connections,
# markers and CRCs, mixed FPDU sizes, MSS 1460 and 8960) is replayed by tcpreplay onto one end of a veth pair (MTU 9000) in a network
# namespace made for the run, while mpa-check -i (its default 32 MiB capture buffer, filter tcp,
# JSON Lines) captures on the other end. Each replay: top speed first, then a bisection over
# tcpreplay --mbps between nothing and the top speed's rate. Per rate it prints what tcpreplay
# reports (Mbit/s, packets/s), packets sent, received by libpcap, dropped (kernel + interface),
# missing (sent but never counted by libpcap: lost before the socket, e.g. the veth backlog),
# and whether mpa-check's findings equal those of mpa-check on the file (frame, severity, id,
# direction, notes included). A rate is loss-free when nothing is dropped or missing and the
# findings match. The baseline, in the same run: a plain capture consumer (dumpcap -w /dev/null
# with the same 32 MiB buffer, or tcpdump where dumpcap is missing) at top speed, bisected the
# same way if it drops; then the ratio of the two loss-free rates.
# Not part of ctest (speed is measured here, not asserted); skipped (exit 77) where no network
# namespace can be made. Needs root, iproute2, tcpreplay, python3.
#
# Usage: tests/bench/live_rate.sh MPA_CHECK [CAPTURE|GENERATOR] [WORKDIR]
#   MPA_CHECK   the mpa-check binary (e.g. build/analyzer/mpa-check)
#   CAPTURE     a pcap/pcapng to replay (frames up to 9014 octets), or
#   GENERATOR   mpa_check_bench (its --write-only capture: the bench's generator) or mpa-synth
#               (16 conversations of distinct seeds merged by time); default: the
#               mpa_check_bench of MPA_CHECK's build tree, else its mpa-synth
#   WORKDIR     scratch directory (default: a fresh one under /tmp, removed at the end)
#   MEGABYTES=N capture size to generate (default 384)
#   STEPS=N     bisection steps per consumer (default 5: 2-3 minutes in all; each step halves
#               the interval, the first is half the top speed)
#   CONFIRM=N   replays a rate must pass to count as loss-free (default 2: drops come in bursts,
#               when the consumer is not scheduled for a while, so one clean replay is luck)
set -euo pipefail

mpa_check=$(realpath "${1:?usage: live_rate.sh MPA_CHECK [CAPTURE|GENERATOR] [WORKDIR]}")
source_arg=${2:-}
megabytes=${MEGABYTES:-384}
steps=${STEPS:-5}
confirm=${CONFIRM:-2}
if [[ -n "${3:-}" ]]; then
  work=$3
  mkdir -p "$work"
  keep_work=1
else
  work=$(mktemp -d /tmp/mpa-live-rate.XXXXXX)
  keep_work=0
fi
for tool in ip tcpreplay python3; do
  command -v "$tool" > /dev/null || { echo "SKIP: $tool not found"; exit 77; }
done

# Background processes and the namespace go whatever happens.
ns="mpa-rate-$$"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2> /dev/null || true; done
  ip netns del "$ns" 2> /dev/null || true
  if [[ $keep_work == 0 ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The capture.
build=$(dirname "$(dirname "$mpa_check")")
if [[ -z "$source_arg" ]]; then
  for candidate in "$build/tests/bench/mpa_check_bench" "$build/tests/synth/mpa-synth"; do
    [[ -x "$candidate" ]] && source_arg=$candidate && break
  done
  [[ -n "$source_arg" ]] || { echo "no capture given and neither mpa_check_bench nor mpa-synth built beside $mpa_check" >&2; exit 2; }
fi
capture="$work/live-rate.pcap"
if [[ -f "$source_arg" && ! -x "$source_arg" ]]; then
  capture=$source_arg
elif [[ $(basename "$source_arg") == mpa_check_bench* ]]; then
  rm -f "$capture"
  "$source_arg" --write-only --size-mib "$megabytes" --file "$capture" > /dev/null
elif [[ $(basename "$source_arg") == mpa-synth* ]]; then
  command -v mergecap > /dev/null || { echo "mergecap (wireshark-common) is needed to merge mpa-synth's conversations" >&2; exit 2; }
  # 16 conversations, seeds (so ports and ISNs) apart, markers and CRCs both ways.
  messages=$((megabytes * 1048576 / 16 / 2400))  # 1688 octets a message on average, plus headers, ACKs, the responder
  parts=()
  for seed in $(seq 1 16); do
    "$source_arg" -o "$work/part$seed.pcap" --seed "$seed" --rev 2 --request-m 1 --reply-m 1 \
      --request-c 1 --reply-c 1 --initiator-messages "$messages" --responder-messages $((messages / 4)) \
      --sizes 4000 64 1000 > /dev/null
    parts+=("$work/part$seed.pcap")
  done
  mergecap -F pcap -w "$capture" "${parts[@]}"
  rm -f "${parts[@]}"
else
  echo "$source_arg: neither a capture file nor mpa_check_bench nor mpa-synth" >&2
  exit 2
fi

if ! ip netns add "$ns" 2> "$work/netns.err"; then
  echo "SKIP: cannot make a network namespace here ($(cat "$work/netns.err"))"
  exit 77
fi
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link add mpa0 type veth peer name mpa1
for end in mpa0 mpa1; do in_ns ip link set "$end" mtu 9000 up; done
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || true

# The plain consumer: dumpcap (Wireshark's capture engine alone), else tcpdump.
if command -v dumpcap > /dev/null; then
  plain_name="dumpcap -B 32 -w /dev/null"
elif command -v tcpdump > /dev/null; then
  plain_name="tcpdump -B 32768 -w /dev/null"
else
  echo "SKIP: neither dumpcap nor tcpdump for the baseline"
  exit 77
fi

# Offline: the reference findings.
"$mpa_check" --format json --notes "$capture" > "$work/offline.json" || [[ $? -le 1 ]]
read -r frames connections < <(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["captures"][0]
print(c["frames"], c["tcp_connections"])' "$work/offline.json")

# CPU ticks (user + system) a process has used so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2> /dev/null || echo gone; }

# Waits until the consumer has read what the kernel holds for it: its CPU time stands still
# for half a second (or 20 s have passed). Sets $ticks, its CPU time in clock ticks.
drain() {
  local pid=$1 last now same=0
  last=$(cpu_ticks "$pid")
  ticks=$last
  for _ in $(seq 200); do
    sleep 0.1
    now=$(cpu_ticks "$pid")
    ticks=$now
    if [[ "$now" == "$last" ]]; then
      same=$((same + 1))
      ((same >= 5)) && return 0
    else
      same=0
      last=$now
    fi
  done
}

# One replay at RATE (Mbit/s, or "top") with CONSUMER (mpa-check or plain). Prints a row and
# sets $lossless (1 or 0) and $offered (tcpreplay's Mbit/s).
run=0
measure() {
  local consumer=$1 rate=$2 pid status=0
  run=$((run + 1))
  local out="$work/run$run"
  if [[ $consumer == mpa-check ]]; then
    # Not through in_ns: $! must be mpa-check itself (ip netns exec execs it).
    ip netns exec "$ns" "$mpa_check" -i mpa1 -f tcp --notes --format json > "$out.jsonl" 2> "$out.err" &
  elif [[ $plain_name == dumpcap* ]]; then
    ip netns exec "$ns" dumpcap -q -i mpa1 -f tcp -B 32 -w /dev/null > "$out.out" 2> "$out.err" &
  else
    ip netns exec "$ns" tcpdump -q -i mpa1 -B 32768 -w /dev/null tcp > "$out.out" 2> "$out.err" &
  fi
  pid=$!
  pids+=("$pid")
  sleep 1.5
  local speed=(--topspeed)
  [[ $rate == top ]] || speed=(--mbps "$rate")
  in_ns tcpreplay -i mpa0 --preload-pcap "${speed[@]}" "$capture" > "$out.replay" 2>&1 \
    || { echo "tcpreplay failed:"; cat "$out.replay"; exit 1; }
  drain "$pid"
  kill -INT "$pid"
  wait "$pid" || status=$?
  pids=("${pids[@]/$pid/}")
  if [[ $consumer == mpa-check && $status -gt 1 ]] || [[ $consumer == plain && $status -ne 0 ]]; then
    echo "$consumer exited $status"
    cat "$out.err"
    exit 1
  fi
  local result
  result=$(python3 - "$consumer" "$rate" "$out" "$work/offline.json" "$ticks" "$(getconf CLK_TCK)" <<'PY'
import json, re, sys
consumer, rate, out, offline_path, ticks, hz = sys.argv[1:]
cpu = int(ticks) / int(hz) if ticks.isdigit() else float("nan")
replay = open(out + ".replay").read()
actual = re.search(r"Actual: (\d+) packets \(\d+ bytes\) sent in ([\d.]+) seconds", replay)
sent, seconds = int(actual.group(1)), float(actual.group(2))
rated = re.search(r"Rated: [\d.]+ Bps, ([\d.]+) Mbps, ([\d.]+) pps", replay)
mbps, pps = float(rated.group(1)), float(rated.group(2))
if consumer == "mpa-check":
    events = [json.loads(line) for line in open(out + ".jsonl")]
    end = events[-1]
    assert end["event"] == "end", end
    live = end["live"]
    received, dropped, ifdropped = live["packets_received"], live["packets_dropped"], live["packets_dropped_by_interface"]
    offline = json.load(open(offline_path))
    want = sorted((f["frame"], f["severity"], f["id"], f["direction"]) for cap in offline["captures"]
                  for conn in cap["connections"] for f in conn["findings"])
    got = sorted((e["frame"], e["severity"], e["id"], e["direction"]) for e in events
                 if e["event"] == "finding" and e["connection"] is not None)
    findings = "equal" if want == got and end["frames"] == offline["captures"][0]["frames"] else \
        f"differ ({len(got)} vs {len(want)}, {end['frames']} frames)"
else:
    # dumpcap: "Packets received/dropped on interface 'mpa1': 1000/5 (pcap:5/dumpcap:0/flushed:0/
    # ps_ifdrop:0)" (received: what dumpcap got; dropped: libpcap's, its own and flushed ones);
    # tcpdump: "N packets received by filter", "N packets dropped by kernel", "N ... by interface".
    err = open(out + ".err").read()
    m = re.search(r"Packets received/dropped on interface '[^']*': (\d+)/(\d+) \(pcap:(\d+)/.*ps_ifdrop:(\d+)\)", err)
    if m:
        # As libpcap counts: what reached the socket, dropped there or not.
        dropped, ifdropped = int(m.group(2)), int(m.group(4))
        received = int(m.group(1)) + int(m.group(3))
    else:
        count = lambda what: int(re.search(r"(\d+) packets? " + what, err).group(1))
        received, dropped, ifdropped = count("received by filter"), count("dropped by kernel"), count("dropped by interface")
    findings = "-"
missing = max(sent - received, 0)
lossless = int(dropped + ifdropped + missing == 0 and findings in ("equal", "-"))
asked = "top speed" if rate == "top" else f"--mbps {rate}"
print(f"{consumer:<9} {asked:>12} {mbps:>9.1f} {pps:>10.0f} {sent:>8} {received:>8} {dropped + ifdropped:>8} "
      f"{missing:>7} {seconds:>6.2f} {cpu:>6.2f}  {findings}|{lossless}|{mbps:.1f}")
PY
  )
  echo "${result%%|*}"
  local rest=${result#*|}
  lossless=${rest%%|*}
  offered=${rest#*|}
}

# measure CONSUMER RATE, again while it loses nothing, CONFIRM times in all; $lossless: all did.
measure_confirmed() {
  local n
  measure "$1" "$2"
  for ((n = 1; n < confirm && lossless == 1; n++)); do measure "$1" "$2"; done
}

# Top speed, then STEPS bisection steps between nothing and what top speed offered. Sets
# $best (the highest loss-free offered Mbit/s, 0 if none) and $best_note.
bisect() {
  local consumer=$1 lo=0 hi mid
  measure_confirmed "$consumer" top
  if [[ $lossless == 1 ]]; then
    best=$offered best_note="(top speed: loses nothing)"
    return
  fi
  hi=$offered
  best=0 best_note=""
  for _ in $(seq "$steps"); do
    mid=$(python3 -c "print(max(1, round(($lo + $hi) / 2)))")
    measure_confirmed "$consumer" "$mid"
    if [[ $lossless == 1 ]]; then
      lo=$mid
      best=$offered
    else
      hi=$mid
    fi
  done
  best_note="(bisected: loses packets at --mbps $hi)"
}

started=$(date +%s)
echo "capture: $capture, $(($(stat -c %s "$capture") / 1048576)) MiB, $frames frames, $connections TCP connections; $(nproc) CPUs; load:$(uptime | sed 's/.*load average://')"
printf '%-9s %12s %9s %10s %8s %8s %8s %7s %6s %6s  %s\n' consumer asked Mbit/s pkt/s sent received dropped missing replay cpu findings
echo "(replay: seconds tcpreplay took; cpu: the consumer's CPU seconds, user + system, over the whole run)"
bisect mpa-check
mpa_best=$best mpa_note=$best_note
bisect plain
plain_best=$best plain_note=$best_note plain_top=""
[[ $plain_note == *top* ]] && plain_top=1
echo "plain consumer: $plain_name"
echo "mpa-check -i loses nothing up to $mpa_best Mbit/s $mpa_note"
echo "plain consumer loses nothing up to $plain_best Mbit/s $plain_note"
python3 -c "import sys; m, p = float(sys.argv[1]), float(sys.argv[2])
print(f'ratio mpa-check / plain consumer: {m / p:.2f}' + (' (at most: the plain consumer lost nothing at top speed)' if sys.argv[3] else '') if p > 0 else 'ratio: the plain consumer lost packets at every rate tried')" "$mpa_best" "$plain_best" "$plain_top"
echo "$(($(date +%s) - started)) s; load:$(uptime | sed 's/.*load average://')"
