// What mpa-check knows of a connection when it ends: per direction the parameters it ran
// with, FPDU and octet counts, the alignment of FPDUs with segments, ULPDU sizes and RDMAP
// opcodes; per connection the roles, startup frames and finding counts.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "mpa/diagnostics.h"
#include "mpa/events.h"
#include "mpa/packet.h"
#include "mpa/startup_frame.h"

namespace mpa {

// ULPDU size distribution buckets: [0], [1,64], [65,512], [513,1460], [1461,4096],
// [4097,9000], [9001,65535].
inline constexpr std::size_t kUlpduSizeBuckets = 7;
inline constexpr std::uint32_t kUlpduSizeBounds[kUlpduSizeBuckets] = {0,    64,   512,  1460,
                                                                      4096, 9000, 65535};

// The first TCP segment of one side carrying a control flag (SYN, FIN or RST).
struct TcpFlagSeen {
  std::uint64_t frame = 0;  // 0: not seen
  std::uint64_t ns = 0;     // its capture time
};
struct TcpControlSeen {
  TcpFlagSeen syn, fin, rst;
};

struct DirectionSummary {
  bool full_operation = false;
  bool markers = false;
  bool crc = false;
  bool inferred = false;  // parameters inferred, not negotiated
  std::uint64_t fpdus = 0;
  std::uint64_t ulpdu_bytes = 0;
  std::uint64_t crc_failures = 0;
  std::uint64_t segments = 0;                // segments carrying full-operation octets
  std::uint64_t segments_starting_fpdu = 0;  // of those, starting with an FPDU's first octet
  std::uint64_t fpdus_in_one_segment = 0;
  std::uint64_t bytes = 0;  // payload octets of this direction
  std::uint16_t max_ulpdu = 0;
  std::optional<std::uint16_t> mss;               // MSS option in this side's SYN
  std::uint32_t mulpdu = 0;                       // MULPDU the receiver's MSS allows (0: unknown)
  std::array<std::uint64_t, 16> rdmap_opcodes{};  // FPDUs by RDMAP opcode (RFC 5040 4.2)
  std::array<std::uint64_t, kUlpduSizeBuckets> ulpdu_sizes{};  // see kUlpduSizeBounds
  std::uint64_t terminates = 0;
  std::string stack;   // implementation recognised from startup, if any
  TcpControlSeen tcp;  // this side's first SYN, FIN and RST
  // The link-layer source address of this side's first frame that had one (none for raw IP
  // or loopback captures): what a hosts file's MAC prefixes name.
  std::optional<MacAddress> mac;
};

struct ConnectionSummary {
  // The connection's number, as every face shows it (`connection N`, `mpa.connection`): the
  // MPA connections of one analysis from 0, in the order they became MPA
  // (EventSink::on_connection_start), batch or live. TCP connections that never carry MPA
  // take no number.
  std::uint32_t id = 0;
  Endpoint initiator;  // sender of the MPA Request; else the TCP client (SYN sender / first seen)
  Endpoint responder;
  bool startup_seen = false;
  std::optional<StartupFrame> request;
  std::optional<StartupFrame> reply;
  DirectionSummary directions[2];  // indexed by Direction
  SeverityCounts findings;
  std::uint64_t first_frame = 0;
  std::uint64_t last_frame = 0;
  std::uint64_t request_ns = 0, reply_ns = 0, first_fpdu_ns = 0;  // 0: not seen
  std::uint64_t first_ns = 0, last_ns = 0;  // capture times of first_frame and last_frame
  // Finished because it was idle for AnalyzerOptions::idle_timeout_ns, not closed: the
  // analysis let go of it as it does at the end of the capture.
  bool expired = false;

  int revision() const { return request ? request->revision : -1; }
  const DirectionSummary& direction(Direction d) const { return directions[static_cast<int>(d)]; }
};

}  // namespace mpa
