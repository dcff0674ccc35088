// The startup exchange (RFC 5044 7.1; RFC 6581 6, 9): what one complete startup frame
// means for its connection. Roles follow the MPA Request (not the SYN); the Reply settles
// markers per direction (X->Y iff Y asked, RFC 5044 7.1.1), CRCs (either side), and
// peer-to-peer RTR negotiation (RFC 6581 9.2). Pure: frames in, a verdict out; the
// connection applies it.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "mpa/ddp.h"
#include "mpa/startup_frame.h"
#include "report/interop.h"

namespace mpa {

// What the connection does next.
enum class StartupStep : std::uint8_t {
  EndMpa,         // MPA ends here (a frame of the wrong kind, an invalid one, R=1)
  AwaitReply,     // a Request: its sender is the Initiator and waits for the Reply
  FullOperation,  // a Reply accepting the Request: both directions enter full operation
  InvalidReply,   // an improperly formatted Reply that does not reject: the Initiator
                  // MUST close (a Terminate first is allowed); whatever either side
                  // sends next is framed with the parameters the frames declare
};

struct StartupVerdict {
  FrameKind role = FrameKind::Request;  // what the frame was due to be
  std::vector<StartupIssue> issues;     // in report order, the stack fingerprint last
  std::optional<StackGuess> stack;
  StartupStep step = StartupStep::EndMpa;
  // FullOperation and InvalidReply:
  bool initiator_markers = false;  // the Reply's M: markers in the Initiator's data
  bool responder_markers = false;  // the Request's M: markers in the Responder's data
  bool crc = false;                // either side set C
  // FullOperation:
  bool peer_to_peer = false;        // both set A (RFC 6581 5: the Initiator's first FPDU is an RTR)
  bool responder_unjudged = false;  // the Responder's RFC 6581 fault (insufficient IRD, no RTR)
  // The codes (6, 7) of the Terminate the Initiator owes if it cannot go on (RFC 6581 9.1,
  // 9.2); empty: none owed.
  MpaErrorSet terminate_due;
  bool terminate_owed() const {
    return terminate_due.contains(MpaError::InsufficientIrd) ||
           terminate_due.contains(MpaError::NoMatchingRtr);
  }
};

// `request`: the Request this connection already accepted (nullptr: a Request is due).
// `trailing_in_segment`: octets follow the frame in its TCP segment, before the peer could
// have answered it.
StartupVerdict judge_startup_frame(const StartupFrame& frame, const StartupFrame* request,
                                   bool trailing_in_segment);

// A Request whose private data was still incomplete when the peer's Reply came, and whose
// sender then sent an FPDU: its PD_Length overstates the private data it carries
// (RFC 5044 7.1.1, 7.1.2 rule 9), so it is improperly formatted and MPA ends (step EndMpa).
// `partial`: the Request as far as it arrived (header complete, private_data short of
// pd_length); `request_frame`: the capture frame it began in (named in the message).
StartupVerdict judge_request_cut_short(const StartupFrame& partial, std::uint64_t request_frame);

// A Request or a Reply whose private data stopped short of its PD_Length where an FPDU of its
// sender begins (or where its sender's stream ended): PD_Length overstates the private data
// (RFC 5044 7.1.1, 7.1.2 rule 9), so the frame is improperly formatted. `partial`: the frame
// as far as it arrived; `request`: the Request (nullptr when `partial` is in a Request's
// place); `what`: what ends the private data, said in the message.
StartupVerdict judge_frame_cut_short(const StartupFrame& partial, const StartupFrame* request,
                                     std::string_view what);

// The octets a startup frame took on the wire as it arrived: its header, the vendor extension
// and the private data that came (fewer than PD_Length names for a frame cut short).
inline std::size_t octets_sent(const StartupFrame& f) {
  return kStartupHeaderSize + (f.has_vendor_extension ? kVendorExtensionSize : 0) +
         f.private_data.size();
}

// What a Responder sent after an improperly formatted Request, which it MUST answer by
// closing the connection (RFC 5044 7.1.2 rule 2): `frame` is what it sent in its place
// (a Reply, or octets without a startup key). Returns the issue to report.
StartupIssue judge_answer_to_invalid_request(const StartupFrame& frame);

// Whether a zero-length RTR of `kind` may open the Initiator's data (RFC 6581 5, 9.2): one
// both sides set, or, when they set none in common, one the Responder named (an Initiator
// able to send it need not terminate).
bool rtr_negotiated(RtrKind kind, const EnhancedBlock& request, const EnhancedBlock& reply);

// ---- how each side reacted to the startup exchange (judged when the capture shows it)

// The Responder closed (FIN or RST) first, having acknowledged the whole, properly formatted
// `request`, without sending a Reply. A Rev 1 Request was owed a Reply (R=0 or R=1, RFC 5044
// 7.1.2 rule 2); other revisions may be refused by a close (RFC 5044 7.1.1: a version it
// cannot interoperate with; RFC 6581 10: an enhanced Request to an unenhanced Responder).
// An M=1 Request refused so is also a refusal of markers (RFC 5044 4.3).
std::vector<StartupIssue> judge_close_without_reply(const StartupFrame& request);

// The Initiator closed first after `reply` accepted `request`, without sending an octet after
// its Request: with M=1 in the Reply, that refuses the markers asked for (RFC 5044 4.3).
// `negotiation_failed`: the Reply owed a Terminate (RFC 6581), which explains the close.
std::vector<StartupIssue> judge_initiator_close_after_accept(const StartupFrame& reply,
                                                             bool negotiation_failed);

// The Initiator got an improperly formatted Reply (completed in `reply_frame`), acknowledged
// it, sent nothing, and had not closed when the Responder closed: it kept the connection open
// (RFC 5044 7.1.2 rules 3 and 5, section 8).
StartupIssue judge_invalid_reply_kept_open(std::uint64_t reply_frame);

// The Responder got an improperly formatted Request (completed in `request_frame`),
// acknowledged it, sent nothing, and had not closed when the Initiator closed: it kept the
// connection open (RFC 5044 7.1.1, 7.1.2 rules 2 and 5, section 8).
StartupIssue judge_invalid_request_kept_open(std::uint64_t request_frame);

// The Initiator's exit from a failed negotiation (`verdict.terminate_due`): `terminate_code`
// is the MPA error code of the Terminate it sent (layer 2, error type 0; nullopt: a Terminate
// of another layer or type), or, with `terminated` false, it closed without one.
std::optional<StartupIssue> judge_negotiation_exit(MpaErrorSet due, bool terminated,
                                                   std::optional<std::uint8_t> terminate_code);

}  // namespace mpa
