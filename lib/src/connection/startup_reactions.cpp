// How each side reacted to the startup exchange (see startup_reactions.h).
#include "connection/startup_reactions.h"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "mpa/terminate.h"
#include "startup/startup_exchange.h"

namespace mpa {
namespace {

// `issues` about the side `on`, at its stream's end when the close came.
void add_all(std::vector<Finding>& out, Direction on, const StreamAtClose& at, std::uint64_t frame,
             std::vector<StartupIssue> issues) {
  for (StartupIssue& issue : issues) {
    Finding& f = out.emplace_back(
        make_finding(issue.id, frame, at.next_seq, at.next_offset, std::move(issue.message)));
    f.direction = on;
  }
}

void add_one(std::vector<Finding>& out, Direction on, const StreamAtClose& at, std::uint64_t frame,
             StartupIssue issue) {
  std::vector<StartupIssue> one;
  one.push_back(std::move(issue));
  add_all(out, on, at, frame, std::move(one));
}

}  // namespace

void StartupReactions::on_invalid_request(std::uint64_t frame, std::uint64_t end_offset,
                                          std::uint64_t responder_offset) {
  invalid_request_ = InvalidRequest{frame, end_offset, responder_offset};
}

void StartupReactions::on_first_close(const FirstClose& close, std::vector<Finding>& out) {
  close_judged_ = true;
  if (invalid_request_) {
    judge_invalid_request_close(close, out);
  } else if (close.closer == Direction::Responder) {
    judge_responder_close(close, out);
  } else {
    judge_initiator_close(close, out);
  }
}

// An improperly formatted Request: the Responder MUST close (RFC 5044 7.1.2 rule 2). The
// Initiator closed first, the Responder having acknowledged the whole Request and sent
// nothing since: it kept the connection open.
void StartupReactions::judge_invalid_request_close(const FirstClose& close,
                                                   std::vector<Finding>& out) const {
  const bool acked = close.initiator.acked_to(invalid_request_->end_offset);
  const bool silent = close.responder.next_offset == invalid_request_->responder_offset;
  if (close.closer == Direction::Initiator && acked && silent) {
    add_one(out, Direction::Responder, close.responder, close.frame,
            judge_invalid_request_kept_open(invalid_request_->frame));
  }
}

// The Responder closed first. It must have had the whole Request: its acknowledgement
// covers it.
void StartupReactions::judge_responder_close(const FirstClose& close,
                                             std::vector<Finding>& out) const {
  if (!close.reply_done) {
    if (close.initiator.acked_to(close.request_end_offset) && close.reply_awaited)
      add_all(out, Direction::Responder, close.responder, close.frame,
              judge_close_without_reply(*close.request));
    return;
  }
  const bool init_silent = close.initiator.next_offset == close.request_end_offset;
  if (invalid_reply_.frame != 0 && init_silent && close.responder.acked_to(reply_end_offset_)) {
    add_one(out, Direction::Initiator, close.initiator, close.frame,
            judge_invalid_reply_kept_open(invalid_reply_.frame));
  }
}

// The Initiator closed first.
void StartupReactions::judge_initiator_close(const FirstClose& close, std::vector<Finding>& out) {
  const bool init_silent = close.initiator.next_offset == close.request_end_offset;
  if (!reply_accepted_ || !init_silent) return;
  const bool owed = terminate_due_.contains(MpaError::InsufficientIrd) ||
                    terminate_due_.contains(MpaError::NoMatchingRtr);
  if (!initiator_reacted_) {
    initiator_reacted_ = true;
    if (auto issue = judge_negotiation_exit(terminate_due_, false, std::nullopt))
      add_one(out, Direction::Initiator, close.initiator, close.frame, std::move(*issue));
  }
  add_all(out, Direction::Initiator, close.initiator, close.frame,
          judge_initiator_close_after_accept(*close.reply, owed));
}

void StartupReactions::on_initiator_fpdu(const FpduEvent& fpdu, bool terminate, bool siw,
                                         const StartupFrame* reply, std::vector<Finding>& out) {
  if (invalid_reply_.frame != 0 && !invalid_reply_.said_ignored && !terminate &&
      fpdu.first_frame > invalid_reply_.frame) {
    invalid_reply_.said_ignored = true;
    out.push_back(make_finding(
        DiagId::StartupInvalidReplyIgnored, fpdu.first_frame, fpdu.start_seq, fpdu.start_offset,
        fmt::format("Initiator sent an FPDU (not a Terminate) at seq {} after the improperly "
                    "formatted MPA Reply (frame {}) instead of closing the connection",
                    fpdu.start_seq.value(), invalid_reply_.frame)));
  }
  judge_first_fpdu(fpdu, terminate, siw, reply, out);
}

// The Initiator's first FPDU after a Reply that accepted: did it exit a failed negotiation
// as RFC 6581 asks?
void StartupReactions::judge_first_fpdu(const FpduEvent& fpdu, bool terminate, bool siw,
                                        const StartupFrame* reply, std::vector<Finding>& out) {
  if (!reply_accepted_ || initiator_reacted_) return;
  initiator_reacted_ = true;
  if (!terminate) return;  // it went on (an RTR of the Responder's, or a raised IRD)
  if (!terminate_due_.terminate_owed() && reply && reply->m()) {
    // Its first FPDU a Terminate, nothing in the negotiation owed one: with M=1 in the Reply,
    // a refusal of the markers asked for (RFC 5044 4.3), if they were the cause.
    out.push_back(make_finding(
        DiagId::StartupMarkersRefused, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
        "Initiator answered a Reply that accepted and asked for markers (M=1) with a Terminate "
        "as its first FPDU: if the markers were the cause, it cannot generate them"));
    return;
  }
  const auto t = decode_terminate(fpdu.ulpdu_head, siw);
  if (auto issue =
          judge_negotiation_exit(terminate_due_, true, t ? t->mpa_error_code() : std::nullopt)) {
    out.push_back(make_finding(issue->id, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
                               std::move(issue->message)));
  }
}

}  // namespace mpa
