// RDMA Read Requests and the Read Responses that answer them (see rdma_requests.h).
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
  return r;
}

void RdmaRequests::lose() {
  lost_ = true;
  outstanding_.clear();
  outstanding_.shrink_to_fit();
  answer_.reset();
}

void RdmaRequests::name(DiagId id, const FpduEvent& fpdu, std::string message,
                        std::vector<Finding>& out) {
  out.push_back(
      make_finding(id, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu), std::move(message)));
}

void RdmaRequests::on_request(const FpduEvent& fpdu, const DdpHeader& ddp, Direction requester,
                              std::vector<Finding>& out) {
  if (!judging()) return;
  const auto request = decode(fpdu, ddp);
  if (!request) {
    // Cut short (ddp.ulpdu-too-short): its receiver may answer it with a Terminate or not.
    lose();
    return;
  }
  if (outstanding_.size() >= kMaxOutstanding) {
    name(DiagId::RdmapReadTrackingStopped, fpdu,
         fmt::format("{}'s RDMA Read Request (MSN {}) at seq {} is its {}th outstanding: its "
                     "peer's Read Responses are no longer held to their Requests on this "
                     "connection",
                     role(requester), ddp.msn, fpdu.header_seq.value(), outstanding_.size() + 1),
         out);
    lose();
    return;
  }
  outstanding_.push_back(*request);
}

void RdmaRequests::on_response(const FpduEvent& fpdu, const DdpHeader& ddp, Direction responder,
                               std::vector<Finding>& out) {
  if (!judging()) return;
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
