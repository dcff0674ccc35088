#!/usr/bin/env python3
# Checks that every relative link and #anchor in the repository's documentation resolves.
"""Usage: links.py ROOT      check the documentation pages under ROOT (exit 1 on a broken link)
       links.py --self-test  check that a broken file link and a broken anchor are caught

A link is [text](target) or ![alt](target) outside code; http(s) and mailto targets are left
alone. A target's path is relative to the page; its #anchor must be a heading of the page it
names, spelt as GitHub spells heading anchors: lower-case, markup and punctuation dropped
(letters, digits, '_', '-' and spaces kept), each space a '-', a repeated heading's anchor
followed by -1, -2, ..."""
import os
import re
import sys
import tempfile

PAGES = ["README.md", "CONFORMANCE.md", "lib/README.md", "plugin/README.md", "captures/README.md"]
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^()\s>]*(?:\([^()\s]*\)[^()\s>]*)*)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def pages(root):
    found = [p for p in PAGES if os.path.isfile(os.path.join(root, p))]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        found += sorted("docs/" + n for n in os.listdir(docs) if n.endswith(".md"))
    return found


def prose_lines(text):
    """The lines outside fenced code blocks, with inline code spans blanked, numbered from 1."""
    in_fence = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            yield number, re.sub(r"(`+)(?:(?!\1).)*?\1", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    text = LINK.sub(lambda m: m.group(1), heading)  # a link in a heading keeps its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w: letters, digits and '_' (GitHub's \p{Word})
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    result = set()
    with open(path, encoding="utf-8") as f:
        raw = f.read().split("\n")
    in_fence = False
    for line in raw:
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if in_fence or not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        result.add(base if n == 0 else f"{base}-{n}")
    for line in raw:  # explicit HTML anchors
        result.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line))
    return result


def check(root):
    broken = []
    cache = {}
    for page in pages(root):
        with open(os.path.join(root, page), encoding="utf-8") as f:
            text = f.read()
        for number, line in prose_lines(text):
            for m in LINK.finditer(line):
                target = m.group(2)
                if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    continue
                path, _, anchor = target.partition("#")
                where = os.path.normpath(os.path.join(os.path.dirname(os.path.join(root, page)), path)) if path else os.path.join(root, page)
                if not os.path.exists(where):
                    broken.append(f"{page}:{number}: {target}: no such file")
                    continue
                if anchor:
                    if not where.endswith(".md") or os.path.isdir(where):
                        broken.append(f"{page}:{number}: {target}: an anchor into a file that is not a Markdown page")
                        continue
                    if where not in cache:
                        cache[where] = anchors(where)
                    if anchor not in cache[where]:
                        broken.append(f"{page}:{number}: {target}: no heading with the anchor #{anchor}")
    return broken


def self_test():
    cases = {
        "good": ("[a](docs/b.md#a-heading-with-code) [c](#top-heading) [d](docs/) ![e](docs/b.md) [x](https://x/y#z)", True),
        "missing file": ("[a](docs/nothing.md)", False),
        "missing anchor": ("[a](docs/b.md#no-such-heading)", False),
        "missing anchor in the page itself": ("[a](#top)", False),
        "repeated heading": ("[a](docs/b.md#twice-1)", True),
        "link inside code is not a link": ("`[a](docs/nothing.md)`\n```\n[a](nothing.md)\n```", True),
    }
    failed = 0
    for name, (readme, ok) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            os.mkdir(os.path.join(root, "docs"))
            with open(os.path.join(root, "README.md"), "w") as f:
                f.write("# Top heading\n\n" + readme + "\n")
            with open(os.path.join(root, "docs", "b.md"), "w") as f:
                f.write("# B\n\n## A heading, with `code`!\n\n## Twice\n\n## Twice\n")
            broken = check(root)
            if (not broken) != ok:
                print(f"self-test {name}: expected {'no' if ok else 'a'} broken link, got {broken}")
                failed += 1
    print("links self-test: " + ("failed" if failed else f"{len(cases)} cases passed"))
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    broken = check(sys.argv[1])
    for line in broken:
        print(line)
    checked = pages(sys.argv[1])
    print(f"links: {len(broken)} broken link(s) in {len(checked)} pages" if broken else f"links: every link resolves in {len(checked)} pages")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
