#!/bin/sh
# layout_grep.sh: the plugin is translation only (one library under every face). Fails
# when a source file of plugin/ names an RFC 5044 layout constant or the marker interval,
# or does sequence arithmetic on FPDU fields: that logic belongs in lib/ (fpdu_layout.h,
# startup_layout.h, marker_grid.h), which the plugin calls. Comments are not searched.
#
#   layout_grep.sh PLUGIN_DIR_OR_FILE...   check these (directories: their .c/.h/.cpp)
#   layout_grep.sh --self-test             check that the check catches what it should
set -eu

# Layout constants the plugin must not name (the library's own names for them).
CONSTANTS='\bk(MarkerSize|MarkerInterval|CrcSize|UlpduLengthSize|StartupKeySize|StartupHeaderSize|StartupFlagsOffset|StartupRevisionOffset|StartupPdLengthOffset|VendorExtensionSize|EnhancedBlockSize)\b'
# The marker interval written out.
LITERALS='(^|[^0-9A-Za-z_.])(512|0x200)([^0-9A-Za-z_]|$)'
# Sequence arithmetic on FPDU fields: a sequence number or position moved by an offset,
# FPDU lengths and pointers added or subtracted, offsets from the library's constants.
SEQ_ARITHMETIC='\b[A-Za-z_]*(seq|pos)\b *(\+|-|\+=|-=) *[^-+=> ]|(\+|-) *(mpa::)?k(Marker|Crc|UlpduLength|Startup|VendorExtension|EnhancedBlock|FpduPtr)[A-Za-z]*\b|\b(wire_length|ulpdu_length|pad_length|fpdu_ptr|header_seq|start_seq) *(\+|-)[^>+-]|(\+|-) *[A-Za-z_.()]*\b(wire_length|ulpdu_length|pad_length|fpdu_ptr)\b'

# Prints FILE:LINE:code with comments blanked (C and C++ comments; line numbers kept) and
# "->" written "." (so that a minus sign is only ever a minus sign).
strip_comments() {
  awk '
    FNR == 1 { in_block = 0 }
    {
      line = $0; out = ""
      while (length(line) > 0) {
        if (in_block) {
          i = index(line, "*/")
          if (i == 0) { line = ""; break }
          line = substr(line, i + 2); in_block = 0; continue
        }
        b = index(line, "/*"); s = index(line, "//")
        if (s > 0 && (b == 0 || s < b)) { out = out substr(line, 1, s - 1); line = ""; break }
        if (b > 0) { out = out substr(line, 1, b - 1); line = substr(line, b + 2); in_block = 1; continue }
        out = out line; line = ""
      }
      gsub(/->/, ".", out)
      print FILENAME ":" FNR ":" out
    }' "$@"
}

# check FILE...: prints every offending line; status 1 when there is one.
check() {
  found=0
  code=$(strip_comments "$@")
  for what in "layout constant:$CONSTANTS" "marker interval:$LITERALS" "sequence arithmetic:$SEQ_ARITHMETIC"; do
    name=${what%%:*}
    pattern=${what#*:}
    hits=$(printf '%s\n' "$code" | grep -E -- "^[^:]*:[0-9]+:.*($pattern)" || true)
    if [ -n "$hits" ]; then
      printf '%s\n' "$hits" | sed "s/^/layout_grep: $name in a face (plugin, analyzer): /" >&2
      found=1
    fi
  done
  return $found
}

sources() {
  for arg in "$@"; do
    if [ -d "$arg" ]; then
      find "$arg" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) | sort
    else
      printf '%s\n' "$arg"
    fi
  done
}

self_test() {
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  status=0
  i=0
  # Each line must be caught (several are the old plugin/mpa_bridge.cpp's own lines).
  while IFS= read -r bad; do
    i=$((i + 1))
    printf '%s\n' "$bad" > "$dir/bad$i.cpp"
    if check "$dir/bad$i.cpp" 2> /dev/null; then
      echo "layout_grep self-test: not caught: $bad" >&2
      status=1
    fi
  done <<'EOF'
  mpa::TcpSeq pos = header_seq + mpa::kUlpduLengthSize;
      pos += mpa::kMarkerSize;
    pos += length;
      v.flags_range = w.locate(seq + mpa::kStartupKeySize, 1);
      v.revision_range = w.locate(seq + 17, 1);
      data_seq += extension_size;
      (seq - m.fpdu_ptr).value(),
        v.crc_range = window->locate(start + (f.wire_length - mpa::kCrcSize), mpa::kCrcSize);
  if (data == nullptr || length < mpa::kStartupKeySize) return 0;
  const uint32_t interval = 512;
  if ((offset & 0x1ff) == 0 && offset % 512 == 0) return;
  uint32_t crc_at = f.start_seq + f.wire_length - 4;
  v.points_to = m->tcp_seq - m->fpdu_ptr;
  const uint32_t ulpdu_end = f->header_seq + 2 + f->ulpdu_length;
EOF
  # Translation is allowed: sequence space into frame offsets, library calls, comments.
  cat > "$dir/good.cpp" <<'EOF'
// The part of [seq, seq + length) inside the payload; markers every 512 octets; kMarkerSize.
/* seq + 4: a comment
   spanning lines: pos += kCrcSize */
mpa_range Window::locate(mpa::SeqRange range) const {
  const std::int64_t begin = range.seq.signed_distance_from(seq);
  const std::int64_t end = begin + range.length;
  v.crc_range = window->locate(mpa::crc_field(start, f.wire_length));
  v.points_to = mpa::fpdu_ptr_target(seq, m.fpdu_ptr).value();
  current.payload = {static_cast<std::uint32_t>(seg.payload.data() - data.data()), 5120};
  rendered_pieces.back().length += piece.length;
  for (i = 0; i < view->fpdu_count; i++) tvb_offset += 1;
}
EOF
  if ! check "$dir/good.cpp"; then
    echo "layout_grep self-test: translation code rejected" >&2
    status=1
  fi
  [ $status -eq 0 ] && echo "layout_grep self-test: $i violations caught, translation code passes"
  return $status
}

if [ "${1:-}" = "--self-test" ]; then
  self_test
  exit $?
fi
if [ $# -eq 0 ]; then
  echo "usage: $0 PLUGIN_DIR_OR_FILE... | --self-test" >&2
  exit 2
fi
files=$(sources "$@")
if [ -z "$files" ]; then
  echo "layout_grep: no source files in $*" >&2
  exit 2
fi
# shellcheck disable=SC2086
if check $files; then
  echo "layout_grep: $(printf '%s\n' "$files" | wc -l) files name no layout constant and do no sequence arithmetic"
else
  echo "layout_grep: the plugin and the analyzer's reports must call the library (fpdu_layout.h, startup_layout.h, marker_grid.h) instead" >&2
  exit 1
fi
