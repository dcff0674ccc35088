#!/usr/bin/env python3
"""Tests of mpa-check --html: the page of the bundled corpus (captures/*.pcap, and the siw
captures in captures/siw/) against the JSON report of the same run, the octets
of every highlighted field against the capture's own octets (read here from the pcap,
independently of the library), and escaping of hostile private data.

  --static   the page as written (no browser)
  --browser  the same checks on the DOM after Debian's headless Chromium ran the page's
             script, console errors, and screenshots of a ladder and a finding detail.
             Exit status 77 (ctest: skipped) only when Chromium cannot start.
"""
import argparse
import glob
import html.parser
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


# ---- the capture's own octets (classic pcap, Ethernet, VLAN, VXLAN, GRE/ERSPAN, IPv4/IPv6 with
# fragments of TCP, TCP)

def endpoint(addr, port):
    a = ipaddress.ip_address(addr)
    return f"[{a.compressed}]:{port}" if a.version == 6 else f"{a}:{port}"


class Fragments:
    """IP fragments of TCP held until their datagram is whole (the octets captured first kept)."""

    def __init__(self):
        self.held = {}

    def add(self, key, offset, data, more):
        """The datagram's payload when this fragment completes it, else None."""
        d = self.held.setdefault(key, {"parts": [], "end": None})
        d["parts"].append((offset, data))
        if not more and d["end"] is None:
            d["end"] = offset + len(data)
        if d["end"] is None:
            return None
        buf, have = bytearray(d["end"]), bytearray(d["end"])
        for at, part in d["parts"]:
            for i, octet in enumerate(part[:max(0, d["end"] - at)]):
                if not have[at + i]:
                    buf[at + i], have[at + i] = octet, 1
        if not all(have):
            return None
        del self.held[key]
        return bytes(buf)


def tcp_segments(path):
    """Yields (frame number, source, destination, seq, payload) for each TCP segment; one that
    came in IP fragments at the frame of the fragment completing it."""
    fragments = Fragments()
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file")
    linktype = struct.unpack(e + "I", data[20:24])[0]
    if linktype != 1:
        raise ValueError(f"{path}: link type {linktype} (only Ethernet here)")
    pos, number = 24, 0
    while pos + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(e + "IIII", data[pos:pos + 16])
        pkt = data[pos + 16:pos + 16 + caplen]
        pos += 16 + caplen
        number += 1
        off = 12
        etype = struct.unpack(">H", pkt[off:off + 2])[0]
        off += 2
        while etype in (0x8100, 0x88A8):
            etype = struct.unpack(">H", pkt[off + 2:off + 4])[0]
            off += 4
        # The bundled tunnels: IPv4 carrying VXLAN (UDP 4789) or GRE (ERSPAN II, Ethernet).
        while etype == 0x0800 and pkt[off + 9] in (17, 47):
            ihl = (pkt[off] & 0xF) * 4
            if pkt[off + 9] == 17 and struct.unpack(">H", pkt[off + ihl + 2:off + ihl + 4])[0] == 4789:
                off += ihl + 8 + 8  # UDP, VXLAN, then an Ethernet frame
            elif pkt[off + 9] == 47:
                flags, proto = struct.unpack(">HH", pkt[off + ihl:off + ihl + 4])
                off += ihl + 4 + 4 * bin(flags & 0xB000).count("1")
                if proto == 0x88BE:
                    off += 8 if flags & 0x1000 else 0  # ERSPAN II header; type I has none
                elif proto != 0x6558:
                    break
            else:
                break
            etype = struct.unpack(">H", pkt[off + 12:off + 14])[0]
            off += 14
        if etype == 0x0800:
            ihl = (pkt[off] & 0xF) * 4
            total = struct.unpack(">H", pkt[off + 2:off + 4])[0]
            ident, frag = struct.unpack(">HH", pkt[off + 4:off + 8])
            if pkt[off + 9] != 6:
                continue
            src, dst = pkt[off + 12:off + 16], pkt[off + 16:off + 20]
            tcp, end = off + ihl, off + total
            if frag & 0x3FFF:
                whole = fragments.add((4, src, dst, ident), (frag & 0x1FFF) * 8, pkt[tcp:end], frag & 0x2000)
                if whole is None:
                    continue
                pkt, tcp, end = whole, 0, len(whole)
        elif etype == 0x86DD:
            plen = struct.unpack(">H", pkt[off + 4:off + 6])[0]
            src, dst = pkt[off + 8:off + 24], pkt[off + 24:off + 40]
            tcp, end = off + 40, off + 40 + plen
            if pkt[off + 6] == 44 and pkt[tcp] == 6:  # a Fragment header, then TCP
                field, ident = struct.unpack(">HI", pkt[tcp + 2:tcp + 8])
                whole = fragments.add((6, src, dst, ident), field & 0xFFF8, pkt[tcp + 8:end], field & 1)
                if whole is None:
                    continue
                pkt, tcp, end = whole, 0, len(whole)
            elif pkt[off + 6] != 6:
                continue
        else:
            continue
        if tcp + 20 > len(pkt):
            continue
        sport, dport, seq = struct.unpack(">HHI", pkt[tcp:tcp + 8])
        doff = (pkt[tcp + 12] >> 4) * 4
        payload = pkt[tcp + doff:min(end, len(pkt))]
        yield number, endpoint(bytes(src), sport), endpoint(bytes(dst), dport), seq, payload


def tshark_segments(path):
    """The same as Wireshark decodes it (tunnels, mirror sessions, IP fragments): the oracle
    for the captures the decoder above does not read."""
    proc = subprocess.run(["tshark", "-n", "-r", path, "-Y", "tcp.len > 0", "-T", "fields",
                           "-E", "occurrence=l", "-e", "frame.number", "-e", "frame.protocols",
                           "-e", "ip.src", "-e", "ip.dst", "-e", "ipv6.src", "-e", "ipv6.dst",
                           "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "tcp.seq_raw",
                           "-e", "tcp.payload"], capture_output=True, text=True, check=True)
    for line in proc.stdout.splitlines():
        number, protocols, ip_src, ip_dst, ip6_src, ip6_dst, sport, dport, seq, payload = \
            line.split("\t")
        layers = protocols.split(":")
        inner_v6 = "ipv6" in layers and ("ip" not in layers or
                                         layers.index("ipv6") > len(layers) - 1 - layers[::-1].index("ip"))
        src, dst = (ip6_src, ip6_dst) if inner_v6 else (ip_src, ip_dst)
        yield (int(number), endpoint(src, int(sport)), endpoint(dst, int(dport)), int(seq),
               bytes.fromhex(payload.replace(":", "")))


def capture_octets(path, wanted):
    """wanted: {(src, dst): set of seq}. Returns {(src, dst, seq): octet}, first copy wins.
    Where the decoder above misses an octet (a tunnel, IP fragments, a sending host's
    super-segment), tshark decodes the capture instead."""
    def octets(segments):
        out = {}
        for _, src, dst, seq, payload in segments:
            seqs = wanted.get((src, dst))
            if not seqs or not payload:
                continue
            for s in seqs:
                d = (s - seq) % (1 << 32)
                if d < len(payload) and (src, dst, s) not in out:
                    out[(src, dst, s)] = payload[d]
        return out
    out = octets(tcp_segments(path))
    if len(out) < sum(len(seqs) for seqs in wanted.values()):
        out = octets(tshark_segments(path))
    return out


def frame_times(path):
    """{frame number: capture time in ns} of a classic pcap (microsecond or nanosecond)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    e = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    out, pos, number = {}, 24, 0
    while pos + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack(e + "IIII", data[pos:pos + 16])
        number += 1
        out[number] = sec * 1_000_000_000 + frac * (1 if nano else 1000)
        pos += 16 + caplen
    return out


# ---- the page

class Page(html.parser.HTMLParser):
    """What the checks need from a page (as written, or as Chromium's DOM after scripts)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.capture_rows, self.verdict_rows, self.ladders = [], [], []
        self.findings, self.capture_findings, self.pins = [], [], []
        self.marks = []  # dict(capture, src, dst, seq, title, text)
        self.scripts = 0
        self.gaps = []  # (capture, finding id) of each drawn gap
        self.script_ran = False
        self.details = []
        self.text = []
        self._capture = None
        self._figure = None
        self._mark = None
        self._stack = []
        self.whens = []  # (capture, frame, ns) of each ladder row's label
        self.capture_names = []  # the capture rows' names, in order
        self.prefix = None  # the folders shown once above the captures
        self._ladder = None
        self._detail = None
        self._name = None
        self._prefix = False
        self.pd_hex = []  # the private data in hex, as shown
        self._pd = None
        self.matrix = []  # dict per cell of the interop matrix (td.m): data-* and the link
        self._cell = None
        self.sections = []  # ids of the sections, in page order
        self.ids = set()  # every id on the page (link targets)
        self.impl_names = []  # (initiator key, responder key) of each verdict row

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "section" and "id" in a:
            self.sections.append(a["id"])
        if tag == "td" and "m" in cls:
            self._cell = {k[5:]: v for k, v in a.items() if k.startswith("data-")}
            self._cell["href"] = None
            self.matrix.append(self._cell)
        if tag == "a" and self._cell is not None:
            self._cell["href"] = a.get("href")
        if tag == "td" and "data-initiator-impl" in a:
            self.impl_names.append((a["data-initiator-impl"], a["data-responder-impl"]))
        if tag == "html" and a.get("data-script") == "ran":
            self.script_ran = True
        if tag == "script":
            self.scripts += 1
        if tag == "tr" and "capture-row" in cls:
            self.capture_rows.append((int(a["data-capture-index"]), a["data-file"], a["data-verdict"]))
        if tag == "tr" and "verdict-row" in cls:
            self.verdict_rows.append((int(a["data-capture-index"]), int(a["data-connection"]), a["data-verdict"]))
        if tag == "svg" and "ladder" in cls:
            self.ladders.append((int(a["data-capture-index"]), int(a["data-connection"])))
            self._ladder = int(a["data-capture-index"])
        if tag == "text" and "when" in cls:
            self.whens.append((self._ladder, int(a["data-frame"]), int(a["data-ns"])))
        if tag == "td" and "name" in cls:
            self._name = ""
        if tag == "p" and "prefix" in cls:
            self._prefix = True
            self.prefix = ""
        if tag == "code" and "pd-hex" in cls:
            self._pd = ""
        if tag == "tr" and "finding" in cls:
            self.findings.append((int(a["data-capture-index"]), int(a["data-connection"]), a["data-id"],
                                  int(a["data-frame"]), int(a["data-seq"]), a["data-direction"]))
        if tag == "div" and "capture-finding" in cls:
            self.capture_findings.append((int(a["data-capture-index"]), a["data-id"], int(a["data-frame"])))
        if tag == "a" and "pin" in cls:
            self.pins.append((self._capture, a["data-id"], int(a["data-frame"]), a["href"]))
        if tag == "details" and "conn" in cls:
            self._capture = int(a["data-capture-index"])
        if tag == "section" and "detail" in cls:
            self.details.append((self._capture, a["id"], a["data-id"], int(a["data-frame"])))
            self._detail = a["data-id"]
        if tag == "svg" and "gap" in cls:
            self.gaps.append((self._capture, a["data-id"]))
        if tag == "figure" and "dump" in cls:
            self._figure = (a["data-src"], a["data-dst"])
        if tag == "mark" and "hl" in cls and self._figure:
            self._mark = {"capture": self._capture, "src": self._figure[0], "dst": self._figure[1],
                          "seq": int(a["data-seq"]), "title": a.get("title", ""), "text": "",
                          "target": "target" in cls, "finding": self._detail}

    def handle_endtag(self, tag):
        if tag == "td":
            self._cell = None
        if tag == "mark" and self._mark is not None:
            self.marks.append(self._mark)
            self._mark = None
        if tag == "figure":
            self._figure = None
        if tag == "section":
            self._detail = None
        if tag == "td" and self._name is not None:
            self.capture_names.append(self._name)
            self._name = None
        if tag == "p":
            self._prefix = False
        if tag == "code" and self._pd is not None:
            self.pd_hex.append(self._pd)
            self._pd = None

    def handle_data(self, data):
        if self._mark is not None:
            self._mark["text"] += data
        if self._name is not None:
            self._name += data
        if self._prefix:
            self.prefix += data
        if self._pd is not None:
            self._pd += data
        self.text.append(data)


def fpduptr_in_host_order(source, out, json_capture):
    """Copies `source` with the marker of its marker.fpduptr-mismatch finding rewritten to carry the
    expected FPDUPTR in host order (low octet first). Returns that FPDUPTR, None if the marker
    cannot be found."""
    finding = [f for c in json_capture["connections"] for f in c["findings"] if f["id"] == "marker.fpduptr-mismatch"]
    if not finding:
        return None
    m = re.search(r"marker at seq (\d+) has FPDUPTR (\d+), but the FPDU header is (\d+) octets", finding[0]["message"])
    if not m:
        return None
    seq, got, expected = (int(x) for x in m.groups())
    data = bytearray(open(source, "rb").read())
    for frame, _, _, seg_seq, payload in tcp_segments(source):
        d = (seq - seg_seq) % (1 << 32)
        if d + 4 <= len(payload) and payload[d + 2:d + 4] == got.to_bytes(2, "big"):
            at = data.find(payload)
            if at < 0:
                return None
            data[at + d + 2:at + d + 4] = expected.to_bytes(2, "little")
            open(out, "wb").write(data)
            return expected
    return None


def parse(text):
    p = Page()
    p.feed(text)
    p.close()
    return p


# ---- ladders and cards, read from the page as written

LADDER_SVG = re.compile(r'<svg class="(ladder|ladder-rest)" data-capture-index="(\d+)" data-connection="(\d+)".*?</svg>', re.S)
LADDER_ROW = re.compile(r'<text class="when" data-frame="(\d+)"[^>]*>[^<]*</text>(?:<g class="(\w+)">'
                        r'(?:<line[^>]*/>|<rect[^>]*/>)<text[^>]*>([^<]*)</text>|<a class="pin"[^>]*data-id="([^"]+)")')


def ladder_rows(text):
    """(capture, connection) -> [(frame, kind, label)] of every ladder row, the rows drawn on
    demand (<details>) included; kind is tcp, startup, fpdu, band or pin."""
    rows = {}
    for m in LADDER_SVG.finditer(text):
        key = (int(m.group(2)), int(m.group(3)))
        for r in LADDER_ROW.finditer(m.group(0)):
            kind = r.group(2) or "pin"
            rows.setdefault(key, []).append((int(r.group(1)), kind, r.group(3) or r.group(4)))
    return rows


def tcp_flag_frames(path):
    """{frame: "FIN" or "RST"} of a classic Ethernet pcap's TCP segments (IPv4/IPv6, VLANs);
    None for a capture this reader does not follow (tunnels, fragments)."""
    with open(path, "rb") as f:
        data = f.read()
    e = {b"\xd4\xc3\xb2\xa1": "<", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",
         b"\xa1\xb2\x3c\x4d": ">"}.get(data[:4])
    if e is None or struct.unpack(e + "I", data[20:24])[0] != 1:
        return None
    flags, pos, number = {}, 24, 0
    while pos + 16 <= len(data):
        caplen = struct.unpack(e + "I", data[pos + 8:pos + 12])[0]
        pkt = data[pos + 16:pos + 16 + caplen]
        pos += 16 + caplen
        number += 1
        off, etype = 14, struct.unpack(">H", pkt[12:14])[0]
        while etype in (0x8100, 0x88A8):
            etype = struct.unpack(">H", pkt[off + 2:off + 4])[0]
            off += 4
        if etype == 0x0800 and pkt[off + 9] == 6 and not struct.unpack(">H", pkt[off + 6:off + 8])[0] & 0x3FFF:
            tcp = off + (pkt[off] & 0xF) * 4
        elif etype == 0x86DD and pkt[off + 6] == 6:
            tcp = off + 40
        elif etype in (0x0800, 0x86DD):
            return None
        else:
            continue
        bits = pkt[tcp + 13]
        if bits & 0x04:
            flags[number] = "RST"
        elif bits & 0x01:
            flags[number] = "FIN"
    return flags


def check_ladders_whole(text, report, files, label):
    """Every ladder whole: each FIN and RST of a short capture's MPA connection has its row."""
    rows = ladder_rows(text)
    checked = 0
    for i, path in enumerate(files):
        conns = report["captures"][i]["connections"]
        flags = tcp_flag_frames(path) if len(conns) == 1 else None
        if not flags or max(flags) > 40:
            continue
        drawn = {(f, lab) for f, kind, lab in rows.get((i, conns[0]["id"]), []) if kind == "tcp"}
        for frame, flag in sorted(flags.items()):
            if (frame, flag) not in drawn:
                fail(f"{label}: {os.path.basename(path)}: no {flag} row at frame {frame} on its ladder "
                     f"(rows {rows.get((i, conns[0]['id']))})")
        checked += 1
    if checked < 10:
        fail(f"{label}: only {checked} short captures with a FIN or RST to check the ladders of")
    print(f"{label}: FINs and RSTs of {checked} short captures on their ladders")


SEVERITY_RANK = {"error": 2, "warning": 1, "note": 0}
DETAIL = re.compile(r'<details class="conn"[^>]*data-capture-index="(\d+)" data-connection="(\d+)"|'
                    r'<section class="detail sev-(\w+)" id="[^"]+" data-id="([^"]+)" data-frame="(\d+)"')


def check_cards_order(text, label):
    """Each connection's finding cards: the worst first, then by frame."""
    cards, key = {}, None
    for m in DETAIL.finditer(text):
        if m.group(1):
            key = (int(m.group(1)), int(m.group(2)))
        else:
            cards.setdefault(key, []).append((-SEVERITY_RANK[m.group(3)], int(m.group(5)), m.group(4)))
    mixed = 0
    for key, got in cards.items():
        if got != sorted(got, key=lambda c: c[:2]):
            fail(f"{label}: connection {key}: cards not by severity then frame: {got}")
        mixed += len({c[0] for c in got}) > 1
    if mixed < 5:
        fail(f"{label}: only {mixed} connections with cards of several severities")


def check_page(page, report, files, label, listed_per_connection=500):
    """The page against the JSON report of the same run."""
    n0 = len(failures)
    caps = report["captures"]
    want_caps = [(i, c["file"], c["verdict"]) for i, c in enumerate(caps)]
    if sorted(page.capture_rows) != want_caps:
        fail(f"{label}: capture rows differ from the JSON report's captures and verdicts")
    want_conns = sorted((i, c["id"]) for i, cap in enumerate(caps) for c in cap["connections"])
    if sorted((i, c) for i, c, _ in page.verdict_rows) != want_conns:
        fail(f"{label}: verdict rows {len(page.verdict_rows)} != JSON connections {len(want_conns)}")
    if sorted(page.ladders) != want_conns:
        fail(f"{label}: ladders {len(page.ladders)}, want exactly one per connection ({len(want_conns)})")
    # Verdict words: errors / warnings / clean, from the JSON findings not suppressed.
    verdicts = {}
    for i, cap in enumerate(caps):
        for c in cap["connections"]:
            sev = {f["severity"] for f in c["findings"] if "suppressed" not in f}
            verdicts[(i, c["id"])] = "errors" if "error" in sev else "warnings" if "warning" in sev else "clean"
    for i, c, v in page.verdict_rows:
        if verdicts.get((i, c)) != v:
            fail(f"{label}: capture {i} connection {c}: verdict {v}, JSON says {verdicts.get((i, c))}")
    # Every finding with its id and frame (and seq, direction), in order.
    want = []
    for i, cap in enumerate(caps):
        for c in cap["connections"]:
            for f in c["findings"][:listed_per_connection]:
                want.append((i, c["id"], f["id"], f["frame"], f["tcp_seq"], f["direction"]))
    # (connections are listed worst first: compare each connection's findings in order)
    got = sorted(page.findings, key=lambda f: (f[0], f[1]))
    if got != want:
        missing = [w for w in want if w not in page.findings][:3]
        extra = [g for g in page.findings if g not in want][:3]
        fail(f"{label}: findings differ from JSON ({len(page.findings)} vs {len(want)}); missing {missing}, "
             f"extra {extra}")
    want_cf = [(i, f["id"], f["frame"]) for i, cap in enumerate(caps) for f in cap["findings"]]
    if sorted(page.capture_findings, key=lambda f: f[0]) != want_cf:
        fail(f"{label}: capture-level findings differ from JSON")
    # Every pin names a finding of its connection and links to its detail or row.
    ids = {(i, f["id"], f["frame"]) for i, cap in enumerate(caps) for c in cap["connections"] for f in c["findings"]}
    for cap_index, fid, frame, href in page.pins:
        if (cap_index, fid, frame) not in ids:
            fail(f"{label}: ladder pin {fid} at frame {frame} is no finding of capture {cap_index}")
    # The highlighted octets are the capture's octets at that place.
    wanted = {}
    for m in page.marks:
        octets = m["text"].split()
        m["octets"] = octets
        if any(o == "··" for o in octets):
            continue
        for k in range(len(octets)):
            wanted.setdefault(m["capture"], {}).setdefault((m["src"], m["dst"]), set()).add((m["seq"] + k) % (1 << 32))
    verified = 0
    for cap_index, flows in wanted.items():
        got = capture_octets(files[cap_index], flows)
        for m in page.marks:
            if m["capture"] != cap_index or "··" in m["octets"]:
                continue
            for k, o in enumerate(m["octets"]):
                key = (m["src"], m["dst"], (m["seq"] + k) % (1 << 32))
                if key not in got:
                    fail(f"{label}: {files[cap_index]}: highlighted octet at seq {key[2]} not in the capture")
                elif got[key] != int(o, 16):
                    fail(f"{label}: {files[cap_index]}: highlighted octet at seq {key[2]} is {o}, the capture "
                         f"holds {got[key]:02x} ({m['title']})")
                else:
                    verified += 1
    # The interop matrix opens the page and holds the JSON report's cells, each tried cell
    # linked to the connection with its first failing rule (or its first connection).
    if page.sections[:2] != ["matrix-section", "overview"]:
        fail(f"{label}: the page does not open with the interop matrix ({page.sections[:3]})")
    by_file = {c["file"]: i for i, c in enumerate(caps)}
    want_cells = {}
    for c in report["matrix"]["cells"]:
        target = None
        if c["tried"]:
            ref = c["first_failure"] or c["refs"][0]
            target = f"#c{by_file[ref['capture']]}-{ref['connection']}"
        ff = c["first_failure"]
        want_cells[(c["initiator"], c["responder"])] = (
            c["verdict"], str(c["connections"]), ff["id"] if ff else None, (ff["side"] or "") if ff else None, target)
    got_cells = {(m["initiator"], m["responder"]): (m["verdict"], m["connections"], m.get("first-failure"),
                                                    m.get("side"), m["href"]) for m in page.matrix}
    if got_cells != want_cells:
        diff = [(k, got_cells.get(k), want_cells.get(k)) for k in set(got_cells) | set(want_cells)
                if got_cells.get(k) != want_cells.get(k)]
        fail(f"{label}: matrix cells differ from the JSON report's: {diff[:4]}")
    for m in page.matrix:
        if m["href"] and m["href"][1:] not in page.ids:
            fail(f"{label}: matrix cell {m['initiator']} -> {m['responder']} links to {m['href']}, not on the page")
    # Names beside the addresses: the verdict rows carry each side's implementation.
    want_names = sorted((c["implementations"]["initiator"]["label"], c["implementations"]["responder"]["label"])
                        for cap in caps for c in cap["connections"])
    if sorted(page.impl_names) != want_names:
        fail(f"{label}: implementations of the verdict rows differ from the JSON report's")
    # Failing captures first: unreadable, then failed, then passed.
    rank = {"unreadable": 0, "fail": 1, "pass": 2}
    ranks = [rank.get(v, 3) for _, _, v in page.capture_rows]
    if ranks != sorted(ranks):
        fail(f"{label}: failing captures are not listed first ({[v for _, _, v in page.capture_rows][:8]}...)")
    # Capture names without the folders they all share (shown once above them).
    names = [c["file"] for c in caps]
    folders = os.path.commonprefix([n[:n.rfind("/") + 1] for n in names])
    folders = folders[:folders.rfind("/") + 1]
    if (page.prefix or "").removeprefix("in ") != folders:
        fail(f"{label}: the folders shown above the captures are {page.prefix!r}, want {folders!r}")
    for (index, _, _), shown in zip(page.capture_rows, page.capture_names):
        if not shown.startswith(names[index][len(folders):]) or (folders and shown.startswith(folders)):
            fail(f"{label}: capture row {shown!r}: want {names[index][len(folders):]!r}")
    # Each ladder row at the capture time of its frame.
    times, rows_timed = {}, 0
    for cap_index, frame, ns in page.whens:
        if not ns:
            continue
        path = files[cap_index]
        if path not in times:
            with open(path, "rb") as f:
                classic = f.read(4) in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4",
                                        b"\xa1\xb2\x3c\x4d")
            times[path] = frame_times(path) if classic else None
        if times[path] is None:
            continue
        rows_timed += 1
        if times[path].get(frame) != ns:
            fail(f"{label}: {os.path.basename(path)}: ladder row at frame {frame} stamped {ns}, the frame was "
                 f"captured at {times[path].get(frame)}")
    if page.ladders and not rows_timed:
        fail(f"{label}: no ladder row carries its frame's time")
    print(f"{label}: {len(page.capture_rows)} captures, {len(page.verdict_rows)} verdict rows, {len(page.ladders)} "
          f"ladders, {len(page.findings)} findings, {len(page.pins)} pins, {len(page.details)} details, "
          f"{len(page.marks)} highlighted fields ({verified} octets checked against the captures)")
    return len(failures) == n0, verified


# ---- the ladder folded by RDMA message

BY_MESSAGE_SVG = re.compile(r'<input type="checkbox" class="fold-messages" id="fold-([^"]+)">.*?'
                            r'(<svg class="by-message" data-capture-index="(\d+)" data-connection="(\d+)".*?</svg>)', re.S)
MESSAGE_ROW = re.compile(r'<g class="message"><line x1="(\d+)"[^>]*x2="(\d+)"[^>]*/><text[^>]*>([^<]*)</text>')
OPCODE_WORDS = {"RDMA Write": "rdma_write", "RDMA Read Request": "rdma_read_request",
                "RDMA Read Response": "rdma_read_response", "Send with Invalidate": "send_invalidate",
                "Send with Solicited Event": "send_se", "Send with SE and Invalidate": "send_se_invalidate",
                "Send": "send", "Terminate": "terminate", "Immediate Data with Solicited Event": "immediate_data_se",
                "Immediate Data": "immediate_data", "Atomic Request": "atomic_request",
                "Atomic Response": "atomic_response", **{f"opcode {n}": f"opcode_{n}" for n in range(12, 16)}}


def check_message_folding(text, report, label):
    """A connection whose ladder draws two FPDUs of one RDMA message can be folded into its
    messages (a toggle, then a second ladder, shorter): its message rows are messages the JSON
    report counts, in their direction; the siw write_bw capture's 65536-octet RDMA Writes fold."""
    folded = {}
    for m in BY_MESSAGE_SVG.finditer(text):
        folded[(int(m.group(3)), int(m.group(4)))] = m.group(2)
    ladders = ladder_rows(text)
    rows_checked = multi = fewer = 0
    for cap_index, cap in enumerate(report["captures"]):
        for conn in cap["connections"]:
            key = (cap_index, conn["id"])
            counts = conn["messages"]
            has = any(counts[side] for side in ("initiator", "responder"))
            drawn = [r for r in ladders.get(key, []) if r[1] == "fpdu"]
            if key not in folded:
                continue
            if not has:
                fail(f"{label}: capture {cap_index} connection {conn['id']}: a folded ladder without messages")
            svg = folded[key]
            for x1, x2, words in MESSAGE_ROW.findall(svg):
                side = "initiator" if int(x1) < int(x2) else "responder"
                opcode = next((v for k, v in sorted(OPCODE_WORDS.items(), key=lambda kv: -len(kv[0]))
                               if words.startswith(k + " ")), None)
                got = re.search(r": (\d+) octets? in (\d+) DDP segments?", words)
                if not opcode or not got:
                    fail(f"{label}: message row not as the library words it: {words!r}")
                tally = counts[side].get(opcode)
                if not tally or int(got.group(1)) > tally["octets"] or int(got.group(2)) > tally["segments"]:
                    fail(f"{label}: capture {cap_index} connection {conn['id']}: message row {words!r} ({side}) "
                         f"beyond the JSON counts {counts[side]}")
                rows_checked += 1
                multi += int(got.group(2)) > 1
            if svg.count('<g class="fpdu">') + len(MESSAGE_ROW.findall(svg)) >= len(drawn):
                fail(f"{label}: capture {cap_index} connection {conn['id']}: the folded ladder is no shorter")
            fewer += 1
    writes = [i for i, cap in enumerate(report["captures"])
              if os.path.basename(cap["file"]) == "siw6.1-default-write_bw-65536B-veth1500.pcap"]
    if not writes or not any(k[0] == writes[0] and "RDMA Write STag" in v and "65536 octets" in v
                          for k, v in folded.items()):
        fail(f"{label}: the 65536-octet RDMA Writes of siw6.1-default-write_bw do not fold")
    if rows_checked == 0 or multi == 0 or fewer == 0:
        fail(f"{label}: folding by message checked {rows_checked} rows, {multi} of several segments, "
             f"{fewer} ladders folded shorter")
    print(f"{label}: {len(folded)} ladders fold into RDMA messages; {rows_checked} message rows "
          f"({multi} of several DDP segments) as the JSON counts them; {fewer} ladders folded shorter")


def pcapng_behind_an_unused_interface(pcap_path, out_path, first_link_type=113):
    """Writes the records of a classic pcap as a pcapng whose first interface (Linux SLL by
    default) carries no record: every record is on the second, of the pcap's link type."""
    data = open(pcap_path, "rb").read()
    e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    nanoseconds = data[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    linktype = struct.unpack(e + "I", data[20:24])[0]

    def block(kind, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", kind, len(body) + 12) + body + struct.pack("<I", len(body) + 12)

    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", first_link_type, 0, 262144))
    out += block(1, struct.pack("<HHI", linktype, 0, 262144))
    pos = 24
    while pos + 16 <= len(data):
        sec, frac, caplen, origlen = struct.unpack(e + "IIII", data[pos:pos + 16])
        usec = sec * 1000000 + (frac // 1000 if nanoseconds else frac)
        out += block(6, struct.pack("<IIIII", 1, usec >> 32, usec & 0xFFFFFFFF, caplen, origlen)
                     + data[pos + 16:pos + 16 + caplen])
        pos += 16 + caplen
    with open(out_path, "wb") as f:
        f.write(out)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


# ---- Chromium

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-extensions", "--mute-audio"]


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(binary, args, url, timeout=120):
    profile = tempfile.mkdtemp(prefix="mpa-html-chromium-")
    try:
        return subprocess.run([binary] + CHROMIUM_FLAGS + [f"--user-data-dir={profile}"] + args + [url],
                              capture_output=True, text=True, timeout=timeout, errors="replace")
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(stderr):
    return [l for l in stderr.splitlines()
            if ("CONSOLE" in l and ("rror" in l or "Uncaught" in l)) or "Uncaught" in l]


def png_is_drawn(path):
    """True when the PNG holds more than one colour (a screenshot of something)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    pos, idat = 8, b""
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    return len(set(raw[:2000000])) > 8


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpa-check", required=True)
    ap.add_argument("--mpa-synth", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--browser", action="store_true")
    ap.add_argument("--screenshots", help="folder for the screenshots (default: WORK)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    shots = args.screenshots or args.work

    binary = None
    if args.browser:
        binary = chromium_binary()
        if not binary:
            print("SKIP: no chromium on PATH (apt-get install chromium; .ci/setup installs it)")
            return SKIP
        try:
            probe = chromium(binary, ["--dump-dom"], "about:blank", timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"SKIP: chromium cannot start: {e}")
            return SKIP
        if probe.returncode != 0 or "<html" not in probe.stdout:
            print(f"SKIP: chromium cannot start (exit {probe.returncode}): {probe.stderr.strip()[-400:]}")
            return SKIP

    # The corpus, globbed: bundled captures and the real siw captures.
    files = sorted(glob.glob(os.path.join(args.source, "captures", "*.pcap")))
    files += sorted(glob.glob(os.path.join(args.source, "captures", "siw", "*.pcap")))
    if not files:
        fail("no captures found")
        return 1
    page_path = os.path.join(args.work, "corpus.html")
    plain = run([args.mpa_check, "--no-suppress", "--format", "json"] + files)
    with_html = run([args.mpa_check, "--no-suppress", "--format", "json", "--html", page_path] + files)
    if plain.returncode != with_html.returncode:
        fail(f"exit status {with_html.returncode} with --html, {plain.returncode} without")
    if plain.stdout != with_html.stdout:
        fail("the JSON report differs when --html is given")
    text_plain = run([args.mpa_check, "--no-suppress"] + files)
    text_html = run([args.mpa_check, "--no-suppress", "--html", os.path.join(args.work, "text-run.html")] + files)
    if text_plain.stdout != text_html.stdout or text_plain.returncode != text_html.returncode:
        fail("the text report or exit status differs when --html is given")
    report = json.loads(plain.stdout)
    raw = open(page_path, "rb").read()
    print(f"corpus page: {len(files)} captures, {len(raw)} octets")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"corpus page is not valid UTF-8: {e}")
    for needle in (rb"https?://", rb"<[a-zA-Z]+[^>]*\s(src|href)=[\"']?(?!#)[a-z]+:", rb"@import", rb"url\((?!#)"):
        if re.search(needle, raw):
            fail(f"corpus page refers to something outside it ({needle!r})")
    static = parse(raw.decode("utf-8", "replace"))
    _, verified = check_page(static, report, files, "static corpus page")
    check_message_folding(raw.decode("utf-8", "replace"), report, "static corpus page")
    if verified == 0:
        fail("no highlighted octet was checked against a capture")
    # Findings whose fields are known: the CRC shown is the CRC received (LSB first).
    crc_marks = [m for m in static.marks if m["title"].startswith("CRC received")]
    if not crc_marks:
        fail("no highlighted CRC field (fpdu.crc-mismatch) on the corpus page")
    for m in crc_marks:
        received = int(re.search(r"received 0x([0-9a-f]{8})", m["title"]).group(1), 16)
        if bytes(int(o, 16) for o in m["octets"]) != received.to_bytes(4, "little"):
            fail(f"CRC field octets {m['octets']} are not 0x{received:08x} LSB first")
    for fid, field in (("fpdu.pad-nonzero", "pad"), ("marker.fpduptr-mismatch", "marker"),
                       ("startup.pd-length-too-large", "PD_Length"), ("fpdu.ulpdu-length-zero", "ULPDU_Length")):
        caps = [i for i, f in enumerate(files) if os.path.basename(f) == f"fault-{fid}.pcap"]
        if caps and not any(m["capture"] == caps[0] and m["title"].startswith(field) for m in static.marks):
            fail(f"fault-{fid}.pcap: no highlighted {field} field")
    for fid in ("capture.gap", "connection.lost-mid-fpdu", "capture.truncated"):
        caps = [i for i, f in enumerate(files) if os.path.basename(f) == f"fault-{fid}.pcap"]
        if caps and (caps[0], fid) not in static.gaps:
            fail(f"fault-{fid}.pcap: the missing octets are not drawn on the stream")
    pad_marks = [m for m in static.marks if m["title"].startswith("pad")]
    if pad_marks and all(all(int(o, 16) == 0 for o in m["octets"]) for m in pad_marks):
        fail("fpdu.pad-nonzero: the highlighted pad octets are all zero")

    # Findings about octets: their dump highlights those octets (by catalogue id).
    def capture_index(name):
        found = [i for i, f in enumerate(files) if os.path.basename(f) == name]
        return found[0] if found else None

    # Ladders whole; cards by severity then frame (fault-rdmap.ird-exceeded.pcap: the error
    # first, before the four notes of the startup frames).
    text = raw.decode("utf-8", "replace")
    check_ladders_whole(text, report, files, "static corpus page")
    check_cards_order(text, "static corpus page")
    ird = capture_index("fault-rdmap.ird-exceeded.pcap")
    if ird is not None:
        first = [d for d in static.details if d[0] == ird][:1]
        if not first or first[0][2] != "rdmap.ird-exceeded":
            fail(f"fault-rdmap.ird-exceeded.pcap: the first card is {first}, not the error")
    # The corpus twice passes the page's bound on ladder rows: the rows after a ladder's first
    # are drawn in a closed <details> below it, still every one of them.
    twice_path = os.path.join(args.work, "corpus-twice.html")
    twice = run([args.mpa_check, "--no-suppress", "--format", "json", "--html", twice_path] + files + files)
    twice_text = open(twice_path, encoding="utf-8").read()
    rest = twice_text.count('<details class="ladder-rest">')
    if not rest or rest != twice_text.count('<svg class="ladder-rest"'):
        fail(f"corpus twice: {rest} ladders drawn in part, want some, each with its rest on demand")
    check_ladders_whole(twice_text, json.loads(twice.stdout), files + files, "corpus twice")
    # A sender's deviating FPDU is drawn at the frame that completes it as its sender framed
    # it, beside the pin of the finding that names it (fault-fpdu.pad-rule-wrong.pcap: frame 8,
    # not a second row at frame 9 below an arrowless pin).
    rows = ladder_rows(text)
    for name, fid, fpdu in (("fault-fpdu.pad-rule-wrong.pcap", "fpdu.pad-rule-wrong", "send, ULPDU 1015"),
                            ("fault-fpdu.crc-field-missing.pcap", "fpdu.crc-field-missing", "send, ULPDU 1015")):
        i = capture_index(name)
        if i is None:
            continue
        ladder = rows.get((i, report["captures"][i]["connections"][0]["id"]), [])
        pins = [f for f, kind, lab in ladder if kind == "pin" and lab == fid]
        drawn = [f for f, kind, lab in ladder if kind == "fpdu" and lab == fpdu]
        if pins != [8] or drawn != [8]:
            fail(f"{name}: the deviating FPDU ({fpdu!r}) drawn at frames {drawn}, its pin {fid} at {pins}; "
                 f"want both at frame 8 ({ladder[:12]})")
        at = [k for k, (f, kind, lab) in enumerate(ladder) if kind == "fpdu" and lab == fpdu][:1]
        if at and (at[0] == 0 or ladder[at[0] - 1] != (8, "pin", fid)):
            fail(f"{name}: the pin of {fid} is not just above its FPDU's arrow ({ladder[:12]})")

    for name, fid, title in (("fault-fpdu.pad-rule-wrong.pcap", "fpdu.pad-rule-wrong", "pad as sent"),
                             ("fault-fpdu.crc-field-missing.pcap", "fpdu.crc-field-missing", "no CRC field"),
                             ("fault-fpdu.ulpdu-length-miscounted.pcap", "fpdu.ulpdu-length-miscounted",
                              "ULPDU_Length 1016 (1014 octets of ULPDU sent)"),
                             ("fault-fpdu.markers-missing.pcap", "fpdu.markers-missing", "ULPDU_Length"),
                             ("fault-rdmap.terminate-encoding.pcap", "rdmap.terminate-encoding", "Terminate Control"),
                             ("fault-rdmap.terminate-encoding--cxgb4-irdma.pcap", "rdmap.terminate-encoding",
                              "Terminate Control"),
                             ("fault-fpdu.pad-nonzero.pcap", "fpdu.pad-nonzero", "pad"),
                             ("fault-marker.fpduptr-mismatch.pcap", "marker.fpduptr-mismatch", "marker"),
                             ("fault-marker.fpduptr-low-bits.pcap", "marker.fpduptr-low-bits", "marker")):
        i = capture_index(name)
        if i is None:
            continue
        if not any(d[0] == i and d[2] == fid for d in static.details):
            fail(f"{name}: no detail for {fid}")
        marks = [m for m in static.marks if m["capture"] == i and m["finding"] == fid]
        if not any(m["title"].startswith(title) for m in marks):
            fail(f"{name}: the dump of {fid} highlights no {title!r} ({[m['title'] for m in marks]})")
        if fid == "rdmap.terminate-encoding":
            # The octets the finding names, and the highlight holds them.
            said = [f["message"] for c in report["captures"][i]["connections"] for f in c["findings"]
                    if f["id"] == fid]
            want = re.search(r"Terminate Control octets ((?:[0-9a-f]{2} ?){3})", said[0]).group(1).split()
            control = [m for m in marks if m["title"].startswith("Terminate Control")]
            if control and control[0]["octets"][:3] != want:
                fail(f"{name}: Terminate Control highlighted as {control[0]['octets']}, the finding says {want}")
        if fid == "fpdu.crc-field-missing":
            # Where the CRC field belongs the next FPDU begins: its octets are in the capture.
            if any("··" in m["octets"] for m in marks):
                fail(f"{name}: octets of the {fid} dump shown as missing")
    # Every dump highlights the field the catalogue says its finding is about (--list-diagnostics
    # "field"), as the plugin hangs its expert item there; a sender's framing deviation shows the
    # FPDU's fields as sent instead (checked above).
    catalogue = json.loads(run([args.mpa_check, "--list-diagnostics", "--format", "json"]).stdout)
    field_of = {d["id"]: d["field"] for d in catalogue}
    title_of_field = {"crc": "CRC received", "pad": "pad", "marker": "marker", "ulpdu-length": "ULPDU_Length",
                      "startup-key": "Key", "startup-pd-length": "PD_Length", "startup-revision": "Rev",
                      "startup-flags": "flags", "startup-enhanced": "flags", "startup-frame": "flags"}
    sender_framing = {"fpdu.pad-rule-wrong", "fpdu.crc-field-missing", "fpdu.ulpdu-length-miscounted",
                      "fpdu.markers-missing"}
    dumps = {}
    for m in static.marks:
        dumps.setdefault((m["capture"], m["finding"]), []).append(m["title"])
    placed = 0
    for (i, fid), titles in sorted(dumps.items()):
        want = title_of_field.get(field_of.get(fid, ""))
        if fid in sender_framing or want is None:
            continue
        # A finding about a startup frame's field that the library reported on an FPDU (a
        # refusal that came as a Terminate) is drawn on that FPDU, as the plugin shows it apart.
        startup_dump = any(t.startswith(("Key", "flags", "Rev", "PD_Length", "IRD/ORD")) for t in titles)
        if field_of[fid].startswith("startup-") != startup_dump:
            continue
        if fid.startswith("rdmap.terminate") and not any(t.startswith("Terminate Control") for t in titles):
            fail(f"{os.path.basename(files[i])}: the dump of {fid} highlights no Terminate Control ({titles})")
        if not any(t.startswith(want) for t in titles):
            fail(f"{os.path.basename(files[i])}: the dump of {fid} (about its {field_of[fid]}) "
                 f"highlights no {want!r} ({titles})")
        placed += 1
    if placed < 20:
        fail(f"only {placed} dumps checked against the catalogue's fields")

    for name in ("fault-fpdu.pad-rule-wrong.pcap", "fault-fpdu.crc-field-missing.pcap"):
        i = capture_index(name)
        if i is not None and not any(c == i and ns for c, _, ns in static.whens):
            fail(f"{name}: no ladder row carries its time")

    # A field that reads right byte-swapped: FPDUPTR written in host order gets a hint.
    swapped_file = capture_index("fault-marker.fpduptr-mismatch.pcap")
    if swapped_file is not None:
        swapped_pcap = os.path.join(args.work, "fpduptr-host-order.pcap")
        expected = fpduptr_in_host_order(files[swapped_file], swapped_pcap, report["captures"][swapped_file])
        if expected is not None:
            swapped_page = os.path.join(args.work, "fpduptr-host-order.html")
            run([args.mpa_check, "--no-suppress", "--html", swapped_page, swapped_pcap])
            marks = parse(open(swapped_page, encoding="utf-8").read()).marks
            if not any(f"byte-swapped is {expected}," in m["title"] and m["finding"] == "marker.fpduptr-mismatch"
                       for m in marks):
                fail(f"FPDUPTR in host order: no byte-swap hint ({[m['title'] for m in marks]})")
        else:
            fail("fault-marker.fpduptr-mismatch.pcap: the mismatched marker was not found to patch")

    # A pipe: the same findings, exit status unchanged, FPDU dumps said to be missing.
    crc_file = [f for f in files if os.path.basename(f) == "fault-fpdu.crc-mismatch.pcap"]
    if crc_file:
        pipe_page = os.path.join(args.work, "pipe.html")
        with open(crc_file[0], "rb") as stdin:
            piped = subprocess.run([args.mpa_check, "--no-suppress", "--html", pipe_page, "-"], stdin=stdin,
                                   capture_output=True)
        with open(crc_file[0], "rb") as stdin:
            pipe_json = subprocess.run([args.mpa_check, "--no-suppress", "--format", "json", "-"], stdin=stdin,
                                       capture_output=True, text=True)
        file_rc = run([args.mpa_check, "--no-suppress", crc_file[0]]).returncode
        if piped.returncode != file_rc:
            fail(f"pipe with --html: exit status {piped.returncode}, {file_rc} for the file")
        pipe_text = open(pipe_page, encoding="utf-8").read()
        if "No octets: not a regular file" not in pipe_text:
            fail("pipe page: the missing FPDU octets are not explained")
        check_page(parse(pipe_text), json.loads(pipe_json.stdout), crc_file, "static pipe page")

    # IP fragments: the second pass reassembles them as the first did, so the FPDU whose CRC is
    # wrong, in a datagram cut into fragments, is dumped whole (its octets checked above).
    for name in ("fault-fpdu.crc-mismatch--ip-fragments.pcap", "fault-fpdu.crc-mismatch--ipv6-fragments.pcap"):
        fragmented = [f for f in files if os.path.basename(f) == name]
        if not fragmented:
            continue
        page_file = os.path.join(args.work, "fragments-" + name + ".html")
        run([args.mpa_check, "--no-suppress", "--html", page_file, fragmented[0]])
        text = open(page_file, encoding="utf-8").read()
        if "··" in text:
            fail(f"{name}: {text.count('··')} octets shown as missing in the hex dumps")
        if not any(m["title"].startswith("CRC received") for m in parse(text).marks):
            fail(f"{name}: the CRC of the FPDU in fragments is not highlighted")

    # A pcapng whose first interface (Linux SLL) is unused: every record decoded by its own
    # interface's link type, so the dumps hold the same octets as the pcap's, none missing.
    if crc_file:
        sll_pcapng = os.path.join(args.work, "first-interface-sll.pcapng")
        pcapng_behind_an_unused_interface(crc_file[0], sll_pcapng)
        pages = {}
        for label, path in (("pcap", crc_file[0]), ("pcapng, first interface SLL", sll_pcapng)):
            page_file = os.path.join(args.work, f"dump-{len(pages)}.html")
            run([args.mpa_check, "--no-suppress", "--html", page_file, path])
            text = open(page_file, encoding="utf-8").read()
            pages[label] = parse(text)
            if "··" in text:
                fail(f"{label}: {text.count('··')} octets shown as missing in the hex dumps")
        marks = [[(m["seq"], m["title"], m["text"]) for m in p.marks] for p in pages.values()]
        if not marks[0] or marks[0] != marks[1]:
            fail(f"the pcapng behind an unused SLL interface highlights {len(marks[1])} fields, the pcap "
                 f"{len(marks[0])}, or other octets")

    # Escaping: private data with markup, quotes and octets that are not UTF-8.
    hostile = b"<script>alert(\"x\")</script> 'q' & <img src=x onerror=alert(1)> \xff\xfe\xc3( end"
    esc_pcap = os.path.join(args.work, "escape.pcap")
    esc_page = os.path.join(args.work, "escape.html")
    r = run([args.mpa_synth, "-o", esc_pcap, "--request-pd-hex", hostile.hex()])
    if r.returncode != 0:
        fail(f"mpa-synth failed: {r.stderr}")
        return 1
    esc_json = json.loads(run([args.mpa_check, "--no-suppress", "--format", "json", esc_pcap]).stdout)
    run([args.mpa_check, "--no-suppress", "--html", esc_page, esc_pcap])
    esc_raw = open(esc_page, "rb").read()
    try:
        esc_text = esc_raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"escape page is not valid UTF-8: {e}")
        esc_text = esc_raw.decode("utf-8", "replace")
    if esc_raw.lower().count(b"<script") != 1:
        fail(f"escape page: {esc_raw.lower().count(b'<script')} <script tags (want only the page's own)")
    if b"<img" in esc_raw:
        fail("escape page: private data became an <img> element")
    if "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#39;q&#39; &amp;" not in esc_text:
        fail("escape page: the private data is not shown escaped")
    if "\ufffd" in esc_text:
        fail("escape page: private data shown with replacement characters")
    if not any(" ".join(f"{b:02x}" for b in hostile) in t for t in parse(esc_text).pd_hex):
        fail("escape page: the private data is not shown in hex")
    esc_static = parse(esc_text)
    check_page(esc_static, esc_json, [esc_pcap], "static escape page")
    if "<script>alert(\"x\")</script> 'q' &" not in "".join(esc_static.text):
        fail("escape page: the private data's text is not there as text")

    # Rev 2 private data: in hex, the IRD/ORD block first and decoded as the JSON report has it.
    binary_pd = bytes([0x00, 0xFF, 0x00, 0x10, 0x80, 0x41])
    rev2_pcap = os.path.join(args.work, "rev2-private-data.pcap")
    rev2_page = os.path.join(args.work, "rev2-private-data.html")
    r = run([args.mpa_synth, "-o", rev2_pcap, "--rev", "2", "--request-pd-hex", binary_pd.hex()])
    if r.returncode != 0:
        fail(f"mpa-synth --rev 2 failed: {r.stderr}")
    else:
        rev2_json = json.loads(run([args.mpa_check, "--no-suppress", "--format", "json", rev2_pcap]).stdout)
        run([args.mpa_check, "--no-suppress", "--html", rev2_page, rev2_pcap])
        rev2_text = open(rev2_page, encoding="utf-8").read()
        rev2 = parse(rev2_text)
        request = rev2_json["captures"][0]["connections"][0]["request"]
        words = f"IRD/ORD block: IRD {request['ird']}, ORD {request['ord']}"
        if words not in "".join(rev2.text):
            fail(f"Rev 2 page: the Request's IRD/ORD block is not decoded ({words!r})")
        if not rev2.pd_hex or not rev2.pd_hex[0].split()[4:10] == [f"{b:02x}" for b in binary_pd]:
            fail(f"Rev 2 page: the Request's private data in hex is {rev2.pd_hex[:1]}, want the IRD/ORD block, "
                 f"then {binary_pd.hex(' ')}")
        if "\ufffd" in rev2_text:
            fail("Rev 2 page: binary private data shown with replacement characters")
        check_page(rev2, rev2_json, [rev2_pcap], "static Rev 2 page")

    # The plugfest corpus with its hosts file (captures/plugfest): the page opens with the
    # interop matrix of the day (checked against the JSON report by check_page), the names beside
    # the addresses.
    plugfest = sorted(glob.glob(os.path.join(args.source, "captures", "plugfest", "day1", "*.pcap")))
    hosts = os.path.join(args.source, "captures", "plugfest", "plugfest.hosts")
    plugfest_page = os.path.join(args.work, "plugfest.html")
    pf = run([args.mpa_check, "--no-suppress", "--hosts", hosts, "--format", "json", "--html", plugfest_page]
             + plugfest)
    pf_json = json.loads(pf.stdout) if pf.stdout else {"captures": [], "matrix": {"cells": []}}
    pf_static = parse(open(plugfest_page, encoding="utf-8").read()) if os.path.exists(plugfest_page) else Page()
    if not plugfest:
        fail("no plugfest captures (captures/plugfest/day1)")
    else:
        check_page(pf_static, pf_json, plugfest, "static plugfest page")
        check_plugfest_matrix(pf_static, "static plugfest page")

    if args.browser:
        browser_checks(binary, page_path, esc_page, report, esc_json, files, esc_pcap, static, shots)
        browser_plugfest(binary, plugfest_page, pf_json, plugfest, shots)

    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("OK")
    return 0


def check_plugfest_matrix(page, label):
    """What the plugfest day's matrix shows, as the recipes intend it (tests/cli checks every
    cell against expected.tsv; here the page's rendering of a few)."""
    cells = {(m["initiator"], m["responder"]): m for m in page.matrix}
    if len(cells) != 16 or sum(m["verdict"] != "not tried" for m in page.matrix) != 10:
        fail(f"{label}: {len(cells)} matrix cells, want 16 with 10 pairs tried")
        return
    for key, verdict, first, side in ((("Cobalt NIC 5.0", "looks like Linux siw"), "errors", "fpdu.crc-mismatch", "initiator"),
                                      (("Birch 0.9", "Ardent RNIC 2.1"), "warnings", "fpdu.pad-nonzero", "initiator"),
                                      (("Birch 0.9", "looks like Linux siw"), "not judged", None, None),
                                      (("Ardent RNIC 2.1", "Cobalt NIC 5.0"), "clean", None, None),
                                      (("Cobalt NIC 5.0", "Birch 0.9"), "not tried", None, None)):
        m = cells.get(key, {})
        if (m.get("verdict"), m.get("first-failure"), m.get("side")) != (verdict, first, side):
            fail(f"{label}: matrix cell {key}: {m}, want {verdict} {first} {side}")
        if (m.get("href") is None) != (verdict == "not tried"):
            fail(f"{label}: matrix cell {key}: link {m.get('href')}")


def browser_plugfest(binary, page_path, report, files, shots):
    """The plugfest page in Chromium: no console error, the matrix in the DOM as in the JSON
    report, and a screenshot of it."""
    r = chromium(binary, ["--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom"],
                 "file://" + os.path.abspath(page_path))
    if r.returncode != 0 or "<html" not in r.stdout:
        fail(f"plugfest: chromium --dump-dom failed (exit {r.returncode})")
        return
    for line in console_errors(r.stderr):
        fail(f"plugfest: console error: {line.strip()}")
    dom = parse(r.stdout)
    if not dom.script_ran:
        fail("plugfest: the page's script did not run to its end")
    check_page(dom, report, files, "chromium DOM of the plugfest page")
    check_plugfest_matrix(dom, "chromium DOM of the plugfest page")
    os.makedirs(shots, exist_ok=True)
    out = os.path.join(shots, "html-report-matrix.png")
    if os.path.exists(out):
        os.remove(out)
    r = chromium(binary, ["--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                          "--window-size=1200,900", "--hide-scrollbars", f"--screenshot={out}"],
                 "file://" + os.path.abspath(page_path))
    for line in console_errors(r.stderr):
        fail(f"screenshot html-report-matrix.png: console error: {line.strip()}")
    if not os.path.exists(out) or not png_is_drawn(out):
        fail("screenshot html-report-matrix.png: not written or blank")
    else:
        print(f"screenshot: {out} ({os.path.getsize(out)} octets)")


def browser_checks(binary, page_path, esc_page, report, esc_json, files, esc_pcap, static, shots):
    for path, rep, fs, label in ((page_path, report, files, "corpus"), (esc_page, esc_json, [esc_pcap], "escape")):
        r = chromium(binary, ["--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom"],
                     "file://" + os.path.abspath(path))
        if r.returncode != 0 or "<html" not in r.stdout:
            fail(f"{label}: chromium --dump-dom failed (exit {r.returncode})")
            continue
        for line in console_errors(r.stderr):
            fail(f"{label}: console error: {line.strip()}")
        dom = parse(r.stdout)
        if not dom.script_ran:
            fail(f"{label}: the page's script did not run to its end")
        if dom.scripts != 1:
            fail(f"{label}: {dom.scripts} script elements in the DOM (want the page's own only)")
        check_page(dom, rep, fs, f"chromium DOM of the {label} page")
        if label == "escape" and "<script>alert(\"x\")</script>" not in "".join(dom.text):
            fail("escape page in chromium: the private data is not text")
    # Without JavaScript the page still reads: the page with its one script removed (headless
    # Chromium needs JavaScript itself to dump or screenshot), rendered and checked.
    nojs_page = os.path.join(os.path.dirname(page_path), "corpus-without-script.html")
    page_text = open(page_path, encoding="utf-8").read()
    stripped, n = re.subn(r"<script>.*?</script>", "", page_text, flags=re.S)
    if n != 1:
        fail(f"corpus page: {n} script elements, want 1")
    with open(nojs_page, "w", encoding="utf-8") as out:
        out.write(stripped)
    r = chromium(binary, ["--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom"],
                 "file://" + os.path.abspath(nojs_page))
    for line in console_errors(r.stderr):
        fail(f"corpus page without its script: console error: {line.strip()}")
    dom = parse(r.stdout)
    if dom.script_ran or dom.scripts:
        fail("corpus page without its script: a script ran")
    check_page(dom, report, files, "chromium DOM of the corpus page without its script")
    os.makedirs(shots, exist_ok=True)
    nojs = os.path.join(shots, "html-report-nojs.png")
    if os.path.exists(nojs):
        os.remove(nojs)
    chromium(binary, ["--window-size=1200,1600", "--hide-scrollbars", f"--screenshot={nojs}"],
             "file://" + os.path.abspath(nojs_page))
    if not os.path.exists(nojs) or not png_is_drawn(nojs):
        fail("corpus page without its script: nothing rendered")
    else:
        print(f"screenshot: {nojs} ({os.path.getsize(nojs)} octets, without the script)")
    # Screenshots: a ladder (the connection alone) and a finding's detail, of fpdu.crc-mismatch.
    crc = [i for i, f in enumerate(files) if os.path.basename(f) == "fault-fpdu.crc-mismatch.pcap"]
    detail = next((d for d in static.details if crc and d[0] == crc[0] and d[2] == "fpdu.crc-mismatch"), None)
    if not detail:
        fail("no detail of fpdu.crc-mismatch to screenshot")
        return
    conn = detail[1][2:].rsplit("-", 1)[0]  # d-c3-0-1 -> c3-0
    os.makedirs(shots, exist_ok=True)
    for name, target, size in (("html-report-ladder.png", conn, "1000,1500"),
                               ("html-report-finding.png", detail[1], "1000,760")):
        out = os.path.join(shots, name)
        if os.path.exists(out):
            os.remove(out)
        r = chromium(binary, ["--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                              f"--window-size={size}", "--hide-scrollbars", f"--screenshot={out}"],
                     "file://" + os.path.abspath(page_path) + "#focus=" + target)
        for line in console_errors(r.stderr):
            fail(f"screenshot {name}: console error: {line.strip()}")
        if not os.path.exists(out) or not png_is_drawn(out):
            fail(f"screenshot {name}: not written or blank")
        else:
            print(f"screenshot: {out} ({os.path.getsize(out)} octets)")


if __name__ == "__main__":
    sys.exit(main())
