#!/usr/bin/env python3
"""Tests the Wireshark plugin (plugin/) under the real tshark.

The freshly built mpa.so is placed in a temporary personal plugin folder
(HOME=<tmp>, <tmp>/.local/lib/wireshark/plugins/<abi>/epan), so neither the user's nor
the system's Wireshark configuration is involved. Wireshark ignores personal plugins
when run by root, so as root tshark runs as an unprivileged user (setpriv).

Subcommands:
  loads      tshark -G plugins lists mpa.so from the temporary folder
  fields     decoded fields, DDP/RDMAP under our FPDUs, expert items, filters,
             the built-in iwarp_mpa switched off, statistics
  descriptions  every mpa.* field of tshark -G fields has a description (core fields and
             expert items alike)
  single-pass   a single pass says, at the frame where it happens, which frames it showed
             before the library framed or judged them (mpa.single_pass), pointing to -2; a
             second pass does not; and the plugin's rpcordma_heuristic preference turns off
             Wireshark 4.0's RPCoRDMA heuristic that fails on valid iWARP traffic
  dissect    tshark -2 -T pdml once per capture, what agreement and experts read of it kept
             in --cache (the fixture of both: a tshark start-up costs more than most
             captures; without it, or stale, agreement and experts run tshark themselves)
  agreement  for every capture: the (frame, finding id) pairs of tshark -2 with the
             plugin equal those of mpa-check --format json, and so do the FPDUs
             (frame, ULPDU_Length, CRC status, markers) of mpa-check --list-fpdus
  experts    every expert item hangs on the field the catalogue says its finding is about
             (mpa-check --list-diagnostics: CRC, pad, marker, ULPDU_Length, a startup
             frame's field), as tshark -2 -T pdml nests it; filterable by id
  robustness tshark -2 with the plugin over every fuzz corpus file and past crasher
             (tests/fuzz; inputs of the non-capture targets turned into captures by
             corpus_to_pcap --batch, 40 inputs a capture, each on its own ports, trouble
             mapped back to its input by frame) and every hostile capture (tests/hostile): no crash, no
             epan assertion or critical message, no "Dissector bug" item of MPA, no
             library error (other protocols' dissector bugs are Wireshark's: listed)
"""

import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

BAD_CRC_CAPTURE = "siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap"
RPING_CAPTURE = "siw6.1-default-rping-64B-veth1500.pcap"
NOBODY = 65534


class Failure(Exception):
    pass


class Tshark:
    """tshark with the plugin under test, in a throwaway Wireshark home."""

    def __init__(self, tshark, plugin, workdir):
        self.tshark = tshark
        self.home = os.path.join(workdir, "home")
        abi = self._abi_version()
        self.plugin_dir = os.path.join(self.home, ".local", "lib", "wireshark", "plugins", abi, "epan")
        os.makedirs(self.plugin_dir)
        os.makedirs(os.path.join(self.home, ".config"))
        shutil.copy(plugin, os.path.join(self.plugin_dir, "mpa.so"))
        self.as_root = os.geteuid() == 0
        self.files = os.path.join(workdir, "files")
        os.makedirs(self.files)
        if self.as_root:
            for root, dirs, files in os.walk(workdir):
                os.chmod(root, 0o755)
                for f in files:
                    os.chmod(os.path.join(root, f), 0o644)

    def _abi_version(self):
        out = subprocess.run([self.tshark, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"TShark \(Wireshark\) (\d+)\.(\d+)", out)
        if not m:
            raise Failure("cannot tell the Wireshark version from tshark --version")
        return f"{m.group(1)}.{m.group(2)}"

    def readable(self, path):
        """A path tshark can read (a copy when tshark runs as another user)."""
        if not self.as_root:
            return path
        copy = os.path.join(self.files, os.path.basename(path))
        if not os.path.exists(copy):
            shutil.copy(path, copy)
            os.chmod(copy, 0o644)
        return copy

    def run(self, *args, check=True):
        p = self.run_raw(*args)
        if check and p.returncode != 0:
            raise Failure(f"{' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
        return p.stdout

    def run_raw(self, *args):
        """tshark as it is, exit status and stderr included."""
        env = dict(os.environ, HOME=self.home, XDG_CONFIG_HOME=os.path.join(self.home, ".config"))
        # An empty global plugin folder: a copy of mpa.so installed system-wide (the first
        # README command does that for root) must not be loaded beside the one under test.
        global_plugins = os.path.join(self.home, "global-plugins")
        os.makedirs(global_plugins, exist_ok=True)
        env["WIRESHARK_PLUGIN_DIR"] = global_plugins
        cmd = [self.tshark, *args]
        if self.as_root:
            cmd = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env,
                              cwd=self.home)

    def fields(self, capture, *fields, display_filter=None, extra=()):
        args = ["-2", "-r", self.readable(capture), "-T", "fields", "-E", "occurrence=a",
                "-E", "aggregator=,"]
        if display_filter:
            args += ["-Y", display_filter]
        for f in fields:
            args += ["-e", f]
        rows = self.run(*args, *extra).splitlines()
        return [r.split("\t") for r in rows]

    def frames(self, capture, display_filter, extra=()):
        return [int(r[0]) for r in self.fields(capture, "frame.number", display_filter=display_filter,
                                               extra=extra) if r and r[0]]


def in_parallel(ts, work, captures):
    """(capture, work(capture)) in the captures' order, computed on every core: each capture
    is a tshark run of its own whose start-up, not the capture, takes most of the time, and
    one run at a time would leave the other cores idle (in a chroot run, nothing else runs)."""
    for capture in captures:
        ts.readable(capture)  # the copies tshark's user reads, made before the threads
    workers = max(2, os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        yield from zip(captures, pool.map(work, captures))


def expect(condition, message):
    if not condition:
        raise Failure(message)


# ---- loads

def test_loads(ts, args):
    out = ts.run("-G", "plugins")
    lines = [l for l in out.splitlines() if l.startswith("mpa.so")]
    expect(lines, f"tshark -G plugins does not list mpa.so:\n{out}")
    expect(ts.plugin_dir in lines[0], f"mpa.so listed from elsewhere: {lines[0]}")
    protocols = ts.run("-G", "protocols")
    # Wireshark 4.4 added columns (enabled, heuristic, ...) after the filter name.
    expect(re.search(r"^MPA \(mpa-check\)\tMPA\tmpa(\t.*)?$", protocols, re.M), "protocol mpa not registered")
    fields = ts.run("-G", "fields")
    for name in ("mpa.fpdu.crc-mismatch", "mpa.startup.no-reply", "mpa.crc.status", "mpa.marker.points_to"):
        expect(f"\t{name}\t" in fields, f"field {name} not registered")


# ---- descriptions

def test_descriptions(ts, args):
    # -G fields: F, name, filter name, type, parent, base, bitmask, description.
    rows = [l.split("\t") for l in ts.run("-G", "fields").splitlines()]
    mpa = [r for r in rows if r[0] == "F" and len(r) > 2 and re.match(r"mpa(\.|$)", r[2])]
    expect(len(mpa) > 100, f"only {len(mpa)} mpa.* fields registered")
    bare = [r[2] for r in mpa if len(r) < 8 or not r[7].strip()]
    expect(not bare, f"{len(bare)} mpa.* field(s) without a description: {', '.join(bare)}")
    print(f"descriptions: {len(mpa)} mpa.* fields, each described")


# ---- single-pass

SINGLE_PASS_CAPTURE = "fault-fpdu.pad-rule-wrong.pcap"


def test_single_pass(ts, args):
    capture = find_capture(args, SINGLE_PASS_CAPTURE)
    path = ts.readable(capture)
    fields = ["-T", "fields", "-e", "frame.number", "-e", "_ws.expert.message"]
    one = [r.split("\t") for r in ts.run("-r", path, "-Y", "mpa.single_pass", *fields).splitlines()]
    # The sender's deviating FPDU of frame 8 is framed only once the next ones parse (frame
    # 19): a single pass showed frame 8 as payload with no FPDU.
    expect(one, f"{SINGLE_PASS_CAPTURE}: a single pass shows no mpa.single_pass note")
    notes = {int(r[0]): r[1] for r in one}
    expect(any(re.search(r"Single pass: frames? 8\b.*tshark -2", m) for m in notes.values()),
           f"no single-pass note names frame 8 and tshark -2: {notes}")
    two = ts.run("-2", "-r", path, "-Y", "mpa.single_pass", *fields).strip()
    expect(not two, f"tshark -2 shows mpa.single_pass notes: {two}")
    errors_two = ts.frames(capture, "mpa.severity == 3")  # (ts.frames reads with -2)
    expect(8 in errors_two, f"tshark -2 finds no error at frame 8: {errors_two}")
    print(f"single-pass: notes at frames {sorted(notes)}; none with -2")
    # The preference that turns off Wireshark 4.0's RPCoRDMA heuristic (and only that).
    expert = ts.run("-2", "-r", ts.readable(find_capture(args, RPCORDMA_CAPTURE)), "-q", "-z",
                    "expert", "-o", "mpa.rpcordma_heuristic:FALSE")
    expect("RPCoRDMA" not in expert, f"mpa.rpcordma_heuristic:FALSE leaves RPCoRDMA items:\n{expert}")
    expect(re.search(r"^Errors \(1\)", expert, re.M) and "MPA" in expert,
           f"with RPCoRDMA off, -z expert should count MPA's one error:\n{expert}")


RPCORDMA_CAPTURE = "fault-fpdu.crc-miscomputed.pcap"


def find_capture(args, name):
    for folder in args.captures:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return path
    raise Failure(f"{name} not found in {args.captures}")


# ---- fields

def with_port(capture, old, new, out, protocol=6):
    """A copy of an Ethernet/IPv4 pcap with TCP (or, `protocol` 17, UDP) port `old` replaced by
    `new`. UDP datagrams must carry no checksum, as VXLAN and Geneve senders send them, so that
    nothing else changes."""
    data = bytearray(open(capture, "rb").read())
    offset = 24
    changed = 0
    while offset + 16 <= len(data):
        length = struct.unpack_from("<I", data, offset + 8)[0]
        p = offset + 16
        if data[p + 12:p + 14] == b"\x08\x00" and data[p + 23] == protocol:
            header = p + 14 + (data[p + 14] & 15) * 4
            if protocol == 17:
                expect(struct.unpack_from(">H", data, header + 6)[0] == 0, f"{capture}: UDP checksum set")
            for at in (header, header + 2):
                if struct.unpack_from(">H", data, at)[0] == old:
                    struct.pack_into(">H", data, at, new)
                    changed += 1
        offset = p + length
    expect(changed > 0, f"{capture}: no port {old}")
    with open(out, "wb") as f:
        f.write(data)
    os.chmod(out, 0o644)
    return out


# ---- tunnels

def test_tunnels(ts, args):
    """The plugin's own reassembly sees inside tunnels, on the ports its preferences name."""
    bundled = [d for d in args.captures if os.path.exists(os.path.join(d, "expected.tsv"))]
    expect(bundled, "the bundled captures are missing")
    for wrapper, port, pref in (("vxlan", 4789, "vxlan_ports"), ("geneve-options", 6081, "geneve_ports")):
        capture = os.path.join(bundled[0], f"fault-fpdu.crc-mismatch--{wrapper}.pcap")
        expect(os.path.exists(capture), f"{capture} is missing")
        crc = ts.frames(capture, "mpa.fpdu.crc-mismatch")
        expect(len(crc) == 1, f"{wrapper}: mpa.fpdu.crc-mismatch selects {crc}")
        moved = with_port(capture, port, 8472, os.path.join(ts.home, f"{wrapper}-8472.pcap"), protocol=17)
        expect(ts.frames(moved, "mpa") == [], f"{wrapper} on UDP 8472 decoded without the preference")
        got = ts.frames(moved, "mpa.fpdu.crc-mismatch", extra=("-o", f"mpa.{pref}:8472"))
        expect(got == crc, f"{wrapper} on UDP 8472 with mpa.{pref}:8472: {got}, expected {crc}")


def siw(args, name):
    for d in args.captures:
        path = os.path.join(d, name)
        if os.path.exists(path):
            return path
    return None


def test_fields(ts, args):
    bad = siw(args, BAD_CRC_CAPTURE)
    rping = siw(args, RPING_CAPTURE)
    expect(bad and rping, "the siw captures are missing")

    # Startup frames: Request and Reply, Rev 2, IRD/ORD, the flags.
    rows = ts.fields(bad, "frame.number", "mpa.key", "mpa.rev", "mpa.flags.c", "mpa.ird", "mpa.ord",
                     display_filter="mpa.rev == 2")
    expect([r[0] for r in rows] == ["4", "6"], f"mpa.rev == 2 selects {rows}")
    expect(rows[0][1] == "MPA ID Req Frame" and rows[1][1] == "MPA ID Rep Frame", f"keys: {rows}")
    expect(all(r[3] in ("1", "True") and r[4] == "8" and r[5] == "8" for r in rows), f"C/IRD/ORD: {rows}")

    # The bad CRC: status bad (0), received and computed differ, one expert item, filterable.
    rows = ts.fields(bad, "frame.number", "mpa.crc.status", "mpa.crc", "mpa.crc.computed",
                     "mpa.ulpdu_length", display_filter="mpa.crc.status == 0")
    expect(len(rows) == 1 and rows[0][0] == "8", f"mpa.crc.status == 0 selects {rows}")
    expect(rows[0][2] != rows[0][3] and rows[0][4] == "34", f"CRC fields: {rows}")
    expect(ts.frames(bad, "mpa.fpdu.crc-mismatch") == [8], "mpa.fpdu.crc-mismatch does not select frame 8")
    expert = ts.run("-2", "-q", "-r", ts.readable(bad), "-z", "expert,error")
    # (The expert item names the rules of RFC 5044 it checks, as mpa-check --list-rules does.)
    expect(re.search(r"^\s*1\s+Checksum\s+MPA\s+FPDU CRC32c does not match its contents "
                     r"\(RFC 5044 4.4, error code 2; rules [^)]*\b5044-4\.4-r9\b[^)]*\)$",
                     expert, re.M), f"-z expert lacks the CRC error:\n{expert}")
    # The catalogue id is the field mpa.finding; the values are in mpa.finding.detail, not in
    # the expert text (which groups).
    rows = ts.fields(bad, "frame.number", "mpa.finding", "mpa.finding.detail",
                     display_filter='mpa.finding == "fpdu.crc-mismatch"')
    expect(len(rows) == 1 and ts.frames(bad, "mpa.fpdu.crc-mismatch") == [int(rows[0][0])],
           f"mpa.finding == \"fpdu.crc-mismatch\" selects {rows}")
    expect(re.search(r"CRC received 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}", rows[0][2]), f"mpa.finding.detail: {rows}")
    # Many findings of one id group into one -z expert row: siw's 37 oversized ULPDUs.
    gso = os.path.join(os.path.dirname(bad), "siw6.1-gso-rping-65535B-veth1500.pcap")
    if os.path.exists(gso):
        expert = ts.run("-2", "-q", "-r", ts.readable(gso), "-z", "expert,warn")
        expect(re.search(r"^\s*37\s+Protocol\s+MPA\s+ULPDU_Length above 64768", expert, re.M),
               f"-z expert does not group the 37 ulpdu-length-too-large findings:\n{expert}")

    # A sender that frames as the RFC does not (mpa-synth's quirks): once the deviation is
    # named, its first FPDU too is drawn as the sender framed it, in the frame where it
    # begins (the frame the finding names): no CRC field where none is sent, the sender's
    # pad, its ULPDU handed on to DDP/RDMAP there.
    for name, deviation in (("fault-fpdu.crc-field-missing.pcap", "fpdu.crc-field-missing"),
                            ("fault-fpdu.pad-rule-wrong.pcap", "fpdu.pad-rule-wrong")):
        capture = next((os.path.join(d, name) for d in args.captures
                        if os.path.exists(os.path.join(d, name))), None)
        if capture is None:
            continue
        report = json.loads(subprocess.run([args.mpa_check, "--format", "json", capture],
                                           capture_output=True, text=True).stdout)
        found = [f for cap in report["captures"] for conn in cap["connections"]
                 for f in conn["findings"] if f["id"] == deviation]
        expect(len(found) == 1, f"{name}: {deviation} expected once, got {found}")
        frame = found[0]["frame"]
        rows = ts.fields(capture, "mpa.ulpdu_length", "mpa.pad", "mpa.crc", "iwarp_rdma.opcode",
                         display_filter=f"frame.number == {frame}")
        expect(rows and rows[0][0] and rows[0][3], f"{name}: frame {frame}, where the deviating FPDU "
               f"begins, shows no FPDU handed on: {rows}")
        length, pad = int(rows[0][0].split(",")[0]), int(rows[0][1].split(",")[0])
        if deviation == "fpdu.crc-field-missing":
            expect(rows[0][2] == "", f"{name}: frame {frame} shows a CRC field the sender does not send: {rows}")
            expect(pad == (-(length + 2)) % 4, f"{name}: pad {pad} for ULPDU_Length {length}")
        else:  # the finding names the sender's rule: pad = (ULPDU_Length + 2) mod 4
            expect("pad = (ULPDU_Length + 2) mod 4" in found[0]["message"], found[0]["message"])
            expect(pad == (length + 2) % 4, f"{name}: frame {frame} shows pad {pad}, not the sender's")
    # The receiver's reaction to a bad CRC or to legal input (receiver.*), the startup reactions
    # and CRCs over the wrong octets: an expert item in the frame mpa-check names (the Read
    # Response, the first FPDU sent after the error, the close), filterable.
    for name, finding in (("fault-receiver.invalid-fpdu-answered.pcap", "receiver.invalid-fpdu-answered"),
                          ("fault-receiver.error-ignored.pcap", "receiver.error-ignored"),
                          ("fault-receiver.closed-after-error.pcap", "receiver.closed-after-error"),
                          ("fault-receiver.legal-fpdu-refused.pcap", "receiver.legal-fpdu-refused"),
                          ("fault-receiver.legal-fpdu-refused--read.pcap", "receiver.legal-fpdu-refused"),
                          ("fault-startup.invalid-request-kept-open.pcap", "startup.invalid-request-kept-open"),
                          ("fault-startup.negotiation-terminate-missing--reject.pcap",
                           "startup.negotiation-terminate-missing"),
                          ("fault-startup.markers-refused--terminate.pcap", "startup.markers-refused"),
                          ("fault-fpdu.crc-miscomputed--without-markers.pcap", "fpdu.crc-miscomputed")):
        path = siw(args, name)
        expect(path, f"{name} is missing")
        found, _, _ = check_report(args.mpa_check, path)
        frames = sorted(frame for frame, fid in found if fid == finding)
        expect(len(frames) == 1, f"{name}: mpa-check reports {finding} in frames {frames}")
        expect(ts.frames(path, "mpa." + finding) == frames, f"{name}: mpa.{finding} does not select {frames}")
    closed = siw(args, "fault-receiver.closed-after-error.pcap")
    expert = ts.run("-2", "-q", "-r", ts.readable(closed), "-z", "expert,warn")
    expect(re.search(r"^\s*1\s+Sequence\s+MPA\s+Receiver closed the connection .*\b5044-8-r6\b",
                     expert, re.M), f"-z expert lacks receiver.closed-after-error:\n{expert}")

    # The coloring rules shipped with the plugin: valid filters that select what they say.
    rules = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plugin", "mpa.colorfilters")) as f:
        for line in f:
            if line.startswith("@"):
                _, name, flt, _colors = line.rstrip("\n").split("@")
                rules[name] = flt
    expect(set(rules) == {"MPA CRC error", "MPA error", "MPA warning"}, f"coloring rules: {sorted(rules)}")
    expect(ts.frames(bad, rules["MPA CRC error"]) == [8], "the CRC coloring rule must select frame 8 only")
    expect(8 in ts.frames(bad, rules["MPA error"]), "the error coloring rule must select frame 8")
    expect(ts.frames(rping, rules["MPA CRC error"]) == [], "no CRC error in a clean capture")

    # DDP/RDMAP under our FPDUs; the built-in iwarp_mpa is off.
    rows = ts.fields(rping, "frame.number", "mpa.ulpdu_length", "iwarp_rdma.opcode",
                     display_filter="mpa.ulpdu_length")
    expect(len(rows) > 10, f"too few FPDUs in {RPING_CAPTURE}: {len(rows)}")
    expect(all(r[2] for r in rows), f"FPDUs without iwarp_rdma fields: {[r for r in rows if not r[2]][:5]}")
    expect(ts.frames(rping, "iwarp_mpa") == [], "the built-in iwarp_mpa still decodes with mpa.disable_builtin on")
    builtin = ts.frames(rping, "iwarp_mpa", extra=("--disable-protocol", "mpa"))
    expect(builtin, "with our protocol disabled, the built-in iwarp_mpa should decode again")

    # On a port another dissector owns (NVMe/TCP, 4420), MPA is still found and claimed.
    nvme = with_port(rping, 7174, 4420, os.path.join(ts.files, "rping-port-4420.pcap"))
    expect(ts.frames(nvme, "mpa.rev") == ts.frames(rping, "mpa.rev") != [],
           "MPA startup frames not found on port 4420")
    expect(len(ts.frames(nvme, "iwarp_rdma")) == len(ts.frames(rping, "iwarp_rdma")),
           "DDP/RDMAP differs on port 4420")
    expect(ts.frames(nvme, "nvme-tcp") == [], "NVMe/TCP still claims the MPA connection on port 4420")

    # Statistics.
    stat = ts.run("-2", "-q", "-r", ts.readable(rping), "-z", "mpa,stat")
    expect("MPA Connections" in stat and re.search(r"192\.168\.\d+\.\d+:\d+", stat),
           f"-z mpa,stat shows no connection:\n{stat}")

    # Markers: in the captures whose markers mpa-check reads (one run over all of them), the
    # plugin shows as many markers, each with its FPDUPTR and target, in the same frames.
    # (plugin.agreement compares every capture's markers per FPDU; this checks the fields.)
    marker_captures = []
    for path in captures_with_markers(args)[:4]:
        rows = ts.fields(path, "frame.number", "mpa.marker.fpduptr", "mpa.marker.points_to",
                         display_filter="mpa.marker")
        shown = collections.Counter()
        for frame, fpdu_ptrs, targets in rows:
            expect(len(fpdu_ptrs.split(",")) == len(targets.split(",")), f"{path}: frame {frame}: {rows}")
            shown[int(frame)] += len(fpdu_ptrs.split(","))
        expect(shown == markers_by_frame(args.mpa_check, path),
               f"{path}: markers per frame {dict(shown)} (mpa-check: {dict(markers_by_frame(args.mpa_check, path))})")
        marker_captures.append(path)
    if args.require_markers:
        expect(marker_captures, "no bundled capture shows MPA markers")
    print(f"fields: {len(marker_captures)} capture(s) with markers")

    # A sender that frames otherwise than the RFC (the library names the deviation and reads
    # on as sent): its FPDUs are shown as it framed them. No CRC field where it sends none;
    # every ULPDU, of the size it really has, handed to DDP/RDMAP.
    for name in ("fault-fpdu.crc-field-missing.pcap", "fault-fpdu.pad-rule-wrong.pcap",
                 "fault-fpdu.ulpdu-length-miscounted.pcap"):
        path = siw(args, name)
        expect(path, f"{name} is missing")
        rows = ts.fields(path, "frame.number", "mpa.direction", "mpa.ulpdu_length", "mpa.crc", "iwarp_rdma.opcode",
                         "mpa.ulpdu", display_filter="mpa.ulpdu_length")
        values = lambda v: v.split(",") if v else []
        fpdus = [(r[1], int(length), ulpdu) for r in rows
                 for length, ulpdu in zip(values(r[2]), values(r[5]) + [""] * len(values(r[2])))]
        initiator = [f for f in fpdus if f[0] == "0"]
        expect(len(initiator) >= 5, f"{name}: the Initiator's FPDUs: {rows}")
        opcodes = sum(len(values(r[4])) for r in rows)
        expect(opcodes == len(fpdus), f"{name}: {opcodes} of {len(fpdus)} ULPDUs decoded as DDP/RDMAP: {rows}")
        crcs = sum(len(values(r[3])) for r in rows if r[1] == "0")
        if name == "fault-fpdu.crc-field-missing.pcap":
            # (The first FPDU is shown before the deviation is known, as the RFC frames it.)
            expect(crcs <= 1, f"{name}: {crcs} CRC fields shown for the Initiator, which sends none: {rows}")
        else:
            expect(crcs == len(initiator), f"{name}: {crcs} CRC fields for {len(initiator)} FPDUs")
        if name == "fault-fpdu.ulpdu-length-miscounted.pcap":
            # Its ULPDU_Length counts 2 octets more than its ULPDUs have.
            sizes = [(length, len(ulpdu) // 2) for _, length, ulpdu in initiator]
            expect(all(size == length - 2 for length, size in sizes), f"{name}: (ULPDU_Length, ULPDU octets) {sizes}")


def captures_with_markers(args):
    """The bundled captures in which mpa-check reads markers in some direction."""
    out = []
    for d in args.captures:
        paths = sorted(glob.glob(os.path.join(d, "*.pcap")))
        if not paths:
            continue
        p = subprocess.run([args.mpa_check, "--format", "json", *paths], capture_output=True, text=True)
        for cap in json.loads(p.stdout)["captures"]:
            if any(d.get("markers") and d.get("fpdus") for conn in cap["connections"]
                   for d in conn["directions"].values()):
                out.append(cap["file"])
    return out


def markers_by_frame(mpa_check, capture):
    """Markers per frame (the frame completing their FPDU), from mpa-check --list-fpdus."""
    _, fpdus, _ = check_report(mpa_check, capture)
    shown = collections.Counter()
    for (frame, _, _, markers), count in fpdus.items():
        if markers:
            shown[frame] += markers * count
    return shown


# ---- agreement

def pdml_report(packet, frame):
    """The plugin's (frame, finding id) pairs and FPDUs (frame, ULPDU_Length, CRC status,
    markers) in one packet of tshark -2 -T pdml: every mpa.* item of an expert item anywhere
    under MPA, and every FPDU subtree at the top of the MPA tree."""
    found = collections.Counter()
    fpdus = collections.Counter()
    for mpa in (p for p in packet.iter("proto") if p.get("name") == "mpa"):
        for expert in (f for f in mpa.iter("field") if f.get("name") == "_ws.expert"):
            for item in expert:
                if item.get("name", "").startswith("mpa."):
                    found[(frame, item.get("name")[len("mpa."):])] += 1
        for fpdu in (f for f in mpa if not f.get("name") and (f.get("show") or "").startswith("FPDU: ")):
            values = {}
            markers = 0
            for f in fpdu:
                values.setdefault(f.get("name"), f.get("show"))
                markers += f.get("name") == "mpa.marker"
            fpdus[(frame, int(values["mpa.ulpdu_length"]), CRC_STATUS[values["mpa.crc.status"]], markers)] += 1
    return found, fpdus


def dissect(ts, args, capture):
    """One tshark -2 -T pdml run over a capture, for both plugin.agreement and plugin.experts:
    {"experts": pdml_experts' tuples without elements, "found": [[frame, id, count]],
    "fpdus": [[frame, ULPDU_Length, CRC status, markers, count]]}. Kept in args.cache (the
    fixture plugin.dissect fills it), keyed by the capture, the plugin, tshark and this script."""
    st, plugin, script = os.stat(capture), os.stat(args.plugin), os.stat(os.path.abspath(__file__))
    # (This script too: what is kept is what its code read of the PDML.)
    key = [os.path.abspath(capture), st.st_size, st.st_mtime_ns, os.path.abspath(args.plugin), plugin.st_size,
           plugin.st_mtime_ns, os.path.abspath(args.tshark), script.st_size, script.st_mtime_ns]
    path = None
    if args.cache:
        os.makedirs(args.cache, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9.-]", "_", os.path.relpath(os.path.abspath(capture), "/"))
        path = os.path.join(args.cache, name + ".json")
        try:
            with open(path) as f:
                cached = json.load(f)
            if cached["key"] == key:
                return cached
        except (OSError, ValueError, KeyError):
            pass
    root = ET.fromstring(ts.run("-2", "-r", ts.readable(capture), "-Y", "mpa", "-T", "pdml", "-J", "frame mpa"))
    experts, found, fpdus = [], collections.Counter(), collections.Counter()
    for packet, frame in pdml_packets(root):
        experts += [list(e[:4]) for e in packet_experts(packet, frame)]
        f, d = pdml_report(packet, frame)
        found.update(f)
        fpdus.update(d)
    result = {"key": key, "experts": experts, "found": [[*k, n] for k, n in found.items()],
              "fpdus": [[*k, n] for k, n in fpdus.items()]}
    if path:
        with open(path + ".new", "w") as f:
            json.dump(result, f)
        os.replace(path + ".new", path)
    return result


def plugin_report(ts, args, capture):
    """The plugin's (frame, finding id) pairs, and its FPDUs as
    (frame, ULPDU_Length, CRC status, markers), from one tshark -2 run."""
    d = dissect(ts, args, capture)
    return (collections.Counter({tuple(r[:-1]): r[-1] for r in d["found"]}),
            collections.Counter({tuple(r[:-1]): r[-1] for r in d["fpdus"]}))


def test_dissect(ts, args):
    """tshark -2 -T pdml once per capture, read by plugin.agreement and plugin.experts."""
    captures = all_captures(args)
    expect(captures, "no captures")
    for _ in in_parallel(ts, lambda c: dissect(ts, args, c), captures):
        pass
    print(f"dissect: {len(captures)} captures into {args.cache}")


def all_captures(args):
    captures = []
    for d in args.captures:
        captures += sorted(glob.glob(os.path.join(d, "*.pcap")) + glob.glob(os.path.join(d, "*.pcapng")))
    return captures


def check_report(mpa_check, capture):
    out = subprocess.run([mpa_check, "--format", "json", "--list-fpdus", capture], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise Failure(f"mpa-check {capture} failed ({out.returncode}):\n{out.stderr}")
    report = json.loads(out.stdout)
    found = collections.Counter()
    fpdus = collections.Counter()
    truncated = False
    for cap in report["captures"]:
        for conn in cap["connections"]:
            truncated |= conn.get("findings_not_listed", 0) > 0
            for f in conn["findings"]:
                found[(f["frame"], f["id"])] += 1
            for f in conn.get("fpdus", []):
                fpdus[(f["frame"], f["ulpdu_length"], f["crc"], f["markers"])] += 1
        for f in cap.get("findings", []):
            found[(f["frame"], f["id"])] += 1
    return found, fpdus, truncated


CRC_STATUS = {"0": "bad", "1": "good", "2": "unchecked"}


PI_ERROR = 0x00800000  # _ws.expert.severity as tshark prints it
COLOR_CAPTURE_NOISY = "siw6.1-default-send_bw-4096B-veth1500.pcap"


def read_color_rules():
    """The shipped coloring rules: [(name, filter, background, foreground)] in file order."""
    rules = []
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plugin", "mpa.colorfilters")
    with open(path) as f:
        for line in f:
            m = re.match(r"@([^@]+)@([^@]+)@\[(\d+),(\d+),(\d+)\]\[(\d+),(\d+),(\d+)\]$", line.rstrip("\n"))
            if line.startswith("@"):
                expect(m, f"not a coloring rule: {line!r}")
                c = [int(v) for v in m.groups()[2:]]
                rules.append((m.group(1), m.group(2), tuple(c[:3]), tuple(c[3:])))
    return rules


def test_colouring(ts, args):
    """The shipped coloring rules, applied by tshark itself (--color, the rules as the profile's
    colorfilters file): frame.coloring_rule.name is the MPA rule of the frame's worst MPA
    finding, a bad CRC the loudest, and other protocols' expert items colour nothing."""
    rules = read_color_rules()
    expect([r[0] for r in rules] == ["MPA CRC error", "MPA error", "MPA warning"], f"coloring rules: {rules}")
    # Wireshark's order is [background][foreground]: a bad CRC is white on saturated red, the
    # other rows dark text on light backgrounds.
    (_, _, crc_bg, crc_fg), (_, _, err_bg, err_fg), (_, _, warn_bg, warn_fg) = rules
    expect(crc_bg[0] > 40000 and crc_bg[1] < 10000 and crc_bg[2] < 10000 and min(crc_fg) > 60000,
           f"the bad-CRC row must be white on red: background {crc_bg}, foreground {crc_fg}")
    expect(max(err_fg) < 10000 and max(warn_fg) < 10000 and min(err_bg) > 30000 and min(warn_bg) > 30000,
           f"error and warning rows: dark text on light backgrounds: {rules}")
    os.makedirs(os.path.join(ts.home, ".config", "wireshark"), exist_ok=True)
    with open(os.path.join(ts.home, ".config", "wireshark", "colorfilters"), "w") as f:
        f.write("".join(f"@{n}@{flt}@[{','.join(map(str, bg))}][{','.join(map(str, fg))}]\n"
                        for n, flt, bg, fg in rules))
    ts.run("-v")  # the home is readable by tshark's user
    if ts.as_root:
        for root, dirs, files in os.walk(ts.home):
            os.chmod(root, 0o755)
            for name in files:
                os.chmod(os.path.join(root, name), 0o644)

    def colours(capture):
        out = ts.run("-2", "--color", "-r", ts.readable(capture), "-T", "fields", "-E", "separator=\t",
                     "-e", "frame.number", "-e", "frame.coloring_rule.name", "-e", "mpa.severity",
                     "-e", "mpa.crc.status", "-e", "_ws.expert.severity")
        rows = [line.split("\t") for line in out.splitlines() if line]
        expect(rows, f"tshark --color printed nothing for {capture}")
        return rows

    def expected_rule(severity, crc_status):
        if "0" in crc_status.split(","):
            return "MPA CRC error"
        return {"3": "MPA error", "2": "MPA warning"}.get(severity)

    bad = siw(args, BAD_CRC_CAPTURE)
    noisy = siw(args, COLOR_CAPTURE_NOISY)
    for capture in (bad, noisy):
        rows = colours(capture)
        wrong = [r for r in rows if r[1] != (expected_rule(r[2], r[3]) or "") and
                 (r[1].startswith("MPA") or expected_rule(r[2], r[3]))]
        expect(not wrong, f"{os.path.basename(capture)}: frames coloured against their MPA findings "
                          f"(frame, rule, mpa.severity, mpa.crc.status): {wrong[:10]}")
        if capture == bad:
            expect(sum(r[1] == "MPA CRC error" for r in rows) == 1, f"one bad-CRC row in {capture}")
        else:
            # Wireshark 4.0's RPC-over-RDMA heuristic raises errors of its own in this capture;
            # none of them may paint an MPA row (they did while the rules read _ws.expert).
            foreign = [r for r in rows if str(PI_ERROR) in r[4].split(",") and r[2] != "3"]
            expect(not [r for r in foreign if r[1] in ("MPA error", "MPA CRC error")],
                   f"other protocols' errors coloured as MPA: {foreign[:5]}")


def test_agreement(ts, args):
    captures = all_captures(args)
    expect(captures, "no captures to compare")
    failures = []
    both = lambda capture: (check_report(args.mpa_check, capture), plugin_report(ts, args, capture))
    for capture, ((expected, expected_fpdus, truncated), (got, got_fpdus)) in in_parallel(ts, both, captures):
        missing, extra = expected - got, got - expected
        if truncated:
            extra = collections.Counter()  # mpa-check lists at most so many per connection
        fpdus_agree = got_fpdus == expected_fpdus
        status = "ok" if not missing and not extra and fpdus_agree else "DIFFERS"
        print(f"{status:8} {sum(expected.values()):5} findings {sum(expected_fpdus.values()):6} FPDUs  "
              f"{os.path.basename(capture)}")
        if missing or extra:
            failures.append(f"{capture}: findings\n  only mpa-check: {sorted(missing.elements())[:20]}\n"
                            f"  only plugin:    {sorted(extra.elements())[:20]}")
        if not fpdus_agree:
            failures.append(f"{capture}: FPDUs (frame, ULPDU_Length, CRC, markers)\n"
                            f"  only mpa-check: {sorted((expected_fpdus - got_fpdus).elements())[:10]}\n"
                            f"  only plugin:    {sorted((got_fpdus - expected_fpdus).elements())[:10]}")
    expect(not failures, "findings differ:\n" + "\n".join(failures))


# ---- experts

# The PDML element an expert item of each catalogue field is expected under: a field's name, or
# a subtree of the MPA tree (FPDU, STARTUP: a startup frame, ENHANCED: its IRD/ORD block).
FPDU, STARTUP, ENHANCED, TOP = "<FPDU>", "<startup frame>", "<IRD/ORD block>", "<MPA tree>"
FIELD_ITEM = {
    "crc": "mpa.crc", "pad": "mpa.pad", "marker": "mpa.marker", "ulpdu-length": "mpa.ulpdu_length",
    "ulpdu": "mpa.ulpdu", "fpdu": FPDU, "startup-frame": STARTUP, "startup-key": "mpa.key",
    "startup-flags": "mpa.flags", "startup-revision": "mpa.rev", "startup-pd-length": "mpa.pd_length",
    "startup-private-data": "mpa.private_data", "startup-enhanced": ENHANCED,
}


def pdml_experts(ts, capture):
    """(frame, finding id, what the expert item hangs on, shown_in frame or None, element) for
    every MPA expert item of tshark -2 -T pdml. What it hangs on: a field name, FPDU, STARTUP,
    ENHANCED, or TOP (the finding's own mpa.finding item at the top of the MPA tree)."""
    out = ts.run("-2", "-r", ts.readable(capture), "-Y", "mpa", "-T", "pdml")
    found = []
    for packet, frame in pdml_packets(ET.fromstring(out)):
        found += packet_experts(packet, frame)
    return found


def pdml_packets(root):
    """(packet element, frame number) of a PDML document."""
    for packet in root.iter("packet"):
        frame = None
        for proto in packet.iter("proto"):
            if proto.get("name") == "geninfo":
                frame = int(next(f.get("show") for f in proto.iter("field") if f.get("name") == "num"))
        yield packet, frame


def packet_experts(packet, frame):
    """pdml_experts of one packet."""
    found = []
    parents = {child: parent for parent in packet.iter() for child in parent}
    for mpa in (p for p in packet.iter("proto") if p.get("name") == "mpa"):
        for expert in mpa.iter("field"):
            if expert.get("name") != "_ws.expert":
                continue
            ids = [f.get("name")[len("mpa."):] for f in expert
                   if f.get("name", "").startswith("mpa.") and f.get("name") != "mpa.plugin.library-error"]
            if not ids:
                continue
            parent = parents[expert]
            name = parent.get("name") or ""
            show = parent.get("show") or ""
            if name == "mpa.finding":
                on = TOP
            elif name:
                on = name
            elif show.startswith("FPDU:"):
                on = FPDU
            elif show.startswith("Enhanced connection establishment"):
                on = ENHANCED
            elif parents.get(parent) is mpa:
                on = STARTUP
            else:
                on = f"text item {show!r}"
            shown_in = None
            finding = parent if name == "mpa.finding" else next(
                (f for f in parent if f.get("name") == "mpa.finding" and f.get("show") == ids[0]), None)
            if finding is not None:
                shown_in = next((int(f.get("show")) for f in finding.iter("field")
                                 if f.get("name") == "mpa.finding.shown_in"), None)
            found.append((frame, ids[0], on, shown_in, parent))
    return found


def test_experts(ts, args):
    catalogue = {d["id"]: d for d in json.loads(subprocess.run(
        [args.mpa_check, "--list-diagnostics", "--format", "json"], capture_output=True, text=True,
        check=True).stdout)}
    expect(catalogue["fpdu.crc-mismatch"]["field"] == "crc" and catalogue["capture.gap"]["field"] == "none",
           "--list-diagnostics names no field for its entries")
    captures = [c for c in all_captures(args) if c.endswith(".pcap")]
    expect(captures, "no captures")
    counts = collections.Counter()
    failures = []
    # Per catalogue id with a field, over the captures made to show it (fault-<id>.pcap and its
    # variants fault-<id>--<how>.pcap): whether one of its expert items hangs on that field (or
    # names the later frame that draws it).
    placed = collections.defaultdict(bool)
    # (Without the PDML elements, which would keep every capture's whole tree alive.)
    experts_of = dict(in_parallel(ts, lambda c: [(*e, None) for e in dissect(ts, args, c)["experts"]], captures))
    for capture in captures:
        name = os.path.basename(capture)
        own = re.match(r"fault-([a-z0-9.-]+?)(--.*)?\.pcap$", name)
        own = own.group(1) if own else None
        if own in catalogue and catalogue[own]["field"] != "none":
            placed[own] |= False
        for frame, fid, on, shown_in, _ in experts_of[capture]:
            field = catalogue[fid]["field"]
            want = FIELD_ITEM.get(field, TOP)
            container = FPDU if field in ("crc", "pad", "marker", "ulpdu-length", "ulpdu", "fpdu") else \
                STARTUP if field.startswith("startup-") else TOP
            if on == want:
                kind = "on its field"
            elif on == container:
                kind = "on its FPDU or startup frame"  # the field is not drawn (no CRC field sent)
            elif on == TOP and field == "none":
                kind = "apart (about no field)"
            elif on == TOP and shown_in is not None:
                kind = "apart, its field drawn in a later frame"
            elif on == TOP:
                # Reported at an event (a close, a refusal) rather than at the octets.
                kind = "apart, about octets no frame draws"
            else:
                failures.append(f"{name}: frame {frame}: {fid} (field {field}) hangs on {on}")
                continue
            counts[kind] += 1
            if fid == own and kind in ("on its field", "on its FPDU or startup frame",
                                       "apart, its field drawn in a later frame"):
                placed[own] = True
            if shown_in is not None:
                expect(shown_in > frame, f"{name}: frame {frame}: {fid} shown in frame {shown_in}")
    # FPDUs after a Reject are found by inference only: MPA is over, the plugin draws none.
    placed.pop("startup.fpdu-after-reject", None)
    failures += [f"{fid}: no expert item on its field ({catalogue[fid]['field']}) in its captures"
                 for fid, ok in sorted(placed.items()) if not ok]
    print(f"experts: {dict(counts)}; {len(placed)} catalogue ids with a field placed in their captures")
    expect(not failures, "expert items not where the catalogue says:\n" + "\n".join(failures[:40]))

    # The bad CRC: the expert item and the finding under the CRC field, whose octets the
    # Expert Information dialog then selects; filterable by its expert field and by id.
    bad = siw(args, BAD_CRC_CAPTURE)
    items = [(frame, fid, on, element) for frame, fid, on, _, element in pdml_experts(ts, bad)
             if fid == "fpdu.crc-mismatch"]
    expect(len(items) == 1 and items[0][0] == 8 and items[0][2] == "mpa.crc", f"CRC finding: {items}")
    crc = items[0][3]
    expect(int(crc.get("size")) == 4 and any(f.get("name") == "mpa.finding" and f.get("show") == "fpdu.crc-mismatch"
                                             for f in crc), f"the CRC field: {xml_excerpt(crc)}")
    expect(ts.frames(bad, 'mpa.finding == "fpdu.crc-mismatch"') == [8] == ts.frames(bad, "mpa.fpdu.crc-mismatch"),
           "the CRC finding is not filterable")
    # The pad with its octets, and the finding on it.
    pad = next((c for d in args.captures for c in [os.path.join(d, "fault-fpdu.pad-nonzero.pcap")]
                if os.path.exists(c)), None)
    if pad:
        items = [(frame, on, element) for frame, fid, on, _, element in pdml_experts(ts, pad)
                 if fid == "fpdu.pad-nonzero"]
        expect(items and all(on == "mpa.pad" and int(e.get("size")) > 0 for _, on, e in items),
               f"pad findings: {[(f, on, xml_excerpt(e)) for f, on, e in items]}")
        found, _, _ = check_report(args.mpa_check, pad)
        frames = sorted(f for f, fid in found if fid == "fpdu.pad-nonzero")
        expect(ts.frames(pad, 'mpa.finding == "fpdu.pad-nonzero"') == frames == ts.frames(pad, "mpa.fpdu.pad-nonzero"),
               f"pad findings in frames {frames}")


def xml_excerpt(element):
    return ET.tostring(element, encoding="unicode")[:400]


# ---- robustness

# What epan and glib print when something inside a dissector went wrong.
EPAN_TROUBLE = re.compile(r"assert|CRITICAL|\*\* ERROR|Dissector bug|Segmentation fault|"
                          r"AddressSanitizer|runtime error", re.IGNORECASE)
def trouble_filter(ts):
    """Frames with a dissector bug or a library error. The dissector-bug field is
    _ws.malformed.dissector_bug up to Wireshark 4.2, _ws.dissector_bug from 4.4."""
    if not hasattr(ts, "trouble_filter"):
        fields = ts.run("-G", "fields")
        bug = "_ws.dissector_bug" if re.search(r"\t_ws\.dissector_bug(\t|$)", fields, re.M) else "_ws.malformed.dissector_bug"
        ts.trouble_filter = f"{bug} || mpa.plugin.library-error"
    return ts.trouble_filter


# Fuzz inputs per batch capture: one tshark start-up (a third of a second) for this many.
BATCH = 40


class Batch:
    """Fuzz inputs of one target written into one capture by corpus_to_pcap --batch, each on
    client ports of its own; `inputs` are (first frame, last frame, input file)."""

    def __init__(self, target, path, inputs):
        self.target, self.path, self.inputs = target, path, inputs

    def input_of(self, frame):
        return next((f for first, last, f in self.inputs if first <= frame <= last), None)


def robustness_inputs(ts, args):
    """The fuzz inputs of the non-capture targets as Batches, and the captures: every
    capture fuzz input and every hostile capture."""
    batches = []
    converted = os.path.join(ts.files, "fuzz-inputs")
    os.makedirs(converted)
    # Without corpus_to_pcap (a build without the tests, e.g. in another Wireshark's chroot)
    # the subset that is captures already: the capture corpus and the hostile captures.
    for target in ("connection", "startup_frame", "fpdu_reader") if args.corpus_to_pcap else ():
        files = sorted(glob.glob(os.path.join(args.fuzz_dir, "corpus", target, "*")) +
                       glob.glob(os.path.join(args.fuzz_dir, "regressions", target, "*")))
        expect(files, f"no fuzz inputs for {target} under {args.fuzz_dir}")
        for at in range(0, len(files), BATCH):
            path = os.path.join(converted, f"{target}-batch-{at // BATCH}.pcap")
            out = subprocess.run([args.corpus_to_pcap, "--batch", target, path, *files[at:at + BATCH]],
                                 check=True, capture_output=True, text=True).stdout
            inputs = [(int(first), int(last), f) for first, last, f in
                      (line.split(" ", 2) for line in out.splitlines())]
            expect(len(inputs) == len(files[at:at + BATCH]), f"corpus_to_pcap --batch listed {out}")
            os.chmod(path, 0o644)
            batches.append(Batch(target, path, inputs))
    captures = sorted(glob.glob(os.path.join(args.fuzz_dir, "corpus", "capture", "*")) +
                      glob.glob(os.path.join(args.fuzz_dir, "regressions", "capture", "*")))
    expect(captures, f"no capture fuzz inputs under {args.fuzz_dir}")
    if args.hostile_dir:
        hostile = sorted(glob.glob(os.path.join(args.hostile_dir, "*.pcap*")))
        expect(hostile, f"no hostile captures under {args.hostile_dir} (run the hostile tests first)")
        captures += hostile
    return batches, captures


def batch_trouble(ts, args, batch):
    """trouble() of a batch, per input: [(input, problem, upstream, status)]. epan names the
    packet of a dissector bug on stderr ("in packet N") and the filter's stdout lines start
    with theirs: each maps to its input by frame. A batch not read whole, or with trouble no
    frame names, is read again one input at a time (corpus_to_pcap as before: a capture of
    its own per input), which names the input; trouble that only the batch shows is the
    batch's."""
    p = ts.run_raw("-2", "-r", ts.readable(batch.path), "-Y", trouble_filter(ts), "-T", "fields",
                   "-e", "frame.number", "-e", "_ws.expert.message")
    problems = collections.defaultdict(list)
    upstream = collections.defaultdict(set)
    upstream_frames = set()
    unplaced = []
    for line in p.stderr.splitlines():
        if not EPAN_TROUBLE.search(line):
            continue
        bug = DISSECTOR_BUG.search(line)
        at = re.search(r"\bin packet (\d+)\b", line)
        source = batch.input_of(int(at.group(1))) if at else None
        if source is None:
            unplaced.append(line.strip())
        elif bug and bug.group(1) != "MPA":
            upstream[source].add(bug.group(1))
            upstream_frames.add(int(at.group(1)))
        else:
            problems[source].append(f"stderr: {line.strip()}")
    for line in p.stdout.splitlines():
        frame = int(line.split("\t")[0]) if re.match(r"\d+\t", line) else None
        source = batch.input_of(frame) if frame else None
        if source is None:
            unplaced.append(line.strip())
        elif "mpa library" in line or frame not in upstream_frames:
            problems[source].append(f"frame with a dissector bug or library error: {line.strip()} (of the batch "
                                    f"{os.path.basename(batch.path)})")
    if p.returncode == 0 and not unplaced:
        return [(f, "; ".join(problems[f][:5]), upstream[f], p.returncode) for _, _, f in batch.inputs]
    alone = os.path.join(ts.files, "fuzz-alone", os.path.basename(batch.path))
    os.makedirs(alone)
    subprocess.run([args.corpus_to_pcap, batch.target, alone, *[f for _, _, f in batch.inputs]], check=True)
    results = []
    for _, _, f in batch.inputs:
        capture = os.path.join(alone, f"{batch.target}-{os.path.basename(f)}.pcap")
        os.chmod(capture, 0o644)
        results.append((f, *trouble(ts, capture)))
    if not any(r[1] for r in results):
        problem = "; ".join([f"exit status {p.returncode}"] * (p.returncode not in (0, 2)) + unplaced[:5])
        if problem:
            results.append((batch.path, f"only with the batch's other inputs: {problem}", set(), p.returncode))
    return results


DISSECTOR_BUG = re.compile(r"Dissector bug, protocol ([^,:]+)")


def trouble(ts, capture):
    """(problems, upstream dissector bugs, exit status) of tshark -2 with the plugin."""
    p = ts.run_raw("-2", "-r", ts.readable(capture), "-Y", trouble_filter(ts), "-T", "fields",
                   "-e", "frame.number", "-e", "_ws.expert.message")
    problems = []
    if p.returncode < 0 or p.returncode > 2:
        # 0: read; 2: a capture file tshark could not (fully) read. A signal is a crash.
        problems.append(f"exit status {p.returncode}")
    # A dissector bug in a protocol under DDP/RDMAP (RPCoRDMA, iSER, ...) is Wireshark's
    # own: the built-in iwarp_mpa leads to it as well (tests/plugin/upstream/). Ours is MPA.
    upstream = {proto for proto in DISSECTOR_BUG.findall(p.stderr) if proto != "MPA"}
    for line in p.stderr.splitlines():
        bug = DISSECTOR_BUG.search(line)
        if EPAN_TROUBLE.search(line) and not (bug and bug.group(1) in upstream):
            problems.append(f"stderr: {line.strip()}")
    for line in p.stdout.splitlines():
        if "mpa library" in line or not upstream:
            problems.append(f"frame with a dissector bug or library error: {line.strip()}")
    return "; ".join(problems[:5]), upstream, p.returncode


def test_robustness(ts, args):
    # The filter must name real fields: tshark rejects it otherwise (exit status 4), which
    # would make every run below look like a crash-free one without reading a frame.
    sample = sorted(glob.glob(os.path.join(args.captures[0], "*.pcap")))[0] if args.captures else None
    if sample:
        ts.run("-r", ts.readable(sample), "-Y", trouble_filter(ts))
    trouble_filter(ts)  # asked once, before the threads
    batches, captures = robustness_inputs(ts, args)
    # Known Wireshark bugs below DDP/RDMAP, reached through our hand-off and the built-in's.
    known = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream", "*.pcap")))
    for capture in captures + known:
        ts.readable(capture)  # the copies tshark's user reads, made before the threads
    failures = []
    statuses = collections.Counter()
    upstream_seen = collections.Counter()
    # Largest first (the million-SYN flood takes minutes, the rest a second each), so that no
    # worker is left with a long one at the end.
    work = sorted(batches + captures + known, key=lambda w: os.path.getsize(w.path if isinstance(w, Batch) else w),
                  reverse=True)

    def run(w):
        return batch_trouble(ts, args, w) if isinstance(w, Batch) else [(w, *trouble(ts, w))]

    inputs = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        for results in pool.map(run, work):
            for capture, problem, upstream, status in results:
                inputs += 1
                statuses[status] += 1
                upstream_seen.update(upstream)
                if problem:
                    failures.append(f"{capture}: {problem}")
                if upstream:
                    print(f"upstream dissector bug ({', '.join(sorted(upstream))}): {os.path.basename(capture)}")
    print(f"{inputs} inputs ({len(batches)} batches of fuzz inputs, {len(captures) + len(known)} captures): "
          f"{statuses[0]} read whole, {statuses[2]} cut short or unreadable, {len(failures)} with trouble; "
          f"upstream dissector bugs: {dict(upstream_seen)}")
    expect(statuses[0] >= inputs // 2, "most inputs should be readable captures")
    expect(not failures, "tshark with the plugin got into trouble:\n" + "\n".join(failures[:40]))


# ---- messages

MESSAGE_CAPTURES = ["siw6.1-default-rping-1001B-veth1500.pcap", "siw6.1-default-write_bw-65536B-veth1500.pcap",
                    "siw6.1-default-read_bw-4096B-veth1500.pcap", "siw6.1-crc-send_bw-4096B-veth1500.pcap"]
DDP_FAULTS = ["fault-ddp.msn-invalid.pcap", "fault-ddp.message-unfinished.pcap", "fault-rdmap.opcode-misplaced.pcap"]
OPCODE_NAMES = ["rdma_write", "rdma_read_request", "rdma_read_response", "send", "send_invalidate", "send_se",
                "send_se_invalidate", "terminate", "immediate_data", "immediate_data_se", "atomic_request",
                "atomic_response"]


def test_messages(ts, args):
    """The RDMA message each FPDU ends (mpa.message, .opcode, .length, .segments, .first_frame)
    is the message mpa-check --list-messages ends at that frame; ddp.* and rdmap.* findings are
    filterable expert items at the frames mpa-check names."""
    checked = 0
    for name in MESSAGE_CAPTURES:
        capture = siw(args, name)
        expect(capture, f"{name} is missing")
        report = json.loads(subprocess.run([args.mpa_check, "--format", "json", "--list-messages", capture],
                                           capture_output=True, text=True).stdout)
        want = sorted((m["last_frame"], m["opcode"], m["octets"], m["segments"], m["first_frame"])
                      for c in report["captures"][0]["connections"] for m in c.get("message_list", [])
                      if m["complete"])
        got = []
        for r in ts.fields(capture, "frame.number", "mpa.message.opcode", "mpa.message.length",
                           "mpa.message.segments", "mpa.message.first_frame", display_filter="mpa.message"):
            for op, length, segments, first in zip(*(x.split(",") for x in r[1:5])):
                got.append((int(r[0]), OPCODE_NAMES[int(op, 16)], int(length), int(segments), int(first)))
        expect(sorted(got) == want, f"{name}: {len(got)} messages ended in the plugin, {len(want)} by mpa-check; "
                                    f"first differences {[x for x in sorted(got) if x not in want][:3]} / "
                                    f"{[x for x in want if x not in got][:3]}")
        expect(any(m[3] > 1 for m in want) or "rping" in name, f"{name}: no message of several segments")
        checked += len(want)
    reads = ts.frames(siw(args, MESSAGE_CAPTURES[0]), "mpa.message.opcode == 0x1")
    expect(len(reads) == 20, f"mpa.message.opcode == 0x1 selects {len(reads)} frames, want the 20 Read Requests")
    faults = 0
    for name in DDP_FAULTS:
        capture = find_capture(args, name)
        if capture is None:
            continue
        fid = name[len("fault-"):-len(".pcap")]
        report = json.loads(subprocess.run([args.mpa_check, "--format", "json", capture],
                                           capture_output=True, text=True).stdout)
        frames = sorted({f["frame"] for c in report["captures"][0]["connections"] for f in c["findings"]
                         if f["id"] == fid})
        expect(frames, f"{name}: mpa-check names no {fid}")
        expect(ts.frames(capture, f"mpa.{fid}") == frames, f"{name}: mpa.{fid} does not select frames {frames}")
        expect(ts.frames(capture, f'mpa.finding == "{fid}" && mpa.ulpdu') == frames,
               f"{name}: {fid} not in a frame showing its ULPDU")
        faults += 1
    expect(faults == len(DDP_FAULTS), f"only {faults} DDP/RDMAP fault captures found")
    print(f"messages: {checked} messages of {len(MESSAGE_CAPTURES)} captures end where mpa-check ends them; "
          f"{faults} DDP/RDMAP findings filterable")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tshark", required=True)
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--mpa-check", required=True)
    parser.add_argument("--captures", action="append", default=[], help="folder of captures (repeatable)")
    parser.add_argument("--require-markers", action="store_true")
    parser.add_argument("--corpus-to-pcap", help="tests/fuzz/corpus_to_pcap (robustness)")
    parser.add_argument("--fuzz-dir", help="tests/fuzz (robustness)")
    parser.add_argument("--hostile-dir", help="captures the hostile tests wrote (robustness)")
    parser.add_argument("--cache", help="folder for what plugin.dissect's tshark runs found (agreement, experts)")
    parser.add_argument("test", choices=["loads", "descriptions", "single-pass", "fields", "colouring", "tunnels", "agreement", "experts",
                                         "robustness", "dissect", "messages"])
    args = parser.parse_args()
    args.captures = [d for d in args.captures if os.path.isdir(d)]
    with tempfile.TemporaryDirectory(prefix="mpa-plugin-test-") as workdir:
        try:
            ts = Tshark(args.tshark, args.plugin, workdir)
            {"loads": test_loads, "descriptions": test_descriptions,
             "single-pass": test_single_pass, "fields": test_fields, "colouring": test_colouring,
             "tunnels": test_tunnels,
             "agreement": test_agreement,
             "experts": test_experts,
             "robustness": test_robustness, "dissect": test_dissect,
             "messages": test_messages}[args.test](ts, args)
        except Failure as e:
            print(f"FAIL: {e}", file=sys.stderr)
            return 1
    print(f"PASS: {args.test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
