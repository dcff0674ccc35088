// One direction's DDP Stream (RFC 5041) of RDMAP messages (RFC 5040, RFC 7306), assembled from
// its DDP Segments in order: per untagged queue the MSN (1 first, one more per message, the
// same within one) and MO, the tagged message going on in STag and TO until its Last flag, the
// DDP and RDMAP Control fields, each opcode's DDP model and queue, and nothing after a
// Terminate. Pure: a segment in, findings out. Small: what it holds of a direction is the
// state of five queues and one tagged message, made only once DDP is seen (UlpChecks).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "mpa/ddp.h"
#include "mpa/events.h"

namespace mpa {

// The untagged queues RDMAP uses (RFC 5040 5: 0 Send, 1 RDMA Read Request, 2 Terminate; RFC
// 7306's Atomic Request and Response on 3 and 4).
inline constexpr std::uint32_t kDdpQueues = 5;

class DdpStream {
 public:
  // `from_start`: the direction's first FPDU opens the stream (its startup was seen and no
  // octet before it went missing), so each queue's first MSN must be 1.
  explicit DdpStream(bool from_start);

  // One DDP Segment whose FPDU was judged and whose CRC did not fail: `ddp` its decoded header,
  // `head` the ULPDU's first octets, `ulpdu_size` the ULPDU's length.
  void check(const FpduEvent& fpdu, const DdpHeader& ddp, std::span<const std::uint8_t> head,
             std::uint32_t ulpdu_size, std::vector<Finding>& out);
  // Segments went missing or could not be read: each queue and the tagged message are taken
  // as the next segment shows them.
  void lose();

 private:
  struct Queue {
    std::uint32_t msn = 0;      // the MSN of the open message, or of the last one closed
    std::uint32_t next_mo = 0;  // where the open message's next segment goes on
    bool known = false;         // msn is known (from the start: 0, none yet; or a segment seen)
    bool open = false;          // a message without its Last segment yet
  };
  struct Tagged {
    std::uint32_t stag = 0;
    std::uint64_t next_to = 0;
    std::uint8_t opcode = 0;
    bool open = false;  // a tagged message without its Last segment yet
  };

  void check_fields(const FpduEvent& fpdu, const DdpHeader& ddp, std::span<const std::uint8_t> head,
                    std::vector<Finding>& out);
  void check_untagged(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload,
                      std::vector<Finding>& out);
  void check_tagged(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload,
                    std::vector<Finding>& out);
  // Adds a finding for `id` unless one was said in this direction (each id once).
  void say(DiagId id, const FpduEvent& fpdu, std::string message, std::vector<Finding>& out);

  std::array<Queue, kDdpQueues> queues_{};
  Tagged tagged_;
  std::uint32_t said_ = 0;           // bit per id (DiagId - DdpReservedNonzero) already named
  std::uint8_t ddp_version_ = 0xff;  // the stream's DV (0xff: none seen)
  bool terminated_ = false;          // a Terminate went out
};

}  // namespace mpa
