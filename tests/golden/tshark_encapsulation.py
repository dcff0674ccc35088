#!/usr/bin/env python3
"""tshark as the oracle for decapsulation: mpa-synth wraps one faulty conversation in every
encapsulation it knows (--wrap), and tshark (Wireshark's own dissectors, default preferences)
must see as many inner TCP segments and TCP streams as mpa-check reports; mpa-check must
report the findings of the plain capture for each, and name the tunnel of the connection.

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


def main():
    mpa_synth, mpa_check, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    names = subprocess.run([mpa_synth, "--help"], capture_output=True, text=True, check=True).stdout
    wrappers = names.split("NAME one of", 1)[1].split("\n", 1)[0]
    wrappers = [w.strip() for w in wrappers.replace("\n", " ").split(",") if w.strip()]
    if len(wrappers) < 10:
        sys.exit(f"could not read the wrappers from mpa-synth --help: {wrappers}")
    plain_path = os.path.join(work, "plain.pcap")
    synth(mpa_synth, plain_path)
    plain = check(mpa_check, plain_path)
    if not findings(plain):
        sys.exit("the plain capture has no findings: the test would prove nothing")
    # (name, mpa-synth options, mpa-check options, tshark options)
    cases = [(w, ["--wrap", w], [], []) for w in wrappers]
    cases.append(("vxlan-ipv6", ["--wrap", "vxlan", "--ipv6"], [], []))
    cases.append(("ipip-ipv6", ["--wrap", "ipip", "--ipv6"], [], []))
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
    # Without the port, VXLAN on 8472 is UDP to tshark; mpa-check warns that it looks like VXLAN.
    got = check(mpa_check, os.path.join(work, "vxlan-port-8472.pcap"))
    if (got["connections"] or got["unreached_frames"] != got["frames"]
            or "may carry TCP" not in (got["capture_warning"] or "")):
        failures.append(f"vxlan-port-8472 without --vxlan-port: {got['capture_warning']}")
    if failures:
        sys.exit(f"failed: {failures}")


if __name__ == "__main__":
    main()
