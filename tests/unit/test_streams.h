// Test helpers: FPDU streams (RFC 5044 4.1-4.4) and startup frames (RFC 5044 7.1.1,
// RFC 6581 6, 9) built from the RFC text, independently of marker_grid.h: markers are
// inserted by walking the stream octet by octet, so the library's marker arithmetic is
// checked against a second, naive implementation. Also a recording FpduSink. Needs no
// GoogleTest (the benchmarks use it too).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bytes.h"  // mpa_synth
#include "mpa/crc32c.h"
#include "mpa/events.h"
#include "mpa/fpdu_reader.h"

namespace mpa::test {

using Bytes = std::vector<std::uint8_t>;

inline Bytes random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  Bytes bytes(size);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(byte(generator));
  return bytes;
}

using synth::put_be16;
using synth::put_be32;

// ---- FPDU streams

// Sender faults to put into one FPDU. The CRC is computed over what is sent (faults
// included) unless `bad_crc`.
struct FpduFaults {
  bool bad_crc = false;                        // CRC field off by one bit
  std::uint8_t pad_value = 0;                  // every pad octet
  std::uint16_t marker_reserved = 0;           // reserved field of this FPDU's markers
  std::uint16_t fpdu_ptr_or = 0;               // OR'ed into every FPDUPTR of this FPDU
  std::int32_t fpdu_ptr_delta = 0;             // added to FPDUPTRs that point at the header
  std::optional<std::uint16_t> leading_fpdu_ptr = std::nullopt;  // FPDUPTR of a leading marker (else 0)
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
      : options_(options), origin_(options.grid_origin.value_or(options.start_seq)) {}

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
    BuiltFpdu f;
    f.ulpdu = ulpdu;
    f.ulpdu_length = static_cast<std::uint16_t>(ulpdu.size());
    f.start = bytes_.size();
    f.start_seq = next_seq();
    // ULPDU_Length, ULPDU, pad to a multiple of four, CRC (RFC 5044 4.1).
    Bytes content;
    put_be16(content, f.ulpdu_length);
    content.insert(content.end(), ulpdu.begin(), ulpdu.end());
    while (content.size() % 4 != 0) {
      content.push_back(faults.pad_value);
      ++f.pad_length;
    }
    const std::size_t crc_at = content.size();
    content.resize(content.size() + 4);

    Bytes covered;  // what the CRC covers (RFC 5044 4.4)
    covered.reserve(content.size() + content.size() / 64 + 8);
    bytes_.reserve(bytes_.size() + content.size() + content.size() / 64 + 8);
    for (std::size_t k = 0; k < content.size(); ++k) {
      if (marker_at(next_seq())) {
        BuiltMarker marker;
        marker.seq = next_seq();
        marker.index = bytes_.size();
        marker.reserved = faults.marker_reserved;
        if (k == 0) {
          // Falls between FPDUs: FPDUPTR 0, belongs to (and is covered by) this FPDU.
          f.leading_marker = true;
          marker.expected_fpdu_ptr = 0;
          marker.fpdu_ptr = faults.leading_fpdu_ptr.value_or(0);
        } else {
          marker.expected_fpdu_ptr = static_cast<std::uint16_t>(marker.seq - f.header_seq);
          marker.fpdu_ptr = static_cast<std::uint16_t>(marker.expected_fpdu_ptr + faults.fpdu_ptr_delta);
        }
        marker.fpdu_ptr |= faults.fpdu_ptr_or;
        Bytes octets;
        put_be16(octets, marker.reserved);
        put_be16(octets, marker.fpdu_ptr);
        if (k <= crc_at) covered.insert(covered.end(), octets.begin(), octets.end());
        bytes_.insert(bytes_.end(), octets.begin(), octets.end());
        f.markers.push_back(marker);
      }
      if (k == 0) {
        f.header = bytes_.size();
        f.header_seq = next_seq();
      }
      if (k == crc_at) {
        f.crc_correct = crc32c(covered);
        f.crc_sent = f.crc_correct;
        if (!options_.crc) f.crc_sent = ~f.crc_correct ^ 0x5A5A5A5Au;  // anything at all
        if (faults.bad_crc) f.crc_sent ^= 1u;
        for (int b = 0; b < 4; ++b) content[crc_at + b] = static_cast<std::uint8_t>(f.crc_sent >> (8 * b));
      }
      if (k < crc_at) covered.push_back(content[k]);
      bytes_.push_back(content[k]);
    }
    f.wire_length = static_cast<std::uint32_t>(bytes_.size() - f.start);
    fpdus_.push_back(std::move(f));
    return fpdus_.back();
  }

  const BuiltFpdu& add_random(std::size_t ulpdu_length, std::uint32_t seed,
                              const FpduFaults& faults = {}) {
    return add(random_bytes(ulpdu_length, seed), faults);
  }

  // Octets that are not FPDUs (a stream damaged on purpose); no markers are inserted.
  void add_raw(std::span<const std::uint8_t> raw) { bytes_.insert(bytes_.end(), raw.begin(), raw.end()); }

 private:
  Options options_;
  std::uint32_t origin_;
  Bytes bytes_;
  std::vector<BuiltFpdu> fpdus_;
};

// A DDP untagged Send ULPDU (RFC 5041 4.3, RFC 5040 4): L=1, DDP/RDMAP version 1, queue 0.
inline Bytes ddp_send(std::uint32_t msn, std::size_t payload) {
  Bytes out = {0x41, 0x43, 0, 0, 0, 0};
  put_be32(out, 0);    // queue
  put_be32(out, msn);  // MSN
  put_be32(out, 0);    // MO
  out.resize(out.size() + payload, 0);
  return out;
}

// ---- startup frames

inline constexpr std::string_view kReq = "MPA ID Req Frame";
inline constexpr std::string_view kRep = "MPA ID Rep Frame";

// RFC 6581 9: A B IRD(14) | C D ORD(14), network byte order.
inline Bytes enhanced_block(bool a, bool b, std::uint16_t ird, bool c, bool d, std::uint16_t ord) {
  Bytes out;
  put_be16(out, static_cast<std::uint16_t>((a ? 0x8000 : 0) | (b ? 0x4000 : 0) | (ird & 0x3FFF)));
  put_be16(out, static_cast<std::uint16_t>((c ? 0x8000 : 0) | (d ? 0x4000 : 0) | (ord & 0x3FFF)));
  return out;
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
  Bytes out(spec.key.begin(), spec.key.end());
  out.resize(16, ' ');
  out.push_back(spec.flags);
  out.push_back(spec.revision);
  put_be16(out, spec.pd_length.value_or(static_cast<std::uint16_t>(spec.private_data.size())));
  if (spec.extension) out.insert(out.end(), spec.extension->begin(), spec.extension->end());
  out.insert(out.end(), spec.private_data.begin(), spec.private_data.end());
  return out;
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
  std::vector<RecordedSegmentFacts> segment_facts;  // one per FPDU
  std::vector<RecordedFinding> findings;
  std::vector<std::uint64_t> finding_frames;        // one per finding

  void on_fpdu(const FpduEvent& e) override {
    RecordedFpdu r{e.start_seq.value(), e.header_seq.value(), e.start_offset, e.ulpdu_length,
                   e.pad_length, e.wire_length, e.leading_marker, {}, e.crc_status,
                   e.crc_received, e.crc_computed, e.judged,
                   Bytes(e.ulpdu_head.begin(), e.ulpdu_head.end()),
                   Bytes(e.ulpdu.begin(), e.ulpdu.end())};
    for (const MarkerFact& m : e.markers) {
      r.markers.push_back({m.seq.value(), m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr});
    }
    fpdus.push_back(std::move(r));
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
  return config;
}

// Feeds `stream` to a new reader in pieces ending at `cuts` (ascending stream indices; the
// last piece runs to the end). Piece k is frame k + 1 and starts a segment.
inline RecordingSink read_in_pieces(const FpduReaderConfig& config, std::span<const std::uint8_t> stream,
                                    const std::vector<std::size_t>& cuts) {
  RecordingSink sink;
  FpduReader reader(config);
  std::size_t at = 0;
  std::uint64_t frame = 1;
  for (std::size_t cut : cuts) {
    if (cut <= at || cut >= stream.size()) continue;
    reader.push(stream.subspan(at, cut - at), frame++, true, sink);
    at = cut;
  }
  reader.push(stream.subspan(at), frame, true, sink);
  return sink;
}

inline std::vector<std::size_t> every(std::size_t step, std::size_t size) {
  std::vector<std::size_t> cuts;
  for (std::size_t at = step; at < size; at += step) cuts.push_back(at);
  return cuts;
}

inline std::vector<std::size_t> random_cuts(std::size_t size, std::size_t count, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<std::size_t> pick(1, size > 1 ? size - 1 : 1);
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < count; ++i) cuts.push_back(pick(generator));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

}  // namespace mpa::test
