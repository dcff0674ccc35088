// The fault recipes (see faults.h).
#include "faults.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "conversation.h"
#include "mpa/diagnostics.h"

namespace mpa::synth {
namespace {

// ---- helpers

void ensure_messages(PeerConfig& p, std::size_t count) {
  const std::vector<MessageSpec> more = mixed_messages(count, kDefaultSizes);
  for (std::size_t i = p.messages.size(); i < count; ++i) p.messages.push_back(more[i]);
}

MessageSpec send_of(std::size_t size) {
  MessageSpec m;
  m.kind = MessageKind::Send;
  m.size = size;
  return m;
}

void insert_initiator_message(Scenario& s, std::size_t at, MessageSpec m) {
  ensure_messages(s.initiator, at);
  s.initiator.messages.insert(s.initiator.messages.begin() + static_cast<std::ptrdiff_t>(at), m);
}

// The receiver of a broken startup frame closes the connection instead of going on.
void closes_after_request(Scenario& s) {
  s.edit_plan = [](Plan& p) {
    close_instead_from(p, find_turn(p, Dir::Responder, Phase::Startup), Dir::Responder);
  };
}
void closes_after_reply(Scenario& s) {
  s.edit_plan = [](Plan& p) {
    close_instead_from(p, find_turn(p, Dir::Initiator, Phase::FullOperation), Dir::Initiator);
  };
}

void markers_to_responder(Scenario& s) {
  s.responder.frame.m = true;
  s.markers_to_responder.reset();
}

// ---- startup

void key_invalid(Scenario& s) {
  s.responder.frame.key = "MPA ID Rxp Frame";
  closes_after_reply(s);
}
void unexpected_request(Scenario& s) {
  s.responder.frame.kind = FrameKind::Request;
  closes_after_reply(s);
}
void unexpected_reply(Scenario& s) {
  s.edit_plan = [](Plan& p) {
    p.turns.erase(p.turns.begin() +
                  static_cast<std::ptrdiff_t>(find_turn(p, Dir::Initiator, Phase::Startup)));
    close_instead_from(p, find_turn(p, Dir::Initiator, Phase::FullOperation), Dir::Initiator);
  };
}
void pd_length_too_large(Scenario& s) {
  s.initiator.frame.private_data_length = 600;
  closes_after_request(s);
}
void pd_length_mismatch(Scenario& s) {
  s.initiator.frame.private_data_length = 16;
  s.initiator.frame.pd_length_field = 8;
  closes_after_request(s);
}
void revision_unsupported(Scenario& s) {
  set_revision(s, 1);
  s.initiator.frame.revision = 7;
  closes_after_request(s);
}
void revision_0(Scenario& s) { set_revision(s, 0); }
void revision_2(Scenario& s) { set_revision(s, 2); }
void vendor_revision(Scenario& s) { set_revision(s, 129); }
void reserved_bits_set(Scenario& s) { s.initiator.frame.reserved = 0x04; }
void reject_bit_in_request(Scenario& s) { s.initiator.frame.r = true; }
void connection_rejected(Scenario& s) {
  s.responder.frame.r = true;
  closes_after_reply(s);
}
void enhanced_without_rev2(Scenario& s) {
  set_revision(s, 1);
  s.initiator.frame.s = true;
  s.initiator.frame.enhanced = EnhancedBlock{false, false, false, false, 16, 16};
  s.initiator.frame.private_data_length =
      std::max<std::uint16_t>(s.initiator.frame.private_data_length, 4);
}
void enhanced_data_missing(Scenario& s) {
  set_revision(s, 2);
  s.initiator.frame.enhanced.reset();
  s.initiator.frame.private_data_length = 2;
  closes_after_request(s);
}
void enhanced_mismatch(Scenario& s) {
  set_revision(s, 2);
  StartupFrameSpec& request = s.initiator.frame;
  request.revision = 1;
  request.s = false;
  request.enhanced.reset();
  request.private_data_length = 0;
  closes_after_reply(s);
}
void rtr_flags_without_p2p(Scenario& s) {
  set_revision(s, 2);
  s.initiator.frame.enhanced->send_rtr = true;
}
void p2p_mismatch(Scenario& s) {
  set_revision(s, 2);
  make_peer_to_peer(s, MessageKind::SendRtr);
  s.responder.frame.enhanced->peer_to_peer = false;
  s.responder.frame.enhanced->send_rtr = false;
  closes_after_reply(s);
}
// Offers Write only; the Reply names Read only (its own, as RFC 6581 9.2 allows).
void rtr_not_shared(Scenario& s) {
  set_revision(s, 2);
  make_peer_to_peer(s, MessageKind::ReadRtr);
  EnhancedBlock& offer = *s.initiator.frame.enhanced;
  offer.send_rtr = offer.read_rtr = false;
}
TerminateSpec mpa_terminate(std::uint8_t code) {
  TerminateSpec t;
  t.layer = 2;  // LLP
  t.etype = 0;  // MPA
  t.code = code;
  return t;
}
// A Terminate (RFC 5040 4.8) carrying `t`. (Made here, once, and emplaced: g++ 12 -O2 took a
// TerminateSpec assigned into the optional of a MessageSpec then copied for maybe-uninitialized.)
MessageSpec terminate_message(TerminateSpec t) {
  MessageSpec m;
  m.kind = MessageKind::Terminate;
  m.terminate.emplace(std::move(t));
  return m;
}
void initiator_terminates(Scenario& s, TerminateSpec t);
// The Initiator cannot send the Responder's RTR: Terminate (MPA error 7), then it closes.
void no_matching_rtr(Scenario& s) {
  rtr_not_shared(s);
  initiator_terminates(s, mpa_terminate(7));
  s.expected.notes.push_back("rdmap.terminate");
}
// The Initiator cannot raise its IRD to the Responder's ORD: Terminate (MPA error 6), then it
// closes.
void insufficient_ird(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, 16, 16, 16, 64);
  initiator_terminates(s, mpa_terminate(6));
  s.expected.notes.push_back("rdmap.terminate");
}
// ... the same failures, the Initiator closing without the Terminate (or with another code).
void negotiation_terminate_missing(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, 16, 16, 16, 64);
  closes_after_reply(s);
  s.expected.findings.push_back("startup.insufficient-ird");
}
void negotiation_terminate_missing_no_rtr(Scenario& s) {
  rtr_not_shared(s);
  closes_after_reply(s);
  s.expected.notes.push_back("startup.no-matching-rtr");
}
void negotiation_terminate_wrong_code(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, 16, 16, 16, 64);
  initiator_terminates(s, mpa_terminate(5));
  s.expected.findings.push_back("startup.insufficient-ird");
  s.expected.notes.push_back("rdmap.terminate");
}
// A peer-to-peer Reply with no RTR option; the Initiator terminates (MPA error 7) and closes.
void reply_without_rtr(Scenario& s) {
  set_revision(s, 2);
  make_peer_to_peer(s, MessageKind::WriteRtr);
  s.responder.frame.enhanced->write_rtr = false;
  initiator_terminates(s, mpa_terminate(7));
  s.expected.notes.push_back("startup.no-matching-rtr");
  s.expected.notes.push_back("rdmap.terminate");
}
void initiator_data_before_reply(Scenario& s) {
  s.initiator.frame.m = s.responder.frame.m = false;
  s.markers_to_responder = s.markers_to_initiator = false;
  s.edit_plan = [](Plan& p) {
    const std::size_t first = find_turn(p, Dir::Initiator, Phase::FullOperation);
    Turn early = p.turns[first];
    early.chunks.resize(1);
    early.policy = SegmentationPolicy{};
    p.turns[first].chunks.erase(p.turns[first].chunks.begin());
    if (p.turns[first].chunks.empty())
      p.turns.erase(p.turns.begin() + static_cast<std::ptrdiff_t>(first));
    p.turns.insert(
        p.turns.begin() + static_cast<std::ptrdiff_t>(find_turn(p, Dir::Responder, Phase::Startup)),
        early);
  };
}
// The Initiator sends its first FPDUs before the Reply reached it; the capture, nearer the
// Responder, holds the Reply first, and the Initiator's segments acknowledge none of it.
void initiator_data_before_reply_crossed(Scenario& s) {
  s.edit_plan = [](Plan& p) {
    p.turns[find_turn(p, Dir::Responder, Phase::Startup)].peer_acks = false;
    p.turns[find_turn(p, Dir::Initiator, Phase::FullOperation)].crossed = true;
  };
}
// The Responder sends its first FPDUs before the Initiator's first FPDU reached it; the
// capture, nearer the Initiator, holds the Initiator's first.
void responder_sent_first_crossed(Scenario& s) {
  s.edit_plan = [](Plan& p) {
    const std::size_t first = find_turn(p, Dir::Initiator, Phase::FullOperation);
    p.turns[first].peer_acks = false;
    p.turns[find_turn(p, Dir::Responder, Phase::FullOperation)].crossed = true;
  };
}
void streaming_prefix(Scenario& s) { s.streaming_prefix = 64; }
void no_reply(Scenario& s) {
  s.close = Ending::None;
  s.edit_plan = [](Plan& p) { p.turns.resize(find_turn(p, Dir::Initiator, Phase::Startup) + 1); };
}
void private_data_over_256(Scenario& s) { s.initiator.frame.private_data_length = 300; }
void no_negotiation_not_echoed(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, 16, kNoNegotiation, 5, 16);
}

// A Request whose PD_Length overstates its private data, answered all the same.
void pd_length_overstated_answered(Scenario& s) {
  s.initiator.frame.private_data_length = 8;
  s.initiator.frame.pd_length_field = 16;
  s.expected.findings.push_back("startup.reply-before-private-data");
}
// The Reply's key is damaged; the Initiator neither closes nor sends, and the Responder,
// after waiting a second, closes.
void invalid_reply_kept_open(Scenario& s) {
  s.responder.frame.key = "MPA ID Rxp Frame";
  s.expected.findings.push_back("startup.key-invalid");
  s.edit_plan = [](Plan& p) {
    close_instead_from(p, find_turn(p, Dir::Initiator, Phase::FullOperation), Dir::Responder,
                       Ending::Fin, 1000000);
  };
}
// A Request with Rev 7 (improperly formatted); the Responder neither answers nor closes, and
// the Initiator, after waiting a second, closes.
void invalid_request_kept_open(Scenario& s) {
  set_revision(s, 1);
  s.initiator.frame.revision = 7;
  s.expected.findings.push_back("startup.revision-unsupported");
  s.edit_plan = [](Plan& p) {
    close_instead_from(p, find_turn(p, Dir::Responder, Phase::Startup), Dir::Initiator, Ending::Fin,
                       1000000);
  };
}
// A valid Rev 1 Request; the Responder closes without a Reply.
void request_closed_without_reply(Scenario& s) {
  set_revision(s, 1);
  closes_after_request(s);
}
// A Rev 1 Request with M=1, rejected (R=1); the Initiator closes.
void markers_refused(Scenario& s) {
  set_revision(s, 1);
  s.initiator.frame.m = true;
  s.responder.frame.r = true;
  closes_after_reply(s);
  s.expected.notes.push_back("startup.connection-rejected");
}
// ... accepted, asking for markers (M=1); the Initiator's first FPDU is a Terminate (RDMAP,
// local catastrophic error), then it closes.
void markers_refused_by_terminate(Scenario& s);
// ... closed by the Responder without a Reply.
void markers_refused_by_close(Scenario& s) {
  set_revision(s, 1);
  s.initiator.frame.m = true;
  closes_after_request(s);
  s.expected.findings.push_back("startup.request-closed-without-reply");
}
// A Reply that accepts and asks for markers (M=1); the Initiator closes without an FPDU.
void markers_refused_by_initiator(Scenario& s) {
  set_revision(s, 1);
  markers_to_responder(s);
  closes_after_reply(s);
}
// A Reject (R=1), and both sides send their FPDUs all the same.
void fpdu_after_reject(Scenario& s) {
  s.responder.frame.r = true;
  s.expected.notes.push_back("startup.connection-rejected");
}
// A Reject (R=1) with M=1 and C=1 (the Request M=0, C=0), and both sides go on with
// well-formed FPDUs as if it had accepted: markers in the Initiator's, CRCs both ways.
void fpdu_after_reject_judged(Scenario& s) {
  fpdu_after_reject(s);
  s.initiator.frame.c = false;
  s.responder.frame.m = true;
  s.responder.frame.c = true;
}
// The Reply's key is damaged and the Initiator goes on as if it were valid.
void invalid_reply_ignored(Scenario& s) {
  s.responder.frame.key = "MPA ID Rxp Frame";
  s.expected.findings.push_back("startup.key-invalid");
}
// The Request's 16 octets of private data come in two turns, the Reply between them.
void reply_before_private_data(Scenario& s) {
  s.initiator.frame.private_data_length = 16;
  s.edit_plan = [](Plan& p) {
    const std::size_t request = find_turn(p, Dir::Initiator, Phase::Startup);
    Turn rest = p.turns[request];
    Bytes& whole = p.turns[request].chunks.front().bytes;
    const std::size_t cut = whole.size() - 8;
    rest.chunks.front().bytes.assign(whole.begin() + static_cast<std::ptrdiff_t>(cut), whole.end());
    whole.resize(cut);
    const std::size_t reply = find_turn(p, Dir::Responder, Phase::Startup);
    p.turns.insert(p.turns.begin() + static_cast<std::ptrdiff_t>(reply) + 1, std::move(rest));
  };
}
void invalid_request_answered(Scenario& s) {
  set_revision(s, 1);
  s.initiator.frame.revision = 7;
  s.expected.findings.push_back("startup.revision-unsupported");
}
// ---- startup frames that share a segment, and PD_Lengths that lie (issue 43)

// Moves `dir`'s first FPDU into the segment that carries its startup frame.
void first_fpdu_with_startup_frame(Plan& p, Dir dir) {
  const std::size_t first = find_turn(p, dir, Phase::FullOperation);
  const std::size_t startup = find_turn(p, dir, Phase::Startup);
  if (first == p.turns.size() || startup == p.turns.size()) return;
  p.turns[startup].chunks.push_back(p.turns[first].chunks.front());
  p.turns[startup].policy = SegmentationPolicy{SegmentationPolicy::Kind::Packed};
  p.turns[first].chunks.erase(p.turns[first].chunks.begin());
  if (p.turns[first].chunks.empty())
    p.turns.erase(p.turns.begin() + static_cast<std::ptrdiff_t>(first));
}
// The Request and the Initiator's first FPDU (valid CRC) in one segment: an FPDU sent before
// the Reply (RFC 5044 7.1.2 rule 3), not private data beyond PD_Length.
void request_with_fpdu(Scenario& s) {
  s.edit_plan = [](Plan& p) { first_fpdu_with_startup_frame(p, Dir::Initiator); };
}
// The Reply and the Responder's first FPDU in one segment: sent before the Initiator's first
// FPDU reached it (RFC 5044 7.1.2 rule 4), not private data beyond PD_Length.
void reply_with_fpdu(Scenario& s) {
  s.edit_plan = [](Plan& p) { first_fpdu_with_startup_frame(p, Dir::Responder); };
}
// A Reply whose PD_Length says 16 octets of private data but carries 8 (overstated) or 24
// (understated).
void reply_pd_length_lies(Scenario& s, std::uint16_t sent) {
  s.responder.frame.private_data_length = sent;
  s.responder.frame.pd_length_field = 16;
}
// ... and the Initiator goes on with its FPDUs as if the Reply were valid.
void reply_overstated(Scenario& s) {
  reply_pd_length_lies(s, 8);
  s.expected.findings.push_back("startup.invalid-reply-ignored");
}
void reply_understated(Scenario& s) {
  reply_pd_length_lies(s, 24);
  s.expected.findings.push_back("startup.invalid-reply-ignored");
}
// ... and the Initiator closes (RFC 5044 7.1.2 rule 3: an improperly formatted Reply).
void reply_overstated_closed(Scenario& s) {
  reply_pd_length_lies(s, 8);
  closes_after_reply(s);
}
void reply_understated_closed(Scenario& s) {
  reply_pd_length_lies(s, 24);
  closes_after_reply(s);
}
// ... and the Initiator sends a Terminate (LLP/MPA, error 5: local catastrophic) and closes.
void reply_overstated_terminated(Scenario& s) {
  reply_pd_length_lies(s, 8);
  initiator_terminates(s, mpa_terminate(5));
  s.expected.notes.push_back("rdmap.terminate");
}
// A Request whose PD_Length understates its private data (8 of 16), answered all the same.
void request_understated_answered(Scenario& s) {
  s.initiator.frame.private_data_length = 16;
  s.initiator.frame.pd_length_field = 8;
  s.expected.findings.push_back("startup.invalid-request-answered");
}
// A Request whose PD_Length overstates its private data (8 of 16); the Responder, waiting for
// the rest, closes.
void request_overstated_closed(Scenario& s) {
  s.initiator.frame.private_data_length = 8;
  s.initiator.frame.pd_length_field = 16;
  closes_after_request(s);
}

// The Initiator's own Terminate, then it closes (RFC 6581 9.1: code 6).
void initiator_terminates(Scenario& s, TerminateSpec t) {
  s.initiator.messages = {terminate_message(std::move(t))};
  s.responder.messages.clear();
  s.edit_plan = [](Plan& p) {
    close_instead_from(p, find_turn(p, Dir::Initiator, Phase::FullOperation) + 1, Dir::Initiator);
  };
}
void ord_3fff_not_answering_3fff(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, 16, 16, 16, kNoNegotiation);
  initiator_terminates(s, mpa_terminate(6));  // insufficient IRD resources
  s.expected.notes.push_back("rdmap.terminate");
}
void no_negotiation_unsolicited(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, 16, 16, kNoNegotiation, 16);
}
// RFC 5044 4.4 (2b): both sides asked for no CRCs.
void crc_disabled(Scenario& s) {
  s.initiator.frame.c = false;
  s.responder.frame.c = false;
}
// RFC 6581 9: the Request's IRD/ORD block (IRD 16, ORD 8) with each half little-endian; the
// Reply answers the values meant.
void enhanced_block_little_endian(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, 16, 8, 8, 16);
  s.initiator.frame.enhanced->little_endian = true;
}
// RFC 6581 10: S=1 with nothing to negotiate (A=0, IRD/ORD 0x3FFF), echoed by the Reply.
void enhanced_negotiates_nothing(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, kNoNegotiation, kNoNegotiation, kNoNegotiation, kNoNegotiation);
}

// ---- full operation

// The Responder ends its messages with a Terminate (LLP, MPA, `code`: RFC 5044 8) and closes
// after that turn: how a receiver reacts to a CRC or marker error (RFC 5040 6.2.1), judged
// clean by receiver.* (the messages it sent before may have been queued before the error
// reached it: RFC 5044 8 lets last messages go out first).
void responder_terminates_on_error(Scenario& s, std::uint8_t code) {
  TerminateSpec t;
  t.layer = 2;  // LLP
  t.etype = 0;  // MPA
  t.code = code;
  s.responder.messages.push_back(terminate_message(std::move(t)));
  s.edit_plan = [](Plan& p) {
    std::size_t last = p.turns.size();
    for (std::size_t i = 0; i < p.turns.size(); ++i) {
      if (p.turns[i].dir == Dir::Responder && p.turns[i].phase == Phase::FullOperation) last = i;
    }
    close_instead_from(p, last + 1, Dir::Responder);
  };
  s.expected.notes.push_back("rdmap.terminate");
}

void crc_mismatch(Scenario& s) {
  s.initiator.frame.c = true;
  ensure_messages(s.initiator, 5);
  s.initiator.messages[1].tweaks.corrupt_crc = true;
  s.expected.notes.push_back("fpdu.not-judged-after-error");
  responder_terminates_on_error(s, 2);
}
// A Reject, both sides going on, and the Initiator's second FPDU with a wrong CRC.
void crc_mismatch_after_reject(Scenario& s) {
  crc_mismatch(s);
  fpdu_after_reject(s);
  s.expected.findings.push_back("startup.fpdu-after-reject");
}
// ... the Initiator's first FPDU after the Reject with the wrong CRC.
void first_crc_mismatch_after_reject(Scenario& s) {
  crc_mismatch_after_reject(s);
  s.initiator.messages[1].tweaks.corrupt_crc = false;
  s.initiator.messages[0].tweaks.corrupt_crc = true;
  s.expected.findings.push_back("fpdu.crc-mismatch");
}
// Every Initiator FPDU carries its CRC32c byte-swapped; judging stops at the first.
void crc_miscomputed(Scenario& s) {
  s.initiator.frame.c = true;
  ensure_messages(s.initiator, 5);
  s.initiator_quirks.crc = SenderQuirks::Crc::ByteSwapped;
  s.expected.notes.push_back("fpdu.not-judged-after-error");
  responder_terminates_on_error(s, 2);
}
// CRCs on because the Reply asked (Request C=0, Reply C=1); the Initiator writes zero CRC
// fields all the same, as if they were off.
void crc_miscomputed_zero(Scenario& s) {
  s.initiator.frame.c = false;
  s.responder.frame.c = true;
  ensure_messages(s.initiator, 5);
  s.initiator_quirks.crc = SenderQuirks::Crc::Zero;
  s.expected.notes.push_back("fpdu.not-judged-after-error");
  responder_terminates_on_error(s, 2);
}
// Markers to the Responder; every Initiator FPDU's CRC32c covers other octets than RFC 5044
// 4.4 names (`crc`); judging stops at the first.
void crc_over_other_octets(Scenario& s, SenderQuirks::Crc crc) {
  crc_miscomputed(s);
  markers_to_responder(s);
  s.initiator_quirks.crc = crc;
}
// ... without the markers: the first FPDU (a 1000-octet Send) has a marker inside it too.
void crc_without_markers(Scenario& s) {
  crc_over_other_octets(s, SenderQuirks::Crc::WithoutMarkers);
  s.initiator.messages[0] = send_of(1000);
}
// ... without the marker before ULPDU_Length (full operation opens with one): the first FPDU
// (100 octets) holds no other.
void crc_without_leading_marker(Scenario& s) {
  crc_over_other_octets(s, SenderQuirks::Crc::WithoutLeadingMarker);
  s.initiator.messages[0] = send_of(100);
}
// ... over the ULPDU alone (no markers: none asked for).
void crc_ulpdu_only(Scenario& s) {
  crc_miscomputed(s);
  s.initiator_quirks.crc = SenderQuirks::Crc::UlpduOnly;
}
void pad_nonzero(Scenario& s) {
  ensure_messages(s.initiator, 4);
  s.initiator.messages[1] = send_of(21);  // ULPDU 39: 3 pad octets
  s.initiator.messages[1].tweaks.pad_fill = 0xA5;
}
void ulpdu_length_too_large(Scenario& s) {
  MessageSpec big = send_of(65000 - kUntaggedHeader);
  big.unsplit = true;
  insert_initiator_message(s, 1, big);
}
void ulpdu_length_zero(Scenario& s) {
  MessageSpec empty;
  empty.kind = MessageKind::EmptyUlpdu;
  insert_initiator_message(s, 1, empty);
}
void exceeds_mulpdu(Scenario& s) {
  s.initiator.tcp.mss = s.responder.tcp.mss = 1460;
  MessageSpec big = send_of(4000 - kUntaggedHeader);
  big.unsplit = true;
  insert_initiator_message(s, 1, big);
  s.allow_oversize = true;  // captured before segmentation offload: one 4000-octet segment
}
void not_segment_aligned(Scenario& s) {
  s.segmentation = SegmentationPolicy{};
  ensure_messages(s.initiator, 4);
  s.initiator.messages[1] = send_of(600);
  s.initiator.messages[1].tweaks.split_across_segments = true;
}
void responder_sent_first(Scenario& s) {
  s.edit_plan = [](Plan& p) {
    const std::size_t r = find_turn(p, Dir::Responder, Phase::FullOperation);
    const std::size_t i = find_turn(p, Dir::Initiator, Phase::FullOperation);
    if (r < i) return;
    Turn early = p.turns[r];
    p.turns.erase(p.turns.begin() + static_cast<std::ptrdiff_t>(r));
    p.turns.insert(p.turns.begin() + static_cast<std::ptrdiff_t>(i), early);
  };
}
void rtr_missing(Scenario& s) {
  set_revision(s, 2);
  make_peer_to_peer(s, MessageKind::SendRtr);
  s.initiator.messages.front() = send_of(100);
}

void marker_tweak(Scenario& s, const MarkerTweak& tweak) {
  markers_to_responder(s);
  ensure_messages(s.initiator, 4);
  s.initiator.messages[1] = send_of(1000);  // spans a marker position
  s.initiator.messages[1].tweaks.marker = tweak;
}
void fpduptr_mismatch(Scenario& s) {
  marker_tweak(s, {0, 8, 0});
  responder_terminates_on_error(s, 3);
}
void marker_reserved_nonzero(Scenario& s) { marker_tweak(s, {0x0100, 0, 0}); }
void fpduptr_low_bits(Scenario& s) { marker_tweak(s, {0, 0, 0x0002}); }
void marker_unexpected(Scenario& s) {
  s.initiator.frame.m = s.responder.frame.m = false;
  s.markers_to_initiator.reset();
  s.markers_to_responder = true;
}

// ---- connection and capture

void lost_mid_fpdu(Scenario& s) {
  ensure_messages(s.initiator, 6);
  s.edit_plan = [](Plan& p) {
    std::size_t at = find_turn(p, Dir::Initiator, Phase::FullOperation);
    for (std::size_t i = at + 1; i < p.turns.size(); ++i) {
      if (p.turns[i].dir == Dir::Initiator && p.turns[i].phase == Phase::FullOperation) {
        at = i;
        break;
      }
    }
    Turn& t = p.turns[at];
    t.chunks.resize(std::min<std::size_t>(t.chunks.size(), 2));
    t.chunks.back().bytes.resize(t.chunks.back().bytes.size() / 2 + 1);
    t.ending = Ending::Fin;
    p.turns.resize(at + 1);
  };
}
void lost_mid_startup(Scenario& s) {
  s.edit_plan = [](Plan& p) {
    const std::size_t at = find_turn(p, Dir::Responder, Phase::Startup);
    p.turns[at].chunks.front().bytes.resize(10);
    p.turns[at].ending = Ending::Fin;
    p.turns.resize(at + 1);
  };
}
void retransmission_mismatch(Scenario& s) { s.effects.mismatch = {{Dir::Initiator, 2}}; }
// Lost downstream and resent with an octet changed after 80 KiB more: further back than the
// last 64 KiB mpa-check keeps octet by octet, yet unacknowledged, so TCP may still resend it
// (window scale 5: windows of 2 MiB).
void retransmission_mismatch_far_back(Scenario& s) {
  s.initiator.tcp.window_scale = s.responder.tcp.window_scale = 5;
  s.initiator.messages = mixed_messages(24, {4000, 3000, 5000});
  s.effects.late = LateRetransmission{{Dir::Initiator, 2}, 80u << 10, true};
}
// Lost downstream and resent unchanged after more than 17 MiB (window scale 9: 32 MiB): the
// Responder acknowledges nothing beyond it meanwhile, further back than the 16 MiB the
// check keeps digests for.
void retransmission_check_stopped(Scenario& s) {
  s.initiator.tcp.window_scale = s.responder.tcp.window_scale = 9;
  s.initiator.messages = mixed_messages(320, {60000});
  s.effects.late = LateRetransmission{{Dir::Initiator, 2}, 17u << 20, false};
}
void capture_gap(Scenario& s) { s.effects.drop = {{Dir::Initiator, 2}}; }
void capture_truncated(Scenario& s) {
  s.snaplen = 200;
  s.initiator.messages = mixed_messages(6, {980});
  s.responder.messages = mixed_messages(6, {980});
}
void starts_mid_connection(Scenario& s) {
  s.initiator.frame.m = s.responder.frame.m = true;
  s.initiator.frame.c = true;
  s.segmentation = SegmentationPolicy{};
  s.initiator.messages = mixed_messages(12, {300, 1200, 40, 700});
  s.responder.messages = mixed_messages(12, {500, 90, 1300});
  s.effects.start_at = SegmentRef{Dir::Initiator, 3};
  s.expected.notes = {"capture.startup-not-seen", "capture.parameters-inferred"};
}
void startup_frame_cut(Scenario& s) {
  s.segmentation = *SegmentationPolicy::parse("middlebox:7");
  s.effects.end_inside = EndInside{CaptureEdge::Request, 2};  // 14 octets: inside the key
}
void ip_fragment(Scenario& s) {
  s.ipv6 = false;
  s.effects.fragment_lost = {{Dir::Initiator, 3}};  // a 1000-octet Send
}
void ip_fragment_overlap_mismatch(Scenario& s) {
  s.ipv6 = false;
  s.effects.fragment_overlap = {{Dir::Initiator, 3}};
}
void resynchronised(Scenario& s) {
  markers_to_responder(s);
  s.initiator.frame.c = true;
  s.initiator.messages = mixed_messages(16, {700, 1300, 300, 2000, 64});
  s.effects.drop = {{Dir::Initiator, 6}};
  s.expected.notes.push_back("capture.gap");
}

// ---- the receiver's reaction to a CRC or marker error (RFC 5044 4.4, 6, 8)

MessageSpec read_request_of(std::size_t size) {
  MessageSpec m;
  m.kind = MessageKind::ReadRequest;
  m.size = size;
  return m;
}

// The Initiator's first (and only) turn: a Send, `bad` with a wrong CRC, a Send.
void initiator_sends_bad_crc(Scenario& s, MessageSpec bad) {
  s.initiator.frame.c = true;
  s.batch = 3;
  bad.tweaks.corrupt_crc = true;
  s.initiator.messages = {send_of(100), bad, send_of(64)};
  s.expected.findings.push_back("fpdu.crc-mismatch");
  s.expected.notes.push_back("fpdu.not-judged-after-error");
}
// The Responder's first turn, after it acknowledged the Initiator's.
void responder_sends(Scenario& s, std::vector<MessageSpec> messages) {
  s.responder.messages = std::move(messages);
}
MessageSpec write_of(std::size_t size) {
  MessageSpec m;
  m.kind = MessageKind::Write;
  m.size = size;
  return m;
}

// The corrupted RDMA Read Request is answered with its Read Response.
void invalid_fpdu_answered(Scenario& s) {
  initiator_sends_bad_crc(s, read_request_of(1000));
  MessageSpec response;
  response.kind = MessageKind::ReadResponse;
  response.size = 1000;
  responder_sends(s, {response, send_of(200)});
}
// The Responder goes on with its own Sends and Writes; the Initiator closes, the Responder's
// FIN follows: no Terminate.
void error_ignored(Scenario& s) {
  initiator_sends_bad_crc(s, send_of(300));
  responder_sends(s, {send_of(300), write_of(500), send_of(40)});
}
// The same after an FPDUPTR that disagrees with ULPDU_Length (MPA error 3).
void error_ignored_marker(Scenario& s) {
  marker_tweak(s, {0, 8, 0});
  s.batch = 3;
  s.initiator.messages.resize(3);
  s.expected.findings.push_back("marker.fpduptr-mismatch");
  s.expected.notes.push_back("fpdu.not-judged-after-error");
  responder_sends(s, {send_of(300), write_of(500), send_of(40)});
}
// The Responder closes at once, sending nothing (no Terminate).
void closed_after_error_with(Scenario& s, Ending how) {
  initiator_sends_bad_crc(s, send_of(300));
  s.responder.messages.clear();
  s.edit_plan = [how](Plan& p) {
    close_instead_from(p, find_turn(p, Dir::Initiator, Phase::FullOperation) + 1, Dir::Responder,
                       how);
  };
}
void closed_after_error(Scenario& s) { closed_after_error_with(s, Ending::Fin); }
void closed_after_error_rst(Scenario& s) { closed_after_error_with(s, Ending::Rst); }
// The Initiator's first turn (two FPDUs) is acknowledged; the Responder takes none of its
// second turn (two more) and closes (FIN) at once, sending nothing: it refused the first turn's
// second FPDU, whose only oddity (the variant's) is legal input.
void refuses_second_fpdu(Scenario& s) {
  s.batch = 2;
  s.initiator.messages = {send_of(100), send_of(21), send_of(64), send_of(200)};
  s.responder.messages.clear();
  s.edit_plan = [](Plan& p) {
    const std::size_t first = find_turn(p, Dir::Initiator, Phase::FullOperation);
    p.turns[first + 1].peer_acks = false;
    close_instead_from(p, first + 2, Dir::Responder);
  };
}
// ... 3 pad octets 0xA5 (RFC 5044 4.1: the receiver ignores the pad).
void legal_fpdu_refused(Scenario& s) {
  refuses_second_fpdu(s);
  s.initiator.messages[1].tweaks.pad_fill = 0xA5;  // ULPDU 39: 3 pad octets
  s.expected.findings.push_back("fpdu.pad-nonzero");
}
// ... a marker that is legal input, written so by `tweak` and named by `finding`.
void legal_fpdu_refused_with_marker(Scenario& s, MarkerTweak tweak, const char* finding) {
  refuses_second_fpdu(s);
  markers_to_responder(s);
  s.initiator.messages[1] = send_of(1000);  // spans a marker position
  s.initiator.messages[1].tweaks.marker = tweak;
  s.expected.findings.push_back(finding);
}
// ... a marker whose reserved field is 0x0100 (RFC 5044 4.2: ignored on receipt).
void legal_fpdu_refused_marker(Scenario& s) {
  legal_fpdu_refused_with_marker(s, MarkerTweak{0x0100, 0, 0}, "marker.reserved-nonzero");
}
// ... a marker whose FPDUPTR has bit 0x0002 set (RFC 5044 4.2, 4.3: taken as zero).
void legal_fpdu_refused_low_bits(Scenario& s) {
  legal_fpdu_refused_with_marker(s, MarkerTweak{0, 0, 0x0002}, "marker.fpduptr-low-bits");
}
// ... a marker whose FPDUPTR reaches back across the wrap of sequence numbers (RFC 5044 4.3):
// the Initiator's sequence numbers wrap 300 octets into full operation, between the header of
// its second FPDU (at 128) and the marker at 512.
void legal_fpdu_refused_seq_wrap(Scenario& s) {
  refuses_second_fpdu(s);
  markers_to_responder(s);
  s.initiator.messages[1] = send_of(1000);
  s.wrap_after = 300;
}
// ... split over two TCP segments (RFC 5044 5.1: receivers cope when alignment is lost).
void legal_fpdu_refused_split(Scenario& s) {
  refuses_second_fpdu(s);
  s.segmentation = SegmentationPolicy{};
  s.initiator.messages[1] = send_of(600);
  s.initiator.messages[1].tweaks.split_across_segments = true;
  s.expected.notes.push_back("fpdu.not-segment-aligned");
}
// ... CRCs off (C=0 both ways): the Initiator's first FPDU has a CRC field of zero, not its
// CRC32c, which the receiver MUST NOT check (RFC 5044 4.1, 4.4); the Responder refuses it.
void legal_fpdu_refused_crc_off(Scenario& s) {
  refuses_second_fpdu(s);
  s.initiator.frame.c = s.responder.frame.c = false;
  s.expected.notes.push_back("startup.crc-disabled");
}
// Markers to the Responder; the marker opening full operation, before the Initiator's RDMA Read
// Request, has reserved field 0x0100 (legal); the Responder answers the Initiator's next Read
// Request, never this one (it dropped the FPDU).
void legal_fpdu_refused_read(Scenario& s) {
  markers_to_responder(s);
  s.batch = 3;
  MessageSpec odd = read_request_of(100);
  odd.tweaks.every_marker.reserved = 0x0100;  // the leading marker: only it
  s.initiator.messages = {odd, send_of(100), read_request_of(200)};
  s.expected.findings.push_back("marker.reserved-nonzero");
  MessageSpec response;
  response.kind = MessageKind::ReadResponse;
  response.size = 200;
  response.skip_reads = 1;
  s.responder.messages = {response};
  // What the refusal leaves on RDMAP: a later Read answered while this one never is.
  s.expected.findings.push_back("rdmap.read-response-out-of-order");
}
// The conformant reaction to a corrupted Read Request: a Terminate, no Read Response.
void read_request_terminated(Scenario& s) {
  initiator_sends_bad_crc(s, read_request_of(1000));
  s.responder.messages.clear();  // the Terminate at once
  responder_terminates_on_error(s, 2);
}

// ---- DDP/RDMAP, Terminate, interop hints

// Linux siw as the Responder sees it: Rev 2, S=1, M=0, C=0, private data only the IRD/ORD
// block, the Reply echoing the Request's flags.
void siw_like(Scenario& s) {
  set_revision(s, 2);
  for (PeerConfig* p : {&s.initiator, &s.responder}) {
    p->frame.m = p->frame.c = false;
    p->frame.private_data_length = 4;
  }
  s.markers_to_responder.reset();
  s.markers_to_initiator.reset();
}

// The Initiator's first turn: a Send, then the RDMA Write the Responder will refuse.
// Returns that Write's DDP header, as a Terminate quotes it.
Bytes initiator_write_header(Scenario& s) {
  s.responder.frame.m = false;
  s.markers_to_responder.reset();
  s.batch = 3;
  ensure_messages(s.initiator, 3);
  s.initiator.messages[0] = send_of(100);
  s.initiator.messages[1].kind = MessageKind::Write;
  s.initiator.messages[1].size = 64;
  const std::vector<Chunk> fpdus = frame_fpdus(s, Dir::Initiator);
  const Bytes& write = fpdus[1].bytes;
  return Bytes(write.begin() + 2, write.begin() + 2 + static_cast<std::ptrdiff_t>(kTaggedHeader));
}

TerminateSpec terminate_of(std::uint8_t layer, std::uint8_t etype, std::uint8_t code) {
  TerminateSpec t;
  t.layer = layer;
  t.etype = etype;
  t.code = code;
  return t;
}

void markers_refused_by_terminate(Scenario& s) {
  set_revision(s, 1);
  markers_to_responder(s);
  initiator_terminates(s, terminate_of(0, 0, 0));
  s.expected.notes.push_back("rdmap.terminate");
}
// The Responder's one message is Terminate `t`, after which it closes (its first turn in full
// operation the last it sends).
void responder_terminates_then_closes(Scenario& s, TerminateSpec t) {
  s.responder.messages = {terminate_message(std::move(t))};
  s.edit_plan = [](Plan& p) {
    close_instead_from(p, find_turn(p, Dir::Responder, Phase::FullOperation) + 1, Dir::Responder);
  };
}
// Rev 2: Request IRD 16, a Reply that rejects (R=1) naming the ORD 64 its ULP needs; the
// Responder sends a Terminate with MPA error 5 (local catastrophic) instead of 6 (RFC 6581 9.1),
// and closes.
void negotiation_terminate_after_reject(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, 16, 16, 16, 64);
  s.responder.frame.r = true;
  s.initiator.messages.clear();
  responder_terminates_then_closes(s, mpa_terminate(5));
  s.expected.notes.push_back("startup.connection-rejected");
}
// The Responder answers the Initiator's first turn with a Terminate, then closes.
void responder_terminates(Scenario& s, TerminateSpec t) {
  t.ddp_header = initiator_write_header(s);
  t.ddp_segment_length = static_cast<std::uint16_t>(kTaggedHeader + 64);
  responder_terminates_then_closes(s, std::move(t));
}

void ddp_version_mismatch(Scenario& s) { s.initiator_ddp_version = s.ddp_version() == 0 ? 1 : 0; }
void ddp_ulpdu_too_short(Scenario& s) {
  MessageSpec m;
  m.kind = MessageKind::TruncatedDdp;
  insert_initiator_message(s, 1, m);
}
// Layer 0 (RDMAP), EType 1 (remote protection error), code 0x00 (invalid STag).
void rdmap_terminate(Scenario& s) { responder_terminates(s, terminate_of(0, 1, 0x00)); }
// Layer 2 (LLP), EType 0 (MPA), code 2 (CRC error) about an FPDU whose CRC is right.
void terminate_disagrees(Scenario& s) {
  s.initiator.frame.c = true;
  responder_terminates(s, terminate_of(2, 0, 2));
}
// siw answers a real CRC error with Terminate LLP/MPA/code 2 in its own layout; the CRC
// error is part of the verdict.
void terminate_encoding(Scenario& s) {
  siw_like(s);
  s.initiator.frame.c = s.responder.frame.c = true;  // the Reply echoes the Request's flags
  TerminateSpec t = terminate_of(2, 0, 2);
  t.siw_layout = true;
  responder_terminates(s, t);
  s.initiator.messages[1].tweaks.corrupt_crc = true;
  s.expected.findings.push_back("fpdu.crc-mismatch");
}
// Chelsio cxgb4 / Intel irdma answer a real CRC error with Terminate LLP/MPA/CRC written as
// layer 2, error type 3 (first octet 0x23); the claim is right, only the layout is named.
void terminate_encoding_cxgb_irdma(Scenario& s) {
  set_revision(s, 2);
  s.initiator.frame.c = s.responder.frame.c = true;
  TerminateSpec t = terminate_of(2, 0, 2);
  t.cxgb_irdma_layout = true;
  responder_terminates(s, t);
  s.initiator.messages[1].tweaks.corrupt_crc = true;
  s.expected.findings.push_back("fpdu.crc-mismatch");
}
// The same layout blaming a CRC error on a connection without CRCs: judged as a CRC claim.
void terminate_disagrees_cxgb_irdma(Scenario& s) {
  set_revision(s, 2);
  s.initiator.frame.c = s.responder.frame.c = false;
  TerminateSpec t = terminate_of(2, 0, 2);
  t.cxgb_irdma_layout = true;
  responder_terminates(s, t);
  s.expected.findings.push_back("rdmap.terminate-encoding");
}
// siw answers an RDMA Read Request cut short (12 of its 28 header octets) with Terminate
// LLP/MPA code 3 in its own layout: siw's code for an FPDU whose length does not fit its
// headers, which agrees with what the capture shows (no marker claim).
void ulpdu_too_short_siw_terminate(Scenario& s) {
  siw_like(s);
  s.responder.frame.m = false;
  s.batch = 3;
  MessageSpec cut;
  cut.kind = MessageKind::TruncatedReadRequest;
  s.initiator.messages = {send_of(100), cut};
  const std::vector<Chunk> fpdus = frame_fpdus(s, Dir::Initiator);
  const Bytes& quoted = fpdus[1].bytes;
  TerminateSpec t = terminate_of(2, 0, 3);
  t.siw_layout = true;
  t.ddp_header =
      Bytes(quoted.begin() + 2, quoted.begin() + 2 + static_cast<std::ptrdiff_t>(kUntaggedHeader));
  t.ddp_segment_length = static_cast<std::uint16_t>(kUntaggedHeader + 12);
  responder_terminates_then_closes(s, std::move(t));
  s.expected.findings.push_back("rdmap.terminate-encoding");
  s.expected.notes.push_back("rdmap.terminate");
}
MessageSpec message_of(MessageKind kind, std::size_t size) {
  MessageSpec m;
  m.kind = kind;
  m.size = size;
  return m;
}
// Rev 2: the Responder declares IRD 2 (and the Initiator ORD 2 is all it may use), yet the
// Initiator sends three RDMA Read Requests before the first Read Response; the Responder
// answers all three.
void ird_exceeded(Scenario& s) {
  set_revision(s, 2);
  set_ird_ord(s, 4, 2, 2, 2);
  s.batch = 8;
  s.initiator.messages = {message_of(MessageKind::ReadRequest, 600),
                          message_of(MessageKind::ReadRequest, 600),
                          message_of(MessageKind::ReadRequest, 600), send_of(100)};
  s.responder.messages = {message_of(MessageKind::ReadResponse, 600),
                          message_of(MessageKind::ReadResponse, 600),
                          message_of(MessageKind::ReadResponse, 600)};
}
// ---- DDP Stream and RDMAP header faults (lib/src/ulp/ddp_stream.cpp): one Initiator message
// whose DDP segment `segment` has its header edited before framing (the CRC covers the edit).
void set_be32_at(Bytes& u, std::size_t at, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) u[at + i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}
std::uint32_t be32_at(const Bytes& u, std::size_t at) {
  return static_cast<std::uint32_t>(u[at]) << 24 | static_cast<std::uint32_t>(u[at + 1]) << 16 |
         static_cast<std::uint32_t>(u[at + 2]) << 8 | u[at + 3];
}
void edited_initiator_message(Scenario& s, std::size_t at, MessageSpec m, std::size_t segment,
                              std::function<void(Bytes&)> edit) {
  m.edit_ulpdu = [segment, edit](std::size_t i, Bytes& u) {
    if (i == segment) edit(u);
  };
  insert_initiator_message(s, at, std::move(m));
}
constexpr std::size_t kQnAt = 6, kMsnAt = 10, kMoAt = 14, kStagAt = 2;
// RFC 5041 4.1: a reserved bit of the DDP Control field set.
void ddp_reserved_nonzero(Scenario& s) {
  edited_initiator_message(s, 1, send_of(100), 0, [](Bytes& u) { u[0] |= 0x04; });
}
// RFC 5041 4.1: the third message's DDP version differs from the stream's (the revision's).
void ddp_version_changed(Scenario& s) {
  edited_initiator_message(s, 2, send_of(100), 0, [](Bytes& u) { u[0] ^= 0x01; });
  s.expected.findings.push_back("ddp.version-mismatch");
}
// RFC 5041 7.1, RFC 5040 5: the Initiator's last message, a Send, on queue 7 (no Send after
// it, whose MSN would skip the one it took from queue 0).
void ddp_queue_invalid(Scenario& s) {
  ensure_messages(s.initiator, 4);
  MessageSpec m = send_of(100);
  m.edit_ulpdu = [](std::size_t, Bytes& u) { set_be32_at(u, kQnAt, 7); };
  s.initiator.messages.push_back(m);
  // The Responder goes on and closes without the Terminate RFC 5040 7.1 requires.
  s.expected.findings.push_back("receiver.terminate-missing");
}
// RFC 5040 7.1: the last of the Initiator's first three Sends is on queue 7 (RFC 5041 7.1: an
// invalid QN, which every receiver detects); the Responder acknowledges it, sends its own Sends
// and Writes, and closes without a Terminate.
void terminate_missing(Scenario& s) {
  s.batch = 3;
  MessageSpec bad = send_of(300);
  bad.edit_ulpdu = [](std::size_t, Bytes& u) { set_be32_at(u, kQnAt, 7); };
  s.initiator.messages = {send_of(100), send_of(64), bad};
  s.expected.findings.push_back("ddp.queue-invalid");
  responder_sends(s, {send_of(300), write_of(500), send_of(40)});
}
// A Send on queue 7 (RFC 5041 7.1: an invalid QN, which every receiver detects).
MessageSpec send_on_queue_7(std::size_t size) {
  MessageSpec bad = send_of(size);
  bad.edit_ulpdu = [](std::size_t, Bytes& u) { set_be32_at(u, kQnAt, 7); };
  return bad;
}
// RFC 5040 7.1 rule 4: the last of the Initiator's first three Sends is on queue 7 (invalid
// QN); the Responder's Terminate quotes that segment but names an unexpected opcode (RDMAP,
// error type 2, code 0x06) instead of DDP's invalid QN (error type 2, code 0x01), and closes.
void terminate_disagrees_first_error(Scenario& s) {
  s.batch = 3;
  s.initiator.messages = {send_of(100), send_of(64), send_on_queue_7(300)};
  const std::vector<Chunk> fpdus = frame_fpdus(s, Dir::Initiator);
  const Bytes& bad = fpdus[2].bytes;
  TerminateSpec t = terminate_of(0, 2, 0x06);
  t.ddp_header = Bytes(bad.begin() + 2, bad.begin() + 2 + kUntaggedHeader);
  t.ddp_segment_length = static_cast<std::uint16_t>(kUntaggedHeader + 300);
  responder_terminates_then_closes(s, std::move(t));
  s.expected.findings.push_back("ddp.queue-invalid");
}
// RFC 5041 7.1: the Initiator's second message is a Send on queue 7 (invalid QN), its third an
// RDMA Read Request, which the Responder answers with its Read Response: its DDP placed a
// segment sent after the one in error. It closes without a Terminate.
void segment_after_error_placed(Scenario& s) {
  s.batch = 3;
  s.initiator.messages = {send_of(100), send_on_queue_7(64), read_request_of(600)};
  responder_sends(s, {message_of(MessageKind::ReadResponse, 600), send_of(200)});
  s.expected.findings.push_back("ddp.queue-invalid");
  s.expected.findings.push_back("receiver.terminate-missing");
}
// RFC 5040 4.8: the Responder refuses the Initiator's RDMA Write with a Terminate (RDMAP, remote
// protection error, invalid STag) whose Reserved bits are 0x0001, and closes.
void terminate_reserved_nonzero(Scenario& s) {
  TerminateSpec t = terminate_of(0, 1, 0x00);
  t.reserved = 0x0001;
  responder_terminates(s, t);
  s.expected.notes.push_back("rdmap.terminate");
}
// RFC 5040 4.2: the Initiator's second message, an RDMA Read Request, carries 8 octets of ULP
// payload after its header; the Responder answers it.
void rdmap_payload_not_allowed(Scenario& s) {
  s.batch = 3;
  MessageSpec read = read_request_of(600);
  read.edit_ulpdu = [](std::size_t, Bytes& u) { u.resize(u.size() + 8, 0xA5); };
  s.initiator.messages = {send_of(100), read, send_of(64)};
  responder_sends(s, {message_of(MessageKind::ReadResponse, 600), send_of(200)});
}
// RFC 5041 4.3: a Send whose MSN skips three (the next Send's skips back).
void ddp_msn_invalid(Scenario& s) {
  edited_initiator_message(s, 2, send_of(100), 0,
                           [](Bytes& u) { set_be32_at(u, kMsnAt, be32_at(u, kMsnAt) + 3); });
}
// RFC 5041 4.1: a three-segment Send whose last segment lacks the Last flag, then a Send.
void ddp_message_unfinished(Scenario& s) {
  edited_initiator_message(s, 1, send_of(3000), 2, [](Bytes& u) { u[0] &= 0xbf; });
  insert_initiator_message(s, 2, send_of(100));
}
// RFC 5041 5.3 (SHOULD): a three-segment Send whose second segment's MO is 8 too far.
void ddp_segments_out_of_order(Scenario& s) {
  edited_initiator_message(s, 1, send_of(3000), 1,
                           [](Bytes& u) { set_be32_at(u, kMoAt, be32_at(u, kMoAt) + 8); });
  // Its third segment then carries 8 octets the second claimed too: a wrong MO, not only a
  // late one (RFC 5041 5.2), once the next Send leaves the message.
  s.expected.findings.push_back("ddp.mo-invalid");
}
// RFC 5041 5.2: a three-segment Send whose last segment's MO is 8 too far (octets never
// covered), then a Send, which leaves it.
void ddp_mo_invalid(Scenario& s) {
  edited_initiator_message(s, 1, send_of(3000), 2,
                           [](Bytes& u) { set_be32_at(u, kMoAt, be32_at(u, kMoAt) + 8); });
  insert_initiator_message(s, 2, send_of(100));
  s.expected.findings.push_back("ddp.segments-out-of-order");
}
// RFC 5041 5.2: the Initiator's last two messages, zero-length Sends, are one message of two
// empty segments: the first without the Last flag, the second with the first's MSN.
void ddp_zero_length_split(Scenario& s) {
  ensure_messages(s.initiator, 4);
  MessageSpec first = send_of(0);
  first.edit_ulpdu = [](std::size_t, Bytes& u) { u[0] &= 0xbf; };
  MessageSpec second = send_of(0);
  second.edit_ulpdu = [](std::size_t, Bytes& u) { set_be32_at(u, kMsnAt, be32_at(u, kMsnAt) - 1); };
  s.initiator.messages.push_back(first);
  s.initiator.messages.push_back(second);
}
// RFC 5041 4.1: the Initiator's last message, a three-segment Send, lacks its Last flag; the
// connection then closes as usual.
void ddp_message_open_at_close(Scenario& s) {
  ensure_messages(s.initiator, 4);
  MessageSpec m = send_of(3000);
  m.edit_ulpdu = [](std::size_t segment, Bytes& u) {
    if (segment == 2) u[0] &= 0xbf;
  };
  s.initiator.messages.push_back(m);
}
// RFC 5041 4.3: every Send of the Initiator's carries one more than its MSN: the first has MSN
// 2, the others go up by one from there.
void ddp_msn_invalid_initiator_first(Scenario& s) {
  ensure_messages(s.initiator, 4);
  for (MessageSpec& m : s.initiator.messages) {
    if (m.kind != MessageKind::Send) continue;
    m.edit_ulpdu = [](std::size_t, Bytes& u) { set_be32_at(u, kMsnAt, be32_at(u, kMsnAt) + 1); };
  }
}
// RFC 5041 4.1: the capture starts mid-connection, and the Initiator's DDP version is 2.
void ddp_version_two_startup_not_seen(Scenario& s) {
  starts_mid_connection(s);
  s.initiator_ddp_version = 2;
}
// RFC 5040 4.1: without the startup, an Initiator Send whose RDMAP version is 2 (its DDP
// version 1): no MPA revision's.
void rdmap_version_two_startup_not_seen(Scenario& s) {
  starts_mid_connection(s);
  s.initiator.messages[8].edit_ulpdu = [](std::size_t, Bytes& u) {
    u[1] = static_cast<std::uint8_t>((u[1] & 0x3f) | 0x80);
  };
}
// RFC 5041 4.2: a three-segment RDMA Write whose second segment names another STag.
void ddp_stag_changed(Scenario& s) {
  edited_initiator_message(s, 1, message_of(MessageKind::Write, 3000), 1,
                           [](Bytes& u) { set_be32_at(u, kStagAt, be32_at(u, kStagAt) ^ 0x100); });
}
// RFC 5041 5.2: the TO of segment `segment` of a three-segment Initiator RDMA Write (the
// Initiator's second message) moved by `delta`.
constexpr std::size_t kToAt = 6;
void tagged_to_moved(Scenario& s, std::size_t segment, std::int64_t delta) {
  edited_initiator_message(s, 1, message_of(MessageKind::Write, 3000), segment, [delta](Bytes& u) {
    const std::uint64_t to = std::uint64_t{be32_at(u, kToAt)} << 32 | be32_at(u, kToAt + 4);
    const std::uint64_t moved = to + static_cast<std::uint64_t>(delta);
    set_be32_at(u, kToAt, static_cast<std::uint32_t>(moved >> 32));
    set_be32_at(u, kToAt + 4, static_cast<std::uint32_t>(moved));
  });
  // The moved TO does not go on where the previous segment ended (RFC 5041 5.3, a SHOULD).
  s.expected.findings.push_back("ddp.segments-out-of-order");
}
// RFC 5041 5.2: the Write's last segment 8 octets beyond where the second ended: TOs that no
// segment carries once the message is complete.
void ddp_tagged_offsets_gap(Scenario& s) { tagged_to_moved(s, 2, 8); }
// RFC 5041 5.2: the Write's second segment 8 octets back: TOs the first carried too.
void ddp_tagged_offsets_overlap(Scenario& s) { tagged_to_moved(s, 1, -8); }
// RFC 5040 4.1: a Send whose opcode is 0xC, which no RFC defines.
void rdmap_opcode_invalid(Scenario& s) {
  edited_initiator_message(s, 1, send_of(100), 0, [](Bytes& u) {
    u[1] = static_cast<std::uint8_t>((u[1] & 0xf0) | 0x0c);
  });
  // The Responder goes on and closes without the Terminate RFC 5040 7.1 requires.
  s.expected.findings.push_back("receiver.terminate-missing");
}
// RFC 5040 5.3: the Initiator's last message, a Send, on the Terminate queue (2) as its MSN 1.
void rdmap_opcode_misplaced(Scenario& s) {
  ensure_messages(s.initiator, 4);
  MessageSpec m = send_of(100);
  m.edit_ulpdu = [](std::size_t, Bytes& u) {
    set_be32_at(u, kQnAt, 2);
    set_be32_at(u, kMsnAt, 1);
  };
  s.initiator.messages.push_back(m);
}
// RFC 5040 4.1: a Send with RDMAP Control bit 27 (reserved) set.
void rdmap_reserved_nonzero(Scenario& s) {
  edited_initiator_message(s, 1, send_of(100), 0, [](Bytes& u) { u[1] |= 0x10; });
}
// RFC 5040 5.4: the Initiator sends a Terminate (RDMAP, remote operation error, unexpected
// opcode), then a Send.
void rdmap_after_terminate(Scenario& s) {
  MessageSpec t;
  t.kind = MessageKind::Terminate;
  t.terminate.emplace(terminate_of(0, 2, 0x06));
  insert_initiator_message(s, 1, t);
  insert_initiator_message(s, 2, send_of(100));
  s.expected.notes.push_back("rdmap.terminate");
}
// ---- RDMA Read Responses held to their Requests (lib/src/ulp/rdma_requests.cpp): the
// Initiator reads, the Responder answers, each in one turn.
void initiator_reads(Scenario& s, std::vector<MessageSpec> requests,
                     std::vector<MessageSpec> responses) {
  s.batch = 8;
  requests.push_back(send_of(100));
  s.initiator.messages = std::move(requests);
  s.responder.messages = std::move(responses);
}
// RFC 5040 4.4: the Read Response's STag is not the Request's Data Sink STag.
void read_response_mismatch(Scenario& s) {
  MessageSpec response = message_of(MessageKind::ReadResponse, 600);
  response.edit_ulpdu = [](std::size_t, Bytes& u) { set_be32_at(u, 2, be32_at(u, 2) + 0x100); };
  initiator_reads(s, {message_of(MessageKind::ReadRequest, 600)}, {response});
}
// RFC 5040 5.2: 500 octets answer a Read of 600.
void read_response_length(Scenario& s) {
  initiator_reads(s, {message_of(MessageKind::ReadRequest, 600)},
                  {message_of(MessageKind::ReadResponse, 500)});
}
// RFC 5040 5.2.1: a zero-length Read answered with 8 octets.
void read_response_length_zero(Scenario& s) {
  initiator_reads(s, {message_of(MessageKind::ReadRequest, 0)},
                  {message_of(MessageKind::ReadResponse, 8)});
}
// RFC 5040 5.2.1, 5.2.2: two Reads, the second answered first (the first never).
void read_response_out_of_order(Scenario& s) {
  MessageSpec second = message_of(MessageKind::ReadResponse, 300);
  second.skip_reads = 1;
  initiator_reads(
      s, {message_of(MessageKind::ReadRequest, 600), message_of(MessageKind::ReadRequest, 300)},
      {second});
}
// RFC 5040 5.2: a Read Response when the Initiator has read nothing.
void read_response_unrequested(Scenario& s) {
  initiator_reads(s, {}, {message_of(MessageKind::ReadResponse, 600)});
}
// RFC 7306 (as Wireshark's decoder reads it): an Atomic Request whose Atomic Operation Code is
// 1, neither FetchAdd (0) nor CmpSwap (2); the Responder answers it.
void atomic_opcode_invalid(Scenario& s) {
  MessageSpec request = message_of(MessageKind::AtomicRequest, 0);
  request.edit_ulpdu = [](std::size_t, Bytes& u) { set_be32_at(u, 18, 1); };
  initiator_reads(s, {request}, {message_of(MessageKind::AtomicResponse, 0)});
}
// RFC 7306: an Atomic Response when the Initiator sent no Atomic Request.
void atomic_response_unrequested(Scenario& s) {
  initiator_reads(s, {}, {message_of(MessageKind::AtomicResponse, 0)});
}
// RFC 7306 (the 52-octet header Wireshark and urdma lay out): an Atomic Request cut to the 28
// octets before the masks and compare data; the Responder does not answer it.
void ulpdu_too_short_atomic_request(Scenario& s) {
  MessageSpec request = message_of(MessageKind::AtomicRequest, 0);
  request.edit_ulpdu = [](std::size_t, Bytes& u) { u.resize(kUntaggedHeader + 28); };
  initiator_reads(s, {request}, {});
}
// RFC 7306: an Atomic Response cut to 8 of its 12 header octets.
void ulpdu_too_short_atomic_response(Scenario& s) {
  MessageSpec response = message_of(MessageKind::AtomicResponse, 0);
  response.edit_ulpdu = [](std::size_t, Bytes& u) { u.resize(kUntaggedHeader + 8); };
  initiator_reads(s, {message_of(MessageKind::AtomicRequest, 0)}, {response});
}
// RFC 6581's IRD with RFC 7306 Atomic Requests, counted as Read Requests are.
void ird_exceeded_atomic(Scenario& s) {
  ird_exceeded(s);
  s.initiator.messages = {message_of(MessageKind::AtomicRequest, 0),
                          message_of(MessageKind::AtomicRequest, 0),
                          message_of(MessageKind::AtomicRequest, 0), send_of(100)};
  s.responder.messages = {message_of(MessageKind::AtomicResponse, 0),
                          message_of(MessageKind::AtomicResponse, 0),
                          message_of(MessageKind::AtomicResponse, 0)};
}
// More Read Requests outstanding than mpa-check keeps (rdma_requests.h): 1025, unanswered.
void read_tracking_stopped(Scenario& s) {
  s.batch = 64;
  s.segmentation.kind = SegmentationPolicy::Kind::Packed;  // FPDUs packed into full segments
  s.initiator.messages.assign(1025, message_of(MessageKind::ReadRequest, 8));
  s.responder.messages = {send_of(100)};
}
// RFC 5040 4.8 (Figure 9): RDMAP layer, error type 3, which Figure 9 does not define.
void terminate_invalid(Scenario& s) {
  responder_terminates(s, terminate_of(0, 3, 0x00));
  s.expected.notes.push_back("rdmap.terminate");
}
void reserved_bit_siw_gso(Scenario& s) {
  siw_like(s);
  s.initiator.frame.reserved = 0x08;
  MessageSpec big = send_of(4000 - kUntaggedHeader);
  big.unsplit = true;
  insert_initiator_message(s, 1, big);
  s.allow_oversize = true;
  s.expected.notes.push_back("fpdu.exceeds-mulpdu");
}
void stack_fingerprint(Scenario& s) { siw_like(s); }

// ---- sender framing: the Initiator frames its FPDUs by rules of its own

// Sixteen messages whose ULPDUs have odd lengths (Sends 18 + odd, Writes 14 + odd octets),
// where the pad rules differ.
void odd_ulpdus(Scenario& s) {
  s.initiator.messages = mixed_messages(16, {997, 301, 41, 1201, 77});
}
// CRC off, no markers: every direction's framing rests on plausibility alone.
void crc_off(Scenario& s) {
  s.initiator.frame.c = s.responder.frame.c = false;
  s.expected.notes.push_back("fpdu.framing-unverifiable");
}
void pad_rule_wrong(Scenario& s) {
  crc_off(s);
  odd_ulpdus(s);
  s.initiator_quirks.pad = SenderQuirks::Pad::UlpduPlus2Mod4;
}
void crc_field_missing(Scenario& s) {
  crc_off(s);
  odd_ulpdus(s);
  s.initiator_quirks.omit_crc_field = true;
}
// CRC on: the first FPDU's CRC matches only where the sender's framing puts it. (ULPDUs of
// 4k + 2 octets: for odd ones, two more octets counted only move two pad octets into the ULPDU.)
void ulpdu_length_miscounted(Scenario& s) {
  s.initiator.messages = mixed_messages(16, {996, 300, 40, 1200, 76});
  s.initiator_quirks.length_bias = 2;
}
// Issue 43: CRC on; the Initiator pads its ULPDU alone to a multiple of 4: ULPDUs of 3, 0, 3
// and 2 mod 4 octets (Sends of 101, 202, 301, 400) get pads of 1, 0, 1, 2 where RFC 5044 4.1
// gives 3, 2, 3, 0. Two rules fit the first FPDU ((n + 2) mod 4 too); the second tells them apart.
void pad_ulpdu_to_4(Scenario& s) {
  s.initiator.messages = {send_of(101), send_of(202), send_of(301), send_of(400)};
  s.initiator_quirks.pad = SenderQuirks::Pad::UlpduTo4;
}
// Issue 43: markers on both ways, CRC on; the Responder's ULPDU_Length counts its CRC too
// (true length + 4). Its first FPDU (a ULPDU of 0 mod 4 octets, Send of 202) reads the same as
// "+ 2"; the second (2 mod 4, Send of 100) does not.
void responder_length_plus_4(Scenario& s) {
  markers_to_responder(s);
  s.initiator.frame.m = true;
  s.markers_to_initiator.reset();
  s.responder.messages = {send_of(202), send_of(100), send_of(301), send_of(403)};
  s.responder_quirks.length_bias = 4;
}
void markers_missing(Scenario& s) {
  markers_to_responder(s);
  s.markers_to_responder = false;  // the Reply asks (M=1), the Initiator inserts none
  odd_ulpdus(s);
}
// Six stray octets before the Initiator's third turn of full operation: read as an FPDU,
// ULPDU_Length `length` and a "DDP header" beginning ff ff (tagged, DDP version 3).
void insert_stray_octets(Plan& p, std::uint16_t length) {
  std::size_t seen = 0;
  for (Turn& t : p.turns) {
    if (t.dir != Dir::Initiator || t.phase != Phase::FullOperation || ++seen < 3) continue;
    Chunk junk;
    junk.kind = ChunkKind::Streaming;
    junk.bytes = {static_cast<std::uint8_t>(length >> 8),
                  static_cast<std::uint8_t>(length),
                  0xff,
                  0xff,
                  0xff,
                  0xff};
    t.chunks.insert(t.chunks.begin(), junk);
    break;
  }
}
// Six octets no framing explains, between two FPDUs (CRC off, no markers); after them the
// direction is not read, so it ends without a word about how.
void framing_lost(Scenario& s) {
  crc_off(s);
  odd_ulpdus(s);
  s.close = Ending::None;
  s.edit_plan = [](Plan& p) { insert_stray_octets(p, 0x1234); };
}
// Six stray octets with CRCs on: the FPDU they begin (ULPDU_Length 34: it ends inside the
// next FPDU, with no pad) fails its CRC, which is all an RFC receiver sees (RFC 5044 8) and
// all that is said; its "DDP header" is never judged. The Responder answers as such a
// receiver does, with a Terminate (MPA error 2).
void crc_mismatch_stray_octets(Scenario& s) {
  s.initiator.frame.c = true;
  s.expected.notes.push_back("fpdu.not-judged-after-error");
  responder_terminates_on_error(s, 2);
  s.edit_plan = [terminates = s.edit_plan](Plan& p) {
    insert_stray_octets(p, 0x0022);
    terminates(p);
  };
}
void p2p_required(Scenario& s) {
  set_revision(s, 2);
  s.responder.frame.r = true;
  closes_after_reply(s);
  s.expected.notes.push_back("startup.connection-rejected");
}

constexpr FaultRecipe kRecipes[] = {
    {"startup.key-invalid", "the Reply's key reads \"MPA ID Rxp Frame\"; the Initiator closes",
     key_invalid},
    {"startup.unexpected-request", "both sides send a Request; the Initiator closes",
     unexpected_request},
    {"startup.unexpected-reply",
     "the Responder sends a Reply although no Request came; the Initiator closes",
     unexpected_reply},
    {"startup.pd-length-too-large",
     "Request with PD_Length 600 (and 600 octets); the Responder closes", pd_length_too_large},
    {"startup.pd-length-mismatch",
     "Request with PD_Length 8 but 16 octets of private data in the same segment; the Responder "
     "closes",
     pd_length_mismatch},
    {"startup.revision-unsupported", "Request with Rev 7; the Responder closes",
     revision_unsupported},
    {"startup.revision-0",
     "a whole Rev 0 (RDMA Consortium) conversation: markers, CRC, DDP/RDMAP version 0", revision_0},
    {"startup.revision-2", "a whole Rev 2 client-server conversation (S=1, IRD/ORD 16/16)",
     revision_2},
    {"startup.vendor-revision", "a whole Rev 129 (erdma) conversation with the 8-octet extension",
     vendor_revision},
    {"startup.reserved-bits-set",
     "Request flags byte has reserved bit 0x04 set; conversation goes on", reserved_bits_set},
    {"startup.reject-bit-in-request", "Request has R=1; conversation goes on",
     reject_bit_in_request},
    {"startup.connection-rejected", "Reply with R=1; the Initiator closes", connection_rejected},
    {"startup.enhanced-without-rev2",
     "Rev 1 Request with S=1 and a 4-octet IRD/ORD block; conversation goes on",
     enhanced_without_rev2},
    {"startup.enhanced-data-missing",
     "Rev 2 Request with S=1 and PD_Length 2; the Responder closes", enhanced_data_missing},
    {"startup.enhanced-mismatch", "Request Rev 1 S=0, Reply Rev 2 S=1; the Initiator closes",
     enhanced_mismatch},
    {"startup.rtr-flags-without-p2p",
     "Rev 2 Request with A=0 B=1; client-server conversation goes on", rtr_flags_without_p2p},
    {"startup.p2p-mismatch", "Request A=1 (all RTRs), Reply A=0; the Initiator closes",
     p2p_mismatch},
    {"startup.no-matching-rtr",
     "Request offers the Write RTR only, Reply names the Read RTR only (its own); the Initiator "
     "sends a Terminate (MPA error 7) and closes",
     no_matching_rtr},
    {"startup.insufficient-ird",
     "Request IRD 16, Reply ORD 64; the Initiator sends a Terminate (MPA error 6) and closes",
     insufficient_ird},
    {"startup.initiator-data-before-reply",
     "an Initiator FPDU, in its own segment, before the Reply (markers off)",
     initiator_data_before_reply},
    {"startup.initiator-data-before-reply",
     "the Initiator's first FPDUs follow the Reply in the capture, but their segments "
     "acknowledge none of it: they were sent before the Reply reached the Initiator (a capture "
     "near the Responder)",
     initiator_data_before_reply_crossed, "crossed"},
    {"fpdu.responder-sent-first",
     "the Responder's first FPDUs follow the Initiator's first in the capture, but their "
     "segments acknowledge none of it: they were sent before it reached the Responder (a "
     "capture near the Initiator)",
     responder_sent_first_crossed, "crossed"},
    {"startup.streaming-prefix",
     "64 streaming octets each way before the Request (delayed startup)", streaming_prefix},
    {"startup.no-reply", "a Request, then the capture ends", no_reply},
    {"startup.private-data-over-256", "Request with 300 octets of private data",
     private_data_over_256},
    {"startup.no-negotiation-not-echoed",
     "Rev 2: Request ORD 0x3FFF, Reply IRD 5 instead of 0x3FFF", no_negotiation_not_echoed},
    {"fpdu.crc-mismatch",
     "the Initiator's second FPDU has a wrong CRC; more FPDUs follow; the Responder's last message "
     "is a Terminate (MPA error 2), then it closes",
     crc_mismatch},
    {"fpdu.pad-nonzero", "an Initiator FPDU with 3 pad octets 0xA5 (CRC computed over them)",
     pad_nonzero},
    {"fpdu.ulpdu-length-too-large", "an Initiator Send with ULPDU_Length 65000 over many segments",
     ulpdu_length_too_large},
    {"fpdu.ulpdu-length-zero", "an Initiator FPDU with ULPDU_Length 0", ulpdu_length_zero},
    {"fpdu.exceeds-mulpdu", "MSS 1460; a 4000-octet ULPDU in one (TSO-sized) segment",
     exceeds_mulpdu},
    {"fpdu.not-segment-aligned", "one 600-octet Initiator Send FPDU split over two segments",
     not_segment_aligned},
    {"fpdu.responder-sent-first", "the Responder's first FPDUs precede the Initiator's first",
     responder_sent_first},
    {"fpdu.rtr-missing",
     "peer-to-peer with Send RTR negotiated; the first Initiator FPDU is a Send with 100 octets",
     rtr_missing},
    {"marker.fpduptr-mismatch",
     "markers to the Responder; one marker inside an FPDU has FPDUPTR 8 too large; the "
     "Responder's last message is a Terminate (MPA error 3), then it closes",
     fpduptr_mismatch},
    {"marker.reserved-nonzero", "markers to the Responder; one marker's reserved field is 0x0100",
     marker_reserved_nonzero},
    {"marker.fpduptr-low-bits", "markers to the Responder; one marker's FPDUPTR has bit 0x0002 set",
     fpduptr_low_bits},
    {"marker.unexpected", "both sides M=0, yet the Initiator inserts markers", marker_unexpected},
    {"connection.lost-mid-fpdu", "the Initiator sends half an FPDU, then FIN", lost_mid_fpdu},
    {"connection.lost-mid-startup", "the Responder sends 10 octets of its Reply, then FIN",
     lost_mid_startup},
    {"tcp.retransmission-mismatch", "an Initiator segment is retransmitted with one octet changed",
     retransmission_mismatch},
    {"tcp.retransmission-mismatch",
     "window scaling (2 MiB windows); an Initiator segment lost downstream is resent with one "
     "octet changed 80 KiB later, the Responder's ACKs stopping short of it until then",
     retransmission_mismatch_far_back, "far-back"},
    {"tcp.retransmission-check-stopped",
     "window scaling (32 MiB windows); an Initiator segment lost downstream is resent 17 MiB "
     "later, the Responder's ACKs stopping short of it until then (21 MB: not bundled)",
     retransmission_check_stopped, "", false},
    {"capture.gap", "an Initiator data segment is missing from the capture (markers off)",
     capture_gap},
    {"capture.truncated", "snaplen 200 with ~1000-octet FPDUs", capture_truncated},
    {"capture.startup-not-seen",
     "the capture starts mid-connection (no SYN, no startup frames; markers and CRC on)",
     starts_mid_connection},
    {"capture.parameters-inferred",
     "the capture starts mid-connection (no SYN, no startup frames; markers and CRC on)",
     starts_mid_connection},
    {"capture.ip-fragment",
     "one IPv4 data segment sent as two IP fragments, the second missing from the capture",
     ip_fragment},
    {"capture.startup-frame-cut",
     "the capture ends 14 octets into the MPA Request (segments of 7 octets), inside its key",
     startup_frame_cut},
    {"capture.resynchronised", "a long marker-bearing stream loses one segment in the middle",
     resynchronised},
    {"ddp.version-mismatch",
     "the Initiator sends DDP/RDMAP version 0 in a Rev 1 connection (version 1 in a Rev 0 one)",
     ddp_version_mismatch},
    {"ddp.ulpdu-too-short",
     "an Initiator FPDU whose 10-octet ULPDU announces an 18-octet untagged DDP header",
     ddp_ulpdu_too_short},
    {"rdmap.terminate",
     "the Responder refuses the Initiator's RDMA Write with a Terminate (RDMAP, remote protection "
     "error, invalid STag) and closes",
     rdmap_terminate},
    {"rdmap.terminate-disagrees",
     "the Responder sends a Terminate blaming an MPA CRC error (code 2) on a Write whose CRC is "
     "right, and closes",
     terminate_disagrees},
    {"rdmap.terminate-encoding",
     "siw-like conversation (C=1); the Initiator's RDMA Write has a bad CRC and the Responder "
     "answers with Terminate LLP/MPA/CRC in siw's layout (Layer/EType nibbles swapped, M/D flags "
     "in the low bits), then closes",
     terminate_encoding},
    {"rdmap.terminate-encoding",
     "the Initiator's RDMA Write has a bad CRC (C=1) and the Responder answers with Terminate "
     "LLP/MPA/CRC as Chelsio cxgb4 and Intel irdma write it (layer 2, error type 3: first octet "
     "0x23), then closes",
     terminate_encoding_cxgb_irdma, "cxgb4-irdma"},
    {"rdmap.terminate-disagrees",
     "no CRCs (C=0 both ways); the Responder sends a Terminate in Chelsio cxgb4's and Intel "
     "irdma's layout (0x23) blaming an MPA CRC error (code 2) on a Write, and closes",
     terminate_disagrees_cxgb_irdma, "cxgb4-irdma-crc-off"},
    {"ddp.ulpdu-too-short",
     "siw-like conversation; the Initiator's RDMA Read Request carries 12 of its 28 header "
     "octets, and the Responder answers with Terminate LLP/MPA code 3 in siw's layout (siw's "
     "code for such an FPDU, not a marker claim), then closes",
     ulpdu_too_short_siw_terminate, "read-request-siw-terminate"},
    {"rdmap.ird-exceeded",
     "Rev 2, Responder IRD 2: the Initiator sends three 600-octet RDMA Read Requests before the "
     "first Read Response arrives; the Responder answers all three",
     ird_exceeded},
    {"ddp.reserved-nonzero", "an Initiator Send whose DDP Control field has reserved bit 0x04 set",
     ddp_reserved_nonzero},
    {"ddp.version-changed",
     "the Initiator's third message carries the other DDP version than its first two",
     ddp_version_changed},
    {"ddp.queue-invalid", "the Initiator's last message is a Send on untagged queue 7",
     ddp_queue_invalid},
    {"ddp.msn-invalid", "an Initiator Send whose MSN is three more than its queue's next",
     ddp_msn_invalid},
    {"ddp.message-unfinished",
     "a three-segment Initiator Send whose last segment lacks the Last flag, then another Send",
     ddp_message_unfinished},
    {"ddp.segments-out-of-order",
     "a three-segment Initiator Send whose second segment's MO is 8 beyond where the first ended",
     ddp_segments_out_of_order},
    {"ddp.stag-changed",
     "a three-segment Initiator RDMA Write whose second segment carries another STag",
     ddp_stag_changed},
    {"ddp.mo-invalid",
     "a three-segment Initiator Send whose last segment's MO is 8 beyond where the second ended, "
     "then a Send",
     ddp_mo_invalid},
    {"ddp.zero-length-split",
     "the Initiator's last two Sends are one zero-length message in two empty segments (the first "
     "without the Last flag, the second with its MSN)",
     ddp_zero_length_split},
    {"ddp.message-open-at-close",
     "the Initiator's last message, a three-segment Send, lacks its Last flag; then the usual "
     "close",
     ddp_message_open_at_close},
    {"ddp.msn-invalid",
     "every Initiator Send carries one more than its MSN: the Initiator's first Send has MSN 2",
     ddp_msn_invalid_initiator_first, "initiator-first"},
    {"ddp.version-mismatch",
     "the capture starts mid-connection (no SYN, no startup frames; markers and CRC on); the "
     "Initiator's DDP version is 2",
     ddp_version_two_startup_not_seen, "startup-not-seen"},
    {"ddp.version-mismatch",
     "the capture starts mid-connection (no SYN, no startup frames; markers and CRC on); the "
     "Initiator's ninth message carries RDMAP version 2 (DDP version 1)",
     rdmap_version_two_startup_not_seen, "rdmap-startup-not-seen"},
    {"ddp.tagged-offsets-inconsistent",
     "a three-segment Initiator RDMA Write whose last segment's TO is 8 beyond where the second "
     "ended",
     ddp_tagged_offsets_gap},
    {"ddp.tagged-offsets-inconsistent",
     "a three-segment Initiator RDMA Write whose second segment's TO is 8 back into the first's "
     "payload",
     ddp_tagged_offsets_overlap, "overlap"},
    {"rdmap.opcode-invalid", "an Initiator Send whose RDMAP opcode is 0xC (reserved)",
     rdmap_opcode_invalid},
    {"rdmap.opcode-misplaced",
     "the Initiator's last message is a Send on queue 2 (the Terminate queue), MSN 1",
     rdmap_opcode_misplaced},
    {"rdmap.payload-not-allowed",
     "the Initiator's second message, an RDMA Read Request, carries 8 octets after its header; "
     "the Responder answers it",
     rdmap_payload_not_allowed},
    {"rdmap.reserved-nonzero", "an Initiator Send with RDMAP Control reserved bit 0x10 set",
     rdmap_reserved_nonzero},
    {"rdmap.after-terminate",
     "the Initiator sends a Terminate (RDMAP, remote operation error, unexpected opcode), then a "
     "Send",
     rdmap_after_terminate},
    {"rdmap.read-response-mismatch",
     "the Initiator reads 600 octets; the Responder's Read Response carries the Data Sink STag "
     "plus 0x100",
     read_response_mismatch},
    {"rdmap.read-response-length",
     "the Initiator reads 600 octets; the Responder's Read Response carries 500",
     read_response_length},
    {"rdmap.read-response-length",
     "the Initiator sends a zero-length Read Request; the Responder's Read Response carries 8 "
     "octets",
     read_response_length_zero, "zero-length"},
    {"rdmap.read-response-out-of-order",
     "the Initiator sends two Read Requests; the Responder answers the second and never the first",
     read_response_out_of_order},
    {"rdmap.read-response-unrequested",
     "the Initiator reads nothing; the Responder sends a 600-octet Read Response",
     read_response_unrequested},
    {"rdmap.read-tracking-stopped",
     "the Initiator sends 1025 eight-octet Read Requests (no IRD declared), the Responder "
     "answers none: the 1025th is beyond what mpa-check keeps outstanding",
     read_tracking_stopped},
    {"rdmap.atomic-opcode-invalid",
     "the Initiator sends an RFC 7306 Atomic Request with Atomic Operation Code 1 (neither "
     "FetchAdd "
     "nor CmpSwap); the Responder answers it",
     atomic_opcode_invalid},
    {"rdmap.atomic-response-unrequested",
     "the Initiator sends no Atomic Request; the Responder sends an RFC 7306 Atomic Response",
     atomic_response_unrequested},
    {"ddp.ulpdu-too-short",
     "the Initiator's RFC 7306 Atomic Request carries 28 of its 52 header octets (the masks and "
     "compare data left out); the Responder does not answer it",
     ulpdu_too_short_atomic_request, "atomic-request"},
    {"ddp.ulpdu-too-short",
     "the Responder's RFC 7306 Atomic Response carries 8 of its 12 header octets",
     ulpdu_too_short_atomic_response, "atomic-response"},
    {"rdmap.ird-exceeded",
     "Rev 2, Responder IRD 2: the Initiator sends three RFC 7306 Atomic Requests before the first "
     "Atomic Response arrives; the Responder answers all three",
     ird_exceeded_atomic, "atomic"},
    {"rdmap.terminate-invalid",
     "the Responder refuses the Initiator's RDMA Write with a Terminate of RDMAP layer, error "
     "type 3 (Figure 9 defines 0-2), and closes",
     terminate_invalid},
    {"startup.reserved-bit-siw-gso",
     "siw-like Request with reserved bit 0x08 (siw GSO), then a 4000-octet FPDU in one segment",
     reserved_bit_siw_gso},
    {"interop.stack-fingerprint",
     "a Linux siw-like conversation (Rev 2, S=1, M=0, C=0, PD only the IRD/ORD block, Reply echoes "
     "the flags)",
     stack_fingerprint},
    {"interop.p2p-required",
     "Rev 2 client-server Request (A=0) rejected by the Reply (R=1); the Initiator closes",
     p2p_required},
    {"fpdu.pad-rule-wrong",
     "CRC off; the Initiator pads (ULPDU_Length + 2) mod 4 octets (RFC 5044 4.1: to a multiple of "
     "4)",
     pad_rule_wrong},
    {"fpdu.crc-field-missing", "CRC off; the Initiator leaves out the 4-octet CRC field",
     crc_field_missing},
    {"fpdu.pad-rule-wrong",
     "CRC on; the Initiator pads its ULPDU alone to a multiple of 4 (pads 1, 0, 1, 2 where RFC "
     "5044 4.1 gives 3, 2, 3, 0)",
     pad_ulpdu_to_4, "ulpdu-to-4"},
    {"fpdu.ulpdu-length-miscounted",
     "markers on both ways, CRC on; the Responder's ULPDU_Length counts its CRC too (true length "
     "+ 4): its first FPDU also fits + 2, its second does not",
     responder_length_plus_4, "responder-plus-4"},
    {"fpdu.markers-missing", "the Reply asks for markers (M=1); the Initiator inserts none",
     markers_missing},
    {"fpdu.ulpdu-length-miscounted",
     "CRC on; the Initiator's ULPDU_Length counts its own two octets too", ulpdu_length_miscounted},
    {"fpdu.framing-lost",
     "CRC off, no markers; six stray octets between two Initiator FPDUs; the capture ends without "
     "a close",
     framing_lost},
    {"fpdu.crc-mismatch",
     "CRC on, no markers; six stray octets between two Initiator FPDUs, read as an FPDU whose CRC "
     "fails (its \"DDP header\" is not judged); the Responder answers with a Terminate (MPA "
     "error 2) and closes",
     crc_mismatch_stray_octets, "stray-octets"},
    {"startup.pd-length-mismatch",
     "Request with PD_Length 16 but only 8 octets of private data; the Responder answers with a "
     "Reply before the rest could have come, and both sides send FPDUs",
     pd_length_overstated_answered, "overstated-answered"},
    {"startup.invalid-request-answered",
     "Request with Rev 7; the Responder answers with a Reply and FPDUs instead of closing",
     invalid_request_answered},
    {"startup.insufficient-ird",
     "Rev 2: Request IRD 16, Reply ORD 0x3FFF (which only answers an IRD of 0x3FFF); the Initiator "
     "sends a Terminate (MPA error 6) and closes",
     ord_3fff_not_answering_3fff, "ord-3fff"},
    {"startup.no-negotiation-unsolicited",
     "Rev 2: Request IRD/ORD 16/16, Reply IRD 0x3FFF; conversation goes on",
     no_negotiation_unsolicited},
    {"startup.reply-before-private-data",
     "the Request (PD_Length 16) sends 8 octets of private data, the Responder answers with its "
     "Reply, then the other 8 follow; the conversation goes on",
     reply_before_private_data},
    {"startup.invalid-reply-ignored",
     "the Reply's key is \"MPA ID Rxp Frame\"; the Initiator sends its FPDUs all the same",
     invalid_reply_ignored},
    {"startup.invalid-reply-kept-open",
     "the Reply's key is \"MPA ID Rxp Frame\"; the Initiator acknowledges it and neither closes "
     "nor "
     "sends; a second later the Responder closes",
     invalid_reply_kept_open},
    {"startup.request-closed-without-reply",
     "a valid Rev 1 Request; the Responder acknowledges it and closes without a Reply",
     request_closed_without_reply},
    {"startup.markers-refused",
     "a Rev 1 Request asking for markers (M=1) is rejected (R=1); the Initiator closes",
     markers_refused},
    {"startup.markers-refused",
     "a Rev 1 Request asking for markers (M=1); the Responder closes without a Reply",
     markers_refused_by_close, "close"},
    {"startup.markers-refused",
     "the Reply accepts and asks for markers (M=1); the Initiator closes without sending an FPDU",
     markers_refused_by_initiator, "initiator"},
    {"startup.negotiation-terminate-missing",
     "Rev 2: Request IRD 16, Reply ORD 64; the Initiator closes without a Terminate",
     negotiation_terminate_missing},
    {"startup.negotiation-terminate-missing",
     "Rev 2 peer-to-peer: Request offers the Write RTR only, Reply names the Read RTR only; the "
     "Initiator closes without a Terminate",
     negotiation_terminate_missing_no_rtr, "no-rtr"},
    {"startup.negotiation-terminate-missing",
     "Rev 2: Request IRD 16, Reply ORD 64; the Initiator sends a Terminate with MPA error 5 "
     "(local catastrophic) instead of 6, and closes",
     negotiation_terminate_wrong_code, "wrong-code"},
    {"startup.reply-without-rtr",
     "Rev 2 peer-to-peer: the Reply accepts (A=1) with no RTR option; the Initiator sends a "
     "Terminate (MPA error 7) and closes",
     reply_without_rtr},
    {"startup.fpdu-after-reject",
     "the Reply rejects (R=1, CRC on); both sides send their FPDUs all the same, then the "
     "Initiator closes",
     fpdu_after_reject},
    {"startup.fpdu-after-reject",
     "the Reply rejects (R=1) with M=1 and C=1 (the Request M=0, C=0); both sides go on with "
     "well-formed FPDUs as if it had accepted (markers in the Initiator's, CRCs both ways), all "
     "read and counted, then the Initiator closes",
     fpdu_after_reject_judged, "judged"},
    {"fpdu.crc-mismatch",
     "the Reply rejects (R=1, CRC on); both sides send their FPDUs all the same, the Initiator's "
     "second with a wrong CRC; the Responder answers with a Terminate (MPA error 2) and closes",
     crc_mismatch_after_reject, "after-reject"},
    {"startup.initiator-data-before-reply",
     "the Request and the Initiator's first FPDU (valid CRC) in one segment, before the Reply",
     request_with_fpdu, "with-request"},
    {"fpdu.responder-sent-first",
     "the Reply and the Responder's first FPDU (valid CRC) in one segment, before the Initiator's "
     "first FPDU",
     reply_with_fpdu, "with-reply"},
    {"startup.pd-length-mismatch",
     "Reply with PD_Length 16 but 8 octets of private data; the Initiator sends its FPDUs all the "
     "same, and the Responder answers with its own",
     reply_overstated, "reply-overstated"},
    {"startup.pd-length-mismatch",
     "Reply with PD_Length 16 but 24 octets of private data in the same segment; the Initiator "
     "sends its FPDUs all the same, and the Responder answers with its own",
     reply_understated, "reply-understated"},
    {"startup.pd-length-mismatch",
     "Reply with PD_Length 16 but 8 octets of private data; the Initiator closes",
     reply_overstated_closed, "reply-overstated-closed"},
    {"startup.pd-length-mismatch",
     "Reply with PD_Length 16 but 24 octets of private data in the same segment; the Initiator "
     "closes",
     reply_understated_closed, "reply-understated-closed"},
    {"startup.pd-length-mismatch",
     "Reply with PD_Length 16 but 8 octets of private data; the Initiator sends a Terminate (MPA "
     "error 5) and closes",
     reply_overstated_terminated, "reply-overstated-terminated"},
    {"startup.pd-length-mismatch",
     "Request with PD_Length 8 but 16 octets of private data in the same segment; the Responder "
     "answers with a Reply and both sides send FPDUs",
     request_understated_answered, "understated-answered"},
    {"startup.pd-length-mismatch",
     "Request with PD_Length 16 but 8 octets of private data; the Responder closes without a Reply",
     request_overstated_closed, "overstated-closed"},
    {"startup.fpdu-after-reject",
     "the Reply rejects (R=1, CRC on); both sides send their FPDUs all the same, the Initiator's "
     "first with a wrong CRC; the Responder answers with a Terminate (MPA error 2) and closes",
     first_crc_mismatch_after_reject, "first-crc-mismatch"},
    {"receiver.invalid-fpdu-answered",
     "the Initiator's RDMA Read Request (1000 octets) has a wrong CRC; the Responder acknowledges "
     "it and answers with the Read Response",
     invalid_fpdu_answered},
    {"receiver.error-ignored",
     "the Initiator's second FPDU has a wrong CRC; the Responder acknowledges it, sends its own "
     "Sends and Writes, and closes without a Terminate",
     error_ignored},
    {"receiver.error-ignored",
     "markers to the Responder; a marker inside the Initiator's second FPDU has FPDUPTR 8 too "
     "large (MPA error 3); the Responder goes on sending and closes without a Terminate",
     error_ignored_marker, "marker"},
    {"receiver.closed-after-error",
     "the Initiator's second FPDU has a wrong CRC; the Responder acknowledges it and closes (FIN) "
     "at once, without a Terminate",
     closed_after_error},
    {"receiver.closed-after-error",
     "the Initiator's second FPDU has a wrong CRC; the Responder acknowledges it and resets (RST) "
     "at once, without a Terminate",
     closed_after_error_rst, "rst"},
    {"receiver.terminate-missing",
     "the last of the Initiator's first three Sends is on untagged queue 7 (invalid QN); the "
     "Responder acknowledges it, sends its own Sends and Writes, and closes without a Terminate",
     terminate_missing},
    {"fpdu.crc-mismatch",
     "the Initiator's RDMA Read Request has a wrong CRC; the Responder answers with a Terminate "
     "(MPA error 2), no Read Response, and closes",
     read_request_terminated, "read-terminated"},
    {"receiver.legal-fpdu-refused",
     "the Initiator's second FPDU has 3 pad octets 0xA5 (legal input); the Responder acknowledges "
     "it, takes none of the two FPDUs the Initiator sends next, and closes (FIN)",
     legal_fpdu_refused},
    {"receiver.legal-fpdu-refused",
     "markers to the Responder; a marker inside the Initiator's second FPDU has reserved field "
     "0x0100 (legal input); the Responder acknowledges it, takes none of the two FPDUs the "
     "Initiator sends next, and closes (FIN)",
     legal_fpdu_refused_marker, "marker"},
    {"receiver.legal-fpdu-refused",
     "markers to the Responder; a marker inside the Initiator's second FPDU has FPDUPTR bit "
     "0x0002 set (legal input); the Responder acknowledges it, takes none of the two FPDUs the "
     "Initiator sends next, and closes (FIN)",
     legal_fpdu_refused_low_bits, "fpduptr-low-bits"},
    {"receiver.legal-fpdu-refused",
     "markers to the Responder; the Initiator's sequence numbers wrap between the header of its "
     "second FPDU and the marker inside it (legal input); the Responder acknowledges it, takes "
     "none of the two FPDUs the Initiator sends next, and closes (FIN)",
     legal_fpdu_refused_seq_wrap, "seq-wrap"},
    {"receiver.legal-fpdu-refused",
     "the Initiator's second FPDU is split over two TCP segments (legal input); the Responder "
     "acknowledges it, takes none of the two FPDUs the Initiator sends next, and closes (FIN)",
     legal_fpdu_refused_split, "split"},
    {"receiver.legal-fpdu-refused",
     "CRCs off (C=0 both ways); the Initiator's first FPDU has a CRC field of zero, which must "
     "not be checked; the Responder acknowledges the first turn, takes none of the two FPDUs the "
     "Initiator sends next, and closes (FIN)",
     legal_fpdu_refused_crc_off, "crc-off"},
    {"receiver.legal-fpdu-refused",
     "markers to the Responder; the marker before the Initiator's first RDMA Read Request has "
     "reserved field 0x0100 (legal input); the Responder answers the Initiator's second Read "
     "Request, never the first",
     legal_fpdu_refused_read, "read"},
    {"startup.markers-refused",
     "the Reply accepts and asks for markers (M=1); the Initiator's first FPDU is a Terminate "
     "(RDMAP, local catastrophic error), then it closes",
     markers_refused_by_terminate, "terminate"},
    {"startup.negotiation-terminate-missing",
     "Rev 2: Request IRD 16, the Reply rejects (R=1) naming ORD 64; the Responder sends a "
     "Terminate with MPA error 5 (local catastrophic) instead of 6, and closes",
     negotiation_terminate_after_reject, "reject"},
    {"startup.invalid-request-kept-open",
     "a Request with Rev 7; the Responder acknowledges it and neither answers nor closes; a "
     "second later the Initiator closes",
     invalid_request_kept_open},
    {"ip.fragment-overlap-mismatch",
     "one IPv4 data segment sent as two IP fragments; the first is captured again, its last octet "
     "changed, before the second (the octets captured first are analysed: the FPDUs are valid)",
     ip_fragment_overlap_mismatch},
    {"startup.crc-disabled", "Rev 1, C=0 in the Request and in the Reply: no CRCs either way",
     crc_disabled},
    {"fpdu.crc-miscomputed",
     "CRC on; every Initiator FPDU carries its CRC32c byte-swapped (most-significant octet "
     "first); the Responder answers with a Terminate (MPA error 2) and closes",
     crc_miscomputed},
    {"fpdu.crc-miscomputed",
     "Request C=0, Reply C=1 (CRCs on both ways); every Initiator FPDU has a CRC field of zero; "
     "the Responder answers with a Terminate (MPA error 2) and closes",
     crc_miscomputed_zero, "zero"},
    {"fpdu.crc-miscomputed",
     "CRC on, markers to the Responder; every Initiator FPDU's CRC32c leaves the markers out (the "
     "first FPDU, a 1000-octet Send, holds the marker opening full operation and one inside); the "
     "Responder answers with a Terminate (MPA error 2) and closes",
     crc_without_markers, "without-markers"},
    {"fpdu.crc-miscomputed",
     "CRC on, markers to the Responder; every Initiator FPDU's CRC32c leaves out the marker before "
     "its ULPDU_Length (the first FPDU, a 100-octet Send, holds only the marker opening full "
     "operation); the Responder answers with a Terminate (MPA error 2) and closes",
     crc_without_leading_marker, "leading-marker"},
    {"fpdu.crc-miscomputed",
     "CRC on, no markers; every Initiator FPDU's CRC32c covers its ULPDU alone (not ULPDU_Length "
     "or pad); the Responder answers with a Terminate (MPA error 2) and closes",
     crc_ulpdu_only, "ulpdu-only"},
    {"startup.enhanced-block-little-endian",
     "Rev 2: the Request's IRD/ORD block (IRD 16, ORD 8) has each half little-endian (10 00 08 "
     "00); the Reply answers IRD 8, ORD 16",
     enhanced_block_little_endian},
    {"startup.enhanced-negotiates-nothing",
     "Rev 2 client-server (A=0), Request IRD/ORD 0x3FFF (no negotiation), echoed by the Reply",
     enhanced_negotiates_nothing},
    {"rdmap.reserved-nonzero",
     "the Responder refuses the Initiator's RDMA Write with a Terminate (RDMAP, remote protection "
     "error, invalid STag) whose 13 Reserved bits are 0x0001, and closes",
     terminate_reserved_nonzero, "terminate"},
    {"rdmap.terminate-disagrees",
     "the last of the Initiator's first three Sends is on untagged queue 7 (invalid QN); the "
     "Responder's Terminate quotes it but names an unexpected opcode (RDMAP, error type 2, code "
     "0x06), not DDP's invalid QN, and closes",
     terminate_disagrees_first_error, "first-error"},
    {"receiver.segment-after-error-placed",
     "the Initiator's second message is a Send on untagged queue 7 (invalid QN), its third an "
     "RDMA Read Request; the Responder answers the Read Request with its Read Response and a "
     "Send, and closes without a Terminate",
     segment_after_error_placed},
};

}  // namespace

std::span<const FaultRecipe> fault_recipes() { return kRecipes; }

std::string recipe_name(const FaultRecipe& recipe) {
  std::string name(recipe.id);
  if (!recipe.variant.empty()) name += "--" + std::string(recipe.variant);
  return name;
}

const FaultRecipe* find_fault(std::string_view name) {
  for (const FaultRecipe& r : kRecipes) {
    if (recipe_name(r) == name) return &r;
  }
  return nullptr;
}

void apply_fault(Scenario& s, const FaultRecipe& recipe) {
  recipe.apply(s);
  const std::optional<DiagId> id = find_diagnostic(recipe.id);
  if (!id)
    throw std::logic_error("fault recipe for an id not in the catalogue: " +
                           std::string(recipe.id));
  Expectation& e = s.expected;
  std::vector<std::string>& list = info(*id).severity == Severity::Note ? e.notes : e.findings;
  if (std::find(list.begin(), list.end(), recipe.id) == list.end()) list.emplace_back(recipe.id);
}

}  // namespace mpa::synth
