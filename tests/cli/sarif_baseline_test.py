#!/usr/bin/env python3
"""SARIF as code scanning uses it, baselines through symbolic links, and the JSON report's tool
version and finding times, through the real binary.

  sarif_baseline_test.py MPA_CHECK CAPTURES_DIR WORKDIR CHECK

CHECK is one of (see each function):
  sarif-dashboard   SARIF over captures/: errors and warnings only (notes with --notes), each
                    result's region the frame's octets in the file, partialFingerprints the
                    same from another folder, valid against the full OASIS 2.1.0 schema
  baseline-symlink  a baseline written through a symbolic link works from the real path and
                    the other way round; one that accepts nothing says so with what it expected
  json-time         the JSON report names mpa-check's version and each finding's frame time
"""
import json
import os
import shutil
import struct
import subprocess
import sys
from collections import Counter
from datetime import datetime, timezone
from urllib.parse import unquote
from sarif_schemas import sarif_validators

HERE = os.path.dirname(os.path.abspath(__file__))
BADCRC = "siw6.1-default-probe-req-crc-badcrc-send-readreq-veth1500.pcap"  # fpdu.crc-mismatch
GSO = "siw6.1-gso-rping-65535B-veth1500.pcap"  # 37 fpdu.ulpdu-length-too-large, 2 startup.reserved-bit-siw-gso


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def run(mpa_check, *args, cwd=None, env=None):
    p = subprocess.run([mpa_check, *args], capture_output=True, text=True, cwd=cwd, env=env)
    return p.returncode, p.stdout, p.stderr


def pcap_records(path):
    """[(offset of the captured octets, captured length, time in ns)] of a pcap file, by frame."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    order, nano = {b"\xd4\xc3\xb2\xa1": ("<", False), b"\xa1\xb2\xc3\xd4": (">", False),
                   b"\x4d\x3c\xb2\xa1": ("<", True), b"\xa1\xb2\x3c\x4d": (">", True)}[magic]
    records, at = [], 24
    while at + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack(order + "IIII", data[at:at + 16])
        records.append((at + 16, incl, sec * 10**9 + (frac if nano else frac * 1000)))
        at += 16 + incl
    return records




def sarif_of(a, folder, *args):
    code, out, err = run(a.mpa_check, "--sarif", "-", *args, "captures", cwd=folder)
    expect(code in (0, 1), f"--sarif over {folder}: exit {code}: {err[-500:]}")
    return json.loads(out)


def check_sarif_dashboard(a):
    """SARIF over captures/ (copied to two folders, run from each): no note by default, notes
    with --notes; every result has a region (the frame's captured octets in the file: the
    pcap record's, by frame number) and partialFingerprints; the fingerprints are the same from
    both folders; the tool's version is --version's; valid against the full OASIS schema."""
    validators = sarif_validators(Failure)
    one, two = os.path.join(a.work, "one"), os.path.join(a.work, "elsewhere", "two")
    for d in (one, two):
        shutil.copytree(a.captures, os.path.join(d, "captures"))
    sarif = sarif_of(a, one)
    for path, validator in validators:
        errors = sorted(validator.iter_errors(sarif), key=lambda e: list(e.path))
        expect(not errors, f"not valid against {os.path.basename(path)}: " +
               "; ".join(f"{list(e.path)}: {e.message[:200]}" for e in errors[:5]))
    run_ = sarif["runs"][0]
    _, version, _ = run(a.mpa_check, "--version")
    driver_version = run_["tool"]["driver"]["version"]
    expect(driver_version and driver_version in version, f"tool.driver.version {driver_version!r}: {version}")
    results = run_["results"]
    levels = Counter(r["level"] for r in results)
    expect(len(results) > 50 and levels["note"] == 0 and levels["error"] > 0 and levels["warning"] > 0,
           f"errors and warnings only by default: {levels}")
    records = {}
    for r in results:
        physical = r["locations"][0]["physicalLocation"]
        region = physical.get("region")
        expect(region and "byteOffset" in region and region.get("byteLength", 0) > 0, f"no region: {r}")
        expect(r.get("partialFingerprints"), f"no partialFingerprints: {r}")
        path = os.path.join(one, unquote(physical["artifactLocation"]["uri"]))
        if path not in records:
            records[path] = pcap_records(path)
        frame = r["properties"]["frame"]
        at, length, _ = records[path][frame - 1]
        expect((region["byteOffset"], region["byteLength"]) == (at, length),
               f"{path} frame {frame}: region {region}, the record's octets are at {at}, {length} long")
    fingerprints = [(r["ruleId"], r["partialFingerprints"]) for r in results]
    again = sarif_of(a, two)
    expect([(r["ruleId"], r["partialFingerprints"]) for r in again["runs"][0]["results"]] == fingerprints,
           "partialFingerprints differ between two folders")
    expect(len(set(json.dumps(f, sort_keys=True) for _, f in fingerprints)) > len(fingerprints) // 2,
           "partialFingerprints tell findings apart")
    with_notes = sarif_of(a, one, "--notes")
    for path, validator in validators:
        expect(not list(validator.iter_errors(with_notes)), f"--notes: not valid against {os.path.basename(path)}")
    noted = Counter(r["level"] for r in with_notes["runs"][0]["results"])
    expect(noted["note"] > 0 and noted["error"] == levels["error"] and noted["warning"] == levels["warning"],
           f"--notes adds the notes: {noted} vs {levels}")


def totals(out):
    """(errors, warnings) unsuppressed of the text report's last line."""
    import re
    m = re.search(r"(\d+) errors?, (\d+) warnings?", out.strip().splitlines()[-1])
    expect(m, f"no totals line:\n{out[-500:]}")
    return int(m.group(1)), int(m.group(2))


def accepted_all(a, what, suppress, captures, cwd, env=None):
    code, out, err = run(a.mpa_check, "--color", "never", "--fail-on", "warning", "--suppress", suppress,
                         *captures, cwd=cwd, env=env)
    expect(code == 0 and totals(out) == (0, 0) and "accepted nothing" not in err,
           f"{what}: exit {code}\n{out[-800:]}{err}")


def check_baseline_symlink(a):
    """A baseline names captures as the user named them (relative to the baseline, symbolic
    links not resolved): written through a symbolic link to a folder, it accepts its findings
    from the folder's real path, and the other way round; a clone whose captures/ is a
    symbolic link to a folder elsewhere writes "captures/..." (not the folder it points to), so
    a clone with its own captures/ folder takes it as it is. A run whose baseline accepts
    nothing says so on stderr with the captures it expected."""
    real, link = os.path.join(a.work, "real"), os.path.join(a.work, "link")
    os.makedirs(os.path.join(real, "caps"))
    for n in (BADCRC, GSO):
        shutil.copy(os.path.join(a.captures, "siw", n), os.path.join(real, "caps", n))
    os.symlink("real", link)
    caps = [f"caps/{BADCRC}", f"caps/{GSO}"]
    for written, used in (("link", "real"), ("real", "link"), ("link", "link")):
        code, _, err = run(a.mpa_check, "--fail-on", "warning", "--write-baseline", f"{written}/baseline",
                           *[f"{written}/{c}" for c in caps], cwd=a.work)
        expect(code == 0, f"writing through {written}: exit {code}: {err}")
        text = open(os.path.join(real, "baseline")).read()
        expect(f'capture="caps/{GSO}" count=37' in text and "../" not in text, f"written through {written}:\n{text}")
        accepted_all(a, f"written through {written}, used through {used}", f"{used}/baseline",
                     [f"{used}/{c}" for c in caps], a.work)
        # The baseline named one way, the captures the other.
        accepted_all(a, f"written through {written}, baseline through {used}, captures through {written}",
                     f"{used}/baseline", [f"{written}/{c}" for c in caps], a.work)
    # From inside the link, as a shell there names the working folder ($PWD).
    env = dict(os.environ, PWD=link)
    code, _, err = run(a.mpa_check, "--fail-on", "warning", "--write-baseline", "baseline", *caps, cwd=link, env=env)
    expect(code == 0, f"writing from inside the link: {err}")
    accepted_all(a, "written inside the link, used from the real path", "real/baseline",
                 [f"real/{c}" for c in caps], a.work)

    # A clone whose captures/ is a symbolic link to a folder elsewhere.
    clone, elsewhere, other = (os.path.join(a.work, d) for d in ("clone", "elsewhere/captures", "clone2"))
    os.makedirs(clone)
    shutil.copytree(os.path.join(real, "caps"), elsewhere)
    os.symlink(os.path.relpath(elsewhere, clone), os.path.join(clone, "captures"))
    code, _, err = run(a.mpa_check, "--fail-on", "warning", "--write-baseline", ".mpa-check-suppressions",
                       "captures", cwd=clone, env=dict(os.environ, PWD=clone))
    text = open(os.path.join(clone, ".mpa-check-suppressions")).read()
    expect(code == 0 and f'capture="captures/{BADCRC}"' in text and "elsewhere" not in text,
           f"a symbolic link in the clone: exit {code}\n{text}{err}")
    shutil.copytree(os.path.join(real, "caps"), os.path.join(other, "captures"))
    shutil.copy(os.path.join(clone, ".mpa-check-suppressions"), other)
    accepted_all(a, "a clone with captures/ of its own", ".mpa-check-suppressions", ["captures"], other)

    # A baseline that accepts nothing: said, with the captures it expected.
    moved = os.path.join(a.work, "moved")
    os.makedirs(moved)
    shutil.copy(os.path.join(clone, ".mpa-check-suppressions"), os.path.join(moved, "baseline"))
    code, out, err = run(a.mpa_check, "--color", "never", "--suppress", "moved/baseline", f"real/caps/{BADCRC}",
                         cwd=a.work)
    expected = os.path.join(moved, "captures", BADCRC)
    expect(code == 1 and "moved/baseline: accepted nothing" in err and f"  {expected}\n" in err,
           f"a baseline that accepts nothing: exit {code}\n{err}")
    # One that accepts something is quiet about it.
    code, out, err = run(a.mpa_check, "--suppress", "real/baseline", f"real/caps/{BADCRC}", cwd=a.work)
    expect("accepted nothing" not in err, err)


def check_json_time(a):
    """--format json names the tool and its version, and gives every finding a time: its
    frame's capture time (the pcap record's), in file mode too; --from-json keeps them."""
    path = os.path.join(a.captures, "siw", GSO)
    code, out, err = run(a.mpa_check, "--format", "json", "--notes", path)
    report = json.loads(out)
    _, version, _ = run(a.mpa_check, "--version")
    tool = report.get("tool", {})
    expect(tool.get("name") == "mpa-check" and tool.get("version") and tool["version"] in version, tool)
    records = pcap_records(path)
    findings = [f for c in report["captures"] for conn in c["connections"] for f in conn["findings"]]
    expect(len(findings) >= 39, f"{len(findings)} findings")
    for f in findings:
        ns = records[f["frame"] - 1][2]
        want = datetime.fromtimestamp(ns // 10**9, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + \
            f".{ns % 10**9 // 1000:06d}Z"
        expect(f.get("time") == want, f"frame {f['frame']}: time {f.get('time')}, the frame's is {want}")
    saved = os.path.join(a.work, "run.json")
    with open(saved, "w") as f:
        f.write(out)
    code, again, err = run(a.mpa_check, "--format", "json", "--from-json", saved)
    merged = json.loads(again)
    times = [f["time"] for c in merged["captures"] for conn in c["connections"] for f in conn["findings"]]
    expect(times == [f["time"] for f in findings], f"--from-json keeps the times: exit {code} {err}")


CHECKS = {"sarif-dashboard": check_sarif_dashboard, "baseline-symlink": check_baseline_symlink,
          "json-time": check_json_time}


def main():
    class Args:
        pass
    a = Args()
    a.mpa_check, a.captures, a.work, check = sys.argv[1:5]
    a.mpa_check = os.path.abspath(a.mpa_check)
    a.captures = os.path.abspath(a.captures)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    try:
        CHECKS[check](a)
    except Failure as e:
        sys.exit(f"FAIL {check}: {e}")
    print(f"ok {check}")


if __name__ == "__main__":
    main()
