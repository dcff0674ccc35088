// Test helpers: FPDU streams (RFC 5044 4.1-4.4) and startup frames (RFC 5044 7.1.1,
// RFC 6581 6, 9) written by mpa-synth's writers (tests/synth: fpdu_framer.h,
// startup_frame_builder.h), which are written from the RFC text independently of lib/:
// the library's marker arithmetic (marker_grid.h) is checked against a second
// implementation. This header adds what the tests ask of a stream (where each FPDU, header
// and marker sits, which CRC was sent and which was right, a grid origin of any phase,
// octets that are not FPDUs) and a recording FpduSink. Needs no GoogleTest (the benchmarks
// use it too).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bytes.h"  // mpa_synth
#include "fpdu/fpdu_reader.h"
#include "fpdu_framer.h"
#include "mpa/crc32c.h"
#include "mpa/events.h"
#include "startup_frame_builder.h"
#include "ulpdu_builder.h"

namespace mpa::test {

using Bytes = std::vector<std::uint8_t>;

inline Bytes random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  Bytes bytes(size);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(byte(generator));
  return bytes;
}

// mpa-synth's byte writers, for tests that write DDP/RDMAP headers of their own.
using synth::put_be16;
using synth::put_be32;

// ---- FPDU streams

// Sender faults to put into one FPDU. The CRC is computed over what is sent (faults
// included) unless `bad_crc`.
struct FpduFaults {
  bool bad_crc = false;               // CRC field off by one bit
  std::uint8_t pad_value = 0;         // every pad octet
  std::uint16_t marker_reserved = 0;  // reserved field of this FPDU's markers
  std::uint16_t fpdu_ptr_or = 0;      // OR'ed into every FPDUPTR of this FPDU
  std::int32_t fpdu_ptr_delta = 0;    // added to FPDUPTRs that point at the header
  std::optional<std::uint16_t> leading_fpdu_ptr =
      std::nullopt;  // FPDUPTR of a leading marker (else 0)
};

struct BuiltMarker {
  std::uint32_t seq = 0;
  std::size_t index = 0;  // in the stream
  std::uint16_t reserved = 0;
  std::uint16_t fpdu_ptr = 0;           // as sent
  std::uint16_t expected_fpdu_ptr = 0;  // as the RFC wants it
};

struct BuiltFpdu {
  std::size_t start = 0;   // stream index of the first octet (the leading marker, if any)
  std::size_t header = 0;  // stream index of ULPDU_Length
  std::uint32_t start_seq = 0;
  std::uint32_t header_seq = 0;
  std::uint16_t ulpdu_length = 0;
  std::uint32_t pad_length = 0;
  std::uint32_t wire_length = 0;  // markers, pad and CRC included
  bool leading_marker = false;
  std::vector<BuiltMarker> markers;  // in stream order
  std::uint32_t crc_sent = 0;
  std::uint32_t crc_correct = 0;  // over the octets as sent
  Bytes ulpdu;
  std::size_t end() const { return start + wire_length; }
};

class FpduStreamBuilder {
 public:
  struct Options {
    std::uint32_t start_seq = 0;
    bool markers = false;
    bool crc = true;  // false: the CRC field carries garbage (it MUST NOT be checked)
    std::optional<std::uint32_t> grid_origin = std::nullopt;  // default: start_seq (RFC 5044 4.3)
  };

  explicit FpduStreamBuilder(Options options)
      : options_(options),
        origin_(options.grid_origin.value_or(options.start_seq)),
        framer_(options.markers, /*crc=*/true,
                static_cast<std::uint32_t>(options.start_seq - origin_)) {}

  std::uint32_t start_seq() const { return options_.start_seq; }
  std::uint32_t next_seq() const { return seq_at(bytes_.size()); }
  std::uint32_t seq_at(std::size_t index) const {
    return options_.start_seq + static_cast<std::uint32_t>(index);
  }
  const Bytes& bytes() const { return bytes_; }
  const std::vector<BuiltFpdu>& fpdus() const { return fpdus_; }

  // True when a marker begins at `seq`: every 512th octet from the grid origin.
  bool marker_at(std::uint32_t seq) const {
    return options_.markers && static_cast<std::uint32_t>(seq - origin_) % 512 == 0;
  }

  const BuiltFpdu& add(const Bytes& ulpdu, const FpduFaults& faults = {}) {
    synth::FpduTweaks tweaks;
    tweaks.pad_fill = faults.pad_value;
    tweaks.every_marker = {faults.marker_reserved, faults.fpdu_ptr_delta, faults.fpdu_ptr_or};
    tweaks.leading_fpduptr = faults.leading_fpdu_ptr;
    // Without CRCs the field carries anything at all (here: the right value XOR A5A5A5A5).
    tweaks.crc_xor = (options_.crc ? 0u : 0xA5A5A5A5u) ^ (faults.bad_crc ? 1u : 0u);
    const synth::Chunk chunk = framer_.frame(ulpdu, tweaks);

    BuiltFpdu f;
    f.ulpdu = ulpdu;
    f.ulpdu_length = static_cast<std::uint16_t>(ulpdu.size());
    f.pad_length = static_cast<std::uint32_t>(synth::pad_length(ulpdu.size()));
    f.start = bytes_.size();
    f.start_seq = next_seq();
    f.leading_marker = !chunk.marker_offsets.empty() && chunk.marker_offsets.front() == 0;
    f.header = f.start + (f.leading_marker ? synth::kMarkerLength : 0);
    f.header_seq = seq_at(f.header);
    for (const std::size_t at : chunk.marker_offsets) {
      BuiltMarker marker;
      marker.index = f.start + at;
      marker.seq = seq_at(marker.index);
      marker.reserved = static_cast<std::uint16_t>(chunk.bytes[at] << 8 | chunk.bytes[at + 1]);
      marker.fpdu_ptr = static_cast<std::uint16_t>(chunk.bytes[at + 2] << 8 | chunk.bytes[at + 3]);
      // A leading marker points at its own FPDU (FPDUPTR 0); the others back at the header.
      marker.expected_fpdu_ptr =
          at == 0 ? 0 : static_cast<std::uint16_t>(marker.seq - f.header_seq);
      f.markers.push_back(marker);
    }
    f.crc_sent = chunk.crc_sent;
    f.crc_correct = crc32c(std::span(chunk.bytes).first(chunk.crc_offset));  // RFC 5044 4.4
    f.wire_length = static_cast<std::uint32_t>(chunk.bytes.size());
    bytes_.insert(bytes_.end(), chunk.bytes.begin(), chunk.bytes.end());
    fpdus_.push_back(std::move(f));
    return fpdus_.back();
  }

  const BuiltFpdu& add_random(std::size_t ulpdu_length, std::uint32_t seed,
                              const FpduFaults& faults = {}) {
    return add(random_bytes(ulpdu_length, seed), faults);
  }

  // Octets that are not FPDUs (a stream damaged on purpose); no markers are inserted.
  void add_raw(std::span<const std::uint8_t> raw) {
    bytes_.insert(bytes_.end(), raw.begin(), raw.end());
    framer_.skip(raw.size());
  }

 private:
  Options options_;
  std::uint32_t origin_;
  synth::FpduFramer framer_;
  Bytes bytes_;
  std::vector<BuiltFpdu> fpdus_;
};

// A DDP untagged Send ULPDU (RFC 5041 4.3, RFC 5040 4): L=1, DDP/RDMAP version 1, queue 0.
inline Bytes ddp_send(std::uint32_t msn, std::size_t payload) {
  return synth::untagged_send(1, msn, Bytes(payload, 0));
}

// ---- startup frames

inline constexpr std::string_view kReq = synth::kRequestKey;
inline constexpr std::string_view kRep = synth::kReplyKey;

// RFC 6581 9: A B IRD(14) | C D ORD(14), network byte order.
inline Bytes enhanced_block(bool a, bool b, std::uint16_t ird, bool c, bool d, std::uint16_t ord) {
  return synth::encode_enhanced_block(
      {.peer_to_peer = a, .send_rtr = b, .write_rtr = c, .read_rtr = d, .ird = ird, .ord = ord});
}

struct FrameSpec {
  std::string_view key = kReq;
  std::uint8_t flags = 0;
  std::uint8_t revision = 1;
  Bytes private_data = {};
  std::optional<std::uint16_t> pd_length = std::nullopt;  // default: private_data.size()
  std::optional<std::array<std::uint8_t, 8>> extension = std::nullopt;  // Rev 129: after the header
};

inline Bytes startup_frame(const FrameSpec& spec) {
  synth::StartupFrameSpec frame;
  frame.key = std::string(spec.key);  // padded (or cut) to 16 octets
  synth::set_flags(frame, spec.flags);
  frame.revision = spec.revision;
  frame.pd_length_field = spec.pd_length;
  if (spec.extension) {
    frame.vendor_extension = Bytes(spec.extension->begin(), spec.extension->end());
  }
  return synth::build_startup_frame_with_private_data(frame, spec.private_data);
}

// ---- recording what the reader says

struct RecordedMarker {
  std::uint32_t seq;
  std::uint16_t reserved, fpdu_ptr, expected_fpdu_ptr;
  friend bool operator==(const RecordedMarker&, const RecordedMarker&) = default;
};

// An FpduEvent with its spans copied, less what depends on how the stream was cut into
// segments (frames, starts_segment, within_one_segment: kept in RecordedSegmentFacts).
struct RecordedFpdu {
  std::uint32_t start_seq, header_seq;
  std::uint64_t start_offset;
  std::uint16_t ulpdu_length;
  std::uint8_t pad_length;
  std::uint32_t wire_length;
  bool leading_marker;
  std::vector<RecordedMarker> markers;
  CrcStatus crc_status;
  std::uint32_t crc_received, crc_computed;
  bool judged;
  Bytes ulpdu_head, ulpdu;
  friend bool operator==(const RecordedFpdu&, const RecordedFpdu&) = default;
};

struct RecordedSegmentFacts {
  std::uint64_t first_frame, last_frame;
  bool starts_segment, within_one_segment;
};

struct RecordedFinding {
  DiagId id;
  std::uint32_t seq;
  std::uint64_t offset;
  std::string message;
  friend bool operator==(const RecordedFinding&, const RecordedFinding&) = default;
};

class RecordingSink : public FpduSink {
 public:
  std::vector<RecordedFpdu> fpdus;
  std::vector<RecordedSegmentFacts> segment_facts;          // one per FPDU
  std::vector<std::optional<std::uint32_t>> crc_unchecked;  // one per FPDU
  std::vector<RecordedFinding> findings;
  std::vector<std::uint64_t> finding_frames;  // one per finding

  void on_fpdu(const FpduEvent& e) override {
    RecordedFpdu r{e.start_seq.value(),
                   e.header_seq.value(),
                   e.start_offset,
                   e.ulpdu_length,
                   e.pad_length,
                   e.wire_length,
                   e.leading_marker,
                   {},
                   e.crc_status,
                   e.crc_received,
                   e.crc_computed,
                   e.judged,
                   Bytes(e.ulpdu_head.begin(), e.ulpdu_head.end()),
                   Bytes(e.ulpdu.begin(), e.ulpdu.end())};
    for (const MarkerFact& m : e.markers) {
      r.markers.push_back({m.seq.value(), m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr});
    }
    fpdus.push_back(std::move(r));
    crc_unchecked.push_back(e.crc_unchecked);
    segment_facts.push_back({e.first_frame, e.last_frame, e.starts_segment, e.within_one_segment});
  }
  void on_finding(Finding&& f) override {
    findings.push_back({f.id, f.tcp_seq.value(), f.stream_offset, f.message});
    finding_frames.push_back(f.frame);
  }

  std::vector<std::string> finding_names() const {
    std::vector<std::string> names;
    for (const RecordedFinding& f : findings) names.emplace_back(info(f.id).name);
    return names;
  }
  std::size_t count(DiagId id) const {
    std::size_t n = 0;
    for (const RecordedFinding& f : findings) n += f.id == id;
    return n;
  }
};

inline FpduReaderConfig reader_config(std::uint32_t start_seq, bool markers, bool crc,
                                      bool keep_ulpdu = false) {
  FpduReaderConfig config;
  config.start_seq = TcpSeq(start_seq);
  config.markers = markers;
  config.crc = crc;
  config.keep_ulpdu = keep_ulpdu;
  config.check_sender_framing = false;  // random ULPDUs: MPA framing alone is under test
  return config;
}

// The CRC given with a piece (SegmentFacts::payload_crc), from the piece (none: nullopt).
using GivenCrc = std::function<std::optional<std::uint32_t>(std::span<const std::uint8_t>)>;

// Feeds `stream` to a new reader in pieces ending at `cuts` (ascending stream indices; the
// last piece runs to the end). Piece k is frame k + 1 and starts a segment; `given` says
// what CRC each piece comes with, as a segment whose CRC was worked out before.
inline RecordingSink read_in_pieces(const FpduReaderConfig& config,
                                    std::span<const std::uint8_t> stream,
                                    const std::vector<std::size_t>& cuts,
                                    const GivenCrc& given = {}) {
  RecordingSink sink;
  FpduReader reader(config);
  const auto push = [&](std::span<const std::uint8_t> piece, std::uint64_t frame) {
    SegmentFacts segment;
    if (given) segment.payload_crc = given(piece);
    reader.push(piece, frame, true, sink, segment);
  };
  std::size_t at = 0;
  std::uint64_t frame = 1;
  for (std::size_t cut : cuts) {
    if (cut <= at || cut >= stream.size()) continue;
    push(stream.subspan(at, cut - at), frame++);
    at = cut;
  }
  push(stream.subspan(at), frame);
  reader.finish(frame, sink);  // the stream ends here
  return sink;
}

// The CRC the pipeline's reading thread gives with a segment (TcpSegment::payload_crc): the
// running CRC32c over the piece but its last four octets.
inline std::optional<std::uint32_t> crc_but_last_four(std::span<const std::uint8_t> piece) {
  if (piece.size() < 4) return std::nullopt;
  return crc32c_update(kCrc32cInit, piece.first(piece.size() - 4));
}

// Cuts after every FPDU: one FPDU to a segment, as senders align them.
inline std::vector<std::size_t> fpdu_ends(const FpduStreamBuilder& builder) {
  std::vector<std::size_t> cuts;
  for (const BuiltFpdu& f : builder.fpdus()) cuts.push_back(f.end());
  return cuts;
}

inline std::vector<std::size_t> every(std::size_t step, std::size_t size) {
  std::vector<std::size_t> cuts;
  for (std::size_t at = step; at < size; at += step) cuts.push_back(at);
  return cuts;
}

inline std::vector<std::size_t> random_cuts(std::size_t size, std::size_t count,
                                            std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<std::size_t> pick(1, size > 1 ? size - 1 : 1);
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < count; ++i) cuts.push_back(pick(generator));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

}  // namespace mpa::test
