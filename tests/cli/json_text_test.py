#!/usr/bin/env python3
"""The JSON report's text as nlohmann's dump writes it, whatever its length and characters.

  json_text_test.py MPA_CHECK CAPTURE WORKDIR

The streamed connections (analyzer/report_json_stream.h) write plain text (printable ASCII but
'"' and '\\') as it is, checked and copied by pieces whose sizes depend on the text's length
(under 4 octets, 4 to 7, 8 to 16, 17 to 32, longer), and hand any other text to nlohmann. For
names and versions of every length from 1 to 40 octets (--hosts names the capture's two hosts),
plain or with one character that is not ('"', '\\', a control character, DEL, UTF-8) at the
start, the middle or the end: the report parses, each name and version reads back as written,
and its bytes are those of the JSON encoding (json.dumps without ensure_ascii, as nlohmann
escapes: '"', '\\' and control characters only).
"""
import json
import os
import subprocess
import sys

NOT_PLAIN = ['"', "\\", "\x01", "\x1f", "\x7f", "\u00e9"]


class Failure(Exception):
    pass


def names():
    """Every length, plain and with each character that is not plain at three places."""
    out = []
    for length in range(1, 41):
        base = "".join(chr(ord("a") + i % 26) for i in range(length))
        out.append(base)
        for c in NOT_PLAIN:
            for at in sorted({0, length // 2, length - 1}):
                out.append(base[:at] + c + base[at + 1:])
    return out


def field(text):
    """`text` as a hosts file field: quoted, or bare where it holds a '"' (a quoted field
    ends at the next one), which it may not start with; None where it cannot be written."""
    if '"' not in text:
        return f'"{text}"'
    return None if text.startswith('"') else text


def report(a, hosts):
    p = subprocess.run([a[0], "--format", "json", "--hosts", hosts, a[1]], capture_output=True)
    if p.returncode not in (0, 1):
        raise Failure(f"mpa-check --hosts {hosts}: exit {p.returncode}: {p.stderr!r}")
    return p.stdout.decode("utf-8")


def main():
    mpa_check, capture, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    first = json.loads(report((mpa_check, capture), os.devnull))
    c = first["captures"][0]["connections"][0]
    addresses = [c["implementations"][side]["address"] for side in ("initiator", "responder")]
    all_names = names()
    checked = 0
    failures = []
    for k in range(0, len(all_names), 2):
        pair = (all_names[k:k + 2] + ["x"])[:2]
        versions = [pair[1], pair[0]]  # every text as a version too
        written = [(side, address, name, version)
                   for side, address, name, version in zip(("initiator", "responder"), addresses,
                                                           pair, versions)
                   if field(name) and field(version)]
        hosts = os.path.join(work, "text.hosts")
        with open(hosts, "w", encoding="utf-8") as f:
            for _, address, name, version in written:
                f.write(f"{address} {field(name)} {field(version)}\n")
        text = report((mpa_check, capture), hosts)
        try:
            doc = json.loads(text)
        except ValueError as e:
            failures.append(f"{pair!r}: the report does not parse: {e}")
            continue
        for side, _, name, version in written:
            impl = doc["captures"][0]["connections"][0]["implementations"][side]
            for key, want in (("name", name), ("version", version)):
                if impl[key] != want:
                    failures.append(f"{side} {key}: {impl[key]!r}, not {want!r}")
                encoded = f'"{key}": {json.dumps(want, ensure_ascii=False)}'
                if encoded not in text:
                    failures.append(f"{side} {key} {want!r}: {encoded!r} not in the report")
                checked += 1
    if failures:
        print("\n".join(failures[:20]), file=sys.stderr)
        print(f"{len(failures)} failures", file=sys.stderr)
        return 1
    print(f"{checked} names and versions of 1 to 40 octets written as JSON encodes them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
