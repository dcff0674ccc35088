// Fuzz target: FpduReader (RFC 5044 4, 6, 8), fed the fuzzer's bytes as one direction's
// full-operation stream, and the same stream cut at split points the fuzzer also chooses.
//
// Input layout:
//   byte 0      options: 0x01 markers, 0x02 CRC, 0x04 keep ULPDUs, 0x08 grid origin set
//   bytes 1-4   first sequence number of full operation (little endian)
//   bytes 5-6   grid origin = start - this (when 0x08)
//   byte 7      n: number of split points (mod 64)
//   byte 8      g: number of gaps (mod 8)
//   middle      the stream
//   tail        g gaps (2 octets position, 2 octets length; 0 means 2^32) then
//               n split points (2 octets each), taken from the end of the input
//
// The reader must produce the same FPDUs and findings whether the stream arrives whole
// between gaps, cut at the split points, one octet at a time, or exactly bytes_needed()
// octets at a time (split invariance), up to and including the stream's end (finish); and
// every FPDU must agree with the marker grid; and the same where each push comes with its
// CRC worked out before (SegmentFacts::payload_crc).
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fpdu/fpdu_reader.h"
#include "fuzz_support.h"
#include "mpa/crc32c.h"
#include "mpa/diagnostics.h"
#include "mpa/marker_grid.h"

namespace {

using mpa::FpduEvent;
using mpa::FpduReader;
using mpa::FpduReaderConfig;

constexpr std::uint64_t kStartOffset = 1000;

struct Gap {
  std::size_t position;  // in the stream
  std::uint64_t length;
};

// Collects events as canonical text (all fields that must not depend on how the stream was
// cut) and checks each FPDU against the grid and the framing of its sender.
class Recorder : public mpa::FpduSink {
 public:
  Recorder(const FpduReaderConfig& config, const FpduReader& reader)
      : config_(config),
        reader_(reader),
        grid_(config.markers
                  ? mpa::MarkerGrid(config.grid_origin_set ? config.grid_origin : config.start_seq)
                  : mpa::MarkerGrid()) {}

  void on_fpdu(const FpduEvent& e) override {
    // Each FPDU as its sender frames it (sender_framing.h): the RFC's framing with the
    // negotiated markers until the reader names a deviation, then that sender's framing (and
    // no markers where it sends none) for the rest of the direction. The FPDU whose CRC
    // names the deviation is given just before it is named: it is checked against it then.
    settle();
    const bool named = reader_.framing_named();
    const mpa::SenderFraming framing = reader_.framing();
    MPA_FUZZ_CHECK(named || framing == mpa::kRfcFraming,
                   "a framing other than the RFC's that was never named");
    const mpa::MarkerGrid& grid = named ? reader_.grid() : grid_;
    const Shape shape{e.start_seq, e.ulpdu_length, e.ulpdu_size,    e.pad_length,
                      e.crc_field, e.wire_length,  e.markers.size()};
    if (!framed_as(shape, framing, grid)) {
      MPA_FUZZ_CHECK(!named,
                     "an FPDU not framed as the named deviation frames it (size, pad, CRC field, "
                     "wire length or markers)");
      unexplained_ = shape;
    }
    MPA_FUZZ_CHECK(e.leading_marker == grid.is_marker_at(e.start_seq), "leading marker");
    MPA_FUZZ_CHECK(e.header_seq == e.start_seq + (e.leading_marker ? mpa::kMarkerSize : 0u),
                   "header position");
    for (const auto& m : e.markers) {
      MPA_FUZZ_CHECK(grid.is_marker_at(m.seq), "marker off the grid");
    }
    MPA_FUZZ_CHECK(
        e.ulpdu_head.size() == std::min<std::size_t>(e.ulpdu_size, FpduReader::kUlpduHeadSize),
        "ULPDU head size");
    if (config_.keep_ulpdu) {
      MPA_FUZZ_CHECK(e.ulpdu.size() == e.ulpdu_size, "kept ULPDU size");
      MPA_FUZZ_CHECK(std::equal(e.ulpdu_head.begin(), e.ulpdu_head.end(), e.ulpdu.begin()),
                     "ULPDU head is not the ULPDU's head");
    } else {
      MPA_FUZZ_CHECK(e.ulpdu.empty(), "ULPDU kept without keep_ulpdu");
    }
    if (!config_.crc) {
      MPA_FUZZ_CHECK(e.crc_status == mpa::CrcStatus::NotChecked, "CRC checked while off");
    } else {
      // (NotChecked with CRCs on: a sender that put no CRC field, or octets not seen; its
      // values mean nothing.)
      if (e.crc_status != mpa::CrcStatus::NotChecked) {
        MPA_FUZZ_CHECK((e.crc_status == mpa::CrcStatus::Good) == (e.crc_received == e.crc_computed),
                       "CRC status");
      }
    }
    // Sequence numbers and offsets move together.
    MPA_FUZZ_CHECK(e.start_seq.distance_from(config_.start_seq) ==
                       static_cast<std::uint32_t>(e.start_offset - config_.start_offset),
                   "sequence number and offset disagree");
    // FPDUs do not overlap, with one known exception: the FPDU before the one at which a
    // deviation is named was reported with the RFC's framing (the reader could not know
    // yet); it then ends where that sender's framing ends it, and the next FPDU begins
    // there. (Giving that FPDU again with the sender's framing is an open issue of the faces.)
    const bool just_named = reader_.framing_named() && !named_before_;
    if (just_named && e.start_offset < next_offset_ && previous_) {
      const std::uint64_t resized =
          previous_->start_offset +
          mpa::fpdu_wire_length(grid, previous_->start_seq, framing, previous_->ulpdu_length);
      MPA_FUZZ_CHECK(e.start_offset == resized,
                     "FPDUs overlap by more than the FPDU before the named deviation shrinks");
    } else {
      MPA_FUZZ_CHECK(e.start_offset >= next_offset_, "FPDUs overlap");
    }
    named_before_ = reader_.framing_named();
    previous_ = Previous{e.start_offset, e.start_seq, e.ulpdu_length};
    next_offset_ = e.start_offset + e.wire_length;
    ends.push_back(next_offset_);
    MPA_FUZZ_CHECK(e.first_frame <= e.last_frame, "frames out of order");
    ++fpdus_;

    log += fmt::format("F {} {} {} {} {} {} {} {} {:08x} {:08x} {} {} {} |", e.start_seq.value(),
                       e.start_offset, e.header_seq.value(), e.ulpdu_length, e.pad_length,
                       e.wire_length, e.leading_marker, static_cast<int>(e.crc_status),
                       e.crc_received, e.crc_computed, e.judged, e.first_frame, e.last_frame);
    for (const auto& m : e.markers) {
      log +=
          fmt::format(" {}:{}:{}:{}", m.seq.value(), m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr);
    }
    log += fmt::format(" {} {}\n", e.starts_segment, fmt::join(e.ulpdu_head, ","));
  }

  void on_finding(mpa::Finding&& f) override {
    MPA_FUZZ_CHECK(static_cast<std::size_t>(f.id) < static_cast<std::size_t>(mpa::DiagId::kCount),
                   "finding id outside the catalogue");
    MPA_FUZZ_CHECK(f.direction == config_.direction && f.connection == config_.connection,
                   "finding for another direction");
    if (f.tcp_seq.distance_from(config_.start_seq) !=
        static_cast<std::uint32_t>(f.stream_offset - config_.start_offset)) {
      std::fprintf(stderr, "%s at seq %u offset %llu: %s\n",
                   std::string(mpa::info(f.id).name).c_str(), f.tcp_seq.value(),
                   static_cast<unsigned long long>(f.stream_offset), f.message.c_str());
      MPA_FUZZ_CHECK(false, "finding sequence number and offset disagree");
    }
    log += fmt::format("D {} {} {} {} {}\n", mpa::info(f.id).name, f.frame, f.tcp_seq.value(),
                       f.stream_offset, f.message);
  }

  // An FPDU not framed as the RFC frames it must be the one whose CRC named the deviation the
  // reader names next (before its next FPDU, or the end).
  void settle() {
    if (!unexplained_) return;
    MPA_FUZZ_CHECK(
        reader_.framing_named() && framed_as(*unexplained_, reader_.framing(), reader_.grid()),
        "an FPDU framed neither as the RFC nor as the deviation named after it");
    unexplained_.reset();
  }

  std::string log;
  std::vector<std::uint64_t> ends;  // where each FPDU ended (stream offsets)
  std::uint64_t fpdus_ = 0;

 private:
  struct Shape {
    mpa::TcpSeq start_seq;
    std::uint32_t ulpdu_length;
    std::uint32_t ulpdu_size;
    std::uint8_t pad_length;
    bool crc_field;
    std::uint32_t wire_length;
    std::size_t markers;
  };
  static bool framed_as(const Shape& s, mpa::SenderFraming f, const mpa::MarkerGrid& grid) {
    // (A ULPDU_Length below the framing's bias reads as an empty ULPDU, as fpdu_content_length.)
    return mpa::ulpdu_octets(f, s.ulpdu_length).value_or(0) == s.ulpdu_size &&
           s.pad_length == mpa::pad_octets(f, s.ulpdu_size) && s.crc_field == f.crc_field &&
           s.wire_length == mpa::fpdu_wire_length(grid, s.start_seq, f, s.ulpdu_length) &&
           s.markers ==
               grid.markers_within(s.start_seq, mpa::fpdu_content_length(f, s.ulpdu_length));
  }

  FpduReaderConfig config_;
  const FpduReader& reader_;
  mpa::MarkerGrid grid_;  // the markers negotiated
  std::uint64_t next_offset_ = 0;
  struct Previous {
    std::uint64_t start_offset;
    mpa::TcpSeq start_seq;
    std::uint32_t ulpdu_length;
  };
  std::optional<Previous> previous_;
  bool named_before_ = false;
  std::optional<Shape> unexplained_;
};

// How one run cuts each stretch of stream between gaps.
// (FpduEnds: a push ends where each FPDU of the whole run ended, one FPDU to a push, as
// senders align them to segments.)
enum class Cut { Whole, SplitPoints, Single, Needed, FpduEnds };

// `given`: each push comes with the CRC of its octets but the last four, as a segment whose
// CRC the pipeline's reading thread worked out (SegmentFacts::payload_crc). `ends`: where
// the FPDUs end (stream offsets): what Cut::FpduEnds cuts at; what a run finds, afterwards.
std::string run(const FpduReaderConfig& config, std::span<const std::uint8_t> stream,
                const std::vector<Gap>& gaps, const std::vector<std::size_t>& splits, Cut cut,
                bool given, std::vector<std::uint64_t>& ends) {
  FpduReader reader(config);
  Recorder recorder(config, reader);
  std::size_t pos = 0;
  std::size_t next_split = 0;
  std::uint64_t gap_total = 0;
  std::uint64_t frame = 1;
  // Needed-driven run: pushes since the last completed FPDU.
  int pushes_in_fpdu = 0;
  for (std::size_t g = 0; g <= gaps.size(); ++g) {
    const std::size_t end = g < gaps.size() ? gaps[g].position : stream.size();
    bool segment_start = true;
    while (pos < end) {
      std::size_t n = end - pos;
      switch (cut) {
        case Cut::Whole:
          break;
        case Cut::SplitPoints:
          while (next_split < splits.size() && splits[next_split] <= pos) ++next_split;
          if (next_split < splits.size() && splits[next_split] < end) n = splits[next_split] - pos;
          break;
        case Cut::Single:
          n = 1;
          break;
        case Cut::FpduEnds: {
          const std::uint64_t at = config.start_offset + pos + gap_total;
          const auto next = std::upper_bound(ends.begin(), ends.end(), at);
          if (next != ends.end() && *next - at < n) n = static_cast<std::size_t>(*next - at);
          break;
        }
        case Cut::Needed: {
          const std::uint32_t needed = reader.bytes_needed();
          MPA_FUZZ_CHECK(needed > 0, "bytes_needed() is 0");
          // While framing is lost it asks for one octet at a time; feed modest pieces
          // instead, or each run would be quadratic in the search.
          n = std::min<std::size_t>(n, reader.synchronised() ? needed : 61);
          break;
        }
      }
      const std::uint64_t before = reader.fpdus();
      const bool was_synchronised = reader.synchronised();
      const bool was_named = reader.framing_named();
      const bool exact = cut == Cut::Needed && n == reader.bytes_needed();
      const std::span<const std::uint8_t> piece = stream.subspan(pos, n);
      mpa::SegmentFacts segment;
      if (given && piece.size() >= mpa::kCrcSize) {
        segment.payload_crc =
            mpa::crc32c_update(mpa::kCrc32cInit, piece.first(piece.size() - mpa::kCrcSize));
      }
      reader.push(piece, frame, segment_start, recorder, segment);
      pos += n;
      segment_start = false;
      MPA_FUZZ_CHECK(reader.fpdus() == recorder.fpdus_, "fpdus() disagrees with events");
      MPA_FUZZ_CHECK(reader.offset() == config.start_offset + pos + gap_total, "offset()");
      MPA_FUZZ_CHECK(
          reader.position() == config.start_seq + static_cast<std::uint32_t>(pos + gap_total),
          "position()");
      // (Not across the push in which a CRC names how the sender frames: the octets asked for
      // were the RFC's; its FPDU ended where that sender's framing ends it.)
      if (exact && was_synchronised && reader.synchronised() &&
          was_named == reader.framing_named()) {
        // bytes_needed() is exact: an FPDU completes at the end of a push, never inside it,
        // and a header plus the rest of its FPDU take at most two pushes.
        if (reader.fpdus() != before) {
          MPA_FUZZ_CHECK(reader.fpdus() == before + 1, "bytes_needed() spans two FPDUs");
          MPA_FUZZ_CHECK(!reader.in_fpdu(), "an FPDU completed inside a push");
          pushes_in_fpdu = 0;
        } else {
          MPA_FUZZ_CHECK(++pushes_in_fpdu < 2,
                         "bytes_needed() underestimated the unit in progress");
        }
      } else {
        pushes_in_fpdu = 0;
      }
    }
    if (g < gaps.size()) {
      reader.on_gap(gaps[g].length, frame, recorder);
      gap_total += gaps[g].length;
      ++frame;
      pushes_in_fpdu = 0;
    }
  }
  // The stream's end (a framing test still open is decided on what it holds).
  reader.finish(frame, recorder);
  recorder.settle();
  if (cut != Cut::FpduEnds) {
    ends = recorder.ends;
    std::sort(ends.begin(), ends.end());  // (the FPDU before a named deviation shrinks)
  }
  MPA_FUZZ_CHECK(reader.ulpdu_bytes() <= stream.size(), "more ULPDU octets than stream octets");
  return recorder.log;
}

// Aborts when two runs' events differ, showing the first line where they part.
void check_same(const std::string& whole, const std::string& other, const char* what) {
  if (whole == other) return;
  std::size_t at = 0;
  while (at < whole.size() && at < other.size() && whole[at] == other[at]) ++at;
  const std::size_t line = whole.rfind('\n', at == 0 ? 0 : at - 1);
  const std::size_t from = line == std::string::npos ? 0 : line + 1;
  std::fprintf(
      stderr, "whole: %.*s\nother: %.*s\n",
      static_cast<int>(std::min<std::size_t>(whole.size() - from, 400)), whole.c_str() + from,
      static_cast<int>(std::min<std::size_t>(other.size() - from, 400)), other.c_str() + from);
  MPA_FUZZ_CHECK(false, what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mpa::fuzz::Input input({data, size});
  const std::uint8_t options = input.u8();
  FpduReaderConfig config;
  config.connection = 7;
  config.direction = mpa::Direction::Responder;
  config.markers = options & 0x01;
  config.crc = options & 0x02;
  config.keep_ulpdu = options & 0x04;
  config.start_seq = mpa::TcpSeq(input.u32());
  config.start_offset = kStartOffset;
  const std::uint16_t grid_back = input.u16();
  config.grid_origin_set = options & 0x08;
  config.grid_origin = config.start_seq - grid_back;
  const std::size_t split_count = input.u8() % 64;
  const std::size_t gap_count = input.u8() % 8;

  const auto split_bytes = input.take_back(2 * split_count);
  const auto gap_bytes = input.take_back(4 * gap_count);
  const std::span<const std::uint8_t> stream = input.rest();

  std::vector<std::size_t> splits;
  for (std::size_t i = 0; i + 1 < split_bytes.size(); i += 2) {
    splits.push_back((split_bytes[i] | (split_bytes[i + 1] << 8)) % (stream.size() + 1));
  }
  std::sort(splits.begin(), splits.end());
  std::vector<Gap> gaps;
  for (std::size_t i = 0; i + 3 < gap_bytes.size(); i += 4) {
    const std::uint16_t length =
        static_cast<std::uint16_t>(gap_bytes[i + 2] | (gap_bytes[i + 3] << 8));
    gaps.push_back({(gap_bytes[i] | (gap_bytes[i + 1] << 8)) % (stream.size() + 1),
                    length == 0 ? (std::uint64_t{1} << 32) : length});
  }
  std::sort(gaps.begin(), gaps.end(),
            [](const Gap& a, const Gap& b) { return a.position < b.position; });

  std::vector<std::uint64_t> ends, ignored;
  const std::string whole = run(config, stream, gaps, splits, Cut::Whole, false, ends);
  check_same(whole, run(config, stream, gaps, splits, Cut::SplitPoints, false, ignored),
             "events depend on where the stream is split");
  check_same(whole, run(config, stream, gaps, splits, Cut::Needed, false, ignored),
             "events differ when fed bytes_needed() octets at a time");
  // One FPDU to a push, each push with its CRC (taken where the FPDU fills it), and cut at
  // the split points with their CRCs (taken where one falls on an FPDU's ends).
  check_same(whole, run(config, stream, gaps, splits, Cut::FpduEnds, true, ends),
             "events differ where each FPDU comes in a push of its own with its CRC");
  check_same(whole, run(config, stream, gaps, splits, Cut::SplitPoints, true, ignored),
             "events differ where each push, cut at the split points, comes with its CRC");
  if (stream.size() <= 1024) {
    check_same(whole, run(config, stream, gaps, splits, Cut::Single, false, ignored),
               "events differ when fed one octet at a time");
  }
  return 0;
}
