#!/usr/bin/env python3
# Keeps the option reference of docs/cli.md the same as `mpa-check --help` (and so the man page).
"""Usage: cli_doc.py MPA_CHECK DOC --check   exit 1 when DOC's --help block differs from MPA_CHECK's
       cli_doc.py MPA_CHECK DOC --write   rewrite that block from MPA_CHECK --help

The block lies between the two marker lines below; the rest of DOC is written by hand. The
man page is made by help2man from the same --help (analyzer/CMakeLists.txt), so the three say
the same. `cmake --build build --target update-cli-doc` runs --write."""
import os
import subprocess
import sys

BEGIN = "<!-- begin: mpa-check --help (written by tests/repo/cli_doc.py: edit analyzer/, then cmake --build build --target update-cli-doc) -->"
END = "<!-- end: mpa-check --help -->"


def help_block(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True,
                         env=dict(os.environ, COLUMNS="80", NO_COLOR="1")).stdout
    # The usage line names the program as it was started: the reference names it as installed.
    out = out.replace(f"Usage: {binary} ", "Usage: mpa-check ")
    lines = [line.rstrip() for line in out.rstrip("\n").split("\n")]
    return "\n".join([BEGIN, "", "```text", *lines, "```", "", END])


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("--check", "--write"):
        print(__doc__)
        return 2
    binary, doc, mode = sys.argv[1:]
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        print(f"{doc}: needs the marker lines, once each, in order:\n{BEGIN}\n{END}")
        return 1
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    wanted = head + help_block(binary) + tail
    if mode == "--write":
        if wanted != text:
            with open(doc, "w", encoding="utf-8") as f:
                f.write(wanted)
            print(f"{doc}: option reference rewritten from {binary} --help")
        return 0
    if wanted != text:
        import difflib
        diff = difflib.unified_diff(text.split("\n"), wanted.split("\n"), doc, f"{binary} --help", lineterm="")
        print("\n".join(diff))
        print(f"{doc} differs from `mpa-check --help`: cmake --build build --target update-cli-doc")
        return 1
    print(f"{doc}: the option reference is mpa-check --help")
    return 0


if __name__ == "__main__":
    sys.exit(main())
