#!/usr/bin/env bash
# The size gate's self-test: over a made-up tree (no git), sizes.py passes what is at the
# limits and fails each thing over them, so the gate cannot pass by not looking.
set -euo pipefail
gate=$(dirname "$0")/sizes.py
tree=$1
rm -rf "$tree" && mkdir -p "$tree/lib/include/mpa" "$tree/lib/src/fpdu" "$tree/analyzer"
function_of() {  # function_of NAME BODY_LINES
  printf 'int %s(int x) {\n' "$1"
  for ((i = 0; i < $2; i++)); do printf '  x += %d;\n' "$i"; done
  printf '}\n'
}
class_of() {  # class_of NAME MEMBERS BOOLS
  printf 'class %s {\n public:\n  void f();\n\n private:\n' "$1"
  for ((i = 0; i < $2 - $3; i++)); do printf '  int m%d_ = 0;\n' "$i"; done
  for ((i = 0; i < $3; i++)); do printf '  bool b%d_ = false;\n' "$i"; done
  printf '};\n'
}
expect() {  # expect pass|fail WHAT
  if python3 "$gate" "$tree" >"$tree.log"; then got=pass; else got=fail; fi
  [ "$got" = "$1" ] || { cat "$tree.log"; echo "sizes self-test: $2: expected $1, got $got"; exit 1; }
}
printf '#pragma once\nstruct Face {};\n' >"$tree/lib/include/mpa/face.h"
printf '#include "mpa/face.h"\n' >"$tree/analyzer/main.cpp"
function_of at_limit 80 >"$tree/analyzer/a.cpp"
class_of AtLimit 20 5 >"$tree/lib/src/fpdu/c.h"
printf 'struct PlainData {\n%s};\n' "$(for i in $(seq 30); do printf '  bool b%d = false;\n' "$i"; done)" >"$tree/lib/src/fpdu/d.h"
expect pass "a function of 80 lines, a class of 20 members and 5 bools, a plain struct of 30 bools"
function_of over 81 >"$tree/analyzer/b.cpp"
expect fail "a function of 81 lines"
rm "$tree/analyzer/b.cpp"
class_of Over 21 0 >"$tree/lib/src/fpdu/e.h"
expect fail "a class of 21 members"
class_of Over 10 6 >"$tree/lib/src/fpdu/e.h"
expect fail "a class of 6 bools"
rm "$tree/lib/src/fpdu/e.h"
printf '#pragma once\n#include "fpdu/c.h"\n' >"$tree/lib/include/mpa/face.h"
expect fail "a public header including a private one"
printf '#pragma once\nstruct Face {};\n' >"$tree/lib/include/mpa/face.h"
printf '#pragma once\nstruct Unused {};\n' >"$tree/lib/include/mpa/unused.h"
expect fail "a public header that neither the CLI nor the plugin includes"
rm "$tree/lib/include/mpa/unused.h"
expect pass "the tree as it was"
echo "sizes self-test: the gate fails each thing over its limits and passes the rest"
