// The conformance matrix (see conformance.h): every normative rule of RFC 5044 and RFC 6581,
// read against what the catalogue's deciders check. Checked at compile time: ids unique and
// named after their section, coverage consistent with observability and ids, every checked
// rule backed by a capture, every catalogue entry tied to a rule or said to be beyond them.
// The RFC texts themselves (line ranges, quotes, every keyword accounted for) and the
// captures' expectations are checked by tests/unit/conformance_test.cpp.
#include "mpa/conformance.h"

#include <algorithm>
#include <cstddef>

namespace mpa {
namespace {

using enum DiagId;
using enum Rfc;
using enum Requirement;
using enum Observable;
using enum Coverage;
using Ids = RuleIds;
using Caps = RuleCaptures;

// Words that several rules share.
constexpr std::string_view kInsideHost = "an interface inside the host, between MPA and DDP";
constexpr std::string_view kSctpOnly =
    "RFC 5043 (DDP over SCTP) session control: mpa-check reads MPA over TCP only";
// How a receiver's refusal of a marker's legal oddity shows (the oddity is named before it;
// a macro so that both rules' texts stay compile-time literals).
#define MPA_MARKER_ODDITY_REFUSED                                                         \
  "a receiver that acknowledges the first FPDU showing it, then takes nothing more and "  \
  "closes sending nothing while its peer had sent more, or that never answers a Read "    \
  "Request carried in it while answering the next, is named "                             \
  "(receiver.legal-fpdu-refused, a warning); a Terminate blaming a marker error (MPA "    \
  "error 3) where mpa-check saw none is rdmap.terminate-disagrees (Linux siw's code 3, "  \
  "which it also sends for a ULPDU too short for its headers, is not taken for a marker " \
  "claim when mpa-check saw such a ULPDU); one whose TCP acknowledged later octets "      \
  "before it closed is not told apart from one that ended the conversation, a Terminate " \
  "of another kind is the receiver's verdict on what the FPDU carries, not told apart "   \
  "from a refusal, and one that drops the FPDU silently shows it only through a Read "    \
  "Request it leaves unanswered"
// A receiver that refuses an FPDU for its FPDUPTR low bits (legal input).
constexpr std::string_view kLowBitsRefused =
    "a marker whose FPDUPTR has its low bits set: " MPA_MARKER_ODDITY_REFUSED;
constexpr std::string_view kInitiatorWentOn =
    "an Initiator that goes on sending FPDUs (a Terminate first is allowed) is named, and one "
    "that acknowledged the Reply, sent nothing and had not closed when the Responder closed; "
    "one that stays silent and open until the capture ends is not judged (the capture cannot "
    "show how long it would have waited), and the error it reports locally is inside it";
constexpr std::string_view kMulpduFromMss =
    "the MULPDU is computed from the MSS option of the receiver's SYN (no check where the SYN was "
    "not captured), not from the EMSS the sender's TCP used: the TCP options its segments carry "
    "(timestamps: 12 octets) lower the EMSS, and a ULPDU above the MULPDU they leave but within "
    "the MSS's is not named; MPA MAY lower the MULPDU, so only ULPDUs above it are named, once per "
    "direction, as a note";
constexpr std::string_view kMulpduCeiling =
    "the MULPDU is a ceiling offered to DDP and ULPDUs below 128 octets are legal, so the ceiling "
    "is not on the wire";
constexpr std::string_view kRev1Refused =
    "a Responder that closes on a properly formatted Rev 1 Request without any Reply is "
    "warned of (startup.request-closed-without-reply), one that answers it with an enhanced "
    "Reply is startup.enhanced-mismatch; a Reject (R=1) is the ULP's to give, and one of a "
    "Rev 1 Request is not told apart from one of its private data";
constexpr std::string_view kNoRtrFlag =
    "only an accepting peer-to-peer Reply (A=1) with no RTR flag set shows the breach "
    "(startup.reply-without-rtr, a warning: which options the Responder supports is inside "
    "it, so the MUSTs and the SHOULD of RFC 6581 9.2 cannot be told apart); a Reply naming "
    "only options the Initiator did not offer is allowed (startup.no-matching-rtr, a note)";

// What the receiver's reaction to a CRC or marker error (receiver.*) leaves unseen.
constexpr std::string_view kBadFpduTakenAsGood =
    "a receiver that answers a Read Request carried in (or after) the FPDU with the error is "
    "named, one that goes on sending FPDUs after acknowledging it and never sends a Terminate "
    "is a warning; one that acts on it only in ways the wire does not show (a Send delivered, "
    "a Write placed) leaves nothing in the capture, and one that stops silently behaves as "
    "rejecting it would";
constexpr std::string_view kAnsweredCapture = "fault-receiver.invalid-fpdu-answered.pcap";
constexpr std::string_view kIgnoredCapture = "fault-receiver.error-ignored.pcap";
constexpr std::string_view kClosedCapture = "fault-receiver.closed-after-error.pcap";

// The evidence of the receiver rules that a Terminate blaming an absent error shows.
constexpr std::string_view kTerminateDisagrees = "fault-rdmap.terminate-disagrees.pcap";
// A Terminate in Chelsio cxgb4's and Intel irdma's layout blaming a CRC error without CRCs.
constexpr std::string_view kTerminateDisagreesCrcOff =
    "fault-rdmap.terminate-disagrees--cxgb4-irdma-crc-off.pcap";
// A receiver that checks the CRC field without CRCs.
constexpr std::string_view kCrcFieldChecked =
    "CRCs off: a Terminate blaming a CRC error (MPA error 2, in RFC 5040's layout, Linux "
    "siw's or Chelsio cxgb4's and Intel irdma's) is rdmap.terminate-disagrees; a receiver "
    "that acknowledges the first FPDU whose CRC field is not its CRC32c, then takes nothing "
    "more and closes sending nothing while its peer had sent more, or never answers a Read "
    "Request carried in it while answering the next, is receiver.legal-fpdu-refused (a "
    "warning); one whose TCP acknowledged later octets before it closed is not told apart "
    "from one that ended the conversation, a Terminate of another kind is the receiver's "
    "verdict on what the FPDU carries, and one that drops every FPDU silently answers no Read "
    "Request at all, which no capture tells from a peer with none to answer yet";

// The rules, in RFC and line order. Fields: id, RFC, section, first and last line, keyword,
// the RFC's words, ours, where a breach shows (and why not, if nowhere), the ids that check
// it, coverage (and what is missing), the captures that show those ids.
constexpr std::array kRules = std::to_array<ConformanceRule>({
    {"5044-1.2-r1", Rfc5044, "1.2", 371, 375, Must,
     "MPA implementations that support recovery of out-of-order ULPDUs MUST support a mechanism to "
     "indicate the ordering of ULPDUs",
     "An MPA that recovers out-of-order ULPDUs tells DDP their order as sent and when missing "
     "segments arrive.",
     No, kInsideHost, Ids{}, None, "", Caps{}},
    {"5044-1.2-r2", Rfc5044, "1.2", 388, 392, Must,
     "CRCs MUST be enabled unless it is clear that the end-to-end connection through the network "
     "has data integrity at least as good as an MPA with CRC enabled",
     "CRCs are on unless the path protects data end to end at least as well (IPsec, say).", Sender,
     "", Ids{StartupCrcDisabled}, Full,
     "C=0 in both startup frames is named, once per connection and as a note: it breaks the "
     "rule only where the path lacks protection as good as CRC32c, and that protection (IPsec, "
     "a link layer's own check beyond the capture point) is not on the wire",
     Caps{"fault-startup.crc-disabled.pcap", "valid-rev1-markers-none-crc-off.pcap"}},
    {"5044-3-r1", Rfc5044, "3", 579, 580, Must,
     "MPA MUST encapsulate the ULPDU such that there is exactly one ULPDU contained in one FPDU",
     "One ULPDU per FPDU.", No,
     "DDP segments carry no length of their own: two ULPDUs in one FPDU read as one ULPDU of the "
     "length ULPDU_Length gives",
     Ids{}, None, "", Caps{}},
    {"5044-3-r2", Rfc5044, "3", 590, 591, Must,
     "MPA MUST provide information to DDP on the current maximum size of the record that is "
     "acceptable to send (MULPDU)",
     "MPA tells DDP the MULPDU.", No,
     "an interface inside the host, between MPA and DDP; the ULPDU sizes that result are rule "
     "5044-3-r3",
     Ids{}, None, "", Caps{}},
    {"5044-3-r3", Rfc5044, "3", 591, 592, Should, "DDP SHOULD limit each record size to MULPDU",
     "DDP keeps each ULPDU within the MULPDU.", Sender, "", Ids{FpduExceedsMulpdu}, Partial,
     "the MULPDU is computed from the MSS option of the receiver's SYN (no check where the SYN was "
     "not captured), not from the EMSS the sender's TCP used: the TCP options its segments carry "
     "(timestamps: 12 octets) lower the EMSS, and a ULPDU above the MULPDU they leave but within "
     "the MSS's is not named; said once per direction, as a note",
     Caps{"fault-fpdu.exceeds-mulpdu.pcap"}},
    {"5044-3-r4", Rfc5044, "3", 592, 593, Must,
     "The range of MULPDU values MUST be between 128 octets and 64768 octets, inclusive",
     "The MULPDU lies between 128 and 64768 octets.", No,
     "the MULPDU is a ceiling MPA offers its DDP and smaller ULPDUs are legal, so the ceiling "
     "itself is not on the wire (its upper bound is seen through rule 5044-3-r5)",
     Ids{}, None, "", Caps{}},
    {"5044-3-r5", Rfc5044, "3", 595, 596, MustNot,
     "The sending DDP MUST NOT post a ULPDU larger than 64768 octets to MPA",
     "No ULPDU is larger than 64768 octets.", Sender, "", Ids{FpduUlpduLengthTooLarge}, Full, "",
     Caps{"fault-fpdu.ulpdu-length-too-large.pcap"}},
    {"5044-3-r6", Rfc5044, "3", 623, 624, Must,
     "On receive, MPA MUST pass each ULPDU with its length to DDP when it has been validated",
     "A receiver passes each validated ULPDU and its length to DDP.", No, kInsideHost, Ids{}, None,
     "", Caps{}},
    {"5044-3-r7", Rfc5044, "3", 626, 642, Should,
     "If an MPA implementation supports passing out-of-order ULPDUs to DDP, the MPA implementation "
     "SHOULD:",
     "An MPA that passes ULPDUs out of order passes each once validated and tells DDP their order, "
     "their completion and the close of TCP.",
     No, kInsideHost, Ids{}, None, "", Caps{}},
    {"5044-3-r8", Rfc5044, "3", 644, 646, Must,
     "MPA MUST provide the protocol version negotiated with its peer to DDP",
     "MPA tells DDP the negotiated revision, and DDP sets its header's version from it.", Sender,
     "", Ids{DdpVersionMismatch}, Full,
     "the rule binds what MPA tells its DDP; what shows is its effect, the DDP and RDMAP "
     "versions of a direction's FPDUs, judged against the Request's revision (0 for Rev 0, 1 "
     "otherwise), once per direction",
     Caps{"fault-ddp.version-mismatch.pcap"}},
    {"5044-4.1-r1", Rfc5044, "4.1", 686, 688, Must,
     "The format of an FPDU shown below MUST be used for all MPA FPDUs",
     "Every FPDU is ULPDU_Length, the ULPDU, a pad to a multiple of four octets and the CRC field "
     "(Figure 2).",
     Sender, "",
     Ids{FpduFramingLost, FpduPadRuleWrong, FpduCrcFieldMissing, FpduUlpduLengthMiscounted}, Full,
     "the deviations real stacks show are named (pad rule, no CRC field, ULPDU_Length off by 2 "
     "or 4), any other is fpdu.framing-lost; with neither CRCs nor markers in a direction, a "
     "misframing that keeps every DDP header plausible reads as a stream of other, well-formed "
     "FPDUs, which no capture tells from the stream meant (fpdu.framing-unverifiable says so)",
     Caps{"fault-fpdu.framing-lost.pcap", "fault-fpdu.pad-rule-wrong.pcap",
          "fault-fpdu.crc-field-missing.pcap", "fault-fpdu.ulpdu-length-miscounted.pcap"}},
    {"5044-4.1-r2", Rfc5044, "4.1", 714, 714, Must,
     "The pad data MUST be set to zero by the sender", "Pad octets are zero.", Sender, "",
     Ids{FpduPadNonzero}, Full, "", Caps{"fault-fpdu.pad-nonzero.pcap"}},
    {"5044-4.1-r3", Rfc5044, "4.1", 714, 715, Must,
     "The pad data MUST be set to zero by the sender and ignored by the receiver",
     "A receiver ignores the pad's value (but for the CRC).", Receiver, "",
     Ids{ReceiverLegalFpduRefused, RdmapTerminateDisagrees}, Full,
     "non-zero pad octets: a receiver that acknowledges the first FPDU showing it, then takes "
     "nothing more and closes sending nothing while its peer had sent more, or that never "
     "answers a Read Request carried in it while answering the next, is named "
     "(receiver.legal-fpdu-refused, a warning); a Terminate blaming a CRC error on it is "
     "rdmap.terminate-disagrees; one whose TCP acknowledged later octets before it closed is "
     "not told apart from one that ended the conversation, a Terminate of another kind is the "
     "receiver's verdict on what the FPDU carries, not told apart from a refusal, and one that "
     "drops the FPDU silently shows it only through a Read Request it leaves unanswered",
     Caps{"fault-receiver.legal-fpdu-refused.pcap"}},
    {"5044-4.1-r4", Rfc5044, "4.1", 721, 723, MustNot,
     "When CRCs are not enabled, this field is still present, may contain any value, and MUST NOT "
     "be checked",
     "Without CRCs a receiver does not check the CRC field.", Receiver, "",
     Ids{RdmapTerminateDisagrees, ReceiverLegalFpduRefused}, Full, kCrcFieldChecked,
     Caps{kTerminateDisagrees, kTerminateDisagreesCrcOff,
          "fault-receiver.legal-fpdu-refused--crc-off.pcap"}},
    {"5044-4.2-r1", Rfc5044, "4.2", 741, 741, Must,
     "The format of a Marker MUST be as specified in Figure 3",
     "A marker is 16 reserved bits and the 16-bit FPDUPTR (Figure 3).", Sender, "",
     Ids{MarkerReservedNonzero, MarkerFpduptrLowBits}, Full, "",
     Caps{"fault-marker.reserved-nonzero.pcap", "fault-marker.fpduptr-low-bits.pcap"}},
    {"5044-4.2-r2", Rfc5044, "4.2", 751, 751, Must,
     "The Reserved field MUST be set to zero on transmit", "A marker's reserved field is zero.",
     Sender, "", Ids{MarkerReservedNonzero}, Full, "", Caps{"fault-marker.reserved-nonzero.pcap"}},
    {"5044-4.2-r3", Rfc5044, "4.2", 751, 752, Must,
     "The Reserved field MUST be set to zero on transmit and ignored on receive",
     "A receiver ignores a marker's reserved field (but for the CRC).", Receiver, "",
     Ids{ReceiverLegalFpduRefused, RdmapTerminateDisagrees}, Full,
     "a marker with a non-zero reserved field: " MPA_MARKER_ODDITY_REFUSED,
     Caps{"fault-receiver.legal-fpdu-refused--marker.pcap", kTerminateDisagrees}},
    {"5044-4.2-r4", Rfc5044, "4.2", 757, 758, Must,
     "The least significant two bits MUST always be set to zero at the transmitter",
     "FPDUPTR's two low bits are zero.", Sender, "", Ids{MarkerFpduptrLowBits}, Full, "",
     Caps{"fault-marker.fpduptr-low-bits.pcap"}},
    {"5044-4.2-r5", Rfc5044, "4.2", 758, 759, Must,
     "the receivers MUST always treat these as zero for calculations",
     "A receiver takes FPDUPTR's two low bits as zero.", Receiver, "",
     Ids{ReceiverLegalFpduRefused, RdmapTerminateDisagrees}, Full, kLowBitsRefused,
     Caps{"fault-receiver.legal-fpdu-refused--fpduptr-low-bits.pcap", kTerminateDisagrees}},
    {"5044-4.3-r1", Rfc5044, "4.3", 777, 779, Must,
     "All MPA senders MUST be able to generate Markers when their use is declared by the opposing "
     "receiver",
     "Every sender can insert markers when its peer asks for them.", Sender, "",
     Ids{FpduMarkersMissing, StartupMarkersRefused}, Full,
     "a sender that inserts none is named; a refusal of markers asked for (a Reject of an M=1 "
     "Request, a close without a Reply, an Initiator that closes after an accepting M=1 Reply "
     "without sending or whose first FPDU is a Terminate) is named as a warning: whether the "
     "markers were the cause is not on the wire",
     Caps{"fault-fpdu.markers-missing.pcap", "fault-startup.markers-refused.pcap",
          "fault-startup.markers-refused--terminate.pcap"}},
    {"5044-4.3-r2", Rfc5044, "4.3", 791, 794, Must,
     "MPA senders MUST insert a Marker into the data stream at a 512-octet periodic interval in "
     "the TCP Sequence Number Space",
     "With markers on, a marker every 512 octets of sequence space.", Sender, "",
     Ids{FpduMarkersMissing, MarkerFpduptrMismatch}, Partial,
     "a sender that inserts no markers is named; markers at another interval show only as the CRC, "
     "marker or framing errors they cause",
     Caps{"fault-fpdu.markers-missing.pcap"}},
    {"5044-4.3-r3", Rfc5044, "4.3", 796, 799, Must,
     "FPDUPTR MUST contain the number of octets in the TCP stream from the beginning of the ULPDU "
     "Length field to the first octet of the Marker",
     "FPDUPTR is the distance back from the marker to the ULPDU_Length field of its FPDU.", Sender,
     "", Ids{MarkerFpduptrMismatch}, Full, "", Caps{"fault-marker.fpduptr-mismatch.pcap"}},
    {"5044-4.3-r4", Rfc5044, "4.3", 800, 805, Must,
     "Note that this computation MUST take into account that the TCP sequence number could have "
     "wrapped between the Marker and the header",
     "A receiver subtracting FPDUPTR allows for sequence numbers that wrap.", Receiver, "",
     Ids{ReceiverLegalFpduRefused, RdmapTerminateDisagrees}, Full,
     "a marker whose FPDUPTR reaches back across the wrap of sequence numbers: a receiver that "
     "acknowledges the first FPDU showing it, then takes nothing more and closes sending "
     "nothing while its peer had sent more, or that never answers a Read Request carried in it "
     "while answering the next, is named (receiver.legal-fpdu-refused, a warning); a Terminate "
     "blaming a marker error where mpa-check saw none is rdmap.terminate-disagrees "
     "(valid-seq-wrap*.pcap show that mpa-check itself reads wrapped markers right); one whose "
     "TCP acknowledged later octets before it closed is not told apart from one that ended the "
     "conversation, a Terminate of another kind is the receiver's verdict on what the FPDU "
     "carries, not told apart from a refusal, and one that drops the FPDU silently shows it "
     "only through a Read Request it leaves unanswered",
     Caps{"fault-receiver.legal-fpdu-refused--seq-wrap.pcap", kTerminateDisagrees}},
    {"5044-4.3-r5", Rfc5044, "4.3", 807, 812, Must,
     "the Marker MUST be included in the CRC calculation of the FPDU following the Marker",
     "A marker between two FPDUs counts in the CRC of the FPDU after it.", Sender, "",
     Ids{FpduCrcMismatch, FpduCrcMiscomputed}, Full,
     "a CRC that leaves that marker out (or every marker) is named as such "
     "(fpdu.crc-miscomputed); one wrong in some other way as well is fpdu.crc-mismatch",
     Caps{"fault-fpdu.crc-miscomputed--leading-marker.pcap",
          "fault-fpdu.crc-miscomputed--without-markers.pcap"}},
    {"5044-4.3-r6", Rfc5044, "4.3", 816, 819, Must,
     "MPA reserves these bits so they MUST be treated as zero for computation at the receiver",
     "A receiver takes FPDUPTR's two low bits as zero.", Receiver, "",
     Ids{ReceiverLegalFpduRefused, RdmapTerminateDisagrees}, Full, kLowBitsRefused,
     Caps{"fault-receiver.legal-fpdu-refused--fpduptr-low-bits.pcap", kTerminateDisagrees}},
    {"5044-4.3-r7", Rfc5044, "4.3", 821, 828, Must,
     "the MPA Markers MUST be inserted immediately preceding the first FPDU of Full Operation "
     "Phase, and at every 512th octet of the TCP octet stream thereafter",
     "The first marker (FPDUPTR 0) opens full operation; the others follow every 512 octets from "
     "it.",
     Sender, "", Ids{FpduMarkersMissing, MarkerFpduptrMismatch}, Partial,
     "the marker grid starts where full operation starts: a first marker that is not zero is "
     "marker.fpduptr-mismatch, no markers at all fpdu.markers-missing; a grid with another origin "
     "shows only as the errors it causes",
     Caps{"fault-fpdu.markers-missing.pcap"}},
    {"5044-4.3-r8", Rfc5044, "4.3", 847, 849, Must,
     "If an FPDU is large enough to contain multiple Markers, they MUST all point to the same "
     "point in the TCP stream",
     "All markers inside one FPDU point at its ULPDU_Length field.", Sender, "",
     Ids{MarkerFpduptrMismatch}, Full, "", Caps{"fault-marker.fpduptr-mismatch.pcap"}},
    {"5044-4.3-r9", Rfc5044, "4.3", 851, 854, Must,
     "the Marker MUST point to the start of the ULPDU Length field for the FPDU containing the "
     "Marker unless the Marker falls between FPDUs, in which case the Marker MUST be zero",
     "A marker points at the FPDU holding it, or is zero between FPDUs.", Sender, "",
     Ids{MarkerFpduptrMismatch}, Full, "", Caps{"fault-marker.fpduptr-mismatch.pcap"}},
    {"5044-4.3-r10", Rfc5044, "4.3", 878, 880, Must,
     "MPA Receivers MUST preserve ULPDU boundaries when passing data to DDP",
     "A receiver passes DDP each ULPDU and its length, without markers, header or CRC.", No,
     kInsideHost, Ids{}, None, "", Caps{}},
    {"5044-4.4-r1", Rfc5044, "4.4", 884, 884, Must,
     "An MPA implementation MUST implement CRC support",
     "Every implementation can generate and check CRCs.", Sender, "",
     Ids{FpduCrcMismatch, FpduCrcMiscomputed}, Full,
     "a sender's CRCs show only where CRCs are in use: there a CRC field of zero, the CRC32c "
     "written a wrong way or computed over other octets is named fpdu.crc-miscomputed, any "
     "other wrong CRC fpdu.crc-mismatch; a host never asked for CRCs shows nothing of its "
     "support",
     Caps{"fault-fpdu.crc-mismatch.pcap", "fault-fpdu.crc-miscomputed.pcap"}},
    {"5044-4.4-r2", Rfc5044, "4.4", 884, 904, Must,
     "The default configuration for a connection MUST be to use CRCs",
     "A host always uses CRCs, or offers C=0 only on an administrator's explicit request; CRCs are "
     "the default.",
     No, "why a host set C=0 (an administrator's request or its default) is not on the wire", Ids{},
     None, "", Caps{}},
    {"5044-4.4-r3", Rfc5044, "4.4", 906, 913, ShouldNot,
     "An administrative decision to have a host request CRC suppression SHOULD NOT be made unless "
     "there is assurance",
     "Administrators turn CRCs off only where the connection is protected at least as well.", No,
     "the administrator's reasons and the path's protection are not on the wire", Ids{}, None, "",
     Caps{}},
    {"5044-4.4-r4", Rfc5044, "4.4", 915, 915, Must, "The process MUST be invisible to the ULP",
     "CRC negotiation is invisible to the ULP.", No, "inside the host", Ids{}, None, "", Caps{}},
    {"5044-4.4-r5", Rfc5044, "4.4", 917, 919, Must,
     "an MPA instance MUST continue generating and checking CRCs until the connection terminates",
     "A side whose peer asked for CRCs sends correct CRCs until the connection ends.", Sender, "",
     Ids{FpduCrcMismatch, FpduCrcMiscomputed}, Full, "",
     Caps{"fault-fpdu.crc-mismatch.pcap", "fault-fpdu.crc-miscomputed.pcap"}},
    {"5044-4.4-r6", Rfc5044, "4.4", 917, 919, Must,
     "an MPA instance MUST continue generating and checking CRCs until the connection terminates",
     "A side whose peer asked for CRCs checks every CRC until the connection ends.", Receiver, "",
     Ids{ReceiverInvalidFpduAnswered, ReceiverErrorIgnored}, Full, kBadFpduTakenAsGood,
     Caps{kAnsweredCapture, kIgnoredCapture}},
    {"5044-4.4-r7", Rfc5044, "4.4", 919, 922, Must,
     "it MUST turn off CRC checking immediately after receipt of an MPA mode declaration "
     "indicating that its peer also does not require CRCs",
     "When neither side asked for CRCs, neither checks them.", Receiver, "",
     Ids{RdmapTerminateDisagrees, ReceiverLegalFpduRefused}, Full, kCrcFieldChecked,
     Caps{kTerminateDisagrees, kTerminateDisagreesCrcOff,
          "fault-receiver.legal-fpdu-refused--crc-off.pcap"}},
    {"5044-4.4-r8", Rfc5044, "4.4", 926, 926, Must,
     "When sending an FPDU, the sender MUST include a CRC field",
     "Every FPDU carries the 4-octet CRC field, CRCs on or off.", Sender, "",
     Ids{FpduCrcFieldMissing}, Partial,
     "named where CRCs are off; with CRCs on, an omitted CRC field shows as fpdu.crc-mismatch or "
     "fpdu.framing-lost",
     Caps{"fault-fpdu.crc-field-missing.pcap"}},
    {"5044-4.4-r9", Rfc5044, "4.4", 926, 929, Must,
     "the CRC field in the MPA FPDU MUST be computed using the CRC32c polynomial in the manner "
     "described in the iSCSI Protocol",
     "With CRCs on, the CRC is CRC32c as iSCSI computes it.", Sender, "", Ids{FpduCrcMismatch},
     Full, "", Caps{"fault-fpdu.crc-mismatch.pcap"}},
    {"5044-4.4-r10", Rfc5044, "4.4", 931, 951, Must,
     "The fields which MUST be included in the CRC calculation when sending an FPDU are as follows",
     "The CRC covers the FPDU from ULPDU_Length (or the marker before it) to the pad, markers "
     "included.",
     Sender, "", Ids{FpduCrcMismatch, FpduCrcMiscomputed}, Full, "",
     Caps{"fault-fpdu.crc-mismatch.pcap", "fault-fpdu.crc-miscomputed--without-markers.pcap",
          "fault-fpdu.crc-miscomputed--ulpdu-only.pcap"}},
    {"5044-4.4-r11", Rfc5044, "4.4", 959, 967, Must,
     "If not, the receiver MUST treat the FPDU as an invalid FPDU",
     "With CRCs on, a receiver checks each FPDU's CRC and treats a mismatch as an invalid FPDU.",
     Receiver, "", Ids{ReceiverInvalidFpduAnswered, ReceiverErrorIgnored}, Full,
     kBadFpduTakenAsGood, Caps{kAnsweredCapture, kIgnoredCapture}},
    {"5044-4.5-r1", Rfc5044, "4.5", 1134, 1137, Must,
     "The maximum ULPDU Length for a single ULPDU when Markers are present MUST be computed as",
     "With markers, MULPDU = EMSS - (6 + 4 * ceiling(EMSS / 512) + EMSS mod 4).", Sender, "",
     Ids{FpduExceedsMulpdu}, Partial, kMulpduFromMss, Caps{"fault-fpdu.exceeds-mulpdu.pcap"}},
    {"5044-4.5-r2", Rfc5044, "4.5", 1141, 1144, Must,
     "The maximum ULPDU Length for a single ULPDU when Markers are NOT present MUST be computed as",
     "Without markers, MULPDU = EMSS - (6 + EMSS mod 4).", Sender, "", Ids{FpduExceedsMulpdu},
     Partial, kMulpduFromMss, Caps{"fault-fpdu.exceeds-mulpdu.pcap"}},
    {"5044-4.5-r3", Rfc5044, "4.5", 1151, 1152, Should,
     "DDP SHOULD provide ULPDUs that are as large as possible, but less than or equal to MULPDU",
     "DDP sends ULPDUs as large as possible within the MULPDU.", Sender, "", Ids{FpduExceedsMulpdu},
     Partial,
     "only the ceiling is judged (as in rule 5044-4.5-r1); how large the ULP's messages are is its "
     "own affair",
     Caps{"fault-fpdu.exceeds-mulpdu.pcap"}},
    {"5044-4.5-r4", Rfc5044, "4.5", 1157, 1160, MustNot,
     "the MPA on TCP sender MUST NOT shrink the MULPDU below 128 octets",
     "The MULPDU stays at 128 octets or more when the EMSS shrinks below it.", No, kMulpduCeiling,
     Ids{}, None, "", Caps{}},
    {"5044-4.5-r5", Rfc5044, "4.5", 1162, 1164, MustNot,
     "MPA MUST NOT provide a MULPDU smaller than 128",
     "Packing FPDUs into a segment never makes the MULPDU smaller than 128.", No, kMulpduCeiling,
     Ids{}, None, "", Caps{}},
    {"5044-5.1-r1", Rfc5044, "5.1", 1219, 1220, Should,
     "MPA transmitters SHOULD calculate a MULPDU as described in Section 4.5",
     "A sender computes the MULPDU as RFC 5044 4.5 says.", Sender, "", Ids{FpduExceedsMulpdu},
     Partial, kMulpduFromMss, Caps{"fault-fpdu.exceeds-mulpdu.pcap"}},
    {"5044-5.1-r2", Rfc5044, "5.1", 1221, 1224, Should,
     "MPA SHOULD use the current MTU value to establish a likely FPDU size",
     "A sender whose TCP cannot report the EMSS estimates it from the MTU.", No,
     "where the sender took its EMSS from is inside it; the sizes that result are rule 5044-5.1-r1",
     Ids{}, None, "", Caps{}},
    {"5044-5.1-r3", Rfc5044, "5.1", 1226, 1230, Should,
     "MPA transmitters SHOULD also use whatever facilities the TCP stack presents to cause the TCP "
     "transmitter to start TCP segments at FPDU boundaries",
     "A sender starts TCP segments at FPDU boundaries.", Sender, "", Ids{FpduNotSegmentAligned},
     Full,
     "judged at the capture point, so a re-segmenting middlebox before it is blamed on the "
     "sender (a capture at the sender shows its own segments); FPDUs larger than the MSS "
     "cannot be aligned and are exempt; said once per direction, as a note",
     Caps{"fault-fpdu.not-segment-aligned.pcap"}},
    {"5044-5.1-r4", Rfc5044, "5.1", 1269, 1270, Required,
     "MPA receivers are REQUIRED to be able to operate correctly even if alignment is lost",
     "Receivers cope with FPDUs that are not aligned with TCP segments.", Receiver, "",
     Ids{ReceiverLegalFpduRefused}, Full,
     "an FPDU that spans TCP segments: a receiver that acknowledges the first FPDU showing it, "
     "then takes nothing more and closes sending nothing while its peer had sent more, or that "
     "never answers a Read Request carried in it while answering the next, is named "
     "(receiver.legal-fpdu-refused, a warning); one whose TCP acknowledged later octets before "
     "it closed is not told apart from one that ended the conversation, a Terminate of another "
     "kind is the receiver's verdict on what the FPDU carries, not told apart from a refusal, "
     "and one that drops the FPDU silently shows it only through a Read Request it leaves "
     "unanswered",
     Caps{"fault-receiver.legal-fpdu-refused--split.pcap"}},
    {"5044-5.2-r1", Rfc5044, "5.2", 1274, 1276, Must,
     "The receivers MUST identify FPDU boundaries by using the ULPDU_LENGTH field",
     "A receiver finds FPDU boundaries by ULPDU_Length.", No, "inside the receiver", Ids{}, None,
     "", Caps{}},
    {"5044-6-r1", Rfc5044, "6", 1297, 1305, Must,
     "An MPA receiver MUST first verify the FPDU before passing the ULPDU to DDP",
     "A receiver locates each FPDU and checks its CRC before passing the ULPDU on.", Receiver, "",
     Ids{ReceiverInvalidFpduAnswered}, Full,
     "a receiver that answers a Read Request carried in an FPDU with a CRC or marker error is "
     "named; one that passes such an FPDU on only in ways the wire does not show (a Send "
     "delivered, a Write placed) leaves nothing in the capture",
     Caps{kAnsweredCapture}},
    {"5044-6-r2", Rfc5044, "6", 1307, 1324, Must,
     "To detect the start of the FPDU unambiguously one of the following MUST be used",
     "A receiver finds FPDU starts by ULPDU_Length in order, or by markers.", No,
     "inside the receiver", Ids{}, None, "", Caps{}},
    {"5044-6-r3", Rfc5044, "6", 1326, 1327, Must,
     "The ULPDU Length field (see Section 4) MUST be used to determine if the entire FPDU is "
     "present before forwarding the ULPDU to DDP",
     "A receiver waits for the whole FPDU, by ULPDU_Length, before passing it on.", No,
     "inside the receiver", Ids{}, None, "", Caps{}},
    {"5044-7.1-r1", Rfc5044, "7.1", 1335, 1339, Must,
     "MPA requires that the Consumer MUST activate MPA, and any TCP enhancements for MPA, on a TCP "
     "half connection at the same location in the octet stream at both the sender and the receiver",
     "Both ends of a half connection switch to MPA at the same point of the octet stream.", No,
     "where each host switched to MPA is inside it; the capture shows where the startup frames "
     "begin (startup.streaming-prefix notes a delayed startup)",
     Ids{}, None, "", Caps{}},
    {"5044-7.1-r2", Rfc5044, "7.1", 1383, 1386, Must,
     "A DDP endpoint MUST be \"bound\" to the MPA connection at entry to this phase",
     "A DDP endpoint is bound to the connection when full operation begins.", No, "inside the host",
     Ids{}, None, "", Caps{}},
    {"5044-7.1.1-r1", Rfc5044, "7.1.1", 1463, 1466, Must,
     "Initiator mode senders MUST set this field to the fixed value \"MPA ID Req Frame\"",
     "A Request's key is \"MPA ID Req Frame\".", Sender, "", Ids{StartupKeyInvalid}, Partial,
     "a key is taken for a damaged Request key when at most 4 of its 16 octets differ; a Request "
     "whose key differs more is read as streaming-mode octets, not MPA; no bundled capture has a "
     "bad Request key (the capture named shows the Reply's)",
     Caps{"fault-startup.key-invalid.pcap"}},
    {"5044-7.1.1-r2", Rfc5044, "7.1.1", 1466, 1469, Must,
     "Responder mode receivers MUST check this field for the same value, and close the connection "
     "and report an error locally if any other value is detected",
     "A Responder closes on a Request with a wrong key.", Receiver, "",
     Ids{StartupInvalidRequestAnswered, StartupInvalidRequestKeptOpen}, Full,
     "a Responder that answers (a Reply, FPDUs) is named, and one that acknowledged the "
     "Request, sent nothing and had not closed when the Initiator closed; one that stays "
     "silent and open until the capture ends is not judged (the capture cannot show how long "
     "it would have waited), and the error it reports locally is inside it",
     Caps{"fault-startup.invalid-request-answered.pcap",
          "fault-startup.invalid-request-kept-open.pcap"}},
    {"5044-7.1.1-r3", Rfc5044, "7.1.1", 1469, 1471, Must,
     "Responder mode senders MUST set this field to the fixed value \"MPA ID Rep Frame\"",
     "A Reply's key is \"MPA ID Rep Frame\".", Sender, "", Ids{StartupKeyInvalid}, Partial,
     "whatever the Responder sends after a Request is read as its Reply, so any other key is "
     "named; "
     "but after a delayed startup (streaming-mode octets before the Request) a Reply is found by "
     "the first 9 octets of its key, so one damaged there is not seen",
     Caps{"fault-startup.key-invalid.pcap"}},
    {"5044-7.1.1-r4", Rfc5044, "7.1.1", 1471, 1474, Must,
     "Initiator mode receivers MUST check this field for the same value, and close the connection "
     "and report an error locally if any other value is detected",
     "An Initiator closes on a Reply with a wrong key.", Receiver, "",
     Ids{StartupInvalidReplyIgnored, StartupInvalidReplyKeptOpen}, Full, kInitiatorWentOn,
     Caps{"fault-startup.invalid-reply-ignored.pcap",
          "fault-startup.invalid-reply-kept-open.pcap"}},
    {"5044-7.1.1-r5", Rfc5044, "7.1.1", 1480, 1482, MustNot,
     "Markers MUST NOT be added to the data stream by that endpoint",
     "A side whose peer sent M=0 inserts no markers.", Sender, "", Ids{MarkerUnexpected}, Partial,
     "found where full operation opens with a zero marker, as RFC-placed markers would; markers on "
     "another grid show as fpdu.framing-lost or other framing errors",
     Caps{"fault-marker.unexpected.pcap"}},
    {"5044-7.1.1-r6", Rfc5044, "7.1.1", 1482, 1484, Must,
     "When '1' Markers MUST be added as described in Section 4.3",
     "A side whose peer sent M=1 inserts markers.", Sender, "", Ids{FpduMarkersMissing}, Full, "",
     Caps{"fault-fpdu.markers-missing.pcap"}},
    {"5044-7.1.1-r7", Rfc5044, "7.1.1", 1486, 1489, Must,
     "CRCs MUST not be checked and need not be generated by either endpoint",
     "With C=0 in both frames, neither side checks CRCs.", Receiver, "",
     Ids{RdmapTerminateDisagrees, ReceiverLegalFpduRefused}, Full, kCrcFieldChecked,
     Caps{kTerminateDisagrees, kTerminateDisagreesCrcOff,
          "fault-receiver.legal-fpdu-refused--crc-off.pcap"}},
    {"5044-7.1.1-r8", Rfc5044, "7.1.1", 1489, 1491, Must,
     "CRCs MUST be generated and checked by both endpoints",
     "With C=1 in either frame, both sides send correct CRCs.", Sender, "", Ids{FpduCrcMismatch},
     Full, "", Caps{"fault-fpdu.crc-mismatch.pcap"}},
    {"5044-7.1.1-r9", Rfc5044, "7.1.1", 1489, 1491, Must,
     "CRCs MUST be generated and checked by both endpoints",
     "With C=1 in either frame, both sides check CRCs.", Receiver, "",
     Ids{ReceiverInvalidFpduAnswered, ReceiverErrorIgnored}, Full, kBadFpduTakenAsGood,
     Caps{kAnsweredCapture, kIgnoredCapture}},
    {"5044-7.1.1-r10", Rfc5044, "7.1.1", 1491, 1494, Must,
     "When CRCs are not in use, the CRC field MUST be considered valid for FPDU checking "
     "regardless of its contents",
     "Without CRCs, any CRC field value is valid.", Receiver, "",
     Ids{RdmapTerminateDisagrees, ReceiverLegalFpduRefused}, Full, kCrcFieldChecked,
     Caps{kTerminateDisagrees, kTerminateDisagreesCrcOff,
          "fault-receiver.legal-fpdu-refused--crc-off.pcap"}},
    {"5044-7.1.1-r11", Rfc5044, "7.1.1", 1496, 1497, Statement,
     "This bit is set to zero, and not checked on reception in the MPA Request Frame",
     "A Request's R bit is zero.", Sender, "", Ids{StartupRejectBitInRequest}, Full, "",
     Caps{"fault-startup.reject-bit-in-request.pcap"}},
    {"5044-7.1.1-r12", Rfc5044, "7.1.1", 1496, 1497, Statement,
     "This bit is set to zero, and not checked on reception in the MPA Request Frame",
     "A Responder does not check a Request's R bit.", Receiver, "",
     Ids{StartupRequestClosedWithoutReply}, Full,
     "a Responder that closes without any Reply on a properly formatted Rev 1 Request, R=1 in "
     "it or not, is warned of (startup.request-closed-without-reply); a Reject (R=1) is the "
     "ULP's to give and is not told apart from one for other reasons, and a Request of another "
     "revision may be refused by a close (RFC 5044 7.1.1, RFC 6581 10)",
     Caps{"fault-startup.request-closed-without-reply.pcap"}},
    {"5044-7.1.1-r13", Rfc5044, "7.1.1", 1502, 1503, Must, "It MUST be set to zero when sending",
     "Reserved flag bits are zero.", Sender, "",
     Ids{StartupReservedBitsSet, StartupReservedBitSiwGso}, Full, "",
     Caps{"fault-startup.reserved-bits-set.pcap", "fault-startup.reserved-bit-siw-gso.pcap"}},
    {"5044-7.1.1-r14", Rfc5044, "7.1.1", 1502, 1503, Must,
     "It MUST be set to zero when sending, and not checked on reception",
     "A receiver does not check reserved flag bits.", Receiver, "",
     Ids{StartupRequestClosedWithoutReply}, Partial,
     "a Responder that closes without any Reply on a properly formatted Rev 1 Request, "
     "reserved bits set or not, is warned of (startup.request-closed-without-reply); an "
     "Initiator that closes after an accepting Reply with reserved bits set, without sending, "
     "is not looked for; a Reject is the ULP's to give",
     Caps{"fault-startup.request-closed-without-reply.pcap"}},
    {"5044-7.1.1-r15", Rfc5044, "7.1.1", 1519, 1520, Must, "senders MUST set this field to one",
     "Rev is 1 (2 with RFC 6581).", Sender, "",
     Ids{StartupRevisionUnsupported, StartupRevision0, StartupVendorRevision}, Full,
     "Rev 0 (the RDMA Consortium's, Appendix C) and Rev 129 (Alibaba erdma) break the rule but "
     "are known implementations' revisions, named as notes (startup.revision-0, "
     "startup.vendor-revision); any other but 1 and 2 is startup.revision-unsupported",
     Caps{"fault-startup.revision-unsupported.pcap", "fault-startup.revision-0.pcap",
          "fault-startup.vendor-revision.pcap"}},
    {"5044-7.1.1-r16", Rfc5044, "7.1.1", 1520, 1524, Must,
     "If the MPA receiver cannot interoperate with the received version, then it MUST close the "
     "connection and report an error locally",
     "A receiver checks Rev and closes on one it cannot work with.", Receiver, "",
     Ids{StartupInvalidRequestAnswered, StartupInvalidRequestKeptOpen, StartupInvalidReplyIgnored,
         StartupInvalidReplyKeptOpen},
     Full,
     "judged for revisions no known implementation uses (not 0, 1, 2 or 129): a side that "
     "answers or goes on sending is named, and one still open and silent when its peer closes; "
     "which known revisions a host can work with is inside it; one that stays silent and open "
     "until the capture ends is not judged (the capture cannot show how long it would have "
     "waited), and the error it reports locally is inside it",
     Caps{"fault-startup.invalid-request-answered.pcap",
          "fault-startup.invalid-request-kept-open.pcap"}},
    {"5044-7.1.1-r17", Rfc5044, "7.1.1", 1527, 1529, Must,
     "This field MUST contain the length in octets of the Private Data field",
     "PD_Length is the length of the private data.", Sender, "", Ids{StartupPdLengthMismatch},
     Partial,
     "an understated PD_Length is seen when more octets follow in the frame's own segment, an "
     "overstated one once the peer answers and an FPDU follows; otherwise the next octets are read "
     "as private data",
     Caps{"fault-startup.pd-length-mismatch.pcap",
          "fault-startup.pd-length-mismatch--overstated-answered.pcap"}},
    {"5044-7.1.1-r18", Rfc5044, "7.1.1", 1529, 1534, Must,
     "the receiver MUST close the connection and report an error locally",
     "A receiver closes on a PD_Length that does not match or exceeds 512.", Receiver, "",
     Ids{StartupInvalidRequestAnswered, StartupInvalidRequestKeptOpen, StartupInvalidReplyIgnored,
         StartupReplyBeforePrivateData, StartupInvalidReplyKeptOpen},
     Full,
     "a side that answers or goes on sending is named (a Reply sent before the private data "
     "came is startup.reply-before-private-data), and one still open and silent when its peer "
     "closes; a PD_Length that no octets contradict is not known to be wrong, to the receiver "
     "or in the capture; one that stays silent and open until the capture ends is not judged "
     "(the capture cannot show how long it would have waited), and the error it reports "
     "locally is inside it",
     Caps{"fault-startup.pd-length-mismatch--overstated-answered.pcap"}},
    {"5044-7.1.1-r19", Rfc5044, "7.1.1", 1536, 1538, Must,
     "The Private Data field MUST be between 0 and 512 octets in length",
     "Private data is at most 512 octets.", Sender, "", Ids{StartupPdLengthTooLarge}, Full, "",
     Caps{"fault-startup.pd-length-too-large.pcap"}},
    {"5044-7.1.2-r1", Rfc5044, "7.1.2", 1546, 1548, Must,
     "the MPA implementation MUST send a valid MPA Request Frame",
     "An Initiator sends a valid Request.", Sender, "",
     Ids{StartupKeyInvalid, StartupPdLengthTooLarge, StartupPdLengthMismatch,
         StartupRevisionUnsupported, StartupEnhancedDataMissing},
     Partial,
     "each check of RFC 5044 7.1.1 and RFC 6581 6 a Request fails is named, with the limits of "
     "those rules (5044-7.1.1-r1, 5044-7.1.1-r17, 6581-6-r3)",
     Caps{"fault-startup.pd-length-too-large.pcap", "fault-startup.revision-unsupported.pcap"}},
    {"5044-7.1.2-r2a", Rfc5044, "7.1.2", 1550, 1552, Must,
     "the MPA implementation MUST wait until an MPA Request Frame is received and validated before "
     "entering Full MPA/DDP Operation",
     "A Responder enters full operation only after a whole, valid Request.", Sender, "",
     Ids{StartupUnexpectedReply, StartupReplyBeforePrivateData, StartupInvalidRequestAnswered},
     Partial,
     "a Reply with no Request before it, a Reply before the Request's private data had all come "
     "and an answer to an invalid Request are named; FPDUs sent without any Reply read as a Reply "
     "with a wrong key (startup.key-invalid)",
     Caps{"fault-startup.unexpected-reply.pcap", "fault-startup.reply-before-private-data.pcap"}},
    {"5044-7.1.2-r2b", Rfc5044, "7.1.2", 1554, 1555, Must,
     "If the MPA Request Frame is improperly formatted, the implementation MUST close the TCP "
     "connection and exit MPA",
     "A Responder closes on an improperly formatted Request.", Receiver, "",
     Ids{StartupInvalidRequestAnswered, StartupInvalidRequestKeptOpen}, Full,
     "a Responder that answers (a Reply or other octets) is named, and one that acknowledged "
     "the Request, sent nothing and had not closed when the Initiator closed; one that stays "
     "silent and open until the capture ends is not judged (the capture cannot show how long "
     "it would have waited), and the error it reports locally is inside it",
     Caps{"fault-startup.invalid-request-answered.pcap",
          "fault-startup.invalid-request-kept-open.pcap"}},
    {"5044-7.1.2-r2c", Rfc5044, "7.1.2", 1557, 1559, Should,
     "the implementation SHOULD return an MPA Reply Frame with the Rejected Connection bit set to "
     "'1'",
     "A Responder rejects (R=1) a Request whose private data its ULP does not accept.", No,
     "whether the private data was acceptable is the ULP's judgement (startup.connection-rejected "
     "notes a Reject)",
     Ids{}, None, "", Caps{}},
    {"5044-7.1.2-r2d", Rfc5044, "7.1.2", 1560, 1562, Must,
     "the implementation MUST exit MPA, leaving the TCP connection open",
     "After its Reject, a Responder leaves MPA (and may use the connection otherwise).", Sender, "",
     Ids{StartupFpduAfterReject}, Partial,
     "what a Responder sends after its Reject is named only when it frames as MPA FPDUs (matching "
     "CRCs, or DDP headers throughout: the connection may carry other protocols then), from its "
     "first 64 KiB, unless they open with a Terminate (RFC 6581 9.1 ties one to a Reject over the "
     "IRD, and rule 6581-9.1-r4 judges its code); FPDUs after octets of another protocol, or "
     "beyond the first 64 KiB, are not looked for",
     Caps{"fault-startup.fpdu-after-reject.pcap"}},
    {"5044-7.1.2-r2e", Rfc5044, "7.1.2", 1564, 1566, Should,
     "the implementation SHOULD return an MPA Reply Frame with the Rejected Connection bit set to "
     "'0'",
     "A Responder accepts (R=0) a Request whose private data its ULP accepts.", Sender, "",
     Ids{StartupNoReply, StartupRequestClosedWithoutReply}, Full,
     "a Responder that closes on a properly formatted Rev 1 Request without any Reply is "
     "warned of (it owed a Reply, R=0 or R=1, by this rule or 5044-7.1.2-r2c), and a note says "
     "when no Reply has come by the capture's end; whether the private data was acceptable, "
     "and so which Reply was due, is the ULP's judgement, and a Request of another revision "
     "may be refused by a close (RFC 5044 7.1.1, RFC 6581 10)",
     Caps{"fault-startup.no-reply.pcap", "fault-startup.request-closed-without-reply.pcap"}},
    {"5044-7.1.2-r2f", Rfc5044, "7.1.2", 1575, 1577, Should,
     "SHOULD prepare to interpret any data received as FPDUs and pass any received ULPDUs to DDP",
     "An accepting Responder reads what follows as FPDUs.", No, "inside the Responder", Ids{}, None,
     "", Caps{}},
    {"5044-7.1.2-r3a", Rfc5044, "7.1.2", 1590, 1591, Must,
     "MPA Initiator mode implementations MUST receive and validate an MPA Reply Frame",
     "An Initiator waits for and validates the Reply before full operation.", Sender, "",
     Ids{StartupInitiatorDataBeforeReply, StartupInvalidReplyIgnored}, Full,
     "octets of full operation the Initiator sent before the Reply are named wherever the "
     "capture point stands: by their place in the capture, or by the Initiator's "
     "acknowledgements, which stop short of the Reply's end; an Initiator that takes an "
     "improperly formatted Reply as valid is startup.invalid-reply-ignored",
     Caps{"fault-startup.initiator-data-before-reply.pcap",
          "fault-startup.initiator-data-before-reply--crossed.pcap"}},
    {"5044-7.1.2-r3b", Rfc5044, "7.1.2", 1593, 1594, Must,
     "If the MPA Reply Frame is improperly formatted, the implementation MUST close the TCP "
     "connection and exit MPA",
     "An Initiator closes on an improperly formatted Reply.", Receiver, "",
     Ids{StartupInvalidReplyIgnored, StartupInvalidReplyKeptOpen}, Full, kInitiatorWentOn,
     Caps{"fault-startup.invalid-reply-ignored.pcap",
          "fault-startup.invalid-reply-kept-open.pcap"}},
    {"5044-7.1.2-r3c", Rfc5044, "7.1.2", 1596, 1600, Must,
     "the implementation MUST exit MPA, leaving the TCP connection open",
     "After a Reject (or private data it does not accept), an Initiator leaves MPA.", Sender, "",
     Ids{StartupFpduAfterReject}, Partial,
     "what an Initiator sends after a Reject is named only when it frames as MPA FPDUs (matching "
     "CRCs, or DDP headers throughout: the connection may carry other protocols then), from its "
     "first 64 KiB, unless they open with a Terminate; an Initiator that leaves MPA over private "
     "data it does not accept (R=0) is not told apart from one that goes on",
     Caps{"fault-startup.fpdu-after-reject.pcap"}},
    {"5044-7.1.2-r3d", Rfc5044, "7.1.2", 1602, 1606, Should,
     "the implementation SHOULD enter Full MPA/DDP Operation Phase",
     "An Initiator whose Reply accepts enters full operation.", No,
     "an Initiator with nothing to send looks the same as one that did not enter full operation",
     Ids{}, None, "", Caps{}},
    {"5044-7.1.2-r4", Rfc5044, "7.1.2", 1608, 1609, Must,
     "MPA Responder mode implementations MUST receive and validate at least one FPDU before "
     "sending any FPDUs or Markers",
     "A Responder sends no FPDU or marker before the Initiator's first FPDU.", Sender, "",
     Ids{FpduResponderSentFirst}, Partial,
     "FPDUs or markers the Responder sent before the Initiator's first FPDU are named wherever "
     "the capture point stands: by their place in the capture, or by the Responder's "
     "acknowledgements, which stop short of that FPDU's end; but an Initiator's first FPDU "
     "with a bad CRC counts as received, though the Responder cannot have validated it (what "
     "the Responder sends next is judged by receiver.* only)",
     Caps{"fault-fpdu.responder-sent-first.pcap", "fault-fpdu.responder-sent-first--crossed.pcap"}},
    {"5044-7.1.2-r5", Rfc5044, "7.1.2", 1620, 1622, Must,
     "the TCP/DDP connection MUST be closed, and an error returned to the ULP",
     "A side that receives a wrong key closes the connection.", Receiver, "",
     Ids{StartupInvalidRequestAnswered, StartupInvalidRequestKeptOpen, StartupInvalidReplyIgnored,
         StartupInvalidReplyKeptOpen},
     Full,
     "a side that answers or goes on sending after a wrong key is named (an Initiator may send "
     "a Terminate first), and one still open and silent when its peer closes; one that stays "
     "silent and open until the capture ends is not judged (the capture cannot show how long "
     "it would have waited), and the error it reports locally is inside it",
     Caps{"fault-startup.invalid-reply-ignored.pcap"}},
    {"5044-7.1.2-r6", Rfc5044, "7.1.2", 1631, 1637, Should,
     "The Responder SHOULD return an MPA Reply Frame with the \"Reject Connection\" bit set to '1' "
     "if the validation of the Private Data is not acceptable to the ULP",
     "A Responder whose ULP does not accept the private data rejects with R=1.", No,
     "whether the private data was acceptable is the ULP's judgement", Ids{}, None, "", Caps{}},
    {"5044-7.1.2-r7", Rfc5044, "7.1.2", 1639, 1643, Statement,
     "the first octets sent are the special Marker 0x00000000, followed by the start of the FPDU",
     "Full operation opens with the zero marker (markers on) or the first FPDU's ULPDU_Length.",
     Sender, "", Ids{MarkerFpduptrMismatch, FpduMarkersMissing, FpduFramingLost}, Full,
     "a first marker that is not zero is marker.fpduptr-mismatch, or fpdu.markers-missing when "
     "no marker reading frames the stream; other octets before the first FPDU are "
     "fpdu.framing-lost",
     Caps{"fault-fpdu.markers-missing.pcap"}},
    {"5044-7.1.2-r8a", Rfc5044, "7.1.2", 1645, 1647, Must,
     "MPA implementations MUST use the difference between the MPA Request Frame and the MPA Reply "
     "Frame to check for incorrect \"Initiator/Initiator\" startups",
     "Each side detects an Initiator/Initiator startup (a Request where a Reply was due).",
     Receiver, "", Ids{StartupUnexpectedRequest}, Partial,
     "the Initiator/Initiator startup itself is named; how each side reacted (both should end MPA) "
     "is not judged",
     Caps{"fault-startup.unexpected-request.pcap"}},
    {"5044-7.1.2-r8b", Rfc5044, "7.1.2", 1647, 1650, Should,
     "Implementations SHOULD put a timeout on waiting for the MPA Request Frame when started in "
     "Responder mode",
     "A Responder times out waiting for a Request (Responder/Responder startups).", No,
     "a Responder/Responder startup sends no startup frame, so nothing marks the connection as MPA",
     Ids{}, None, "", Caps{}},
    {"5044-7.1.2-r9a", Rfc5044, "7.1.2", 1652, 1652, Must,
     "MPA implementations MUST validate the PD_Length field", "A receiver validates PD_Length.",
     Receiver, "", Ids{StartupReplyBeforePrivateData}, Full,
     "a Responder that replies before the private data PD_Length announced has come is named; "
     "a receiver that fails to validate PD_Length otherwise shows it only by going on after an "
     "improperly formatted frame (rule 5044-7.1.2-r9c)",
     Caps{"fault-startup.reply-before-private-data.pcap"}},
    {"5044-7.1.2-r9b", Rfc5044, "7.1.2", 1652, 1655, Must,
     "the amount of Private Data MUST not exceed the PD_Length",
     "No more private data than PD_Length (and the receiver's buffer) holds.", Sender, "",
     Ids{StartupPdLengthMismatch}, Partial,
     "private data beyond PD_Length is seen when it follows in the frame's own segment; the "
     "receiver's buffer is inside it",
     Caps{"fault-startup.pd-length-mismatch.pcap"}},
    {"5044-7.1.2-r9c", Rfc5044, "7.1.2", 1655, 1656, Must,
     "If any of the above fails, the startup frame MUST be considered improperly formatted",
     "A startup frame whose PD_Length fails is improperly formatted (and the receiver closes).",
     Receiver, "",
     Ids{StartupInvalidRequestAnswered, StartupInvalidRequestKeptOpen,
         StartupReplyBeforePrivateData, StartupInvalidReplyIgnored, StartupInvalidReplyKeptOpen},
     Full,
     "a side that answers or goes on sending is named, and one still open and silent when its "
     "peer closes; one that stays silent and open until the capture ends is not judged (the "
     "capture cannot show how long it would have waited), and the error it reports locally is "
     "inside it",
     Caps{"fault-startup.pd-length-mismatch--overstated-answered.pcap"}},
    {"5044-7.1.2-r10a", Rfc5044, "7.1.2", 1658, 1660, Should,
     "MPA implementations SHOULD implement a reasonable timeout while waiting for the entire set "
     "of startup frames",
     "A side times out waiting for startup frames.", No,
     "the RFC gives the timeout no length, and a close after a wait cannot be told from one for "
     "other reasons",
     Ids{}, None, "", Caps{}},
    {"5044-7.1.2-r10b", Rfc5044, "7.1.2", 1660, 1663, Should,
     "ULPs SHOULD implement a reasonable timeout while waiting for FPDUs",
     "ULPs time out waiting for FPDUs and messages.", No,
     "a ULP's timeouts have no length in the RFC and are inside the host", Ids{}, None, "", Caps{}},
    {"5044-7.1.5-r1", Rfc5044, "7.1.5", 2087, 2094, Should,
     "Enabling the DDP/MPA stack SHOULD be done only when no incoming stream data is expected",
     "A dual-stack host switches to MPA only when no streaming data is due.", No,
     "when a host switches stacks is inside it", Ids{}, None, "", Caps{}},
    {"5044-7.1.5-r2", Rfc5044, "7.1.5", 2102, 2105, Must, "TCP's rules MUST be followed",
     "TCP's rules hold, also while a host switches stacks.", Sender, "",
     Ids{TcpRetransmissionMismatch}, Partial,
     "of TCP's rules only one is checked: retransmitted octets equal those first sent",
     Caps{"fault-tcp.retransmission-mismatch.pcap"}},
    {"5044-7.2-r1", Rfc5044, "7.2", 2112, 2114, Should,
     "A mechanism SHOULD be provided by MPA to DDP for DDP to be made aware that a graceful close "
     "of the TCP connection has been received by the TCP",
     "MPA tells DDP when a FIN arrives.", No, kInsideHost, Ids{}, None, "", Caps{}},
    {"5044-8-r1", Rfc5044, "8", 2137, 2138, Must,
     "The following errors MUST be detected by MPA and the codes SHOULD be provided to DDP or "
     "other Consumer",
     "A receiver detects errors 1-4 and tells its consumer.", Receiver, "",
     Ids{RdmapTerminateDisagrees, ReceiverInvalidFpduAnswered, ReceiverErrorIgnored}, Full,
     "a Terminate blaming an MPA error (codes 2-7) the data does not show is named, and so is "
     "a receiver that answers or goes on after a CRC or marker error (2, 3) as if it had "
     "missed it; one that misses a close (1) or an invalid startup frame (4) is judged by the "
     "close and startup rules; the codes stay inside the host unless a Terminate carries them",
     Caps{kTerminateDisagrees, kAnsweredCapture, kIgnoredCapture}},
    {"5044-8-r2", Rfc5044, "8", 2148, 2152, Should, "MPA SHOULD deliver an error to DDP",
     "A receiver reports a marker that disagrees with ULPDU_Length (error 3).", Receiver, "",
     Ids{RdmapTerminateDisagrees, ReceiverInvalidFpduAnswered, ReceiverErrorIgnored}, Full,
     "a Terminate blaming a marker error where mpa-check saw none is named, and a receiver "
     "that answers or goes on after a real one; one that misses it only in ways the wire does "
     "not show leaves nothing in the capture",
     Caps{kTerminateDisagrees, "fault-receiver.error-ignored--marker.pcap"}},
    {"5044-8-r3", Rfc5044, "8", 2152, 2157, Should,
     "the check SHOULD be made when a gap creating an out-of-order sequence is closed",
     "A receiver checks markers when a gap closes and when one points at a known FPDU.", No,
     "when a receiver checks markers is inside it", Ids{}, None, "", Caps{}},
    {"5044-8-r4", Rfc5044, "8", 2159, 2161, Must,
     "In this case, the TCP connection MUST be immediately closed",
     "On an invalid Request or Reply (error 4) the receiver closes at once.", Receiver, "",
     Ids{StartupInvalidRequestAnswered, StartupInvalidRequestKeptOpen, StartupInvalidReplyIgnored,
         StartupInvalidReplyKeptOpen},
     Full,
     "a side that answers or goes on sending is named, and one still open and silent when its "
     "peer closes; 'immediately' has no length in the RFC, so a close that comes late is not "
     "timed; one that stays silent and open until the capture ends is not judged (the capture "
     "cannot show how long it would have waited), and the error it reports locally is inside "
     "it",
     Caps{"fault-startup.invalid-request-answered.pcap", "fault-startup.invalid-reply-ignored.pcap",
          "fault-startup.invalid-request-kept-open.pcap"}},
    {"5044-8-r5", Rfc5044, "8", 2170, 2171, MustNot,
     "Once MPA delivers an error of any type, it MUST NOT pass or deliver any additional FPDUs on "
     "that half connection",
     "After an error, a receiver passes no more FPDUs of that half connection.", Receiver, "",
     Ids{ReceiverInvalidFpduAnswered, ReceiverErrorIgnored}, Full,
     "a receiver that answers a Read Request carried in or after an FPDU with a CRC or marker "
     "error is named (matched by Read order, STag and tagged offset), and one that goes on "
     "sending and never sends a Terminate is a warning; FPDUs passed on only in ways the wire "
     "does not show leave nothing in the capture; after an invalid startup frame MPA has not "
     "begun, and the close rules judge it",
     Caps{kAnsweredCapture, kIgnoredCapture}},
    {"5044-8-r6", Rfc5044, "8", 2173, 2175, MustNot,
     "For Error codes 2 and 3, MPA MUST NOT close the TCP connection following a reported error",
     "After a CRC or marker error, MPA leaves closing to the ULP.", Receiver, "",
     Ids{ReceiverClosedAfterError}, Full,
     "a receiver that closes (FIN or RST) after acknowledging the FPDU with the error, sending "
     "nothing first, is a warning: its ULP may close, and the wire cannot tell whose close it "
     "was; one that sends a Terminate or other FPDUs before closing is taken as its ULP's "
     "close, which no capture tells from MPA's",
     Caps{kClosedCapture}},
    {"5044-9.3-r1", Rfc5044, "9.3", 2373, 2374, Must,
     "MPA implementations MUST implement IPsec as described in Section 9.4",
     "Implementations implement IPsec.", No,
     "a capability: a capture shows whether IPsec is used, not whether it is implemented", Ids{},
     None, "", Caps{}},
    {"5044-9.4-r1", Rfc5044, "9.4", 2380, 2385, Must,
     "an MPA on TCP implementation MUST follow the requirements defined in RFC 3723, Sections 2.3 "
     "and 5",
     "IPsec as RFC 3723 profiles it.", No,
     "IPsec requirements; mpa-check does not read IPsec or IKE", Ids{}, None, "", Caps{}},
    {"5044-9.4-r2", Rfc5044, "9.4", 2390, 2393, MustNot,
     "The receipt of an IKE Phase 2 delete message MUST NOT be interpreted as a reason for tearing "
     "down a DDP/RDMA Stream",
     "An IKE Phase 2 delete does not tear down a stream.", No,
     "IKE messages are encrypted and not read, and a close cannot be tied to one", Ids{}, None, "",
     Caps{}},
    {"6581-5-r1", Rfc6581, "5", 705, 709, MustNot,
     "The RDMA connection initiator MUST NOT allow any later FULPDUs to be transmitted before the "
     "RTR indication",
     "With an RTR negotiated, the Initiator's first FPDU is the RTR.", Sender, "",
     Ids{FpduRtrMissing}, Full, "", Caps{"fault-fpdu.rtr-missing.pcap"}},
    {"6581-6-r1", Rfc6581, "6", 791, 794, Must,
     "To use any enhanced connection establishment feature, this MUST be set to two or higher",
     "A startup frame with S=1 has Rev 2 or higher.", Sender, "", Ids{StartupEnhancedWithoutRev2},
     Full, "", Caps{"fault-startup.enhanced-without-rev2.pcap"}},
    {"6581-6-r2", Rfc6581, "6", 794, 796, Must,
     "A host accepting MPA connections MUST continue to accept MPA Requests with version one",
     "A Responder still accepts Rev 1 Requests.", Receiver, "",
     Ids{StartupRequestClosedWithoutReply, StartupEnhancedMismatch}, Full, kRev1Refused,
     Caps{"fault-startup.request-closed-without-reply.pcap",
          "fault-startup.enhanced-mismatch.pcap"}},
    {"6581-6-r3", Rfc6581, "6", 802, 804, Must,
     "Private Data MUST begin with enhanced RDMA connection establishment data",
     "With S=1, private data begins with the 4-octet IRD/ORD block.", Sender, "",
     Ids{StartupEnhancedDataMissing}, Full,
     "private data too short for the block is named; no bit of the block is reserved, so "
     "private data that does not begin with one reads as a block of other values, which no "
     "capture tells from values meant, and only the rules those values break are named (a "
     "little-endian block: rule 6581-9-r1)",
     Caps{"fault-startup.enhanced-data-missing.pcap"}},
    {"6581-7-r1", Rfc6581, "7", 827, 829, Must,
     "The Enhanced Reject function code MUST be used to indicate rejection of enhanced DDP stream "
     "session",
     "SCTP: an enhanced session is rejected with the Enhanced Reject function code.", No, kSctpOnly,
     Ids{}, None, "", Caps{}},
    {"6581-7-r2", Rfc6581, "7", 833, 837, Must,
     "ULP-supplied Private Data MUST be included for Enhanced DDP Stream Session Initiate",
     "SCTP: enhanced session messages carry private data after the IRD/ORD block.", No, kSctpOnly,
     Ids{}, None, "", Caps{}},
    {"6581-7-r3", Rfc6581, "7", 847, 848, MustNot,
     "Private Data length MUST NOT exceed 512 bytes in any message",
     "SCTP: private data is at most 512 octets.", No, kSctpOnly, Ids{}, None, "", Caps{}},
    {"6581-7-r4", Rfc6581, "7", 850, 851, MustNot,
     "Private Data MUST NOT be included in the DDP Stream Session TERM",
     "SCTP: no private data in a session TERM.", No, kSctpOnly, Ids{}, None, "", Caps{}},
    {"6581-7-r5", Rfc6581, "7", 853, 859, Should,
     "Received Extended DDP Stream Session Control messages SHOULD be reported to the ULP",
     "SCTP: extended session control messages reach the ULP with their private data.", No,
     kSctpOnly, Ids{}, None, "", Caps{}},
    {"6581-7-r6", Rfc6581, "7", 861, 863, Must,
     "The enhanced DDP stream management MUST use the DDP stream session termination function code",
     "SCTP: enhanced sessions end with the session termination function code.", No, kSctpOnly,
     Ids{}, None, "", Caps{}},
    {"6581-9-r1", Rfc6581, "9", 926, 929, Must,
     "Note that this field MUST be sent in network byte order, with the IRD and ORD encoded as "
     "14-bit unsigned integers",
     "The IRD/ORD block is big-endian, IRD and ORD 14 bits each.", Sender, "",
     Ids{StartupEnhancedBlockLittleEndian}, Full,
     "a block whose 16-bit halves are little-endian is named when its depths read in network "
     "order are implausible (above 255 and not 0x3FFF) and byte-swapped are not, which holds "
     "for every depth from 1 to 255; a block whose depths read plausibly both ways (0, or "
     "above 255 as meant) decodes as other legal values, which no capture tells from the "
     "values meant",
     Caps{"fault-startup.enhanced-block-little-endian.pcap"}},
    {"6581-9.1-r1", Rfc6581, "9.1", 1022, 1024, Must,
     "The responder and initiator MUST pass the peer's provided IRD and ORD values to the ULP",
     "Both sides pass the peer's IRD and ORD to their ULP.", No,
     "an interface inside the host, between MPA and its ULP", Ids{}, None, "", Caps{}},
    {"6581-9.1-r2", Rfc6581, "9.1", 1026, 1027, Should,
     "The responder ORD SHOULD be set to a value less than or equal to the initiator IRD",
     "Responder ORD <= Initiator IRD.", Sender, "", Ids{StartupInsufficientIrd}, Full, "",
     Caps{"fault-startup.insufficient-ird.pcap"}},
    {"6581-9.1-r3", Rfc6581, "9.1", 1032, 1032, Must,
     "responder MUST set its ORD at most to the initiator IRD",
     "An accepting Responder's ORD is at most the Initiator's IRD.", Sender, "",
     Ids{StartupInsufficientIrd}, Full, "",
     Caps{"fault-startup.insufficient-ird.pcap", "fault-startup.insufficient-ird--ord-3fff.pcap"}},
    {"6581-9.1-r4", Rfc6581, "9.1", 1032, 1036, Must,
     "Thus, the TERM message MUST contain Layer 2, Error Type 0, Error Code 6",
     "A Terminate over an Initiator IRD too small for the Responder carries layer 2, error type 0, "
     "code 6.",
     Sender, "", Ids{StartupNegotiationTerminateMissing}, Full,
     "a Terminate that opens what either side sends after a Reject whose Responder ORD exceeds "
     "the Initiator's IRD is checked for layer 2, error type 0, code 6 "
     "(startup.negotiation-terminate-missing); the RFC requires no Terminate there, only its "
     "code",
     Caps{"fault-startup.negotiation-terminate-missing--reject.pcap"}},
    {"6581-9.1-r5", Rfc6581, "9.1", 1038, 1040, Must,
     "MUST set its IRD at least to the responder ORD and its ORD at most to the responder IRD",
     "The Initiator's IRD >= Responder ORD, its ORD <= Responder IRD.", Sender, "",
     Ids{RdmapIrdExceeded}, Full,
     "the ORD shows only through the Initiator's outstanding RDMA Read and RFC 7306 Atomic "
     "Requests, counted against the Reply's IRD and named when they exceed it; the count is "
     "dropped where the capture cannot tell a request from other octets (octets missing, an "
     "FPDU whose DDP header does not decode or whose CRC is bad) and after an error has ended "
     "MPA in a direction; an ORD set above the IRD but never used, and the IRD the Initiator "
     "sets, are inside it",
     Caps{"fault-rdmap.ird-exceeded.pcap"}},
    {"6581-9.1-r6", Rfc6581, "9.1", 1040, 1044, Must,
     "it MUST send a TERM message to the responder indicating insufficient resources and terminate "
     "the connection",
     "An Initiator without the IRD the Reply needs sends a Terminate (layer 2, type 0, code 6) and "
     "ends the connection.",
     Sender, "", Ids{RdmapTerminateDisagrees, StartupNegotiationTerminateMissing}, Full,
     "a Terminate with code 6 is checked to have a cause (rdmap.terminate-disagrees); after "
     "startup.insufficient-ird an Initiator that closes without a Terminate, or terminates "
     "with another code, is named; one that goes on may have raised its IRD, as it may, and "
     "one still open and silent when the capture ends has not yet left",
     Caps{kTerminateDisagrees, "fault-startup.negotiation-terminate-missing.pcap"}},
    {"6581-9.1-r7", Rfc6581, "9.1", 1046, 1047, Must,
     "The initiator MUST pass the responder provided IRD and ORD to the ULP",
     "The Initiator passes the Responder's IRD and ORD to its ULP (Accept and Reject).", No,
     "an interface inside the host, between MPA and its ULP", Ids{}, None, "", Caps{}},
    {"6581-9.1-r8", Rfc6581, "9.1", 1052, 1053, Statement,
     "An all ones value (0x3FFF) indicates that automatic negotiation of the IRD or ORD is not "
     "desired",
     "0x3FFF opts out of IRD/ORD negotiation: a Responder IRD of 0x3FFF answers an Initiator ORD "
     "of 0x3FFF, not a negotiated one.",
     Sender, "", Ids{StartupNoNegotiationUnsolicited}, Full, "",
     Caps{"fault-startup.no-negotiation-unsolicited.pcap"}},
    {"6581-9.1-r9", Rfc6581, "9.1", 1054, 1056, Must,
     "The responder MUST respond to an initiator ORD value of 0x3FFF by leaving its local endpoint "
     "IRD value unchanged and setting the IRD to 0x3FFF in its reply message",
     "An Initiator ORD of 0x3FFF is answered with Responder IRD 0x3FFF.", Sender, "",
     Ids{StartupNoNegotiationNotEchoed}, Full, "",
     Caps{"fault-startup.no-negotiation-not-echoed.pcap"}},
    {"6581-9.1-r10", Rfc6581, "9.1", 1056, 1058, Must,
     "The initiator MUST leave its local endpoint ORD value unchanged upon receiving a responder "
     "IRD value of 0x3FFF",
     "An Initiator keeps its ORD when the Reply's IRD is 0x3FFF.", No,
     "the Initiator's ORD setting is inside it (its Read Requests are not counted)", Ids{}, None,
     "", Caps{}},
    {"6581-9.1-r11", Rfc6581, "9.1", 1058, 1060, Must,
     "The responder MUST respond to an initiator IRD value of 0x3FFF by leaving its local endpoint "
     "ORD value unchanged, and setting ORD to 0x3FFF in its reply message",
     "An Initiator IRD of 0x3FFF is answered with Responder ORD 0x3FFF.", Sender, "",
     Ids{StartupNoNegotiationNotEchoed}, Full, "",
     Caps{"fault-startup.no-negotiation-not-echoed.pcap"}},
    {"6581-9.1-r12", Rfc6581, "9.1", 1060, 1062, Must,
     "The initiator MUST leave its local endpoint IRD value unchanged upon receiving a responder "
     "ORD value of 0x3FFF",
     "An Initiator keeps its IRD when the Reply's ORD is 0x3FFF.", Receiver, "",
     Ids{RdmapTerminateDisagrees}, Partial,
     "only an Initiator that terminates with code 6 (insufficient IRD) over a Responder ORD of "
     "0x3FFF that answered its own 0x3FFF is named; no bundled capture shows one",
     Caps{kTerminateDisagrees}},
    {"6581-9.2-r1", Rfc6581, "9.2", 1082, 1083, Must,
     "The initiator MUST set Control Flag A to 1 for the peer-to-peer model",
     "An Initiator that wants peer-to-peer sets A=1.", No,
     "which connection model the application wants is inside it", Ids{}, None, "", Caps{}},
    {"6581-9.2-r2", Rfc6581, "9.2", 1083, 1085, Must,
     "The initiator MUST set each Control Flag B, C, and D to 1 for each of the options it "
     "supports, if Control Flag A is set to 1",
     "A peer-to-peer Initiator offers every RTR option it supports.", No,
     "which RTR options the Initiator supports is inside it", Ids{}, None, "", Caps{}},
    {"6581-9.2-r3", Rfc6581, "9.2", 1087, 1088, Must,
     "The responder MUST support at least one RTR indication option if it supports Enhanced RDMA "
     "connection establishment",
     "An enhanced Responder supports at least one RTR option.", Sender, "",
     Ids{StartupReplyWithoutRtr}, Full, kNoRtrFlag, Caps{"fault-startup.reply-without-rtr.pcap"}},
    {"6581-9.2-r4", Rfc6581, "9.2", 1088, 1090, Must,
     "then the responder MUST set Control Flag A to 1 in the MPA reply message",
     "A=1 in the Request is answered with A=1.", Sender, "", Ids{StartupP2pMismatch}, Full, "",
     Caps{"fault-startup.p2p-mismatch.pcap"}},
    {"6581-9.2-r5", Rfc6581, "9.2", 1090, 1093, Should,
     "the responder SHOULD set the corresponding Control Flag if the responder can support that "
     "option in an MPA reply",
     "A Responder accepts each offered RTR option it can support.", No,
     "which options the Responder can support is inside it", Ids{}, None, "", Caps{}},
    {"6581-9.2-r6", Rfc6581, "9.2", 1094, 1096, Must,
     "The responder MUST set at least one RTR indication option if it supports more than one "
     "initiator-specified RTR indication option",
     "A Responder supporting several offered RTR options accepts at least one.", Sender, "",
     Ids{StartupReplyWithoutRtr}, Full, kNoRtrFlag, Caps{"fault-startup.reply-without-rtr.pcap"}},
    {"6581-9.2-r7", Rfc6581, "9.2", 1098, 1101, Must,
     "then the responder MUST set at least one RTR indication type option it supports",
     "A Responder supporting none of the offered RTR options names one it supports.", Sender, "",
     Ids{StartupReplyWithoutRtr}, Full, kNoRtrFlag, Caps{"fault-startup.reply-without-rtr.pcap"}},
    {"6581-9.2-r8", Rfc6581, "9.2", 1103, 1104, Must,
     "the initiator MUST generate one of the negotiated RTR indications",
     "After a peer-to-peer Accept, the Initiator sends a negotiated RTR.", Sender, "",
     Ids{FpduRtrMissing}, Full, "", Caps{"fault-fpdu.rtr-missing.pcap"}},
    {"6581-9.2-r9", Rfc6581, "9.2", 1104, 1109, Must,
     "then it MUST send a TERM message to the responder indicating failure to negotiate a mutually "
     "compatible connection model or RTR option",
     "An Initiator that can send none of the Responder's RTR options sends a Terminate (layer 2, "
     "type 0, code 7) and ends the connection.",
     Sender, "",
     Ids{StartupNoMatchingRtr, RdmapTerminateDisagrees, StartupNegotiationTerminateMissing,
         FpduRtrMissing},
     Full,
     "the failed negotiation is noted (startup.no-matching-rtr) and a Terminate with code 7 is "
     "checked to have a cause; an Initiator that closes without it, or terminates with another "
     "code, is named, one that sends another first FPDU is fpdu.rtr-missing; an Initiator that "
     "sends one of the Responder's own options shows it could, and one still open and silent "
     "when the capture ends has not yet left",
     Caps{"fault-startup.no-matching-rtr.pcap",
          "fault-startup.negotiation-terminate-missing--no-rtr.pcap"}},
    {"6581-9.2-r10", Rfc6581, "9.2", 1113, 1114, Must,
     "The initiator MUST set Control Flag A to 0 for the client-server model",
     "A client-server Initiator sets A=0.", No,
     "which connection model the application wants is inside it", Ids{}, None, "", Caps{}},
    {"6581-9.2-r11", Rfc6581, "9.2", 1114, 1115, Must,
     "The responder MUST set Control Flag A to 0 if Control Flag A is 0 in the request",
     "A=0 in the Request is answered with A=0.", Sender, "", Ids{StartupP2pMismatch}, Full, "",
     Caps{"fault-startup.p2p-mismatch.pcap"}},
    {"6581-9.2-r12", Rfc6581, "9.2", 1115, 1116, Must,
     "If Control Flag A is set to 0, then Control Flags B, C, and D MUST also be set to 0",
     "With A=0, the RTR flags B, C and D are 0.", Sender, "", Ids{StartupRtrFlagsWithoutP2p}, Full,
     "", Caps{"fault-startup.rtr-flags-without-p2p.pcap"}},
    {"6581-9.2-r13", Rfc6581, "9.2", 1116, 1117, Must,
     "On reception, if Control Flag A is set to 0, then Control Flags B, C, and D MUST be ignored",
     "A receiver ignores B, C and D when A=0.", No,
     "what a peer does with flags it ignores cannot be told from what it does anyway", Ids{}, None,
     "", Caps{}},
    {"6581-9.3-r1", Rfc6581, "9.3", 1153, 1156, Must,
     "The initiator or responder MUST generate the TERM message that contains Layer 2, Error Type "
     "0, Error Code 5",
     "A side that meets a local error during establishment sends a Terminate with code 5 before "
     "resetting.",
     No, "local errors are inside the host, and a reset without a Terminate may have other causes",
     Ids{}, None, "", Caps{}},
    {"6581-10-r1", Rfc6581, "10", 1160, 1163, Required,
     "an enhanced responder is REQUIRED to respond with an enhanced RDMA connection establishment "
     "response",
     "An enhanced Responder answers an enhanced Request with an enhanced Reply.", Sender, "",
     Ids{StartupEnhancedMismatch}, Full, "", Caps{"fault-startup.enhanced-mismatch.pcap"}},
    {"6581-10-r2", Rfc6581, "10", 1164, 1167, Required,
     "All responders are REQUIRED to issue unenhanced RDMA connection establishment responses in "
     "response to unenhanced RDMA connection establishment requests",
     "Every Responder answers an unenhanced Request with an unenhanced Reply.", Sender, "",
     Ids{StartupEnhancedMismatch}, Full, "", Caps{"fault-startup.enhanced-mismatch.pcap"}},
    {"6581-10-r3", Rfc6581, "10", 1169, 1170, MustNot,
     "The initiator MUST NOT use the enhanced RDMA connection establishment formats or function "
     "codes when no enhanced functionality is desired",
     "An Initiator that wants no enhanced feature sends an unenhanced Request.", Sender, "",
     Ids{StartupEnhancedNegotiatesNothing}, Full,
     "what the Initiator wants is inside it: an enhanced Request that can negotiate nothing "
     "(A=0, IRD and ORD 0x3FFF) is named; one that offers values or peer-to-peer cannot be "
     "shown unwanted",
     Caps{"fault-startup.enhanced-negotiates-nothing.pcap"}},
    {"6581-10-r4", Rfc6581, "10", 1172, 1172, Must,
     "The responder MUST continue to accept unenhanced connection requests",
     "A Responder still accepts unenhanced Requests.", Receiver, "",
     Ids{StartupRequestClosedWithoutReply, StartupEnhancedMismatch}, Full, kRev1Refused,
     Caps{"fault-startup.request-closed-without-reply.pcap",
          "fault-startup.enhanced-mismatch.pcap"}},
    {"6581-10-r5", Rfc6581, "10", 1187, 1189, Must,
     "If the responder receives an enhanced MPA message, it MUST respond with an enhanced MPA "
     "message",
     "An enhanced Request gets an enhanced Reply.", Sender, "", Ids{StartupEnhancedMismatch}, Full,
     "", Caps{"fault-startup.enhanced-mismatch.pcap"}},
    {"6581-10-r6", Rfc6581, "10", 1191, 1193, Must,
     "it MUST respond with an unenhanced MPA message",
     "An unenhanced Request (S=0) gets an unenhanced Reply.", Sender, "",
     Ids{StartupEnhancedMismatch}, Full, "", Caps{"fault-startup.enhanced-mismatch.pcap"}},
    {"6581-10-r7", Rfc6581, "10", 1195, 1199, Must, "it MUST close the TCP connection and exit MPA",
     "A Responder without enhanced support closes on an enhanced Request.", Receiver, "",
     Ids{StartupEnhancedMismatch}, Full,
     "a Responder that answers an enhanced Request with an unenhanced Reply is named; a close "
     "without a Reply is this rule's own reaction (so startup.request-closed-without-reply is "
     "kept to Rev 1 Requests), and one that stays silent shows nothing of whether it supports "
     "enhanced establishment",
     Caps{"fault-startup.enhanced-mismatch.pcap"}},
});
#undef MPA_MARKER_ODDITY_REFUSED

constexpr std::array kUntied = std::to_array<UntiedDiagnostic>({
    {StartupRevision2, BeyondRules::Event, "Rev 2 is RFC 6581's revision: noted, nothing broken"},
    {StartupConnectionRejected, BeyondRules::Event,
     "a Reject is allowed (RFC 5044 7.1.2 rules 2 and 6); what follows it is read only for FPDUs "
     "(startup.fpdu-after-reject)"},
    {StartupStreamingPrefix, BeyondRules::Event,
     "a delayed startup after streaming-mode octets is allowed (RFC 5044 7.1.3)"},
    {StartupPrivateDataOver256, BeyondRules::Interop,
     "up to 512 octets are legal; several stacks refuse more than 256"},
    {FpduUlpduLengthZero, BeyondRules::DdpRdmap,
     "MPA framing allows ULPDU_Length 0; no DDP segment (RFC 5041) fits in it"},
    {FpduNotJudgedAfterError, BeyondRules::Capture,
     "what mpa-check no longer judges after an error, as a receiver would stop (RFC 5044 8)"},
    {ConnectionLostMidFpdu, BeyondRules::Connection,
     "a close inside an FPDU: error 1 of RFC 5044 8 for the receiver to report; no rule forbids "
     "it"},
    {ConnectionClosed, BeyondRules::Connection,
     "a close at an FPDU boundary (error 1 of RFC 5044 8 when it ends MPA)"},
    {ConnectionLostMidStartup, BeyondRules::Connection,
     "a close inside a startup frame: error 1 of RFC 5044 8; no rule forbids it"},
    {CaptureGap, BeyondRules::Capture, "octets the capture lacks"},
    {CaptureTruncated, BeyondRules::Capture, "packets cut by the snapshot length"},
    {CaptureStartupNotSeen, BeyondRules::Capture, "a capture without the startup frames"},
    {CaptureParametersInferred, BeyondRules::Capture,
     "markers and CRC use read from the data, not the startup frames"},
    {CaptureIpFragment, BeyondRules::Capture,
     "an IP datagram the capture holds incomplete (fragments missing or cut)"},
    {CaptureResynchronised, BeyondRules::Capture, "framing found again after missing octets"},
    {DdpUlpduTooShort, BeyondRules::DdpRdmap,
     "a ULPDU too short for its DDP header (RFC 5041) or its opcode's RDMAP header (RFC 5040, RFC "
     "7306)"},
    {RdmapTerminate, BeyondRules::DdpRdmap, "the peer's Terminate, its own verdict (RFC 5040 4.8)"},
    {RdmapTerminateEncoding, BeyondRules::DdpRdmap,
     "Terminate Control laid out as Linux siw or Chelsio cxgb4 and Intel irdma do, not as RFC 5040 "
     "4.8 and RFC 6580"},
    {InteropStackFingerprint, BeyondRules::Interop,
     "which implementation a startup frame looks like"},
    {InteropP2pRequired, BeyondRules::Interop,
     "a refusal that predicts a peer requiring peer-to-peer"},
    {InteropRev2RetriedAsRev1, BeyondRules::Interop,
     "a Rev 2 Request refused and retried as Rev 1 (RFC 6581 10 MAY)"},
    {FpduFramingUnverifiable, BeyondRules::Capture,
     "what mpa-check can verify without CRCs or markers"},
    {CaptureStartupFrameCut, BeyondRules::Capture, "the capture ends inside a startup frame"},
    {IpFragmentOverlapMismatch, BeyondRules::Ip,
     "overlapping IP fragments that differ (RFC 5722): a fault of IP, below MPA"},
    {TcpRetransmissionCheckStopped, BeyondRules::Capture,
     "octets mpa-check no longer compares with their first copy (tcp.retransmission-mismatch)"},
});

constexpr std::array kKeywordsWithoutRule = std::to_array<KeywordsWithoutRule>({
    {Rfc5044, 406, 408, "the RFC 2119 boilerplate"},
    {Rfc5044, 596, 598,
     "a permission: MPA need not support a ULPDU_Length above the current MULPDU"},
    {Rfc5044, 1476, 1480,
     "the M bit's REQUIRED names what a side declares; the rules are 5044-7.1.1-r5 and r6"},
    {Rfc5044, 2471, 4147,
     "Appendices A, B and C are for information only, not part of the standard"},
    {Rfc6581, 210, 212, "the RFC 2119 boilerplate"},
    {Rfc6581, 772, 780, "restates RFC 5044's Res rule (rules 5044-7.1.1-r13 and 5044-7.1.1-r14)"},
});

constexpr std::string_view keyword(Requirement requirement) {
  switch (requirement) {
    case Must:
      return "MUST";
    case MustNot:
      return "MUST NOT";
    case Required:
      return "REQUIRED";
    case Should:
      return "SHOULD";
    case ShouldNot:
      return "SHOULD NOT";
    case Statement:
      return "";
  }
  return "";
}

constexpr std::string_view rfc_number(Rfc rfc) { return rfc == Rfc5044 ? "5044" : "6581"; }

constexpr bool contains(std::span<const DiagId> ids, DiagId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// "5044-7.1.2-r4": the RFC, the section, then r and the rule's own number.
constexpr bool named_after_section(const ConformanceRule& rule) {
  const std::string_view number = rfc_number(rule.rfc);
  std::string_view id = rule.id;
  if (!id.starts_with(number) || id.substr(number.size(), 1) != "-") return false;
  id.remove_prefix(number.size() + 1);
  if (!id.starts_with(rule.section) || id.substr(rule.section.size(), 2) != "-r") return false;
  return id.size() > rule.section.size() + 2;
}

constexpr bool ids_unique_and_named_after_their_section() {
  for (std::size_t i = 0; i < kRules.size(); ++i) {
    if (!named_after_section(kRules[i])) return false;
    for (std::size_t j = i + 1; j < kRules.size(); ++j) {
      if (kRules[j].id == kRules[i].id) return false;
    }
  }
  return true;
}

constexpr bool lines_and_words_present() {
  for (const ConformanceRule& rule : kRules) {
    if (rule.first_line == 0 || rule.first_line > rule.last_line) return false;
    if (rule.quote.empty() || rule.summary.empty()) return false;
    // The keyword is in the RFC's words ("MUST not" is how RFC 5044 writes MUST NOT twice).
    const std::string_view word = keyword(rule.requirement);
    if (!word.empty() && rule.quote.find(word) == std::string_view::npos &&
        !(rule.requirement == MustNot && rule.quote.find("MUST not") != std::string_view::npos)) {
      return false;
    }
  }
  return true;
}

// Not observable: nothing checks it, and why is said. Observable: what is not checked is said
// unless coverage is full (then what no capture can show may be); a checked rule names its ids
// and the captures that show them.
constexpr bool coverage_consistent() {
  for (const ConformanceRule& rule : kRules) {
    const bool has_ids = !rule.ids().empty();
    if (rule.observable == No) {
      if (rule.coverage != None || has_ids || rule.why_not_observable.empty()) return false;
      if (!rule.missing.empty() || !rule.captures().empty()) return false;
      continue;
    }
    if (!rule.why_not_observable.empty()) return false;
    if (has_ids != rule.checked()) return false;
    // (A full rule may say what no capture can show; the others say what is not checked.)
    if (rule.coverage != Full && rule.missing.empty()) return false;
    if (rule.checked() == rule.captures().empty()) return false;
  }
  return true;
}

// Every catalogue entry checks some rule or is said to be beyond them, never both.
constexpr bool every_diagnostic_tied_or_beyond() {
  for (std::size_t i = 0; i < static_cast<std::size_t>(kCount); ++i) {
    const DiagId id = static_cast<DiagId>(i);
    bool tied = false;
    for (const ConformanceRule& rule : kRules) tied = tied || contains(rule.ids(), id);
    std::size_t untied = 0;
    for (const UntiedDiagnostic& u : kUntied) untied += u.id == id && !u.why.empty();
    if (untied > 1 || tied == (untied == 1)) return false;
  }
  return true;
}

static_assert(ids_unique_and_named_after_their_section(),
              "rule ids are unique and begin with their RFC and section (5044-7.1.2-r4)");
static_assert(lines_and_words_present(), "every rule has lines, the RFC's words and ours");
static_assert(coverage_consistent(),
              "coverage, observability, ids, missing parts and captures must agree");
static_assert(every_diagnostic_tied_or_beyond(),
              "every catalogue entry checks a rule or is listed as beyond the RFCs, not both");

}  // namespace

std::string_view to_string(Rfc rfc) { return rfc == Rfc5044 ? "RFC 5044" : "RFC 6581"; }
std::string_view number(Rfc rfc) { return rfc_number(rfc); }

std::string_view to_string(Requirement requirement) {
  return requirement == Statement ? "statement" : keyword(requirement);
}

std::string_view to_string(Observable observable) {
  switch (observable) {
    case Sender:
      return "sender";
    case Receiver:
      return "receiver";
    case No:
      return "no";
  }
  return "?";
}

std::string_view to_string(Coverage coverage) {
  switch (coverage) {
    case Full:
      return "full";
    case Partial:
      return "partial";
    case None:
      return "none";
  }
  return "?";
}

std::string_view to_string(BeyondRules scope) {
  switch (scope) {
    case BeyondRules::Capture:
      return "capture";
    case BeyondRules::Connection:
      return "connection";
    case BeyondRules::Event:
      return "event";
    case BeyondRules::Interop:
      return "interop";
    case BeyondRules::DdpRdmap:
      return "ddp-rdmap";
    case BeyondRules::Ip:
      return "ip";
  }
  return "?";
}

std::span<const ConformanceRule> conformance_rules() { return kRules; }

const ConformanceRule* find_rule(std::string_view id) {
  for (const ConformanceRule& rule : kRules) {
    if (rule.id == id) return &rule;
  }
  return nullptr;
}

std::vector<const ConformanceRule*> rules_of(DiagId id) {
  std::vector<const ConformanceRule*> out;
  for (const ConformanceRule& rule : kRules) {
    if (contains(rule.ids(), id)) out.push_back(&rule);
  }
  return out;
}

std::string rule_ids_of(DiagId id) {
  std::string out;
  for (const ConformanceRule* rule : rules_of(id)) {
    if (!out.empty()) out += ", ";
    out += rule->id;
  }
  return out;
}

std::span<const UntiedDiagnostic> untied_diagnostics() { return kUntied; }

std::optional<UntiedDiagnostic> beyond_rules(DiagId id) {
  for (const UntiedDiagnostic& u : kUntied) {
    if (u.id == id) return u;
  }
  return std::nullopt;
}

std::span<const KeywordsWithoutRule> keywords_without_rule() { return kKeywordsWithoutRule; }

}  // namespace mpa
