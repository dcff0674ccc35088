#!/usr/bin/env bash
# Formatting is clang-format's job: every C and C++ file in the tree is as clang-format 14
# writes it, with the nearest .clang-format (the root's Google style for the project's C++,
# plugin/.clang-format for the plugin, written as Wireshark's dissectors are).
#   format.sh SOURCE_DIR           check: prints each file that deviates, exits 1
#   format.sh --fix SOURCE_DIR     rewrites them in place
# Lists the tracked files (git), or every file when SOURCE_DIR is no git work tree (a copy).
set -euo pipefail
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
root=$1
clang_format=${CLANG_FORMAT:-clang-format-14}
command -v "$clang_format" >/dev/null || { echo "format: $clang_format missing (apt-get install clang-format-14)"; exit 2; }
cd "$root"
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
  list() { git ls-files -z -- '*.c' '*.h' '*.cpp' '*.cc' '*.hpp'; }
else
  list() { find . \( -path './build*' -o -path ./.git \) -prune -o -type f \
             \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.cc' -o -name '*.hpp' \) -print0; }
fi
if [ "$fix" -eq 1 ]; then
  list | xargs -0 -r "$clang_format" -i --style=file
  exit 0
fi
bad=0
count=0
while IFS= read -r -d '' f; do
  count=$((count + 1))
  if ! "$clang_format" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
    replacements=$("$clang_format" --style=file --output-replacements-xml "$f" | grep -c '<replacement ' || true)
    echo "format: $f: $replacements replacements (bash tests/repo/format.sh --fix .)"
    bad=1
  fi
done < <(list)
[ "$bad" -eq 0 ] || exit 1
echo "format: $count files as clang-format writes them"
