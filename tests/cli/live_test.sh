#!/usr/bin/env bash
# Live capture for real: a veth pair in a network namespace made for the test, a capture
# replayed onto one end with tcpreplay, mpa-check -i on the other. Its findings must equal
# those of mpa-check on the capture file (frames, ids, directions), Ctrl-C must end the
# capture with the summary, and findings must be printed while the capture still runs.
# Then drops forced: mpa-check stopped (SIGSTOP) while a capture larger than its capture
# buffer is replayed at top speed; the kernel drops what does not fit, and mpa-check must say
# so (text and JSON) and report the hole as a capture gap, never as an error.
#   live_test.sh MPA_CHECK CAPTURE WORKDIR [MPA_SYNTH]
set -euo pipefail
mpa_check=$1 capture=$2 work=$3 synth=${4:-}
rm -rf "$work" && mkdir -p "$work"

# An interface or a filter that cannot be opened: one clear line on stderr, nothing on
# standard output (no report of zero frames), exit 2.
for args in "-i mpa-no-such-if0" "-i lo -f tcp-port-bogus"; do
  status=0
  # shellcheck disable=SC2086
  "$mpa_check" $args --duration 1 > "$work/bad.out" 2> "$work/bad.err" || status=$?
  [ "$status" -eq 2 ] && [ ! -s "$work/bad.out" ] && grep -q "^mpa-check: .*\(cannot capture\|capture filter\)" "$work/bad.err" \
    || { echo "FAIL: mpa-check $args: exit $status, stdout:"; cat "$work/bad.out"; cat "$work/bad.err"; exit 1; }
done
echo "ok: a bad interface and a bad filter exit 2 with a message on stderr alone"

ns="mpa-live-$$"
if ! ip netns add "$ns" 2>"$work/netns.err"; then
  echo "SKIP: cannot make a network namespace here ($(cat "$work/netns.err"))"
  exit 77
fi
trap 'ip netns del "$ns" 2>/dev/null || true' EXIT
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link add mpa0 type veth peer name mpa1
in_ns ip link set mpa0 up
in_ns ip link set mpa1 up
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || true

# Offline: the reference. Only TCP frames reach the live reader (filter "tcp"), so compare
# against the capture's TCP frames in order.
"$mpa_check" --format json --notes "$capture" > "$work/offline.json" || [ $? -le 1 ]

# Live, until SIGINT after the replay.
# Not through a shell function: $! must be mpa-check itself (ip netns exec execs it).
started=$(date +%s)
ip netns exec "$ns" "$mpa_check" -i mpa1 -f tcp --notes --color never -w "$work/kept.pcapng" \
  > "$work/live.txt" 2> "$work/live.err" &
pid=$!
sleep 1.5
in_ns tcpreplay -q -i mpa0 --pps 200 "$capture" > "$work/replay.txt" 2>&1
sleep 1
first_findings=$(grep -c '\] *$\|\]$' "$work/live.txt" || true)
kill -INT $pid
status=0
for _ in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
  kill -KILL $pid; echo "FAIL: mpa-check -i did not end on SIGINT"; exit 1
fi
wait $pid || status=$?
if [ "$status" -gt 1 ]; then
  echo "FAIL: mpa-check -i exited $status"; cat "$work/live.err"; exit 1
fi
grep -q "^mpa1: \(ok\|FAIL\):" "$work/live.txt" || { echo "FAIL: no capture summary after SIGINT"; cat "$work/live.txt"; exit 1; }
[ "$first_findings" -gt 0 ] || { echo "FAIL: nothing printed while the capture was running"; exit 1; }

ended=$(date +%s)

# Live findings vs offline findings: (frame, severity, id, direction) as text lines, each
# led by its capture time (UTC, wall clock: within the run).
python3 - "$work/offline.json" "$work/live.txt" "$started" "$ended" <<'PY'
import datetime, json, re, sys
offline = json.load(open(sys.argv[1]))
started, ended = int(sys.argv[3]), int(sys.argv[4])
want = []
for cap in offline["captures"]:
    for conn in cap["connections"]:
        for f in conn["findings"]:
            want.append((f["frame"], f["severity"], f["id"], f["direction"]))
got = []
pat = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6})Z mpa1:(\d+): (error|warning|note): "
                 r".*\(connection \d+, (initiator|responder) data, .*\[([a-z0-9.-]+)\]$")
for line in open(sys.argv[2]):
    if re.search(r"mpa1:\d+: (error|warning|note):", line) and not pat.match(line.rstrip("\n")):
        print(f"FAIL: a streamed finding line without its time: {line!r}")
        sys.exit(1)
    m = pat.match(line.rstrip("\n"))
    if m:
        when = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
        if not started - 1 <= when.timestamp() <= ended + 1:
            print(f"FAIL: {m.group(1)}Z is not wall-clock time of the run ({started}..{ended})")
            sys.exit(1)
        got.append((int(m.group(2)), m.group(3), m.group(5), m.group(4)))
want.sort(); got.sort()
if want != got:
    print("FAIL: live findings differ from offline ones")
    print("offline:", want)
    print("live:   ", got)
    sys.exit(1)
print(f"ok: {len(got)} live findings equal the offline ones")
PY

# -w kept what was analysed, frame for frame: the file read offline gives the live findings
# at the same frame numbers, and tshark reads as many frames as the live summary counted.
"$mpa_check" --format json --notes "$work/kept.pcapng" > "$work/kept.json" || [ $? -le 1 ]
python3 - "$work/kept.json" "$work/live.txt" <<'PY'
import json, re, sys
kept = json.load(open(sys.argv[1]))
want = sorted((f["frame"], f["id"], f["direction"]) for cap in kept["captures"]
              for conn in cap["connections"] for f in conn["findings"])
live = open(sys.argv[2]).read()
got = sorted((int(m.group(1)), m.group(3), m.group(2)) for m in re.finditer(
    r"mpa1:(\d+): (?:error|warning|note): .*\(connection \d+, (initiator|responder) data, .*\[([a-z0-9.-]+)\]$", live, re.M))
frames = re.search(r"^mpa1: (?:ok|FAIL): (\d+) frames", live, re.M)
if not want or want != got or not frames or kept["captures"][0]["frames"] != int(frames.group(1)):
    print("FAIL: the -w file does not give the live findings and frames", want, got, kept["captures"][0]["frames"], sep="\n")
    sys.exit(1)
print(f"ok: -w kept {frames.group(1)} frames; read offline they give the {len(got)} live findings")
PY
if command -v tshark >/dev/null; then
  n=$(tshark -r "$work/kept.pcapng" 2>/dev/null | wc -l)
  grep -q "^mpa1: \(ok\|FAIL\): $n frames" "$work/live.txt" || { echo "FAIL: tshark reads $n frames from the -w file"; exit 1; }
fi

# --format json with -i: JSON Lines, a "finding" event a line as each is decided (the same
# findings as offline), a "connection" event as each ends, an "end" event last.
ip netns exec "$ns" "$mpa_check" -i mpa1 -f tcp --format json > "$work/live.jsonl" 2> "$work/live-json.err" &
pid=$!
sleep 1.5
in_ns tcpreplay -q -i mpa0 --pps 200 "$capture" > "$work/replay2.txt" 2>&1
sleep 1
kill -INT $pid
status=0
wait $pid || status=$?
[ "$status" -le 1 ] || { echo "FAIL: mpa-check -i --format json exited $status"; cat "$work/live-json.err"; exit 1; }
python3 - "$work/offline.json" "$work/live.jsonl" <<'PY'
import json, sys
offline = json.load(open(sys.argv[1]))
events = [json.loads(line) for line in open(sys.argv[2])]  # each line a JSON document
want = sorted((f["frame"], f["severity"], f["id"], f["direction"]) for cap in offline["captures"]
              for conn in cap["connections"] for f in conn["findings"] if f["severity"] != "note")
got = sorted((e["frame"], e["severity"], e["id"], e["direction"]) for e in events
             if e["event"] == "finding" and e["connection"] is not None and e["severity"] != "note")
if want != got:
    print("FAIL: JSON Lines findings differ from offline ones", want, got, sep="\n")
    sys.exit(1)
connections = [e for e in events if e["event"] == "connection"]
if len(connections) != len(offline["captures"][0]["connections"]) or any("findings" in c for c in connections):
    print(f"FAIL: {len(connections)} connection events, offline {len(offline['captures'][0]['connections'])}")
    sys.exit(1)
end = events[-1]
if end["event"] != "end" or end["capture"] != "mpa1" or end["counts"]["errors"] != offline["summary"]["errors"]:
    print(f"FAIL: last event: {end}")
    sys.exit(1)
print(f"ok: JSON Lines: {len(got)} findings, {len(connections)} connection events, then the end")
PY

# --duration ends a capture by itself, with the summary, even when nothing arrived.
start=$(date +%s%N)
ip netns exec "$ns" "$mpa_check" -i mpa1 -f tcp --duration 0.5 --require-mpa > "$work/duration.txt" 2>&1 && status=0 || status=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
grep -q "^mpa1: FAIL: 0 frames, 0 connections with MPA" "$work/duration.txt" && [ "$status" -eq 1 ] \
  && [ "$elapsed_ms" -lt 5000 ] || { echo "FAIL: --duration 0.5 (exit $status, ${elapsed_ms} ms)"; cat "$work/duration.txt"; exit 1; }
echo "ok: --duration 0.5 ended after ${elapsed_ms} ms with the summary"

# Forced drops. A clean conversation of about 80 MB (the capture buffer holds 32 MiB), its
# last 200 frames replayed again after mpa-check resumes, so that the hole lies between frames
# it sees: it must be a capture gap, and the drops must be counted.
if [ -n "$synth" ]; then
  "$synth" -o "$work/big.pcap" --rev 2 --request-m 1 --reply-m 1 --request-c 1 --reply-c 1 \
    --initiator-messages 20000 --responder-messages 10 --sizes 4000 > /dev/null
  total=$(python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(); at = 24; n = 0
while at + 16 <= len(d): at += 16 + struct.unpack_from("<I", d, at + 8)[0]; n += 1
print(n)' "$work/big.pcap")
  editcap -r "$work/big.pcap" "$work/tail.pcap" "$((total - 199))-$total"
  # Two of them on the same interface, text and JSON Lines, both stopped.
  ip netns exec "$ns" "$mpa_check" -i mpa1 -f tcp --notes --color never \
    > "$work/drops.txt" 2> "$work/drops.err" &
  pid=$!
  ip netns exec "$ns" "$mpa_check" -i mpa1 -f tcp --format json \
    > "$work/drops.jsonl" 2> "$work/drops-json.err" &
  pid_json=$!
  sleep 1.5
  kill -STOP $pid $pid_json
  in_ns tcpreplay -q -i mpa0 --topspeed "$work/big.pcap" > "$work/replay3.txt" 2>&1
  kill -CONT $pid $pid_json
  sleep 2
  in_ns tcpreplay -q -i mpa0 --pps 500 "$work/tail.pcap" > "$work/replay4.txt" 2>&1
  sleep 1
  kill -INT $pid $pid_json
  status=0
  wait $pid || status=$?
  [ "$status" -le 1 ] || { echo "FAIL: mpa-check -i with drops exited $status"; cat "$work/drops.err"; exit 1; }
  wait $pid_json || status=$?
  [ "$status" -le 1 ] || { echo "FAIL: mpa-check -i --format json with drops exited $status"; cat "$work/drops-json.err"; exit 1; }
  python3 - "$work/drops.jsonl" <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
end = events[-1]
live = end.get("live") or {}
if end["event"] != "end" or live.get("packets_dropped", 0) + live.get("packets_dropped_by_interface", 0) == 0 \
        or "capture gaps" not in (live.get("drops_warning") or ""):
    print(f"FAIL: JSON Lines end event without the drops: {end}")
    sys.exit(1)
bad = [e for e in events if e["event"] == "finding" and e["severity"] != "note"]
if bad:
    print("FAIL: drops reported as errors or warnings in JSON Lines:", bad[:5])
    sys.exit(1)
print(f"ok: JSON Lines: {live['packets_dropped']} packets dropped in the end event, no error")
PY
  python3 - "$work/drops.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^mpa1:   libpcap: (\d+) packets? received, (\d+) dropped by the kernel, (\d+) by the interface$", text, re.M)
if not m or int(m.group(2)) + int(m.group(3)) == 0:
    print("FAIL: no drops reported after a forced overflow", text[-2000:], sep="\n")
    sys.exit(1)
if not re.search(r"^mpa1: warning: \d+ packets? lost before the analysis .*capture gaps", text, re.M):
    print("FAIL: drops without their warning", text[-2000:], sep="\n")
    sys.exit(1)
errors = re.findall(r"^.*mpa1:\d+: (?:error|warning): .*$", text, re.M)
if errors:
    print("FAIL: drops reported as protocol errors or warnings:", *errors[:10], sep="\n")
    sys.exit(1)
if not re.search(r"\[capture\.gap\]$", text, re.M):
    print("FAIL: the hole the drops left is no capture gap", text[-2000:], sep="\n")
    sys.exit(1)
print(f"ok: forced drops: {int(m.group(2)) + int(m.group(3))} packets dropped, reported; the hole is a capture gap, no error")
PY
fi
