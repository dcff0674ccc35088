// The diagnostics catalogue table (see diagnostics.h). Checked at compile time: one entry
// per DiagId in enum order, unique names, every entry cites an RFC section, error codes
// within RFC 5044 section 8 / RFC 6581 section 8.
#include "mpa/diagnostics.h"

#include <array>
#include <cstddef>

namespace mpa {
namespace {

using enum DiagId;
using enum Severity;

constexpr std::array<DiagnosticInfo, static_cast<std::size_t>(kCount)> kCatalogue{{
    // ---- startup
    {StartupKeyInvalid, "startup.key-invalid", Error, "RFC 5044 7.1.1", 4,
     "Startup frame key is neither \"MPA ID Req Frame\" nor \"MPA ID Rep Frame\""},
    {StartupUnexpectedRequest, "startup.unexpected-request", Error, "RFC 5044 7.1.2", 4,
     "MPA Request where a Reply was due (Initiator/Initiator startup)"},
    {StartupUnexpectedReply, "startup.unexpected-reply", Error, "RFC 5044 7.1.2", 4,
     "MPA Reply without a preceding Request from the peer"},
    {StartupPdLengthTooLarge, "startup.pd-length-too-large", Error, "RFC 5044 7.1.1", 4,
     "PD_Length exceeds 512 octets"},
    {StartupPdLengthMismatch, "startup.pd-length-mismatch", Error, "RFC 5044 7.1.1", 4,
     "PD_Length does not match the private data sent"},
    {StartupRevisionUnsupported, "startup.revision-unsupported", Error, "RFC 5044 7.1.1", 4,
     "Startup frame carries an MPA revision no known implementation uses"},
    {StartupRevision0, "startup.revision-0", Note, "RFC 5044 Appendix C", 0,
     "Rev 0 (RDMA Consortium) startup frame: markers and CRC expected, DDP/RDMAP version 0"},
    {StartupRevision2, "startup.revision-2", Note, "RFC 6581 6", 0,
     "Rev 2 startup frame (enhanced connection establishment)"},
    {StartupVendorRevision, "startup.vendor-revision", Note, "RFC 5044 7.1.1", 0,
     "Vendor revision 129 (Alibaba erdma): 8-octet extension after the header"},
    {StartupReservedBitsSet, "startup.reserved-bits-set", Warning, "RFC 5044 7.1.1", 0,
     "Reserved flag bits set in a startup frame (MUST be zero, not checked on receipt)"},
    {StartupRejectBitInRequest, "startup.reject-bit-in-request", Warning, "RFC 5044 7.1.1", 0,
     "R bit set in an MPA Request (MUST be zero, not checked on receipt)"},
    {StartupConnectionRejected, "startup.connection-rejected", Note, "RFC 5044 7.1.2", 0,
     "Responder rejected the connection (R=1); MPA ends on this connection"},
    {StartupEnhancedWithoutRev2, "startup.enhanced-without-rev2", Error, "RFC 6581 6", 0,
     "S bit (enhanced connection establishment) set with Rev below 2"},
    {StartupEnhancedDataMissing, "startup.enhanced-data-missing", Error, "RFC 6581 6", 4,
     "S=1 but the private data is too short for the 4-octet IRD/ORD block"},
    {StartupEnhancedMismatch, "startup.enhanced-mismatch", Error, "RFC 6581 6", 0,
     "Request and Reply disagree on enhanced connection establishment (S bit / IRD-ORD block)"},
    {StartupRtrFlagsWithoutP2p, "startup.rtr-flags-without-p2p", Warning, "RFC 6581 9.2", 0,
     "RTR flags B/C/D set while A (peer-to-peer) is 0"},
    {StartupP2pMismatch, "startup.p2p-mismatch", Error, "RFC 6581 9.2", 0,
     "Reply's A (peer-to-peer) flag does not echo the Request's"},
    {StartupNoMatchingRtr, "startup.no-matching-rtr", Error, "RFC 6581 9.2", 7,
     "Peer-to-peer negotiated but no RTR option both sides support"},
    {StartupInsufficientIrd, "startup.insufficient-ird", Error, "RFC 6581 9.1", 6,
     "IRD/ORD inequality violated (initiator ORD > responder IRD or responder ORD > initiator IRD)"},
    {StartupInitiatorDataBeforeReply, "startup.initiator-data-before-reply", Error,
     "RFC 5044 7.1.2", 0, "Initiator sent data after its Request before the Reply arrived"},
    {StartupStreamingPrefix, "startup.streaming-prefix", Note, "RFC 5044 7.1", 0,
     "Streaming-mode bytes precede the startup frame (delayed startup)"},
    {StartupNoReply, "startup.no-reply", Note, "RFC 5044 7.1.2", 0,
     "MPA Request seen but no Reply by the end of the capture"},
    {StartupPrivateDataOver256, "startup.private-data-over-256", Note, "RFC 5044 7.1.1", 0,
     "Private data of 257-512 octets: legal, but Linux siw, Chelsio and erdma refuse it"},
    {StartupNoNegotiationNotEchoed, "startup.no-negotiation-not-echoed", Error, "RFC 6581 9.1", 0,
     "Initiator IRD/ORD 0x3FFF (no negotiation) not answered with 0x3FFF in the Reply"},
    // ---- full operation
    {FpduCrcMismatch, "fpdu.crc-mismatch", Error, "RFC 5044 4.4", 2,
     "FPDU CRC32c does not match its contents"},
    {FpduPadNonzero, "fpdu.pad-nonzero", Warning, "RFC 5044 4.1", 0,
     "FPDU pad octets not zero (MUST be zero, ignored on receipt)"},
    {FpduUlpduLengthTooLarge, "fpdu.ulpdu-length-too-large", Warning, "RFC 5044 4.5", 0,
     "ULPDU_Length above 64768: larger than any MULPDU an IP datagram allows"},
    {FpduUlpduLengthZero, "fpdu.ulpdu-length-zero", Note, "RFC 5044 4.1", 0,
     "FPDU with ULPDU_Length 0 (no DDP header; legal framing, odd traffic)"},
    {FpduExceedsMulpdu, "fpdu.exceeds-mulpdu", Note, "RFC 5044 4.5", 0,
     "ULPDU larger than the MULPDU the connection's MSS allows"},
    {FpduNotSegmentAligned, "fpdu.not-segment-aligned", Note, "RFC 5044 5.1", 0,
     "FPDUs are not aligned with TCP segments (one note per direction)"},
    {FpduResponderSentFirst, "fpdu.responder-sent-first", Error, "RFC 5044 7.1.2", 0,
     "Responder sent an FPDU or marker before receiving the Initiator's first FPDU"},
    {FpduRtrMissing, "fpdu.rtr-missing", Error, "RFC 6581 5", 7,
     "Peer-to-peer: the Initiator's first FPDU is not a negotiated RTR"},
    {FpduNotJudgedAfterError, "fpdu.not-judged-after-error", Note, "RFC 5044 8", 0,
     "An error ended MPA in this direction; later FPDUs are counted but not judged"},
    {MarkerFpduptrMismatch, "marker.fpduptr-mismatch", Error, "RFC 5044 4.3", 3,
     "Marker FPDUPTR disagrees with where the FPDU starts"},
    {MarkerReservedNonzero, "marker.reserved-nonzero", Warning, "RFC 5044 4.2", 0,
     "Marker reserved field not zero (MUST be zero, ignored on receipt)"},
    {MarkerFpduptrLowBits, "marker.fpduptr-low-bits", Warning, "RFC 5044 4.2", 0,
     "FPDUPTR low two bits not zero (MUST be zero, treated as zero on receipt)"},
    {MarkerUnexpected, "marker.unexpected", Error, "RFC 5044 7.1.1", 3,
     "Markers in a direction whose receiver did not ask for them (M=0)"},
    // ---- connection and capture
    {ConnectionLostMidFpdu, "connection.lost-mid-fpdu", Error, "RFC 5044 8", 1,
     "TCP connection closed or reset inside an FPDU"},
    {ConnectionClosed, "connection.closed", Note, "RFC 5044 8", 1,
     "TCP connection closed at an FPDU boundary"},
    {ConnectionLostMidStartup, "connection.lost-mid-startup", Error, "RFC 5044 8", 1,
     "TCP connection closed or reset inside a startup frame"},
    {TcpRetransmissionMismatch, "tcp.retransmission-mismatch", Error, "RFC 793 3.3", 0,
     "Retransmitted TCP bytes differ from the bytes first sent"},
    {CaptureGap, "capture.gap", Note, "RFC 5044 6", 0,
     "Bytes missing from the capture; what they held could not be verified"},
    {CaptureTruncated, "capture.truncated", Note, "RFC 5044 6", 0,
     "Packets cut by the snapshot length; their FPDUs could not be verified"},
    {CaptureStartupNotSeen, "capture.startup-not-seen", Note, "RFC 5044 7.1", 0,
     "Startup frames not in the capture; startup could not be checked"},
    {CaptureParametersInferred, "capture.parameters-inferred", Note, "RFC 5044 6", 0,
     "Markers and CRC use inferred from the data (or taken from options)"},
    {CaptureIpFragment, "capture.ip-fragment", Note, "RFC 791 2.3", 0,
     "IP fragment not reassembled; its TCP bytes count as missing"},
    {CaptureResynchronised, "capture.resynchronised", Note, "RFC 5044 6", 0,
     "FPDU framing found again after missing bytes"},
    // ---- DDP/RDMAP awareness, Terminate, interop hints
    {DdpVersionMismatch, "ddp.version-mismatch", Warning, "RFC 5044 Appendix C", 0,
     "DDP/RDMAP version does not belong to the negotiated MPA revision (0: Rev 0, 1: Rev 1/2)"},
    {DdpUlpduTooShort, "ddp.ulpdu-too-short", Warning, "RFC 5041 4", 0,
     "ULPDU too short to hold the DDP header its control field announces"},
    {RdmapTerminate, "rdmap.terminate", Note, "RFC 5040 4.8", 0,
     "RDMAP Terminate: the peer's own verdict (layer, error type, error code)"},
    {RdmapTerminateDisagrees, "rdmap.terminate-disagrees", Warning, "RFC 5040 4.8", 0,
     "Terminate blames an MPA error that mpa-check did not see in the data it refers to"},
    {RdmapTerminateEncoding, "rdmap.terminate-encoding", Warning, "RFC 5040 4.8", 0,
     "Terminate Control laid out as Linux siw does (Layer/EType nibbles swapped, flags in low bits)"},
    {StartupReservedBitSiwGso, "startup.reserved-bit-siw-gso", Warning, "RFC 5044 7.1.1", 0,
     "Reserved flag bit 0x08 set: Linux siw's GSO experiment (FPDUs larger than the MSS follow)"},
    {InteropStackFingerprint, "interop.stack-fingerprint", Note, "RFC 5044 7.1.1", 0,
     "Startup frame recognisable as a known implementation's"},
    {InteropP2pRequired, "interop.p2p-required", Note, "RFC 6581 9.2", 0,
     "Rev 2 Request with A=0 refused: the peer likely requires peer-to-peer (Intel irdma)"},
    {InteropRev2RetriedAsRev1, "interop.rev2-retried-as-rev1", Note, "RFC 6581 6", 0,
     "A Rev 2 Request was refused and the initiator retried with Rev 1 (Chelsio/Intel fallback)"},
}};

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
    if (entry.error_code > 7) return false;
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
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "?";
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
