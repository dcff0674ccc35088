// Tests of the connection (lib/src/connection/) on startup frames that share a TCP segment
// with their sender's first FPDU, and on PD_Lengths that over- or understate the private data
// (issue 43): the sender's deviation is named once, what follows is framed by what it proves
// to be, every FPDU is counted at its own sequence number, and no peer is blamed for what
// only a misreading would imply.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "faults.h"
#include "mpa/analyzer.h"
#include "scenario.h"
#include "scenario_analysis.h"

namespace mpa {
namespace {

using Ids = std::vector<std::pair<std::string, Direction>>;

// A conversation and the same one with `recipe` applied (the same seed: the same octets
// wherever the recipe leaves them alone).
std::pair<synth::Scenario, synth::Scenario> reference_and_fault(const std::string& recipe,
                                                                bool markers, bool crc) {
  synth::Scenario s = synth::base_scenario("startup-segments-test");
  s.initiator.frame.m = s.responder.frame.m = markers;
  s.initiator.frame.c = s.responder.frame.c = crc;
  synth::Scenario faulty = s;
  const synth::FaultRecipe* r = synth::find_fault(recipe);
  EXPECT_NE(r, nullptr) << recipe;
  if (r) synth::apply_fault(faulty, *r);
  return {s, faulty};
}

// The errors and warnings, sorted (notes left out).
Ids above_notes(const Recorder& r) {
  Ids out;
  for (const auto& [id, direction] : r.ids(true)) {
    const auto d = find_diagnostic(id);
    if (d && info(*d).severity != Severity::Note) out.emplace_back(id, direction);
  }
  return out;
}

std::vector<FpduFact> fpdus_of(const Recorder& r, Direction d) {
  std::vector<FpduFact> out;
  for (const FpduFact& f : r.fpdus) {
    if (f.direction == d) out.push_back(f);
  }
  return out;
}

// The Request and the Initiator's first FPDU in one segment: an FPDU sent before the Reply,
// not private data beyond PD_Length; the Responder did nothing wrong; every FPDU is listed
// at its sequence number.
TEST(StartupSegments, ARequestSharingASegmentWithAnFpduIsDataBeforeTheReply) {
  for (const bool markers : {false, true}) {
    for (const bool crc : {true, false}) {
      SCOPED_TRACE(fmt::format("markers {} crc {}", markers, crc));
      const auto [reference, faulty] =
          reference_and_fault("startup.initiator-data-before-reply--with-request", markers, crc);
      const Recorder expected = analyze(reference);
      ASSERT_GE(fpdus_of(expected, Direction::Initiator).size(), 10u);
      const Recorder got = analyze(faulty);
      EXPECT_EQ(above_notes(got),
                (Ids{{"startup.initiator-data-before-reply", Direction::Initiator}}));
      EXPECT_EQ(fpdus_of(got, Direction::Initiator), fpdus_of(expected, Direction::Initiator));
      EXPECT_EQ(fpdus_of(got, Direction::Responder), fpdus_of(expected, Direction::Responder));
    }
  }
}

// The Reply and the Responder's first FPDU in one segment: the Responder sent first; the
// Reply is well formed, so the Initiator going on is no fault.
TEST(StartupSegments, AReplySharingASegmentWithAnFpduIsTheResponderSendingFirst) {
  for (const bool markers : {false, true}) {
    SCOPED_TRACE(markers ? "markers" : "no markers");
    const auto [reference, faulty] =
        reference_and_fault("fpdu.responder-sent-first--with-reply", markers, true);
    const Recorder expected = analyze(reference);
    const Recorder got = analyze(faulty);
    EXPECT_EQ(above_notes(got), (Ids{{"fpdu.responder-sent-first", Direction::Responder}}));
    EXPECT_EQ(fpdus_of(got, Direction::Initiator), fpdus_of(expected, Direction::Initiator));
    EXPECT_EQ(fpdus_of(got, Direction::Responder), fpdus_of(expected, Direction::Responder));
  }
}

// A Reply whose PD_Length overstates (16 for 8) or understates (16 for 24) its private data,
// the Initiator going on: the Reply's length is named, and the Initiator for going on; the
// Responder's FPDUs are read from where they begin, all with good CRCs, none blamed.
TEST(StartupSegments, AReplysLyingPdLengthIsNamedOnceAndItsFpdusReadWhereTheyBegin) {
  for (const char* recipe : {"startup.pd-length-mismatch--reply-overstated",
                             "startup.pd-length-mismatch--reply-understated"}) {
    for (const bool markers : {false, true}) {
      for (const bool crc : {true, false}) {
        SCOPED_TRACE(fmt::format("{}, markers {}, crc {}", recipe, markers, crc));
        const auto [reference, faulty] = reference_and_fault(recipe, markers, crc);
        const Recorder expected = analyze(reference);
        const Recorder got = analyze(faulty);
        EXPECT_EQ(above_notes(got), (Ids{{"startup.invalid-reply-ignored", Direction::Initiator},
                                         {"startup.pd-length-mismatch", Direction::Responder}}));
        EXPECT_EQ(fpdus_of(got, Direction::Initiator), fpdus_of(expected, Direction::Initiator));
        const std::vector<FpduFact> responder = fpdus_of(got, Direction::Responder);
        EXPECT_EQ(responder.size(), fpdus_of(expected, Direction::Responder).size());
        for (const FpduFact& f : responder)
          EXPECT_EQ(f.crc, crc ? CrcStatus::Good : CrcStatus::NotChecked);
      }
    }
  }
}

// The same lengths with the other side closing or terminating, and the Request's PD_Length
// lying with the Responder answering or closing: the sender's deviation, and nothing the
// misreading alone would imply (a connection lost inside a startup frame, an FPDU of
// private data, the Responder sending first).
TEST(StartupSegments, ALyingPdLengthIsNamedOnceWhateverThePeerDoesNext) {
  const std::vector<std::pair<const char*, Ids>> cases = {
      {"startup.pd-length-mismatch--reply-overstated-closed",
       {{"startup.pd-length-mismatch", Direction::Responder}}},
      {"startup.pd-length-mismatch--reply-understated-closed",
       {{"startup.pd-length-mismatch", Direction::Responder}}},
      {"startup.pd-length-mismatch--reply-overstated-terminated",
       {{"startup.pd-length-mismatch", Direction::Responder}}},
      {"startup.pd-length-mismatch--understated-answered",
       {{"startup.invalid-request-answered", Direction::Responder},
        {"startup.pd-length-mismatch", Direction::Initiator}}},
      {"startup.pd-length-mismatch--overstated-closed",
       {{"startup.pd-length-mismatch", Direction::Initiator}}},
  };
  for (const auto& [recipe, ids] : cases) {
    SCOPED_TRACE(recipe);
    const Recorder got = analyze(reference_and_fault(recipe, false, true).second);
    EXPECT_EQ(above_notes(got), ids);
  }
}

// A Request whose PD_Length understates its private data (8 for 16), with the Initiator's
// first FPDU in the same segment, answered all the same: the private data beyond PD_Length
// ends where the FPDU begins (its CRC matches), which is read as sent before the Reply.
TEST(StartupSegments, PrivateDataBeyondPdLengthEndsWhereAnFpduBegins) {
  auto [reference, faulty] =
      reference_and_fault("startup.initiator-data-before-reply--with-request", false, true);
  for (synth::Scenario* s : {&reference, &faulty}) s->initiator.frame.private_data_length = 16;
  faulty.initiator.frame.pd_length_field = 8;
  const Recorder expected = analyze(reference);
  const Recorder got = analyze(faulty);
  EXPECT_EQ(above_notes(got), (Ids{{"startup.initiator-data-before-reply", Direction::Initiator},
                                   {"startup.invalid-request-answered", Direction::Responder},
                                   {"startup.pd-length-mismatch", Direction::Initiator}}));
  EXPECT_EQ(fpdus_of(got, Direction::Initiator), fpdus_of(expected, Direction::Initiator));
  EXPECT_EQ(fpdus_of(got, Direction::Responder), fpdus_of(expected, Direction::Responder));
}

// The Initiator's Terminate after a Reply that overstated its private data is read (as the
// RFC receiver that closed would have): it is noted, not dropped with the held octets.
TEST(StartupSegments, AnInitiatorsTerminateAfterACutShortReplyIsRead) {
  const Recorder got = analyze(
      reference_and_fault("startup.pd-length-mismatch--reply-overstated-terminated", false, true)
          .second);
  EXPECT_TRUE(got.has(DiagId::RdmapTerminate));
  EXPECT_EQ(fpdus_of(got, Direction::Initiator).size(), 1u);
}

// After a Reject (R=1) both sides go on, the Initiator's first FPDU with a wrong CRC: the
// FPDUs are read from that one on as soon as the next one frames as declared, so the CRC
// error is found before the Responder's Terminate (MPA error 2) names it, and that Terminate
// agrees with what was seen.
TEST(StartupSegments, ABadCrcOnTheFirstFpduAfterARejectIsFoundInTime) {
  for (const bool markers : {false, true}) {
    SCOPED_TRACE(markers ? "markers" : "no markers");
    // (Markers in the Initiator's FPDUs only: a Reject of a Request asking for markers is a
    // warning of its own.)
    synth::Scenario s =
        reference_and_fault("startup.fpdu-after-reject--first-crc-mismatch", false, true).second;
    s.responder.frame.m = markers;
    const Recorder got = analyze(s);
    EXPECT_EQ(above_notes(got), (Ids{{"fpdu.crc-mismatch", Direction::Initiator},
                                     {"startup.fpdu-after-reject", Direction::Initiator},
                                     {"startup.fpdu-after-reject", Direction::Responder}}));
    const std::vector<FpduFact> initiator = fpdus_of(got, Direction::Initiator);
    ASSERT_FALSE(initiator.empty());
    EXPECT_EQ(initiator.front().crc, CrcStatus::Bad);
  }
}

}  // namespace
}  // namespace mpa
