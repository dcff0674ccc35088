#!/usr/bin/env python3
"""mpa-check's command line as CI and people use it, through the real binary.

  cli_test.py MPA_CHECK CAPTURES_DIR SIW_DIR WORKDIR CHECK

CHECK is one of: junit-agrees, require-mpa, suppressions, baseline, parallel, text
(see each function). Findings are asserted by catalogue id.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from sarif_schemas import sarif_validators


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def run(mpa_check, *args, cwd=None):
    p = subprocess.run([mpa_check, *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def json_report(mpa_check, *args, cwd=None):
    code, out, err = run(mpa_check, "--format", "json", *args, cwd=cwd)
    expect(code in (0, 1), f"mpa-check exited {code}: {err}")
    return code, json.loads(out)


def ids(report, severities=("error", "warning"), suppressed=None):
    """(capture, id) of the findings of the given severities."""
    out = []
    for cap in report["captures"]:
        for conn in cap["connections"]:
            for f in conn["findings"]:
                if f["severity"] in severities and (suppressed is None or ("suppressed" in f) == suppressed):
                    out.append((cap["file"], f["id"]))
    return out


def junit_failures(xml_text):
    root = ET.fromstring(xml_text)
    cases = [c for c in root.iter("testcase") if c.find("failure") is not None]
    declared = sum(int(s.get("failures")) for s in root.iter("testsuite"))
    return cases, declared, root


def check_junit_agrees(a):
    """Exit status and JUnit failures agree for every --fail-on, warnings in system-out."""
    warnings_only = os.path.join(a.siw, "siw6.1-default-send_bw-4096B-veth1500.pcap")  # fpdu.pad-nonzero
    errors = os.path.join(a.siw, "siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap")
    junit = os.path.join(a.work, "out.xml")
    for fail_on in ("error", "warning"):
        for capture in (warnings_only, errors):
            code, _, err = run(a.mpa_check, "--fail-on", fail_on, "--junit", junit, capture)
            cases, declared, root = junit_failures(open(junit).read())
            expect(code in (0, 1), f"exit {code}: {err}")
            expect((code == 1) == bool(cases),
                   f"--fail-on {fail_on} {os.path.basename(capture)}: exit {code} but {len(cases)} failed test cases")
            expect(declared == len(cases), f"failures attribute {declared} != {len(cases)} failing cases")
            out_text = "".join(e.text or "" for e in root.iter("system-out"))
            if fail_on == "error" and capture == warnings_only:
                expect(code == 0 and "[fpdu.pad-nonzero]" in out_text,
                       f"warnings must show in system-out when they do not fail the run:\n{out_text}")
            if fail_on == "warning" and capture == warnings_only:
                types = [c.find("failure").get("type") for c in cases]
                expect(code == 1 and "fpdu.pad-nonzero" in types, f"pad warning must fail: {types}")
    # --junit - writes the XML to standard output instead of the report.
    code, out, _ = run(a.mpa_check, "--junit", "-", errors)
    cases, _, _ = junit_failures(out)
    expect(code == 1 and cases and cases[0].find("failure").get("type") == "fpdu.crc-mismatch",
           "--junit - must write JUnit with the CRC failure to stdout")
    expect(not os.path.exists("-"), "--junit - must not create a file named -")


def first_records(src, dst, count):
    """A copy of a classic pcap with only its first `count` records."""
    with open(src, "rb") as f:
        data = f.read()
    magic = data[:4]
    endian = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    at = 24
    for _ in range(count):
        incl = struct.unpack(endian + "I", data[at + 8:at + 12])[0]
        at += 16 + incl
    with open(dst, "wb") as f:
        f.write(data[:at])


def check_require_mpa(a):
    """A capture without MPA passes by default and fails with --require-mpa (text, JUnit)."""
    src = os.path.join(a.captures, "valid-rev1-markers-none-crc-on.pcap")
    handshake = os.path.join(a.work, "handshake-only.pcap")
    first_records(src, handshake, 3)  # SYN, SYN-ACK, ACK: no startup frame, no MPA
    code, report = json_report(a.mpa_check, handshake)
    expect(code == 0 and report["summary"]["connections"] == 0, f"plain TCP: exit {code}")
    code, out, _ = run(a.mpa_check, "--require-mpa", handshake)
    expect(code == 1 and "no MPA connection" in out, f"--require-mpa: exit {code}\n{out}")
    code, out, _ = run(a.mpa_check, "--require-mpa", "--junit", "-", handshake)
    cases, declared, _ = junit_failures(out)
    expect(code == 1 and declared == 1 and cases[0].get("name") == "MPA present", out)
    code, _, _ = run(a.mpa_check, "--require-mpa", src)
    expect(code == 0, f"a clean MPA capture with --require-mpa must pass, exit {code}")


def check_no_mpa_said(a):
    """A capture of TCP without MPA (HTTP downloads) passes, but its line says that no MPA was
    seen and in how many TCP connections; --require-mpa fails it with the same line."""
    http = os.path.join(a.captures, "valid-non-mpa-http-downloads.pcap")
    code, out, _ = run(a.mpa_check, "--color", "never", http)
    expect(code == 0 and f"{http}: ok: 35 frames, no MPA traffic found in 2 TCP connections;" in out,
           f"exit {code}\n{out}")
    code, out, _ = run(a.mpa_check, "--color", "never", "--require-mpa", http)
    expect(code == 1 and f"{http}: FAIL: 35 frames, no MPA traffic found in 2 TCP connections;" in out,
           f"--require-mpa: exit {code}\n{out}")
    mpa = os.path.join(a.captures, "valid-rev1-markers-none-crc-on.pcap")
    code, out, _ = run(a.mpa_check, "--color", "never", mpa)
    expect("1 connection with MPA;" in out and "no MPA traffic" not in out, out)


def check_live_only_refused(a):
    """Options that only a live capture uses (-w, -f, --duration) are refused on files with the
    reason, as are two reports for standard output (--format json and --junit/--sarif/--html -,
    which dropped the JSON): a usage error (2), nothing on stdout."""
    capture = os.path.join(a.captures, "valid-rev1-markers-none-crc-on.pcap")
    cases = ((["-w", os.path.join(a.work, "kept.pcapng")], "-w keeps a live capture; give it with -i"),
             (["-f", "tcp port 4420"], "-f filters a live capture; give it with -i"),
             (["--filter", "tcp"], "-f filters a live capture; give it with -i"),
             (["--duration", "3"], "--duration bounds a live capture; give it with -i"))
    for args, reason in cases:
        code, out, err = run(a.mpa_check, *args, capture)
        expect(code == 2 and out == "" and f"mpa-check: {reason}" in err, f"{args}: exit {code}\n{out}{err}")
    for report in ("--junit", "--sarif", "--html"):
        code, out, err = run(a.mpa_check, "--format", "json", report, "-", capture)
        expect(code == 2 and out == "" and "--format json writes to standard output" in err,
               f"--format json {report} -: exit {code}\n{err}")
    # Each alone on standard output, or with the JSON, still works.
    code, out, _ = run(a.mpa_check, "--format", "json", "--junit", os.path.join(a.work, "j.xml"), capture)
    expect(code == 0 and json.loads(out)["captures"], f"exit {code}")
    code, out, _ = run(a.mpa_check, "--junit", "-", capture)
    expect(code == 0 and ET.fromstring(out) is not None, f"exit {code}")


def check_junit_worst(a):
    """A JUnit failure's type (and message) is its connection's worst finding, not its first: a
    warning found before an error (--fail-on warning) gives the error's id. The report is made
    --from-json from a real one with a pad warning put before the CRC error."""
    bad = os.path.join(a.siw, BADCRC)
    warned = os.path.join(a.siw, "siw6.1-default-send_bw-4096B-veth1500.pcap")  # fpdu.pad-nonzero
    _, report = json_report(a.mpa_check, bad, warned)
    bad_cap, warned_cap = report["captures"]
    warning = next(f for k in warned_cap["connections"] for f in k["findings"] if f["severity"] == "warning")
    conn = next(k for k in bad_cap["connections"] if any(f["severity"] == "error" for f in k["findings"]))
    first_error = next(f for f in conn["findings"] if f["severity"] == "error")
    warning["frame"] = warning["certain_at"] = first_error["frame"] - 1
    conn["findings"].insert(conn["findings"].index(first_error), warning)
    report["captures"] = [bad_cap]
    shard = os.path.join(a.work, "warning-first.json")
    with open(shard, "w") as f:
        json.dump(report, f)
    code, out, err = run(a.mpa_check, "--from-json", shard, "--fail-on", "warning", "--junit", "-")
    cases, _, _ = junit_failures(out)
    case = next(c for c in cases if c.get("name").startswith(f"connection {conn['id']} "))
    failure = case.find("failure")
    expect(code == 1 and failure.get("type") == first_error["id"], f"exit {code}: type {failure.get('type')}\n{err}")
    expect(failure.text.startswith("warning: ") and "fpdu.pad-nonzero" in failure.text, failure.text)


def check_suppressions(a):
    """Rules by id, capture glob and stack; counted and listed as suppressed in every format;
    an unused rule is reported; a bad file is a usage error with its line."""
    badcrc = os.path.join(a.siw, "siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap")
    pads = os.path.join(a.siw, "siw6.1-default-send_bw-4096B-veth1500.pcap")
    rules = os.path.join(a.work, "rules")
    with open(rules, "w") as f:
        f.write('# accepted deviations\n'
                'id=fpdu.pad-nonzero stack="Linux siw" reason="siw pads perftest control FPDUs"\n'
                'id=fpdu.crc-mismatch capture="*badcrc*" reason="the probe corrupts this CRC on purpose"\n'
                'id=marker.unexpected reason="never happens here"\n')
    code, report = json_report(a.mpa_check, "--suppress", rules, badcrc, pads)
    expect(code == 0, f"the only error is suppressed: exit {code}")
    active = set(i for _, i in ids(report, suppressed=False))
    expect(active == {"rdmap.terminate-encoding"}, f"active findings: {active}")
    code, _ = json_report(a.mpa_check, badcrc, pads)
    expect(code == 1, "without the rules the CRC error fails the run")
    suppressed = set(i for _, i in ids(report, suppressed=True))
    expect({"fpdu.pad-nonzero", "fpdu.crc-mismatch"} <= suppressed, f"suppressed: {suppressed}")
    unused = [u["id"] for u in report["summary"]["unused_suppressions"]]
    expect(unused == ["marker.unexpected"], f"unused rules: {unused}")
    expect(report["summary"]["suppressed"]["errors"] == 1, report["summary"])


def check_suppression_text_and_errors(a):
    pads = os.path.join(a.siw, "siw6.1-default-send_bw-4096B-veth1500.pcap")
    rules = os.path.join(a.work, "rules2")
    with open(rules, "w") as f:
        f.write('id=fpdu.pad-nonzero stack="Linux siw" reason="accepted"\nid=marker.unexpected reason="x"\n')
    code, out, err = run(a.mpa_check, "--suppress", rules, "--fail-on", "warning", pads)
    expect(code == 0, f"exit {code}\n{out}")
    expect("[fpdu.pad-nonzero]" not in out, f"suppressed findings are not listed by default:\n{out}")
    expect("2 suppressed" in out, f"the capture line counts suppressed findings:\n{out}")
    expect(f"{rules}:2: unused: suppression rule matched nothing" in err and "matched nothing" not in out,
           f"unused rule not reported on stderr:\n{err}")
    # The default file in the working folder is used; --no-suppress ignores it.
    shutil.copy(rules, os.path.join(a.work, ".mpa-check-suppressions"))
    code, _, _ = run(a.mpa_check, "--fail-on", "warning", pads, cwd=a.work)
    expect(code == 0, f"default suppression file not used, exit {code}")
    code, _, _ = run(a.mpa_check, "--fail-on", "warning", "--no-suppress", pads, cwd=a.work)
    expect(code == 1, f"--no-suppress must ignore it, exit {code}")
    os.remove(os.path.join(a.work, ".mpa-check-suppressions"))
    for bad, why in (('id=fpdu.pad-nonzero\n', "reason"), ('id=no.such-id reason="x"\n', "unknown id"),
                     ('id=fpdu.pad-nonzero reason="x" colour=red\n', "unknown key")):
        with open(rules, "w") as f:
            f.write("# comment\n" + bad)
        code, out, err = run(a.mpa_check, "--suppress", rules, pads)
        expect(code == 2 and f"{rules}:2:" in err and why in err, f"bad rule {bad!r}: exit {code}: {err}")


def check_baseline(a):
    """--write-baseline accepts the run (exit 0, reported with it): the same captures then pass
    with --fail-on warning, and say the same."""
    caps = [os.path.join(a.siw, n) for n in ("siw6.1-default-send_bw-4096B-veth1500.pcap",
                                              "siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap")]
    base = os.path.join(a.work, "baseline")
    code, _ = json_report(a.mpa_check, "--fail-on", "warning", caps[1])
    expect(code == 1, f"without a baseline the run fails, exit {code}")
    code, written, err = run(a.mpa_check, "--fail-on", "warning", "--write-baseline", base, *caps)
    expect(code == 0 and f"wrote {base}" in err, f"the run that writes the baseline exits 0, exit {code}: {err}")
    text = open(base).read()
    expect("id=fpdu.crc-mismatch" in text and "count=1" in text and "reason=" in text, text)
    code, out, err = run(a.mpa_check, "--fail-on", "warning", "--suppress", base, *caps)
    expect(code == 0 and "matched nothing" not in out + err, f"with the baseline: exit {code}\n{out}{err}")
    expect(out == written, f"the run that wrote the baseline and the next one differ:\n{written}\n{out}")


def check_parallel(a):
    """Folders are searched recursively; -j 2 gives the same report, in the same order."""
    code1, one = json_report(a.mpa_check, a.siw)
    code2, two = json_report(a.mpa_check, "-j", "2", a.siw)
    files = [c["file"] for c in one["captures"]]
    expect(len(files) >= 10 and files == sorted(files), f"folder expansion: {files[:3]}...")
    expect(code1 == code2 and one == two, "-j 2 report differs from -j 1")
    code, _, err = run(a.mpa_check, os.path.join(a.work, "does-not-exist.pcap"))
    expect(code == 2 and "does-not-exist.pcap: no such file" in err, err)


def check_read_threads(a):
    """A thread of its own for reading (--read-threads 2) gives the report that one thread
    gives, byte for byte, over the bundled captures: among them tunnelled segments, IP
    fragments and frames that are not TCP, which cross from the reading thread otherwise
    than plain TCP segments do."""
    outputs = []
    for threads in ("1", "2"):
        code, out, err = run(a.mpa_check, "--format", "json", "--read-threads", threads,
                             a.captures, a.siw)
        expect(code == 1, f"--read-threads {threads}: exit {code}: {err}")
        outputs.append(out)
    expect(outputs[0] == outputs[1], "--read-threads 2 report differs from --read-threads 1")
    captures = json.loads(outputs[0])["captures"]
    def count(value):
        return sum(value.values()) if isinstance(value, dict) else value
    for key in ("tunnelled_segments", "ip_datagrams", "not_tcp", "tcp_segments"):
        expect(any(count(c[key]) for c in captures), f"no capture has {key}: the check sees too little")


def check_text(a):
    """Errors and warnings lead, notes hidden unless asked, repeats folded, plurals, colour."""
    gso = os.path.join(a.siw, "siw6.1-gso-rping-65535B-veth1500.pcap")  # 37 ulpdu-length-too-large
    code, out, _ = run(a.mpa_check, "--color", "never", gso)
    lines = out.splitlines()
    listed = [l for l in lines if l.endswith("[fpdu.ulpdu-length-too-large]")]
    expect(len(listed) == 4 and "... and 34 more like this" in listed[-1], "\n".join(listed))
    expect(not any(": note: " in l for l in lines), "notes listed without --notes")
    expect(any("startup.revision-2 2" in l for l in lines), "notes must still be counted by id")
    expect(not any("\033[" in l for l in lines), "colour with --color never")
    code, out, _ = run(a.mpa_check, "--notes", "--color", "always", gso)
    expect(": \033[1;36mnote\033[0m: " in out, "notes with --notes, coloured with --color always")
    code, out, _ = run(a.mpa_check, "--fold", "100", gso)
    expect(sum(l.endswith("[fpdu.ulpdu-length-too-large]") for l in out.splitlines()) == 37, "--fold 100")
    one = os.path.join(a.siw, "siw6.1-default-rping-1001B-veth1500.pcap")
    code, out, _ = run(a.mpa_check, one)
    expect("1 connection with MPA; 0 errors, 0 warnings" in out and "1 capture, 1 MPA connection:" in out, out)
    line = re.compile(r"^[^:]+\.pcap:\d+: (error|warning|note): .+ \[[a-z]+\.[a-z0-9-]+\]$")
    code, out, _ = run(a.mpa_check, "--color", "never", "--notes", a.siw)
    for l in out.splitlines():
        if re.match(r"^[^:]+\.pcap:\d+: ", l):
            expect(line.match(l), f"not greppable: {l}")


def check_streaming(a):
    """Reading a pipe, a finding is printed as soon as it is certain, before the input ends:
    pcap (libpcap) and pcapng (read block by block)."""
    import select
    capture = os.path.join(a.siw, "siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap")
    inputs = [capture]
    if shutil.which("editcap"):
        inputs.append(os.path.join(a.work, "streamed.pcapng"))
        subprocess.run(["editcap", "-F", "pcapng", capture, inputs[-1]], check=True)
    for path in inputs:
        data = open(path, "rb").read()
        p = subprocess.Popen([a.mpa_check, "--color", "never", "-"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=False)
        p.stdin.write(data[:-200])  # all but the last records: the CRC error is in frame 8 of 12
        p.stdin.flush()
        ready, _, _ = select.select([p.stdout], [], [], 10)
        expect(ready, f"{os.path.basename(path)}: nothing printed while the input is still open")
        line = p.stdout.readline().decode()
        expect("[fpdu.crc-mismatch]" in line and line.startswith("<stdin>:8: error:"), f"first line: {line!r}")
        p.stdin.write(data[-200:])
        p.stdin.close()
        rest = p.stdout.read().decode()
        code = p.wait()
        expect(code == 1 and "<stdin>: FAIL:" in rest and rest.count("[fpdu.crc-mismatch]") == 0,
               f"the summary follows, the finding is not repeated (exit {code}):\n{rest}")


def findings_of(report):
    return sorted((f["frame"], f["id"], f["direction"]) for cap in report["captures"]
                  for conn in cap["connections"] for f in conn["findings"])


def check_captures_as_users_have_them(a):
    """.pcap.gz, .pcap.zst and .pcap.lz4 read as Wireshark reads them (files, folders and pipes);
    raw IP as DLT 14 (OpenBSD's number); a cut-short compressed file is named and what
    was read before is still reported."""
    import gzip
    capture = os.path.join(a.siw, "siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap")
    _, plain = json_report(a.mpa_check, capture)
    want = findings_of(plain)
    expect(("fpdu.crc-mismatch" in [i for _, i, _ in want]), "the reference has its CRC error")
    folder = os.path.join(a.work, "packed")
    os.makedirs(folder)
    gz = os.path.join(folder, "x.pcap.gz")
    with open(capture, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    _, got = json_report(a.mpa_check, gz)
    expect(findings_of(got) == want, f".pcap.gz: {findings_of(got)}")
    p = subprocess.run([a.mpa_check, "--format", "json", "-"], stdin=open(gz, "rb"), capture_output=True, text=True)
    expect(findings_of(json.loads(p.stdout)) == want, "gzip on standard input")
    if shutil.which("zstd"):
        zst = os.path.join(folder, "x.pcap.zst")
        subprocess.run(["zstd", "-q", "-f", capture, "-o", zst], check=True)
        _, got = json_report(a.mpa_check, zst)
        expect(findings_of(got) == want, f".pcap.zst: {findings_of(got)}")
    if shutil.which("lz4"):
        lz4 = os.path.join(folder, "x.pcap.lz4")
        subprocess.run(["lz4", "-q", "-f", capture, lz4], check=True)
        _, got = json_report(a.mpa_check, lz4)
        expect(findings_of(got) == want, f".pcap.lz4: {findings_of(got)}")
        p = subprocess.run([a.mpa_check, "--format", "json", "-"], stdin=open(lz4, "rb"), capture_output=True, text=True)
        expect(findings_of(json.loads(p.stdout)) == want, "lz4 on standard input")
    _, listed = json_report(a.mpa_check, folder)
    packed = 1 + bool(shutil.which("zstd")) + bool(shutil.which("lz4"))
    expect(len(listed["captures"]) == packed, f"folders find compressed captures: {len(listed['captures'])}")
    expect(all(findings_of({"captures": [c]}) == want for c in listed["captures"]),
           "each compressed capture in the folder gives the plain capture's findings")
    # A .gz cut in the middle: exit 2, the file named, the findings before the cut kept.
    data = open(gz, "rb").read()
    cut = os.path.join(a.work, "cut.pcap.gz")
    open(cut, "wb").write(data[:int(len(data) * 0.8)])
    code, out, err = run(a.mpa_check, "--format", "json", cut)
    expect(code == 2 and "cut.pcap.gz" in err, f"cut .gz: exit {code}: {err}")
    expect(json.loads(out)["captures"][0]["frames"] > 0, "what was read before the cut is reported")
    expect("truncated record (the gzip stream ends early)" in err, f"cut .gz: {err}")
    # Cut inside the last member, after the last record's octets: still cut short (the
    # decompressor is inside a member when the file ends), every record read reported.
    open(cut, "wb").write(data[:-4])
    code, out, err = run(a.mpa_check, "--format", "json", cut)
    expect(code == 2 and "cut.pcap.gz: record 13: truncated record (the gzip stream ends early)" in err,
           f".gz without its trailer: exit {code}: {err}")
    expect(json.loads(out)["captures"][0]["frames"] == 12, "its 12 records reported")
    # A damaged stream is named as such.
    damaged = bytearray(data)
    damaged[len(damaged) // 2] ^= 0xFF
    open(cut, "wb").write(damaged)
    code, out, err = run(a.mpa_check, "--format", "json", cut)
    expect(code == 2 and "cut.pcap.gz" in err and "gzip stream" in err, f"damaged .gz: exit {code}: {err}")
    # Raw IP with link type 14: the same capture without its Ethernet headers.
    raw = bytearray(open(capture, "rb").read())
    out_bytes = bytearray(raw[:24])
    struct.pack_into("<I", out_bytes, 20, 14)
    at = 24
    while at + 16 <= len(raw):
        ts_s, ts_u, incl, orig = struct.unpack_from("<IIII", raw, at)
        frame = raw[at + 16:at + 16 + incl]
        out_bytes += struct.pack("<IIII", ts_s, ts_u, incl - 14, orig - 14) + frame[14:]
        at += 16 + incl
    dlt14 = os.path.join(a.work, "raw14.pcap")
    open(dlt14, "wb").write(out_bytes)
    _, got = json_report(a.mpa_check, dlt14)
    expect(findings_of(got) == want, f"DLT 14: {findings_of(got)}")


def relink(src, dst, kind):
    """A copy of an Ethernet pcap as Linux cooked (SLL, LINKTYPE 113) or raw IP (101):
    the capture a `tcpdump -i any` or a tun interface would have made of the same traffic."""
    raw = open(src, "rb").read()
    out = bytearray(raw[:24])
    struct.pack_into("<I", out, 20, {"sll": 113, "raw": 101}[kind])
    at = 24
    while at + 16 <= len(raw):
        ts_s, ts_u, incl, orig = struct.unpack_from("<IIII", raw, at)
        frame = raw[at + 16:at + 16 + incl]
        at += 16 + incl
        ethernet, rest = frame[:14], frame[14:]
        # SLL: packet type, ARPHRD_ETHER, address length, the sender's address, protocol.
        head = struct.pack(">HHH", 0, 1, 6) + ethernet[6:12] + b"\0\0" + ethernet[12:14] if kind == "sll" else b""
        out += struct.pack("<IIII", ts_s, ts_u, len(head) + len(rest), orig - 14 + len(head)) + head + rest
    open(dst, "wb").write(out)


def pcapng_interfaces(path):
    """Wireshark's interface id of every frame (tshark), in frame order."""
    p = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.interface_id"],
                       capture_output=True, text=True, check=True)
    return [int(l) for l in p.stdout.split()]


def set_interface_snaplen(path, interface, snaplen):
    """mergecap writes 262144 as every interface's snaplen; dumpcap -s 200 writes 200."""
    data = bytearray(open(path, "rb").read())
    at, seen = 0, -1
    while at < len(data):
        block_type, length = struct.unpack_from("<II", data, at)
        if block_type == 1:
            seen += 1
            if seen == interface:
                struct.pack_into("<I", data, at + 12, snaplen)
        at += length
    open(path, "wb").write(data)


def merged_expectation(a, inputs, merged):
    """The findings of each input analysed alone, their frames renumbered as in `merged`
    (mergecap -I none: input i is interface i, its frames in their order)."""
    order = pcapng_interfaces(merged)
    renumber = {}
    seen = {}
    for frame, interface in enumerate(order, 1):
        seen[interface] = seen.get(interface, 0) + 1
        renumber[(interface, seen[interface])] = frame
    want = []
    for i, path in enumerate(inputs):
        _, alone = json_report(a.mpa_check, path)
        want += [(renumber[(i, frame)], fid, direction) for frame, fid, direction in findings_of(alone)]
    return sorted(want)


def same_from_everywhere(a, path, want, what):
    """`path` read plain, gzip'd, zstd'd, lz4'd, and each from standard input, gives `want`."""
    import gzip
    gz = path + ".gz"
    with open(path, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    variants = [path, gz]
    if shutil.which("zstd"):
        subprocess.run(["zstd", "-q", "-f", path, "-o", path + ".zst"], check=True)
        variants.append(path + ".zst")
    if shutil.which("lz4"):
        subprocess.run(["lz4", "-q", "-f", path, path + ".lz4"], check=True)
        variants.append(path + ".lz4")
    for v in variants:
        code, out, err = run(a.mpa_check, "--format", "json", v)
        expect(code in (0, 1), f"{what} {os.path.basename(v)}: exit {code}: {err}")
        got = findings_of(json.loads(out))
        expect(got == want, f"{what} {os.path.basename(v)}: {got}\nwant {want}")
        p = subprocess.run([a.mpa_check, "--format", "json", "-"], stdin=open(v, "rb"), capture_output=True, text=True)
        expect(p.returncode in (0, 1), f"{what} {os.path.basename(v)} on standard input: exit {p.returncode}: {p.stderr}")
        got = findings_of(json.loads(p.stdout))
        expect(got == want, f"{what} {os.path.basename(v)} on standard input: {got}")


def check_mixed_interfaces(a):
    """pcapng files with interfaces of different link types and snaplens (what `dumpcap -i lo
    -i eth0` and mergecap write, which libpcap 1.10 refuses) and with several sections are
    analysed as their single-interface parts are alone: the same findings (frame, id,
    direction), frames numbered as Wireshark numbers them; plain, .gz, .zst, .lz4, from files
    and from standard input."""
    expect(shutil.which("mergecap") and shutil.which("tshark"), "mergecap and tshark (wireshark-common, tshark) are needed")
    ethernet = os.path.join(a.siw, "siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap")
    sll = os.path.join(a.work, "send_bw-sll.pcap")
    relink(os.path.join(a.siw, "siw6.1-default-send_bw-4096B-veth1500.pcap"), sll, "sll")
    raw = os.path.join(a.work, "rping-ipv6-raw.pcap")
    relink(os.path.join(a.siw, "siw6.1-default-rping-64B-veth1500-ipv6.pcap"), raw, "raw")
    inputs = [ethernet, sll, raw]
    for path in inputs:
        _, alone = json_report(a.mpa_check, path)
        expect(findings_of(alone), f"{os.path.basename(path)} alone has findings to compare")

    # Ethernet, Linux cooked and raw IP interfaces in one file, interleaved by time stamp.
    mixed = os.path.join(a.work, "mixed-links.pcapng")
    subprocess.run(["mergecap", "-I", "none", "-w", mixed, *inputs], check=True)
    expect(sorted(set(pcapng_interfaces(mixed))) == [0, 1, 2], "three interfaces")
    want = merged_expectation(a, inputs, mixed)
    same_from_everywhere(a, mixed, want, "mixed link types")

    # Two Ethernet interfaces with different snaplens: one captured with -s 200.
    cut = os.path.join(a.work, "rping-200.pcap")
    subprocess.run(["editcap", "-s", "200", os.path.join(a.siw, "siw6.1-default-rping-1001B-veth1500.pcap"), cut], check=True)
    _, alone = json_report(a.mpa_check, cut)
    expect(any(i == "capture.truncated" for _, i, _ in findings_of(alone)), "snaplen 200 cuts FPDUs")
    snaps = os.path.join(a.work, "mixed-snaplens.pcapng")
    subprocess.run(["mergecap", "-I", "none", "-w", snaps, ethernet, cut], check=True)
    set_interface_snaplen(snaps, 1, 200)
    want = merged_expectation(a, [ethernet, cut], snaps)
    same_from_everywhere(a, snaps, want, "mixed snaplens")

    # Two sections (two pcapng files one after the other): frames numbered on.
    first = os.path.join(a.work, "first.pcapng")
    second = os.path.join(a.work, "second.pcapng")
    subprocess.run(["editcap", "-F", "pcapng", ethernet, first], check=True)
    subprocess.run(["editcap", "-F", "pcapng", sll, second], check=True)
    sections = os.path.join(a.work, "sections.pcapng")
    with open(sections, "wb") as out:
        out.write(open(first, "rb").read() + open(second, "rb").read())
    frames = len(pcapng_interfaces(first))
    _, one = json_report(a.mpa_check, first)
    _, two = json_report(a.mpa_check, second)
    want = sorted(findings_of(one) + [(frame + frames, fid, d) for frame, fid, d in findings_of(two)])
    expect(len(pcapng_interfaces(sections)) == frames + len(pcapng_interfaces(second)), "tshark reads both sections")
    same_from_everywhere(a, sections, want, "two sections")

    # Damage after the first records: the file and record named, what came before reported.
    data = open(mixed, "rb").read()
    bad = os.path.join(a.work, "cut-mixed.pcapng")
    open(bad, "wb").write(data[:len(data) * 2 // 3])
    code, out, err = run(a.mpa_check, "--format", "json", bad)
    expect(code == 2 and re.search(r"cut-mixed\.pcapng: record \d+: truncated record", err), f"cut mixed: exit {code}: {err}")
    expect(json.loads(out)["captures"][0]["frames"] > 0, "what was read before the cut is reported")


def check_pcapng_as_pcap(a):
    """Every real siw capture and every bundled capture, converted to pcapng by editcap (read
    block by block, not by libpcap), gives the same report as the pcap (read by libpcap):
    frames, counts, every connection and finding."""
    expect(shutil.which("editcap"), "editcap (wireshark-common) is needed")
    captures = sorted(os.path.join(d, f) for d in (a.siw, a.captures) for f in os.listdir(d) if f.endswith(".pcap"))
    expect(len(captures) > 20, "captures found")
    for path in captures:
        converted = os.path.join(a.work, os.path.basename(path) + "ng")
        subprocess.run(["editcap", "-F", "pcapng", path, converted], check=True)
        reports = []
        for p in (path, converted):
            code, out, err = run(a.mpa_check, "--format", "json", "--infer-all", p)
            expect(code in (0, 1), f"{os.path.basename(p)}: exit {code}: {err}")
            cap = json.loads(out)["captures"][0]
            cap.pop("file")
            reports.append(cap)
        expect(reports[0] == reports[1], f"{os.path.basename(path)}: pcapng differs from pcap")
        os.remove(converted)


def write_pcap(path, frames):
    """A classic Ethernet pcap of `frames` (bytes each), microsecond timestamps."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, frame in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000, i, len(frame), len(frame)))
            f.write(frame)


def check_tunnels(a):
    """A tunnel is named with its connection; frames not decoded are counted by reason in the
    capture line, the JSON and the HTML report, and a warning says when they may hide TCP."""
    vxlan = os.path.join(a.captures, "fault-fpdu.crc-mismatch--vxlan.pcap")
    code, out, _ = run(a.mpa_check, "-v", "--color", "never", vxlan)
    expect(code == 1 and "in vxlan vni 42 198.51.100.1->198.51.100.2, frames" in out, out)
    expect("may carry TCP" not in out, out)
    # Through a pipe (findings and connections printed as they end) the tunnel is named too.
    p = subprocess.run([a.mpa_check, "-v", "--color", "never", "-"], stdin=open(vxlan, "rb"),
                       capture_output=True, text=True)
    expect(p.returncode == 1 and "in vxlan vni 42 198.51.100.1->198.51.100.2, frames" in p.stdout, p.stdout)
    _, report = json_report(a.mpa_check, vxlan)
    cap = report["captures"][0]
    expect(cap["connections"][0]["tunnel"] == "vxlan vni 42 198.51.100.1->198.51.100.2", cap["connections"][0]["tunnel"])
    expect(cap["tunnelled_segments"] == cap["tcp_segments"] == cap["frames"], str(cap))
    # GRE carrying PPP (not decoded), one ARP frame, one UDP datagram.
    eth = bytes(12)
    ip = lambda proto, payload: struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0x4000, 64, proto, 0,
                                            bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + payload
    gre_ppp = eth + b"\x08\x00" + ip(47, b"\x00\x00\x88\x0b" + bytes(40))
    arp = eth + b"\x08\x06" + bytes(46)
    udp = eth + b"\x08\x00" + ip(17, struct.pack(">HHHH", 5000, 53, 16, 0) + bytes(8))
    hidden = os.path.join(a.work, "gre-ppp.pcap")
    write_pcap(hidden, [arp, gre_ppp, udp, gre_ppp])
    code, out, _ = run(a.mpa_check, "--color", "never", hidden)
    expect(code == 0, out)
    expect("0 TCP segments; not TCP: other EtherType 1, other IP protocol 1, tunnel payload not decoded 2" in out, out)
    expect(f"{hidden}: warning: 2 frames may carry TCP that was not analysed (tunnel payload not decoded 2; "
           "first: frame 2, tunnel payload type 0x880b not decoded)" in out, out)
    _, report = json_report(a.mpa_check, hidden)
    cap = report["captures"][0]
    expect(cap["not_tcp"] == {"other_ethertype": 1, "other_ip_protocol": 1, "tunnel_payload": 2, "too_deep": 0,
                              "unsupported_link_type": 0, "malformed": 0, "ip_fragments": 0}, str(cap["not_tcp"]))
    expect(cap["unreached_frames"] == 2 and cap["first_unreached_frame"] == 2
           and "may carry TCP" in cap["capture_warning"], str(cap))
    html = os.path.join(a.work, "report.html")
    run(a.mpa_check, "--html", html, hidden, vxlan)
    with open(html, encoding="utf-8") as f:
        page = f.read()
    expect("warning: 2 frames may carry TCP" in page and "in vxlan vni 42" in page, "HTML report")
    # A plain capture says nothing of tunnels.
    _, report = json_report(a.mpa_check, os.path.join(a.captures, "valid-vlan.pcap"))
    cap = report["captures"][0]
    expect(cap["unreached_frames"] == 0 and cap["capture_warning"] is None, str(cap))
    expect(cap["connections"][0]["tunnel"] is None, str(cap["connections"][0]))


def check_ip_fragments(a):
    """IP fragments reassembled: the capture line says how many, the JSON counts them, and a
    datagram never completed is a capture gap (a note), not an error."""
    fragmented = os.path.join(a.captures, "fault-fpdu.crc-mismatch--ip-fragments.pcap")
    code, out, _ = run(a.mpa_check, "--color", "never", fragmented)
    expect(code == 1, out)
    expect(f"{fragmented}:   47 TCP segments (9 reassembled from 27 IP fragments)\n" in out, out)
    expect(f"{fragmented}:24: error: FPDU at seq" in out, out)
    _, report = json_report(a.mpa_check, fragmented)
    cap = report["captures"][0]
    expect((cap["tcp_segments"], cap["reassembled_segments"], cap["ip_datagrams"], cap["ip_datagrams_incomplete"],
            cap["not_tcp"]["ip_fragments"]) == (47, 9, 9, 0, 27), str(cap))
    expect(cap["frames"] + cap["ip_datagrams"] == cap["tcp_segments"] + cap["not_tcp"]["ip_fragments"], str(cap))
    lost = os.path.join(a.captures, "fault-capture.ip-fragment.pcap")
    code, out, _ = run(a.mpa_check, "--color", "never", "--notes", lost)
    expect(code == 0, out)
    expect("(0 reassembled from 1 IP fragment, 1 IP datagram incomplete)" in out, out)
    expect(re.search(r":18: note: IPv4 datagram 192\.0\.2\.10:\d+ -> 192\.0\.2\.20:20049 \(TCP, id 0x[0-9a-f]{4}\) "
                     r"given up at the capture's end with 528 octets from 1 fragment \(frame 18\); its last fragment "
                     r"was not captured .*\[capture\.ip-fragment\]", out), out)
    expect("[capture.gap]" in out, out)
    _, report = json_report(a.mpa_check, lost)
    cap = report["captures"][0]
    expect(cap["ip_datagrams_incomplete"] == 1 and [f["id"] for f in cap["findings"]] == ["capture.ip-fragment"],
           str(cap))
    overlap = os.path.join(a.captures, "fault-ip.fragment-overlap-mismatch.pcap")
    code, out, _ = run(a.mpa_check, "--color", "never", overlap)
    expect(code == 1 and ":19: error: IPv4 fragment " in out and "[ip.fragment-overlap-mismatch]" in out, out)


BADCRC = "siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap"  # fpdu.crc-mismatch, rdmap.terminate-encoding
GSO = "siw6.1-gso-rping-65535B-veth1500.pcap"  # 37 fpdu.ulpdu-length-too-large, 2 startup.reserved-bit-siw-gso


def totals_line(out):
    """(errors, warnings, suppressed) from the text report's last line."""
    m = re.search(r"^mpa-check: \d+ captures?, \d+ MPA connections?: (\d+) errors?, (\d+) warnings?, \d+ notes?"
                  r"(?:, (\d+) suppressed)?$", out, re.M)
    expect(m, f"no totals line:\n{out}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def grep_count(out, word):
    """What `grep -c ': WORD:'` counts."""
    return sum(f": {word}:" in line for line in out.splitlines())


def check_grep_trust(a):
    """A suppressed finding never prints as ': error:' or ': warning:': grep counts what the
    totals count (hidden by default, 'suppressed' lines with --show-suppressed), also on a pipe."""
    caps = [os.path.join(a.siw, n) for n in (BADCRC, GSO)]
    rules = os.path.join(a.work, "rules")
    with open(rules, "w") as f:
        f.write('id=fpdu.crc-mismatch reason="the probe corrupts this CRC on purpose"\n'
                'id=fpdu.ulpdu-length-too-large stack="Linux siw" reason="siw GSO"\n')
    for extra in ([], ["--show-suppressed"]):
        code, out, err = run(a.mpa_check, "--color", "never", "--fold", "1000", "--suppress", rules, *extra, *caps)
        errors, warnings, suppressed = totals_line(out)
        expect(code == 0 and errors == 0 and suppressed == 38, f"{extra}: exit {code}, totals {errors}/{suppressed}\n{out}")
        expect(grep_count(out, "error") == errors == 0, f"{extra}: grep -c ': error:' finds lines the totals do not count:\n{out}")
        expect(grep_count(out, "warning") == warnings == 3, f"{extra}: grep -c ': warning:' {grep_count(out, 'warning')} != {warnings}")
        for line in out.splitlines():
            if "[fpdu.crc-mismatch]" in line or "[fpdu.ulpdu-length-too-large]" in line:
                expect(": suppressed: " in line, f"{extra}: a suppressed finding printed as: {line}")
        shown = grep_count(out, "suppressed")
        expect(shown == (38 if extra else 0), f"{extra}: {shown} 'suppressed' lines")
        if extra:
            crc = [l for l in out.splitlines() if "[fpdu.crc-mismatch]" in l]
            expect(len(crc) == 1 and crc[0].endswith(f"(error suppressed by {rules}:1: the probe corrupts this CRC on purpose)"),
                   f"the suppressed line names its severity and rule: {crc}")
    # Folded repeats of a suppressed id fold as suppressed.
    code, out, _ = run(a.mpa_check, "--color", "never", "--show-suppressed", "--suppress", rules, caps[1])
    folded = [l for l in out.splitlines() if "more like this" in l]
    expect(len(folded) == 1 and ": suppressed: ... and 34 more like this" in folded[0], f"fold: {folded}")
    # A pipe (findings printed as they become certain) says the same.
    p = subprocess.run([a.mpa_check, "--color", "never", "--suppress", rules, "-"], stdin=open(caps[0], "rb"),
                       capture_output=True, text=True)
    expect(p.returncode == 0 and grep_count(p.stdout, "error") == 0 and "[fpdu.crc-mismatch]" not in p.stdout,
           f"pipe: exit {p.returncode}\n{p.stdout}")
    p = subprocess.run([a.mpa_check, "--color", "never", "--show-suppressed", "--suppress", rules, "-"],
                       stdin=open(caps[0], "rb"), capture_output=True, text=True)
    expect(re.search(r"^<stdin>:8: suppressed: .*\[fpdu.crc-mismatch\] \(error suppressed by ", p.stdout, re.M), p.stdout)
    # JSON and JUnit agree with the text.
    _, report = json_report(a.mpa_check, "--suppress", rules, *caps)
    expect(report["summary"]["errors"] == 0 and report["summary"]["suppressed"]["errors"] == 1, report["summary"])
    code, out, _ = run(a.mpa_check, "--suppress", rules, "--junit", "-", *caps)
    cases, declared, _ = junit_failures(out)
    expect(code == 0 and not cases and declared == 0, f"JUnit fails a suppressed finding: {declared}")


def check_unused_rules(a):
    """Rules that matched nothing are said on stderr (never stdout), only when every capture the
    file names was analysed; a count not reached is a note there too."""
    caps = {n: os.path.join(a.work, n) for n in (BADCRC, GSO)}
    for n, path in caps.items():
        shutil.copy(os.path.join(a.siw, n), path)
    rules = os.path.join(a.work, "rules")
    with open(rules, "w") as f:
        f.write(f'id=fpdu.crc-mismatch capture="./{BADCRC}" reason="probe"\n'
                f'id=fpdu.ulpdu-length-too-large capture="./{GSO}" count=40 reason="siw GSO"\n'
                f'id=marker.unexpected capture="./{GSO}" reason="stale"\n'
                'id=fpdu.pad-nonzero reason="stale too"\n')
    code, out, err = run(a.mpa_check, "--suppress", rules, *caps.values())
    expect(code == 0, f"exit {code}: {err}")
    expect(f"{rules}:3: unused: suppression rule matched nothing in this run (id=marker.unexpected)" in err
           and f"{rules}:4: unused:" in err, f"unused rules on stderr:\n{err}")
    expect(f"{rules}:2: note: count=40 but at most 37 occurred" in err, f"count not reached:\n{err}")
    expect("matched nothing" not in out and "count=40" not in out, f"nothing of the rules on stdout:\n{out}")
    expect(grep_count(err, "warning") == 0 and grep_count(err, "error") == 0, err)
    _, report = json_report(a.mpa_check, "--suppress", rules, *caps.values())
    summary = report["summary"]
    expect(summary["suppressions_reviewed"] and [u["line"] for u in summary["unused_suppressions"]] == [3, 4]
           and summary["suppressions_under_count"] == [{"file": rules, "line": 2, "id": "fpdu.ulpdu-length-too-large",
                                                         "count": 40, "most_in_a_capture": 37}], summary)
    # A subset run (one of the two captures the file names): nothing said of the rules.
    code, out, err = run(a.mpa_check, "--suppress", rules, caps[BADCRC])
    expect(code == 0 and "unused" not in err and "note" not in err and "matched nothing" not in out,
           f"subset run: exit {code}\n{err}")
    _, report = json_report(a.mpa_check, "--suppress", rules, caps[BADCRC])
    summary = report["summary"]
    expect(not summary["suppressions_reviewed"] and summary["unused_suppressions"] == []
           and summary["suppressions_under_count"] == [], summary)


def check_baseline_elsewhere(a):
    """A baseline written in one folder names captures relative to itself: copied with its
    captures to another folder and used from a third working folder, it accepts exactly what it
    was written from (0 unsuppressed findings, exit 0); a count exceeded fails, a glob on file
    names matches from anywhere."""
    one, two, three = (os.path.join(a.work, d) for d in ("one", "two", "three"))
    for d in (one, three):
        os.makedirs(os.path.join(d, "caps"))
    for n in (BADCRC, GSO):
        shutil.copy(os.path.join(a.siw, n), os.path.join(one, "caps", n))
    code, out, err = run(a.mpa_check, "--fail-on", "warning", "--write-baseline", "baseline",
                         f"caps/{BADCRC}", f"caps/{GSO}", cwd=one)
    expect(code == 0 and totals_line(out)[:2] == (0, 0), f"writing: exit {code}\n{out}{err}")
    text = open(os.path.join(one, "baseline")).read()
    expect(f'capture="caps/{GSO}" count=37' in text and a.work not in text and "/caps" not in text.replace('"caps/', ""),
           f"paths relative to the baseline file:\n{text}")
    shutil.copytree(one, two)
    shutil.rmtree(one)
    for args in ([f"../two/caps/{BADCRC}", f"../two/caps/{GSO}"],
                 [os.path.join(two, "caps", BADCRC), os.path.join(two, "caps", GSO)],
                 [os.path.join(two, "caps")]):
        code, out, err = run(a.mpa_check, "--fail-on", "warning", "--suppress", "../two/baseline", *args, cwd=three)
        errors, warnings, suppressed = totals_line(out)
        expect(code == 0 and (errors, warnings, suppressed) == (0, 0, 41), f"{args}: exit {code}\n{out}{err}")
        expect(grep_count(out, "error") == 0 and grep_count(out, "warning") == 0, out)
        expect("unused" not in err and "note" not in err, f"a fresh baseline contradicts itself:\n{err}")
    # More occurrences than a rule accepts fail; the ones over its count are named.
    with open(os.path.join(two, "baseline")) as f:
        lowered = f.read().replace("count=37", "count=30")
    with open(os.path.join(two, "baseline"), "w") as f:
        f.write(lowered)
    code, report = json_report(a.mpa_check, "--fail-on", "warning", "--suppress", "../two/baseline",
                               os.path.join(two, "caps"), cwd=three)
    over = [f for c in report["captures"] for conn in c["connections"] for f in conn["findings"] if "over_count" in f]
    expect(code == 1 and report["summary"]["warnings"] == 7 and len(over) == 7
           and all(f["id"] == "fpdu.ulpdu-length-too-large" and f["over_count"]["count"] == 30 for f in over),
           f"count exceeded: exit {code}, {report['summary']}")
    code, out, _ = run(a.mpa_check, "--color", "never", "--fail-on", "warning", "--suppress", "../two/baseline",
                       os.path.join(two, "caps", GSO), cwd=three)
    expect(code == 1 and "(over the 30 accepted by ../two/baseline:" in out, out)
    # A capture glob without a slash matches file names wherever the capture lies.
    with open(os.path.join(three, "glob"), "w") as f:
        f.write('id=fpdu.crc-mismatch capture="*-badcrc-*.pcap" reason="probe"\n')
    code, report = json_report(a.mpa_check, "--suppress", "glob", os.path.join(two, "caps", BADCRC), cwd=three)
    expect(code == 0 and report["summary"]["suppressed"]["errors"] == 1, report["summary"])
    with open(os.path.join(three, "glob"), "w") as f:
        f.write('id=fpdu.crc-mismatch capture="caps/*-badcrc-*.pcap" reason="probe"\n')
    code, report = json_report(a.mpa_check, "--suppress", "glob", os.path.join(two, "caps", BADCRC), cwd=three)
    expect(code == 1, "a capture= with a slash is relative to the suppression file, not the capture's folder")


def check_missing_input(a):
    """A path that does not exist is named on stderr; the other captures are still analysed and
    reported (text, JSON, JUnit, SARIF); the exit status is 2."""
    missing = os.path.join(a.work, "no-such.pcap")
    capture = os.path.join(a.siw, BADCRC)
    code, out, err = run(a.mpa_check, "--color", "never", missing, capture)
    expect(code == 2 and f"{missing}: no such file or directory" in err, f"exit {code}: {err}")
    expect("[fpdu.crc-mismatch]" in out and f"{missing}: FAIL: no such file or directory" in out
           and f"  {missing} (no such file or directory)" in out, out)
    code, out, err = run(a.mpa_check, "--format", "json", capture, missing, os.path.join(a.work, "no-such-folder"))
    report = json.loads(out)
    verdicts = [(c["file"], c["verdict"]) for c in report["captures"]]
    expect(code == 2 and verdicts == [(capture, "fail"), (missing, "unreadable"),
                                      (os.path.join(a.work, "no-such-folder"), "unreadable")], f"{code} {verdicts}")
    expect(report["captures"][1]["error"] == f"{missing}: no such file or directory", report["captures"][1])
    code, out, _ = run(a.mpa_check, "--junit", "-", missing, capture)
    root = ET.fromstring(out)
    errors = [c for c in root.iter("testcase") if c.find("error") is not None]
    expect(code == 2 and len(errors) == 1 and "no such file" in errors[0].find("error").get("message"), out)


def check_bad_input(a):
    """A file that is no capture is said plainly on its own line of stdout, not only on stderr:
    "not a capture file" (text, or text gzip'd), "empty file" (nothing in it); exit status 2."""
    text = os.path.join(a.work, "notes.pcap")
    with open(text, "w") as f:
        f.write("these are notes, not packets\n")
    empty = os.path.join(a.work, "empty.pcap")
    open(empty, "w").close()
    gz = os.path.join(a.work, "notes.pcap.gz")
    subprocess.run(["gzip", "-k", text], check=True)
    for path, reason in ((text, "not a capture file"), (empty, "empty file"), (gz, "not a capture file")):
        code, out, err = run(a.mpa_check, "--color", "never", path)
        expect(code == 2, f"{path}: exit {code}")
        expect(f"{path}: FAIL: {reason}\n" in out, f"{path}: stdout says:\n{out}")
        expect(f"  {path} ({reason})" in out, f"{path}: the summary says:\n{out}")
        expect(f"{path}: {reason}" in err, f"{path}: stderr says:\n{err}")
    p = subprocess.run([a.mpa_check, "--color", "never", "-"], stdin=open(empty), capture_output=True, text=True)
    expect(p.returncode == 2 and "<stdin>: FAIL: empty file" in p.stdout, p.stdout)


def check_non_utf8_name(a):
    """A capture whose file name is not UTF-8 (Latin-1 "caf\xe9", as old archives have them)
    is reported in every format: JSON, SARIF, JUnit and HTML are UTF-8 text naming it with
    U+FFFD, and the exit status is the capture's (1: it holds an error), not an abort."""
    name = os.path.join(os.fsencode(a.work), b"caf\xe9.pcap")
    shutil.copy(os.path.join(a.captures, "siw", BADCRC), name)
    outs = {k: os.path.join(a.work, f"out.{k}") for k in ("sarif", "xml", "html")}
    p = subprocess.run([a.mpa_check, "--format", "json", "--sarif", outs["sarif"], "--junit", outs["xml"],
                        "--html", outs["html"], name], capture_output=True)
    expect(p.returncode == 1, f"exit {p.returncode}: {p.stderr[-300:]!r}")
    report = json.loads(p.stdout.decode("utf-8"))
    expect(report["captures"][0]["file"].endswith("caf\ufffd.pcap"), f"JSON names {report['captures'][0]['file']!r}")
    sarif = json.loads(open(outs["sarif"], encoding="utf-8").read())
    expect(sarif["runs"][0]["results"], "SARIF lists no result")
    ET.fromstring(open(outs["xml"], "rb").read())
    open(outs["html"], encoding="utf-8").read()


def check_sarif(a):
    """--sarif: valid SARIF 2.1.0 (schema), one result per listed finding with the catalogue id,
    level from severity, the capture as a relative URI and the frame as a logical location;
    the catalogue as rules (summary, RFC section at rfc-editor.org, error code); suppressed
    findings carry their suppression; a capture not found is a notification."""
    validators = sarif_validators(Failure)
    caps_dir = os.path.join(a.work, "caps")
    os.makedirs(caps_dir)
    for n in (BADCRC, GSO):
        shutil.copy(os.path.join(a.siw, n), os.path.join(caps_dir, n))
    shutil.copy(os.path.join(a.captures, "valid-vlan.pcap"), os.path.join(caps_dir, "with space #1.pcap"))
    rules = os.path.join(a.work, "rules")
    with open(rules, "w") as f:
        f.write('id=fpdu.crc-mismatch reason="the probe corrupts this CRC on purpose"\n')
    args = ["--suppress", "rules", "caps", "missing.pcap"]
    code, out, err = run(a.mpa_check, "--sarif", "out.sarif", "--notes", *args, cwd=a.work)
    expect(code == 2 and "missing.pcap" in err, f"exit {code}: {err}")
    with open(os.path.join(a.work, "out.sarif")) as f:
        sarif = json.load(f)
    for path, validator in validators:
        errors = sorted(validator.iter_errors(sarif), key=lambda e: list(e.path))
        expect(not errors, f"not valid against {os.path.basename(path)}: " +
               "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5]))
    # The same run as JSON: the findings to compare with.
    _, out, _ = run(a.mpa_check, "--format", "json", *args, cwd=a.work)
    report = json.loads(out)
    want = sorted((c["file"], f["frame"], f["id"], f["severity"], "suppressed" in f)
                  for c in report["captures"] for conn in c["connections"] for f in conn["findings"])
    run_ = sarif["runs"][0]
    rules_ = run_["tool"]["driver"]["rules"]
    code_, out_, _ = run(a.mpa_check, "--list-diagnostics", "--format", "json")
    catalogue = {d["id"]: d for d in json.loads(out_)}
    expect([r["id"] for r in rules_] == list(catalogue), "the rules are the catalogue, in its order")
    levels = {"error": "error", "warning": "warning", "note": "note"}
    for r in rules_:
        d = catalogue[r["id"]]
        expect(r["shortDescription"]["text"] == d["summary"] and r["properties"]["rfc"] == d["rfc"]
               and r["properties"].get("rfc_error_code") == d["rfc_error_code"]
               and r["defaultConfiguration"]["level"] == levels[d["severity"]], r)
        expect(r["helpUri"].startswith("https://www.rfc-editor.org/rfc/rfc"), r)
    crc = next(r for r in rules_ if r["id"] == "fpdu.crc-mismatch")
    expect(crc["helpUri"] == "https://www.rfc-editor.org/rfc/rfc5044#section-4.4"
           and crc["properties"]["rfc_error_code"] == 2, crc)
    appendix = [r["helpUri"] for r in rules_ if "Appendix" in r["properties"]["rfc"]]
    expect(all(u.startswith("https://www.rfc-editor.org/rfc/rfc5044#appendix-") for u in appendix), appendix)
    got = []
    for res in run_["results"]:
        expect(rules_[res["ruleIndex"]]["id"] == res["ruleId"], res)
        uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        expect(not uri.startswith("/") and ":" not in uri, f"a relative URI: {uri}")
        from urllib.parse import unquote
        expect(os.path.exists(os.path.join(a.work, unquote(uri))), f"{uri} resolves from the working folder")
        logical = res["locations"][0]["logicalLocations"][0]
        frame = res["properties"]["frame"]
        expect(logical["name"] == f"frame {frame}" and logical["fullyQualifiedName"].endswith(f"/frame {frame}"), logical)
        got.append((unquote(uri), frame, res["ruleId"], res["level"], "suppressions" in res))
    expect(sorted(got) == want, f"SARIF results differ from the JSON findings:\n{sorted(got)[:5]}\n{want[:5]}")
    suppressed = [r for r in run_["results"] if "suppressions" in r]
    expect(len(suppressed) == 1 and suppressed[0]["ruleId"] == "fpdu.crc-mismatch"
           and suppressed[0]["suppressions"][0]["justification"] == "the probe corrupts this CRC on purpose"
           and suppressed[0]["suppressions"][0]["location"]["physicalLocation"]["region"]["startLine"] == 1, suppressed)
    expect(any("%20" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run_["results"]),
           "a name with a space is percent-encoded")
    invocation = run_["invocations"][0]
    expect(not invocation["executionSuccessful"]
           and "missing.pcap: no such file" in invocation["toolExecutionNotifications"][0]["message"]["text"], invocation)
    expect(run_["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///"), run_["originalUriBaseIds"])
    # --sarif - writes SARIF to standard output instead of the report.
    code, out, _ = run(a.mpa_check, "--sarif", "-", os.path.join(caps_dir, BADCRC), cwd=a.work)
    sarif = json.loads(out)
    expect(code == 1 and [r["ruleId"] for r in sarif["runs"][0]["results"] if r["level"] == "error"] == ["fpdu.crc-mismatch"],
           f"--sarif -: exit {code}")
    expect(not os.path.exists(os.path.join(a.work, "-")), "--sarif - must not create a file named -")
    for path, validator in validators:
        expect(not list(validator.iter_errors(sarif)), f"--sarif - not valid against {os.path.basename(path)}")


def check_junit_viewers(a):
    """JUnit XML as viewers read it: time attributes on the suites and cases (the cases of a
    capture add up to its suite's), and class names with no dot in the capture's name (viewers
    split class names at dots into packages)."""
    caps = [os.path.join(a.siw, n) for n in (BADCRC, GSO)]
    code, out, _ = run(a.mpa_check, "--junit", "-", *caps)
    root = ET.fromstring(out)
    expect(float(root.get("time")) >= 0, "testsuites time")
    for suite in root.iter("testsuite"):
        cases = list(suite.iter("testcase"))
        total = float(suite.get("time"))
        expect(total >= 0 and all(float(c.get("time")) >= 0 for c in cases), "testsuite and testcase times")
        expect(abs(sum(float(c.get("time")) for c in cases) - total) <= 0.001 * len(cases) + 1e-9,
               f"the cases' times add up to the suite's: {total}")
        for c in cases:
            package, _, klass = c.get("classname").rpartition(".")
            expect(package == "mpa-check" and klass.endswith("_pcap") and suite.get("name").endswith(".pcap"),
                   f"classname {c.get('classname')}")


def check_html_stdout(a):
    """--html - writes the page to standard output instead of the report (no file named -);
    only one report can take standard output."""
    capture = os.path.join(a.siw, BADCRC)
    code, out, _ = run(a.mpa_check, "--html", "-", capture, cwd=a.work)
    expect(code == 1 and out.lstrip().lower().startswith("<!doctype html>") and "fpdu.crc-mismatch" in out
           and ": error:" not in out.split("\n", 1)[0], f"--html -: exit {code}: {out[:200]}")
    expect(not os.path.exists(os.path.join(a.work, "-")), "--html - must not create a file named -")
    code, _, err = run(a.mpa_check, "--html", "-", "--junit", "-", capture, cwd=a.work)
    expect(code == 2 and "standard output" in err, f"two reports on stdout: exit {code}: {err}")


def check_list_rules(a):
    """--list-rules: the conformance matrix as text (a line a rule and a count) and as a JSON
    array; --list-diagnostics names each catalogue entry's rules, the same ones."""
    code, text, err = run(a.mpa_check, "--list-rules")
    expect(code == 0 and not err, f"--list-rules: exit {code}: {err}")
    lines = text.splitlines()
    line = next((l for l in lines if l.startswith("5044-7.1.2-r4 ")), "")
    expect(re.match(r"5044-7.1.2-r4 +RFC 5044 7.1.2 +1608-1609 +MUST +sender +partial +.*"
                    r"\[fpdu.responder-sent-first\]$", line), f"rule 4 of RFC 5044 7.1.2:\n{line}")
    code, out, err = run(a.mpa_check, "--list-rules", "--format", "json")
    expect(code == 0, f"--list-rules --format json: exit {code}: {err}")
    rules = json.loads(out)
    expect(isinstance(rules, list) and len(rules) >= 100, f"{len(rules)} rules")
    expect(len(lines) == len(rules) + 1 and re.match(rf"{len(rules)} rules \(", lines[-1]),
           f"one text line a rule, then the count:\n{lines[-1]}")
    catalogue = json.loads(run(a.mpa_check, "--list-diagnostics", "--format", "json")[1])
    names = {d["id"] for d in catalogue}
    by_id = {}
    for r in rules:
        # (RFC 7306's text is not in the tree: its rules name no section and no lines.)
        text_in_tree = r["rfc"] != "RFC 7306"
        expect(r["rfc"] in ("RFC 5044", "RFC 6581", "RFC 5041", "RFC 5040", "RFC 7306") and len(r["lines"]) == 2
               and bool(r["section"]) == text_in_tree and (r["lines"][0] > 0) == text_in_tree, str(r))
        expect(r["requirement"] in ("MUST", "MUST NOT", "REQUIRED", "SHOULD", "SHOULD NOT", "statement"), str(r))
        expect(r["observable"] in ("sender", "receiver", "no"), str(r))
        expect(r["coverage"] in ("full", "partial", "none"), str(r))
        expect(set(r["ids"]) <= names, f"{r['id']} names ids outside the catalogue: {r['ids']}")
        expect((r["coverage"] == "none") == (not r["ids"]), f"{r['id']}: coverage {r['coverage']}, ids {r['ids']}")
        expect(r["observable"] != "no" or "why_not_observable" in r, str(r))
        for i in r["ids"]:
            by_id.setdefault(i, []).append(r["id"])
    for d in catalogue:
        expect(d["rules"] == by_id.get(d["id"], []), f"{d['id']}: --list-diagnostics names {d['rules']}")
        expect(bool(d["rules"]) != bool(d["beyond_rules"]), f"{d['id']}: rules or beyond them, not both")
    code, text, _ = run(a.mpa_check, "--list-diagnostics")
    expect(re.search(r"^fpdu.responder-sent-first .*\[rules 5044-7.1.2-r4\]$", text, re.M),
           f"--list-diagnostics does not name the rules:\n{text}")
    expect(re.search(r"^capture.gap .*\[beyond the RFCs: capture\]$", text, re.M), text)


CHECKS = {"tunnels": check_tunnels, "ip-fragments": check_ip_fragments, "pcapng-as-pcap": check_pcapng_as_pcap, "mixed-interfaces": check_mixed_interfaces, "streaming": check_streaming, "captures-as-users-have-them": check_captures_as_users_have_them, "junit-agrees": check_junit_agrees, "require-mpa": check_require_mpa,
          "suppressions": check_suppressions, "suppression-text": check_suppression_text_and_errors,
          "baseline": check_baseline, "parallel": check_parallel, "read-threads": check_read_threads, "text": check_text,
          "grep-trust": check_grep_trust, "unused-rules": check_unused_rules,
          "baseline-elsewhere": check_baseline_elsewhere, "missing-input": check_missing_input,
          "sarif": check_sarif, "junit-viewers": check_junit_viewers, "html-stdout": check_html_stdout}
CHECKS["list-rules"] = check_list_rules
CHECKS["bad-input"] = check_bad_input
CHECKS["non-utf8-name"] = check_non_utf8_name
CHECKS["no-mpa-said"] = check_no_mpa_said
CHECKS["live-only-refused"] = check_live_only_refused
CHECKS["junit-worst"] = check_junit_worst


def main():
    class Args:
        pass
    a = Args()
    a.mpa_check, a.captures, a.siw, a.work, check = sys.argv[1:6]
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    try:
        CHECKS[check](a)
    except Failure as e:
        sys.exit(f"FAIL {check}: {e}")
    print(f"ok {check}")


if __name__ == "__main__":
    main()
