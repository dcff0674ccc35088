// The receiver's reaction to a CRC or marker error (see receiver_reactions.h).
#include "connection/receiver_reactions.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "decode/byte_order.h"

namespace mpa {
namespace {

// RDMA Read Request body after the untagged DDP header (RFC 5040 4.4): Data Sink STag, Data
// Sink Tagged Offset, RDMA Read Message Size, Data Source STag, Data Source Tagged Offset.
constexpr std::size_t kSinkStag = kDdpUntaggedHeaderSize;
constexpr std::size_t kSinkTo = kSinkStag + 4;
constexpr std::size_t kReadSize = kSinkTo + 8;
constexpr std::uint32_t kReadRequestQueue = 1;  // RFC 5040 5.2

bool is_read_request(const std::optional<DdpHeader>& ddp) {
  return ddp && !ddp->tagged &&
         ddp->opcode == static_cast<std::uint8_t>(RdmapOpcode::ReadRequest) &&
         ddp->queue == kReadRequestQueue;
}
bool is_read_response(const std::optional<DdpHeader>& ddp) {
  return ddp && ddp->tagged && ddp->opcode == static_cast<std::uint8_t>(RdmapOpcode::ReadResponse);
}

}  // namespace

std::optional<ReceiverReactions::ReadRequest> ReceiverReactions::read_request_of(
    const FpduEvent& fpdu) {
  if (fpdu.ulpdu_head.size() < kReadSize + 4) return std::nullopt;
  ReadRequest r;
  r.sink_stag = load_be32(&fpdu.ulpdu_head[kSinkStag]);
  r.sink_to = std::uint64_t{load_be32(&fpdu.ulpdu_head[kSinkTo])} << 32 |
              load_be32(&fpdu.ulpdu_head[kSinkTo + 4]);
  r.size = load_be32(&fpdu.ulpdu_head[kReadSize]);
  r.header_seq = fpdu.header_seq;
  return r;
}

std::string ReceiverReactions::sender_name() const { return std::string(to_string(sender_)); }
std::string ReceiverReactions::receiver_name() const {
  return std::string(to_string(other(sender_)));
}
std::string ReceiverReactions::error_words() const {
  return error_ && error_->id == DiagId::MarkerFpduptrMismatch
             ? "a marker that disagrees with its ULPDU_Length (MPA error 3)"
             : "a CRC error (MPA error 2)";
}

void ReceiverReactions::on_error(DiagId id, std::uint64_t offset) {
  if (info(id).severity == Severity::Error) legal_oddity_settled();  // the close may be for it
  if (error_) return;
  if (id != DiagId::FpduCrcMismatch && id != DiagId::FpduCrcMiscomputed &&
      id != DiagId::MarkerFpduptrMismatch) {
    return;
  }
  error_ = Error{};
  error_->id = id;
  error_->offset = offset;
  pending_ = true;
}

void ReceiverReactions::on_ulp_error(DiagId id, const FpduEvent& fpdu) {
  if (ulp_error_ || error_) return;
  if (id == DiagId::DdpQueueInvalid) {
    // RFC 5041 7.1 validates non-zero-length untagged segments only.
    if (fpdu.ulpdu_length <= kDdpUntaggedHeaderSize) return;
  } else if (id != DiagId::RdmapOpcodeInvalid) {
    return;
  }
  ulp_error_ = UlpError{};
  ulp_error_->id = id;
  ulp_error_->header_seq = fpdu.header_seq;
  ulp_error_->end_seq = fpdu.start_seq + fpdu.wire_length;
  ulp_error_->fpdu_frame = fpdu.last_frame;
}

void ReceiverReactions::on_unknowable() {
  if (error_) error_->unknowable = true;
  if (ulp_error_) ulp_error_->unknowable = true;
  legal_oddity_settled();
  odd_read_.reset();
  // Read Request and Response counts may be off from here on: no Read is matched again.
  reads_.clear();
  read_requests_ = read_responses_ = 0;
  response_.in_progress = false;
  counts_lost_ = true;
}

void ReceiverReactions::on_sender_close(std::uint64_t frame) {
  if (sender_closed_ == 0) sender_closed_ = frame;
}

namespace {

// The legal oddities of an FPDU (RFC 5044 says how a receiver takes each), as bits of
// kOddityWords: worked out for every FPDU until the first odd one, so no words until then.
constexpr std::array<std::string_view, 6> kOddityWords = {
    "non-zero pad octets (RFC 5044 4.1: ignored by the receiver)",
    "a marker with a non-zero reserved field (RFC 5044 4.2: ignored on receipt)",
    "a marker whose FPDUPTR has its two low bits set (RFC 5044 4.2, 4.3: taken as zero by the "
    "receiver)",
    "a marker whose FPDUPTR reaches back across the wrap of TCP sequence numbers (RFC 5044 4.3: "
    "the receiver allows for it)",
    "it spans TCP segments (RFC 5044 5.1: receivers operate correctly when alignment is lost)",
    "a CRC field that does not hold its CRC32c, CRCs being off (RFC 5044 4.1, 4.4: any value is "
    "valid and MUST NOT be checked)",
};

unsigned legal_oddities_of(const FpduEvent& fpdu) {
  unsigned odd = 0;
  for (std::size_t i = 0; i < fpdu.pad_length && i < fpdu.pad.size(); ++i) {
    if (fpdu.pad[i] != 0) odd |= 1u << 0;
  }
  for (const MarkerFact& m : fpdu.markers) {
    if ((m.fpdu_ptr & ~std::uint16_t{3}) != m.expected_fpdu_ptr) return 0;  // an error
    if (m.reserved != 0) odd |= 1u << 1;
    if ((m.fpdu_ptr & 3) != 0) odd |= 1u << 2;
    // A marker after the header whose sequence number is below the header's: its FPDUPTR
    // reaches back across the wrap of sequence numbers.
    if (m.expected_fpdu_ptr != 0 && m.seq.value() < fpdu.header_seq.value()) odd |= 1u << 3;
  }
  if (!fpdu.within_one_segment) odd |= 1u << 4;
  // CRCs off: any CRC field is valid and MUST NOT be checked (RFC 5044 4.1, 4.4); a receiver
  // that checks it anyway fails on the first FPDU whose field is not its CRC32c (crc_unchecked
  // is known up to that one).
  if (fpdu.crc_status == CrcStatus::NotChecked && fpdu.crc_field && fpdu.crc_unchecked &&
      *fpdu.crc_unchecked != fpdu.crc_received) {
    odd |= 1u << 5;
  }
  return odd;
}

std::string oddity_words(unsigned odd) {
  std::string what;
  for (std::size_t bit = 0; bit < kOddityWords.size(); ++bit) {
    if (!(odd & (1u << bit))) continue;
    if (!what.empty()) what += "; ";
    what += kOddityWords[bit];
  }
  return what;
}

}  // namespace

void ReceiverReactions::on_sender_fpdu_oddity(const FpduEvent& fpdu,
                                              const std::optional<DdpHeader>& ddp) {
  const TcpSeq end = fpdu.start_seq + fpdu.wire_length;
  if (!sender_sent_ || end.is_after(sender_end_)) sender_end_ = end;
  sender_sent_ = true;
  // The Read Request sent next after one in an odd FPDU: the one a Read Response may answer
  // instead.
  if (odd_read_ && !odd_read_->next && is_read_request(ddp)) {
    if (const auto r = read_request_of(fpdu)) odd_read_->next = r;
  }
  if (odd_settled_) return;
  if (!fpdu.judged || fpdu.crc_status == CrcStatus::Bad || error_) {
    legal_oddity_settled();
    return;
  }
  if (odd_) return;
  const unsigned oddities = legal_oddities_of(fpdu);
  if (oddities == 0) return;
  std::string what = oddity_words(oddities);
  odd_ = LegalOddity{};
  odd_->what = what;
  odd_->header_seq = fpdu.header_seq;
  odd_->end_seq = end;
  odd_->fpdu_frame = fpdu.last_frame;
  // An RDMA Read Request in it: the receiver's Read Response in its turn shows whether it took
  // the FPDU (Read Responses come in Request order, RFC 5040 5.2).
  if (is_read_request(ddp) && !counts_lost_) {
    if (const auto r = read_request_of(fpdu)) {
      odd_read_ = OddRead{};
      odd_read_->request = *r;
      odd_read_->request.index = read_requests_ + 1;
      odd_read_->what = std::move(what);
      odd_read_->fpdu_frame = fpdu.last_frame;
    }
  }
}

void ReceiverReactions::on_sender_fpdu(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp) {
  on_sender_fpdu_oddity(fpdu, ddp);
  bool bad = false;
  if (pending_) {
    if (error_->offset >= fpdu.start_offset && error_->offset < end_offset(fpdu)) {
      bad = true;
      pending_ = false;
      error_->fpdu_known = true;
      error_->header_seq = fpdu.header_seq;
      error_->end_seq = fpdu.start_seq + fpdu.wire_length;
      error_->fpdu_frame = fpdu.last_frame;
    } else if (fpdu.start_offset > error_->offset) {
      pending_ = false;  // the FPDU with the error never completed: nothing to judge
      error_->unknowable = true;
    }
  }
  if (!is_read_request(ddp)) return;
  ++read_requests_;
  if (counts_lost_ || !error_ || !error_->fpdu_known || error_->unknowable) return;
  std::optional<ReadRequest> r = read_request_of(fpdu);
  if (!r) return;
  r->index = read_requests_;
  r->in_bad_fpdu = bad;
  if (reads_.size() == kReadsKept) reads_.erase(reads_.begin());
  reads_.push_back(*r);
}

void ReceiverReactions::on_receiver_ack(TcpSeq ack, std::uint64_t frame,
                                        std::uint64_t receiver_offset, bool closes) {
  if (odd_) {
    if (!odd_->acked) {
      if (!ack.is_before(odd_->end_seq)) {
        odd_->acked = true;
        odd_->first_ack = ack;
        odd_->receiver_offset = receiver_offset;
      }
    } else if (ack.is_after(odd_->first_ack) && !closes) {
      legal_oddity_settled();  // it took octets after the odd FPDU
    }
  }
  if (ulp_error_ && ulp_error_->acked_frame == 0 && !ack.is_before(ulp_error_->end_seq)) {
    ulp_error_->acked_frame = frame;
    ulp_error_->receiver_offset = receiver_offset;
  }
  if (!error_ || !error_->fpdu_known || error_->acked_frame != 0) return;
  if (ack.is_before(error_->end_seq)) return;
  error_->acked_frame = frame;
  error_->receiver_offset = receiver_offset;
}

void ReceiverReactions::on_receiver_fpdu(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp,
                                         bool terminate, std::vector<Finding>& out) {
  if (terminate) terminated_ = true;
  // An FPDU of its own after it had the odd one: it went on (a Terminate is judged by what it
  // claims, rdmap.terminate-disagrees).
  if (odd_ && odd_->acked && fpdu.start_offset >= odd_->receiver_offset) legal_oddity_settled();
  if (ulp_error_ && ulp_error_->acked_frame != 0 && !ulp_error_->went_on && !terminate &&
      fpdu.first_frame >= ulp_error_->acked_frame &&
      fpdu.start_offset >= ulp_error_->receiver_offset) {
    ulp_error_->went_on = true;
    ulp_error_->went_on_seq = fpdu.header_seq;
  }
  if (is_read_response(ddp)) {
    if (!response_.in_progress) {
      response_.in_progress = true;
      response_.stag = ddp->stag;
      response_.to = ddp->to;
      response_.seq = fpdu.header_seq;
      response_.offset = header_offset(fpdu);
      response_.frame = fpdu.first_frame;
    }
    if (ddp->last) {
      response_.in_progress = false;
      ++read_responses_;
      const std::uint64_t k = read_responses_;
      judge_odd_read(k, fpdu, out);
      for (const ReadRequest& r : reads_) {
        if (r.index != k) continue;
        if (error_ && !error_->unknowable && !error_->judged && r.sink_stag == response_.stag &&
            r.sink_to == response_.to) {
          error_->judged = true;
          Finding f = make_finding(
              DiagId::ReceiverInvalidFpduAnswered, response_.frame, response_.seq, response_.offset,
              fmt::format("the {} sent an RDMA Read Response (STag 0x{:08x}, TO 0x{:x}) at seq {} "
                          "answering the {}'s RDMA Read Request at seq {} ({} octets), {} "
                          "the FPDU at seq {} with {}: it passed on an FPDU it must reject "
                          "(RFC 5044 6, 8)",
                          receiver_name(), response_.stag, response_.to, response_.seq.value(),
                          sender_name(), r.header_seq.value(), r.size,
                          r.in_bad_fpdu ? "carried in" : "carried after",
                          error_->header_seq.value(), error_words()));
          f.certain_at = fpdu.last_frame;
          out.push_back(std::move(f));
        }
        break;
      }
      reads_.erase(reads_.begin(), std::find_if(reads_.begin(), reads_.end(),
                                                [k](const ReadRequest& r) { return r.index > k; }));
    }
  }
  if (!error_ || error_->unknowable || error_->acked_frame == 0 || terminate || went_on_) return;
  if (fpdu.first_frame < error_->acked_frame || fpdu.start_offset < error_->receiver_offset) return;
  went_on_ = make_finding(
      DiagId::ReceiverErrorIgnored, fpdu.first_frame, fpdu.header_seq, header_offset(fpdu),
      fmt::format("the {} acknowledged the {}'s FPDU at seq {} with {} (frame {}), then sent FPDUs "
                  "from seq {} on, and its stream ended without a Terminate: the error "
                  "went unreported or ignored (RFC 5044 8: no FPDU is passed on after it, and "
                  "DDP's ULP tears the connection down)",
                  receiver_name(), sender_name(), error_->header_seq.value(), error_words(),
                  error_->acked_frame, fpdu.header_seq.value()));
}

void ReceiverReactions::judge_odd_read(std::uint64_t k, const FpduEvent& fpdu,
                                       std::vector<Finding>& out) {
  if (!odd_read_ || odd_read_->request.index != k) return;
  const OddRead odd = std::move(*odd_read_);
  odd_read_.reset();
  const auto answers = [&](const ReadRequest& r) {
    return r.sink_stag == response_.stag && r.sink_to == response_.to;
  };
  if (answers(odd.request) || !odd.next || !answers(*odd.next)) return;
  Finding f = make_finding(
      DiagId::ReceiverLegalFpduRefused, response_.frame, response_.seq, response_.offset,
      fmt::format("the {} answered the {}'s RDMA Read Request at seq {} (STag 0x{:08x}, TO 0x{:x}) "
                  "with its Read Response at seq {}, but never the one before it, at seq {} "
                  "(frame {}), carried in an FPDU whose only oddity is {}: it dropped an FPDU "
                  "it must take as valid (Read Responses come in Request order, RFC 5040 5.2)",
                  receiver_name(), sender_name(), odd.next->header_seq.value(), odd.next->sink_stag,
                  odd.next->sink_to, response_.seq.value(), odd.request.header_seq.value(),
                  odd.fpdu_frame, odd.what));
  f.certain_at = fpdu.last_frame;
  out.push_back(std::move(f));
}

void ReceiverReactions::on_receiver_close(bool rst, std::uint64_t frame, TcpSeq seq,
                                          std::uint64_t offset, std::vector<Finding>& out) {
  if (odd_) {
    const LegalOddity odd = *odd_;
    legal_oddity_settled();
    // Acknowledged and closed at once, sending nothing, while the sender had sent more: it
    // stopped taking the stream at the odd FPDU. (The sender's own close first answers nothing.)
    if (odd.acked && sender_closed_ == 0 && offset == odd.receiver_offset && !error_ &&
        sender_end_.is_after(odd.first_ack)) {
      Finding f = make_finding(
          DiagId::ReceiverLegalFpduRefused, frame, seq, offset,
          fmt::format("the {} {} the connection at seq {} right after acknowledging the {}'s "
                      "FPDU at seq {} (frame {}), whose only oddity is {}: it sent nothing "
                      "since and acknowledged nothing the {} sent after it, though more had "
                      "been sent; a receiver must take such an FPDU as valid",
                      receiver_name(), rst ? "reset (RST)" : "closed (FIN)", seq.value(),
                      sender_name(), odd.header_seq.value(), odd.fpdu_frame, odd.what,
                      sender_name()));
      f.certain_at = frame;
      out.push_back(std::move(f));
    }
  }
  judge_ulp_error(rst, frame, seq, offset, out);
  if (!error_ || error_->unknowable || error_->judged || error_->acked_frame == 0) return;
  // The sender closed first (the receiver's close answers it), the receiver said why in a
  // Terminate, or it sent octets after the bad FPDU reached it (receiver.error-ignored
  // judges those): not MPA closing on the error.
  if ((sender_closed_ != 0 && sender_closed_ <= frame) || terminated_) return;
  if (offset != error_->receiver_offset) return;
  error_->judged = true;
  Finding f = make_finding(
      DiagId::ReceiverClosedAfterError, frame, seq, offset,
      fmt::format(
          "the {} {} the connection at seq {}, having sent nothing since it acknowledged "
          "(frame {}) the {}'s FPDU at seq {} with {}: no Terminate first; MPA must not close for "
          "errors 2 and 3 (RFC 5044 8), and a ULP closing would say why in a Terminate "
          "first (RFC 5040 6.2.1)",
          receiver_name(), rst ? "reset (RST)" : "closed (FIN)", seq.value(), error_->acked_frame,
          sender_name(), error_->header_seq.value(), error_words()));
  f.certain_at = frame;
  out.push_back(std::move(f));
}

void ReceiverReactions::on_receiver_end(std::uint64_t frame, std::vector<Finding>& out) {
  if (!error_ || error_->unknowable || error_->judged || !went_on_ || terminated_) return;
  error_->judged = true;
  Finding f = std::move(*went_on_);
  went_on_.reset();
  f.certain_at = std::max(frame, f.frame);
  out.push_back(std::move(f));
}

// RFC 5040 7.1: an error detected on an incoming RDMA Message is answered with a Terminate, at
// the earliest opportunity. A receiver that went on sending other FPDUs and then closed never
// sent it; one that closed at once sending nothing while its peer was still open closed
// instead of sending it. (One that closes after its peer closed, sending nothing, may have
// been unable to: not judged.)
void ReceiverReactions::judge_ulp_error(bool rst, std::uint64_t frame, TcpSeq seq,
                                        std::uint64_t offset, std::vector<Finding>& out) {
  if (!ulp_error_ || ulp_error_->unknowable || ulp_error_->judged || ulp_error_->acked_frame == 0 ||
      terminated_) {
    return;
  }
  UlpError& e = *ulp_error_;
  if (!e.went_on && sender_closed_ != 0 && sender_closed_ <= frame) return;
  e.judged = true;
  const std::string what =
      e.id == DiagId::DdpQueueInvalid
          ? "a non-zero-length untagged DDP Segment on a queue RDMAP does not have (RFC 5041 7.1; "
            "Terminate: DDP, error type 2, code 0x01, invalid QN)"
          : "an RDMAP opcode no RFC defines (RFC 5040 7.2; Terminate: RDMAP, error type 2, code "
            "0x06, unexpected opcode)";
  const std::string since = e.went_on
                                ? fmt::format("sent FPDUs from seq {} on", e.went_on_seq.value())
                                : std::string("sent nothing");
  Finding f = make_finding(
      DiagId::ReceiverTerminateMissing, frame, seq, offset,
      fmt::format("the {} acknowledged (frame {}) the {}'s FPDU at seq {} (frame {}) carrying {}, "
                  "then {} and {} the connection at seq {} without a Terminate: an error on an "
                  "incoming RDMA Message MUST be answered with one (RFC 5040 7.1)",
                  receiver_name(), e.acked_frame, sender_name(), e.header_seq.value(), e.fpdu_frame,
                  what, since, rst ? "reset (RST)" : "closed (FIN)", seq.value()));
  f.certain_at = frame;
  out.push_back(std::move(f));
}

}  // namespace mpa
