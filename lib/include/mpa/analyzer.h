// The MPA connection analyzer (RFC 5044 7.1, 4, 8; RFC 6581): TCP segments of a whole
// capture in, findings and facts out. Per TCP connection it reassembles both directions,
// follows streaming mode -> startup frames -> full operation, settles roles by who sent the
// MPA Request (not who sent the SYN), negotiates markers and CRC per direction, checks the
// startup ordering rules, and hands full-operation bytes to an FpduReader per direction.
// Captures that miss the startup frames are recognised by their FPDU structure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "mpa/events.h"
#include "mpa/packet.h"
#include "mpa/startup_frame.h"
#include "mpa/tcp_reassembly.h"

namespace mpa {

struct AnalyzerOptions {
  ReassemblyOptions reassembly;
  // Connections tracked at once; beyond this the least recently active one is finished
  // early (its findings so far are kept).
  std::size_t max_connections = 16384;
  // Captures without startup frames: declared parameters (unset: inferred from the data).
  std::optional<bool> markers;
  std::optional<bool> crc;
  // Look for FPDUs in connections whose SYN was captured but which never sent a startup
  // frame (normally such connections are taken to be other protocols).
  bool infer_with_syn = false;
  // Octets per direction examined to recognise MPA without startup frames.
  std::size_t inference_window = 64u << 10;
  // Hand each whole ULPDU (markers removed) to EventSink::on_fpdu (FpduEvent::ulpdu).
  bool keep_ulpdu = false;
};

// ULPDU size distribution buckets: [0], [1,64], [65,512], [513,1460], [1461,4096],
// [4097,9000], [9001,65535].
inline constexpr std::size_t kUlpduSizeBuckets = 7;
inline constexpr std::uint32_t kUlpduSizeBounds[kUlpduSizeBuckets] = {0, 64, 512, 1460, 4096, 9000, 65535};

struct DirectionSummary {
  bool full_operation = false;
  bool markers = false;
  bool crc = false;
  bool inferred = false;  // parameters inferred, not negotiated
  std::uint64_t fpdus = 0;
  std::uint64_t ulpdu_bytes = 0;
  std::uint64_t crc_failures = 0;
  std::uint64_t segments = 0;               // segments carrying full-operation octets
  std::uint64_t segments_starting_fpdu = 0; // of those, starting with an FPDU's first octet
  std::uint64_t fpdus_in_one_segment = 0;
  std::uint64_t bytes = 0;                  // payload octets of this direction
  std::uint16_t max_ulpdu = 0;
  std::optional<std::uint16_t> mss;         // MSS option in this side's SYN
  std::uint32_t mulpdu = 0;                 // MULPDU the receiver's MSS allows (0: unknown)
  std::array<std::uint64_t, 16> rdmap_opcodes{};  // FPDUs by RDMAP opcode (RFC 5040 4.2)
  std::array<std::uint64_t, kUlpduSizeBuckets> ulpdu_sizes{};  // see kUlpduSizeBounds
  std::uint64_t terminates = 0;
  std::string stack;                        // implementation recognised from startup, if any
};

struct ConnectionSummary {
  std::uint32_t id = 0;
  Endpoint initiator;  // sender of the MPA Request; else the TCP client (SYN sender / first seen)
  Endpoint responder;
  bool startup_seen = false;
  bool is_mpa = false;  // startup frames seen or FPDUs recognised
  std::optional<StartupFrame> request;
  std::optional<StartupFrame> reply;
  DirectionSummary directions[2];  // indexed by Direction
  std::uint64_t findings[3] = {0, 0, 0};  // by Severity
  std::uint64_t first_frame = 0;
  std::uint64_t last_frame = 0;
  std::uint64_t request_ns = 0, reply_ns = 0, first_fpdu_ns = 0;  // 0: not seen

  int revision() const { return request ? request->revision : -1; }
  const DirectionSummary& direction(Direction d) const { return directions[static_cast<int>(d)]; }
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_finding(const Finding& finding) = 0;
  virtual void on_startup_frame(std::uint32_t connection, Direction direction,
                                const StartupFrame& frame, std::uint64_t frame_number,
                                TcpSeq seq) {
    (void)connection, (void)direction, (void)frame, (void)frame_number, (void)seq;
  }
  virtual void on_fpdu(const FpduEvent& fpdu) { (void)fpdu; }
  // A connection ended (closed, evicted, or the capture ended). Only MPA connections.
  virtual void on_connection_end(const ConnectionSummary& summary) { (void)summary; }
};

class Analyzer {
 public:
  Analyzer(AnalyzerOptions options, EventSink& sink);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  void on_segment(const TcpSegment& segment);
  // An IP fragment that could not be reassembled (its TCP bytes will show up as missing).
  void on_ip_fragment(std::uint64_t frame, const std::string& detail);
  // End of the capture: every open connection is finished.
  void finish(std::uint64_t last_frame);

  std::uint64_t tcp_connections() const;
  std::uint64_t mpa_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpa
