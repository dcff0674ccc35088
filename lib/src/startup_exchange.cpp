// The startup exchange (see startup_exchange.h).
#include "mpa/startup_exchange.h"

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
    return v;
  }
  v.step = StartupStep::FullOperation;
  v.peer_to_peer = request->enhanced && f.enhanced && request->enhanced->peer_to_peer &&
                   f.enhanced->peer_to_peer;
  v.responder_unjudged =
      has_code(v.issues, MpaError::InsufficientIrd) || has_code(v.issues, MpaError::NoMatchingRtr);
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
  switch (kind) {
    case RtrKind::Send:
      return request.send_rtr && reply.send_rtr;
    case RtrKind::Write:
      return request.write_rtr && reply.write_rtr;
    case RtrKind::Read:
      return request.read_rtr && reply.read_rtr;
    case RtrKind::None:
      return false;
  }
  return false;
}

}  // namespace mpa
