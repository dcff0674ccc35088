#!/usr/bin/env python3
"""RDMA messages as mpa-check reports them (--list-messages, JSON "messages"), held against an
independent count.

  messages_test.py MPA_CHECK CAPTURES_DIR SIW_DIR WORKDIR CHECK [MPA_SYNTH]

CHECK is one of:
  tshark-agrees  for every siw capture and a few synthetic ones: the complete messages by
                 RDMAP opcode equal those Wireshark's own DDP/RDMAP dissector ends (a DDP
                 Segment with the Last flag, `iwarp_ddp.last_flag`, per `iwarp_rdma.opcode`) and
                 the DDP segments by opcode equal the segments it decodes,
                 and the JSON counts by opcode equal what the list adds up to; skipped (77)
                 without tshark
  faces          the text lines of --list-messages are the JSON message_list, one for one;
                 --from-json reads the counts and the list back as written; an RDMA Read
                 Request's size, source and sink are Wireshark's; without the flag there is
                 no list, and the counts are there
  synth          a capture of mpa-synth's with 10005 messages one way and 7 the other: the
                 counts are the synthesizer's, the list stops at 10000 and says 12 were left
                 out (text and JSON alike)
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def mpa_json(mpa_check, capture, *extra):
    p = subprocess.run([mpa_check, "--format", "json", *extra, capture], capture_output=True, text=True)
    expect(p.returncode in (0, 1), f"mpa-check {capture} exited {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


OPCODES = ["rdma_write", "rdma_read_request", "rdma_read_response", "send", "send_invalidate", "send_se",
           "send_se_invalidate", "terminate", "immediate_data", "immediate_data_se", "atomic_request",
           "atomic_response"]


def complete_by_opcode(report):
    counts = collections.Counter()
    for cap in report["captures"]:
        for conn in cap["connections"]:
            expect("messages_not_listed" not in conn, "a message list was cut short")
            for m in conn.get("message_list", []):
                if m["complete"]:
                    counts[m["opcode"]] += 1
    return counts


def tshark_by_opcode(tshark, capture):
    """The messages Wireshark's iwarp_ddp_rdmap ends: per DDP Segment with the Last flag, its
    RDMAP opcode. (Its own MPA dissector, not the plugin: tshark runs without personal plugins.)"""
    env = dict(os.environ, WIRESHARK_PLUGIN_DIR="/nonexistent", HOME="/nonexistent")
    p = subprocess.run([tshark, "-n", "-r", capture, "-Y", "iwarp_ddp_rdmap", "-T", "fields", "-E",
                        "occurrence=a", "-E", "aggregator=,", "-e", "iwarp_rdma.opcode", "-e",
                        "iwarp_ddp.last_flag"], capture_output=True, text=True, env=env)
    expect(p.returncode == 0, f"tshark {capture}: {p.stderr}")
    counts, segments = collections.Counter(), collections.Counter()
    for line in p.stdout.splitlines():
        ops, lasts = (line.split("\t") + [""])[:2]
        for op, last in zip(ops.split(","), lasts.split(",")):
            if op:
                segments[OPCODES[int(op, 16)]] += 1
            if op and last in ("1", "True"):
                counts[OPCODES[int(op, 16)]] += 1
    return counts, segments


def segments_by_opcode(report, what="segments"):
    segments = collections.Counter()
    for cap in report["captures"]:
        for conn in cap["connections"]:
            for side in ("initiator", "responder"):
                for op, t in conn["messages"][side].items():
                    segments[op] += t[what]
    return segments


def check_counts_add_up(report, capture):
    for cap in report["captures"]:
        for conn in cap["connections"]:
            for side in ("initiator", "responder"):
                want = collections.Counter()
                octets = collections.Counter()
                for m in conn.get("message_list", []):
                    if m["direction"] == side:
                        want[m["opcode"]] += 1
                        octets[m["opcode"]] += m["octets"]
                got = conn["messages"][side]
                expect({k: v["messages"] for k, v in got.items()} == dict(want),
                       f"{capture}: connection {conn['id']} {side}: counts {got} but the list has {dict(want)}")
                expect({k: v["octets"] for k, v in got.items()} == dict(octets),
                       f"{capture}: connection {conn['id']} {side}: octets {got} but the list adds up to {dict(octets)}")


SYNTHETIC = ["fault-ddp.msn-invalid.pcap", "fault-ddp.message-unfinished.pcap",
             "fault-rdmap.terminate.pcap", "fault-ddp.stag-changed.pcap"]


def check_tshark_agrees(a):
    tshark = shutil.which("tshark")
    if not tshark:
        print("SKIP: no tshark")
        return 77
    captures = sorted(os.path.join(a.siw, f) for f in os.listdir(a.siw) if f.endswith(".pcap"))
    captures += [os.path.join(a.captures, f) for f in SYNTHETIC if os.path.exists(os.path.join(a.captures, f))]
    expect(len(captures) >= 20, f"only {len(captures)} captures")
    total = 0
    # A capture whose FPDU failed its CRC: Wireshark's MPA dissector still hands its ULPDU to
    # DDP/RDMAP, which the DDP layer (RFC 5044 8) and so mpa-check do not take.
    tshark_takes_bad_crc = {"siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap"}
    for capture in captures:
        report = mpa_json(a.mpa_check, capture, "--list-messages")
        check_counts_add_up(report, capture)
        ours, our_segments = complete_by_opcode(report), segments_by_opcode(report)
        theirs, their_segments = tshark_by_opcode(tshark, capture)
        name = os.path.basename(capture)
        if name in tshark_takes_bad_crc:
            expect(all(ours[k] <= theirs[k] for k in theirs) and sum(theirs.values()) - sum(ours.values()) == 1,
                   f"{name}: mpa-check {dict(ours)}, tshark {dict(theirs)} (one message apart: the bad CRC)")
            expect(sum(their_segments.values()) - sum(our_segments.values()) == 1,
                   f"{name}: DDP segments: mpa-check {dict(our_segments)}, tshark {dict(their_segments)}")
        else:
            expect(ours == theirs, f"{name}: mpa-check's complete messages {dict(ours)}, tshark's {dict(theirs)}")
            expect(our_segments == their_segments,
                   f"{name}: DDP segments by opcode: mpa-check {dict(our_segments)}, tshark {dict(their_segments)}")
            # Every message these captures began, they finished (but the Send that
            # fault-ddp.message-unfinished leaves without its Last segment): as many begun as
            # Wireshark ends.
            begun = segments_by_opcode(report, "messages")
            if name == "fault-ddp.message-unfinished.pcap":
                begun["send"] -= 1
            expect(begun == theirs, f"{name}: messages begun by opcode: mpa-check {dict(begun)}, tshark ends {dict(theirs)}")
        total += sum(ours.values())
    expect(total > 1000, f"only {total} messages over {len(captures)} captures")
    print(f"tshark-agrees: {total} messages over {len(captures)} captures, by opcode as Wireshark counts them")
    return 0


LINE = re.compile(r"^(?P<file>.+):(?P<frame>\d+): message: connection (?P<conn>\d+) (?P<dir>initiator|responder) "
                  r"#(?P<num>\d+) (?P<words>.*) \(frames (?P<first>\d+)-(?P<last>\d+)\)$")


def check_faces(a):
    capture = os.path.join(a.siw, "siw6.1-default-rping-1001B-veth1500.pcap")
    report = mpa_json(a.mpa_check, capture, "--list-messages")
    conns = report["captures"][0]["connections"]
    listed = [(c["id"], m) for c in conns for m in c.get("message_list", [])]
    expect(len(listed) > 20, f"{len(listed)} messages listed")
    # Text: one line per message, at its last frame, with its words.
    p = subprocess.run([a.mpa_check, "--list-messages", capture], capture_output=True, text=True)
    lines = [LINE.match(l) for l in p.stdout.splitlines() if ": message: " in l]
    expect(all(lines), f"message lines not as documented: {p.stdout[:600]}")
    expect(len(lines) == len(listed), f"{len(lines)} text lines, {len(listed)} JSON messages")
    text = sorted((int(m["conn"]), m["dir"], int(m["num"]), int(m["first"]), int(m["last"])) for m in lines)
    js = sorted((c, m["direction"], m["number"], m["first_frame"], m["last_frame"]) for c, m in listed)
    expect(text == js, "text and JSON list different messages")
    expect(all(int(m["frame"]) == int(m["last"]) for m in lines), "a line not at its message's last frame")
    # An RDMA Read Request: what it asks, as Wireshark decodes it.
    reads = [m for _, m in listed if m["opcode"] == "rdma_read_request"]
    expect(reads and all("read_request" in m for m in reads), "RDMA Read Requests without what they ask")
    tshark = shutil.which("tshark")
    if tshark:
        env = dict(os.environ, WIRESHARK_PLUGIN_DIR="/nonexistent", HOME="/nonexistent")
        out = subprocess.run([tshark, "-n", "-r", capture, "-Y", "iwarp_rdma.opcode == 1", "-T", "fields",
                              "-e", "frame.number", "-e", "iwarp_rdma.rdmardsz", "-e", "iwarp_rdma.srcstag",
                              "-e", "iwarp_rdma.sinkstag"], capture_output=True, text=True, env=env).stdout
        theirs = sorted((int(f), int(sz), int(src, 16), int(sink, 16))
                        for f, sz, src, sink in (l.split("\t") for l in out.splitlines()))
        ours = sorted((m["last_frame"], m["read_request"]["size"], m["read_request"]["source_stag"],
                       m["read_request"]["sink_stag"]) for m in reads)
        expect(ours == theirs, f"Read Requests: mpa-check {ours[:3]}..., tshark {theirs[:3]}...")
    # --from-json: the counts and the list as written.
    path = os.path.join(a.workdir, "report.json")
    with open(path, "w") as f:
        json.dump(report, f)
    again = json.loads(subprocess.run([a.mpa_check, "--format", "json", "--from-json", path],
                                      capture_output=True, text=True).stdout)
    for c0, c1 in zip(conns, again["captures"][0]["connections"]):
        expect(c0["messages"] == c1["messages"], f"--from-json: counts {c1['messages']} for {c0['messages']}")
        expect(c0.get("message_list") == c1.get("message_list"), "--from-json: the message list differs")
    # Without the flag: counts, no list, no text lines.
    plain = mpa_json(a.mpa_check, capture)
    for c0, c1 in zip(conns, plain["captures"][0]["connections"]):
        expect(c0["messages"] == c1["messages"], "counts differ with and without --list-messages")
        expect("message_list" not in c1, "a message list without --list-messages")
    p = subprocess.run([a.mpa_check, capture], capture_output=True, text=True)
    expect(": message: " not in p.stdout, "message lines without --list-messages")
    print(f"faces: {len(listed)} messages, text and JSON alike, {len(reads)} Read Requests as Wireshark reads them, "
          f"read back by --from-json")
    return 0


def check_synth(a):
    capture = os.path.join(a.workdir, "many.pcap")
    p = subprocess.run([a.synth, "-o", capture, "--initiator-messages", "10005", "--responder-messages", "7",
                        "--sizes", "64", "3000"], capture_output=True, text=True)
    expect(p.returncode == 0, f"mpa-synth: {p.stderr}")
    report = mpa_json(a.mpa_check, capture, "--list-messages")
    conns = report["captures"][0]["connections"]
    expect(len(conns) == 1, f"{len(conns)} connections")
    c = conns[0]
    sent = {side: sum(t["messages"] for t in c["messages"][side].values()) for side in ("initiator", "responder")}
    expect(sent == {"initiator": 10005, "responder": 7}, f"messages {sent}, mpa-synth sent 10005 and 7")
    # (3000 octets of payload take several DDP segments at this MULPDU, 64 one.)
    segments = sum(t["segments"] for t in c["messages"]["initiator"].values())
    expect(segments > 10005 + 10005 // 2, f"{segments} segments for 10005 messages half of 3000 octets")
    expect(len(c["message_list"]) == 10000 and c["messages_not_listed"] == 12,
           f"{len(c['message_list'])} listed, {c.get('messages_not_listed')} left out (want 10000, 12)")
    p = subprocess.run([a.mpa_check, "--list-messages", capture], capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if ": message: " in l]
    expect(len(lines) == 10000, f"{len(lines)} text lines")
    print(f"synth: {sent} messages as mpa-synth sent them, {segments} segments one way; 10000 listed, 12 left out")
    return 0


def main():
    class A:
        pass
    a = A()
    a.mpa_check, a.captures, a.siw, a.workdir, check = sys.argv[1:6]
    a.synth = sys.argv[6] if len(sys.argv) > 6 else None
    os.makedirs(a.workdir, exist_ok=True)
    try:
        return {"tshark-agrees": check_tshark_agrees, "faces": check_faces, "synth": check_synth}[check](a)
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
