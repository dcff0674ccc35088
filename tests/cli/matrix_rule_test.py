#!/usr/bin/env python3
"""The interop matrix's rule through the real binary, on captures of many MPA connections
between many hosts (one connection mpa-synth writes, copied onto other addresses and ports).

  matrix_rule_test.py MPA_CHECK MPA_SYNTH WORKDIR

The matrix is shown (JSON "matrix", the HTML report's matrix) where its implementations are
named or few: unless more than 8 are known by their address only; always with --matrix. And
it is built from the connections seen: its cells beyond 64 implementations are the distinct
pairs tried, as many as the capture's distinct (Initiator, Responder) pairs, never all pairs.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

HUB = "10.0.0.1"


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ip(text):
    return bytes(int(x) for x in text.split("."))


def template(synth, work):
    """The records of one Rev 1 connection (no stack fingerprint): [(ts_sec, ts_usec, frame)]."""
    path = os.path.join(work, "one.pcap")
    subprocess.run([synth, "--rev", "1", "--initiator-messages", "1", "--responder-messages", "1",
                    "--sizes", "64", "-o", path], check=True, capture_output=True)
    data = open(path, "rb").read()
    records, at = [], 24
    while at < len(data):
        sec, usec, incl, _ = struct.unpack_from("<IIII", data, at)
        records.append((sec, usec, data[at + 16:at + 16 + incl]))
        at += 16 + incl
    return records


def copy_frame(frame, addresses, port):
    """The frame (Ethernet, IPv4, TCP) with the template's Initiator and Responder addresses
    replaced by `addresses` and the Initiator's port by `port`; checksums made again."""
    f = bytearray(frame)
    ihl = (f[14] & 0x0F) * 4
    initiator = ip("192.0.2.10")
    for at in (26, 30):
        f[at:at + 4] = ip(addresses[0]) if bytes(f[at:at + 4]) == initiator else ip(addresses[1])
    tcp = 14 + ihl
    if f[tcp:tcp + 2] != b"\x4e\x51":  # the Responder's port is 20049
        f[tcp:tcp + 2] = struct.pack("!H", port)
    else:
        f[tcp + 2:tcp + 4] = struct.pack("!H", port)
    f[24:26] = b"\0\0"
    f[24:26] = struct.pack("!H", checksum(bytes(f[14:tcp])))
    total = struct.unpack_from("!H", f, 16)[0]
    f[tcp + 16:tcp + 18] = b"\0\0"
    pseudo = bytes(f[26:34]) + struct.pack("!BBH", 0, 6, total - ihl)
    f[tcp + 16:tcp + 18] = struct.pack("!H", checksum(pseudo + bytes(f[tcp:14 + total])))
    return bytes(f)


def write_capture(path, records, pairs):
    """One connection per (initiator, responder) of `pairs`, one after the other."""
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for k, addresses in enumerate(pairs):
            for sec, usec, frame in records:
                f = copy_frame(frame, addresses, 10000 + k)
                out.write(struct.pack("<IIII", sec + k, usec, len(f), len(f)))
                out.write(f)


def run(a, *args):
    p = subprocess.run([a.mpa_check, "--progress", "never", *args], capture_output=True, text=True)
    expect(p.returncode in (0, 1), f"mpa-check {' '.join(args)}: exit {p.returncode}: {p.stderr[-400:]}")
    return p.stdout


def report(a, *args):
    return json.loads(run(a, "--format", "json", *args))


def main():
    class Args:
        pass
    a = Args()
    a.mpa_check, synth, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    records = template(synth, work)
    # A lab: the hub answers 300 connections from 200 peers (some twice) and opens 20 of its
    # own to peers (the reverse pair): 201 hosts, 220 distinct pairs tried.
    peers = [f"10.{1 + k // 100}.0.{k % 100 + 1}" for k in range(200)]
    pairs = [(peers[k % 200], HUB) for k in range(300)] + [(HUB, peers[k * 10]) for k in range(20)]
    lab = os.path.join(work, "lab.pcap")
    write_capture(lab, records, pairs)
    tried = len(set(pairs))
    expect(tried == 220, f"the capture's own distinct pairs: {tried}")
    try:
        # Nothing names them: no matrix by default (JSON, HTML), the rest of the report as ever.
        plain = report(a, lab)
        expect("matrix" not in plain and list(plain) == ["version", "tool", "captures", "summary"],
               f"default: keys {list(plain)}")
        expect(plain["summary"]["connections"] == 320, f"connections {plain['summary']['connections']}")
        conns = plain["captures"][0]["connections"]
        seen = {(c["initiator"].rsplit(":", 1)[0], c["responder"].rsplit(":", 1)[0]) for c in conns}
        expect(seen == set(pairs), "the connections read are not the pairs written")
        page = os.path.join(work, "lab.html")
        run(a, "--html", page, lab)
        html = open(page, encoding="utf-8").read()
        expect('id="matrix-section"' in html and 'id="matrix"' not in html
               and "Not shown: more than 8 implementations known by their address only" in html,
               "HTML default: the matrix shown, or not said why")
        # --matrix: shown, its cells the pairs tried (beyond 64 implementations), never all pairs.
        m = report(a, "--matrix", lab)["matrix"]
        expect(len(m["implementations"]) == 201 and m["pairs"] == 201 * 201 and m["tried"] == tried
               and len(m["cells"]) == tried and m["untried_listed"] is False
               and all(c["tried"] for c in m["cells"]),
               f"--matrix: {len(m['implementations'])} implementations, {len(m['cells'])} cells, tried {m['tried']}")
        cells = {(c["initiator"], c["responder"]): c["connections"] for c in m["cells"]}
        expect(cells[(peers[0], HUB)] == 2 and cells[(peers[199], HUB)] == 1 and cells[(HUB, peers[10])] == 1,
               "--matrix: connections per pair")
        run(a, "--matrix", "--html", page, lab)
        html = open(page, encoding="utf-8").read()
        expect('<table id="matrix" class="pairs">' in html and html.count('<td class="m m-') == tried,
               "HTML --matrix: a row per pair tried")
        text = run(a, "--matrix", "--no-summary", lab)
        expect(f"201 implementations, 320 MPA connections, {tried} of {201 * 201} pairs tried" in text,
               text[:300])
        # A hosts file naming them, in groups: few named implementations, a grid by default.
        hosts = os.path.join(work, "lab.hosts")
        with open(hosts, "w") as f:
            f.write(f"{HUB} Hub 1.0\n10.1.0.0/16 \"Peer A\" 2\n10.2.0.0/16 \"Peer B\" 3\n")
        m = report(a, "--hosts", hosts, lab)["matrix"]
        named_pairs = {("Peer A 2", "Hub 1.0"), ("Peer B 3", "Hub 1.0"), ("Hub 1.0", "Peer A 2"),
                       ("Hub 1.0", "Peer B 3")}
        got = {(c["initiator"], c["responder"]) for c in m["cells"] if c["tried"]}
        expect(len(m["implementations"]) == 3 and len(m["cells"]) == 9 and m["tried"] == 4 and got == named_pairs,
               f"--hosts in groups: {len(m['implementations'])} implementations, tried {got}")
        # A hosts file naming every host: many named implementations, shown by default, its
        # cells the pairs tried.
        with open(hosts, "w") as f:
            f.write(f"{HUB} Hub\n" + "".join(f"{p} Peer-{k}\n" for k, p in enumerate(peers)))
        m = report(a, "--hosts", hosts, lab)["matrix"]
        expect(len(m["implementations"]) == 201 and m["tried"] == tried and len(m["cells"]) == tried
               and ("Peer-0", "Hub") in {(c["initiator"], c["responder"]) for c in m["cells"]},
               f"--hosts naming each: {len(m['cells'])} cells, tried {m['tried']}")
        # The bound: 8 hosts known by their address show the matrix, 9 do not.
        for hosts_count, shown in ((8, True), (9, False)):
            small = os.path.join(work, f"small-{hosts_count}.pcap")
            write_capture(small, records, [(peers[k], HUB) for k in range(hosts_count - 1)])
            doc = report(a, small)
            expect(("matrix" in doc) == shown, f"{hosts_count} unnamed hosts: matrix {'matrix' in doc}")
            if shown:
                expect(len(doc["matrix"]["cells"]) == hosts_count ** 2
                       and doc["matrix"]["tried"] == hosts_count - 1, f"{hosts_count} hosts: {doc['matrix']['tried']}")
    except Failure as e:
        sys.exit(f"FAIL: {e}")
    print("ok matrix-rule")


if __name__ == "__main__":
    main()
