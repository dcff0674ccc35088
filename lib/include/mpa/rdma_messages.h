// RDMA messages as a protocol engineer thinks of them (RFC 5040 4, RFC 5041 5, RFC 7306): each
// DDP message a connection's FPDUs carry, assembled from its DDP Segments (an untagged one by
// its queue and MSN, a tagged one by its STag, or the TO where it left off, until its Last
// flag), with its opcode, size, segments and frames; counts by opcode always, the list of
// messages bounded.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mpa/ddp.h"
#include "mpa/events.h"
#include "mpa/tcp_seq.h"

namespace mpa {

// Messages listed per connection; those beyond are counted (RdmaMessageLog::not_listed).
inline constexpr std::size_t kMaxListedMessages = 10000;

// What an RDMA Read Request asks for (RFC 5040 4.4): the Data Sink's STag and Tagged Offset
// (where the Read Response writes), the RDMA Read Message Size, and the Data Source's STag and
// Tagged Offset (where it reads from).
struct RdmaReadAsked {
  std::uint32_t sink_stag = 0;
  std::uint64_t sink_to = 0;
  std::uint32_t size = 0;
  std::uint32_t source_stag = 0;
  std::uint64_t source_to = 0;
};

struct RdmaMessage {
  std::uint64_t number = 0;  // of its direction, from 0, in the order the messages began
  Direction direction{};
  std::uint8_t opcode = 0;  // RDMAP opcode (RdmapOpcode)
  bool tagged = false;
  bool complete = false;    // its segment with the Last flag was seen
  std::uint32_t queue = 0;  // untagged: queue number and MSN
  std::uint32_t msn = 0;
  std::uint32_t stag = 0;  // tagged: the STag and TO of its first segment (a later segment may
                           // change the STag: ddp.stag-changed)
  std::uint64_t to = 0;
  std::uint64_t octets = 0;    // DDP payload octets (after the DDP header; RDMAP headers counted)
  std::uint32_t segments = 0;  // its DDP Segments (one per FPDU)
  std::uint64_t first_frame = 0;      // the frame that completed its first FPDU
  std::uint64_t last_frame = 0;       // the frame that completed its last FPDU so far
  TcpSeq first_seq;                   // its first FPDU's ULPDU_Length field
  TcpSeq last_seq;                    // its last FPDU's
  std::optional<RdmaReadAsked> read;  // an RDMA Read Request's
};

// A message in words, as every face shows it: "Send queue 0 MSN 3: 4096 octets in 3 DDP
// segments", "RDMA Write STag 0x00001234 TO 0x1000: ...", an RDMA Read Request's
// "asks 65536 octets from STag .. TO .. into STag .. TO ..", "(no Last segment seen)".
std::string rdma_message_words(const RdmaMessage& message);

// Per RDMAP opcode: messages begun, their DDP payload octets and DDP Segments.
struct RdmaOpcodeTally {
  std::uint64_t messages = 0;
  std::uint64_t octets = 0;
  std::uint64_t segments = 0;
};
using RdmaMessageCounts = std::array<RdmaOpcodeTally, 16>;  // by opcode

// The messages of one connection, both directions, fed its FPDUs in the order they are
// reported (EventSink::on_fpdu). It takes the DDP Segments the DDP layer takes (ddp_stream.h):
// judged FPDUs whose CRC did not fail and whose ULPDU holds its DDP and RDMAP headers; any
// other FPDU closes its direction's open messages unfinished (what it held is unknown), and
// a zero-length ULPDU (an RTR) is none.
class RdmaMessageLog {
 public:
  explicit RdmaMessageLog(std::size_t max_listed = kMaxListedMessages) : max_listed_(max_listed) {}
  // A log whose messages nobody reads (counts() and total() only): on_fpdu() builds and lists
  // no RdmaMessage (its frames, places and Read Request) and returns nullptr.
  struct CountsOnly {};
  explicit RdmaMessageLog(CountsOnly) : max_listed_(0), counts_only_(true) {}

  // The message `fpdu` is a segment of, as it stands with it (complete: `fpdu` was its last),
  // valid until the next call; nullptr when `fpdu` is no segment the DDP layer takes (and
  // always for a CountsOnly log).
  const RdmaMessage* on_fpdu(const FpduEvent& fpdu);

  const std::vector<RdmaMessage>& messages() const { return listed_; }
  std::uint64_t not_listed() const { return not_listed_; }
  const RdmaMessageCounts& counts(Direction d) const { return counts_[static_cast<int>(d)]; }
  std::uint64_t total(Direction d) const { return begun_[static_cast<int>(d)]; }

 private:
  // A message going on, and its place in the list (npos: not listed).
  struct Open {
    bool open = false;
    RdmaMessage message;
    std::size_t listed = static_cast<std::size_t>(-1);
  };
  // Per direction: queues 0-4 (RFC 5040 5, RFC 7306), one for any other queue, the tagged one.
  static constexpr std::size_t kSlots = 7;
  using Slots = std::array<Open, kSlots>;
  void begin(Open& o, const FpduEvent& fpdu, const DdpHeader& ddp);
  // What only a log whose messages are read keeps of a segment of `o`'s message.
  void keep(Open& o, const FpduEvent& fpdu, const DdpHeader& ddp, bool began);

  std::size_t max_listed_;
  bool counts_only_ = false;
  std::vector<RdmaMessage> listed_;
  std::uint64_t not_listed_ = 0;
  std::array<RdmaMessageCounts, 2> counts_{};
  std::array<std::uint64_t, 2> begun_{};
  std::array<Slots, 2> open_{};
};

}  // namespace mpa
