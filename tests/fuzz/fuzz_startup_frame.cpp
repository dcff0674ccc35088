// Fuzz target: StartupFrameParser and the startup rules (RFC 5044 7.1.1; RFC 6581 6, 9).
//
// Input: byte 0 picks a piece size; the rest is the stream of octets after a startup
// frame's first octet. The parser is fed the stream whole, in pieces of that size, and one
// octet at a time; all three must consume the same octets and produce the same frame
// (split invariance). The frame is then judged as a Request and as a Reply, and against a
// second frame parsed from the octets after the first (negotiation rules).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_support.h"
#include "mpa/diagnostics.h"
#include "mpa/startup_frame.h"

namespace {

using mpa::StartupFrame;
using mpa::StartupFrameParser;

// Parses the stream in pieces of `piece` octets (0: whole). Returns octets consumed.
std::size_t parse(std::span<const std::uint8_t> stream, std::size_t piece,
                  StartupFrameParser& parser) {
  std::size_t used = 0;
  while (used < stream.size() && !parser.complete()) {
    const std::size_t left = stream.size() - used;
    const std::size_t n = piece == 0 ? left : std::min(piece, left);
    const std::size_t needed = parser.bytes_needed();
    MPA_FUZZ_CHECK(needed > 0, "an incomplete frame needs octets");
    const std::size_t took = parser.push(stream.subspan(used, n));
    MPA_FUZZ_CHECK(took <= n, "push took more octets than given");
    // It stops only at the end of the frame.
    MPA_FUZZ_CHECK(took == n || parser.complete(), "push stopped early without completing");
    // bytes_needed() is a lower bound that is exact for the part being read: fewer octets
    // never complete the frame.
    MPA_FUZZ_CHECK(n >= needed || !parser.complete(), "completed with fewer octets than needed");
    used += took;
  }
  return used;
}

void check_issues(const std::vector<mpa::StartupIssue>& issues) {
  for (const auto& issue : issues) {
    MPA_FUZZ_CHECK(
        static_cast<std::size_t>(issue.id) < static_cast<std::size_t>(mpa::DiagId::kCount),
        "issue id outside the catalogue");
    MPA_FUZZ_CHECK(!mpa::info(issue.id).name.empty(), "issue without a catalogue name");
    MPA_FUZZ_CHECK(!issue.message.empty(), "issue without a message");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mpa::fuzz::Input input({data, size});
  const std::size_t piece = input.u8() % 29 + 1;
  const std::span<const std::uint8_t> stream = input.rest();

  StartupFrameParser whole, pieces, single;
  const std::size_t used = parse(stream, 0, whole);
  MPA_FUZZ_CHECK(parse(stream, piece, pieces) == used, "pieces consumed differently");
  MPA_FUZZ_CHECK(parse(stream, 1, single) == used, "single octets consumed differently");
  MPA_FUZZ_CHECK(whole.complete() == pieces.complete() && whole.complete() == single.complete(),
                 "completion depends on the split");
  MPA_FUZZ_CHECK(whole.consumed() == used, "consumed() disagrees with push()");
  MPA_FUZZ_CHECK(whole.frame() == pieces.frame() && whole.frame() == single.frame(),
                 "frame depends on the split");

  const StartupFrame& frame = whole.frame();
  MPA_FUZZ_CHECK(frame.private_data.size() <= frame.pd_length, "more private data than PD_Length");
  if (!whole.complete()) {
    MPA_FUZZ_CHECK(used == stream.size(), "an incomplete frame left octets unconsumed");
    MPA_FUZZ_CHECK(whole.bytes_needed() > 0, "an incomplete frame needs nothing");
    return 0;
  }
  MPA_FUZZ_CHECK(whole.bytes_needed() == 0, "a complete frame still needs octets");
  MPA_FUZZ_CHECK(used == frame.wire_length(), "consumed octets differ from wire_length()");
  MPA_FUZZ_CHECK(frame.private_data.size() == frame.pd_length,
                 "private data shorter than PD_Length");
  MPA_FUZZ_CHECK(whole.push(stream) == 0, "a complete parser took more octets");
  MPA_FUZZ_CHECK(frame.kind == mpa::classify_key(frame.key), "kind disagrees with the key");
  if (frame.kind != mpa::FrameKind::Unknown) {
    MPA_FUZZ_CHECK(mpa::looks_like_damaged_key(frame.key), "an exact key is not 'damaged' by 0");
  }

  check_issues(mpa::check_startup_frame(frame, mpa::FrameKind::Request));
  check_issues(mpa::check_startup_frame(frame, mpa::FrameKind::Reply));
  MPA_FUZZ_CHECK(!mpa::describe(frame).empty(), "empty description");

  // What follows the first frame is taken as the answer to it.
  StartupFrameParser second;
  parse(stream.subspan(used), 0, second);
  if (second.complete()) {
    check_issues(mpa::check_negotiation(frame, second.frame()));
    check_issues(mpa::check_negotiation(second.frame(), frame));
  }
  check_issues(mpa::check_negotiation(frame, frame));
  return 0;
}
