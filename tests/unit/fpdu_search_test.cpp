// Tests for finding FPDU boundaries in bytes of unknown framing (fpdu_search.h; RFC 5044 4.3,
// 6): by marker back-pointers, by CRC, by a chain of well-formed FPDUs.
#include "fpdu/fpdu_search.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "test_streams.h"

namespace mpa {
namespace {

using test::Bytes;
using test::FpduStreamBuilder;
using Kind = SearchResult::Kind;

// The bytes of `builder` from stream index `from`, with the sequence number of the first.
struct Window {
  std::span<const std::uint8_t> bytes;
  TcpSeq seq;
};
Window window(const FpduStreamBuilder& b, std::size_t from, std::size_t to = SIZE_MAX) {
  const std::span<const std::uint8_t> all = b.bytes();
  to = std::min(to, all.size());
  return {all.subspan(from, to - from), TcpSeq(b.seq_at(from))};
}

TEST(FpduSearch, FindsTheFpduAMarkerPointsBackTo) {
  FpduStreamBuilder builder({.start_seq = 0xFFFFFF00u, .markers = true, .crc = true});
  for (std::uint32_t i = 0; i < 10; ++i) builder.add_random(1000, i);
  const MarkerGrid grid{TcpSeq(0xFFFFFF00u)};
  const auto& f = builder.fpdus();
  // Start inside FPDU 2, after its first marker: the next marker lies in FPDU 2 too (its
  // header is before the window) or in FPDU 3, whose header is inside.
  const std::size_t from = f[2].markers.back().index + 4;
  const Window w = window(builder, from);
  const SearchResult r = find_fpdu_start(w.bytes, w.seq, grid, true, 0, 0);
  ASSERT_EQ(r.kind, Kind::Found);
  EXPECT_EQ(from + r.start, f[3].start);
  // The same without CRCs: markers and structure alone.
  FpduStreamBuilder plain({.start_seq = 0xFFFFFF00u, .markers = true, .crc = false});
  for (std::uint32_t i = 0; i < 10; ++i) plain.add_random(1000, i);
  const Window p = window(plain, from);
  const SearchResult q = find_fpdu_start(p.bytes, p.seq, grid, false, 0, 0);
  ASSERT_EQ(q.kind, Kind::Found);
  EXPECT_EQ(from + q.start, plain.fpdus()[3].start);
}

TEST(FpduSearch, FindsTheFpduAfterAZeroMarker) {
  // FPDU 0 fills the first marker interval exactly, so FPDU 1 leads with a marker, FPDUPTR 0.
  FpduStreamBuilder builder({.start_seq = 4096, .markers = true, .crc = true});
  builder.add_random(512 - 4 - 2 - 4, 1);
  builder.add_random(200, 2);
  builder.add_random(200, 3);
  builder.add_random(200, 4);
  const auto& f = builder.fpdus();
  ASSERT_EQ(f[1].start, 512u);
  ASSERT_TRUE(f[1].leading_marker);
  const Window w = window(builder, 100);
  const SearchResult r = find_fpdu_start(w.bytes, w.seq, MarkerGrid(TcpSeq(4096)), true, 0, 0);
  ASSERT_EQ(r.kind, Kind::Found);
  EXPECT_EQ(100 + r.start, f[1].start);
}

TEST(FpduSearch, SkipsMarkersWithNonZeroReservedOrPointingBeforeTheWindow) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = true, .crc = true});
  builder.add_random(3000, 1);  // markers at 512, 1024, ... all point before the window
  builder.add_random(1000, 2, {.marker_reserved = 5});
  builder.add_random(1000, 3);
  builder.add_random(1000, 4);
  const auto& f = builder.fpdus();
  const Window w = window(builder, 600);
  const SearchResult r = find_fpdu_start(w.bytes, w.seq, MarkerGrid(TcpSeq(0)), true, 0, 0);
  ASSERT_EQ(r.kind, Kind::Found);
  EXPECT_EQ(600 + r.start, f[2].start);
}

TEST(FpduSearch, NeedsMoreWhenTheMarkedFpduIsNotWhole) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = true, .crc = true});
  builder.add_random(100, 1);
  builder.add_random(3000, 2);
  const auto& f = builder.fpdus();
  const Window w = window(builder, 50, f[1].start + 1000);
  const SearchResult r = find_fpdu_start(w.bytes, w.seq, MarkerGrid(TcpSeq(0)), true, 0, 0);
  ASSERT_EQ(r.kind, Kind::NeedMore);
  EXPECT_EQ(50 + r.start, f[1].start);
  // With all of it: found (one whole FPDU reaching the end of the buffer will do).
  const Window all = window(builder, 50);
  const SearchResult done =
      find_fpdu_start(all.bytes, all.seq, MarkerGrid(TcpSeq(0)), true, r.start, 0);
  ASSERT_EQ(done.kind, Kind::Found);
  EXPECT_EQ(50 + done.start, f[1].start);
}

TEST(FpduSearch, FindsTheNextFpduByCrcWithoutMarkers) {
  // Candidates in the tail of FPDU 3 claim up to 65535 octets: they are decided once that
  // much has arrived, so the window holds more than 64 KiB.
  FpduStreamBuilder builder({.start_seq = 0x7FFFFFF0u, .markers = false, .crc = true});
  for (std::uint32_t i = 0; i < 100; ++i) builder.add_random(i % 2 ? 1442 : 137, i);
  const auto& f = builder.fpdus();
  const std::size_t from = f[3].start + 401;
  const Window w = window(builder, from);
  const std::uint32_t alignment = builder.seq_at(0) & 3u;
  const SearchResult r = find_fpdu_start(w.bytes, w.seq, MarkerGrid(), true, 0, alignment);
  ASSERT_EQ(r.kind, Kind::Found);
  EXPECT_EQ(from + r.start, f[4].start);
}

TEST(FpduSearch, OneCrcValidFpduEndingTheBufferIsEnough) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = true});
  builder.add_random(20, 1);
  builder.add_random(50, 2);
  const Window w = window(builder, builder.fpdus()[1].start);
  const SearchResult r = find_fpdu_start(w.bytes, w.seq, MarkerGrid(), true, 0, 0);
  ASSERT_EQ(r.kind, Kind::Found);
  EXPECT_EQ(r.start, 0u);
  // Unless more may follow: the next FPDU could still refute it.
  const SearchResult wait = find_fpdu_start(w.bytes, w.seq, MarkerGrid(), true, 0, 0, true);
  ASSERT_EQ(wait.kind, Kind::NeedMore);
  EXPECT_EQ(wait.start, 0u);
}

TEST(FpduSearch, WhileMoreMayFollowOnlyIrrefutableEvidenceCounts) {
  // FPDU 1 is valid, FPDU 2 is not: cut after FPDU 1 the lenient search takes FPDU 1, the
  // strict one waits, and on the whole buffer both settle on FPDU 3.
  for (const bool markers : {false, true}) {
    FpduStreamBuilder builder({.start_seq = 0, .markers = markers, .crc = true});
    // (Enough after them that candidates inside FPDUs 1-2, claiming up to 64 KiB, are decided.)
    for (std::uint32_t i = 0; i < 250; ++i) builder.add_random(300, i, {.bad_crc = i == 2});
    const auto& f = builder.fpdus();
    const MarkerGrid grid = markers ? MarkerGrid(TcpSeq(0)) : MarkerGrid();
    const std::size_t base = f[1].start;
    const Window cut = window(builder, base, f[1].end());
    const SearchResult lenient = find_fpdu_start(cut.bytes, cut.seq, grid, true, 0, 0, false);
    const SearchResult strict = find_fpdu_start(cut.bytes, cut.seq, grid, true, 0, 0, true);
    ASSERT_EQ(lenient.kind, Kind::Found) << markers;
    EXPECT_EQ(base + lenient.start, f[1].start);
    ASSERT_EQ(strict.kind, Kind::NeedMore) << markers;
    EXPECT_EQ(base + strict.start, f[1].start);
    const Window all = window(builder, base);
    for (const bool more : {false, true}) {
      const SearchResult r = find_fpdu_start(all.bytes, all.seq, grid, true, 0, 0, more);
      ASSERT_EQ(r.kind, Kind::Found) << markers << more;
      EXPECT_EQ(base + r.start, f[3].start) << markers << more;
    }
  }
}

TEST(FpduSearch, WithoutCrcNeedsAChainOfThreeFpdus) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = false});
  const Bytes junk = {0x00, 0x01, 0xAB, 0xCD};  // ULPDU_Length 1 with a non-zero pad
  builder.add_raw(junk);
  for (std::uint32_t i = 0; i < 3; ++i) {
    // ULPDUs that start like DDP (untagged, version 1; RDMAP version 1, Send).
    Bytes ulpdu = mpa::test::random_bytes(101 + 4 * i, i);
    ulpdu[0] = 0x41;
    ulpdu[1] = 0x43;
    builder.add(ulpdu);
  }
  const auto& f = builder.fpdus();
  // Two FPDUs are not yet evidence.
  const Window two = window(builder, 0, f[2].start + 10);
  const SearchResult need = find_fpdu_start(two.bytes, two.seq, MarkerGrid(), false, 0, 0);
  ASSERT_EQ(need.kind, Kind::NeedMore);
  EXPECT_EQ(need.start, 4u);
  // Three are.
  const Window three = window(builder, 0);
  const SearchResult r = find_fpdu_start(three.bytes, three.seq, MarkerGrid(), false, 0, 0);
  ASSERT_EQ(r.kind, Kind::Found);
  EXPECT_EQ(r.start, 4u);
  // The search starts at `from`.
  const SearchResult later = find_fpdu_start(three.bytes, three.seq, MarkerGrid(), false, 1, 0);
  ASSERT_EQ(later.kind, Kind::Found);
  EXPECT_EQ(later.start, 4u);
}

TEST(FpduSearch, CandidatesKeepTheAlignmentAsked) {
  FpduStreamBuilder builder({.start_seq = 2, .markers = false, .crc = true});
  for (std::uint32_t i = 0; i < 4; ++i) builder.add_random(300, i);
  const Window w = window(builder, 0);
  // FPDUs start at seq = 2 mod 4; asking for phase 0 finds none.
  EXPECT_EQ(find_fpdu_start(w.bytes, w.seq, MarkerGrid(), true, 0, 2).kind, Kind::Found);
  EXPECT_NE(find_fpdu_start(w.bytes, w.seq, MarkerGrid(), true, 0, 0).kind, Kind::Found);
}

TEST(FpduSearch, CountsConsecutiveValidFpdus) {
  FpduStreamBuilder builder({.start_seq = 9, .markers = true, .crc = true});
  for (std::uint32_t i = 0; i < 5; ++i) builder.add_random(700, i, {.bad_crc = i == 3});
  const MarkerGrid grid{TcpSeq(9)};
  const std::span<const std::uint8_t> s = builder.bytes();
  bool end = false;
  EXPECT_EQ(count_valid_fpdus(s, TcpSeq(9), 0, grid, true, 10, end), 3u);
  EXPECT_FALSE(end);
  EXPECT_EQ(count_valid_fpdus(s, TcpSeq(9), 0, grid, true, 2, end), 2u);
  EXPECT_FALSE(end);
  // Without CRCs the bad CRC does not matter.
  EXPECT_EQ(count_valid_fpdus(s, TcpSeq(9), 0, grid, false, 10, end), 5u);
  EXPECT_TRUE(end);
  // Cut inside FPDU 2: two whole ones, then the end of the buffer.
  const std::size_t cut = builder.fpdus()[2].start + 100;
  EXPECT_EQ(count_valid_fpdus(s.first(cut), TcpSeq(9), 0, grid, true, 10, end), 2u);
  EXPECT_TRUE(end);
  // From FPDU 4 (the one after the bad one).
  EXPECT_EQ(count_valid_fpdus(s, TcpSeq(9), builder.fpdus()[4].start, grid, true, 10, end), 1u);
  EXPECT_TRUE(end);
}

TEST(FpduSearch, MarkersAndPadsAreEvidence) {
  const auto count = [](const FpduStreamBuilder& b, bool markers, bool crc) {
    bool end = false;
    const MarkerGrid grid = markers ? MarkerGrid(TcpSeq(0)) : MarkerGrid();
    return count_valid_fpdus(b.bytes(), TcpSeq(0), 0, grid, crc, 10, end);
  };
  FpduStreamBuilder moved({.start_seq = 0, .markers = true, .crc = true});
  moved.add_random(1000, 1);
  moved.add_random(1000, 2, {.fpdu_ptr_delta = 4});
  moved.add_random(1000, 3);
  EXPECT_EQ(count(moved, true, true), 1u);
  EXPECT_EQ(count(moved, true, false), 1u);

  FpduStreamBuilder padded({.start_seq = 0, .markers = false, .crc = true});
  padded.add_random(1001, 1);
  padded.add_random(1001, 2, {.pad_value = 1});
  padded.add_random(1001, 3);
  // Without CRCs a non-zero pad is what tells framing from noise; with CRCs it is only a
  // sender's warning (RFC 5044 4.1: ignored on receipt).
  EXPECT_EQ(count(padded, false, false), 1u);
  EXPECT_EQ(count(padded, false, true), 3u);

  FpduStreamBuilder low_bits({.start_seq = 0, .markers = true, .crc = true});
  for (std::uint32_t i = 0; i < 3; ++i) low_bits.add_random(1000, i, {.fpdu_ptr_or = 3});
  EXPECT_EQ(count(low_bits, true, true), 3u);  // treated as zero (RFC 5044 4.2)
}

TEST(FpduSearch, LongUlpduMarkersPointModulo2To16) {
  // Markers more than 65535 octets after the header carry FPDUPTR modulo 2^16.
  FpduStreamBuilder builder({.start_seq = 0, .markers = true, .crc = true});
  builder.add_random(65535, 1);
  builder.add_random(10, 2);
  ASSERT_GT(builder.fpdus()[0].markers.back().index - builder.fpdus()[0].header, 65535u);
  bool end = false;
  EXPECT_EQ(count_valid_fpdus(builder.bytes(), TcpSeq(0), 0, MarkerGrid(TcpSeq(0)), true, 5, end),
            2u);
  EXPECT_TRUE(end);
}

}  // namespace
}  // namespace mpa
