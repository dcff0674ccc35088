// The diagnostics catalogue: every finding the library can report, with a permanent id,
// its severity, the RFC section it rests on and the error code of RFC 5044 section 8
// (1-4) or RFC 6581 section 8 (5-7) where one applies. Ids are permanent: add, never
// renumber, rename or reuse.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mpa {

enum class Severity : std::uint8_t { Note, Warning, Error };

std::string_view to_string(Severity severity);

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
  kCount,
};

struct DiagnosticInfo {
  DiagId id;
  std::string_view name;     // permanent, e.g. "fpdu.crc-mismatch"
  Severity severity;
  std::string_view rfc;      // e.g. "RFC 5044 4.4"
  std::uint8_t error_code;   // RFC error code 1-7, or 0 for none
  std::string_view summary;  // one line
};

const DiagnosticInfo& info(DiagId id);
std::span<const DiagnosticInfo> catalogue();
std::optional<DiagId> find_diagnostic(std::string_view name);

}  // namespace mpa
