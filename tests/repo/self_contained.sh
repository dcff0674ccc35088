#!/usr/bin/env bash
# The repository is self-contained: no file in it names a path outside it (a folder beside
# the clone, a developer's home or work folder), so a clone on its own builds and tests.
#   self_contained.sh SOURCE_DIR
# Lists the tracked files (git), or every file when SOURCE_DIR is no git work tree (a copy);
# binary files are skipped. Prints each offending line and exits 1.
set -euo pipefail
root=$1
cd "$root"
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
  list() { git ls-files -z; }
else
  list() { find . -path './build*' -prune -o -path ./.git -prune -o -type f -print0; }
fi
# Outside paths: the sibling folder the project was written beside, the source folder's
# parent reached from CMake or a script, and absolute home or work folders.
patterns=(
  '\.\./shared\b'
  '\$\{?PROJECT_SOURCE_DIR\}?/\.\.(/|$)'
  '(^|[^A-Za-z0-9_.~-])/(work|home/[a-z]+)/'
)
found=0
for p in "${patterns[@]}"; do
  if list | xargs -0 -r grep -InE -- "$p" 2>/dev/null; then found=1; fi
done
if [ "$found" -ne 0 ]; then
  echo "self-contained: the lines above name a path outside the repository"
  exit 1
fi
echo "self-contained: $(list | tr -cd '\0' | wc -c) files name no path outside the repository"
