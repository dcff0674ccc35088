// The receiver's reaction to a CRC or marker error (see receiver_reactions.h).
#include "mpa/receiver_reactions.h"

#include <fmt/format.h>

#include <algorithm>

#include "byte_order.h"

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

void ReceiverReactions::on_unknowable() {
  if (error_) error_->unknowable = true;
  // Read Request and Response counts may be off from here on: no Read is matched again.
  reads_.clear();
  read_requests_ = read_responses_ = 0;
  in_response_ = false;
  counts_lost_ = true;
}

void ReceiverReactions::on_sender_close(std::uint64_t frame) {
  if (sender_closed_ == 0) sender_closed_ = frame;
}

void ReceiverReactions::on_sender_fpdu(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp) {
  bool bad = false;
  if (pending_) {
    if (error_->offset >= fpdu.start_offset && error_->offset < fpdu.end_offset()) {
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
  if (fpdu.ulpdu_head.size() < kReadSize + 4) return;
  ReadRequest r;
  r.index = read_requests_;
  r.sink_stag = load_be32(&fpdu.ulpdu_head[kSinkStag]);
  r.sink_to = std::uint64_t{load_be32(&fpdu.ulpdu_head[kSinkTo])} << 32 |
              load_be32(&fpdu.ulpdu_head[kSinkTo + 4]);
  r.size = load_be32(&fpdu.ulpdu_head[kReadSize]);
  r.in_bad_fpdu = bad;
  r.header_seq = fpdu.header_seq;
  if (reads_.size() == kReadsKept) reads_.pop_front();
  reads_.push_back(r);
}

void ReceiverReactions::on_receiver_ack(TcpSeq ack, std::uint64_t frame,
                                        std::uint64_t receiver_offset) {
  if (!error_ || !error_->fpdu_known || error_->acked_frame != 0) return;
  if (ack.is_before(error_->end_seq)) return;
  error_->acked_frame = frame;
  error_->receiver_offset = receiver_offset;
}

void ReceiverReactions::on_receiver_fpdu(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp,
                                         bool terminate, std::vector<Finding>& out) {
  if (terminate) terminated_ = true;
  if (is_read_response(ddp)) {
    if (!in_response_) {
      in_response_ = true;
      response_stag_ = ddp->stag;
      response_to_ = ddp->to;
      response_seq_ = fpdu.header_seq;
      response_offset_ = fpdu.header_offset();
      response_frame_ = fpdu.first_frame;
    }
    if (ddp->last) {
      in_response_ = false;
      ++read_responses_;
      const std::uint64_t k = read_responses_;
      for (const ReadRequest& r : reads_) {
        if (r.index != k) continue;
        if (error_ && !error_->unknowable && !error_->judged && r.sink_stag == response_stag_ &&
            r.sink_to == response_to_) {
          error_->judged = true;
          Finding f = make_finding(
              DiagId::ReceiverInvalidFpduAnswered, response_frame_, response_seq_, response_offset_,
              fmt::format("the {} sent an RDMA Read Response (STag 0x{:08x}, TO 0x{:x}) at seq {} "
                          "answering the {}'s RDMA Read Request at seq {} ({} octets), {} "
                          "the FPDU at seq {} with {}: it passed on an FPDU it must reject "
                          "(RFC 5044 6, 8)",
                          receiver_name(), response_stag_, response_to_, response_seq_.value(),
                          sender_name(), r.header_seq.value(), r.size,
                          r.in_bad_fpdu ? "carried in" : "carried after",
                          error_->header_seq.value(), error_words()));
          f.certain_at = fpdu.last_frame;
          out.push_back(std::move(f));
        }
        break;
      }
      while (!reads_.empty() && reads_.front().index <= k) reads_.pop_front();
    }
  }
  if (!error_ || error_->unknowable || error_->acked_frame == 0 || terminate || went_on_) return;
  if (fpdu.first_frame < error_->acked_frame || fpdu.start_offset < error_->receiver_offset) return;
  went_on_ = make_finding(
      DiagId::ReceiverErrorIgnored, fpdu.first_frame, fpdu.header_seq, fpdu.header_offset(),
      fmt::format("the {} acknowledged the {}'s FPDU at seq {} with {} (frame {}), then sent FPDUs "
                  "from seq {} on, and its stream ended without a Terminate: the error "
                  "went unreported or ignored (RFC 5044 8: no FPDU is passed on after it, and "
                  "DDP's ULP tears the connection down)",
                  receiver_name(), sender_name(), error_->header_seq.value(), error_words(),
                  error_->acked_frame, fpdu.header_seq.value()));
}

void ReceiverReactions::on_receiver_close(bool rst, std::uint64_t frame, TcpSeq seq,
                                          std::uint64_t offset, std::vector<Finding>& out) {
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

}  // namespace mpa
