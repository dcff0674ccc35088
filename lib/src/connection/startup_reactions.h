// How each side reacted to the startup exchange (RFC 5044 7.1.2, RFC 6581 9), judged where the
// capture shows it: a Responder that kept an improperly formatted Request open, a side that
// closed instead of answering, an Initiator that went on after an improperly formatted Reply,
// the Terminate owed after a failed negotiation. One object per connection, told what the
// startup exchange settled (by MpaConnection, which applies its verdicts) and then the first
// close and the Initiator's FPDUs. Pure: events in, findings out, each finding's direction
// naming the side it is about.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mpa/diagnostics.h"
#include "mpa/events.h"
#include "mpa/startup_frame.h"
#include "mpa/tcp_seq.h"

namespace mpa {

// One side's stream when the first close came: where it is, and how far the peer's
// acknowledgements cover it (none: no ACK of the peer's seen).
struct StreamAtClose {
  TcpSeq next_seq;
  std::uint64_t next_offset = 0;
  std::optional<std::uint64_t> acked;
  bool acked_to(std::uint64_t offset) const { return acked && *acked >= offset; }
};

// What the first close of an MPA connection found.
struct FirstClose {
  Direction closer = Direction::Initiator;
  std::uint64_t frame = 0;
  StreamAtClose initiator;
  StreamAtClose responder;
  bool reply_done = false;
  bool reply_awaited = false;  // the Responder was to send its Reply and had sent none of it
  std::uint64_t request_end_offset = 0;
  const StartupFrame* request = nullptr;
  const StartupFrame* reply = nullptr;
};

class StartupReactions {
 public:
  // ---- what the startup exchange settled
  // An improperly formatted Request, complete in `frame`, the Initiator's stream at
  // `end_offset` after it, the Responder's at `responder_offset` then: MPA is over, and the
  // Responder MUST close (RFC 5044 7.1.2 rule 2).
  void on_invalid_request(std::uint64_t frame, std::uint64_t end_offset,
                          std::uint64_t responder_offset);
  bool invalid_request() const { return invalid_request_.has_value(); }
  // The Reply (or what came in its place) ended at the Responder's stream offset `end_offset`.
  void on_reply(std::uint64_t end_offset) { reply_end_offset_ = end_offset; }
  std::uint64_t reply_end_offset() const { return reply_end_offset_; }
  // A Reject (R=1) complete in `frame`.
  void on_reject(std::uint64_t frame) { reject_frame_ = frame; }
  std::uint64_t reject_frame() const { return reject_frame_; }
  // An improperly formatted Reply that did not reject, complete in `frame`: the Initiator
  // MUST close (RFC 5044 7.1.2 rule 3).
  void on_invalid_reply(std::uint64_t frame) { invalid_reply_.frame = frame; }
  // A properly formatted Reply with R=0; `terminate_due`: the codes of the Terminate the
  // Initiator owes (RFC 6581).
  void on_accepted_reply(MpaErrorSet terminate_due) {
    reply_accepted_ = true;
    terminate_due_ = terminate_due;
  }
  bool reply_accepted() const { return reply_accepted_; }

  // ---- how each side reacted
  // Whether a close now is the first that shows a reaction (`request_done`: a properly
  // formatted Request completed). Only the first close does: the second may answer it.
  bool awaits_close(bool request_done) const {
    return !close_judged_ && (request_done || invalid_request());
  }
  // The first close (awaits_close() was true).
  void on_first_close(const FirstClose& close, std::vector<Finding>& out);
  // An FPDU of the Initiator's, begun in `fpdu.first_frame` (`terminate`: an RDMAP
  // Terminate; `siw`: the Initiator looks like Linux siw; `reply`: the Reply, if any).
  void on_initiator_fpdu(const FpduEvent& fpdu, bool terminate, bool siw, const StartupFrame* reply,
                         std::vector<Finding>& out);

 private:
  void judge_invalid_request_close(const FirstClose& close, std::vector<Finding>& out) const;
  void judge_responder_close(const FirstClose& close, std::vector<Finding>& out) const;
  void judge_initiator_close(const FirstClose& close, std::vector<Finding>& out);
  void judge_first_fpdu(const FpduEvent& fpdu, bool terminate, bool siw, const StartupFrame* reply,
                        std::vector<Finding>& out);

  // The improperly formatted Request, once there was one.
  struct InvalidRequest {
    std::uint64_t frame = 0;       // the frame that completed it
    std::uint64_t end_offset = 0;  // the Initiator's stream offset after it
    // The Responder's when it completed (what the Responder sent since is its answer).
    std::uint64_t responder_offset = 0;
  };
  // The improperly formatted Reply that did not reject.
  struct InvalidReply {
    std::uint64_t frame = 0;  // the frame that completed it (0: none)
    bool said_ignored = false;
  };
  std::optional<InvalidRequest> invalid_request_;
  InvalidReply invalid_reply_;
  std::uint64_t reply_end_offset_ = 0;  // the Responder's stream offset just after its Reply
  std::uint64_t reject_frame_ = 0;      // the frame that completed a Reject (R=1)
  bool reply_accepted_ = false;         // a properly formatted Reply with R=0
  MpaErrorSet terminate_due_;           // codes of the Terminate the Initiator owes (RFC 6581)
  bool initiator_reacted_ = false;      // its first FPDU after such a Reply was judged
  bool close_judged_ = false;
};

}  // namespace mpa
