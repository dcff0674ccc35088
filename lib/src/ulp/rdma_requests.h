// The RDMA Read Requests one direction sent and the Read Responses its peer answers them with
// (RFC 5040 4.4, 5.2): each Response held to the oldest outstanding Request (its Data Sink STag
// and TO, its length, the order), in bounded memory, judged only while the capture showed
// every Request and every Response since the requester's first FPDU. Beside them the RFC 7306
// Atomic Requests and Atomic Responses, as Wireshark's packet-iwarp-ddp-rdmap.c lays them out
// (RFC 7306's text is not in the tree): each Request's Atomic Operation Code, and each
// Response's Original Request Identifier held to the Requests still unanswered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "mpa/ddp.h"
#include "mpa/events.h"

namespace mpa {

class RdmaRequests {
 public:
  // Requests kept outstanding at most: beyond it, Responses are no longer judged (a note).
  // RFC 6581 lets an IRD reach 0x3FFE; real stacks declare 8 to 128.
  static constexpr std::size_t kMaxOutstanding = 1024;

  // RFC 5040 4.4: the Read Request header after the untagged DDP header.
  struct ReadRequest {
    std::uint32_t msn = 0;
    std::uint32_t sink_stag = 0;
    std::uint64_t sink_to = 0;
    std::uint32_t size = 0;  // RDMA Read Message Size
    std::uint32_t source_stag = 0;
    std::uint64_t source_to = 0;
    std::uint64_t frame = 0;
    TcpSeq seq;  // its FPDU's header
  };
  // The Request an untagged Read Request FPDU carries (nullopt: its header is cut short).
  static std::optional<ReadRequest> decode(const FpduEvent& fpdu, const DdpHeader& ddp);

  // RFC 7306 Atomic Request header after the untagged DDP header, as Wireshark decodes it: a
  // word whose low 4 bits are the Atomic Operation Code (0 FetchAdd, 2 CmpSwap; the rest
  // Reserved), Request Identifier, Remote STag, Remote Tagged Offset, then the 64-bit Add or
  // Swap Data and Mask and Compare Data and Mask (kAtomicRequestMinSize in all).
  struct AtomicRequest {
    std::uint32_t msn = 0;
    std::uint8_t operation = 0;  // Atomic Operation Code
    std::uint32_t request_id = 0;
    std::uint32_t remote_stag = 0;
    std::uint64_t remote_to = 0;
    std::uint64_t frame = 0;
    TcpSeq seq;  // its FPDU's header
  };
  static constexpr std::uint8_t kFetchAdd = 0x0;
  static constexpr std::uint8_t kCmpSwap = 0x2;
  // The Atomic Request an untagged Atomic Request FPDU carries (nullopt: cut short).
  static std::optional<AtomicRequest> decode_atomic(const FpduEvent& fpdu, const DdpHeader& ddp);

  // The requester's first FPDU was seen with the startup exchange before it: from here on the
  // capture shows every Request (until lose()).
  void start_complete() {
    if (!lost_) complete_ = true;
  }
  // A Request or a Response may have gone unseen (a gap, an FPDU not read as sent): nothing is
  // judged any more in this direction (its pairing is unknown).
  void lose();
  bool judging() const { return complete_ && !lost_; }
  std::size_t outstanding() const { return outstanding_.size(); }

  // A Read Request or Atomic Request of the requester (`requester` names its direction in
  // messages). An Atomic Request's operation is judged whenever it is read, once per direction.
  void on_request(const FpduEvent& fpdu, const DdpHeader& ddp, Direction requester,
                  std::vector<Finding>& out);
  // The outstanding Request a segment of the peer starts to answer, while the pairing is
  // judged: the Read Request whose Data Sink STag and TO a Read Response's first segment
  // carries, the Atomic Request an Atomic Response names; none for a later segment of a
  // Response, or one that answers no Request.
  struct Answered {
    const char* what = "";  // "RDMA Read Request", "Atomic Request"
    std::uint32_t msn = 0;
    std::uint64_t frame = 0;
    TcpSeq seq;
  };
  std::optional<Answered> answered_by(const FpduEvent& fpdu, const DdpHeader& ddp) const;
  // A tagged Read Response segment of the peer, or an untagged Atomic Response segment.
  void on_response(const FpduEvent& fpdu, const DdpHeader& ddp, Direction responder,
                   std::vector<Finding>& out);

 private:
  // The Response being received: the Request it answers and where its next segment goes.
  struct Answer {
    ReadRequest request;
    std::uint64_t next_to = 0;
    std::uint64_t received = 0;  // payload octets so far
  };
  void start_answer(const FpduEvent& fpdu, const DdpHeader& ddp, Direction responder,
                    std::vector<Finding>& out);
  void finish_answer(const FpduEvent& fpdu, Direction responder, std::vector<Finding>& out);
  bool room_for(const FpduEvent& fpdu, const DdpHeader& ddp, Direction requester,
                std::vector<Finding>& out);
  void on_atomic_request(const FpduEvent& fpdu, const DdpHeader& ddp, Direction requester,
                         std::vector<Finding>& out);
  void on_atomic_response(const FpduEvent& fpdu, const DdpHeader& ddp, Direction responder,
                          std::vector<Finding>& out);
  void name(DiagId id, const FpduEvent& fpdu, std::string message, std::vector<Finding>& out);

  std::deque<ReadRequest> outstanding_;
  std::optional<Answer> answer_;
  std::deque<AtomicRequest> atomics_;  // unanswered; with outstanding_, at most kMaxOutstanding
  bool complete_ = false;
  bool lost_ = false;
  bool said_operation_ = false;  // rdmap.atomic-opcode-invalid, once per direction
};

}  // namespace mpa
