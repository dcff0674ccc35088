#!/usr/bin/env python3
"""The plugfest view through the real binary, on the plugfest corpus mpa-synth writes
(captures/plugfest/: two days of captures, plugfest.hosts, expected.tsv).

  plugfest_test.py MPA_CHECK PLUGFEST_DIR WORKDIR CHECK

CHECK is one of:
  hosts      --hosts: names by address, subnet and MAC prefix beside the addresses in text,
             JSON, JUnit and HTML; a host no line names by its stack fingerprint, as a guess;
             every kind of bad line a usage error (exit 2) naming FILE:LINE
  matrix     the interop matrix of each day (JSON "matrix", --matrix text) equals the one the
             recipes' intended findings in expected.tsv predict: every cell's verdict,
             connections, first failing rule and the side that broke it, references; pairs
             never tried
  compare    --compare day1.json day2.json reports exactly the fault introduced and the fault
             fixed (per pair and per connection, text and JSON), exit 1; a run against itself
             nothing new, exit 0; an unreadable report exit 2
  from-json  --from-json: the reports of one day split over shards (one JSON report a capture)
             give the same JSON report, text summary and matrix as one run over the day, and an
             HTML overview that links findings to their captures instead of embedding octets
"""
import difflib
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def run(a, *args, cwd=None):
    p = subprocess.run([a.mpa_check, *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def json_run(a, *args):
    code, out, err = run(a, "--format", "json", *args)
    expect(code in (0, 1), f"mpa-check {' '.join(args)}: exit {code}: {err}")
    return code, json.loads(out)


def severities(a):
    _, out, _ = run(a, "--list-diagnostics", "--format", "json")
    return {d["id"]: d["severity"] for d in json.loads(out)}


def expected_rows(a):
    """expected.tsv: (day, capture path under plugfest/, connection, initiator, responder,
    [(id, side)], [notes])."""
    rows = []
    with open(os.path.join(a.plugfest, "expected.tsv")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            day, capture, conn, ini, resp, findings, notes = line.rstrip("\n").split("\t")
            pairs = [tuple(x.split("@")) for x in findings.split(",") if x]
            rows.append((day, capture, int(conn), ini, resp, pairs, [n for n in notes.split(",") if n]))
    return rows


def predicted_matrix(a, day, sev):
    """The matrix the recipes predict for a day: {(initiator, responder): cell}."""
    rank = {"not judged": 1, "clean": 2, "warnings": 3, "errors": 4}
    cells = {}
    for d, capture, conn, ini, resp, findings, notes in sorted(expected_rows(a), key=lambda r: (r[1], r[2])):
        if d != day:
            continue
        kinds = {sev[i] for i, _ in findings}
        verdict = ("errors" if "error" in kinds else "warnings" if "warning" in kinds
                   else "not judged" if "startup.no-reply" in notes else "clean")
        cell = cells.setdefault((ini, resp), {"verdict": "not judged", "connections": 0, "refs": [],
                                              "first_failure": None, "by": {}})
        cell["connections"] += 1
        cell["by"][verdict] = cell["by"].get(verdict, 0) + 1
        if rank[verdict] > rank[cell["verdict"]]:
            cell["verdict"] = verdict
        path = os.path.join(a.plugfest, capture)
        cell["refs"].append((path, conn, verdict))
        for want in ("error", "warning"):
            hit = [(i, s) for i, s in findings if sev[i] == want]
            if not hit:
                continue
            ff = cell["first_failure"]
            if ff is None or (want == "error" and ff[3] != "error"):
                cell["first_failure"] = (hit[0][0], hit[0][1], (path, conn), want)
            break
    return cells


def day_dir(a, day):
    return os.path.join(a.plugfest, day)


def hosts_file(a):
    return os.path.join(a.plugfest, "plugfest.hosts")


# ---- checks

def check_hosts(a):
    day1 = day_dir(a, "day1")
    session = os.path.join(day1, "session-2.pcap")
    code, report = json_run(a, "--hosts", hosts_file(a), session)
    conns = report["captures"][0]["connections"]
    names = {(c["initiator"].rsplit(":", 1)[0], c["implementations"]["initiator"]["label"]) for c in conns}
    names |= {(c["responder"].rsplit(":", 1)[0], c["implementations"]["responder"]["label"]) for c in conns}
    expect(("192.0.2.11", "Ardent RNIC 2.1") in names, f"Ardent by address: {names}")
    expect(("192.0.2.33", "Birch 0.9") in names, f"Birch by subnet: {names}")
    expect(("198.51.100.7", "Cobalt NIC 5.0") in names, f"Cobalt by MAC prefix: {names}")
    expect(("192.0.2.60", "looks like Linux siw") in names, f"siw by its fingerprint: {names}")
    by_label = {}
    for c in conns:
        for side in ("initiator", "responder"):
            by_label[c["implementations"][side]["label"]] = (c["implementations"][side], c["directions"][side])
    cobalt, cobalt_dir = by_label["Cobalt NIC 5.0"]
    expect(cobalt["source"] == "hosts" and cobalt["name"] == "Cobalt NIC" and cobalt["version"] == "5.0"
           and cobalt["rule"].endswith("plugfest.hosts:7") and cobalt_dir["mac"] == "02:c0:ba:00:00:07",
           f"Cobalt: {cobalt}, mac {cobalt_dir['mac']}")
    siw, _ = by_label["looks like Linux siw"]
    expect(siw["source"] == "fingerprint" and siw["name"] == "Linux siw" and siw["version"] is None, str(siw))
    # Without a hosts file: the fingerprints only (Cobalt's Requests look like siw's too), the
    # other hosts by their addresses.
    _, plain = json_run(a, session)
    labels = {c["implementations"][s]["label"] for c in plain["captures"][0]["connections"]
              for s in ("initiator", "responder")}
    expect(labels == {"looks like Linux siw", "192.0.2.11", "192.0.2.33"}, f"no hosts file: {labels}")
    # Text: the side's name beside the data it is about; -v beside the addresses.
    code, text, _ = run(a, "--hosts", hosts_file(a), "-v", session)
    expect(re.search(r"session-2\.pcap:\d+: error: .*\(connection 0, initiator data \(Cobalt NIC 5\.0\), seq \d+; "
                     r".*\[fpdu\.crc-mismatch\]", text), f"text finding line:\n{text}")
    expect(re.search(r"connection 3: 198\.51\.100\.7:\d+ \(Cobalt NIC 5\.0\) -> 192\.0\.2\.60:20049 "
                     r"\(looks like Linux siw\) \(initiator -> responder\)", text), f"-v block:\n{text}")
    # JUnit: beside the addresses in the test case names.
    code, xml, _ = run(a, "--hosts", hosts_file(a), "--junit", "-", session)
    cases = [c.get("name") for c in ET.fromstring(xml).iter("testcase")]
    expect(any(re.fullmatch(r"connection 1 192\.0\.2\.33:\d+ \(Birch 0\.9\) -> 198\.51\.100\.7:20049 "
                            r"\(Cobalt NIC 5\.0\)", c) for c in cases), f"JUnit test cases: {cases}")
    # HTML: beside the addresses in the connections table and the connection's heading.
    page = os.path.join(a.work, "hosts.html")
    run(a, "--hosts", hosts_file(a), "--html", page, session)
    html = open(page, encoding="utf-8").read()
    expect(re.search(r'data-initiator-impl="Cobalt NIC 5.0" data-responder-impl="Ardent RNIC 2.1">198\.51\.100\.7:\d+ '
                     r'\(<span class="impl" title="from the hosts file, [^"]*plugfest.hosts:7">Cobalt NIC 5\.0</span>\)',
                     html), "HTML connections table: no name beside the address")
    expect('<span class="impl guess"' in html and "looks like Linux siw</span>" in html, "HTML: the guess")

    # Precedence: an address beats a subnet holding it, any IP line beats a MAC prefix, the
    # longest prefix wins; IPv6 subnets; comments and quotes.
    rules = os.path.join(a.work, "precedence.hosts")
    with open(rules, "w") as f:
        f.write("# precedence\n"
                "192.0.2.0/24    Lab-wide 1\n"
                "192.0.2.32/28   \"Birch lab\" 0.8   # a comment\n"
                "192.0.2.33      Birch 0.9\n"
                "02:c0           \"Short prefix\"\n"
                "02:c0:ba:00     \"Long prefix\" x\n"
                "2001:db8::/32   IPv6-lab\n")
    _, report = json_run(a, "--hosts", rules, session)
    got = {}
    for c in report["captures"][0]["connections"]:
        for side in ("initiator", "responder"):
            got[c[side].rsplit(":", 1)[0]] = c["implementations"][side]["label"]
    expect(got == {"192.0.2.11": "Lab-wide 1", "192.0.2.33": "Birch 0.9", "198.51.100.7": "Long prefix x",
                   "192.0.2.60": "Lab-wide 1"}, f"precedence: {got}")

    # Bad files: exit 2, the file and line named, nothing on stdout.
    bad_lines = [
        ("192.0.2.1", "no implementation name"),
        ("192.0.2.300 Foo", "is not an address, a subnet"),
        ("192.0.2.0/33 Foo", "prefix length above 32"),
        ("192.0.2.1/24 Foo", "has host bits set: the subnet is 192.0.2.0/24"),
        ("2001:db8::/129 Foo", "prefix length above 128"),
        ("02:c0:ba:00:00:00:01 Foo", "is not an address, a subnet"),
        ("192.0.2.1 Two words 1.0", "quote a name with spaces"),
        ("192.0.2.1 \"Unterminated 1.0", "unterminated quote"),
        ("192.0.2.11 Again", "192.0.2.11 is named already on line 2"),
    ]
    for line, why in bad_lines:
        path = os.path.join(a.work, "bad.hosts")
        with open(path, "w") as f:
            f.write("# fine so far\n192.0.2.11 Ardent 2.1\n\n" + line + "\n")
        code, out, err = run(a, "--hosts", path, session)
        expect(code == 2 and not out and f"bad.hosts:4: " in err and why in err,
               f"{line!r}: exit {code}, stderr {err!r}")
    code, out, err = run(a, "--hosts", os.path.join(a.work, "no-such.hosts"), session)
    expect(code == 2 and "no-such.hosts" in err and not out, f"missing hosts file: exit {code}: {err}")


def matrix_cells(report):
    return {(c["initiator"], c["responder"]): c for c in report["matrix"]["cells"]}


def check_matrix(a):
    sev = severities(a)
    for day in ("day1", "day2"):
        want = predicted_matrix(a, day, sev)
        code, report = json_run(a, "--hosts", hosts_file(a), day_dir(a, day))
        cells = matrix_cells(report)
        keys = [i["label"] for i in report["matrix"]["implementations"]]
        expect(keys == ["Ardent RNIC 2.1", "Birch 0.9", "Cobalt NIC 5.0", "looks like Linux siw"],
               f"{day}: implementations {keys}")
        expect(len(cells) == 16 and report["matrix"]["tried"] == len(want),
               f"{day}: {len(cells)} cells, {report['matrix']['tried']} tried, want 16 and {len(want)}")
        for (ini, resp), cell in cells.items():
            w = want.get((ini, resp))
            if w is None:
                expect(not cell["tried"] and cell["verdict"] == "not tried" and cell["connections"] == 0
                       and not cell["refs"], f"{day} {ini} -> {resp}: never tried, got {cell}")
                continue
            label = f"{day} {ini} -> {resp}"
            expect(cell["tried"] and cell["verdict"] == w["verdict"], f"{label}: verdict {cell['verdict']}, want {w['verdict']}")
            expect(cell["connections"] == w["connections"], f"{label}: {cell['connections']} connections")
            by = {k.replace("_", " "): v for k, v in cell["by_verdict"].items() if v}
            expect(by == w["by"], f"{label}: by verdict {by}, want {w['by']}")
            refs = [(os.path.normpath(r["capture"]), r["connection"], r["verdict"]) for r in cell["refs"]]
            expect(refs == [(os.path.normpath(p), c, v) for p, c, v in w["refs"]], f"{label}: refs {refs}, want {w['refs']}")
            ff = cell["first_failure"]
            if w["first_failure"] is None:
                expect(ff is None, f"{label}: first failure {ff}, want none")
            else:
                fid, side, (path, conn), severity = w["first_failure"]
                expect(ff and ff["id"] == fid and ff["side"] == side and ff["severity"] == severity
                       and os.path.normpath(ff["capture"]) == os.path.normpath(path) and ff["connection"] == conn
                       and ff["rules"], f"{label}: first failure {ff}, want {w['first_failure']}")
        # The same as text: a grid row per Initiator, a line per pair tried, the pairs never tried.
        code2, text, _ = run(a, "--hosts", hosts_file(a), "--matrix", "--no-summary", day_dir(a, day))
        expect(code2 == code, f"{day}: --matrix changes the exit status ({code2} vs {code})")
        expect(f"4 implementations, 11 MPA connections, {len(want)} of 16 pairs tried" in text, f"{day}:\n{text}")
        for (ini, resp), w in want.items():
            line = next((l for l in text.splitlines() if l.startswith(f"  {ini} -> {resp}: ")), None)
            expect(line and line.startswith(f"  {ini} -> {resp}: {w['verdict']}, "), f"{day} {ini} -> {resp}: {line}")
            if w["first_failure"]:
                fid, side, (path, conn), severity = w["first_failure"]
                expect(f"{fid} ({severity}) broken by the {side}" in line and f"{path} connection {conn} frame" in line,
                       f"{day}: {line}")
        untried = [f"{i} -> {r}" for i in keys for r in keys if (i, r) not in want]
        expect(f"  never tried ({len(untried)}): " + ", ".join(untried) in text, f"{day} never tried:\n{text}")
        grid = text.split("Initiator \\ Responder", 1)[1].splitlines()
        row = next(l for l in grid if l.startswith("  [3] Cobalt NIC 5.0 "))
        expect(row.split()[4:] == ["errors", "1/1", "-", "-", "errors", "1/1"], f"{day}: Cobalt's row {row!r}")
    # What the matrix of day 1 shows, spelled out (the recipes' intent, not only the code's).
    day1 = matrix_cells(json_run(a, "--hosts", hosts_file(a), day_dir(a, "day1"))[1])
    cell = day1[("Cobalt NIC 5.0", "looks like Linux siw")]
    expect(cell["verdict"] == "errors" and cell["first_failure"]["id"] == "fpdu.crc-mismatch"
           and cell["first_failure"]["side"] == "initiator", str(cell))
    expect(day1[("Birch 0.9", "Ardent RNIC 2.1")]["verdict"] == "warnings", "Birch's pads")
    expect(day1[("Birch 0.9", "looks like Linux siw")]["verdict"] == "not judged", "Birch -> siw")
    expect(day1[("Ardent RNIC 2.1", "Cobalt NIC 5.0")]["by_verdict"]["clean"] == 2, "Ardent -> Cobalt")
    expect(not day1[("Cobalt NIC 5.0", "Birch 0.9")]["tried"], "Cobalt -> Birch never tried")

    # Many hosts nothing names (a capture of a whole lab): no matrix by default (more than 8
    # unnamed), and with --matrix it stays bounded. A report of 70 connections between 140
    # addresses, made from a real one: only the pairs tried are listed (JSON, HTML), no text grid.
    _, one = json_run(a, os.path.join(day_dir(a, "day1"), "session-1.pcap"))
    conn = one["captures"][0]["connections"][0]
    many = []
    for k in range(70):
        c = json.loads(json.dumps(conn))
        c["id"] = k
        c["initiator"] = f"10.1.{k}.1:40000"
        c["responder"] = f"10.2.{k}.1:20049"
        for side in ("initiator", "responder"):
            c["implementations"][side] = {"label": "", "source": "address", "name": None}
            c["directions"][side]["stack"] = None
        many.append(c)
    one["captures"][0]["connections"] = many
    big = os.path.join(a.work, "many-hosts.json")
    with open(big, "w") as f:
        json.dump(one, f)
    _, report = json_run(a, "--from-json", big)
    expect("matrix" not in report, "140 unnamed implementations: a matrix by default")
    _, report = json_run(a, "--from-json", big, "--matrix")
    m = report["matrix"]
    expect(len(m["implementations"]) == 140 and m["tried"] == 70 and m["pairs"] == 140 * 140
           and m["untried_listed"] is False and len(m["cells"]) == 70 and all(c["tried"] for c in m["cells"]),
           f"140 implementations: {len(m['cells'])} cells, untried_listed {m['untried_listed']}")
    code, text, _ = run(a, "--from-json", big, "--matrix", "--no-summary")
    expect("(no grid for more than 12 implementations: the pairs tried follow)" in text
           and "never tried: 19530 pairs (not listed for more than 64 implementations)" in text
           and len([l for l in text.splitlines() if l.startswith("  10.1.")]) == 70, text[-600:])
    page = os.path.join(a.work, "many-hosts.html")
    run(a, "--from-json", big, "--matrix", "--html", page)
    html = open(page, encoding="utf-8").read()
    expect('<table id="matrix" class="pairs">' in html and html.count('<td class="m m-') == 70,
           "HTML: the pairs tried, a row each")


def pair_findings(a, day, sev):
    """{(initiator name, responder name): {(id, side)}} of errors and warnings, names without
    versions (a comparison's identity)."""
    strip = lambda k: k if k.startswith("looks like ") else k.rsplit(" ", 1)[0]
    out = {}
    for d, _, _, ini, resp, findings, _ in expected_rows(a):
        if d == day:
            out.setdefault((strip(ini), strip(resp)), set()).update(findings)
    return out


def check_compare(a):
    sev = severities(a)
    reports = {}
    for day in ("day1", "day2"):
        reports[day] = os.path.join(a.work, f"{day}.json")
        code, out, err = run(a, "--hosts", hosts_file(a), "--format", "json", day_dir(a, day))
        expect(code in (0, 1), err)
        with open(reports[day], "w") as f:
            f.write(out)
    old, new = pair_findings(a, "day1", sev), pair_findings(a, "day2", sev)
    want_new = {(p, f) for p in new for f in new[p] - old.get(p, set())}
    want_fixed = {(p, f) for p in old for f in old[p] - new.get(p, set())}
    want_stayed = {(p, f) for p in new for f in new[p] & old.get(p, set())}
    expect(len(want_new) == 1 and len(want_fixed) == 2, f"the corpus: new {want_new}, fixed {want_fixed}")
    # JSON
    code, out, err = run(a, "--compare", reports["day1"], reports["day2"], "--format", "json")
    expect(code == 1, f"--compare day1 day2: exit {code} (want 1: something new): {err}")
    doc = json.loads(out)
    got = {k: {((p["initiator"], p["responder"]), (f["id"], f["side"])) for p in doc["pairs"] for f in p[k]}
           for k in ("new_findings", "fixed", "stayed")}
    expect(got["new_findings"] == want_new, f"new: {got['new_findings']}, want {want_new}")
    expect(got["fixed"] == want_fixed, f"fixed: {got['fixed']}, want {want_fixed}")
    expect(got["stayed"] == want_stayed, f"stayed: {got['stayed']}, want {want_stayed}")
    s = doc["summary"]
    expect((s["new"], s["fixed"], s["stayed"], s["exit_status"], s["connections_matched"]) ==
           (1, 2, len(want_stayed), 1, 11), f"summary {s}")
    conn_new = [(c["identity"]["initiator"], c["identity"]["responder"], f["id"], f["side"])
                for c in doc["connections"] for f in c["new_findings"]]
    conn_fixed = [(c["identity"]["initiator"], c["identity"]["responder"], f["id"], f["side"])
                  for c in doc["connections"] for f in c["fixed"]]
    expect(sorted(conn_new) == sorted((p[0], p[1], f[0], f[1]) for p, f in want_new), f"connections new: {conn_new}")
    expect(sorted(conn_fixed) == sorted((p[0], p[1], f[0], f[1]) for p, f in want_fixed),
           f"connections fixed: {conn_fixed}")
    for c in doc["connections"]:
        expect(c["old"] and c["new"], f"every connection of the two days matched: {c['identity']}")
        expect(c["identity"]["port"] == 20049 and c["identity"]["startup"], str(c["identity"]))
    # Text: one line per pair and per connection for each change, then the summary.
    code, text, _ = run(a, "--compare", reports["day1"], reports["day2"])
    expect(code == 1, f"text: exit {code}")
    lines = text.splitlines()
    new_lines = [l for l in lines if re.match(r"pair .*: new ", l)]
    fixed_lines = [l for l in lines if re.match(r"pair .*: fixed ", l)]
    expect(len(new_lines) == 1 and new_lines[0].startswith(
        "pair Ardent RNIC -> Birch: new marker.fpduptr-mismatch (error, broken by the initiator) [NEW ")
           and "day2/session-1.pcap connection 0 frame" in new_lines[0], f"new:\n{new_lines}")
    expect(sorted(l.split(":")[0] for l in fixed_lines) == ["pair Birch -> Ardent RNIC", "pair Birch -> Cobalt NIC"]
           and all("fixed fpdu.pad-nonzero (warning, broken by the initiator) [OLD " in l for l in fixed_lines),
           f"fixed:\n{fixed_lines}")
    expect(len([l for l in lines if re.match(r"connection .*: new ", l)]) == 1
           and len([l for l in lines if re.match(r"connection .*: fixed ", l)]) == 2, text)
    expect(re.search(r"^mpa-check: compared .*day1\.json \(3 captures, 11 MPA connections\) with .*day2\.json "
                     r"\(3 captures, 11 MPA connections\): 1 new, 2 fixed, \d+ stayed", text, re.M), text)
    # Nothing new: a run against itself, or day 2 against day 1 (only fixes... and the fault
    # day 1 had that day 2 does not: those are "new" seen backwards).
    code, text, _ = run(a, "--compare", reports["day1"], reports["day1"])
    expect(code == 0 and not re.search(r": (new|fixed) ", text), f"day1 against itself: exit {code}\n{text}")
    code, out, _ = run(a, "--compare", reports["day2"], reports["day1"], "--format", "json")
    back = json.loads(out)["summary"]
    expect(code == 1 and back["new"] == 2 and back["fixed"] == 1, f"backwards: exit {code}, {back}")
    # Usage: an unreadable report, not a report, a capture given with it.
    code, out, err = run(a, "--compare", reports["day1"], os.path.join(a.work, "missing.json"))
    expect(code == 2 and "missing.json" in err and not out, f"missing report: exit {code}: {err}")
    not_report = os.path.join(a.work, "not-a-report.json")
    with open(not_report, "w") as f:
        f.write('{"hello": 1}')
    code, _, err = run(a, "--compare", reports["day1"], not_report)
    expect(code == 2 and "not a JSON report of mpa-check" in err, f"not a report: exit {code}: {err}")
    code, _, err = run(a, "--compare", reports["day1"], reports["day2"], day_dir(a, "day1"))
    expect(code == 2 and "--compare" in err, f"--compare with a capture: exit {code}: {err}")


def check_from_json(a):
    day = day_dir(a, "day1")
    captures = sorted(glob.glob(os.path.join(day, "*.pcap")))
    # Shards: one JSON report a capture, as a CI matrix or `parallel` would make them.
    shards = []
    for k, capture in enumerate(captures):
        code, out, err = run(a, "--hosts", hosts_file(a), "--format", "json", capture)
        expect(code in (0, 1), err)
        shards.append(os.path.join(a.work, f"shard-{k}.json"))
        with open(shards[-1], "w") as f:
            f.write(out)
    code_one, one, _ = run(a, "--hosts", hosts_file(a), "--format", "json", day)
    code_all, combined, err = run(a, "--from-json", *shards, "--format", "json")
    expect(code_all == code_one, f"--from-json exit {code_all}, the run's {code_one}: {err}")
    expect(json.loads(combined) == json.loads(one), "--from-json of the shards differs from one run's JSON report")
    # The text summary and the matrix.
    code_t1, t1, _ = run(a, "--hosts", hosts_file(a), "--matrix", "-v", day)
    code_t2, t2, _ = run(a, "--from-json", *shards, "--matrix", "-v")
    expect((code_t1, t1) == (code_t2, t2), "text differs:\n" + "\n".join(
        difflib.unified_diff(t1.splitlines(), t2.splitlines(), "run", "--from-json", lineterm="")))
    # Names given afterwards: shards made without a hosts file, named by --hosts now.
    bare = []
    for k, capture in enumerate(captures):
        _, out, _ = run(a, "--format", "json", capture)
        bare.append(os.path.join(a.work, f"bare-{k}.json"))
        with open(bare[-1], "w") as f:
            f.write(out)
    _, named = run(a, "--from-json", *bare, "--hosts", hosts_file(a), "--format", "json")[:2]
    expect(json.loads(named)["matrix"] == json.loads(one)["matrix"], "--hosts with --from-json: another matrix")
    # JUnit and the exit status as the run's.
    code, xml, _ = run(a, "--from-json", *shards, "--junit", "-")
    _, xml_one, _ = run(a, "--hosts", hosts_file(a), "--junit", "-", day)
    strip_times = lambda x: re.sub(r' time="[0-9.]+"', "", x)
    expect(code == code_one and strip_times(xml) == strip_times(xml_one), "JUnit from JSON differs")
    # HTML: the overview, the matrix first, findings linked to their captures (relative to the
    # page), no octets.
    page_dir = os.path.join(a.work, "pages")
    os.makedirs(page_dir, exist_ok=True)
    page = os.path.join(page_dir, "from-json.html")
    code, _, err = run(a, "--from-json", *shards, "--html", page)
    expect(code == code_one, f"--html from JSON: exit {code}: {err}")
    html = open(page, encoding="utf-8").read()
    expect(html.index('id="matrix"') < html.index('id="captures"'), "the page does not open with the matrix")
    links = set(re.findall(r'<a class="capture-link" href="([^"]+)"', html))
    want = {os.path.relpath(c, page_dir) for c in captures}
    expect(links == want, f"capture links {links}, want {want}")
    expect('<figure class="dump"' not in html and 'class="ladder"' not in html, "octets or ladders from JSON")
    expect(html.count('class="nodump">Read from a JSON report') >= 4, "findings not linked to their captures")
    # Usage errors.
    code, _, err = run(a, captures[0], "--from-json", shards[0])
    expect(code == 2 and "--from-json" in err, f"--from-json with a capture: exit {code}: {err}")
    code, _, err = run(a, "--from-json", captures[0])
    expect(code == 2 and "not JSON" in err, f"--from-json of a pcap: exit {code}: {err}")


CHECKS = {"hosts": check_hosts, "matrix": check_matrix, "compare": check_compare, "from-json": check_from_json}


def main():
    class Args:
        pass
    a = Args()
    a.mpa_check, a.plugfest, a.work, check = sys.argv[1:5]
    a.plugfest = os.path.abspath(a.plugfest)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    try:
        CHECKS[check](a)
    except Failure as e:
        sys.exit(f"FAIL {check}: {e}")
    print(f"ok {check}")


if __name__ == "__main__":
    main()
