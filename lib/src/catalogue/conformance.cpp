// The conformance matrix (see conformance.h): the rules, read at first use from their table
// (conformance_rules.txt, embedded at build time; conformance_table.cpp reads and checks it),
// the catalogue entries beyond them and the keywords that state no rule. The RFC texts
// themselves (line ranges, quotes, every keyword accounted for) and the captures'
// expectations are checked by tests/unit/conformance_test.cpp.
#include "mpa/conformance.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

#include "catalogue/conformance_table.h"

namespace mpa {

// The table's text and the name of its file, defined by the source conformance_rules.cmake
// generates from it.
std::string_view conformance_rules_text();
std::string_view conformance_rules_file();

namespace {

using enum DiagId;
using enum Rfc;
using enum Requirement;
using enum Observable;
using enum Coverage;

// The catalogue entries beyond the rules (the table, as it is read, checks that every entry
// is tied to a rule or here, never both).
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
    {RdmapTerminate, BeyondRules::DdpRdmap, "the peer's Terminate, its own verdict (RFC 5040 4.8)"},
    {RdmapReadTrackingStopped, BeyondRules::Capture,
     "RDMA Read Requests beyond what mpa-check keeps outstanding: their Responses go unjudged"},
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

}  // namespace

std::string_view to_string(Rfc rfc) {
  static constexpr std::array<std::string_view, 5> kNames{"RFC 5044", "RFC 6581", "RFC 5041",
                                                          "RFC 5040", "RFC 7306"};
  return kNames[static_cast<std::size_t>(rfc)];
}
std::string_view number(Rfc rfc) { return to_string(rfc).substr(4); }

std::string lines_of(const ConformanceRule& rule) {
  if (rule.first_line == 0) return "none";
  return fmt::format("{}-{}", rule.first_line, rule.last_line);
}

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

std::span<const ConformanceRule> conformance_rules() {
  static const ConformanceTable table(conformance_rules_text(), conformance_rules_file(), kUntied);
  return table.rules();
}

const ConformanceRule* find_rule(std::string_view id) {
  for (const ConformanceRule& rule : conformance_rules()) {
    if (rule.id == id) return &rule;
  }
  return nullptr;
}

std::vector<const ConformanceRule*> rules_of(DiagId id) {
  std::vector<const ConformanceRule*> out;
  for (const ConformanceRule& rule : conformance_rules()) {
    if (std::find(rule.ids().begin(), rule.ids().end(), id) != rule.ids().end()) {
      out.push_back(&rule);
    }
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
