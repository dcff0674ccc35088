// One direction's DDP Stream (RFC 5041) of RDMAP messages (RFC 5040, RFC 7306), assembled from
// its DDP Segments in order: per untagged queue the MSN (1 first, one more per message, the
// same within one) and MO, the tagged message going on in STag and TO until its Last flag (its
// TOs tiling one interval), the DDP and RDMAP Control fields, each opcode's DDP model and queue,
// and nothing after a Terminate; each message seen whole judged as a whole when it is left (its
// MOs covering it from 0 to the Last segment's end once, a zero-length one in one segment, the
// Last flag before its sender closes). Pure: a segment in, findings out. Small: what it holds of
// a direction is the state of five queues (four MO runs each) and one tagged message (four TO
// runs), made only once DDP is seen (UlpChecks).
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mpa/ddp.h"
#include "mpa/events.h"

namespace mpa {

// The untagged queues RDMAP uses (RFC 5040 5: 0 Send, 1 RDMA Read Request, 2 Terminate; RFC
// 7306's Atomic Request and Response on 3 and 4).
inline constexpr std::uint32_t kDdpQueues = 5;

// The catalogue ids a direction has named already (each once): a bit per DiagId, sized from the
// catalogue, so any id may be asked about (a shift by the id's distance from one of them would
// be undefined past 31).
class SaidOnce {
 public:
  // True the first time `id` is asked about, false after.
  bool first(DiagId id) {
    const auto i = static_cast<std::size_t>(id);
    if (said_.test(i)) return false;
    said_.set(i);
    return true;
  }

 private:
  std::bitset<static_cast<std::size_t>(DiagId::kCount)> said_;
};

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
  // The sender closed its stream (FIN) at stream position `seq` / `offset` in `frame`, at an
  // FPDU boundary: a message still open, every segment of it seen, never got its Last flag
  // (RFC 5041 4.1). (A capture that ends, a reset, or a stream that lost its place shows
  // nothing: what would have followed is unknown.)
  void close(std::uint64_t frame, TcpSeq seq, std::uint64_t offset, std::vector<Finding>& out);

 private:
  struct Queue {
    std::uint32_t msn = 0;      // the MSN of the open message, or of the last one closed
    std::uint32_t next_mo = 0;  // where the open message's next segment goes on
    // The message `msn` as its segments add up (RFC 5041 5.2), where every segment of it was
    // seen (`whole`): the MO runs its payloads cover (in order, adjacent ones joined; more
    // than kRuns apart and its gaps are not judged), the end of its highest segment (MO +
    // payload), the Last segment's end and how many segments it took.
    static constexpr std::size_t kRuns = 4;
    std::array<std::pair<std::uint64_t, std::uint64_t>, kRuns> runs{};
    std::uint8_t run_count = 0;
    std::uint64_t end = 0;
    std::uint64_t last_end = 0;
    std::uint32_t segments = 0;
    std::uint64_t first_frame = 0;  // its first segment's frame
    bool known = false;             // msn is known (from the start: 0, none yet; or a segment seen)
    bool open = false;              // a message without its Last segment yet
    bool whole = false;             // every segment of message `msn` was seen
    bool overlap = false;           // two of its segments' payloads share MOs
    bool too_many_runs = false;     // its runs did not fit `runs`
  };
  struct Tagged {
    std::uint32_t stag = 0;
    std::uint64_t next_to = 0;
    std::uint32_t octets = 0;    // the open message's payload octets so far
    std::uint32_t segments = 0;  // and its segments
    std::uint8_t opcode = 0;
    bool open = false;   // a tagged message without its Last segment yet
    bool known = false;  // a Last segment was seen since the stream began or lost its place
    bool whole = false;  // every segment of the open message was seen
    // The TO runs the message's payloads cover (RFC 5041 5.2: its TOs tile one interval), in
    // order, adjacent ones joined; more than kRuns apart at once, or a fault named, and its
    // TOs are no longer judged (`tos_judged` false).
    static constexpr std::size_t kRuns = 4;
    std::array<std::pair<std::uint64_t, std::uint64_t>, kRuns> runs{};
    std::uint8_t run_count = 0;
    bool tos_judged = true;
  };

  void check_fields(const FpduEvent& fpdu, const DdpHeader& ddp, std::span<const std::uint8_t> head,
                    std::vector<Finding>& out);
  void check_untagged(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload,
                      std::vector<Finding>& out);
  void check_tagged(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload,
                    std::vector<Finding>& out);
  // Adds the payload [mo, end) of one of message `q.msn`'s segments to what it covers.
  static void cover(Queue& q, std::uint64_t mo, std::uint64_t end);
  // The open tagged message's TOs (RFC 5041 5.2): one segment's payload [TO, TO + `payload`)
  // that overlaps another's, or at the Last segment of a message seen whole runs that leave a
  // gap, is ddp.tagged-offsets-inconsistent.
  void tile_tagged(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload,
                   std::vector<Finding>& out);
  // Whether message `q.msn`, closed by its Last flag, covers 0 to the Last segment's end once.
  // (Inline: asked as each message of a queue is left.)
  static bool covered(const Queue& q) {
    if (q.overlap || q.end > q.last_end) return false;
    if (q.too_many_runs) return true;  // (its gaps not followed: taken as covered)
    return q.last_end == 0
               ? q.run_count == 0
               : q.run_count == 1 && q.runs[0].first == 0 && q.runs[0].second == q.last_end;
  }
  // What is wrong with message `q.msn`'s MOs (covered() false), in words.
  static std::string mo_fault(const Queue& q);
  // Message `q.msn`, closed by its Last flag, is left (its queue's next message begins): its
  // MOs must have covered 0 up to the Last segment's end exactly (RFC 5041 4.1, 4.3, 5.2).
  void judge_mos(std::uint32_t queue, const Queue& q, const FpduEvent& fpdu,
                 std::vector<Finding>& out);
  // A segment of message `q.msn` after its Last segment (sent out of order, or beyond it).
  void late_segment(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload, Queue& q,
                    std::vector<Finding>& out);
  // Adds a finding for `id` unless one was said in this direction (each id once).
  void say(DiagId id, const FpduEvent& fpdu, std::string message, std::vector<Finding>& out);
  void say_at(DiagId id, std::uint64_t frame, TcpSeq seq, std::uint64_t offset, std::string message,
              std::vector<Finding>& out);

  std::array<Queue, kDdpQueues> queues_{};
  Tagged tagged_;
  SaidOnce said_;                    // the ids already named in this direction
  std::uint8_t ddp_version_ = 0xff;  // the stream's DV (0xff: none seen)
  bool terminated_ = false;          // a Terminate went out
};

}  // namespace mpa
