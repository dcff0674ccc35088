// The startup exchange (see startup_exchange.h).
#include "startup/startup_exchange.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "mpa/ddp.h"

namespace mpa {
namespace {

bool has_code(const std::vector<StartupIssue>& issues, MpaError code) {
  return std::any_of(issues.begin(), issues.end(),
                     [code](const StartupIssue& i) { return info(i.id).error_code == code; });
}

}  // namespace

StartupVerdict judge_startup_frame(const StartupFrame& f, const StartupFrame* request,
                                   bool trailing_in_segment) {
  StartupVerdict v;
  v.role = request ? FrameKind::Reply : FrameKind::Request;
  const FrameKind named = f.kind == FrameKind::Unknown ? v.role : f.kind;
  v.issues = check_startup_frame(f, v.role);
  if (request && (f.kind == FrameKind::Reply || f.kind == FrameKind::Unknown)) {
    auto more = check_negotiation(*request, f);
    v.issues.insert(v.issues.end(), std::make_move_iterator(more.begin()),
                    std::make_move_iterator(more.end()));
    if (auto crc = check_crc_use(*request, f)) v.issues.push_back(std::move(*crc));
  }
  if (trailing_in_segment) {
    v.issues.push_back({DiagId::StartupPdLengthMismatch,
                        fmt::format("octets follow the MPA {} (PD_Length {}) in the same segment, "
                                    "before the peer could have answered it",
                                    to_string(named), f.pd_length)});
  }
  name_vendor_deviations(v.issues, f, v.role);
  v.stack = recognise_stack(f, request);
  if (v.stack) {
    v.issues.push_back(
        {DiagId::InteropStackFingerprint,
         fmt::format("MPA {} looks like {}: {}", to_string(named), v.stack->name, v.stack->why)});
  }
  const bool invalid = has_code(v.issues, MpaError::InvalidStartupFrame);
  if (!request) {
    v.step = f.kind == FrameKind::Reply || invalid ? StartupStep::EndMpa : StartupStep::AwaitReply;
    return v;
  }
  v.initiator_markers = f.m();
  v.responder_markers = request->m();
  v.crc = request->c() || f.c();
  if (f.kind == FrameKind::Request || invalid || f.r()) {
    v.step = invalid && f.kind != FrameKind::Request && !f.r() ? StartupStep::InvalidReply
                                                               : StartupStep::EndMpa;
    // A Reject of a Request that asked for markers (RFC 5044 4.3: every sender MUST be able to
    // generate them); the Reject may have had another cause.
    if (f.kind == FrameKind::Reply && f.r() && !invalid && request->m()) {
      const auto at = std::find_if(v.issues.begin(), v.issues.end(), [](const StartupIssue& i) {
        return i.id == DiagId::InteropStackFingerprint;
      });
      v.issues.insert(at, {DiagId::StartupMarkersRefused,
                           "Responder rejected (R=1) a Request that asked for markers (M=1): if "
                           "the markers were the cause, it cannot generate them"});
    }
    return v;
  }
  v.step = StartupStep::FullOperation;
  v.peer_to_peer = request->enhanced && f.enhanced && request->enhanced->peer_to_peer &&
                   f.enhanced->peer_to_peer;
  // The Terminate the Initiator owes if it cannot go on: code 6 (RFC 6581 9.1), code 7 (9.2).
  for (const StartupIssue& i : v.issues) {
    if (i.id == DiagId::StartupInsufficientIrd) v.terminate_due.add(MpaError::InsufficientIrd);
    if (i.id == DiagId::StartupNoMatchingRtr) v.terminate_due.add(MpaError::NoMatchingRtr);
  }
  // The Responder's own faults in the negotiation end judgement of its side (a Reply naming
  // RTR options of its own, as RFC 6581 9.2 allows, does not).
  v.responder_unjudged = std::any_of(v.issues.begin(), v.issues.end(), [](const StartupIssue& i) {
    return i.id == DiagId::StartupInsufficientIrd || i.id == DiagId::StartupReplyWithoutRtr;
  });
  return v;
}

StartupVerdict judge_request_cut_short(const StartupFrame& partial, std::uint64_t request_frame) {
  StartupVerdict v = judge_startup_frame(partial, nullptr, false);
  const auto at = std::find_if(v.issues.begin(), v.issues.end(), [](const StartupIssue& i) {
    return i.id == DiagId::InteropStackFingerprint;
  });
  v.issues.insert(
      at, {DiagId::StartupPdLengthMismatch,
           fmt::format("PD_Length {} overstates the private data of the Request in frame {}: the "
                       "peer's MPA Reply came after {} octets of it, and an FPDU follows them",
                       partial.pd_length, request_frame, partial.private_data.size())});
  v.step = StartupStep::EndMpa;
  return v;
}

StartupVerdict judge_frame_cut_short(const StartupFrame& partial, const StartupFrame* request,
                                     std::string_view what) {
  StartupVerdict v = judge_startup_frame(partial, request, false);
  const auto at = std::find_if(v.issues.begin(), v.issues.end(), [](const StartupIssue& i) {
    return i.id == DiagId::InteropStackFingerprint;
  });
  const FrameKind named = partial.kind == FrameKind::Unknown ? v.role : partial.kind;
  v.issues.insert(
      at, {DiagId::StartupPdLengthMismatch,
           fmt::format("PD_Length {} overstates the private data of the MPA {}: {} "
                       "octets of it came, then {}",
                       partial.pd_length, to_string(named), partial.private_data.size(), what)});
  // Improperly formatted: a Request ends MPA (RFC 5044 7.1.2 rule 2), a Reply obliges the
  // Initiator to close (rule 3); a Reject ends MPA either way.
  v.step = request && partial.kind != FrameKind::Request && !partial.r() ? StartupStep::InvalidReply
                                                                         : StartupStep::EndMpa;
  return v;
}

StartupIssue judge_answer_to_invalid_request(const StartupFrame& f) {
  if (f.kind == FrameKind::Unknown && !looks_like_startup_key(f.key)) {
    return {
        DiagId::StartupInvalidRequestAnswered,
        "Responder sent octets after an improperly formatted MPA Request instead of closing the "
        "connection"};
  }
  return {DiagId::StartupInvalidRequestAnswered,
          fmt::format(
              "Responder answered an improperly formatted MPA Request with an MPA {} ({}) instead "
              "of closing the connection",
              to_string(f.kind), f.r() ? "rejecting" : "accepting")};
}

bool rtr_negotiated(RtrKind kind, const EnhancedBlock& request, const EnhancedBlock& reply) {
  // With no option in common, the Responder's own options are the ones left (RFC 6581 9.2).
  const bool any = !rtr_options_shared(request, reply);
  switch (kind) {
    case RtrKind::Send:
      return reply.send_rtr && (request.send_rtr || any);
    case RtrKind::Write:
      return reply.write_rtr && (request.write_rtr || any);
    case RtrKind::Read:
      return reply.read_rtr && (request.read_rtr || any);
    case RtrKind::None:
      return false;
  }
  return false;
}

std::vector<StartupIssue> judge_close_without_reply(const StartupFrame& request) {
  std::vector<StartupIssue> issues;
  if (request.kind != FrameKind::Request || request.revision != 1 || request.s()) return issues;
  issues.push_back({DiagId::StartupRequestClosedWithoutReply,
                    fmt::format("Responder closed the connection on a properly formatted Rev 1 MPA "
                                "Request (PD_Length {}) without a Reply: it SHOULD answer with a "
                                "Reply (R=1 to reject) and leave MPA",
                                request.pd_length)});
  if (request.m()) {
    issues.push_back({DiagId::StartupMarkersRefused,
                      "Responder closed on a Request that asked for markers (M=1), without a "
                      "Reply: if the markers were the cause, it cannot generate them"});
  }
  return issues;
}

std::vector<StartupIssue> judge_initiator_close_after_accept(const StartupFrame& reply,
                                                             bool negotiation_failed) {
  std::vector<StartupIssue> issues;
  if (reply.kind != FrameKind::Reply || reply.r() || !reply.m() || negotiation_failed)
    return issues;
  issues.push_back({DiagId::StartupMarkersRefused,
                    "Initiator closed after a Reply that accepted and asked for markers (M=1), "
                    "without sending an FPDU: if the markers were the cause, it cannot generate "
                    "them"});
  return issues;
}

namespace {

// The receiver of an improperly formatted startup frame kept the connection open: it
// acknowledged the frame, sent nothing and was still open when its peer closed.
StartupIssue kept_open(DiagId id, std::string_view receiver, std::string_view frame_kind,
                       std::uint64_t frame, std::string_view peer) {
  return {id, fmt::format("{} acknowledged the improperly formatted MPA {} (frame {}) but "
                          "neither closed the connection nor sent anything before the {} "
                          "closed it",
                          receiver, frame_kind, frame, peer)};
}

}  // namespace

StartupIssue judge_invalid_reply_kept_open(std::uint64_t reply_frame) {
  return kept_open(DiagId::StartupInvalidReplyKeptOpen, "Initiator", "Reply", reply_frame,
                   "Responder");
}

StartupIssue judge_invalid_request_kept_open(std::uint64_t request_frame) {
  return kept_open(DiagId::StartupInvalidRequestKeptOpen, "Responder", "Request", request_frame,
                   "Initiator");
}

std::optional<StartupIssue> judge_negotiation_exit(MpaErrorSet due, bool terminated,
                                                   std::optional<std::uint8_t> terminate_code) {
  const bool ird = due.contains(MpaError::InsufficientIrd);
  const bool rtr = due.contains(MpaError::NoMatchingRtr);
  if (!ird && !rtr) return std::nullopt;
  const std::string owed = ird && rtr ? "6 (insufficient IRD) or 7 (no usable RTR)"
                           : ird      ? "6 (insufficient IRD)"
                                      : "7 (no usable RTR)";
  if (!terminated) {
    return StartupIssue{
        DiagId::StartupNegotiationTerminateMissing,
        fmt::format("Initiator closed the connection after the failed negotiation without the "
                    "Terminate it owed: layer 2, error type 0, code {}",
                    owed)};
  }
  if (terminate_code) {
    const auto code = mpa_error_from_wire(*terminate_code);
    if (code && due.contains(*code)) return std::nullopt;
    return StartupIssue{DiagId::StartupNegotiationTerminateMissing,
                        fmt::format("Initiator's Terminate after the failed negotiation carries "
                                    "MPA error {} where code {} was due",
                                    *terminate_code, owed)};
  }
  return StartupIssue{DiagId::StartupNegotiationTerminateMissing,
                      fmt::format("Initiator's Terminate after the failed negotiation is not an "
                                  "MPA error (layer 2, error type 0); code {} was due",
                                  owed)};
}

}  // namespace mpa
