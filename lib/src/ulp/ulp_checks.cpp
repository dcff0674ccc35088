// Checks of what MPA carries (see ulp_checks.h).
#include "ulp/ulp_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "decode/byte_order.h"
#include "mpa/ddp.h"
#include "mpa/terminate.h"
#include "startup/startup_exchange.h"
#include "ulp/ddp_field_checks.h"

namespace mpa {

namespace {
// The DDP Stream takes only segments that were judged, framed as sent and hold their headers
// (RFC 5044 8: the receiver drops the others; what they held is unknown): `ddp` unset for the
// others, which make it lose its place.
void feed_stream(std::unique_ptr<DdpStream>& stream, const FpduEvent& fpdu,
                 const UlpContext& context, bool first_seen, const DdpHeader* ddp,
                 std::uint32_t size, std::vector<Finding>& out) {
  if (!ddp) {
    if (stream) stream->lose();
    return;
  }
  if (!stream) {
    // From the start where the FPDU is the first this direction showed and follows its
    // sender's own startup frame at once (a marker may lead it, nothing else).
    const StartupFrame* own =
        context.direction == Direction::Responder ? context.reply : context.request;
    stream = std::make_unique<DdpStream>(context.first_fpdu && first_seen && own &&
                                         fpdu.start_offset == own->wire_length() &&
                                         header_offset(fpdu) <= fpdu.start_offset + 4);
  }
  stream->check(fpdu, *ddp, fpdu.ulpdu_head, size, out);
}

// The DV and RV a segment carries against the MPA revision (ddp_fields::versions_conform: RFC
// 5044 Appendix C), named where they do not conform. (ddp_fields::versions_fit(), asked first,
// is the common case without its optional Finding.)
std::optional<Finding> version_finding(const FpduEvent& fpdu, const DdpHeader& ddp,
                                       std::optional<int> revision) {
  if (ddp_fields::versions_conform(ddp, revision)) return std::nullopt;
  const std::optional<unsigned> expected = ddp_fields::expected_version(revision);
  const std::string versions =
      fmt::format("DDP version {}, RDMAP version {}", ddp.ddp_version, ddp.rdmap_version);
  if (expected) {
    return make_finding(DiagId::DdpVersionMismatch, fpdu.last_frame, fpdu.header_seq,
                        header_offset(fpdu),
                        fmt::format("{} in an MPA Rev {} connection (expected {})", versions,
                                    *revision, *expected));
  }
  return make_finding(
      DiagId::DdpVersionMismatch, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
      fmt::format("{} at seq {} (startup not seen): no MPA revision uses them (RFC 5041 4.1 and "
                  "RFC 5040 4.1 set both 1, an RDMA Consortium peer, MPA Rev 0, sends both 0; "
                  "RFC 5044 Appendix C: no mixing)",
                  versions, fpdu.header_seq.value()));
}

// RFC 5041 4 and RFC 5040 4 (RFC 7306 for the atomics): the DDP header a ULPDU of `size`
// octets announces (its control field), then the RDMAP header its opcode needs, in words, where
// the ULPDU cannot hold them; empty where it can.
std::string missing_headers(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp,
                            std::uint32_t size, bool siw_sender) {
  if (!ddp) {
    return fmt::format("the {} DDP header it announces",
                       (fpdu.ulpdu_head[0] & 0x80) ? "14-octet tagged" : "18-octet untagged");
  }
  if (!ddp->tagged && ddp->opcode == to_wire(RdmapOpcode::Terminate)) {
    const auto t = decode_terminate(fpdu.ulpdu_head, siw_sender);
    const std::size_t body = t ? terminate_header_size(*t) : 4;
    if (size >= kDdpUntaggedHeaderSize + body) return {};
    return fmt::format("the 18-octet DDP header and the {}-octet Terminate header{} it needs", body,
                       t && body > 4 ? " (with the parts its M/D/R flags announce)" : "");
  }
  const std::uint32_t body = rdmap_header_size(*ddp);
  if (body == 0 || size >= ddp->header_size + body) return {};
  return fmt::format("the {}-octet DDP header and the {}{}-octet {} header it needs",
                     ddp->header_size,
                     ddp->opcode == to_wire(RdmapOpcode::AtomicRequest) ? "at least " : "", body,
                     rdmap_opcode_words(ddp->opcode));
}

// RFC 7306's opcodes (Immediate Data, Atomic Request and Response).
constexpr bool extension_opcode(std::uint8_t opcode) {
  return opcode >= to_wire(RdmapOpcode::ImmediateData) &&
         opcode <= to_wire(RdmapOpcode::AtomicResponse);
}
}  // namespace

UlpVerdict UlpChecks::check(const FpduEvent& fpdu, const UlpContext& context,
                            std::vector<Finding>& out) {
  const std::size_t before = out.size();
  const UlpVerdict v = check_segment(fpdu, context, out);
  // (Nothing to note of a segment without findings that is no RFC 7306 message: the common case.)
  if (!errors_.first && fpdu.crc_status != CrcStatus::Bad &&
      (out.size() != before || (v.ddp && extension_opcode(v.ddp->opcode)))) {
    const std::uint32_t size = fpdu.ulpdu_size != 0 ? fpdu.ulpdu_size : fpdu.ulpdu_length;
    note_errors(v.ddp, std::span<const Finding>(out).subspan(before), size);
  }
  return v;
}

UlpVerdict UlpChecks::check_segment(const FpduEvent& fpdu, const UlpContext& context,
                                    std::vector<Finding>& out) {
  UlpVerdict v;
  // Octets that failed their CRC are no ULPDU the sender can be held to (RFC 5044 8: the
  // receiver drops the FPDU, whose error is fpdu.crc-mismatch's; its "header" may be stray
  // octets read as one): nothing is judged from them. Its DDP header is still decoded, as
  // the octets read, for what knows the CRC failed (the connection's receiver reactions).
  const bool framed = fpdu.crc_status != CrcStatus::Bad;
  const bool judged = fpdu.judged && framed;
  v.ddp = decode_ddp(fpdu.ulpdu_head);  // (once per FPDU, for all that follows)
  const std::optional<DdpHeader>& head = v.ddp;
  // RFC 6581 5: with peer-to-peer, the Initiator's first FPDU is the negotiated RTR, unless
  // it is a Terminate (RFC 6581 9.2, 9.3: an Initiator that cannot go on terminates first).
  const bool terminate =
      head && !head->tagged && head->opcode == static_cast<std::uint8_t>(RdmapOpcode::Terminate);
  if (judged && context.direction == Direction::Initiator && context.first_fpdu && context.rtr &&
      !terminate) {
    const RtrKind kind = classify_rtr(fpdu.ulpdu_head, fpdu.ulpdu_length);
    if (!rtr_negotiated(kind, context.rtr->request, context.rtr->reply)) {
      out.push_back(make_finding(
          DiagId::FpduRtrMissing, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
          fmt::format(
              "peer-to-peer negotiated, but the Initiator's first FPDU (ULPDU_Length {}) is {}",
              fpdu.ulpdu_length,
              kind == RtrKind::None ? "not a zero-length RTR message"
                                    : "an RTR of a type not negotiated")));
      v.stop_judging = true;
    }
  }
  remember(fpdu);
  if (recent_count_ == 1 && context.first_fpdu && context.revision && context.reply)
    reads_.start_complete();  // (Read Requests followed from the first FPDU after the startup)
  if (fpdu.ulpdu_length == 0) {
    v.ddp.reset();  // (a zero-length ULPDU carries no DDP Segment)
    return v;
  }
  // RFC 5041 4 and RFC 5040 4 (RFC 7306 for the atomics): the DDP header its control field
  // announces, then the RDMAP header its opcode needs (in words only where it is missing).
  const std::uint32_t size = fpdu.ulpdu_size != 0 ? fpdu.ulpdu_size : fpdu.ulpdu_length;
  const bool holds = v.ddp && !terminate && size >= v.ddp->header_size + rdmap_header_size(*v.ddp);
  const std::string need =
      holds ? std::string() : missing_headers(fpdu, v.ddp, size, context.siw_sender);
  if (!need.empty() && framed) {
    too_short_seen_ = true;
    if (judged && !said_too_short_) {
      said_too_short_ = true;
      out.push_back(make_finding(
          DiagId::DdpUlpduTooShort, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
          fmt::format("ULPDU of {} octets at seq {} cannot hold {} (first of this direction)", size,
                      fpdu.header_seq.value(), need)));
    }
  }
  // (Only an untagged Read Request or Terminate may carry too much: check_no_payload.)
  if (judged && need.empty() && v.ddp && !v.ddp->tagged &&
      (v.ddp->opcode == to_wire(RdmapOpcode::ReadRequest) ||
       v.ddp->opcode == to_wire(RdmapOpcode::Terminate))) {
    check_no_payload(fpdu, *v.ddp, size, out);
  }
  feed_stream(stream_.stream, fpdu, context, recent_count_ == 1,
              judged && need.empty() && v.ddp ? &*v.ddp : nullptr, size, out);
  if (!v.ddp) return v;
  // The DDP/RDMAP versions (version_finding), once per direction.
  if (judged && !said_ddp_version_ && !ddp_fields::versions_fit(*v.ddp, context.revision)) {
    if (auto f = version_finding(fpdu, *v.ddp, context.revision)) {
      said_ddp_version_ = true;
      out.push_back(std::move(*f));
    }
  }
  if (!v.ddp->tagged && v.ddp->opcode == static_cast<std::uint8_t>(RdmapOpcode::Terminate)) {
    v.terminate = true;
  }
  return v;
}

// The most a Terminate header holds (RFC 5040 4.8, Figure 7): Terminate Control and Reserved,
// the DDP Segment Length, the Terminated DDP Header (144 bits for an untagged message) and the
// Terminated RDMA Header (224 bits). Its M, D and R flags say which of the last three are valid
// or must be present, not that the others are absent ("MUST be present if the D bit is set"),
// so only octets beyond all of them are a payload.
constexpr std::size_t kTerminateHeaderMost = 4 + 2 + kDdpUntaggedHeaderSize + kRdmaReadRequestSize;

// RFC 5040 4.2: a Read Request and a Terminate carry their RDMAP header and no ULP Message.
void UlpChecks::check_no_payload(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t size,
                                 std::vector<Finding>& out) {
  if (ddp.tagged) return;
  std::size_t body = 0;
  if (ddp.opcode == static_cast<std::uint8_t>(RdmapOpcode::ReadRequest)) {
    body = rdmap_header_size(ddp);
  } else if (ddp.opcode == static_cast<std::uint8_t>(RdmapOpcode::Terminate)) {
    body = kTerminateHeaderMost;
  }
  if (body == 0 || size <= ddp.header_size + body) return;
  if (!said_.first(DiagId::RdmapPayloadNotAllowed)) return;
  out.push_back(make_finding(
      DiagId::RdmapPayloadNotAllowed, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
      fmt::format("{} of {} octets at seq {}: its {}-octet DDP header and {}-octet {} header "
                  "(at most) leave {} octets of ULP payload, which RFC 5040 4.2 does not allow it "
                  "(first of this direction)",
                  rdmap_opcode_words(ddp.opcode), size, fpdu.header_seq.value(), ddp.header_size,
                  body, rdmap_opcode_words(ddp.opcode), size - ddp.header_size - body)));
}

namespace {
const char* role(Direction direction) {
  return direction == Direction::Initiator ? "Initiator" : "Responder";
}
}  // namespace

void UlpChecks::count_request(const FpduEvent& fpdu, const DdpHeader& ddp,
                              std::optional<std::uint16_t> peer_ird, Direction direction,
                              std::vector<Finding>& out) {
  ++outstanding_;
  reads_.on_request(fpdu, ddp, direction, out);  // a Read or an RFC 7306 Atomic Request
  if (count_lost_ || said_ird_ || !peer_ird || outstanding_ <= *peer_ird) return;
  said_ird_ = true;
  out.push_back(make_finding(
      DiagId::RdmapIrdExceeded, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
      fmt::format("{} sent its {} (MSN {}) at seq {} with {} requests outstanding (RDMA Read and "
                  "Atomic Requests whose last answer the capture had not yet shown), more than "
                  "the IRD of {} the {} declared",
                  role(direction), rdmap_opcode_words(ddp.opcode), ddp.msn, fpdu.header_seq.value(),
                  outstanding_, *peer_ird, role(other(direction)))));
}

void UlpChecks::count_answer() {
  if (outstanding_ == 0) {
    count_lost_ = true;  // an answer to a request the capture did not show
    return;
  }
  --outstanding_;
}

namespace {
using Cause = UlpChecks::TerminateCause;
constexpr Cause kInvalidQn{1, 2, 0x01};           // RFC 5041 7.2
constexpr Cause kTaggedDdpVersion{1, 1, 0x04};    // RFC 5041 7.2
constexpr Cause kUntaggedDdpVersion{1, 2, 0x06};  // RFC 5041 7.2
constexpr Cause kRdmapVersion{0, 2, 0x05};        // RFC 5040 Figure 9
constexpr Cause kUnexpectedOpcode{0, 2, 0x06};    // RFC 5040 Figure 9

// What a conforming receiver's Terminate names of the error a finding is (the catalogue
// summaries say it: RFC 5041 7.2, RFC 5040 Figure 9); none for the findings no Terminate
// answers, or that a receiver may not detect at that segment.
std::span<const Cause> terminate_causes(DiagId id) {
  static constexpr Cause kQn[] = {kInvalidQn};
  static constexpr Cause kOpcode[] = {kUnexpectedOpcode};
  static constexpr Cause kVersion[] = {kTaggedDdpVersion, kUntaggedDdpVersion, kRdmapVersion};
  static constexpr Cause kMsn[] = {{1, 2, 0x02}, {1, 2, 0x03}};
  static constexpr Cause kMo[] = {{1, 2, 0x04}};
  switch (id) {
    case DiagId::DdpQueueInvalid:
      return kQn;
    case DiagId::RdmapOpcodeInvalid:
    case DiagId::RdmapOpcodeMisplaced:
    case DiagId::RdmapReadResponseUnrequested:
      return kOpcode;
    case DiagId::DdpVersionMismatch:
    case DiagId::DdpVersionChanged:
      return kVersion;
    case DiagId::DdpMsnInvalid:
      return kMsn;
    case DiagId::DdpMoInvalid:
      return kMo;
    default:
      return {};
  }
}

// "DDP error type 2 code 0x01 (invalid QN)".
std::string cause_words(const Cause& c) {
  std::string_view name;
  if (c == kInvalidQn) name = " (invalid QN)";
  if (c == kTaggedDdpVersion || c == kUntaggedDdpVersion) name = " (invalid DDP version)";
  if (c == kRdmapVersion) name = " (invalid RDMAP version)";
  if (c == kUnexpectedOpcode) name = " (unexpected opcode)";
  return fmt::format("{} error type {} code 0x{:02x}{}", c.layer == 0 ? "RDMAP" : "DDP", c.etype,
                     c.code, name);
}
}  // namespace

// RFC 5041 7.1 (validate a non-zero-length untagged segment's QN), RFC 5040 7.2 (the opcode):
// the errors every receiver detects at the segment that shows them. The first segment with
// one is kept with what a Terminate may name of all the errors it shows.
void UlpChecks::note_errors(const std::optional<DdpHeader>& ddp, std::span<const Finding> found,
                            std::uint32_t size) {
  SegmentError e;
  for (const Finding& f : found) {
    for (const Cause& c : terminate_causes(f.id)) e.causes.push_back(c);
    const bool detected = f.id == DiagId::RdmapOpcodeInvalid ||
                          (f.id == DiagId::DdpQueueInvalid && size > kDdpUntaggedHeaderSize);
    if (detected && e.id == DiagId::kCount) e.id = f.id;
  }
  if (e.id == DiagId::kCount) {
    // (a receiver without RFC 7306 may answer its messages with an unexpected opcode)
    if (ddp && ddp->opcode >= to_wire(RdmapOpcode::ImmediateData) &&
        ddp->opcode <= to_wire(RdmapOpcode::AtomicResponse)) {
      errors_.extension_seen = true;
    }
    return;
  }
  e.fpdu = recent_[(recent_count_ - 1) % recent_.size()];  // (remember() kept it)
  e.all_seen = reads_.judging() && !errors_.extension_seen;
  errors_.first = std::move(e);
}

// RFC 5041 7.1: after a segment in error, "DDP MUST silently drop any subsequent incoming DDP
// Segments"; a Read or Atomic Request (RFC 7306) sent after it is one, and a Response to it
// shows it placed. (Responses are paired with Requests only while the capture shows every
// Request and Response.)
void UlpChecks::check_read_response(const FpduEvent& fpdu, const DdpHeader& ddp,
                                    Direction responder, std::vector<Finding>& out) {
  const auto request = errors_.first ? reads_.answered_by(fpdu, ddp) : std::nullopt;
  if (request && request->seq.is_after(errors_.first->fpdu.seq) &&
      said_.first(DiagId::ReceiverSegmentAfterErrorPlaced)) {
    const SegmentError& e = *errors_.first;
    out.push_back(make_finding(
        DiagId::ReceiverSegmentAfterErrorPlaced, fpdu.last_frame, fpdu.header_seq,
        header_offset(fpdu),
        fmt::format("the {}'s {} at seq {} answers the {} the {} sent at seq {} (frame {}, MSN "
                    "{}), after its DDP Segment at seq {} (frame {}) with {}: a receiver's DDP "
                    "silently drops every segment after one in error (RFC 5041 7.1), so that "
                    "Request is none it may answer",
                    role(responder), rdmap_opcode_words(ddp.opcode), fpdu.header_seq.value(),
                    request->what, role(other(responder)), request->seq.value(), request->frame,
                    request->msn, e.fpdu.seq.value(), e.fpdu.frame, info(e.id).name)));
  }
  reads_.on_response(fpdu, ddp, responder, out);
}

void UlpChecks::remember(const FpduEvent& fpdu) {
  RecentFpdu& recent = recent_[recent_count_++ % recent_.size()];
  recent.frame = fpdu.last_frame;
  recent.seq = fpdu.header_seq;
  recent.crc = fpdu.crc_status;
  recent.ddp_size = std::min(fpdu.ulpdu_head.size(), recent.ddp.size());
  if (recent.ddp_size == recent.ddp.size()) {
    std::memcpy(recent.ddp.data(), fpdu.ulpdu_head.data(), recent.ddp.size());  // (a fixed size)
  } else {
    std::copy_n(fpdu.ulpdu_head.begin(), recent.ddp_size, recent.ddp.begin());
  }
}

const UlpChecks::RecentFpdu* UlpChecks::find_quoted(std::span<const std::uint8_t> quoted) const {
  const std::size_t n = std::min(recent_count_, recent_.size());
  for (std::size_t i = 0; i < n; ++i) {
    const RecentFpdu& r = recent_[(recent_count_ - 1 - i) % recent_.size()];
    // (a tagged header is 14 octets: what follows it in the FPDU is payload, in the Terminate
    // the Terminated RDMA Header)
    const std::size_t own =
        quoted.empty() || (quoted[0] & 0x80) == 0 ? kDdpUntaggedHeaderSize : kDdpTaggedHeaderSize;
    const std::size_t k = std::min({r.ddp_size, quoted.size(), own});
    if (k >= 6 &&
        std::equal(r.ddp.begin(), r.ddp.begin() + static_cast<std::ptrdiff_t>(k), quoted.begin())) {
      return &r;
    }
  }
  return nullptr;
}

namespace {

// A Terminate Control field laid out other than as RFC 5040's Figure 8 (terminate.h), as an
// RFC 5040 reader would misread it; empty for Figure 8's.
std::string encoding_note(const Terminate& t, const std::uint8_t* control) {
  if (t.layout == TerminateLayout::Siw) {
    return fmt::format(
        "Terminate Control octets {:02x} {:02x} {:02x}: Layer and EType nibbles swapped "
        "(Linux siw's C bitfields); an RFC 5040 reader sees layer {}, error type {}",
        control[0], control[1], control[2], t.etype, t.layer);
  }
  if (t.layout == TerminateLayout::CxgbIrdma) {
    return fmt::format(
        "Terminate Control octets {:02x} {:02x} {:02x}: an MPA error as layer 2, "
        "error type 3 (Chelsio cxgb4's and Intel irdma's LAYER_MPA | DDP_LLP); RFC "
        "6580 registers MPA errors as layer 2, error type 0",
        control[0], control[1], control[2]);
  }
  return {};
}

// Each of the following: why what mpa-check saw in the peer's data does not bear out the
// Terminate's MPA error (RFC 5044 8, RFC 6581 8), or empty where it does.
std::string crc_error_disagreement(const UlpChecks::RecentFpdu* blamed, const TerminatePeer& peer) {
  if (blamed && blamed->crc == CrcStatus::Good) {
    return fmt::format("it claims a CRC error, but the FPDU it quotes (frame {}) has a correct CRC",
                       blamed->frame);
  }
  if (peer.crc && !*peer.crc) {
    return "it claims a CRC error, but CRCs were not negotiated on this connection";
  }
  if (!peer.errors_seen.contains(MpaError::CrcError)) {
    return "it claims a CRC error, but every CRC mpa-check checked in the peer's data was right";
  }
  return {};
}

std::string marker_error_disagreement(const Terminate& t, const TerminatePeer& peer) {
  const MpaErrorSet& seen = peer.errors_seen;
  if (t.layout == TerminateLayout::Siw) {
    // siw sends code 3 (its LLP_ECODE_FPDU_START) for a ULPDU too short for the headers
    // its opcode needs as well as for marker errors, and never uses markers: its claim
    // is that the FPDU's start or length was wrong.
    const bool too_short = peer.checks && peer.checks->saw_too_short();
    if (!too_short && !seen.contains(MpaError::MarkerMismatch)) {
      return "it claims error 3 (Linux siw: an FPDU whose ULPDU_Length does not fit its DDP/RDMAP "
             "headers, or a marker error), but mpa-check saw neither in the peer's data";
    }
  } else if (!seen.contains(MpaError::MarkerMismatch)) {
    return peer.markers && !*peer.markers
               ? "it claims a marker error, but no markers were negotiated towards it"
               : "it claims a marker/ULPDU_Length error that mpa-check did not see";
  }
  return {};
}

std::string insufficient_ird_disagreement(const UlpContext& context, const TerminatePeer& peer) {
  if (peer.errors_seen.contains(MpaError::InsufficientIrd)) return {};
  const StartupFrame* reply = context.reply;
  // (A Responder ORD of 0x3FFF that answers no Initiator 0x3FFF is insufficient-ird, code 6.)
  const bool no_negotiation = reply && reply->enhanced && reply->enhanced->ord == kNoNegotiation;
  return no_negotiation
             ? "it claims insufficient IRD, but the Reply's 0x3FFF means \"no IRD/ORD "
               "negotiation\" (RFC 6581 9.1: the initiator leaves its IRD unchanged), not a "
               "depth"
             : "it claims insufficient IRD, but the IRD/ORD exchange satisfied RFC 6581 9.1";
}

std::string disagreement(MpaError code, const Terminate& t, const UlpChecks::RecentFpdu* blamed,
                         const UlpContext& context, const TerminatePeer& peer) {
  const MpaErrorSet& seen = peer.errors_seen;
  switch (code) {
    case MpaError::CrcError:
      return crc_error_disagreement(blamed, peer);
    case MpaError::MarkerMismatch:
      return marker_error_disagreement(t, peer);
    case MpaError::InvalidStartupFrame:
      if (!seen.contains(MpaError::InvalidStartupFrame)) {
        return "it claims an invalid Request/Reply, but the peer's startup frame was valid";
      }
      break;
    case MpaError::InsufficientIrd:
      return insufficient_ird_disagreement(context, peer);
    case MpaError::NoMatchingRtr:
      if (!seen.contains(MpaError::NoMatchingRtr)) {
        return "it claims no matching RTR option, but mpa-check found the RTR negotiation sound";
      }
      break;
    default:
      break;
  }
  return {};
}

// The DDP header a Terminate quotes (D bit) as long as its T bit says (RFC 5040 4.8: 112 bits
// tagged, 144 untagged); empty when none is quoted, it is cut short, or it is all zero (RFC
// 5040 7.1 rule 1: an error not about an incoming message).
std::span<const std::uint8_t> quoted_header(const Terminate& t) {
  const std::span<const std::uint8_t> q = t.terminated_ddp_header;
  if (!t.ddp_header_included || q.empty()) return {};
  const std::size_t size = (q[0] & 0x80) ? kDdpTaggedHeaderSize : kDdpUntaggedHeaderSize;
  if (q.size() < size || std::all_of(q.begin(), q.begin() + size, [](auto o) { return o == 0; }))
    return {};
  return q.first(size);
}

bool same_header(const UlpChecks::RecentFpdu& r, std::span<const std::uint8_t> header) {
  return r.ddp_size >= header.size() && std::equal(header.begin(), header.end(), r.ddp.begin());
}

// What the header a Terminate quotes shows against the error it names, whatever else the
// capture showed: a buffer error of the other DDP model (RFC 5041 7.2), an invalid QN on a queue
// RDMAP defines, an invalid version where the header carries its MPA revision's (RFC 5044
// Appendix C).
std::string header_contradiction(const Cause& c, std::span<const std::uint8_t> q,
                                 std::optional<int> revision) {
  const bool tagged = q[0] & 0x80;
  if (c.layer == 1 && (c.etype == 1 || c.etype == 2) && tagged != (c.etype == 1)) {
    return fmt::format(
        "it names {}, a{} buffer error, but the DDP header it quotes is {} (RFC 5041 7.2)",
        cause_words(c), c.etype == 1 ? " tagged" : "n untagged", tagged ? "tagged" : "untagged");
  }
  if (c == kInvalidQn && load_be32(&q[6]) <= 2) {
    return fmt::format(
        "it names {}, but the segment it quotes is on queue {}, one RDMAP defines "
        "(RFC 5040 5: 0 Sends, 1 Read Requests, 2 Terminates)",
        cause_words(c), load_be32(&q[6]));
  }
  if (!revision) return {};
  const unsigned expected = *revision == 0 ? 0 : 1;
  const bool ddp_version = c == kTaggedDdpVersion || c == kUntaggedDdpVersion;
  if ((ddp_version && (q[0] & 0x03) == expected) || (c == kRdmapVersion && q[1] >> 6 == expected)) {
    return fmt::format(
        "it names {}, but the segment it quotes carries version {}, the one MPA Rev "
        "{} carries (RFC 5044 Appendix C)",
        cause_words(c), expected, *revision);
  }
  return {};
}

// RFC 5040 7.1: a Terminate answering an error in an incoming message names it and quotes its
// DDP header; rule 4, the first message in error; RFC 5041 7.1, DDP drops the segments after
// it. Why a DDP or RDMAP Terminate (RFC 5040's layout) does not, held to the first segment of
// its peer's with an error every receiver detects (UlpChecks::first_error), then to the header
// it quotes; empty where it does, or where the capture cannot tell: errors against the
// receiver's buffers and STags (RFC 5041 7.1's other checks, RDMAP's protection errors) are
// inside it, and may come first on a segment mpa-check found sound.
std::string ulp_disagreement(const Terminate& t, const UlpChecks* peer,
                             std::optional<int> revision) {
  if (t.layout != TerminateLayout::Rfc5040 || t.layer > 1) return {};
  const Cause claim{t.layer, t.etype, t.error_code};
  const bool visible = claim == kInvalidQn || claim == kTaggedDdpVersion ||
                       claim == kUntaggedDdpVersion || claim == kRdmapVersion ||
                       claim == kUnexpectedOpcode;
  const std::span<const std::uint8_t> quoted = quoted_header(t);
  const UlpChecks::SegmentError* first = peer ? peer->first_error() : nullptr;
  if (first) {
    const bool named =
        std::find(first->causes.begin(), first->causes.end(), claim) != first->causes.end();
    const std::string error = fmt::format("{} at seq {} (frame {})", info(first->id).name,
                                          first->fpdu.seq.value(), first->fpdu.frame);
    std::string answers;
    for (const Cause& c : first->causes)
      answers += (answers.empty() ? "" : " or ") + cause_words(c);
    if (!quoted.empty() && same_header(first->fpdu, quoted)) {
      if (!visible || named) return {};
      return fmt::format(
          "it names {}, but the segment it quotes shows {}, which a conforming "
          "receiver names {}",
          cause_words(claim), error, answers);
    }
    if (!quoted.empty()) {
      const UlpChecks::RecentFpdu* r = peer->find_quoted(quoted);
      if (r && r->seq.is_after(first->fpdu.seq)) {
        return fmt::format(
            "it quotes the segment at seq {} (frame {}), sent after the first one in "
            "error, {}: DDP drops every segment after it (RFC 5041 7.1) and the "
            "Terminate names the first (RFC 5040 7.1 rule 4)",
            r->seq.value(), r->frame, error);
      }
    } else if (visible && !named && first->all_seen) {
      return fmt::format(
          "it names {}, but the first error the capture shows in its peer's "
          "segments (every one seen) is {}, which a conforming receiver names {}",
          cause_words(claim), error, answers);
    }
  }
  return quoted.empty() ? std::string() : header_contradiction(claim, quoted, revision);
}

}  // namespace

void UlpChecks::check_terminate(const FpduEvent& fpdu, const UlpContext& context,
                                const TerminatePeer& peer, std::vector<Finding>& out) const {
  // A Terminate whose CRC failed is none its receiver takes (RFC 5044 8), nor one mpa-check
  // can read: the octets may be anything (see check()).
  if (fpdu.crc_status == CrcStatus::Bad) return;
  const auto t = decode_terminate(fpdu.ulpdu_head, context.siw_sender);
  if (!t) return;
  // The FPDU it blames: the one whose DDP header the Terminate quotes (RFC 5040 4.8, D bit).
  const RecentFpdu* blamed = nullptr;
  if (!t->terminated_ddp_header.empty() && peer.checks)
    blamed = peer.checks->find_quoted(t->terminated_ddp_header);
  const std::string blame = blamed ? fmt::format("; it quotes the FPDU at frame {} (seq {})",
                                                 blamed->frame, blamed->seq.value())
                                   : std::string();
  auto add = [&](DiagId id, std::string message) {
    out.push_back(make_finding(id, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
                               std::move(message)));
  };
  const std::string_view stack = layout_stack(t->layout);
  add(DiagId::RdmapTerminate,
      fmt::format("{} sent a Terminate{}: {}{}", to_string(context.direction),
                  stack.empty() ? std::string() : fmt::format(" in {}'s layout", stack),
                  describe(*t), blame));
  if (std::string note = encoding_note(*t, &fpdu.ulpdu_head[kDdpUntaggedHeaderSize]);
      !note.empty()) {
    add(DiagId::RdmapTerminateEncoding, std::move(note));
  }
  if (std::string undefined = undefined_terminate_values(*t); !undefined.empty()) {
    add(DiagId::RdmapTerminateInvalid, "Terminate Control names " + undefined);
  }
  if (t->reserved != 0) {
    add(DiagId::RdmapReservedNonzero,
        fmt::format("Terminate at seq {}: the 13 Reserved bits after its Terminate Control are "
                    "0x{:04x} (RFC 5040 4.8: zero on transmit)",
                    fpdu.header_seq.value(), t->reserved));
  }
  if (std::string why = ulp_disagreement(*t, peer.checks, context.revision); !why.empty()) {
    add(DiagId::RdmapTerminateDisagrees, fmt::format("Terminate {}: {}", describe(*t), why));
  }
  const auto code = t->mpa_error();
  if (!code) return;
  const std::string why = disagreement(*code, *t, blamed, context, peer);
  if (!why.empty()) {
    add(DiagId::RdmapTerminateDisagrees,
        fmt::format("Terminate MPA error {} ({}){}: {}", number(*code), describe(*code),
                    stack.empty() ? std::string() : fmt::format(", read in {}'s layout", stack),
                    why));
  }
}

}  // namespace mpa
