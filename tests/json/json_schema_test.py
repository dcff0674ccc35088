#!/usr/bin/env python3
"""The JSON report against its published schema (docs/mpa-check-report.schema.json).

  json_schema_test.py MPA_CHECK SCHEMA CAPTURES SIW_CAPTURES PLUGFEST WORK

Validates what mpa-check --format json writes over every capture in captures/ and
captures/siw/ (also with suppressions, some suppressed and some over their count=, with
--list-fpdus, and a plugfest day named by its hosts file), the report --from-json writes
again, and what --compare --format json writes (the schema's $defs/comparison). Then that
the schema is closed: a report with a value of the wrong type, or with a key the writer never
writes, fails validation.
"""
import copy
import json
import os
import subprocess
import sys


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def validators(schema_path):
    try:
        import jsonschema
    except ImportError:
        raise Failure("python3-jsonschema is needed (apt-get install python3-jsonschema; .ci/setup installs it)")
    with open(schema_path) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    comparison = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/comparison"}
    return cls(schema), cls(comparison)


def errors_of(validator, doc):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(doc)]


def valid(validator, doc, what):
    errors = errors_of(validator, doc)
    expect(not errors, f"{what}: not valid against the schema:\n  " + "\n  ".join(errors[:10]))


def run(mpa_check, *args, cwd):
    p = subprocess.run([mpa_check, *args], capture_output=True, text=True, cwd=cwd)
    expect(p.returncode in (0, 1, 2), f"mpa-check {' '.join(args)}: exit {p.returncode}: {p.stderr[-500:]}")
    return p.stdout


def report(mpa_check, *args, cwd):
    return json.loads(run(mpa_check, "--format", "json", *args, cwd=cwd))


def captures_in(*folders):
    names = []
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not name.endswith((".json", ".md", ".tsv")) and "README" not in name:
                names.append(path)
    return names


def findings_of(doc):
    for cap in doc["captures"]:
        yield from cap["findings"]
        for c in cap["connections"]:
            yield from c["findings"]


def suppression_file(doc, work):
    """Rules for the two warnings found most often: one suppressing all, one with count=1 (so
    findings after its first are over its count)."""
    by_id = {}
    for f in findings_of(doc):
        if f["severity"] == "warning":
            by_id[f["id"]] = by_id.get(f["id"], 0) + 1
    ids = sorted(by_id, key=lambda i: -by_id[i])[:2]
    expect(len(ids) == 2 and by_id[ids[1]] > 1, f"the corpus has too few warnings: {by_id}")
    path = os.path.join(work, "schema.suppressions")
    with open(path, "w") as f:
        f.write(f'id={ids[0]} reason="schema test: all"\n')
        f.write(f'id={ids[1]} count=1 reason="schema test: the first"\n')
    return path


def check_reports(a, report_validator, comparison_validator):
    caps = captures_in(a.captures, a.siw)
    expect(len(caps) > 10, f"captures: only {len(caps)} found in {a.captures} and {a.siw}")
    corpus = report(a.mpa_check, *caps, cwd=a.work)
    valid(report_validator, corpus, "the corpus report")
    expect(len(corpus["captures"]) == len(caps), "a capture missing from the corpus report")

    rules = suppression_file(corpus, a.work)
    suppressed = report(a.mpa_check, "--suppress", rules, *caps, cwd=a.work)
    valid(report_validator, suppressed, "the corpus report with suppressions")
    kinds = {k for f in findings_of(suppressed) for k in ("suppressed", "over_count") if k in f}
    expect(kinds == {"suppressed", "over_count"}, f"suppressions not exercised: {kinds}")
    path = os.path.join(a.work, "suppressed.json")
    with open(path, "w") as f:
        json.dump(suppressed, f)
    again = report(a.mpa_check, "--from-json", path, cwd=a.work)
    valid(report_validator, again, "--from-json of the report with suppressions")
    # (a count= rule's findings name it without its count while it suppresses them)
    counts = {f["over_count"]["count"] for f in findings_of(again) if "over_count" in f}
    expect(counts == {1}, f"--from-json: over_count counts {counts}, the rule says count=1")

    fpdus = report(a.mpa_check, "--list-fpdus", *captures_in(a.siw)[:4], cwd=a.work)
    valid(report_validator, fpdus, "--list-fpdus")
    expect(any("fpdus" in c for cap in fpdus["captures"] for c in cap["connections"]), "--list-fpdus: no FPDU list")

    days = []
    for day in ("day1", "day2"):
        doc = report(a.mpa_check, "--hosts", os.path.join(a.plugfest, "plugfest.hosts"),
                     os.path.join(a.plugfest, day), cwd=a.work)
        valid(report_validator, doc, f"plugfest {day} with its hosts file")
        days.append(os.path.join(a.work, f"{day}.json"))
        with open(days[-1], "w") as f:
            json.dump(doc, f)
    for old, new in ((days[0], days[1]), (days[1], days[0]), (path, path)):
        comparison = report(a.mpa_check, "--compare", old, new, cwd=a.work)
        valid(comparison_validator, comparison, f"--compare {os.path.basename(old)} {os.path.basename(new)}")
        expect(errors_of(report_validator, comparison), "a comparison passes as a report")
    return corpus, comparison


def check_closed(report_validator, comparison_validator, corpus, comparison):
    """Self-test: a wrong type or a key the writer never writes fails validation."""
    cap = next(c for c in corpus["captures"] if c["connections"] and c["connections"][0]["findings"])

    def spoiled(doc, change):
        doc = copy.deepcopy(doc)
        change(doc)
        return doc

    first = corpus["captures"].index(cap)
    bad_reports = {
        "a frame count as text": lambda d: d["captures"][first].__setitem__("frames", "12"),
        "an unknown capture key": lambda d: d["captures"][first].__setitem__("frames_seen", 1),
        "an unknown top-level key": lambda d: d.__setitem__("generator", "mpa-check"),
        "an unknown connection key": lambda d: d["captures"][first]["connections"][0].__setitem__("state", "open"),
        "an unknown finding key": lambda d: d["captures"][first]["connections"][0]["findings"][0].__setitem__("hint", ""),
        "a severity not in the catalogue's": lambda d: d["captures"][first]["connections"][0]["findings"][0].__setitem__(
            "severity", "fatal"),
        "a flag as a number": lambda d: d["captures"][first]["connections"][0]["directions"]["initiator"].__setitem__(
            "markers", 1),
        "a missing key": lambda d: d["captures"][first].pop("verdict"),
        "version 2": lambda d: d.__setitem__("version", 2),
    }
    for what, change in bad_reports.items():
        expect(errors_of(report_validator, spoiled(corpus, change)), f"the schema takes a report with {what}")
    bad_comparisons = {
        "an unknown key": lambda d: d["summary"].__setitem__("regressions", 0),
        "a count as text": lambda d: d["summary"].__setitem__("new", "0"),
    }
    for what, change in bad_comparisons.items():
        expect(errors_of(comparison_validator, spoiled(comparison, change)),
               f"the schema takes a comparison with {what}")


def main():
    class Args:
        pass

    a = Args()
    a.mpa_check, a.schema, a.captures, a.siw, a.plugfest, a.work = map(os.path.abspath, sys.argv[1:7])
    os.makedirs(a.work, exist_ok=True)
    try:
        report_validator, comparison_validator = validators(a.schema)
        corpus, comparison = check_reports(a, report_validator, comparison_validator)
        check_closed(report_validator, comparison_validator, corpus, comparison)
    except Failure as e:
        print(f"FAIL: {e}")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
