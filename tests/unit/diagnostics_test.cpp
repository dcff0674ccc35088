// Tests for the diagnostics catalogue (diagnostics.h): every id the checker promises is there
// exactly once, with the severity and RFC 5044 8 / RFC 6581 8 error code it must carry.
#include "mpa/diagnostics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

namespace mpa {
namespace {

struct Required {
  std::string_view name;
  Severity severity;
  unsigned error_code;
};

using enum Severity;

// Code 4 (invalid startup frame) is always an error; codes 6 and 7 (RFC 6581 8) too.
constexpr Required kRequired[] = {
    {"startup.key-invalid", Error, 4},
    {"startup.unexpected-request", Error, 4},
    {"startup.unexpected-reply", Error, 4},
    {"startup.pd-length-too-large", Error, 4},
    {"startup.pd-length-mismatch", Error, 4},
    {"startup.revision-unsupported", Error, 4},
    {"startup.revision-0", Note, 0},
    {"startup.revision-2", Note, 0},
    {"startup.vendor-revision", Note, 0},
    {"startup.reserved-bits-set", Warning, 0},
    {"startup.reject-bit-in-request", Warning, 0},
    {"startup.connection-rejected", Note, 0},
    {"startup.enhanced-data-missing", Error, 4},
    {"startup.no-matching-rtr", Note, 0},
    {"startup.insufficient-ird", Error, 6},
    {"startup.streaming-prefix", Note, 0},
    {"startup.no-reply", Note, 0},
    {"startup.private-data-over-256", Note, 0},
    {"fpdu.crc-mismatch", Error, 2},
    {"fpdu.pad-nonzero", Warning, 0},
    {"fpdu.ulpdu-length-too-large", Warning, 0},
    {"fpdu.ulpdu-length-zero", Note, 0},
    {"fpdu.exceeds-mulpdu", Note, 0},
    {"fpdu.not-segment-aligned", Note, 0},
    {"fpdu.rtr-missing", Error, 7},
    {"marker.fpduptr-mismatch", Error, 3},
    {"marker.reserved-nonzero", Warning, 0},
    {"marker.fpduptr-low-bits", Warning, 0},
    {"connection.lost-mid-fpdu", Error, 1},
    {"connection.closed", Note, 1},
    {"capture.gap", Note, 0},
    {"capture.truncated", Note, 0},
    {"capture.startup-not-seen", Note, 0},
    {"capture.parameters-inferred", Note, 0},
    {"fpdu.framing-lost", Error, 0},
    {"fpdu.pad-rule-wrong", Error, 0},
    {"fpdu.crc-field-missing", Error, 0},
    {"fpdu.markers-missing", Error, 3},
    {"fpdu.ulpdu-length-miscounted", Error, 0},
    {"fpdu.framing-unverifiable", Note, 0},
    {"startup.invalid-request-answered", Error, 0},
    {"startup.no-negotiation-unsolicited", Warning, 0},
    {"capture.startup-frame-cut", Note, 0},
    {"startup.invalid-reply-ignored", Error, 0},
    {"startup.reply-before-private-data", Error, 0},
    {"capture.ip-fragment", Note, 0},
    {"ip.fragment-overlap-mismatch", Error, 0},
    {"tcp.retransmission-check-stopped", Note, 0},
    {"startup.crc-disabled", Note, 0},
    {"fpdu.crc-miscomputed", Error, 2},
    {"startup.enhanced-block-little-endian", Warning, 0},
    {"startup.enhanced-negotiates-nothing", Warning, 0},
    {"rdmap.ird-exceeded", Error, 0},
    {"startup.invalid-reply-kept-open", Error, 0},
    {"startup.request-closed-without-reply", Warning, 0},
    {"startup.markers-refused", Warning, 0},
    {"startup.negotiation-terminate-missing", Error, 0},
    {"startup.reply-without-rtr", Warning, 0},
    {"receiver.invalid-fpdu-answered", Error, 0},
    {"receiver.error-ignored", Warning, 0},
    {"receiver.closed-after-error", Warning, 0},
    {"startup.invalid-request-kept-open", Error, 0},
    {"receiver.legal-fpdu-refused", Warning, 0},
    {"ddp.reserved-nonzero", Error, 0},
    {"ddp.version-changed", Error, 0},
    {"ddp.queue-invalid", Error, 0},
    {"ddp.msn-invalid", Error, 0},
    {"ddp.message-unfinished", Error, 0},
    {"ddp.segments-out-of-order", Warning, 0},
    {"ddp.stag-changed", Error, 0},
    {"rdmap.opcode-invalid", Error, 0},
    {"rdmap.opcode-misplaced", Error, 0},
    {"rdmap.reserved-nonzero", Error, 0},
    {"rdmap.after-terminate", Error, 0},
    {"rdmap.read-response-mismatch", Error, 0},
    {"rdmap.read-response-length", Error, 0},
    {"rdmap.read-response-out-of-order", Error, 0},
    {"rdmap.read-response-unrequested", Error, 0},
    {"rdmap.read-tracking-stopped", Note, 0},
    {"rdmap.terminate-invalid", Error, 0},
    {"ddp.mo-invalid", Error, 0},
    {"ddp.zero-length-split", Error, 0},
    {"ddp.message-open-at-close", Error, 0},
    {"rdmap.atomic-opcode-invalid", Error, 0},
    {"rdmap.atomic-response-unrequested", Error, 0},
    {"receiver.terminate-missing", Warning, 0},
    {"rdmap.payload-not-allowed", Error, 0},
    {"ddp.tagged-offsets-inconsistent", Error, 0},
    {"receiver.segment-after-error-placed", Warning, 0},
};

TEST(Diagnostics, CatalogueHasEveryRequiredIdExactlyOnceWithItsSeverityAndCode) {
  for (const Required& required : kRequired) {
    SCOPED_TRACE(std::string(required.name));
    std::size_t seen = 0;
    for (const DiagnosticInfo& entry : catalogue()) {
      if (entry.name != required.name) continue;
      ++seen;
      EXPECT_EQ(entry.severity, required.severity) << to_string(entry.severity);
      EXPECT_EQ(number(entry.error_code), required.error_code);
    }
    EXPECT_EQ(seen, 1u);
  }
}

TEST(Diagnostics, RetransmissionMismatchIsAnError) {
  const auto id = find_diagnostic("tcp.retransmission-mismatch");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(info(*id).severity, Severity::Error);
}

TEST(Diagnostics, FindDiagnosticRoundTripsEveryEntry) {
  ASSERT_EQ(catalogue().size(), static_cast<std::size_t>(DiagId::kCount));
  for (const DiagnosticInfo& entry : catalogue()) {
    SCOPED_TRACE(std::string(entry.name));
    const auto id = find_diagnostic(entry.name);
    ASSERT_TRUE(id.has_value());
    EXPECT_EQ(*id, entry.id);
    EXPECT_EQ(info(*id).name, entry.name);
    EXPECT_EQ(&info(entry.id), &entry);
  }
}

TEST(Diagnostics, FindDiagnosticRejectsUnknownAndNearMissNames) {
  EXPECT_FALSE(find_diagnostic("").has_value());
  EXPECT_FALSE(find_diagnostic("crc-mismatch").has_value());
  EXPECT_FALSE(find_diagnostic("fpdu.crc-mismatch ").has_value());
  EXPECT_FALSE(find_diagnostic("FPDU.CRC-MISMATCH").has_value());
}

TEST(Diagnostics, EveryEntryNamesItsAreaCitesAnRfcAndExplainsItself) {
  std::set<std::string_view> names;
  for (const DiagnosticInfo& entry : catalogue()) {
    SCOPED_TRACE(std::string(entry.name));
    EXPECT_TRUE(names.insert(entry.name).second);
    // "area.what-went-wrong": lower case, one dot, no spaces.
    EXPECT_EQ(std::count(entry.name.begin(), entry.name.end(), '.'), 1);
    EXPECT_EQ(entry.name.find(' '), std::string_view::npos);
    EXPECT_TRUE(std::none_of(entry.name.begin(), entry.name.end(),
                             [](char c) { return c >= 'A' && c <= 'Z'; }));
    EXPECT_TRUE(entry.rfc.starts_with("RFC "));
    EXPECT_FALSE(entry.summary.empty());
    // An RFC error code ends MPA: codes 2-7 are errors (code 1 also names a clean close).
    if (number(entry.error_code) >= 2) {
      EXPECT_EQ(entry.severity, Severity::Error);
    }
  }
}

TEST(Diagnostics, CategoriesGroupFindingsAsAPacketAnalyserDoes) {
  auto category = [](std::string_view name) { return info(*find_diagnostic(name)).category; };
  EXPECT_EQ(category("fpdu.crc-mismatch"), DiagCategory::Checksum);
  EXPECT_EQ(category("startup.key-invalid"), DiagCategory::Malformed);
  EXPECT_EQ(category("startup.pd-length-mismatch"), DiagCategory::Malformed);
  EXPECT_EQ(category("marker.fpduptr-mismatch"), DiagCategory::Malformed);
  EXPECT_EQ(category("connection.lost-mid-fpdu"), DiagCategory::Sequence);
  EXPECT_EQ(category("capture.gap"), DiagCategory::Sequence);
  EXPECT_EQ(category("tcp.retransmission-mismatch"), DiagCategory::Sequence);
  EXPECT_EQ(category("ip.fragment-overlap-mismatch"), DiagCategory::Sequence);
  EXPECT_EQ(category("startup.insufficient-ird"), DiagCategory::Protocol);
  EXPECT_EQ(category("ddp.version-mismatch"), DiagCategory::Protocol);
  // Only CRC findings are checksum findings.
  for (const DiagnosticInfo& entry : catalogue()) {
    EXPECT_EQ(entry.category == DiagCategory::Checksum, entry.error_code == MpaError::CrcError)
        << entry.name;
  }
}

TEST(Diagnostics, EachEntrySaysWhichFieldItsFindingsAreAbout) {
  auto field = [](std::string_view name) { return info(*find_diagnostic(name)).field; };
  EXPECT_EQ(field("fpdu.crc-mismatch"), DiagField::Crc);
  EXPECT_EQ(field("fpdu.crc-miscomputed"), DiagField::Crc);
  EXPECT_EQ(field("fpdu.pad-nonzero"), DiagField::Pad);
  EXPECT_EQ(field("fpdu.pad-rule-wrong"), DiagField::Pad);
  EXPECT_EQ(field("marker.fpduptr-mismatch"), DiagField::Marker);
  EXPECT_EQ(field("fpdu.ulpdu-length-too-large"), DiagField::UlpduLength);
  EXPECT_EQ(field("rdmap.terminate"), DiagField::Ulpdu);
  EXPECT_EQ(field("startup.key-invalid"), DiagField::StartupKey);
  EXPECT_EQ(field("startup.reserved-bits-set"), DiagField::StartupFlags);
  EXPECT_EQ(field("startup.pd-length-too-large"), DiagField::StartupPdLength);
  EXPECT_EQ(field("startup.insufficient-ird"), DiagField::StartupEnhanced);
  EXPECT_EQ(field("capture.gap"), DiagField::None);
  EXPECT_EQ(field("connection.closed"), DiagField::None);
  EXPECT_EQ(to_string(DiagField::Crc), "crc");
  EXPECT_EQ(to_string(DiagField::StartupPdLength), "startup-pd-length");
  for (const DiagnosticInfo& entry : catalogue()) {
    // A field belongs to an FPDU or to a startup frame, never both; fpdu.* and marker.*
    // findings are about an FPDU's octets or about none, startup.* ones not about an FPDU's
    // fields (but an FPDU sent when it should not have been).
    EXPECT_FALSE(is_fpdu_field(entry.field) && is_startup_field(entry.field)) << entry.name;
    EXPECT_NE(to_string(entry.field), "?") << entry.name;
    if (entry.name.starts_with("fpdu.") || entry.name.starts_with("marker.")) {
      EXPECT_FALSE(is_startup_field(entry.field)) << entry.name;
    }
  }
}

TEST(Diagnostics, MpaErrorCodesAreTheRfcNumbersWithTheirNames) {
  EXPECT_EQ(number(MpaError::ConnectionLost), 1u);
  EXPECT_EQ(number(MpaError::InvalidStartupFrame), 4u);
  EXPECT_EQ(number(MpaError::NoMatchingRtr), 7u);
  EXPECT_EQ(mpa_error_from_wire(2), MpaError::CrcError);
  EXPECT_EQ(mpa_error_from_wire(6), MpaError::InsufficientIrd);
  EXPECT_FALSE(mpa_error_from_wire(0).has_value());
  EXPECT_FALSE(mpa_error_from_wire(8).has_value());
  EXPECT_EQ(describe(MpaError::CrcError), "MPA CRC error");
  EXPECT_EQ(describe(MpaError::LocalCatastrophic), "local catastrophic error");
}

TEST(Diagnostics, MpaErrorSetHoldsWhatWasAdded) {
  MpaErrorSet set;
  EXPECT_FALSE(set.contains(MpaError::CrcError));
  set.add(MpaError::CrcError);
  set.add(MpaError::NoMatchingRtr);
  EXPECT_TRUE(set.contains(MpaError::CrcError));
  EXPECT_TRUE(set.contains(MpaError::NoMatchingRtr));
  EXPECT_FALSE(set.contains(MpaError::MarkerMismatch));
  EXPECT_FALSE(set.contains(MpaError::InsufficientIrd));
}

TEST(Diagnostics, SeverityCountsAreIndexedBySeverity) {
  SeverityCounts counts;
  ++counts[Severity::Error];
  counts[Severity::Note] += 3;
  EXPECT_EQ(counts[Severity::Error], 1u);
  EXPECT_EQ(counts[Severity::Warning], 0u);
  EXPECT_EQ(counts[Severity::Note], 3u);
}

TEST(Diagnostics, SeveritiesHaveNames) {
  EXPECT_EQ(to_string(Severity::Note), "note");
  EXPECT_EQ(to_string(Severity::Warning), "warning");
  EXPECT_EQ(to_string(Severity::Error), "error");
}

}  // namespace
}  // namespace mpa
