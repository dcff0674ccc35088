// The diagnostics catalogue: every finding the library can report, with a permanent id,
// its severity, the RFC section it rests on and the error code of RFC 5044 section 8
// (1-4) or RFC 6581 section 8 (5-7) where one applies. Ids are permanent: add, never
// renumber, rename or reuse. A new id checks rules of the conformance matrix
// (lib/src/catalogue/conformance_rules.txt) or is listed as beyond them (kUntied in
// lib/src/catalogue/conformance.cpp); the table is refused as it is read, and the unit test
// Conformance.TheRulesTableReads fails, until it is one or the other.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mpa {

enum class Severity : std::uint8_t { Note, Warning, Error };

std::string_view to_string(Severity severity);
inline constexpr std::size_t kSeverityCount = 3;

// A value per severity (finding counts, mostly), indexed by Severity.
template <typename T>
struct BySeverity {
  std::array<T, kSeverityCount> values{};
  constexpr T& operator[](Severity s) { return values[static_cast<std::size_t>(s)]; }
  constexpr const T& operator[](Severity s) const { return values[static_cast<std::size_t>(s)]; }
  friend constexpr bool operator==(const BySeverity&, const BySeverity&) = default;
};
using SeverityCounts = BySeverity<std::uint64_t>;

// The MPA error codes a Terminate carries (LLP layer, error type 0): RFC 5044 section 8
// defines 1-4, RFC 6581 section 8 adds 5-7. None: the finding has no code.
enum class MpaError : std::uint8_t {
  None = 0,
  ConnectionLost = 1,       // RFC 5044 8: TCP connection closed, terminated or lost
  CrcError = 2,             // RFC 5044 8: MPA CRC error
  MarkerMismatch = 3,       // RFC 5044 8: MPA marker and ULPDU_Length disagree
  InvalidStartupFrame = 4,  // RFC 5044 8: invalid MPA Request or Reply frame
  LocalCatastrophic = 5,    // RFC 6581 8: local catastrophic error
  InsufficientIrd = 6,      // RFC 6581 8: insufficient IRD resources
  NoMatchingRtr = 7,        // RFC 6581 8: no matching RTR option
};
inline constexpr unsigned kMpaErrorMax = 7;
constexpr unsigned number(MpaError code) { return static_cast<unsigned>(code); }
// The code a Terminate names on the wire, if it is one of the seven.
constexpr std::optional<MpaError> mpa_error_from_wire(unsigned value) {
  if (value == 0 || value > kMpaErrorMax) return std::nullopt;
  return static_cast<MpaError>(value);
}
std::string_view describe(MpaError code);  // "MPA CRC error"

// A set of MPA error codes (those seen in a direction's data, say).
class MpaErrorSet {
 public:
  constexpr void add(MpaError code) { bits_ |= static_cast<std::uint8_t>(1u << number(code)); }
  constexpr bool contains(MpaError code) const { return (bits_ >> number(code)) & 1u; }
  // A Terminate is owed (RFC 6581 9.1, 9.2): code 6 or 7 is in the set.
  constexpr bool terminate_owed() const {
    return contains(MpaError::InsufficientIrd) || contains(MpaError::NoMatchingRtr);
  }

 private:
  std::uint8_t bits_ = 0;
};

// What kind of fault a finding is, as a packet analyser groups them (Wireshark's expert
// groups follow it): a checksum, a structure that cannot be read as the RFC lays it out, the
// order or completeness of the stream, or another protocol rule.
enum class DiagCategory : std::uint8_t { Protocol, Malformed, Checksum, Sequence };

// The enumerator order is not part of the contract; the string id is.
enum class DiagId : std::uint16_t {
  // Startup phase (RFC 5044 7.1, RFC 6581 6 and 9).
  StartupKeyInvalid,
  StartupUnexpectedRequest,
  StartupUnexpectedReply,
  StartupPdLengthTooLarge,
  StartupPdLengthMismatch,
  StartupRevisionUnsupported,
  StartupRevision0,
  StartupRevision2,
  StartupVendorRevision,
  StartupReservedBitsSet,
  StartupRejectBitInRequest,
  StartupConnectionRejected,
  StartupEnhancedWithoutRev2,
  StartupEnhancedDataMissing,
  StartupEnhancedMismatch,
  StartupRtrFlagsWithoutP2p,
  StartupP2pMismatch,
  StartupNoMatchingRtr,
  StartupInsufficientIrd,
  StartupInitiatorDataBeforeReply,
  StartupStreamingPrefix,
  StartupNoReply,
  StartupPrivateDataOver256,
  StartupNoNegotiationNotEchoed,
  // Full operation (RFC 5044 4, 6581 5).
  FpduCrcMismatch,
  FpduPadNonzero,
  FpduUlpduLengthTooLarge,
  FpduUlpduLengthZero,
  FpduExceedsMulpdu,
  FpduNotSegmentAligned,
  FpduResponderSentFirst,
  FpduRtrMissing,
  FpduNotJudgedAfterError,
  MarkerFpduptrMismatch,
  MarkerReservedNonzero,
  MarkerFpduptrLowBits,
  MarkerUnexpected,
  // Connection and capture.
  ConnectionLostMidFpdu,
  ConnectionClosed,
  ConnectionLostMidStartup,
  TcpRetransmissionMismatch,
  CaptureGap,
  CaptureTruncated,
  CaptureStartupNotSeen,
  CaptureParametersInferred,
  CaptureIpFragment,
  CaptureResynchronised,
  // DDP/RDMAP awareness (RFC 5040, 5041), Terminate decoding and interop hints.
  DdpVersionMismatch,
  DdpUlpduTooShort,
  RdmapTerminate,
  RdmapTerminateDisagrees,
  RdmapTerminateEncoding,
  StartupReservedBitSiwGso,
  InteropStackFingerprint,
  InteropP2pRequired,
  InteropRev2RetriedAsRev1,
  // How a sender frames FPDUs when it breaks RFC 5044 4.1-4.3 (framing truth).
  FpduFramingLost,
  FpduPadRuleWrong,
  FpduCrcFieldMissing,
  FpduMarkersMissing,
  FpduUlpduLengthMiscounted,
  FpduFramingUnverifiable,
  // Startup frames answered or sent that should not have been (RFC 5044 7.1.2; RFC 6581 9.1).
  StartupInvalidRequestAnswered,
  StartupNoNegotiationUnsolicited,
  // The capture's edges (its end inside a startup frame).
  CaptureStartupFrameCut,
  // The startup exchange as each side reacted (RFC 5044 7.1.2 rules 2, 3 and 9).
  StartupInvalidReplyIgnored,
  StartupReplyBeforePrivateData,
  // IP reassembly: overlapping fragments that carry different octets.
  IpFragmentOverlapMismatch,
  // Retransmissions compared back to the peer's acknowledgement, in bounded memory.
  TcpRetransmissionCheckStopped,
  // Sender rules of RFC 5044 4.4 and RFC 6581 9-10 added later: CRCs off both ways, a CRC
  // computed in a recognisable wrong way, the IRD/ORD block's byte order, an enhanced Request
  // that negotiates nothing.
  StartupCrcDisabled,
  FpduCrcMiscomputed,
  StartupEnhancedBlockLittleEndian,
  StartupEnhancedNegotiatesNothing,
  // RDMA Read and Atomic Requests beyond the IRD the peer declared (RFC 6581 9.1).
  RdmapIrdExceeded,
  // The startup exchange as the peer reacted (RFC 5044 4.3, 7.1.2; RFC 6581 9.1, 9.2).
  StartupInvalidReplyKeptOpen,
  StartupRequestClosedWithoutReply,
  StartupMarkersRefused,
  StartupNegotiationTerminateMissing,
  StartupReplyWithoutRtr,
  StartupFpduAfterReject,
  // The receiver's reaction to a CRC or marker error in its peer's FPDUs (RFC 5044 4.4, 6, 8).
  ReceiverInvalidFpduAnswered,
  ReceiverErrorIgnored,
  ReceiverClosedAfterError,
  // Added with the conformance matrix's receiver rules (RFC 5044 4.1-4.3, 7.1.2).
  StartupInvalidRequestKeptOpen,
  ReceiverLegalFpduRefused,
  // What MPA carries, as a DDP Stream (RFC 5041) of RDMAP messages (RFC 5040): per-queue
  // message assembly, the fields of each header, and what follows a Terminate.
  DdpReservedNonzero,
  DdpVersionChanged,
  DdpQueueInvalid,
  DdpMsnInvalid,
  DdpMessageUnfinished,
  DdpSegmentsOutOfOrder,
  DdpStagChanged,
  RdmapOpcodeInvalid,
  RdmapOpcodeMisplaced,
  RdmapReservedNonzero,
  RdmapAfterTerminate,
  // RDMA Read Responses held to the Read Requests they answer (RFC 5040 4.4, 5.2), in bounded
  // memory; Terminate Control values (RFC 5040 4.8, Figure 9).
  RdmapReadResponseMismatch,
  RdmapReadResponseLength,
  RdmapReadResponseOutOfOrder,
  RdmapReadResponseUnrequested,
  RdmapReadTrackingStopped,
  RdmapTerminateInvalid,
  // How a DDP Message's segments add up (RFC 5041 4.1, 5.2): its MOs, a zero-length message in
  // one segment, a message the sender's close left open.
  DdpMoInvalid,
  DdpZeroLengthSplit,
  DdpMessageOpenAtClose,
  // RFC 7306 Atomic Requests and their Atomic Responses (rdma_requests.h), laid out as the
  // decoders at hand read them (RFC 7306's text is not in the tree).
  RdmapAtomicOpcodeInvalid,
  RdmapAtomicResponseUnrequested,
  // The receiver's reaction to a DDP or RDMAP error in its peer's segments (RFC 5040 7.1).
  ReceiverTerminateMissing,
  // A Read Request or Terminate carrying ULP payload (RFC 5040 4.2).
  RdmapPayloadNotAllowed,
  // A tagged DDP Message whose segments' TOs do not tile one interval (RFC 5041 5.2).
  DdpTaggedOffsetsInconsistent,
  // A receiver that placed a DDP Segment sent after one in error (RFC 5041 7.1).
  ReceiverSegmentAfterErrorPlaced,
  kCount,
};

// The field a finding is about: where its octets are in the FPDU or startup frame that holds
// the finding's sequence number (Finding::tcp_seq), so that a face can hang the finding on
// that field (the plugin's expert item under the CRC field, say) instead of finding out by a
// rule of its own. None: the finding is about an event (a close, a gap, a retransmission),
// a direction or the capture, not about octets a field holds.
enum class DiagField : std::uint8_t {
  None,
  // Of the FPDU whose octets hold the finding's sequence number:
  Fpdu,         // the FPDU as a whole (its framing, its place in the stream)
  UlpduLength,  // its ULPDU_Length field
  Ulpdu,        // its ULPDU: what DDP/RDMAP read in it
  Pad,          // its pad
  Crc,          // its CRC field (where it belongs, when the sender sends none)
  Marker,       // the marker that begins at the finding's sequence number
  // Of the startup frame that begins at the finding's sequence number:
  StartupFrame,        // the frame as a whole (what it answers, who sent it)
  StartupKey,          // its key
  StartupFlags,        // its flags octet (M C R S Res)
  StartupRevision,     // its Rev field (and a vendor extension after it)
  StartupPdLength,     // its PD_Length field
  StartupPrivateData,  // its private data
  StartupEnhanced,     // its IRD/ORD block (RFC 6581 6)
};

// True for the fields of an FPDU (Fpdu .. Marker), false for those of a startup frame.
constexpr bool is_fpdu_field(DiagField f) { return f >= DiagField::Fpdu && f <= DiagField::Marker; }
constexpr bool is_startup_field(DiagField f) { return f >= DiagField::StartupFrame; }
std::string_view to_string(DiagField field);  // "crc", "startup-flags", "none"

struct DiagnosticInfo {
  DiagId id;
  std::string_view name;  // permanent, e.g. "fpdu.crc-mismatch"
  Severity severity;
  DiagCategory category;
  std::string_view rfc;               // e.g. "RFC 5044 4.4"
  MpaError error_code;                // RFC 5044 8 / RFC 6581 8 code, or None
  std::string_view summary;           // one line
  DiagField field = DiagField::None;  // the field it is about (diagnostics.cpp: field_of)
};

const DiagnosticInfo& info(DiagId id);
std::span<const DiagnosticInfo> catalogue();
std::optional<DiagId> find_diagnostic(std::string_view name);

}  // namespace mpa
