#!/usr/bin/env python3
"""tshark as the oracle for decapsulation: mpa-synth wraps one faulty conversation in every
encapsulation it knows (--wrap), and tshark (Wireshark's own dissectors, default preferences)
must see as many inner TCP segments and TCP streams as mpa-check reports; mpa-check must
report the findings of the plain capture for each, and name the tunnel of the connection.
Every wrapper with an outer IP header does so on both underlays (--underlay ipv4, ipv6) and
with both outer-address conventions (--outer-addresses swapped: tunnel endpoints; mirror: the
same outer addresses both ways, as a mirror session sends them).

The same for IP fragmentation (--fragment-size: IPv4 fragments, IPv6 Fragment headers, in
order and reversed, inside a tunnel and of the tunnel's own packets), which tshark reassembles
by default: its TCP segments (stream, sequence number, payload octets) must be those of the
same capture unfragmented, at the frames that complete the datagrams; mpa-check must count as
many segments, IP fragments and reassembled segments, and report the unfragmented capture's
findings at those frames.

  tshark_encapsulation.py MPA_SYNTH MPA_CHECK WORKDIR
"""
import json
import os
import subprocess
import sys

FAULT = "fpdu.crc-mismatch"


def synth(mpa_synth, path, *args):
    subprocess.run([mpa_synth, "-o", path, "--fault", FAULT, *args], check=True)


def check(mpa_check, path, *args):
    proc = subprocess.run([mpa_check, "--format", "json", *args, path], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"{path}: mpa-check exited {proc.returncode}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)["captures"][0]


def findings(capture):
    return sorted((c["id"], f["id"], f["direction"], f["frame"])
                  for c in capture["connections"] for f in c["findings"])


def tshark_tcp(path, *args):
    proc = subprocess.run(["tshark", "-n", "-r", path, *args, "-Y", "tcp", "-T", "fields",
                           "-e", "tcp.stream"], capture_output=True, text=True, check=True)
    streams = proc.stdout.split()
    return len(streams), len(set(streams))


def tshark_fields(path, display_filter, *fields):
    proc = subprocess.run(["tshark", "-n", "-r", path, "-Y", display_filter, "-T", "fields",
                           *[x for f in fields for x in ("-e", f)]],
                          capture_output=True, text=True, check=True)
    return [line.split("\t") for line in proc.stdout.splitlines()]


def tcp_segments(path):
    """tshark's TCP segments: (frame, (stream, raw sequence number, payload octets)); the
    frame of a reassembled datagram is that of the fragment completing it."""
    rows = tshark_fields(path, "tcp", "frame.number", "tcp.stream", "tcp.seq_raw", "tcp.payload")
    return [(int(r[0]), tuple(r[1:])) for r in rows]


MIRROR_IPV6 = ["--underlay", "ipv6", "--outer-addresses", "mirror"]

# (name, mpa-synth options beyond the fragmentation, --fragment-size and its options)
FRAGMENTED = [
    ("ip-fragments-512", [], ["--fragment-size", "512"]),
    ("ip-fragments-200-reversed", [], ["--fragment-size", "200", "--fragment-order", "reversed"]),
    ("ip-fragments-16", [], ["--fragment-size", "16"]),  # the FPDU with the wrong CRC is cut too
    ("ipv6-fragments-504", ["--ipv6"], ["--fragment-size", "504"]),
    ("ipv6-fragments-16-reversed", ["--ipv6"], ["--fragment-size", "16", "--fragment-order", "reversed"]),
    ("vxlan-inner-fragments", ["--wrap", "vxlan"], ["--fragment-size", "256"]),
    ("vxlan-outer-fragments", ["--wrap", "vxlan"], ["--fragment-size", "512", "--fragment-outer"]),
    ("gre-outer-fragments-ipv6", ["--wrap", "gre-key", "--ipv6"],
     ["--fragment-size", "256", "--fragment-outer", "--fragment-order", "reversed"]),
    ("erspan-ii-outer-fragments", ["--wrap", "erspan-ii"], ["--fragment-size", "400", "--fragment-outer"]),
    ("vxlan-ipv6-mirror-inner-fragments", ["--wrap", "vxlan", *MIRROR_IPV6], ["--fragment-size", "256"]),
    ("vxlan-ipv6-mirror-outer-fragments", ["--wrap", "vxlan", *MIRROR_IPV6],
     ["--fragment-size", "512", "--fragment-outer"]),
    ("gre-ipv6-swapped-outer-fragments", ["--wrap", "gre-key", "--underlay", "ipv6"],
     ["--fragment-size", "256", "--fragment-outer", "--fragment-order", "reversed"]),
]


def check_fragmented(mpa_synth, mpa_check, work, name, base_args, cut_args):
    """Problems of one fragmented capture against its unfragmented twin; a summary line."""
    whole_path = os.path.join(work, name + "-whole.pcap")
    path = os.path.join(work, name + ".pcap")
    synth(mpa_synth, whole_path, *base_args)
    synth(mpa_synth, path, *base_args, *cut_args)
    whole_segments, segments = tcp_segments(whole_path), tcp_segments(path)
    fragments = len(tshark_fields(path, "ip.flags.mf == 1 || ip.frag_offset > 0 || ipv6.fraghdr",
                                  "frame.number"))
    reassembled = len(tshark_fields(path, "tcp && (ip.fragments || ipv6.fragments)", "frame.number"))
    whole, got = check(mpa_check, whole_path), check(mpa_check, path)
    problems = []
    if [s for _, s in segments] != [s for _, s in whole_segments]:
        problems.append("tshark's TCP segments (stream, sequence number, payload) differ from the "
                        "unfragmented capture's")
    if fragments == 0 or reassembled == 0:
        problems.append(f"nothing fragmented: {fragments} fragments, {reassembled} reassembled")
    if got["tcp_segments"] != len(segments):
        problems.append(f"mpa-check {got['tcp_segments']} TCP segments, tshark {len(segments)}")
    if got["not_tcp"]["ip_fragments"] != fragments:
        problems.append(f"mpa-check {got['not_tcp']['ip_fragments']} IP fragments, tshark {fragments}")
    if got["reassembled_segments"] != reassembled:
        problems.append(f"mpa-check {got['reassembled_segments']} reassembled segments, tshark {reassembled}")
    if got["ip_datagrams_incomplete"] or got["unreached_frames"] or got["findings"]:
        problems.append(f"incomplete {got['ip_datagrams_incomplete']}, unreached {got['unreached_frames']}, "
                        f"capture findings {got['findings']}")
    # Every frame of the twin is a TCP segment: its n-th frame is tshark's n-th TCP frame here.
    frame_of = {n + 1: frame for n, (frame, _) in enumerate(segments)}
    expected = sorted((c, i, d, frame_of.get(f)) for c, i, d, f in findings(whole))
    if not findings(whole) or findings(got) != expected:
        problems.append(f"findings {findings(got)}, expected {expected} (the unfragmented "
                        "capture's at the frames completing the datagrams)")
    print(f"{name}: {len(segments)} TCP segments ({reassembled} reassembled from {fragments} IP "
          f"fragments)" + (f": {problems}" if problems else ""))
    return problems


def names_after(help_text, marker):
    """The comma-separated names after `marker` to the end of its line in mpa-synth --help."""
    if marker not in help_text:
        return []
    names = help_text.split(marker, 1)[1].split("\n", 1)[0]
    return [w.strip() for w in names.split(",") if w.strip()]


def wrap_cases(wrappers, without_underlay):
    """(name, mpa-synth options) of each wrapper: once as it is where it has no outer IP
    header, else on each underlay with each outer-address convention."""
    cases = []
    for w in wrappers:
        if w in without_underlay:
            cases.append((w, ["--wrap", w]))
            continue
        for underlay in ("ipv4", "ipv6"):
            for outer in ("swapped", "mirror"):
                cases.append((f"{w}-{underlay}-{outer}",
                              ["--wrap", w, "--underlay", underlay, "--outer-addresses", outer]))
    return cases


def main():
    mpa_synth, mpa_check, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    names = subprocess.run([mpa_synth, "--help"], capture_output=True, text=True, check=True).stdout
    wrappers = names_after(names, "NAME one of")
    without_underlay = names_after(names, "ignored without an IP underlay:")
    if len(wrappers) < 10 or not without_underlay or not set(without_underlay) < set(wrappers):
        sys.exit(f"could not read the wrappers from mpa-synth --help: {wrappers}, "
                 f"without an IP underlay {without_underlay}")
    plain_path = os.path.join(work, "plain.pcap")
    synth(mpa_synth, plain_path)
    plain = check(mpa_check, plain_path)
    if not findings(plain):
        sys.exit("the plain capture has no findings: the test would prove nothing")
    # (name, mpa-synth options, mpa-check options, tshark options)
    cases = [(name, args, [], []) for name, args in wrap_cases(wrappers, without_underlay)]
    cases.append(("vxlan-ipv6", ["--wrap", "vxlan", "--ipv6"], [], []))
    cases.append(("ipip-ipv6", ["--wrap", "ipip", "--ipv6"], [], []))
    cases.append(("vxlan-ipv6-in-ipv6-mirror", ["--wrap", "vxlan", "--ipv6", *MIRROR_IPV6], [], []))
    cases.append(("ipip-ipv6-in-ipv6", ["--wrap", "ipip", "--ipv6", "--underlay", "ipv6"], [], []))
    cases.append(("geneve-ip-ipv6-in-ipv6-mirror", ["--wrap", "geneve-ip", "--ipv6", *MIRROR_IPV6], [], []))
    cases.append(("vxlan-port-8472", ["--wrap", "vxlan:7", "--tunnel-port", "8472"],
                  ["--vxlan-port", "8472"], ["-d", "udp.port==8472,vxlan"]))
    failures = []
    for name, synth_args, check_args, tshark_args in cases:
        path = os.path.join(work, name + ".pcap")
        synth(mpa_synth, path, *synth_args)
        got = check(mpa_check, path, *check_args)
        segments, streams = tshark_tcp(path, *tshark_args)
        problems = []
        if got["tcp_segments"] != segments:
            problems.append(f"mpa-check {got['tcp_segments']} TCP segments, tshark {segments}")
        if got["tcp_connections"] != streams:
            problems.append(f"mpa-check {got['tcp_connections']} TCP connections, tshark {streams} streams")
        if findings(got) != findings(plain):
            problems.append(f"findings {findings(got)} differ from the plain capture's {findings(plain)}")
        if got["unreached_frames"]:
            problems.append(f"{got['unreached_frames']} frames unreached: {got['capture_warning']}")
        print(f"{name}: {segments} TCP segments, {streams} streams, tunnel "
              f"{[c['tunnel'] for c in got['connections']]}" + (f": {problems}" if problems else ""))
        if problems:
            failures.append(name)
    for name, base_args, cut_args in FRAGMENTED:
        if check_fragmented(mpa_synth, mpa_check, work, name, base_args, cut_args):
            failures.append(name)
    # Without the port, VXLAN on 8472 is UDP to tshark; mpa-check warns that it looks like VXLAN.
    got = check(mpa_check, os.path.join(work, "vxlan-port-8472.pcap"))
    if (got["connections"] or got["unreached_frames"] != got["frames"]
            or "may carry TCP" not in (got["capture_warning"] or "")):
        failures.append(f"vxlan-port-8472 without --vxlan-port: {got['capture_warning']}")
    if failures:
        sys.exit(f"failed: {failures}")


if __name__ == "__main__":
    main()
