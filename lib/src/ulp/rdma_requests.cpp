// RDMA Read Requests and the Read Responses that answer them, RFC 7306 Atomic Requests and
// their Atomic Responses (see rdma_requests.h).
#include "ulp/rdma_requests.h"

#include <fmt/format.h>

#include <algorithm>

#include "decode/byte_order.h"

namespace mpa {

namespace {
// RFC 5040 4.4 (Figure 6): the RDMA Read Request Header after the untagged DDP header.
constexpr std::size_t kSinkStag = kDdpUntaggedHeaderSize;
constexpr std::size_t kSinkTo = kSinkStag + 4;
constexpr std::size_t kReadSize = kSinkTo + 8;
constexpr std::size_t kSourceStag = kReadSize + 4;
constexpr std::size_t kSourceTo = kSourceStag + 4;
// RFC 7306 Atomic Request and Response headers after the untagged DDP header, at the offsets
// Wireshark's packet-iwarp-ddp-rdmap.c (dissect_iwarp_atomic) reads them from.
constexpr std::size_t kAtomicOperation = kDdpUntaggedHeaderSize;  // low 4 bits of this word
constexpr std::size_t kRequestId = kAtomicOperation + 4;
constexpr std::size_t kRemoteStag = kRequestId + 4;
constexpr std::size_t kRemoteTo = kRemoteStag + 4;
constexpr std::size_t kOriginalRequestId = kDdpUntaggedHeaderSize;

std::uint64_t load_be64(const std::uint8_t* p) {
  return std::uint64_t{load_be32(p)} << 32 | load_be32(p + 4);
}

// Payload octets of a tagged segment (its ULPDU less the DDP/RDMAP header).
std::uint64_t payload_of(const FpduEvent& fpdu, const DdpHeader& ddp) {
  const std::uint32_t size = fpdu.ulpdu_size != 0 ? fpdu.ulpdu_size : fpdu.ulpdu_length;
  return size > ddp.header_size ? size - ddp.header_size : 0;
}

const char* role(Direction direction) {
  return direction == Direction::Initiator ? "Initiator" : "Responder";
}

std::string sink_words(std::uint32_t stag, std::uint64_t to) {
  return fmt::format("STag 0x{:08x}, TO 0x{:x}", stag, to);
}
}  // namespace

std::optional<RdmaRequests::ReadRequest> RdmaRequests::decode(const FpduEvent& fpdu,
                                                              const DdpHeader& ddp) {
  const std::uint32_t size = fpdu.ulpdu_size != 0 ? fpdu.ulpdu_size : fpdu.ulpdu_length;
  if (fpdu.ulpdu_head.size() < kSourceTo + 8 || size < kSourceTo + 8) return std::nullopt;
  const std::uint8_t* h = fpdu.ulpdu_head.data();
  ReadRequest r;
  r.msn = ddp.msn;
  r.sink_stag = load_be32(h + kSinkStag);
  r.sink_to = load_be64(h + kSinkTo);
  r.size = load_be32(h + kReadSize);
  r.source_stag = load_be32(h + kSourceStag);
  r.source_to = load_be64(h + kSourceTo);
  r.frame = fpdu.last_frame;
  r.seq = fpdu.header_seq;
  return r;
}

std::optional<RdmaRequests::AtomicRequest> RdmaRequests::decode_atomic(const FpduEvent& fpdu,
                                                                       const DdpHeader& ddp) {
  const std::uint32_t size = fpdu.ulpdu_size != 0 ? fpdu.ulpdu_size : fpdu.ulpdu_length;
  if (fpdu.ulpdu_head.size() < kRemoteTo + 8 ||
      size < kDdpUntaggedHeaderSize + kAtomicRequestMinSize) {
    return std::nullopt;
  }
  const std::uint8_t* h = fpdu.ulpdu_head.data();
  AtomicRequest r;
  r.msn = ddp.msn;
  r.operation = static_cast<std::uint8_t>(load_be32(h + kAtomicOperation) & 0x0fu);
  r.request_id = load_be32(h + kRequestId);
  r.remote_stag = load_be32(h + kRemoteStag);
  r.remote_to = load_be64(h + kRemoteTo);
  r.frame = fpdu.last_frame;
  r.seq = fpdu.header_seq;
  return r;
}

void RdmaRequests::lose() {
  lost_ = true;
  outstanding_.clear();
  outstanding_.shrink_to_fit();
  answer_.reset();
  atomics_.clear();
  atomics_.shrink_to_fit();
}

void RdmaRequests::name(DiagId id, const FpduEvent& fpdu, std::string message,
                        std::vector<Finding>& out) {
  out.push_back(
      make_finding(id, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu), std::move(message)));
}

// Whether one more Request may be kept (Read and Atomic Requests together): beyond the
// ceiling, the note and no more judging.
bool RdmaRequests::room_for(const FpduEvent& fpdu, const DdpHeader& ddp, Direction requester,
                            std::vector<Finding>& out) {
  const std::size_t kept = outstanding_.size() + atomics_.size();
  if (kept < kMaxOutstanding) return true;
  const bool reads_only = atomics_.empty() && ddp.opcode != to_wire(RdmapOpcode::AtomicRequest);
  name(
      DiagId::RdmapReadTrackingStopped, fpdu,
      fmt::format("{}'s {} (MSN {}) at seq {} is its {}th outstanding: its peer's {} are no "
                  "longer held to their Requests on this connection",
                  role(requester), rdmap_opcode_words(ddp.opcode), ddp.msn, fpdu.header_seq.value(),
                  kept + 1, reads_only ? "Read Responses" : "Read and Atomic Responses"),
      out);
  lose();
  return false;
}

void RdmaRequests::on_request(const FpduEvent& fpdu, const DdpHeader& ddp, Direction requester,
                              std::vector<Finding>& out) {
  if (ddp.opcode == to_wire(RdmapOpcode::AtomicRequest)) {
    on_atomic_request(fpdu, ddp, requester, out);
    return;
  }
  if (!judging()) return;
  const auto request = decode(fpdu, ddp);
  if (!request) {
    // Cut short (ddp.ulpdu-too-short): its receiver may answer it with a Terminate or not.
    lose();
    return;
  }
  if (room_for(fpdu, ddp, requester, out)) outstanding_.push_back(*request);
}

// An Atomic Request: its Atomic Operation Code is one Wireshark's RFC 7306 decoder names
// (judged on every Request read, paired or not), and it waits for its Atomic Response.
void RdmaRequests::on_atomic_request(const FpduEvent& fpdu, const DdpHeader& ddp,
                                     Direction requester, std::vector<Finding>& out) {
  const auto request = decode_atomic(fpdu, ddp);
  if (request && request->operation != kFetchAdd && request->operation != kCmpSwap &&
      !said_operation_) {
    said_operation_ = true;
    name(DiagId::RdmapAtomicOpcodeInvalid, fpdu,
         fmt::format("{}'s Atomic Request (MSN {}, Request Identifier {}) at seq {} carries "
                     "Atomic Operation Code {}: only 0 (FetchAdd) and 2 (CmpSwap) are defined "
                     "(first of this direction)",
                     role(requester), ddp.msn, request->request_id, fpdu.header_seq.value(),
                     request->operation),
         out);
  }
  if (!judging()) return;
  if (!request) {
    lose();  // cut short (ddp.ulpdu-too-short)
    return;
  }
  if (room_for(fpdu, ddp, requester, out)) atomics_.push_back(*request);
}

// An Atomic Response answers an Atomic Request of its receiver still unanswered: the one whose
// Request Identifier its Original Request Identifier copies (the field names of Wireshark's
// decoder). Judged on the segment at MO 0, which holds the header.
void RdmaRequests::on_atomic_response(const FpduEvent& fpdu, const DdpHeader& ddp,
                                      Direction responder, std::vector<Finding>& out) {
  if (ddp.mo != 0) return;
  const std::uint32_t size = fpdu.ulpdu_size != 0 ? fpdu.ulpdu_size : fpdu.ulpdu_length;
  if (fpdu.ulpdu_head.size() < kOriginalRequestId + 4 ||
      size < kDdpUntaggedHeaderSize + kAtomicResponseSize) {
    lose();  // cut short (ddp.ulpdu-too-short)
    return;
  }
  const std::uint32_t id = load_be32(fpdu.ulpdu_head.data() + kOriginalRequestId);
  const auto answered = std::find_if(atomics_.begin(), atomics_.end(),
                                     [&](const AtomicRequest& r) { return r.request_id == id; });
  if (answered != atomics_.end()) {
    atomics_.erase(answered);
    return;
  }
  name(DiagId::RdmapAtomicResponseUnrequested, fpdu,
       fmt::format("{}'s Atomic Response (MSN {}) at seq {} names Original Request Identifier {}, "
                   "which no unanswered Atomic Request of the {} carries ({} outstanding)",
                   role(responder), ddp.msn, fpdu.header_seq.value(), id, role(other(responder)),
                   atomics_.size()),
       out);
  lose();  // which Request each later Response answers is not known any more
}

std::optional<RdmaRequests::Answered> RdmaRequests::answered_by(const FpduEvent& fpdu,
                                                                const DdpHeader& ddp) const {
  if (!judging() || answer_) return std::nullopt;
  if (ddp.tagged && ddp.opcode == to_wire(RdmapOpcode::ReadResponse)) {
    const auto it = std::find_if(outstanding_.begin(), outstanding_.end(), [&](const auto& r) {
      return r.sink_stag == ddp.stag && r.sink_to == ddp.to;
    });
    if (it != outstanding_.end()) return Answered{"RDMA Read Request", it->msn, it->frame, it->seq};
  } else if (!ddp.tagged && ddp.opcode == to_wire(RdmapOpcode::AtomicResponse) && ddp.mo == 0 &&
             fpdu.ulpdu_head.size() >= kOriginalRequestId + 4) {
    const std::uint32_t id = load_be32(fpdu.ulpdu_head.data() + kOriginalRequestId);
    const auto it = std::find_if(atomics_.begin(), atomics_.end(),
                                 [&](const AtomicRequest& r) { return r.request_id == id; });
    if (it != atomics_.end()) return Answered{"Atomic Request", it->msn, it->frame, it->seq};
  }
  return std::nullopt;
}

void RdmaRequests::on_response(const FpduEvent& fpdu, const DdpHeader& ddp, Direction responder,
                               std::vector<Finding>& out) {
  if (!judging()) return;
  if (!ddp.tagged) {
    if (ddp.opcode == to_wire(RdmapOpcode::AtomicResponse)) {
      on_atomic_response(fpdu, ddp, responder, out);
    }
    return;
  }
  if (answer_) {
    // A later segment of the same Response goes on where the last ended; any other segment
    // (another message's, or a misplaced one: DDP's to name) leaves the pairing unknown.
    if (ddp.stag != answer_->request.sink_stag || ddp.to != answer_->next_to) {
      lose();
      return;
    }
  } else {
    start_answer(fpdu, ddp, responder, out);
    if (!answer_) return;
  }
  const std::uint64_t payload = payload_of(fpdu, ddp);
  answer_->received += payload;
  answer_->next_to += payload;
  if (ddp.last) finish_answer(fpdu, responder, out);
}

// The first segment of a Response: RFC 5040 5.2.1, the Remote Peer processes Read Requests in
// the order they were sent (5.2.2: it sends their Responses in that order), so it answers the
// oldest outstanding one, whose Data Sink STag and TO it copies (4.4).
void RdmaRequests::start_answer(const FpduEvent& fpdu, const DdpHeader& ddp, Direction responder,
                                std::vector<Finding>& out) {
  const Direction requester = other(responder);
  const std::string at = fmt::format("{}'s RDMA Read Response at seq {} ({})", role(responder),
                                     fpdu.header_seq.value(), sink_words(ddp.stag, ddp.to));
  if (outstanding_.empty()) {
    name(DiagId::RdmapReadResponseUnrequested, fpdu,
         fmt::format("{} answers no RDMA Read Request: every Read Request the {} sent had its "
                     "Response already",
                     at, role(requester)),
         out);
    lose();
    return;
  }
  const ReadRequest& oldest = outstanding_.front();
  if (ddp.stag == oldest.sink_stag && ddp.to == oldest.sink_to) {
    answer_ = Answer{oldest, ddp.to, 0};
    outstanding_.pop_front();
    return;
  }
  const auto later = std::find_if(outstanding_.begin() + 1, outstanding_.end(), [&](const auto& r) {
    return r.sink_stag == ddp.stag && r.sink_to == ddp.to;
  });
  if (later != outstanding_.end()) {
    name(DiagId::RdmapReadResponseOutOfOrder, fpdu,
         fmt::format("{} answers the Read Request of MSN {} (frame {}) while the earlier one of "
                     "MSN {} (frame {}, {}) is unanswered",
                     at, later->msn, later->frame, oldest.msn, oldest.frame,
                     sink_words(oldest.sink_stag, oldest.sink_to)),
         out);
  } else {
    name(
        DiagId::RdmapReadResponseMismatch, fpdu,
        fmt::format("{} answers the oldest outstanding Read Request (MSN {}, frame {}), whose Data "
                    "Sink is {}",
                    at, oldest.msn, oldest.frame, sink_words(oldest.sink_stag, oldest.sink_to)),
        out);
  }
  lose();  // which Request each later Response answers is not known any more
}

// The last segment: RFC 5040 5.2, one Response of exactly the size read (5.2.1: zero for a
// zero-length Request).
void RdmaRequests::finish_answer(const FpduEvent& fpdu, Direction responder,
                                 std::vector<Finding>& out) {
  const Answer answer = *answer_;
  answer_.reset();
  if (answer.received == answer.request.size) return;
  name(DiagId::RdmapReadResponseLength, fpdu,
       fmt::format("{}'s RDMA Read Response ending at seq {} carried {} octets, but the Read "
                   "Request it answers (MSN {}, frame {}) read {}{}",
                   role(responder), fpdu.header_seq.value(), answer.received, answer.request.msn,
                   answer.request.frame, answer.request.size,
                   answer.request.size == 0 ? " (a zero-length Read is answered with a "
                                              "zero-length Read Response)"
                                            : ""),
       out);
}

}  // namespace mpa
