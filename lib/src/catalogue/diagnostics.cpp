// The diagnostics catalogue table (see diagnostics.h). Checked at compile time: one entry
// per DiagId in enum order, unique names, every entry cites an RFC section, error codes
// within RFC 5044 section 8 / RFC 6581 section 8.
#include "mpa/diagnostics.h"

#include <array>
#include <cstddef>
#include <optional>

namespace mpa {
namespace {

using enum DiagId;
using enum Severity;
using enum DiagCategory;

constexpr std::array<DiagnosticInfo, static_cast<std::size_t>(kCount)> kEntries{{
    // ---- startup
    {StartupKeyInvalid, "startup.key-invalid", Error, Malformed, "RFC 5044 7.1.1",
     MpaError::InvalidStartupFrame,
     "Startup frame key is neither \"MPA ID Req Frame\" nor \"MPA ID Rep Frame\""},
    {StartupUnexpectedRequest, "startup.unexpected-request", Error, Protocol, "RFC 5044 7.1.2",
     MpaError::InvalidStartupFrame,
     "MPA Request where a Reply was due (Initiator/Initiator startup)"},
    {StartupUnexpectedReply, "startup.unexpected-reply", Error, Protocol, "RFC 5044 7.1.2",
     MpaError::InvalidStartupFrame, "MPA Reply without a preceding Request from the peer"},
    {StartupPdLengthTooLarge, "startup.pd-length-too-large", Error, Malformed, "RFC 5044 7.1.1",
     MpaError::InvalidStartupFrame, "PD_Length exceeds 512 octets"},
    {StartupPdLengthMismatch, "startup.pd-length-mismatch", Error, Malformed, "RFC 5044 7.1.1",
     MpaError::InvalidStartupFrame, "PD_Length does not match the private data sent"},
    {StartupRevisionUnsupported, "startup.revision-unsupported", Error, Protocol, "RFC 5044 7.1.1",
     MpaError::InvalidStartupFrame,
     "Startup frame carries an MPA revision no known implementation uses"},
    {StartupRevision0, "startup.revision-0", Note, Protocol, "RFC 5044 Appendix C", MpaError::None,
     "Rev 0 (RDMA Consortium) startup frame: markers and CRC expected, DDP/RDMAP version 0"},
    {StartupRevision2, "startup.revision-2", Note, Protocol, "RFC 6581 6", MpaError::None,
     "Rev 2 startup frame (enhanced connection establishment)"},
    {StartupVendorRevision, "startup.vendor-revision", Note, Protocol, "RFC 5044 7.1.1",
     MpaError::None, "Vendor revision 129 (Alibaba erdma): 8-octet extension after the header"},
    {StartupReservedBitsSet, "startup.reserved-bits-set", Warning, Protocol, "RFC 5044 7.1.1",
     MpaError::None,
     "Reserved flag bits set in a startup frame (MUST be zero, not checked on receipt)"},
    {StartupRejectBitInRequest, "startup.reject-bit-in-request", Warning, Protocol,
     "RFC 5044 7.1.1", MpaError::None,
     "R bit set in an MPA Request (MUST be zero, not checked on receipt)"},
    {StartupConnectionRejected, "startup.connection-rejected", Note, Protocol, "RFC 5044 7.1.2",
     MpaError::None, "Responder rejected the connection (R=1); MPA ends on this connection"},
    {StartupEnhancedWithoutRev2, "startup.enhanced-without-rev2", Error, Protocol, "RFC 6581 6",
     MpaError::None, "S bit (enhanced connection establishment) set with Rev below 2"},
    {StartupEnhancedDataMissing, "startup.enhanced-data-missing", Error, Protocol, "RFC 6581 6",
     MpaError::InvalidStartupFrame,
     "S=1 but the private data is too short for the 4-octet IRD/ORD block"},
    {StartupEnhancedMismatch, "startup.enhanced-mismatch", Error, Protocol, "RFC 6581 6",
     MpaError::None,
     "Request and Reply disagree on enhanced connection establishment (S bit / IRD-ORD block)"},
    {StartupRtrFlagsWithoutP2p, "startup.rtr-flags-without-p2p", Warning, Protocol, "RFC 6581 9.2",
     MpaError::None, "RTR flags B/C/D set while A (peer-to-peer) is 0"},
    {StartupP2pMismatch, "startup.p2p-mismatch", Error, Protocol, "RFC 6581 9.2", MpaError::None,
     "Reply's A (peer-to-peer) flag does not echo the Request's"},
    {StartupNoMatchingRtr, "startup.no-matching-rtr", Note, Protocol, "RFC 6581 9.2",
     MpaError::None,
     "Peer-to-peer: no RTR option both sides set (a note: a Responder that supports none of the "
     "offered options names its own, RFC 6581 9.2; unless the Initiator can send one of them it "
     "MUST send a Terminate with code 7)"},
    {StartupInsufficientIrd, "startup.insufficient-ird", Error, Protocol, "RFC 6581 9.1",
     MpaError::InsufficientIrd,
     "IRD/ORD inequality violated (initiator ORD > responder IRD or responder ORD > initiator "
     "IRD)"},
    {StartupInitiatorDataBeforeReply, "startup.initiator-data-before-reply", Error, Protocol,
     "RFC 5044 7.1.2", MpaError::None,
     "Initiator sent data after its Request before the Reply arrived"},
    {StartupStreamingPrefix, "startup.streaming-prefix", Note, Protocol, "RFC 5044 7.1",
     MpaError::None, "Streaming-mode bytes precede the startup frame (delayed startup)"},
    {StartupNoReply, "startup.no-reply", Note, Protocol, "RFC 5044 7.1.2", MpaError::None,
     "MPA Request seen but no Reply by the end of the capture"},
    {StartupPrivateDataOver256, "startup.private-data-over-256", Note, Protocol, "RFC 5044 7.1.1",
     MpaError::None,
     "Private data of 257-512 octets: legal, but Linux siw, Chelsio and erdma refuse it"},
    {StartupNoNegotiationNotEchoed, "startup.no-negotiation-not-echoed", Error, Protocol,
     "RFC 6581 9.1", MpaError::None,
     "Initiator IRD/ORD 0x3FFF (no negotiation) not answered with 0x3FFF in the Reply"},
    // ---- full operation
    {FpduCrcMismatch, "fpdu.crc-mismatch", Error, Checksum, "RFC 5044 4.4", MpaError::CrcError,
     "FPDU CRC32c does not match its contents"},
    {FpduPadNonzero, "fpdu.pad-nonzero", Warning, Protocol, "RFC 5044 4.1", MpaError::None,
     "FPDU pad octets not zero (MUST be zero, ignored on receipt)"},
    {FpduUlpduLengthTooLarge, "fpdu.ulpdu-length-too-large", Warning, Protocol, "RFC 5044 4.5",
     MpaError::None, "ULPDU_Length above 64768: larger than any MULPDU an IP datagram allows"},
    {FpduUlpduLengthZero, "fpdu.ulpdu-length-zero", Note, Protocol, "RFC 5044 4.1", MpaError::None,
     "FPDU with ULPDU_Length 0 (no DDP header; legal framing, odd traffic)"},
    {FpduExceedsMulpdu, "fpdu.exceeds-mulpdu", Note, Protocol, "RFC 5044 4.5", MpaError::None,
     "ULPDU larger than the MULPDU the connection's MSS allows"},
    {FpduNotSegmentAligned, "fpdu.not-segment-aligned", Note, Protocol, "RFC 5044 5.1",
     MpaError::None, "FPDUs are not aligned with TCP segments (one note per direction)"},
    {FpduResponderSentFirst, "fpdu.responder-sent-first", Error, Protocol, "RFC 5044 7.1.2",
     MpaError::None,
     "Responder sent an FPDU or marker before receiving the Initiator's first FPDU"},
    {FpduRtrMissing, "fpdu.rtr-missing", Error, Protocol, "RFC 6581 5", MpaError::NoMatchingRtr,
     "Peer-to-peer: the Initiator's first FPDU is not a negotiated RTR"},
    {FpduNotJudgedAfterError, "fpdu.not-judged-after-error", Note, Protocol, "RFC 5044 8",
     MpaError::None,
     "An error ended MPA in this direction; later FPDUs are counted but not judged"},
    {MarkerFpduptrMismatch, "marker.fpduptr-mismatch", Error, Malformed, "RFC 5044 4.3",
     MpaError::MarkerMismatch, "Marker FPDUPTR disagrees with where the FPDU starts"},
    {MarkerReservedNonzero, "marker.reserved-nonzero", Warning, Malformed, "RFC 5044 4.2",
     MpaError::None, "Marker reserved field not zero (MUST be zero, ignored on receipt)"},
    {MarkerFpduptrLowBits, "marker.fpduptr-low-bits", Warning, Malformed, "RFC 5044 4.2",
     MpaError::None, "FPDUPTR low two bits not zero (MUST be zero, treated as zero on receipt)"},
    {MarkerUnexpected, "marker.unexpected", Error, Malformed, "RFC 5044 7.1.1",
     MpaError::MarkerMismatch, "Markers in a direction whose receiver did not ask for them (M=0)"},
    // ---- connection and capture
    {ConnectionLostMidFpdu, "connection.lost-mid-fpdu", Error, Sequence, "RFC 5044 8",
     MpaError::ConnectionLost, "TCP connection closed or reset inside an FPDU"},
    {ConnectionClosed, "connection.closed", Note, Sequence, "RFC 5044 8", MpaError::ConnectionLost,
     "TCP connection closed at an FPDU boundary"},
    {ConnectionLostMidStartup, "connection.lost-mid-startup", Error, Sequence, "RFC 5044 8",
     MpaError::ConnectionLost, "TCP connection closed or reset inside a startup frame"},
    {TcpRetransmissionMismatch, "tcp.retransmission-mismatch", Error, Sequence, "RFC 793 3.3",
     MpaError::None, "Retransmitted TCP bytes differ from the bytes first sent"},
    {CaptureGap, "capture.gap", Note, Sequence, "RFC 5044 6", MpaError::None,
     "Bytes missing from the capture; what they held could not be verified"},
    {CaptureTruncated, "capture.truncated", Note, Sequence, "RFC 5044 6", MpaError::None,
     "Packets cut by the snapshot length; their FPDUs could not be verified"},
    {CaptureStartupNotSeen, "capture.startup-not-seen", Note, Sequence, "RFC 5044 7.1",
     MpaError::None, "Startup frames not in the capture; startup could not be checked"},
    {CaptureParametersInferred, "capture.parameters-inferred", Note, Sequence, "RFC 5044 6",
     MpaError::None, "Markers and CRC use inferred from the data (or taken from options)"},
    {CaptureIpFragment, "capture.ip-fragment", Note, Sequence, "RFC 791 2.3", MpaError::None,
     "IP datagram incomplete (fragments missing or cut); what it carried could not be verified"},
    {CaptureResynchronised, "capture.resynchronised", Note, Sequence, "RFC 5044 6", MpaError::None,
     "FPDU framing found again after missing bytes"},
    // ---- DDP/RDMAP awareness, Terminate, interop hints
    {DdpVersionMismatch, "ddp.version-mismatch", Warning, Protocol, "RFC 5044 Appendix C",
     MpaError::None,
     "DDP/RDMAP version does not belong to the negotiated MPA revision (0: Rev 0, 1: Rev 1/2)"},
    {DdpUlpduTooShort, "ddp.ulpdu-too-short", Warning, Protocol, "RFC 5041 4", MpaError::None,
     "ULPDU too short to hold the DDP header its control field announces, or the RDMAP header its "
     "opcode needs (RDMA Read Request, Terminate, RFC 7306 Atomic Request and Response)"},
    {RdmapTerminate, "rdmap.terminate", Note, Protocol, "RFC 5040 4.8", MpaError::None,
     "RDMAP Terminate: the peer's own verdict (layer, error type, error code)"},
    {RdmapTerminateDisagrees, "rdmap.terminate-disagrees", Warning, Protocol, "RFC 5040 4.8",
     MpaError::None,
     "Terminate blames an MPA error that mpa-check did not see in the data it refers to, or names "
     "a DDP or RDMAP error other than the first one its peer's segments show, or quotes a DDP "
     "header that is not the segment in error"},
    {RdmapTerminateEncoding, "rdmap.terminate-encoding", Warning, Protocol, "RFC 5040 4.8",
     MpaError::None,
     "Terminate Control laid out as a known stack does, not as RFC 5040 4.8 / RFC 6580: Linux "
     "siw's (Layer/EType nibbles swapped, flags in low bits) or Chelsio cxgb4's and Intel irdma's "
     "(an MPA error as layer 2, error type 3)"},
    {StartupReservedBitSiwGso, "startup.reserved-bit-siw-gso", Warning, Protocol, "RFC 5044 7.1.1",
     MpaError::None,
     "Reserved flag bit 0x08 set: Linux siw's GSO experiment (FPDUs larger than the MSS follow)"},
    {InteropStackFingerprint, "interop.stack-fingerprint", Note, Protocol, "RFC 5044 7.1.1",
     MpaError::None, "Startup frame recognisable as a known implementation's"},
    {InteropP2pRequired, "interop.p2p-required", Note, Protocol, "RFC 6581 9.2", MpaError::None,
     "Rev 2 Request with A=0 refused: the peer likely requires peer-to-peer (Intel irdma)"},
    {InteropRev2RetriedAsRev1, "interop.rev2-retried-as-rev1", Note, Protocol, "RFC 6581 6",
     MpaError::None,
     "A Rev 2 Request was refused and the initiator retried with Rev 1 (Chelsio/Intel fallback)"},
    // ---- sender framing (what a sender did when its FPDUs break RFC 5044 4.1-4.3)
    {FpduFramingLost, "fpdu.framing-lost", Error, Malformed, "RFC 5044 4.1", MpaError::None,
     "FPDU framing lost: the octets at an FPDU boundary are no FPDU and no known sender framing "
     "explains them; the rest of the direction is not judged"},
    {FpduPadRuleWrong, "fpdu.pad-rule-wrong", Error, Malformed, "RFC 5044 4.1", MpaError::None,
     "Sender pads by another rule than RFC 5044 4.1 (FPDU a multiple of 4); the rest is read as "
     "sent"},
    {FpduCrcFieldMissing, "fpdu.crc-field-missing", Error, Malformed, "RFC 5044 4.1",
     MpaError::None,
     "Sender omits the 4-octet CRC field (CRC not in use); the rest is read as sent"},
    {FpduMarkersMissing, "fpdu.markers-missing", Error, Malformed, "RFC 5044 4.2",
     MpaError::MarkerMismatch,
     "Receiver asked for markers (M=1) but the sender inserts none; the rest is read as sent"},
    {FpduUlpduLengthMiscounted, "fpdu.ulpdu-length-miscounted", Error, Malformed, "RFC 5044 4.1",
     MpaError::None, "ULPDU_Length counts other octets than the ULPDU; the rest is read as sent"},
    {FpduFramingUnverifiable, "fpdu.framing-unverifiable", Note, Sequence, "RFC 5044 6",
     MpaError::None,
     "No markers and no CRC in this direction: FPDU boundaries rest on ULPDU_Length and the "
     "plausibility of the DDP headers alone"},
    // ---- startup, added later
    {StartupInvalidRequestAnswered, "startup.invalid-request-answered", Error, Protocol,
     "RFC 5044 7.1.2", MpaError::None,
     "Responder answered an improperly formatted MPA Request (with a Reply or data) instead of "
     "closing "
     "the connection"},
    {StartupNoNegotiationUnsolicited, "startup.no-negotiation-unsolicited", Warning, Protocol,
     "RFC 6581 9.1", MpaError::None,
     "Reply IRD 0x3FFF (no negotiation) although the Initiator's ORD was not 0x3FFF: 0x3FFF only "
     "answers "
     "0x3FFF"},
    {CaptureStartupFrameCut, "capture.startup-frame-cut", Note, Sequence, "RFC 5044 7.1",
     MpaError::None,
     "The capture ends inside a startup frame; the rest of it could not be checked"},
    {StartupInvalidReplyIgnored, "startup.invalid-reply-ignored", Error, Protocol, "RFC 5044 7.1.2",
     MpaError::None,
     "Initiator went on sending FPDUs after an improperly formatted MPA Reply instead of closing "
     "the connection (a Terminate first is allowed)"},
    {StartupReplyBeforePrivateData, "startup.reply-before-private-data", Error, Protocol,
     "RFC 5044 7.1.2", MpaError::None,
     "Responder sent its MPA Reply before the private data the Request's PD_Length announced had "
     "arrived, so it cannot have validated the Request"},
    // ---- IP reassembly
    {IpFragmentOverlapMismatch, "ip.fragment-overlap-mismatch", Error, Sequence, "RFC 5722 4",
     MpaError::None,
     "Overlapping IP fragments carry different octets: what the receiver reassembled is unknown "
     "(RFC 5722 discards such an IPv6 datagram); the octets captured first are analysed"},
    // ---- retransmissions, added later
    {TcpRetransmissionCheckStopped, "tcp.retransmission-check-stopped", Note, Sequence,
     "RFC 793 3.3", MpaError::None,
     "The peer's acknowledgements lag further behind than retransmissions are compared; older "
     "octets, which TCP may still resend, are no longer compared with those first sent"},
    // ---- sender rules of RFC 5044 4.4 and RFC 6581 9-10, added later
    // A note: C=0 both ways is legal when the path protects the data as well as CRC32c (RFC
    // 5044 1.2, 4.4 (2b)), and that protection is not on the wire; Linux siw runs so by default.
    {StartupCrcDisabled, "startup.crc-disabled", Note, Protocol, "RFC 5044 4.4", MpaError::None,
     "Both startup frames have C=0: no CRCs on this connection, legal only where the path protects "
     "the data at least as well as CRC32c (not visible in a capture)"},
    // An error like fpdu.crc-mismatch (the receiver must reject the FPDU), named by what the
    // sender computed instead: the CRC32c byte-swapped, not inverted, or no CRC at all (zero).
    {FpduCrcMiscomputed, "fpdu.crc-miscomputed", Error, Checksum, "RFC 5044 4.4",
     MpaError::CrcError,
     "FPDU CRC is the right CRC32c computed or written a recognisable wrong way (byte-swapped, not "
     "inverted) or zero: the sender does not make CRCs as RFC 5044 4.4 defines them"},
    // A warning: a MUST broken, and the peer reads other IRD/ORD values than were meant; the
    // byte order is recognised by the values' plausibility, not proven.
    {StartupEnhancedBlockLittleEndian, "startup.enhanced-block-little-endian", Warning, Malformed,
     "RFC 6581 9", MpaError::None,
     "IRD/ORD block sent little-endian (each 16-bit half byte-swapped): read in network order its "
     "values are implausible, swapped they are not; the rest is judged as meant"},
    // A warning: a MUST NOT whose breach is certain on the wire (nothing is left to negotiate),
    // costing only interoperability with unenhanced Responders.
    {StartupEnhancedNegotiatesNothing, "startup.enhanced-negotiates-nothing", Warning, Protocol,
     "RFC 6581 10", MpaError::None,
     "Enhanced Request (S=1) that negotiates nothing (A=0, IRD and ORD 0x3FFF): RFC 6581 10 asks "
     "for an unenhanced Request then"},
    // ---- RDMAP over MPA, added later
    {RdmapIrdExceeded, "rdmap.ird-exceeded", Error, Protocol, "RFC 6581 9.1", MpaError::None,
     "More RDMA Read and Atomic Requests outstanding than the IRD the peer declared in its startup "
     "frame (counted from the capture, answered in order): an error, since the peer may refuse "
     "the request and terminate the connection"},
    // ---- the startup exchange as the peer reacted
    {StartupInvalidReplyKeptOpen, "startup.invalid-reply-kept-open", Error, Protocol,
     "RFC 5044 7.1.2", MpaError::None,
     "Initiator kept the connection open after an improperly formatted MPA Reply: it had "
     "acknowledged the Reply and sent nothing, and the Responder closed first (an error: the "
     "Initiator MUST close at once, RFC 5044 7.1.2 rules 3 and 5, section 8)"},
    {StartupRequestClosedWithoutReply, "startup.request-closed-without-reply", Warning, Protocol,
     "RFC 5044 7.1.2", MpaError::None,
     "Responder closed the connection on a properly formatted Rev 1 MPA Request without any Reply "
     "(a warning: it SHOULD answer with a Reply, R=1 to reject, and leave TCP to its ULP)"},
    {StartupMarkersRefused, "startup.markers-refused", Warning, Protocol, "RFC 5044 4.3",
     MpaError::None,
     "A side asked for markers (M=1) and its peer refused the connection (a Reject, or a close "
     "without entering full operation): every sender MUST be able to generate markers (a warning: "
     "the refusal may have had another cause)"},
    {StartupNegotiationTerminateMissing, "startup.negotiation-terminate-missing", Error, Protocol,
     "RFC 6581 9.1", MpaError::None,
     "Initiator left a failed IRD/ORD or RTR negotiation without the Terminate RFC 6581 9.1/9.2 "
     "require (Layer 2, Error Type 0, code 6 for insufficient IRD, 7 for no usable RTR): it "
     "closed without one, or sent one with another code (an error: a MUST)"},
    {StartupReplyWithoutRtr, "startup.reply-without-rtr", Warning, Protocol, "RFC 6581 9.2",
     MpaError::None,
     "Peer-to-peer Reply (A=1) accepts with no RTR option set (a warning: RFC 6581 9.2's MUSTs "
     "require one unless the Responder supports exactly one offered option, when only its SHOULD "
     "is broken; the wire cannot tell which)"},
    {StartupFpduAfterReject, "startup.fpdu-after-reject", Error, Protocol, "RFC 5044 7.1.2",
     MpaError::None,
     "FPDUs after a Reply that rejected the connection (R=1), where both sides MUST have left MPA "
     "(an error; found only by a framing that FPDUs alone explain: CRCs that match, or DDP headers "
     "throughout)"},
    // ---- the receiver's reaction to a CRC or marker error (error codes 2 and 3) in the FPDUs
    // it received, judged only where its acknowledgement shows it had them.
    // Error: a Read Response answering a Read Request carried in (or after) the FPDU with the
    // error proves the receiver passed that FPDU on, which RFC 5044 6 and 8 forbid (MUST).
    {ReceiverInvalidFpduAnswered, "receiver.invalid-fpdu-answered", Error, Protocol, "RFC 5044 6",
     MpaError::None,
     "Receiver answered an RDMA Read Request carried in, or after, an FPDU with a CRC or marker "
     "error: it passed on an FPDU it must have rejected"},
    // Warning: its FPDUs sent after it acknowledged the bad FPDU, and no Terminate before its
    // stream ended, show the error went unreported or ignored; but its outgoing FPDUs do not
    // prove it delivered the bad one, and RFC 5044 8 lets last messages go out before DDP's
    // ULP tears down: evidence of a missed error, not a broken MUST on the wire.
    {ReceiverErrorIgnored, "receiver.error-ignored", Warning, Protocol, "RFC 5044 8",
     MpaError::None,
     "Receiver went on sending FPDUs after it acknowledged an FPDU with a CRC or marker error, "
     "and its stream ended without a Terminate"},
    // Warning: MPA must not close for errors 2 and 3 (RFC 5044 8), but its ULP may; a close
    // with no Terminate first looks like MPA's (RDMAP SHOULD send a Terminate on an LLP error, RFC
    // 5040 6.2.1),
    // yet the wire cannot tell whose close it was.
    {ReceiverClosedAfterError, "receiver.closed-after-error", Warning, Sequence, "RFC 5044 8",
     MpaError::None,
     "Receiver closed the connection (FIN or RST) after acknowledging an FPDU with a CRC or marker "
     "error, sending nothing in between (no Terminate first)"},
    // ---- added with the conformance matrix's receiver rules
    // Error, as startup.invalid-reply-kept-open: the Responder MUST close on an improperly
    // formatted Request (RFC 5044 7.1.1, 7.1.2 rule 2), at once (section 8), and the capture
    // shows it had the whole Request and was still open, silent, when the Initiator gave up.
    {StartupInvalidRequestKeptOpen, "startup.invalid-request-kept-open", Error, Protocol,
     "RFC 5044 7.1.2", MpaError::None,
     "Responder kept the connection open after an improperly formatted MPA Request: it had "
     "acknowledged the Request and sent nothing, and the Initiator closed first (an error: the "
     "Responder MUST close at once, RFC 5044 7.1.2 rule 2, section 8)"},
    // Warning: a receiver MUST ignore the pad's value, a marker's reserved field and FPDUPTR's
    // low bits (RFC 5044 4.1-4.3); one that stops taking the stream at the first FPDU showing
    // one and closes has most likely refused it, but the close may have had another cause.
    {ReceiverLegalFpduRefused, "receiver.legal-fpdu-refused", Warning, Protocol, "RFC 5044 4.1",
     MpaError::None,
     "Receiver closed the connection right after an FPDU whose only oddity is legal (non-zero pad, "
     "a marker's reserved field or FPDUPTR low bits set, which it MUST ignore): it acknowledged "
     "that FPDU, then nothing more the sender sent, and closed without sending anything"},
    // ---- what MPA carries, as a DDP Stream of RDMAP messages (lib/src/ulp/ddp_stream.cpp).
    // Errors: each breaks a MUST of RFC 5041 or RFC 5040 on the wire; where RFC 5041 7.2 or RFC
    // 5040 4.8 names the Terminate a conforming receiver answers with, the summary and each
    // finding's message carry its layer, error type and code. ddp.segments-out-of-order breaks a
    // SHOULD (RFC 5041 5.3): a warning.
    {DdpReservedNonzero, "ddp.reserved-nonzero", Error, Protocol, "RFC 5041 4.1", MpaError::None,
     "DDP Control field's reserved bits set (MUST be zero on transmit, not checked on receive)"},
    {DdpVersionChanged, "ddp.version-changed", Error, Protocol, "RFC 5041 4.1", MpaError::None,
     "DDP version (DV) changed within the DDP Stream (Terminate: DDP, error type 1 or 2, code "
     "0x04 or 0x06, invalid DDP version)"},
    {DdpQueueInvalid, "ddp.queue-invalid", Error, Protocol, "RFC 5041 7.1", MpaError::None,
     "Untagged DDP Segment on a queue RDMAP does not define (0 Send, 1 Read Request, 2 Terminate; "
     "RFC 7306's 3 and 4) (Terminate: DDP, error type 2, code 0x01, invalid QN)"},
    {DdpMsnInvalid, "ddp.msn-invalid", Error, Protocol, "RFC 5041 4.3", MpaError::None,
     "Untagged DDP Segment's MSN is not its queue's next (1 first, then one more per message; "
     "the same within a message) (Terminate: DDP, error type 2, code 0x03, MSN range not valid)"},
    {DdpMessageUnfinished, "ddp.message-unfinished", Error, Protocol, "RFC 5041 4.1",
     MpaError::None,
     "DDP Message left without its Last flag: a new message began on its queue (untagged: a new "
     "MSN; tagged: another STag or TO) before a segment with L=1 closed it"},
    {DdpSegmentsOutOfOrder, "ddp.segments-out-of-order", Warning, Protocol, "RFC 5041 5.3",
     MpaError::None,
     "DDP Segment of a message whose MO (untagged) or TO (tagged) does not go on where the "
     "previous segment's payload ended (SHOULD be sent in increasing order; MO 0 first)"},
    {DdpStagChanged, "ddp.stag-changed", Error, Protocol, "RFC 5041 4.2", MpaError::None,
     "Tagged DDP Segment continuing a message (TO where the previous segment ended) with another "
     "STag: every segment of a tagged message carries the same STag"},
    {RdmapOpcodeInvalid, "rdmap.opcode-invalid", Error, Protocol, "RFC 5040 4.1", MpaError::None,
     "RDMAP opcode that neither RFC 5040 nor RFC 7306 defines (Terminate: RDMAP, error type 2, "
     "code 0x06, unexpected opcode)"},
    {RdmapOpcodeMisplaced, "rdmap.opcode-misplaced", Error, Protocol, "RFC 5040 4.1",
     MpaError::None,
     "RDMAP message in the wrong DDP model or queue (RDMA Write and Read Response tagged; Sends "
     "on queue 0, Read Request on 1, Terminate on 2) (Terminate: RDMAP, error type 2, code 0x06, "
     "unexpected opcode)"},
    {RdmapReservedNonzero, "rdmap.reserved-nonzero", Error, Protocol, "RFC 5040 4.1",
     MpaError::None,
     "RDMAP Control field's reserved bits set, an Invalidate STag in a Send, Send with SE, "
     "Read Request or Terminate, or a Terminate header's 13 Reserved bits (RFC 5040 4.8) (MUST "
     "be zero on transmit, ignored on receive)"},
    {RdmapAfterTerminate, "rdmap.after-terminate", Error, Protocol, "RFC 5040 5.4", MpaError::None,
     "FPDU sent after a Terminate in the same direction (MUST NOT send any more Messages)"},
    // ---- RDMA Read Responses against their Requests; Terminate Control values
    {RdmapReadResponseMismatch, "rdmap.read-response-mismatch", Error, Protocol, "RFC 5040 4.4",
     MpaError::None,
     "RDMA Read Response whose STag or tagged offset is not the Data Sink STag and TO of the "
     "Read Request it answers (MUST be copied from the Request; its receiver: Terminate RDMAP, "
     "error type 1, code 0x00 invalid STag or 0x01 base or bounds violation)"},
    {RdmapReadResponseLength, "rdmap.read-response-length", Error, Protocol, "RFC 5040 5.2",
     MpaError::None,
     "RDMA Read Response whose length is not the RDMA Read Message Size of the Read Request it "
     "answers (a zero-length Request MUST get a zero-length Response; its receiver: Terminate "
     "RDMAP, error type 1, code 0x01 base or bounds violation)"},
    {RdmapReadResponseOutOfOrder, "rdmap.read-response-out-of-order", Error, Protocol,
     "RFC 5040 5.2.1", MpaError::None,
     "RDMA Read Response answering a later Read Request while an earlier one is unanswered "
     "(Requests MUST be processed, and answered, in the order they were sent)"},
    {RdmapReadResponseUnrequested, "rdmap.read-response-unrequested", Error, Protocol,
     "RFC 5040 5.2", MpaError::None,
     "RDMA Read Response while no Read Request of its receiver is outstanding (one Response per "
     "Request; its receiver: Terminate RDMAP, error type 2, code 0x06 unexpected opcode)"},
    {RdmapReadTrackingStopped, "rdmap.read-tracking-stopped", Note, Sequence, "RFC 5040 5.2",
     MpaError::None,
     "more RDMA Read Requests outstanding than mpa-check keeps: their Read Responses are no "
     "longer held to them on this connection"},
    {RdmapTerminateInvalid, "rdmap.terminate-invalid", Error, Protocol, "RFC 5040 4.8",
     MpaError::None,
     "Terminate whose layer, error type or error code RFC 5040 Figure 9 (RDMAP), RFC 5041 7.2 "
     "(DDP) or RFC 5044 8 / RFC 6581 8 (MPA) does not define"},
    // Errors: each breaks a MUST of RFC 5041 that the whole message shows (all its segments
    // seen), not one segment alone.
    {DdpMoInvalid, "ddp.mo-invalid", Error, Protocol, "RFC 5041 5.2", MpaError::None,
     "Untagged DDP Message whose segments' MOs do not cover its octets from 0 to the Last "
     "segment's end exactly (no segment at MO 0, a gap, an overlap, or a segment beyond the Last "
     "one) (Terminate: DDP, error type 2, code 0x04, invalid MO)"},
    {DdpZeroLengthSplit, "ddp.zero-length-split", Error, Protocol, "RFC 5041 5.2", MpaError::None,
     "Zero-length DDP Message sent as more than one DDP Segment (MUST consume exactly one; a "
     "receiver does not validate zero-length segments, RFC 5041 7.1: no Terminate code)"},
    {DdpMessageOpenAtClose, "ddp.message-open-at-close", Error, Protocol, "RFC 5041 4.1",
     MpaError::None,
     "Sender closed its stream first (FIN, at an FPDU boundary, its peer still open) with a DDP "
     "Message whose segments had not carried the Last flag (no Terminate: the receiver sees its "
     "LLP close)"},
    // RFC 7306's layouts as Wireshark's packet-iwarp-ddp-rdmap.c decodes them (its text is not
    // in the tree, so no section is named).
    {RdmapAtomicOpcodeInvalid, "rdmap.atomic-opcode-invalid", Error, Protocol, "RFC 7306",
     MpaError::None,
     "Atomic Request whose Atomic Operation Code (the low 4 bits of the word after the DDP "
     "header) is neither FetchAdd (0) nor CmpSwap (2), the operations Wireshark's RFC 7306 "
     "decoder names"},
    {RdmapAtomicResponseUnrequested, "rdmap.atomic-response-unrequested", Error, Protocol,
     "RFC 7306", MpaError::None,
     "Atomic Response whose Original Request Identifier is that of no Atomic Request of its "
     "receiver still unanswered (or none is outstanding)"},
    // Warning, as receiver.closed-after-error: RFC 5040 7.1 requires the Terminate, but the wire
    // cannot show a host that failed before it could send one.
    {ReceiverTerminateMissing, "receiver.terminate-missing", Warning, Protocol, "RFC 5040 7.1",
     MpaError::None,
     "Receiver acknowledged a DDP Segment with an error it must detect (an invalid QN, an "
     "undefined RDMAP opcode), then closed (FIN or RST) without a Terminate, having sent FPDUs "
     "since or closed while its peer was still open"},
    {RdmapPayloadNotAllowed, "rdmap.payload-not-allowed", Error, Protocol, "RFC 5040 4.2",
     MpaError::None,
     "RDMA Read Request or Terminate longer than its DDP and RDMAP headers (a Terminate's with "
     "every part RFC 5040 4.8 lets it hold): RFC 5040 4.2 allows neither a ULP payload"},
    {DdpTaggedOffsetsInconsistent, "ddp.tagged-offsets-inconsistent", Error, Protocol,
     "RFC 5041 5.2", MpaError::None,
     "Tagged DDP Message (its segments from the first to the one with the Last flag) whose "
     "segments' payloads [TO, TO + length) do not tile one interval: two carry the same TOs, or, "
     "all its segments seen, TOs between them are carried by none (each TO MUST be the initial TO "
     "plus the payload's offset in the message; no Terminate: a receiver need not check)"},
    // Warning, as receiver.terminate-missing: the Response shows the Request placed,
    // but not why the receiver missed the error (RFC 5041 7.1 requires it to detect it).
    {ReceiverSegmentAfterErrorPlaced, "receiver.segment-after-error-placed", Warning, Protocol,
     "RFC 5041 7.1", MpaError::None,
     "Receiver answered with an RDMA Read Response (or an RFC 7306 Atomic Response) a Request its "
     "peer sent after a DDP Segment with an error it must detect (an invalid QN, an undefined "
     "RDMAP opcode): its DDP did not silently drop the segments after the one in error"},
}};

// The field each finding is about (DiagnosticInfo::field), as the library reports it: an FPDU
// finding's sequence number lies in that FPDU (its ULPDU_Length field for most, the marker's
// first octet for a marker's), a startup frame finding's is the frame's first octet. Findings
// the library reports at the stream position of an event (a close, an acknowledgement, the
// capture's end) are about no field. Every DiagId is listed in one of the three lists below:
// a new one does not compile until it says which field it is about (every_id_has_a_field).

// The findings about a startup frame or one of its fields.
constexpr std::optional<DiagField> startup_field_of(DiagId id) {
  using enum DiagField;
  switch (id) {
    case StartupKeyInvalid:
    case StartupUnexpectedRequest:  // the key names the frame's kind
    case StartupUnexpectedReply:
      return StartupKey;
    case StartupPdLengthTooLarge:
    case StartupPdLengthMismatch:
    case StartupPrivateDataOver256:
      return StartupPdLength;
    case StartupRevisionUnsupported:
    case StartupRevision0:
    case StartupRevision2:
    case StartupVendorRevision:
    case InteropRev2RetriedAsRev1:
      return StartupRevision;
    case StartupReservedBitsSet:
    case StartupReservedBitSiwGso:
    case StartupRejectBitInRequest:
    case StartupConnectionRejected:
    case StartupEnhancedWithoutRev2:
    case StartupCrcDisabled:
    case StartupMarkersRefused:
      return StartupFlags;
    case StartupEnhancedDataMissing:
      return StartupPrivateData;
    case StartupEnhancedMismatch:
    case StartupRtrFlagsWithoutP2p:
    case StartupP2pMismatch:
    case StartupNoMatchingRtr:
    case StartupInsufficientIrd:
    case StartupNoNegotiationNotEchoed:
    case StartupNoNegotiationUnsolicited:
    case StartupEnhancedBlockLittleEndian:
    case StartupEnhancedNegotiatesNothing:
    case StartupReplyWithoutRtr:
      return StartupEnhanced;
    case StartupInvalidRequestAnswered:  // the answer (a Reply) to the invalid Request
    case StartupReplyBeforePrivateData:  // the Reply sent too early
    case InteropStackFingerprint:
      return StartupFrame;
    default:
      return std::nullopt;
  }
}

// The findings about an FPDU or one of its fields.
constexpr std::optional<DiagField> fpdu_field_of(DiagId id) {
  using enum DiagField;
  switch (id) {
    case FpduCrcMismatch:
    case FpduCrcMiscomputed:
    case FpduCrcFieldMissing:
      return Crc;
    case FpduPadNonzero:
    case FpduPadRuleWrong:
      return Pad;
    case FpduUlpduLengthTooLarge:
    case FpduUlpduLengthZero:
    case FpduExceedsMulpdu:
    case FpduUlpduLengthMiscounted:
      return UlpduLength;
    case MarkerFpduptrMismatch:
    case MarkerReservedNonzero:
    case MarkerFpduptrLowBits:
    case MarkerUnexpected:
      return Marker;
    case FpduRtrMissing:
    case DdpVersionMismatch:
    case DdpUlpduTooShort:
    case RdmapTerminate:
    case RdmapTerminateDisagrees:
    case RdmapTerminateEncoding:
    case RdmapIrdExceeded:
    case DdpReservedNonzero:
    case DdpVersionChanged:
    case DdpQueueInvalid:
    case DdpMsnInvalid:
    case DdpMessageUnfinished:
    case DdpSegmentsOutOfOrder:
    case DdpStagChanged:
    case RdmapOpcodeInvalid:
    case RdmapOpcodeMisplaced:
    case RdmapReservedNonzero:
    case RdmapAfterTerminate:
    case RdmapReadResponseMismatch:
    case RdmapReadResponseLength:
    case RdmapReadResponseOutOfOrder:
    case RdmapReadResponseUnrequested:
    case RdmapReadTrackingStopped:  // the Read Request beyond the ceiling
    case RdmapTerminateInvalid:
    case DdpMoInvalid:
    case DdpZeroLengthSplit:
    case RdmapAtomicOpcodeInvalid:
    case RdmapAtomicResponseUnrequested:
    case RdmapPayloadNotAllowed:
    case DdpTaggedOffsetsInconsistent:
      return Ulpdu;
    case FpduNotSegmentAligned:
    case FpduResponderSentFirst:
    case FpduNotJudgedAfterError:
    case FpduMarkersMissing:
    case CaptureResynchronised:               // the FPDU where framing was found again
    case StartupInvalidReplyIgnored:          // the FPDU sent after the invalid Reply
    case StartupFpduAfterReject:              // the first FPDU after the Reject
    case StartupNegotiationTerminateMissing:  // the Terminate with the wrong code, if one
    case ReceiverInvalidFpduAnswered:         // the Read Response
    case ReceiverErrorIgnored:                // the FPDU sent after the bad one
    case ReceiverLegalFpduRefused:  // the Read Response that skipped it (or, apart, the close)
    case ReceiverSegmentAfterErrorPlaced:  // the Read Response
      return Fpdu;
    default:
      return std::nullopt;
  }
}

// The findings about no field: an event, a direction or the capture.
constexpr bool about_no_field(DiagId id) {
  switch (id) {
    case StartupInitiatorDataBeforeReply:
    case StartupStreamingPrefix:
    case StartupNoReply:
    case StartupInvalidReplyKeptOpen:
    case StartupInvalidRequestKeptOpen:
    case StartupRequestClosedWithoutReply:
    case FpduFramingUnverifiable:
    case FpduFramingLost:     // octets at an FPDU boundary that are no FPDU
    case InteropP2pRequired:  // the refusal of the Request (a Reject or a close)
    case ConnectionLostMidFpdu:
    case ConnectionClosed:
    case ConnectionLostMidStartup:
    case TcpRetransmissionMismatch:
    case TcpRetransmissionCheckStopped:
    case CaptureGap:
    case CaptureTruncated:
    case CaptureStartupNotSeen:
    case CaptureParametersInferred:
    case CaptureIpFragment:
    case CaptureStartupFrameCut:
    case IpFragmentOverlapMismatch:
    case ReceiverClosedAfterError:
    case DdpMessageOpenAtClose:     // the sender's close
    case ReceiverTerminateMissing:  // the receiver's close
      return true;
    default:
      return false;
  }
}

constexpr DiagField field_of(DiagId id) {
  if (const std::optional<DiagField> field = startup_field_of(id)) return *field;
  if (const std::optional<DiagField> field = fpdu_field_of(id)) return *field;
  return DiagField::None;
}

// Every DiagId is in exactly one of the three lists.
constexpr bool every_id_has_a_field() {
  for (std::size_t i = 0; i < static_cast<std::size_t>(kCount); ++i) {
    const DiagId id = static_cast<DiagId>(i);
    const int lists = int{startup_field_of(id).has_value()} + int{fpdu_field_of(id).has_value()} +
                      int{about_no_field(id)};
    if (lists != 1) return false;
  }
  return true;
}
static_assert(every_id_has_a_field(),
              "every DiagId says the field it is about (or none) in exactly one list");

constexpr std::array<DiagnosticInfo, static_cast<std::size_t>(kCount)> with_fields(
    std::array<DiagnosticInfo, static_cast<std::size_t>(kCount)> entries) {
  for (DiagnosticInfo& entry : entries) entry.field = field_of(entry.id);
  return entries;
}

constexpr auto kCatalogue = with_fields(kEntries);

constexpr bool ids_in_enum_order() {
  for (std::size_t i = 0; i < kCatalogue.size(); ++i) {
    if (static_cast<std::size_t>(kCatalogue[i].id) != i) return false;
  }
  return true;
}
constexpr bool names_unique() {
  for (std::size_t i = 0; i < kCatalogue.size(); ++i) {
    for (std::size_t j = i + 1; j < kCatalogue.size(); ++j) {
      if (kCatalogue[i].name == kCatalogue[j].name) return false;
    }
  }
  return true;
}
constexpr bool every_entry_cites_an_rfc() {
  for (const auto& entry : kCatalogue) {
    if (!entry.rfc.starts_with("RFC ") || entry.summary.empty() || entry.name.empty()) return false;
  }
  return true;
}
constexpr bool error_codes_in_range() {
  for (const auto& entry : kCatalogue) {
    if (number(entry.error_code) > kMpaErrorMax) return false;
  }
  return true;
}
static_assert(ids_in_enum_order(), "catalogue entries must follow DiagId order");
static_assert(names_unique(), "catalogue ids must be unique");
static_assert(every_entry_cites_an_rfc(), "every catalogue entry needs an RFC reference");
static_assert(error_codes_in_range(), "RFC error codes are 1-7 (0 = none)");

}  // namespace

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::Note:
      return "note";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "?";
}

std::string_view to_string(DiagField field) {
  switch (field) {
    case DiagField::None:
      return "none";
    case DiagField::Fpdu:
      return "fpdu";
    case DiagField::UlpduLength:
      return "ulpdu-length";
    case DiagField::Ulpdu:
      return "ulpdu";
    case DiagField::Pad:
      return "pad";
    case DiagField::Crc:
      return "crc";
    case DiagField::Marker:
      return "marker";
    case DiagField::StartupFrame:
      return "startup-frame";
    case DiagField::StartupKey:
      return "startup-key";
    case DiagField::StartupFlags:
      return "startup-flags";
    case DiagField::StartupRevision:
      return "startup-revision";
    case DiagField::StartupPdLength:
      return "startup-pd-length";
    case DiagField::StartupPrivateData:
      return "startup-private-data";
    case DiagField::StartupEnhanced:
      return "startup-enhanced";
  }
  return "?";
}

std::string_view describe(MpaError code) {
  switch (code) {
    case MpaError::None:
      return "no MPA error";
    case MpaError::ConnectionLost:
      return "TCP connection closed, terminated or lost";
    case MpaError::CrcError:
      return "MPA CRC error";
    case MpaError::MarkerMismatch:
      return "MPA marker and ULPDU_Length disagree";
    case MpaError::InvalidStartupFrame:
      return "invalid MPA Request or Reply frame";
    case MpaError::LocalCatastrophic:
      return "local catastrophic error";
    case MpaError::InsufficientIrd:
      return "insufficient IRD resources";
    case MpaError::NoMatchingRtr:
      return "no matching RTR option";
  }
  return "unknown MPA error";
}

const DiagnosticInfo& info(DiagId id) { return kCatalogue[static_cast<std::size_t>(id)]; }

std::span<const DiagnosticInfo> catalogue() { return kCatalogue; }

std::optional<DiagId> find_diagnostic(std::string_view name) {
  for (const auto& entry : kCatalogue) {
    if (entry.name == name) return entry.id;
  }
  return std::nullopt;
}

}  // namespace mpa
