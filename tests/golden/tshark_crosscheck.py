#!/usr/bin/env python3
"""Cross-check against an independent reader: for captures without markers and without errors, Wireshark's
built-in iwarp_mpa dissector (through the real tshark) must see the same FPDUs as mpa-check
(count and ULPDU_Length of each, per TCP direction). This catches the generator and the checker
sharing one misunderstanding. The built-in mishandles markers and needs both startup frames of
an RFC 5044/6581 revision, so captures with markers, without startup frames, or of Rev 0/129
are exempt.

  tshark_crosscheck.py MPA_CHECK CAPTURE...
"""
import json
import subprocess
import sys


def mpa_check_fpdus(mpa_check, capture):
    proc = subprocess.run([mpa_check, "--format", "json", "--list-fpdus", capture],
                          capture_output=True, text=True)
    report = json.loads(proc.stdout)
    conns = report["captures"][0]["connections"]
    if report["summary"]["errors"]:
        return None, "errors found (framing after an error is not comparable)"
    for c in conns:
        unseen = {"capture.gap", "capture.truncated", "capture.ip-fragment"}
        if any(f["id"] in unseen for f in c["findings"]) or report["captures"][0]["findings"]:
            return None, "bytes missing from the capture (mpa-check could not verify them)"
        if not c["startup_seen"] or c["revision"] not in (1, 2):
            return None, "no RFC 5044/6581 startup frames"
        if any(d["markers"] for d in c["directions"].values()):
            return None, "markers"
    rows = {}
    for c in conns:
        flows = {"initiator": (c["initiator"], c["responder"]), "responder": (c["responder"], c["initiator"])}
        for f in c.get("fpdus", []):
            rows.setdefault(flows[f["direction"]], []).append(f["ulpdu_length"])
    return rows, None


def tshark_fpdus(capture):
    proc = subprocess.run(
        # Stock tshark: our plugin, when installed (the README's first command does that),
        # replaces iwarp_mpa; disabling it brings the independent built-in reader back.
        ["tshark", "-n", "--disable-protocol", "mpa", "-r", capture, "-o", "tcp.desegment_tcp_streams:TRUE",
         "-Y", "iwarp_mpa.ulpdulength", "-T", "fields", "-E", "separator=/t",
         "-e", "ip.src", "-e", "ipv6.src", "-e", "tcp.srcport",
         "-e", "ip.dst", "-e", "ipv6.dst", "-e", "tcp.dstport", "-e", "iwarp_mpa.ulpdulength"],
        capture_output=True, text=True, check=True)
    rows = {}
    for line in proc.stdout.splitlines():
        src4, src6, sport, dst4, dst6, dport, lengths = line.split("\t")
        flow = (f"{src4}:{sport}" if src4 else f"[{src6}]:{sport}",
                f"{dst4}:{dport}" if dst4 else f"[{dst6}]:{dport}")
        rows.setdefault(flow, []).extend(int(x) for x in lengths.split(",") if x)
    return rows


def main():
    mpa_check, captures = sys.argv[1], sys.argv[2:]
    failures, checked = [], 0
    for capture in captures:
        ours, exempt = mpa_check_fpdus(mpa_check, capture)
        if ours is None:
            print(f"exempt  {capture}: {exempt}")
            continue
        theirs = tshark_fpdus(capture)
        checked += 1
        for flow in sorted(set(ours) | set(theirs)):
            a, b = ours.get(flow, []), theirs.get(flow, [])
            if a != b:
                failures.append(f"{capture} {flow[0]} -> {flow[1]}: mpa-check {len(a)} FPDUs {a[:8]}..., "
                                f"tshark iwarp_mpa {len(b)} FPDUs {b[:8]}...")
        print(f"checked {capture}: {sum(len(v) for v in ours.values())} FPDUs agree"
              if not failures or not failures[-1].startswith(capture) else f"DIFFERS {capture}")
    if failures:
        sys.exit("\n".join(failures))
    if checked == 0:
        sys.exit("no capture was eligible for the cross-check")
    print(f"{checked} captures agree with tshark's iwarp_mpa")


if __name__ == "__main__":
    main()
