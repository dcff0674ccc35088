#!/usr/bin/env python3
"""The size gate of lib/ and analyzer/, kept by a test as formatting is (tests/repo/).

  sizes.py SOURCE_DIR [--list]

Fails (exit 1), naming file, line and what is over, on
  - a function whose body is over 80 lines (lines between its braces, as clang-tidy's
    readability-function-size counts them);
  - a class or struct with member functions that holds more than 20 data members or more
    than 5 bool members (plain data structs, with no member function, are exempt);
  - a public header (lib/include/mpa/) that includes a header that is not public, or that
    neither the CLI (analyzer/) nor the plugin (plugin/) includes, directly or through another
    public header: a header only the library uses sits beside its sources (lib/src/<layer>/).
--list prints every function over 40 lines and every class over 10 members as well, largest
first, without failing on them. The C++ is read with a small tokenizer (comments, strings,
raw strings and preprocessor lines left out, braces matched), not a compiler: it sees the
shapes this code base is written in (clang-format's Google style).
"""
import os
import re
import subprocess
import sys

MAX_FUNCTION_LINES = 80
MAX_MEMBERS = 20
MAX_BOOLS = 5
SCOPES = ("lib", "analyzer")
PUBLIC_HEADERS = os.path.join("lib", "include", "mpa")


def strip(text):
    """The text with comments, string and character literals and preprocessor lines blanked
    (newlines kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":
            # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        at_line_start = False
        if c == "\n":
            at_line_start = True
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2 : j]))
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            # a character literal, not a digit separator (1'000)
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Record:
    def __init__(self, name, line):
        self.name, self.line = name, line
        self.members = 0
        self.bools = 0
        self.has_functions = False


def declarators(decl):
    """The number of names a member declaration declares (int a, b; declares two)."""
    depth = 0
    count = 1
    for c in decl:
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        elif c == "," and depth == 0:
            count += 1
    return count


def classify_member(statement, record):
    s = statement.strip()
    s = re.sub(r"^((public|private|protected)\s*:\s*)+", "", s)
    if not s:
        return
    if re.match(r"(using|typedef|friend|static_assert|static|template|enum|class|struct|union|"
                r"constexpr static|inline static)\b", s):
        if re.match(r"(class|struct|union)\s+\w+\s*$", s) or not re.match(r"(class|struct|union)\b", s):
            return
    # the declaration before any initialiser
    decl = re.split(r"=|\{", s, maxsplit=1)[0]
    # parentheses outside template arguments make it a function
    depth = 0
    for c in decl:
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif c == "(" and depth == 0:
            record.has_functions = True
            return
    names = declarators(decl)
    record.members += names
    if re.match(r"(mutable\s+)?(const\s+)?bool\s", decl):
        record.bools += names


def scan(path, text):
    """Yields ("function", name, line, body_lines) and ("record", Record) for one file."""
    code = strip(text)
    line_of = []
    line = 1
    for c in code:
        line_of.append(line)
        if c == "\n":
            line += 1
    # the stack holds (kind, start index, extra): kind is namespace, record, function, other
    stack = [("namespace", 0, None)]
    head_start = 0  # where the current statement (head of the next brace) began
    statement = []  # the class-scope statement being read, nested braces left out
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        kind = stack[-1][0]
        if c == "{":
            head = code[head_start:i]
            if kind in ("namespace", "record"):
                new = brace_kind(head)
                if new == "init":
                    # a constructor's initialiser list: a brace-initialised member
                    j = match_brace(code, i)
                    i = j + 1
                    continue
                if new == "function":
                    stack.append(("function", i, function_name(head)))
                    if kind == "record":
                        stack[-2][2].has_functions = True
                elif new == "record":
                    m = re.search(r"\b(class|struct|union)\s+(?:\w+\s+)*?([\w:]+)\s*(final\s*)?(:[^{:][^{]*)?$", head.strip())
                    name = m.group(2) if m else "(anonymous)"
                    stack.append(("record", i, Record(name, line_of[i])))
                elif new == "namespace":
                    stack.append(("namespace", i, None))
                elif kind == "record" and new == "other":
                    # a member's brace initialiser: part of its statement
                    j = match_brace(code, i)
                    statement.append(code[head_start:i] + "{}")
                    head_start = j + 1
                    i = j + 1
                    continue
                else:
                    stack.append(("other", i, None))
                head_start = i + 1
                statement = []
            else:
                stack.append(("other", i, None))
        elif c == "}":
            top_kind, start, extra = stack.pop() if len(stack) > 1 else stack[-1]
            if top_kind == "function":
                yield ("function", extra, line_of[start], line_of[i] - line_of[start] - 1)
            elif top_kind == "record":
                yield ("record", extra)
            if stack[-1][0] in ("namespace", "record"):
                head_start = i + 1
                statement = []
        elif c == ";" and kind in ("namespace", "record"):
            if kind == "record":
                classify_member("".join(statement) + code[head_start:i], stack[-1][2])
            head_start = i + 1
            statement = []
        elif c == ":" and kind == "record":
            # an access specifier ends a statement's head
            if re.search(r"\b(public|private|protected)\s*$", code[head_start:i]) and code[i + 1 : i + 2] != ":":
                head_start = i + 1
        i += 1


def brace_kind(head):
    """What a brace at namespace or class scope opens, from the text before it."""
    h = " ".join(head.split())
    if re.match(r"^(inline )?namespace\b", h) or re.match(r'^extern ""$', h):
        return "namespace"
    if re.search(r"\benum\b", h):
        return "other"
    if "(" not in h and re.search(r"\b(class|struct|union)\b", h):
        return "record"
    if ")" not in h:
        return "other"
    after_parameters = h[h.find(")") :]
    ends_in_name = re.search(r"[\w>]\s*$", h) and not re.search(r"\b(const|noexcept|override|final|mutable)\s*$", h)
    if ends_in_name and "->" not in h[h.rfind(")") :]:
        # a constructor's initialiser list, where a brace after a name initialises a member
        return "init" if re.search(r"(^|[^:]):([^:]|$)", after_parameters) else "other"
    return "function"


def match_brace(code, i):
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def function_name(head):
    h = " ".join(head.split())
    cut = h.find("(")
    # operator() and friends
    m = re.search(r"(operator\s*\S+?|[~\w:]+)\s*(<[^()]*>)?\s*\($", h[: cut + 1]) if cut >= 0 else None
    if m:
        return m.group(1)
    return h[-40:]


def files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--", *SCOPES], capture_output=True, text=True, check=True).stdout.split()
        if out:
            return [f for f in out if f.endswith((".cpp", ".h", ".hpp", ".cc"))]
    except (subprocess.CalledProcessError, FileNotFoundError):
        pass
    found = []
    for scope in SCOPES:
        for dirpath, _, names in os.walk(os.path.join(root, scope)):
            for name in names:
                if name.endswith((".cpp", ".h", ".hpp", ".cc")):
                    found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(found)


def quoted_includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return re.findall(r'^\s*#\s*include\s*"([^"]+)"', f.read(), re.M)


def unused_public_headers(root):
    """The public headers that no file of the CLI or the plugin reaches."""
    public_dir = os.path.join(root, PUBLIC_HEADERS)
    if not os.path.isdir(public_dir):
        return []
    public = {f"mpa/{name}" for name in os.listdir(public_dir) if name.endswith(".h")}
    reached, todo = set(), []
    for face in ("analyzer", "plugin"):
        for dirpath, _, names in os.walk(os.path.join(root, face)):
            for name in names:
                if name.endswith((".c", ".cpp", ".h")):
                    todo += quoted_includes(os.path.join(dirpath, name))
    while todo:
        header = todo.pop()
        if header in public and header not in reached:
            reached.add(header)
            todo += quoted_includes(os.path.join(root, "lib", "include", header))
    return [f"{PUBLIC_HEADERS}/{h[4:]}: a public header neither analyzer/ nor plugin/ includes (move it beside its sources)"
            for h in sorted(public - reached)]


def main(argv):
    root = argv[1]
    listing = "--list" in argv
    failures = []
    notes = []
    for rel in files(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for item in scan(rel, text):
            if item[0] == "function":
                _, name, line, lines = item
                if lines > MAX_FUNCTION_LINES:
                    failures.append((lines, f"{rel}:{line}: function {name} is {lines} lines (at most {MAX_FUNCTION_LINES})"))
                elif listing and lines > 40:
                    notes.append((lines, f"{rel}:{line}: function {name} is {lines} lines"))
            else:
                r = item[1]
                if not r.has_functions:
                    continue
                if r.members > MAX_MEMBERS or r.bools > MAX_BOOLS:
                    failures.append((r.members, f"{rel}:{r.line}: class {r.name} has {r.members} data members and {r.bools} bools (at most {MAX_MEMBERS} and {MAX_BOOLS})"))
                elif listing and r.members > 10:
                    notes.append((r.members, f"{rel}:{r.line}: class {r.name} has {r.members} data members and {r.bools} bools"))
        if rel.startswith(PUBLIC_HEADERS + os.sep):
            for number, line in enumerate(text.splitlines(), 1):
                m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if m and not (m.group(1).startswith("mpa/") and os.path.exists(os.path.join(root, "lib", "include", m.group(1)))):
                    failures.append((0, f"{rel}:{number}: public header includes \"{m.group(1)}\", which is not in lib/include/mpa/"))
    failures += [(0, message) for message in unused_public_headers(root)]
    for _, message in sorted(notes, reverse=True):
        print("note: " + message)
    for _, message in sorted(failures, reverse=True):
        print("sizes: " + message)
    if failures:
        print(f"sizes: {len(failures)} over the limits (a function over {MAX_FUNCTION_LINES} lines, a class over "
              f"{MAX_MEMBERS} data members or {MAX_BOOLS} bools, a public header including a private one)")
        return 1
    print(f"sizes: every function of {', '.join(SCOPES)} at most {MAX_FUNCTION_LINES} lines, every class at most "
          f"{MAX_MEMBERS} data members and {MAX_BOOLS} bools; public headers include public headers only and are all "
          f"used by analyzer/ or plugin/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
