// What the library reports: findings (catalogue entries at a location) and facts (startup
// frames, FPDUs, connection summaries), delivered to an EventSink as they become certain.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "mpa/diagnostics.h"
#include "mpa/tcp_seq.h"

namespace mpa {

// RFC words: the Initiator sends the MPA Request (RFC 5044 7.1), not necessarily the SYN.
enum class Direction : std::uint8_t { Initiator, Responder };
std::string_view to_string(Direction direction);
constexpr Direction other(Direction direction) {
  return direction == Direction::Initiator ? Direction::Responder : Direction::Initiator;
}

// The connection of a finding about the capture rather than a connection (IP fragments).
constexpr std::uint32_t kCaptureFinding = UINT32_MAX;

// Where a frame lies in the capture file it was read from: its captured octets (link layer
// first) at `offset`, `length` of them; and when it was captured. Known for the frames of a
// plain pcap or pcapng file read in place (CaptureRecord::source); length 0 where not (a
// compressed file, a pipe, a live capture: its octets are in no file at a place of their own).
struct FramePlace {
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  std::uint64_t timestamp_ns = 0;  // the frame's capture time (0: not known)
};

struct Finding {
  DiagId id{};
  // The connection's number (ConnectionSummary::id), or kCaptureFinding.
  std::uint32_t connection = 0;
  Direction direction{};  // whose data the finding is about
  // The record holding the octets it is about (the first octet of the offending FPDU, marker,
  // pad or startup frame); for a finding about an event (a gap, a close, a retransmission,
  // the capture's end) the record of that event.
  std::uint64_t frame = 0;
  std::uint64_t certain_at = 0;  // the record at which it became certain (>= frame)
  TcpSeq tcp_seq;                // where in that direction's stream
  std::uint64_t stream_offset = 0;
  std::string message;             // the values that explain it
  std::uint64_t timestamp_ns = 0;  // capture time of the segment being analysed when it was found
  // Where `frame` lies in the capture file and when it was captured: stamped by the Analyzer
  // from the frames FrameFeeder fed it (Analyzer::on_frame); all 0 where the frame is not
  // among the last Analyzer::kFramePlaces it was given.
  FramePlace frame_place;
};

// A finding about `seq` (stream offset `offset`) that became certain at `frame`; the
// connection it belongs to fills in `connection` and `direction` when it reports it.
inline Finding make_finding(DiagId id, std::uint64_t frame, TcpSeq seq, std::uint64_t offset,
                            std::string message) {
  Finding f;
  f.id = id;
  f.frame = frame;
  f.tcp_seq = seq;
  f.stream_offset = offset;
  f.message = std::move(message);
  return f;
}

struct MarkerFact {
  TcpSeq seq;  // first octet of the marker
  std::uint16_t reserved = 0;
  std::uint16_t fpdu_ptr = 0;           // as received
  std::uint16_t expected_fpdu_ptr = 0;  // where the FPDU header really is
  // The running CRC32c state (crc32c.h) of its FPDU before the marker's octets, with CRCs on:
  // what a CRC computed without the markers would have been can be worked out from it
  // (crc_patterns.h), where the CRC does not match. Where it matches and was worked out
  // before the analysis (SegmentFacts::payload_crc), this is not worked out.
  std::uint32_t crc_before = 0;
};

enum class CrcStatus : std::uint8_t {
  Good,
  Bad,
  NotChecked,  // CRCs not negotiated: the field may hold anything (RFC 5044 4.1)
};

struct FpduEvent {
  std::uint32_t connection = 0;  // the connection's number (ConnectionSummary::id)
  Direction direction{};
  TcpSeq start_seq;  // first octet (the leading marker, if any)
  std::uint64_t start_offset = 0;
  TcpSeq header_seq;  // the ULPDU_Length field
  std::uint16_t ulpdu_length = 0;
  std::uint32_t ulpdu_size = 0;  // ULPDU octets as the sender framed them: ulpdu_length,
                                 // unless its ULPDU_Length counts other octets (sender_framing.h)
  std::uint8_t pad_length = 0;
  std::array<std::uint8_t, 3> pad{};  // the pad octets as sent (the first pad_length)
  bool crc_field = true;          // false: its sender sends no CRC field (fpdu.crc-field-missing)
  std::uint32_t wire_length = 0;  // markers and CRC included
  bool leading_marker = false;
  std::span<const MarkerFact> markers;  // in stream order, the leading one first
  CrcStatus crc_status = CrcStatus::NotChecked;
  std::uint32_t crc_received = 0;  // as a value (the wire carries it LSB first)
  std::uint32_t crc_computed = 0;  // valid when crc_status != NotChecked
  // CRCs off: the CRC32c of the first FPDU a reader reads, and of the next ones as long as each
  // CRC field held its CRC32c, so that the first whose field does not is known (a receiver MUST
  // NOT check it, and one that does fails there; receiver_reactions.h); nullopt for the others
  // and with CRCs on.
  std::optional<std::uint32_t> crc_unchecked;
  std::uint64_t first_frame = 0;  // frame holding the first octet
  std::uint64_t last_frame = 0;   // frame that completed it
  bool starts_segment = false;    // first octet is the first octet of a segment
  bool within_one_segment = false;
  bool judged = true;                        // false after an error ended MPA in this direction
  std::span<const std::uint8_t> ulpdu_head;  // first octets of the ULPDU (markers removed)
  std::span<const std::uint8_t> ulpdu;       // the whole ULPDU, when the reader keeps it
  std::uint64_t timestamp_ns = 0;  // capture time of the segment that completed it (0: unknown)
};

// Stream offset of the FPDU's ULPDU_Length field (after the leading marker, if any).
inline std::uint64_t header_offset(const FpduEvent& fpdu) {
  return fpdu.start_offset + fpdu.header_seq.distance_from(fpdu.start_seq);
}
// Stream offset of the octet after the FPDU's last (the CRC field's last octet, markers
// counted).
inline std::uint64_t end_offset(const FpduEvent& fpdu) {
  return fpdu.start_offset + fpdu.wire_length;
}

class FpduSink {
 public:
  virtual ~FpduSink() = default;
  virtual void on_fpdu(const FpduEvent& fpdu) = 0;
  virtual void on_finding(Finding&& finding) = 0;
  // The FPDU reported last before a framing deviation was named, as its sender framed it
  // (see EventSink::on_fpdu_revised).
  virtual void on_fpdu_revised(const FpduEvent& revised, bool markers) {
    (void)revised, (void)markers;
  }
};

}  // namespace mpa
