// Tests for the FPDU reader (fpdu_reader.h; RFC 5044 4.1-4.4, 6, 8): the RFC's own example
// FPDUs, split invariance, exact bytes_needed(), every finding the reader gives, and
// resynchronisation after a gap. Streams come from the independent builder in
// test_streams.h.
#include "fpdu/fpdu_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "fpdu/fpdu_grammar.h"
#include "fpdu_framer.h"
#include "mpa/crc32c.h"
#include "mpa/ddp.h"
#include "mpa/marker_grid.h"
#include "mpa/sender_framing.h"
#include "test_streams.h"

namespace mpa {
namespace {

using test::BuiltFpdu;
using test::Bytes;
using test::FpduFaults;
using test::FpduStreamBuilder;
using test::read_in_pieces;
using test::reader_config;
using test::RecordedFpdu;
using test::RecordingSink;

using Names = std::vector<std::string>;

// What the reader must say about a built FPDU.
RecordedFpdu expected_event(const BuiltFpdu& f, bool crc, bool keep_ulpdu, bool judged = true) {
  RecordedFpdu r{};
  r.start_seq = f.start_seq;
  r.header_seq = f.header_seq;
  r.start_offset = f.start;
  r.ulpdu_length = f.ulpdu_length;
  r.pad_length = static_cast<std::uint8_t>(f.pad_length);
  r.wire_length = f.wire_length;
  r.leading_marker = f.leading_marker;
  for (const test::BuiltMarker& m : f.markers) {
    r.markers.push_back({m.seq, m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr});
  }
  r.crc_status = !crc ? CrcStatus::NotChecked
                      : (f.crc_sent == f.crc_correct ? CrcStatus::Good : CrcStatus::Bad);
  r.crc_received = f.crc_sent;
  r.crc_computed = crc ? f.crc_correct : 0;
  r.judged = judged;
  r.ulpdu_head.assign(
      f.ulpdu.begin(),
      f.ulpdu.begin() + std::min<std::size_t>(f.ulpdu.size(), FpduReader::kUlpduHeadSize));
  if (keep_ulpdu) r.ulpdu = f.ulpdu;
  return r;
}

// bytes_needed() before octet `p` of the stream is taken, from the builder's record.
std::uint32_t expected_bytes_needed(const FpduStreamBuilder& b, std::size_t p) {
  for (const BuiltFpdu& f : b.fpdus()) {
    if (p < f.start || p >= f.end()) continue;
    if (p < f.header + 2) return static_cast<std::uint32_t>(f.header + 2 - p);
    return static_cast<std::uint32_t>(f.end() - p);
  }
  return b.marker_at(b.seq_at(p)) ? 6 : 2;  // the next FPDU's header (and leading marker)
}

// RFC 5044 Figure 5, the first FPDU of a stream with markers.
const Bytes kFigure5 = {
    0x00, 0x00, 0x00, 0x00,                                      // marker
    0x00, 0x2a,                                                  // ULPDU_Length 42
    0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // DDP/RDMAP, reserved, queue 0
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,              // MSN 1, MO 0
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0, 0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0, 0,  // Send data
    0x52, 0x23, 0x99, 0x83,                                            // CRC32c
};

// RFC 5044 Figure 6, from octet 0x1ec: the second FPDU, holding the marker at 0x200.
const Bytes kFigure6 = {
    0x00, 0x2a, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // 0x1ec
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,                          // MSN 2, MO 0
    0x00, 0x00, 0x00, 0x14,                                                  // 0x200: marker
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,  // 0x204
    0x84, 0x92, 0x58, 0x98,                                               // 0x21c: CRC32c
};

TEST(FpduReader, ReadsRfc5044Figure5WithCrcGood) {
  RecordingSink sink;
  FpduReader reader(reader_config(7000, true, true));
  reader.push(kFigure5, 1, true, sink);
  ASSERT_EQ(sink.fpdus.size(), 1u);
  const RecordedFpdu& f = sink.fpdus[0];
  EXPECT_TRUE(f.leading_marker);
  EXPECT_EQ(f.start_seq, 7000u);
  EXPECT_EQ(f.header_seq, 7004u);
  EXPECT_EQ(f.ulpdu_length, 42);
  EXPECT_EQ(f.pad_length, 0);
  EXPECT_EQ(f.wire_length, 52u);
  EXPECT_EQ(f.crc_status, CrcStatus::Good);
  EXPECT_EQ(f.crc_received, 0x83992352u);
  ASSERT_EQ(f.markers.size(), 1u);
  EXPECT_EQ(f.markers[0].seq, 7000u);
  EXPECT_EQ(f.markers[0].fpdu_ptr, 0);
  EXPECT_EQ(f.ulpdu_head, Bytes(kFigure5.begin() + 6, kFigure5.end() - 4));
  EXPECT_TRUE(sink.findings.empty()) << testing::PrintToString(sink.finding_names());
  EXPECT_EQ(reader.fpdus(), 1u);
  EXPECT_EQ(reader.ulpdu_bytes(), 42u);
  EXPECT_EQ(reader.crc_failures(), 0u);
}

TEST(FpduReader, BuilderReproducesRfc5044Figures5And6) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = true, .crc = true});
  builder.add(test::ddp_send(1, 24));
  EXPECT_EQ(builder.bytes(), kFigure5);

  FpduStreamBuilder second({.start_seq = 0, .markers = true, .crc = true});
  second.add_random(482, 6);  // "the first FPDU ... had a length of 492 octets"
  ASSERT_EQ(second.bytes().size(), 0x1ecu);
  second.add(test::ddp_send(2, 24));
  EXPECT_EQ(Bytes(second.bytes().begin() + 0x1ec, second.bytes().end()), kFigure6);
}

TEST(FpduReader, ReadsRfc5044Figure6WithCrcGood) {
  FpduStreamBuilder builder({.start_seq = 0x10000, .markers = true, .crc = true});
  builder.add_random(482, 6);
  Bytes stream = builder.bytes();
  stream.insert(stream.end(), kFigure6.begin(), kFigure6.end());

  RecordingSink sink;
  FpduReader reader(reader_config(0x10000, true, true));
  reader.push(stream, 1, true, sink);
  ASSERT_EQ(sink.fpdus.size(), 2u);
  EXPECT_EQ(sink.fpdus[0].crc_status, CrcStatus::Good);
  const RecordedFpdu& f = sink.fpdus[1];
  EXPECT_FALSE(f.leading_marker);
  EXPECT_EQ(f.header_seq, 0x10000u + 0x1ec);
  EXPECT_EQ(f.ulpdu_length, 42);
  EXPECT_EQ(f.wire_length, 52u);
  EXPECT_EQ(f.crc_status, CrcStatus::Good);
  EXPECT_EQ(f.crc_received, 0x98589284u);
  ASSERT_EQ(f.markers.size(), 1u);
  EXPECT_EQ(f.markers[0].seq, 0x10000u + 0x200);
  EXPECT_EQ(f.markers[0].fpdu_ptr, 0x14);
  EXPECT_EQ(f.markers[0].expected_fpdu_ptr, 0x14);
  // The ULPDU handed on has the marker taken out.
  EXPECT_EQ(f.ulpdu_head, test::ddp_send(2, 24));
  EXPECT_TRUE(sink.findings.empty()) << testing::PrintToString(sink.finding_names());
}

// ---- split invariance

struct StreamCase {
  bool markers;
  bool crc;
  std::uint32_t start_seq;
};

std::string describe(const StreamCase& c) {
  return testing::PrintToString(c.markers) + " markers, " + testing::PrintToString(c.crc) +
         " crc, start " + std::to_string(c.start_seq);
}

FpduStreamBuilder mixed_stream(const StreamCase& c) {
  FpduStreamBuilder builder({.start_seq = c.start_seq, .markers = c.markers, .crc = c.crc});
  std::uint32_t seed = 1;
  for (const std::size_t size : {0u, 1u, 2u, 3u, 510u, 1442u, 4096u, 65535u, 1442u, 1442u, 3u,
                                 1442u, 0u, 510u, 1442u, 1442u, 1442u, 2u, 1u}) {
    builder.add_random(size, seed++);
  }
  return builder;
}

const StreamCase kStreamCases[] = {
    {false, false, 1000},       {false, true, 1000},       {true, false, 1000},
    {true, true, 1000},         {true, true, 0xFFFF0000u}, {false, true, 0xFFFFFFF0u},
    {true, false, 0xFFFFFE00u}, {true, true, 0xFFFFFFFEu},
};

TEST(FpduReader, ReadsEveryFpduOfMixedStreamsAsBuilt) {
  for (const StreamCase& c : kStreamCases) {
    SCOPED_TRACE(describe(c));
    const FpduStreamBuilder builder = mixed_stream(c);
    const RecordingSink sink =
        read_in_pieces(reader_config(c.start_seq, c.markers, c.crc, true), builder.bytes(), {});
    ASSERT_EQ(sink.fpdus.size(), builder.fpdus().size());
    for (std::size_t i = 0; i < sink.fpdus.size(); ++i) {
      EXPECT_EQ(sink.fpdus[i], expected_event(builder.fpdus()[i], c.crc, true)) << "FPDU " << i;
    }
    // The 65535-octet ULPDU is larger than any MULPDU; nothing else is wrong.
    EXPECT_EQ(sink.finding_names(), Names{"fpdu.ulpdu-length-too-large"});
  }
}

TEST(FpduReader, SameEventsWholeByteByByteRandomSplitsAnd1448OctetPieces) {
  for (const StreamCase& c : kStreamCases) {
    SCOPED_TRACE(describe(c));
    const FpduStreamBuilder builder = mixed_stream(c);
    const Bytes& stream = builder.bytes();
    const FpduReaderConfig config = reader_config(c.start_seq, c.markers, c.crc, true);
    const RecordingSink whole = read_in_pieces(config, stream, {});
    ASSERT_EQ(whole.fpdus.size(), builder.fpdus().size());
    const std::vector<std::vector<std::size_t>> splits = {
        test::every(1, stream.size()), test::every(1448, stream.size()),
        test::random_cuts(stream.size(), 50, 1), test::random_cuts(stream.size(), 500, 2),
        test::random_cuts(stream.size(), 5000, 3)};
    for (std::size_t k = 0; k < splits.size(); ++k) {
      SCOPED_TRACE("split " + std::to_string(k));
      const RecordingSink pieces = read_in_pieces(config, stream, splits[k]);
      EXPECT_EQ(pieces.fpdus, whole.fpdus);
      EXPECT_EQ(pieces.findings, whole.findings);
    }
  }
}

// ---- a CRC given with the segment (SegmentFacts::payload_crc)

TEST(FpduReader, ACrcGivenWithEachSegmentReadsAsTheCrcComputedHere) {
  for (const StreamCase& c : kStreamCases) {
    SCOPED_TRACE(describe(c));
    FpduStreamBuilder builder = mixed_stream(c);
    builder.add_random(1442, 40, {.bad_crc = true});  // a wrong CRC: named alike either way
    builder.add_random(600, 41);
    const Bytes& stream = builder.bytes();
    // CRCs as negotiated, and not negotiated from a sender that writes them anyway.
    for (const bool reader_crc : {c.crc, false}) {
      const FpduReaderConfig config = reader_config(c.start_seq, c.markers, reader_crc, true);
      for (const std::vector<std::size_t>& cuts :
           {test::fpdu_ends(builder), test::every(1448, stream.size()),
            test::random_cuts(stream.size(), 50, 4), std::vector<std::size_t>{}}) {
        const RecordingSink computed = read_in_pieces(config, stream, cuts);
        const RecordingSink given = read_in_pieces(config, stream, cuts, test::crc_but_last_four);
        EXPECT_EQ(given.fpdus, computed.fpdus);
        EXPECT_EQ(given.crc_unchecked, computed.crc_unchecked);
        EXPECT_EQ(given.findings, computed.findings);
        // Given one bit off wherever FpduGrammar::may_be_one_fpdu says the piece is no FPDU:
        // never taken there.
        const RecordingSink spared = read_in_pieces(
            config, stream, cuts,
            [](std::span<const std::uint8_t> piece) -> std::optional<std::uint32_t> {
              const std::optional<std::uint32_t> crc = test::crc_but_last_four(piece);
              if (!crc || FpduGrammar::may_be_one_fpdu(piece)) return crc;
              return *crc ^ 1u;
            });
        EXPECT_EQ(spared.fpdus, computed.fpdus);
        EXPECT_EQ(spared.findings, computed.findings);
      }
    }
  }
}

TEST(FpduReader, ACrcGivenIsTakenWhereOneFpduFillsTheSegmentAndNowhereElse) {
  FpduStreamBuilder builder({.start_seq = 1000, .markers = true, .crc = true});
  for (std::uint32_t i = 0; i < 6; ++i) builder.add_random(i % 2 != 0 ? 1442 : 600, 50 + i);
  const std::vector<BuiltFpdu>& f = builder.fpdus();
  // Segments: FPDU 0 alone (its leading marker first), FPDUs 1 and 2 together, FPDU 3 alone,
  // FPDU 4 with the first octets of 5, the rest of 5.
  const std::vector<std::size_t> cuts = {f[0].end(), f[2].end(), f[3].end(), f[5].start + 10};
  // Each segment's CRC given one bit off shows where it was taken.
  const RecordingSink sink =
      read_in_pieces(reader_config(1000, true, true), builder.bytes(), cuts,
                     [](std::span<const std::uint8_t> piece) -> std::optional<std::uint32_t> {
                       return *test::crc_but_last_four(piece) ^ 1u;
                     });
  ASSERT_EQ(sink.fpdus.size(), f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    SCOPED_TRACE("FPDU " + std::to_string(i));
    const bool alone = i == 0 || i == 3;
    EXPECT_EQ(sink.fpdus[i].crc_computed, alone ? f[i].crc_correct ^ 1u : f[i].crc_correct);
    EXPECT_EQ(sink.fpdus[i].crc_status, alone ? CrcStatus::Bad : CrcStatus::Good);
  }
  EXPECT_TRUE(f[0].leading_marker);
  EXPECT_EQ(sink.finding_names(), (Names{"fpdu.crc-mismatch", "fpdu.not-judged-after-error"}));
}

// FpduGrammar::may_be_one_fpdu says yes to every FPDU that fills its data, whatever the
// sender's framing (ULPDU_Length counting other octets, other pads) and wherever the markers
// fall; and no to most data that only starts one (the octets of a 64 KiB FPDU cut into
// segments), whose CRCs the pipeline's reading thread then spares.
TEST(FpduReader, OnlyDataThatIsNoWholeFpduIsToldApartFromOne) {
  std::mt19937 rng(20261127);
  std::size_t framings = 0;
  for (const bool markers : {false, true}) {
    for (const SenderHypothesis& h : framing_hypotheses(markers, true)) {
      if (!h.framing.crc_field) continue;
      ++framings;
      const MarkerGrid grid = h.markers ? MarkerGrid(TcpSeq(1000)) : MarkerGrid();
      for (int i = 0; i < 3000; ++i) {
        const TcpSeq start(1000 + static_cast<std::uint32_t>(rng() % 2048));
        const auto ulpdu_length = static_cast<std::uint16_t>(rng() % (i % 3 == 0 ? 65536 : 9000));
        const std::uint32_t wire = fpdu_wire_length(grid, start, h.framing, ulpdu_length);
        const std::size_t header = grid.is_marker_at(start) ? kMarkerSize : 0;
        Bytes fpdu(std::max<std::size_t>(wire, header + kUlpduLengthSize + kCrcSize), 0x5a);
        fpdu[header] = static_cast<std::uint8_t>(ulpdu_length >> 8);
        fpdu[header + 1] = static_cast<std::uint8_t>(ulpdu_length);
        fpdu.resize(wire);
        if (wire < header + kUlpduLengthSize + kCrcSize) continue;  // (give_crc refuses it)
        ASSERT_TRUE(FpduGrammar::may_be_one_fpdu(fpdu))
            << "ULPDU_Length " << ulpdu_length << ", " << wire << " octets from " << start.value();
      }
    }
  }
  EXPECT_GE(framings, 4u);
  // The first 1448 octets of 64 KiB FPDUs, and segments from their middle.
  std::size_t no = 0;
  for (int i = 0; i < 1000; ++i) {
    Bytes segment(1448);
    for (auto& octet : segment) octet = static_cast<std::uint8_t>(rng());
    if (i % 2 == 0) segment[0] = 0xfd;  // ULPDU_Length 0xfdxx
    no += !FpduGrammar::may_be_one_fpdu(segment);
  }
  EXPECT_GT(no, 980u);
}

// Where a marker splits ULPDU_Length or lies across the CRC field, the CRC given for the
// segment is not the FPDU's (give_crc foresees both and takes none there). Both need FPDUs
// off the grid's four-octet alignment: a grid whose origin is not where reading starts.
TEST(FpduReader, ACrcGivenIsNotTakenWhereAMarkerSplitsTheLengthOrTheCrcField) {
  std::size_t split = 0, across = 0, taken = 0;
  for (const std::uint32_t shift : {1u, 2u, 3u}) {
    SCOPED_TRACE("grid origin " + std::to_string(shift) + " before the start");
    FpduStreamBuilder builder(
        {.start_seq = 1000, .markers = true, .crc = true, .grid_origin = 1000 - shift});
    for (std::uint32_t i = 0; i < 200; ++i) builder.add_random(1 + (i * 37) % 700, 100 + i);
    const std::vector<BuiltFpdu>& f = builder.fpdus();
    FpduReaderConfig config = reader_config(1000, true, true);
    config.grid_origin = TcpSeq(1000 - shift);
    config.grid_origin_set = true;
    const RecordingSink sink =
        read_in_pieces(config, builder.bytes(), test::fpdu_ends(builder),
                       [](std::span<const std::uint8_t> piece) -> std::optional<std::uint32_t> {
                         return *test::crc_but_last_four(piece) ^ 1u;  // shows where it is taken
                       });
    ASSERT_EQ(sink.fpdus.size(), f.size());
    for (std::size_t i = 0; i < f.size(); ++i) {
      SCOPED_TRACE("FPDU " + std::to_string(i));
      bool splits_length = false, across_crc = false;
      for (const test::BuiltMarker& m : f[i].markers) {
        splits_length |= m.index == f[i].start + 1;
        across_crc |= m.index + 7 >= f[i].end() && m.index < f[i].end();
      }
      const bool take = !splits_length && !across_crc;
      split += splits_length;
      across += across_crc;
      taken += take;
      EXPECT_EQ(sink.fpdus[i].crc_computed, take ? f[i].crc_correct ^ 1u : f[i].crc_correct);
    }
  }
  EXPECT_GE(split, 2u);
  EXPECT_GE(across, 3u);
  EXPECT_GE(taken, 300u);
}

TEST(FpduReader, ReportsExactBytesNeeded) {
  for (const StreamCase& c : kStreamCases) {
    SCOPED_TRACE(describe(c));
    const FpduStreamBuilder builder = mixed_stream(c);
    const Bytes& stream = builder.bytes();
    RecordingSink sink;
    FpduReader reader(reader_config(c.start_seq, c.markers, c.crc));
    for (std::size_t p = 0; p < stream.size(); ++p) {
      ASSERT_EQ(reader.bytes_needed(), expected_bytes_needed(builder, p)) << "at octet " << p;
      reader.push(std::span<const std::uint8_t>(&stream[p], 1), 1, false, sink);
    }
    EXPECT_EQ(reader.bytes_needed(), expected_bytes_needed(builder, stream.size()));
    EXPECT_FALSE(reader.in_fpdu());
    EXPECT_EQ(reader.fpdus(), builder.fpdus().size());
  }
}

TEST(FpduReader, BytesNeededCompletesTheUnitWhenPushedInOnePiece) {
  // Feeding exactly bytes_needed() octets each time ends each FPDU on a push boundary.
  const FpduStreamBuilder builder = mixed_stream({true, true, 0xFFFFFF00u});
  const Bytes& stream = builder.bytes();
  RecordingSink sink;
  FpduReader reader(reader_config(0xFFFFFF00u, true, true));
  std::size_t at = 0;
  std::size_t pushes = 0;
  while (at < stream.size()) {
    const std::size_t n = reader.bytes_needed();
    reader.push(std::span<const std::uint8_t>(stream).subspan(at, n), ++pushes, true, sink);
    at += n;
    EXPECT_EQ(reader.in_fpdu(), sink.fpdus.size() < builder.fpdus().size() &&
                                    builder.fpdus()[sink.fpdus.size()].start < at);
  }
  EXPECT_EQ(at, stream.size());
  EXPECT_EQ(pushes, 2 * builder.fpdus().size());  // header, then the rest
}

TEST(FpduReader, InFpduOnceTheLeadingMarkerHasArrived) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = true, .crc = true});
  builder.add_random(100, 1);
  RecordingSink sink;
  FpduReader reader(reader_config(0, true, true));
  EXPECT_FALSE(reader.in_fpdu());
  reader.push(std::span<const std::uint8_t>(builder.bytes()).first(4), 1, true, sink);
  EXPECT_TRUE(reader.in_fpdu());
  EXPECT_EQ(reader.bytes_needed(), 2u);
}

// ---- markers

TEST(FpduReader, MarkersAcrossTheSequenceWrapPointAtTheirHeaders) {
  const std::uint32_t start = 0xFFFFFC00u;
  FpduStreamBuilder builder({.start_seq = start, .markers = true, .crc = true});
  for (int i = 0; i < 6; ++i) builder.add_random(1442, static_cast<std::uint32_t>(i));
  ASSERT_LT(builder.next_seq(), start);  // the stream wrapped
  const RecordingSink sink = read_in_pieces(reader_config(start, true, true), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 6u);
  bool crossed = false;
  for (const RecordedFpdu& f : sink.fpdus) {
    EXPECT_EQ(f.crc_status, CrcStatus::Good);
    for (const test::RecordedMarker& m : f.markers) {
      EXPECT_EQ(static_cast<std::uint32_t>(m.seq - start) % 512, 0u);
      EXPECT_EQ(m.fpdu_ptr, m.expected_fpdu_ptr);
      if (m.expected_fpdu_ptr != 0 && m.seq < f.header_seq) crossed = true;  // header before 2^32
    }
  }
  EXPECT_TRUE(crossed);
  EXPECT_TRUE(sink.findings.empty()) << testing::PrintToString(sink.finding_names());
}

TEST(FpduReader, GridOriginCanDifferFromTheStartOfReading) {
  // A reader started mid-stream (inferred parameters) on a grid laid down earlier.
  FpduStreamBuilder builder(
      {.start_seq = 5000, .markers = true, .crc = true, .grid_origin = 5000 - 128});
  builder.add_random(1442, 1);
  builder.add_random(700, 2);
  FpduReaderConfig config = reader_config(5000, true, true);
  config.grid_origin = TcpSeq(5000 - 128);
  config.grid_origin_set = true;
  const RecordingSink sink = read_in_pieces(config, builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 2u);
  EXPECT_EQ(sink.fpdus[0], expected_event(builder.fpdus()[0], true, false));
  EXPECT_EQ(sink.fpdus[1], expected_event(builder.fpdus()[1], true, false));
  EXPECT_TRUE(sink.findings.empty());
}

// ---- findings

FpduStreamBuilder four_fpdus(bool markers, bool crc, std::size_t faulty, const FpduFaults& faults,
                             std::size_t size = 1442) {
  FpduStreamBuilder builder({.start_seq = 100, .markers = markers, .crc = crc});
  for (std::size_t i = 0; i < 4; ++i) {
    builder.add_random(size, static_cast<std::uint32_t>(i), i == faulty ? faults : FpduFaults{});
  }
  return builder;
}

TEST(FpduReader, CrcMismatchIsCode2AtTheFpduThenOneNotJudgedNoteAndNothingMore) {
  FpduStreamBuilder builder({.start_seq = 100, .markers = true, .crc = true});
  builder.add_random(1442, 1);
  builder.add_random(1442, 2, {.bad_crc = true});
  builder.add_random(1442, 3, {.bad_crc = true, .pad_value = 0, .marker_reserved = 1});
  builder.add_random(1441, 4, {.pad_value = 7});
  builder.add_random(70000 - 65536, 5, {.fpdu_ptr_delta = 4});
  const RecordingSink sink = read_in_pieces(reader_config(100, true, true), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 5u);
  EXPECT_EQ(sink.finding_names(), (Names{"fpdu.crc-mismatch", "fpdu.not-judged-after-error"}));
  EXPECT_EQ(sink.findings[0].seq, builder.fpdus()[1].header_seq);
  EXPECT_EQ(sink.findings[0].offset, builder.fpdus()[1].header);
  EXPECT_EQ(info(sink.findings[0].id).error_code, MpaError::CrcError);
  EXPECT_EQ(sink.findings[1].seq, builder.fpdus()[2].header_seq);
  EXPECT_EQ(sink.fpdus[1].crc_status, CrcStatus::Bad);
  EXPECT_TRUE(sink.fpdus[0].judged);
  EXPECT_TRUE(sink.fpdus[1].judged);  // the FPDU with the error was judged
  EXPECT_FALSE(sink.fpdus[2].judged);
  EXPECT_FALSE(sink.fpdus[4].judged);
  EXPECT_EQ(sink.fpdus[2].crc_status, CrcStatus::Bad);  // still computed, not judged
}

TEST(FpduReader, FindingsAboutAnFpduWithLeadingMarkerNameItsHeaderBySeqAndOffset) {
  FpduStreamBuilder builder({.start_seq = 0xFFFFFFFCu, .markers = true, .crc = true});
  builder.add_random(1, 1, {.bad_crc = true, .pad_value = 9});
  builder.add_random(1, 2);
  ASSERT_TRUE(builder.fpdus()[0].leading_marker);
  const RecordingSink sink =
      read_in_pieces(reader_config(0xFFFFFFFCu, true, true), builder.bytes(), {});
  EXPECT_EQ(sink.finding_names(),
            (Names{"fpdu.pad-nonzero", "fpdu.crc-mismatch", "fpdu.not-judged-after-error"}));
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(sink.findings[i].seq, 0u);  // the header, right after the marker (and the wrap)
    EXPECT_EQ(sink.findings[i].offset, 4u);
  }
  EXPECT_EQ(sink.findings[2].seq, builder.fpdus()[1].header_seq);
  EXPECT_EQ(sink.findings[2].offset, builder.fpdus()[1].header);
}

TEST(FpduReader, CrcIsNotCheckedWhenNotNegotiated) {
  const FpduStreamBuilder builder = four_fpdus(true, false, 1, {.bad_crc = true});
  const RecordingSink sink = read_in_pieces(reader_config(100, true, false), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 4u);
  for (const RecordedFpdu& f : sink.fpdus) EXPECT_EQ(f.crc_status, CrcStatus::NotChecked);
  EXPECT_TRUE(sink.findings.empty());
}

TEST(FpduReader, NonZeroPadIsAWarningThatDoesNotEndJudgement) {
  const FpduStreamBuilder builder = four_fpdus(false, true, 1, {.pad_value = 0x80}, 1441);
  const RecordingSink sink = read_in_pieces(reader_config(100, false, true), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 4u);
  EXPECT_EQ(sink.finding_names(), Names{"fpdu.pad-nonzero"});
  EXPECT_EQ(sink.findings[0].seq, builder.fpdus()[1].header_seq);
  EXPECT_EQ(sink.fpdus[1].crc_status, CrcStatus::Good);  // the pad is inside the CRC
  EXPECT_TRUE(sink.fpdus[3].judged);
}

TEST(FpduReader, UlpduLengthAbove64768IsAWarningThatDoesNotEndJudgement) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = true});
  builder.add_random(64768, 1);  // the catalogue's limit itself: fine
  builder.add_random(64769, 2);
  builder.add_random(100, 3);
  const RecordingSink sink = read_in_pieces(reader_config(0, false, true), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 3u);
  EXPECT_EQ(sink.finding_names(), Names{"fpdu.ulpdu-length-too-large"});
  EXPECT_EQ(sink.findings[0].seq, builder.fpdus()[1].header_seq);
  EXPECT_EQ(sink.findings[0].offset, builder.fpdus()[1].header);
  EXPECT_TRUE(sink.fpdus[2].judged);
}

TEST(FpduReader, TheUlpduLengthLimitIsTheSameWithMarkers) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = true, .crc = true});
  builder.add_random(64768, 1);
  builder.add_random(64769, 2);
  const RecordingSink sink = read_in_pieces(reader_config(0, true, true), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 2u);
  EXPECT_EQ(sink.finding_names(), Names{"fpdu.ulpdu-length-too-large"});
  EXPECT_EQ(sink.findings[0].seq, builder.fpdus()[1].header_seq);
}

TEST(FpduReader, MarkerPointingElsewhereIsCode3AtTheMarker) {
  const FpduStreamBuilder builder = four_fpdus(true, true, 1, {.fpdu_ptr_delta = 8});
  const RecordingSink sink = read_in_pieces(reader_config(100, true, true), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 4u);
  EXPECT_EQ(sink.finding_names(),
            (Names{"marker.fpduptr-mismatch", "fpdu.not-judged-after-error"}));
  const test::BuiltMarker& bad = builder.fpdus()[1].markers.front();
  EXPECT_EQ(sink.findings[0].seq, bad.seq);
  EXPECT_EQ(sink.findings[0].offset, bad.index);
  EXPECT_EQ(info(sink.findings[0].id).error_code, MpaError::MarkerMismatch);
  // The note comes at the next FPDU, not at the one holding the bad marker.
  EXPECT_EQ(sink.findings[1].seq, builder.fpdus()[2].header_seq);
  EXPECT_TRUE(sink.fpdus[1].judged);
  EXPECT_FALSE(sink.fpdus[2].judged);
}

TEST(FpduReader, LeadingMarkerMustBeZero) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = true, .crc = true});
  builder.add_random(20, 1, {.leading_fpdu_ptr = 0x10});
  builder.add_random(20, 2);
  const RecordingSink sink = read_in_pieces(reader_config(0, true, true), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 2u);
  EXPECT_EQ(sink.finding_names(),
            (Names{"marker.fpduptr-mismatch", "fpdu.not-judged-after-error"}));
  EXPECT_EQ(sink.findings[0].seq, 0u);
}

TEST(FpduReader, MarkerReservedFieldIsAWarningPerMarker) {
  const FpduStreamBuilder builder = four_fpdus(true, true, 2, {.marker_reserved = 0x0100});
  const RecordingSink sink = read_in_pieces(reader_config(100, true, true), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 4u);
  const std::size_t markers = builder.fpdus()[2].markers.size();
  ASSERT_GE(markers, 2u);
  EXPECT_EQ(sink.finding_names(), Names(markers, "marker.reserved-nonzero"));
  for (std::size_t i = 0; i < markers; ++i) {
    EXPECT_EQ(sink.findings[i].seq, builder.fpdus()[2].markers[i].seq);
  }
  EXPECT_TRUE(sink.fpdus[3].judged);
}

TEST(FpduReader, FpduptrLowBitsAreAWarningAndTreatedAsZero) {
  const FpduStreamBuilder builder = four_fpdus(true, true, 1, {.fpdu_ptr_or = 0x0002});
  const RecordingSink sink = read_in_pieces(reader_config(100, true, true), builder.bytes(), {});
  ASSERT_EQ(sink.fpdus.size(), 4u);
  const std::size_t markers = builder.fpdus()[1].markers.size();
  EXPECT_EQ(sink.finding_names(), Names(markers, "marker.fpduptr-low-bits"));
  EXPECT_TRUE(sink.fpdus[3].judged);
}

TEST(FpduReader, StopJudgingSaysSoOnceAtTheNextFpdu) {
  const FpduStreamBuilder builder = four_fpdus(false, true, 99, {}, 100);
  RecordingSink sink;
  FpduReader reader(reader_config(100, false, true));
  const std::span<const std::uint8_t> stream = builder.bytes();
  reader.push(stream.first(builder.fpdus()[1].start + 10), 1, true, sink);
  reader.stop_judging();  // e.g. the analyzer found the RTR missing (RFC 6581 5)
  reader.stop_judging();
  EXPECT_FALSE(reader.judging());
  reader.push(stream.subspan(builder.fpdus()[1].start + 10), 2, true, sink);
  ASSERT_EQ(sink.fpdus.size(), 4u);
  EXPECT_TRUE(sink.fpdus[1].judged);
  EXPECT_FALSE(sink.fpdus[2].judged);
  EXPECT_EQ(sink.finding_names(), Names{"fpdu.not-judged-after-error"});
  EXPECT_EQ(sink.findings[0].seq, builder.fpdus()[2].header_seq);
}

// ---- segment facts and the ULPDU

TEST(FpduReader, TellsWhichFpdusStartAndFitInOneSegment) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = true, .crc = true});
  for (int i = 0; i < 4; ++i) builder.add_random(200, static_cast<std::uint32_t>(i));
  const std::span<const std::uint8_t> s = builder.bytes();
  const auto& f = builder.fpdus();
  RecordingSink sink;
  FpduReader reader(reader_config(0, true, true));
  reader.push(s.subspan(0, f[1].start + 20), 1, true, sink);  // A, half of B
  reader.push(s.subspan(f[1].start + 20, f[2].end() - f[1].start - 20), 2, true, sink);  // B, C
  reader.push(s.subspan(f[3].start, 30), 3, true, sink);    // D in two pieces of
  reader.push(s.subspan(f[3].start + 30), 3, false, sink);  // the same segment
  ASSERT_EQ(sink.segment_facts.size(), 4u);
  const auto& a = sink.segment_facts[0];
  const auto& b = sink.segment_facts[1];
  const auto& c = sink.segment_facts[2];
  const auto& d = sink.segment_facts[3];
  EXPECT_TRUE(a.starts_segment && a.within_one_segment);
  EXPECT_TRUE(!b.starts_segment && !b.within_one_segment);
  EXPECT_TRUE(!c.starts_segment && c.within_one_segment);
  EXPECT_TRUE(d.starts_segment && d.within_one_segment);
  EXPECT_EQ(b.first_frame, 1u);
  EXPECT_EQ(b.last_frame, 2u);
  EXPECT_EQ(d.first_frame, 3u);
  EXPECT_EQ(d.last_frame, 3u);
}

TEST(FpduReader, KeepUlpduGivesTheUlpduWithMarkersRemoved) {
  FpduStreamBuilder builder({.start_seq = 77, .markers = true, .crc = true});
  builder.add_random(3000, 1);
  builder.add_random(5, 2);
  ASSERT_GE(builder.fpdus()[0].markers.size(), 6u);
  const RecordingSink kept = read_in_pieces(reader_config(77, true, true, true), builder.bytes(),
                                            test::every(1448, builder.bytes().size()));
  ASSERT_EQ(kept.fpdus.size(), 2u);
  EXPECT_EQ(kept.fpdus[0].ulpdu, builder.fpdus()[0].ulpdu);
  EXPECT_EQ(kept.fpdus[1].ulpdu, builder.fpdus()[1].ulpdu);
  EXPECT_EQ(kept.fpdus[0].ulpdu_head,
            Bytes(builder.fpdus()[0].ulpdu.begin(), builder.fpdus()[0].ulpdu.begin() + 64));

  const RecordingSink not_kept =
      read_in_pieces(reader_config(77, true, true, false), builder.bytes(), {});
  EXPECT_TRUE(not_kept.fpdus[0].ulpdu.empty());
  EXPECT_EQ(not_kept.fpdus[1].ulpdu_head, builder.fpdus()[1].ulpdu);
}

// ---- gaps

struct GapCase {
  bool markers;
  bool crc;
};

struct GapRun {
  std::unique_ptr<FpduReader> reader;
  RecordingSink sink;
  std::vector<std::size_t> piece_starts;  // piece k (frame 3 + k) starts here
};

// Feeds the stream up to `gap_at` (frame 1), loses `gap` octets (frame 2), feeds the rest in
// 1448-octet pieces (frames 3, 4, ...).
GapRun read_with_gap(const FpduStreamBuilder& builder, const FpduReaderConfig& config,
                     std::size_t gap_at, std::size_t gap) {
  GapRun run{std::make_unique<FpduReader>(config), {}, {}};
  const std::span<const std::uint8_t> s = builder.bytes();
  run.reader->push(s.first(gap_at), 1, true, run.sink);
  run.reader->on_gap(gap, 2, run.sink);
  std::uint64_t frame = 3;
  for (std::size_t at = gap_at + gap; at < s.size(); at += 1448) {
    run.piece_starts.push_back(at);
    run.reader->push(s.subspan(at, std::min<std::size_t>(1448, s.size() - at)), frame++, true,
                     run.sink);
  }
  return run;
}

TEST(FpduReader, ResynchronisesAfterAGapByMarkersAndByCrc) {
  for (const GapCase& g : {GapCase{true, true}, GapCase{true, false}, GapCase{false, true}}) {
    SCOPED_TRACE(testing::Message() << "markers " << g.markers << " crc " << g.crc);
    FpduStreamBuilder builder({.start_seq = 0xFFFF8000u, .markers = g.markers, .crc = g.crc});
    for (std::uint32_t i = 0; i < 120; ++i) builder.add_random(i % 7 == 3 ? 300 : 1442, i);
    const auto& f = builder.fpdus();
    const std::size_t gap_at = f[5].start + 700;  // inside FPDU 5
    const std::size_t gap = 3000;
    // The first FPDU wholly after the gap.
    std::size_t first = 0;
    while (f[first].start < gap_at + gap) ++first;

    const GapRun run =
        read_with_gap(builder, reader_config(0xFFFF8000u, g.markers, g.crc), gap_at, gap);
    const RecordingSink& sink = run.sink;
    const std::vector<std::size_t>& piece_starts = run.piece_starts;
    EXPECT_TRUE(run.reader->synchronised());
    EXPECT_EQ(sink.finding_names(), Names{"capture.resynchronised"});
    ASSERT_FALSE(sink.findings.empty());
    EXPECT_EQ(sink.findings[0].seq, f[first].start_seq);
    EXPECT_EQ(sink.findings[0].offset, f[first].start);
    EXPECT_NE(sink.findings[0].message.find(std::to_string(f[first].start - gap_at - gap) +
                                            " octets after the gap"),
              std::string::npos)
        << sink.findings[0].message;
    // FPDUs 0-4 before the gap; then every FPDU from `first` on, as built.
    ASSERT_EQ(sink.fpdus.size(), 5 + f.size() - first);
    for (std::size_t i = 0; i < 5; ++i)
      EXPECT_EQ(sink.fpdus[i], expected_event(f[i], g.crc, false));
    for (std::size_t i = first; i < f.size(); ++i) {
      const std::size_t k = 5 + i - first;
      EXPECT_EQ(sink.fpdus[k], expected_event(f[i], g.crc, false)) << "FPDU " << i;
      // Each FPDU replayed after the search names the frame that completed it.
      const std::size_t last_octet = f[i].end() - 1;
      const std::size_t piece = static_cast<std::size_t>(
          std::upper_bound(piece_starts.begin(), piece_starts.end(), last_octet) -
          piece_starts.begin());
      EXPECT_EQ(sink.segment_facts[k].last_frame, 2 + piece) << "FPDU " << i;
    }
    EXPECT_EQ(run.reader->offset(), builder.bytes().size());
  }
}

// Feeds the stream up to `gap_at`, loses `gap` octets, then feeds the rest cut at `cuts`.
RecordingSink read_around_gap(const FpduStreamBuilder& builder, const FpduReaderConfig& config,
                              std::size_t gap_at, std::size_t gap,
                              const std::vector<std::size_t>& cuts) {
  RecordingSink sink;
  FpduReader reader(config);
  const std::span<const std::uint8_t> s = builder.bytes();
  reader.push(s.first(gap_at), 1, true, sink);
  reader.on_gap(gap, 2, sink);
  std::size_t at = gap_at + gap;
  for (std::size_t cut : cuts) {
    if (cut <= at || cut >= s.size()) continue;
    reader.push(s.subspan(at, cut - at), 3, true, sink);
    at = cut;
  }
  reader.push(s.subspan(at), 3, true, sink);
  return sink;
}

TEST(FpduReader, ResynchronisationDoesNotDependOnHowTheStreamIsCut) {
  // After the gap: FPDU 3 is valid but FPDU 4 is not. Fed so that FPDU 3 ends a piece, a
  // search content with "one valid FPDU reaching the end of what has arrived" would take
  // FPDU 3; fed whole, FPDU 4 refutes it. Either way the reader must resynchronise at 5.
  for (const GapCase& g : {GapCase{true, true}, GapCase{false, true}}) {
    SCOPED_TRACE(testing::Message() << "markers " << g.markers);
    FpduStreamBuilder builder({.start_seq = 40, .markers = g.markers, .crc = g.crc});
    for (std::uint32_t i = 0; i < 70; ++i) builder.add_random(1442, i, {.bad_crc = i == 4});
    const auto& f = builder.fpdus();
    const std::size_t gap_at = f[2].start + 100;
    const FpduReaderConfig config = reader_config(40, g.markers, g.crc);
    const RecordingSink whole = read_around_gap(builder, config, gap_at, 50, {});
    const RecordingSink at_fpdu_end =
        read_around_gap(builder, config, gap_at, 50, {f[3].end(), f[4].end()});
    const RecordingSink small =
        read_around_gap(builder, config, gap_at, 50, test::every(97, builder.bytes().size()));
    EXPECT_EQ(whole.finding_names(), Names{"capture.resynchronised"});
    ASSERT_FALSE(whole.findings.empty());
    EXPECT_EQ(whole.findings[0].seq, f[5].start_seq);
    EXPECT_EQ(at_fpdu_end.findings, whole.findings);
    EXPECT_EQ(at_fpdu_end.fpdus, whole.fpdus);
    EXPECT_EQ(small.findings, whole.findings);
    EXPECT_EQ(small.fpdus, whole.fpdus);
    EXPECT_EQ(whole.fpdus.size(), 2 + f.size() - 5);
  }
}

TEST(FpduReader, GapDropsTheFpduInProgressWithoutFindings) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = true});
  for (std::uint32_t i = 0; i < 3; ++i) builder.add_random(1000, i);
  RecordingSink sink;
  FpduReader reader(reader_config(0, false, true));
  reader.push(std::span<const std::uint8_t>(builder.bytes()).first(500), 1, true, sink);
  EXPECT_TRUE(reader.in_fpdu());
  reader.on_gap(100, 2, sink);
  EXPECT_FALSE(reader.synchronised());
  EXPECT_FALSE(reader.in_fpdu());
  EXPECT_EQ(reader.bytes_needed(), 1u);
  EXPECT_EQ(reader.position(), TcpSeq(600));
  EXPECT_EQ(reader.offset(), 600u);
  EXPECT_TRUE(sink.findings.empty());
  EXPECT_TRUE(sink.fpdus.empty());
}

TEST(FpduReader, AfterAnErrorTheResynchronisedStreamIsStillNotJudged) {
  FpduStreamBuilder builder({.start_seq = 0, .markers = true, .crc = true});
  builder.add_random(1442, 0, {.bad_crc = true});
  for (std::uint32_t i = 1; i < 20; ++i) builder.add_random(1442, i, {.bad_crc = i == 10});
  const GapRun run =
      read_with_gap(builder, reader_config(0, true, true), builder.fpdus()[3].start + 5, 2000);
  const RecordingSink& sink = run.sink;
  EXPECT_EQ(sink.finding_names(),
            (Names{"fpdu.crc-mismatch", "fpdu.not-judged-after-error", "capture.resynchronised"}));
  for (std::size_t i = 1; i < sink.fpdus.size(); ++i) EXPECT_FALSE(sink.fpdus[i].judged);
}

// A reader that judges how the sender frames (fpdu_reader_framing.cpp).
FpduReaderConfig framing_config(std::uint32_t start_seq, bool markers, bool crc) {
  FpduReaderConfig config = reader_config(start_seq, markers, crc);
  config.check_sender_framing = true;
  return config;
}

// A ULPDU whose first octets are no DDP header (DDP version 3).
Bytes no_ddp_ulpdu(std::size_t size) {
  Bytes ulpdu(size, 0);
  ulpdu[0] = 0x03;
  return ulpdu;
}

TEST(FpduReader, AGapDecidesEveryFramingTestTheDecisionBeforeItOpens) {
  // An odd first FPDU opens a framing test; the RFC's reading, cut off by the gap inside an
  // empty FPDU, is adopted at the gap, and replaying it opens another test at that empty
  // FPDU. That one too is decided before the gap: none stays open while framing is lost.
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = false});
  builder.add(no_ddp_ulpdu(40));
  builder.add(test::ddp_send(1, 30));
  const BuiltFpdu& empty = builder.add({});
  const std::size_t gap_at = empty.header + 2;
  for (std::uint32_t i = 0; i < 12; ++i) builder.add(test::ddp_send(2 + i, 100));
  const std::size_t gap = 150;
  const std::span<const std::uint8_t> s = builder.bytes();

  RecordingSink sink;
  FpduReader reader(framing_config(0, false, false));
  reader.push(s.first(gap_at), 1, true, sink);
  EXPECT_TRUE(reader.testing());
  reader.on_gap(gap, 2, sink);
  EXPECT_FALSE(reader.testing());
  EXPECT_FALSE(reader.synchronised());
  EXPECT_EQ(reader.offset(), gap_at + gap);
  reader.push(s.subspan(gap_at + gap), 3, true, sink);
  EXPECT_TRUE(reader.synchronised());
  EXPECT_EQ(reader.offset(), s.size());
  EXPECT_EQ(reader.position(), TcpSeq(static_cast<std::uint32_t>(s.size())));
  EXPECT_EQ(sink.count(DiagId::CaptureResynchronised), 1u);
  EXPECT_EQ(sink.count(DiagId::FpduFramingLost), 0u);
  ASSERT_FALSE(sink.fpdus.empty());
  EXPECT_EQ(sink.fpdus.back().start_offset + sink.fpdus.back().wire_length, s.size());
}

TEST(FpduReader, AFramingTestTriesStartsThePushHasNotReachedYet) {
  // A sender whose ULPDU_Length counts two octets fewer than it sends (no markers, no CRC):
  // the RFC's reading puts the second FPDU at an empty one, where the test begins; the
  // sender's own next FPDU starts 4 octets further on. A push that ends with that empty
  // FPDU's ULPDU_Length must not leave the deviation untried.
  Bytes s;
  for (std::uint32_t msn = 0; msn < 8; ++msn) {
    Bytes ulpdu = test::ddp_send(msn, 10);            // 28 octets
    std::fill(ulpdu.begin() + 2, ulpdu.end(), 0xAA);  // (no empty FPDUs where the RFC reads)
    test::put_be16(s, static_cast<std::uint16_t>(ulpdu.size() - 2));
    s.insert(s.end(), ulpdu.begin(), ulpdu.end());
    s.insert(s.end(), pad_length(static_cast<std::uint32_t>(ulpdu.size())) + kCrcSize,
             0);  // pad, CRC field
  }
  const FpduReaderConfig config = framing_config(0, false, false);
  const RecordingSink whole = read_in_pieces(config, s, {});
  EXPECT_EQ(whole.finding_names(),
            (Names{"fpdu.framing-unverifiable", "fpdu.ulpdu-length-miscounted"}));
  for (const std::vector<std::size_t>& cuts :
       {std::vector<std::size_t>{34}, test::every(1, s.size())}) {
    const RecordingSink cut = read_in_pieces(config, s, cuts);
    EXPECT_EQ(cut.findings, whole.findings);
    EXPECT_EQ(cut.fpdus, whole.fpdus);
  }
}

// Appends an FPDU as a sender frames it: ULPDU_Length `length_field`, the ULPDU, `pad` zero
// octets and the CRC over them (little-endian on the wire, RFC 5044 4.4).
void append_fpdu(Bytes& s, std::uint16_t length_field, const Bytes& ulpdu, std::uint32_t pad) {
  const std::size_t start = s.size();
  test::put_be16(s, length_field);
  s.insert(s.end(), ulpdu.begin(), ulpdu.end());
  s.insert(s.end(), pad, 0);
  const std::uint32_t crc = crc32c(std::span<const std::uint8_t>(s).subspan(start));
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<std::uint8_t>(crc >> (8 * i)));
}

TEST(FpduReader, NoDeviationReframesAnFpduWhoseCrcMatched) {
  // With CRCs: an FPDU whose CRC matched as the RFC frames it, then octets that are no FPDU,
  // then FPDUs whose ULPDU_Length counts two octets fewer than they carry, the first of them
  // where that framing would put it after the FPDU before. That FPDU's CRC proves it was
  // not framed so: the odd octets are the RFC's CRC error, not fpdu.ulpdu-length-miscounted.
  Bytes s;
  const Bytes first = test::ddp_send(0, 8);  // 26 octets, no pad
  append_fpdu(s, static_cast<std::uint16_t>(first.size()), first, 0);
  s.insert(s.end(), 4, 0);  // an empty FPDU where the RFC reads the next one
  for (std::uint32_t msn = 1; msn < 6; ++msn) {
    const Bytes ulpdu = test::ddp_send(msn, 10);  // 28 octets
    append_fpdu(s, static_cast<std::uint16_t>(ulpdu.size() - 2), ulpdu, pad_length(28));
  }
  const RecordingSink sink = read_in_pieces(framing_config(0, false, true), s, {});
  EXPECT_EQ(sink.count(DiagId::FpduUlpduLengthMiscounted), 0u);
  EXPECT_EQ(sink.count(DiagId::FpduCrcMismatch), 1u);
  ASSERT_FALSE(sink.fpdus.empty());
  EXPECT_EQ(sink.fpdus[0].crc_status, CrcStatus::Good);
}

TEST(FpduReader, NoDeviationIsNamedOnAnEmptyFpdu) {
  // Markers, no CRC. The first FPDU is empty (odd: no DDP header) and the markers vouch for
  // the RFC's reading of it and of the two empty FPDUs after it; then come FPDUs sent
  // without pad, the first of them 2 octets before the end of the last empty FPDU as read.
  // "No pad" may not be named on that empty FPDU: it carries no DDP header that a sender
  // without pad would have framed, and its event has already been given with the RFC's
  // length (the FPDUs would overlap).
  Bytes s = {0, 0, 0, 0};  // the leading marker at the grid origin (FPDUPTR 0)
  // Three empty FPDUs (ULPDU_Length, pad, CRC field), the third as sent without pad.
  for (int i = 0; i < 3; ++i) s.insert(s.end(), {0, 0, 0, 0, 0xC1, 0xC2, 0xC3, 0xC4});
  s.resize(s.size() - 2);
  for (std::uint32_t msn = 0; msn < 5; ++msn) {
    Bytes ulpdu = test::ddp_send(msn, 10);  // 28 octets
    std::fill(ulpdu.begin() + 2, ulpdu.end(), 0xAA);
    test::put_be16(s, static_cast<std::uint16_t>(ulpdu.size()));
    s.insert(s.end(), ulpdu.begin(), ulpdu.end());
    s.insert(s.end(), {0xC1, 0xC2, 0xC3, 0xC4});  // no pad; the CRC field (not checked)
  }
  ASSERT_LT(s.size(), kMarkerInterval);  // (no marker after the first)
  const RecordingSink sink = read_in_pieces(framing_config(0, true, false), s, {});
  EXPECT_EQ(sink.count(DiagId::FpduPadRuleWrong), 0u);
  ASSERT_GE(sink.fpdus.size(), 3u);
  for (std::size_t i = 1; i < sink.fpdus.size(); ++i) {
    EXPECT_GE(sink.fpdus[i].start_offset,
              sink.fpdus[i - 1].start_offset + sink.fpdus[i - 1].wire_length)
        << "FPDU " << i;
  }
}

// ---- mode transitions (fpdu_reader_modes.h), at the reader's public interface

// Plain FPDUs carrying DDP Sends (ULPDUs of 18 + 30 octets) from `msn` on.
void add_sends(FpduStreamBuilder& builder, std::uint32_t msn, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) builder.add(test::ddp_send(msn + i, 30));
}

TEST(FpduReader, ModesReadingTestingReadingWhenTheRfcsReadingStands) {
  // With CRCs, an FPDU whose ULPDU is no DDP header opens a framing test; the RFC's own
  // reading of it reads on (the next FPDU's CRC matches), so it stands: no finding, and every
  // FPDU as built.
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = true});
  add_sends(builder, 0, 2);
  const BuiltFpdu odd = builder.add(no_ddp_ulpdu(40));
  add_sends(builder, 2, 3);
  const std::span<const std::uint8_t> s = builder.bytes();
  RecordingSink sink;
  FpduReader reader(framing_config(0, false, true));
  reader.push(s.first(odd.header + 4), 1, true, sink);  // up to the odd ULPDU's first octets
  EXPECT_TRUE(reader.testing());
  EXPECT_FALSE(reader.synchronised());
  EXPECT_EQ(reader.bytes_needed(), 1u);
  EXPECT_EQ(reader.offset(), odd.header + 4);
  EXPECT_EQ(sink.fpdus.size(), 2u);
  reader.push(s.subspan(odd.header + 4), 2, true, sink);
  EXPECT_FALSE(reader.testing());
  EXPECT_TRUE(reader.synchronised());
  EXPECT_FALSE(reader.framing_named());
  EXPECT_EQ(reader.framing(), kRfcFraming);
  reader.finish(2, sink);
  EXPECT_TRUE(sink.findings.empty()) << testing::PrintToString(sink.finding_names());
  ASSERT_EQ(sink.fpdus.size(), builder.fpdus().size());
  for (std::size_t i = 0; i < sink.fpdus.size(); ++i) {
    EXPECT_EQ(sink.fpdus[i], expected_event(builder.fpdus()[i], true, false)) << "FPDU " << i;
  }
  EXPECT_EQ(reader.offset(), s.size());
}

TEST(FpduReader, ModesTestingReadingWithANamedDeviation) {
  // No markers, no CRC: FPDUs sent without pad. The RFC's reading of the first one takes two
  // pad octets of the next, whose ULPDU then begins with no DDP header: the test names
  // fpdu.pad-rule-wrong, and the rest is read as that sender frames.
  Bytes s;
  for (std::uint32_t msn = 0; msn < 8; ++msn) {
    Bytes ulpdu = test::ddp_send(msn, 12);  // 30 octets: the RFC pads 0, this sender too
    ulpdu.push_back(0xAA);                  // 31 + 2: the RFC pads 3; this sender sends 0
    std::fill(ulpdu.begin() + 2, ulpdu.end(), 0xAA);
    test::put_be16(s, static_cast<std::uint16_t>(ulpdu.size()));
    s.insert(s.end(), ulpdu.begin(), ulpdu.end());
    s.insert(s.end(), kCrcSize, 0xC5);  // the CRC field (not checked)
  }
  RecordingSink sink;
  FpduReader reader(framing_config(0, false, false));
  reader.push(std::span<const std::uint8_t>(s).first(60), 1, true, sink);
  EXPECT_TRUE(reader.testing());
  EXPECT_EQ(sink.count(DiagId::FpduPadRuleWrong), 0u);
  reader.push(std::span<const std::uint8_t>(s).subspan(60), 2, true, sink);
  EXPECT_FALSE(reader.testing());
  EXPECT_TRUE(reader.synchronised());
  EXPECT_TRUE(reader.framing_named());
  EXPECT_EQ(reader.framing().pad, PadRule::None);
  reader.finish(2, sink);
  EXPECT_EQ(sink.count(DiagId::FpduPadRuleWrong), 1u)
      << testing::PrintToString(sink.finding_names());
  EXPECT_EQ(sink.count(DiagId::FpduFramingLost), 0u);
  ASSERT_FALSE(sink.fpdus.empty());
  EXPECT_EQ(sink.fpdus.back().start_offset + sink.fpdus.back().wire_length, s.size());
  EXPECT_EQ(reader.fpdus(), 8u);
}

TEST(FpduReader, AUlpduLengthBeyondTheMulpduIsAHeaderReadInTheWrongPlace) {
  // No markers, no CRC: ULPDUs of 32 octets sent without pad (the RFC pads 2), CRC fields of
  // zero. The RFC's reading of the first takes two CRC octets as pad, and reads the next
  // header 2 octets late, in the ULPDU: 41 43 (16707), then 41 43 again, a plausible DDP
  // header. RFC 5044 4.5: no ULPDU is longer than the MULPDU the receiver's MSS allows (1454
  // for 1460), so that header was read in the wrong place and a framing test decides.
  Bytes s;
  for (int i = 0; i < 6; ++i) {
    Bytes ulpdu(32, 0x41);
    for (std::size_t k = 1; k < ulpdu.size(); k += 2) ulpdu[k] = 0x43;
    test::put_be16(s, static_cast<std::uint16_t>(ulpdu.size()));
    s.insert(s.end(), ulpdu.begin(), ulpdu.end());
    s.insert(s.end(), kCrcSize, 0x00);  // the CRC field (CRCs off: any value)
  }
  FpduReaderConfig config = framing_config(0, false, false);
  config.mulpdu = mulpdu(1460, false);
  const RecordingSink sink = read_in_pieces(config, s, {});
  EXPECT_EQ(sink.count(DiagId::FpduPadRuleWrong), 1u)
      << testing::PrintToString(sink.finding_names());
  ASSERT_EQ(sink.fpdus.size(), 6u);
  EXPECT_EQ(sink.fpdus.back().start_offset + sink.fpdus.back().wire_length, s.size());
  // Not told the MSS, the reader takes the misread header at its word (16707 is no more than
  // the largest MULPDU of any MSS), and the stream ends inside it.
  const RecordingSink unbounded = read_in_pieces(framing_config(0, false, false), s, {});
  EXPECT_EQ(unbounded.count(DiagId::FpduPadRuleWrong), 0u);
  EXPECT_LT(unbounded.fpdus.size(), 6u);
}

// FPDUs (no markers, CRC fields of zero) of untagged Sends with these payloads, each
// ULPDU_Length off by `bias` (RFC 5044 4.1 counts the ULPDU only), pads as the RFC places them.
Bytes miscounted_sends(std::initializer_list<std::size_t> payloads, int bias) {
  Bytes s;
  std::uint32_t msn = 0;
  for (const std::size_t payload : payloads) {
    Bytes ulpdu = test::ddp_send(msn++, payload);
    std::fill(ulpdu.begin() + kDdpUntaggedHeaderSize, ulpdu.end(), 0x5a);
    test::put_be16(s, static_cast<std::uint16_t>(static_cast<int>(ulpdu.size()) + bias));
    s.insert(s.end(), ulpdu.begin(), ulpdu.end());
    s.insert(s.end(), pad_length(static_cast<std::uint32_t>(ulpdu.size())) + kCrcSize, 0x00);
  }
  return s;
}

TEST(FpduReader, AZeroCrcFieldWhereADeviationPutsItBeatsNoCrcFieldAtTheStreamsEnd) {
  // No markers, no CRC: ULPDU_Length counts its own two octets (+2), pads and CRC fields of
  // zero as RFC 5044 4.1 places them. ULPDUs of 48 and 60 octets frame as the RFC's of 50 and
  // 62; the last, of 81, ends 4 octets before the RFC's reading of 83 does, exactly where a
  // sender of no CRC field would end it too (its "pad" the CRC field's last 3 zeros). The four
  // zero octets sit where the +2 sender's CRC field is: that sender is named, not the other.
  const Bytes s = miscounted_sends({30, 42, 63}, 2);
  const RecordingSink sink = read_in_pieces(framing_config(0, false, false), s, {});
  EXPECT_EQ(sink.count(DiagId::FpduUlpduLengthMiscounted), 1u)
      << testing::PrintToString(sink.finding_names());
  EXPECT_EQ(sink.count(DiagId::FpduCrcFieldMissing), 0u);
  ASSERT_EQ(sink.fpdus.size(), 3u);
  EXPECT_EQ(sink.fpdus.back().start_offset + sink.fpdus.back().wire_length, s.size());
}

TEST(FpduReader, AFirstUlpduLengthCountedLongBeyondTheMulpduIsTheSendersOwn) {
  // No markers, no CRC: ULPDU_Length counts its own two octets (+2), the first ULPDU as long as
  // the MULPDU of MSS 1460 allows (1454 octets, RFC 5044 4.5), so its ULPDU_Length (1456) is
  // beyond it. No FPDU comes before it: it is the deviation's own first FPDU, not a header read
  // in the wrong place, and every FPDU is read as that sender framed it (fuzz_differential).
  const Bytes s = miscounted_sends({1436, 6, 338, 367, 1287}, 2);
  FpduReaderConfig config = framing_config(0, false, false);
  config.mulpdu = mulpdu(1460, false);
  const RecordingSink sink = read_in_pieces(config, s, {});
  EXPECT_EQ(sink.count(DiagId::FpduUlpduLengthMiscounted), 1u)
      << testing::PrintToString(sink.finding_names());
  EXPECT_EQ(sink.count(DiagId::FpduFramingLost), 0u);
  ASSERT_EQ(sink.fpdus.size(), 5u);
  EXPECT_EQ(sink.fpdus.back().start_offset + sink.fpdus.back().wire_length, s.size());
}

TEST(FpduReader, AMarkerInsideAMisreadFpduWaitsForItsCrc) {
  // Markers and CRCs on: ULPDU_Length counts its own two octets (+2). The first FPDU (a ULPDU
  // of 502 octets, no pad) ends at octet 512, where the next one's leading marker (FPDUPTR 0)
  // sits; the RFC's reading of ULPDU_Length 504 ends 4 octets later and meets that marker
  // inside the FPDU, pointing elsewhere. The FPDU's CRC, where the +2 sender put it, shows the
  // FPDU misread: the sender is named, and the marker fits as read again (RFC 5044 4.3).
  synth::SenderQuirks quirks;
  quirks.length_bias = 2;
  synth::FpduFramer framer(true, true, 0, quirks);
  Bytes s;
  std::uint32_t msn = 0;
  for (const std::size_t payload : {484, 82, 22, 182}) {
    const synth::Chunk c = framer.frame(test::ddp_send(msn++, payload));
    s.insert(s.end(), c.bytes.begin(), c.bytes.end());
  }
  const RecordingSink sink = read_in_pieces(framing_config(0, true, true), s, {});
  EXPECT_EQ(sink.count(DiagId::FpduUlpduLengthMiscounted), 1u)
      << testing::PrintToString(sink.finding_names());
  EXPECT_EQ(sink.count(DiagId::MarkerFpduptrMismatch), 0u);
  EXPECT_EQ(sink.count(DiagId::FpduCrcMismatch), 0u);
  EXPECT_EQ(sink.fpdus.size(), 4u);
}

TEST(FpduReader, ACrcFieldAMarkerSplitsIsLookedForWhereADeviationPutsIt) {
  // Markers and CRCs on: the ULPDU alone padded to a multiple of 4. The first FPDU (ULPDU 501,
  // 3 octets of pad where the RFC pads 1) puts its CRC field at octets 510-511 and, past the
  // marker at 512, 516-517 (RFC 5044 4.4: the CRC covers the markers before the field). The
  // CRC the RFC's reading finds (octets 508-511) fails; the sender's, split, matches.
  synth::SenderQuirks quirks;
  quirks.pad = synth::SenderQuirks::Pad::UlpduTo4;
  synth::FpduFramer framer(true, true, 0, quirks);
  Bytes s;
  std::uint32_t msn = 0;
  for (const std::size_t payload : {483, 1}) {
    const synth::Chunk c = framer.frame(test::ddp_send(msn++, payload));
    s.insert(s.end(), c.bytes.begin(), c.bytes.end());
  }
  ASSERT_EQ(s.size(), 4u + 2 + 501 + 3 + 4 + 4 + (2 + 19 + 1 + 4));
  const RecordingSink sink = read_in_pieces(framing_config(0, true, true), s, {});
  EXPECT_EQ(sink.count(DiagId::FpduPadRuleWrong), 1u)
      << testing::PrintToString(sink.finding_names());
  EXPECT_EQ(sink.count(DiagId::FpduCrcMismatch), 0u);
  ASSERT_EQ(sink.fpdus.size(), 2u);
  EXPECT_EQ(sink.fpdus[1].start_offset, 518u);
}

TEST(FpduReader, TheFirstFpduMayBeADeviationsOwn) {
  // No markers, no CRC: ULPDU_Length counts 2 octets short. The first FPDU's ULPDU of 19
  // octets reads as 17, too short for the 18-octet DDP header it begins with; no FPDU came
  // before it for a deviation to have framed otherwise. As this sender frames it (ULPDU 19,
  // pad 3, 4 octets longer than the RFC's reading) the FPDUs after it read on.
  const Bytes s = miscounted_sends({1, 42, 9, 30, 5}, -2);
  const RecordingSink sink = read_in_pieces(framing_config(0, false, false), s, {});
  EXPECT_EQ(sink.count(DiagId::FpduUlpduLengthMiscounted), 1u)
      << testing::PrintToString(sink.finding_names());
  EXPECT_EQ(sink.count(DiagId::FpduFramingLost), 0u);
  ASSERT_EQ(sink.fpdus.size(), 5u);
  EXPECT_EQ(sink.fpdus.back().start_offset + sink.fpdus.back().wire_length, s.size());
}

TEST(FpduReader, ModesTestingAbandonedWhenNoFramingReadsOn) {
  // No markers, no CRC: after two FPDUs, octets that no framing reads as FPDUs carrying DDP.
  // Nothing vouches for the RFC's reading: fpdu.framing-lost, and the rest is not read.
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = false});
  add_sends(builder, 0, 2);
  const std::size_t odd = builder.bytes().size();
  Bytes s = builder.bytes();
  for (int i = 0; i < 40; ++i) s.insert(s.end(), {0x00, 0x1e, 0xC7, 0xC7});
  RecordingSink sink;
  FpduReader reader(framing_config(0, false, false));
  reader.push(std::span<const std::uint8_t>(s).first(odd + 4), 1, true, sink);
  EXPECT_TRUE(reader.testing());
  reader.push(std::span<const std::uint8_t>(s).subspan(odd + 4), 2, true, sink);
  EXPECT_FALSE(reader.testing());
  EXPECT_TRUE(reader.framing_lost());
  EXPECT_FALSE(reader.synchronised());
  EXPECT_FALSE(reader.judging());
  EXPECT_FALSE(reader.in_fpdu());
  EXPECT_EQ(reader.bytes_needed(), 1u);
  EXPECT_EQ(sink.finding_names(), (Names{"fpdu.framing-unverifiable", "fpdu.framing-lost"}));
  ASSERT_EQ(sink.findings.size(), 2u);
  EXPECT_EQ(sink.findings[1].id, DiagId::FpduFramingLost);
  EXPECT_EQ(sink.findings[1].offset, odd);
  EXPECT_EQ(sink.fpdus.size(), 2u);
  // Abandoned: what follows is passed by, a gap too.
  reader.push(std::span<const std::uint8_t>(s).first(100), 3, true, sink);
  reader.on_gap(50, 4, sink);
  reader.finish(4, sink);
  EXPECT_TRUE(reader.framing_lost());
  EXPECT_EQ(reader.offset(), s.size() + 150);
  EXPECT_EQ(sink.findings.size(), 2u);
  EXPECT_EQ(sink.fpdus.size(), 2u);
}

TEST(FpduReader, ModesLostReadingWhenFramingIsFoundAgain) {
  // The gap ends where FPDU 4 begins; FPDU 4 alone is no evidence (more may follow), FPDUs 4
  // and 5 with matching CRCs are.
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = true});
  for (std::uint32_t i = 0; i < 12; ++i) builder.add_random(300, i);
  const auto& f = builder.fpdus();
  const std::span<const std::uint8_t> s = builder.bytes();
  RecordingSink sink;
  FpduReader reader(reader_config(0, false, true));
  reader.push(s.first(f[2].start + 10), 1, true, sink);
  reader.on_gap(f[4].start - (f[2].start + 10), 2, sink);
  EXPECT_FALSE(reader.synchronised());
  EXPECT_FALSE(reader.testing());
  EXPECT_FALSE(reader.in_fpdu());
  EXPECT_EQ(reader.bytes_needed(), 1u);
  reader.push(s.subspan(f[4].start, f[4].wire_length), 3, true, sink);
  EXPECT_FALSE(reader.synchronised());
  EXPECT_EQ(reader.offset(), f[5].start);
  reader.push(s.subspan(f[5].start), 4, true, sink);
  EXPECT_TRUE(reader.synchronised());
  ASSERT_EQ(sink.findings.size(), 1u);
  EXPECT_EQ(sink.findings[0].id, DiagId::CaptureResynchronised);
  EXPECT_EQ(sink.findings[0].offset, f[4].start);
  EXPECT_EQ(sink.finding_frames[0], 4u);
  ASSERT_EQ(sink.fpdus.size(), 2 + f.size() - 4);
  EXPECT_EQ(sink.fpdus[2], expected_event(f[4], true, false));
  EXPECT_EQ(sink.segment_facts[2].last_frame, 3u);  // replayed with the frame that brought it
  EXPECT_EQ(reader.offset(), s.size());
}

TEST(FpduReader, ModesAGapWhileTestingDecidesTheTestThenLosesFraming) {
  // A framing test still open when octets go missing is decided on what arrived before them
  // (here the RFC's reading, vouched for by the CRC), and the reader is lost after the gap.
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = true});
  add_sends(builder, 0, 2);
  const BuiltFpdu odd = builder.add(no_ddp_ulpdu(40));
  add_sends(builder, 2, 10);
  const auto& f = builder.fpdus();
  const std::span<const std::uint8_t> s = builder.bytes();
  RecordingSink sink;
  FpduReader reader(framing_config(0, false, true));
  reader.push(s.first(odd.end() + 10), 1, true, sink);
  EXPECT_TRUE(reader.testing());
  reader.on_gap(f[5].start - odd.end() - 10, 2, sink);
  EXPECT_FALSE(reader.testing());
  EXPECT_FALSE(reader.synchronised());
  EXPECT_FALSE(reader.framing_lost());
  EXPECT_EQ(reader.offset(), f[5].start);
  EXPECT_EQ(sink.count(DiagId::FpduFramingLost), 0u);
  EXPECT_EQ(sink.fpdus.size(), 3u);  // two, and the odd one as the RFC reads it
  reader.push(s.subspan(f[5].start), 3, true, sink);
  EXPECT_TRUE(reader.synchronised());
  EXPECT_EQ(sink.finding_names(), Names{"capture.resynchronised"});
  EXPECT_EQ(sink.fpdus.size(), 3 + f.size() - 5);
}

TEST(FpduReader, ModesTheStreamsEndWhileTestingDecidesOnWhatArrived) {
  // No markers, no CRC: after an odd FPDU only two FPDUs carrying DDP arrive (four confirm a
  // framing). finish() decides on them: the RFC's reading reached the end of the stream.
  FpduStreamBuilder builder({.start_seq = 0, .markers = false, .crc = false});
  add_sends(builder, 0, 2);
  builder.add(no_ddp_ulpdu(40));
  add_sends(builder, 2, 2);
  RecordingSink sink;
  FpduReader reader(framing_config(0, false, false));
  reader.push(builder.bytes(), 1, true, sink);
  EXPECT_TRUE(reader.testing());
  EXPECT_EQ(sink.fpdus.size(), 2u);
  reader.finish(1, sink);
  EXPECT_FALSE(reader.testing());
  EXPECT_TRUE(reader.synchronised());
  EXPECT_FALSE(reader.in_fpdu());
  EXPECT_EQ(sink.finding_names(), Names{"fpdu.framing-unverifiable"});
  ASSERT_EQ(sink.fpdus.size(), builder.fpdus().size());
  for (std::size_t i = 0; i < sink.fpdus.size(); ++i) {
    EXPECT_EQ(sink.fpdus[i], expected_event(builder.fpdus()[i], false, false)) << "FPDU " << i;
  }
}

}  // namespace
}  // namespace mpa
