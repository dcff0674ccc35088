#!/usr/bin/env python3
"""Golden tests: mpa-check's findings for a capture equal the expectation stored beside it.

  golden.py check  MPA_CHECK CAPTURE EXPECTED   one capture (a ctest test each)
  golden.py update MPA_CHECK CAPTURE EXPECTED   rewrite an expectation (review the diff!)
  golden.py coverage EXPECTED_DIR...            every wire-reachable catalogue id is expected
                                                 somewhere (needs MPA_CHECK for the catalogue;
                                                 or is checked by a test that generates a
                                                 capture too large to bundle)
  golden.py check-all MPA_CHECK CAPTURE_DIR EXPECTED_DIR [CAPTURE_DIR EXPECTED_DIR ...]
                                                every capture with an expectation, in one test
                                                (tests/crc32c_forced.sh runs it under each CRC32c
                                                implementation)

An expectation lists, per finding: connection, id, severity, RFC error code, direction, frame.
"""
import json
import os
import subprocess
import sys

# Catalogue ids that no capture can show (none today); every other id needs a capture.
UNREACHABLE_FROM_WIRE = set()

# Catalogue ids whose capture is too large to bundle, and the test that makes and checks one.
SHOWN_BY_GENERATED_CAPTURES = {
    "tcp.retransmission-check-stopped":
        "tests/hostile AcknowledgementsLaggingBeyondTheReachStopTheRetransmissionCheckOnce "
        "(mpa-synth --fault tcp.retransmission-check-stopped, 21 MB)",
}


def findings_of(mpa_check, capture):
    proc = subprocess.run([mpa_check, "--format", "json", capture], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"{capture}: mpa-check exited {proc.returncode}: {proc.stderr.strip()}")
    report = json.loads(proc.stdout)
    rows = []
    for cap in report["captures"]:
        for conn in cap["connections"]:
            for f in conn["findings"]:
                rows.append({"connection": conn["id"], "id": f["id"], "severity": f["severity"],
                             "code": f["rfc_error_code"], "direction": f["direction"],
                             "frame": f["frame"]})
        for f in cap["findings"]:
            rows.append({"connection": None, "id": f["id"], "severity": f["severity"],
                         "code": f["rfc_error_code"], "direction": None, "frame": f["frame"]})
    rows.sort(key=lambda r: (r["frame"], r["connection"] if r["connection"] is not None else -1,
                             r["id"], r["direction"] or ""))
    return rows, proc.returncode


def row_text(r):
    return (f"frame {r['frame']}: {r['severity']} {r['id']} (code {r['code']}) "
            f"connection {r['connection']} {r['direction']}")


def verdict_of(capture):
    """The generator's intended verdict from expected.tsv beside the capture, if listed there:
    (set of error/warning ids, set of notes that must appear)."""
    tsv = os.path.join(os.path.dirname(capture), "expected.tsv")
    if not os.path.exists(tsv):
        return None
    with open(tsv) as f:
        for line in f:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if cols[0] == os.path.basename(capture):
                split = lambda c: set(x for x in c.split(",") if x)
                return split(cols[2]), split(cols[3] if len(cols) > 3 else "")
    return None


def check_verdict(capture, got):
    verdict = verdict_of(capture)
    if verdict is None:
        return
    want, notes = verdict
    have = set(r["id"] for r in got if r["severity"] != "note")
    have_notes = set(r["id"] for r in got if r["severity"] == "note")
    if have != want or not notes <= have_notes:
        sys.exit(f"{capture}: errors/warnings {sorted(have)} (intended {sorted(want)}); "
                 f"notes missing: {sorted(notes - have_notes)}")


def check(mpa_check, capture, expected_path):
    got, status = findings_of(mpa_check, capture)
    check_verdict(capture, got)
    with open(expected_path) as f:
        expected = json.load(f)
    want = expected["findings"]
    if got == want:
        has_error = any(r["severity"] == "error" for r in want)
        if status != (1 if has_error else 0):
            sys.exit(f"{capture}: exit status {status}, expected {1 if has_error else 0}")
        print(f"{os.path.basename(capture)}: {len(got)} findings as expected")
        return
    missing = [r for r in want if r not in got]
    extra = [r for r in got if r not in want]
    lines = [f"{capture}: findings differ from {expected_path}"]
    lines += ["  missing: " + row_text(r) for r in missing]
    lines += ["  unexpected: " + row_text(r) for r in extra]
    if not missing and not extra:
        lines.append("  (same findings, different order or multiplicity)")
    sys.exit("\n".join(lines))


def check_all(mpa_check, pairs):
    version = subprocess.run([mpa_check, "--version"], capture_output=True, text=True)
    if version.returncode != 0:
        sys.exit(f"mpa-check --version exited {version.returncode}: {version.stderr.strip()}")
    print(version.stdout.strip())
    failures, checked = [], 0
    for capture_dir, expected_dir in pairs:
        for name in sorted(os.listdir(expected_dir)):
            if not name.endswith(".expected.json"):
                continue
            checked += 1
            try:
                check(mpa_check, os.path.join(capture_dir, name[: -len(".expected.json")]),
                      os.path.join(expected_dir, name))
            except SystemExit as failure:
                failures.append(str(failure))
    if checked == 0:
        sys.exit("no expectations found")
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    if failures:
        sys.exit("\n".join(failures))


def update(mpa_check, capture, expected_path):
    got, _ = findings_of(mpa_check, capture)
    doc = {"capture": os.path.basename(capture), "findings": got}
    with open(expected_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {expected_path} ({len(got)} findings) - review it with git diff before committing")


def coverage(mpa_check, dirs):
    catalogue = json.loads(subprocess.run([mpa_check, "--list-diagnostics", "--format", "json"],
                                          capture_output=True, text=True, check=True).stdout)
    seen = set()
    for d in dirs:
        for name in os.listdir(d):
            if name.endswith(".expected.json"):
                with open(os.path.join(d, name)) as f:
                    seen.update(r["id"] for r in json.load(f)["findings"])
    missing = sorted(e["id"] for e in catalogue if e["id"] not in seen and e["id"] not in UNREACHABLE_FROM_WIRE
                     and e["id"] not in SHOWN_BY_GENERATED_CAPTURES)
    if missing:
        sys.exit("catalogue ids with no capture showing them: " + ", ".join(missing))
    for name, test in SHOWN_BY_GENERATED_CAPTURES.items():
        print(f"{name}: shown by {test}")
    print(f"all {len(catalogue)} catalogue ids are shown by some capture")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mode, mpa_check = sys.argv[1], sys.argv[2]
    if mode == "check":
        check(mpa_check, sys.argv[3], sys.argv[4])
    elif mode == "update":
        update(mpa_check, sys.argv[3], sys.argv[4])
    elif mode == "coverage":
        coverage(mpa_check, sys.argv[3:])
    elif mode == "check-all" and len(sys.argv) % 2 == 1:
        check_all(mpa_check, list(zip(sys.argv[3::2], sys.argv[4::2])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
