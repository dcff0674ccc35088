// RDMA Read Requests and the Read Responses that answer them (rdma_requests.h), through the
// ULP layer's face as the connection drives it (UlpChecks::check, count_request,
// check_read_response, lose_count): the Data Sink STag and TO copied, the length read, the
// order, a Response nobody asked for, nothing judged without the startup or after a loss, and a
// ceiling on what is kept. And Terminate Control values (RFC 5040 Figure 9).
#include <gtest/gtest.h>

#include "decider_support.h"
#include "mpa/terminate.h"
#include "ulp/ulp_checks.h"

namespace mpa {
namespace {

using namespace test;
using Names = std::vector<std::string>;

// RDMA Read Request (RFC 5040 4.4), MSN `msn`, reading `size` octets into the sink's STag/TO.
Bytes read_request(std::uint32_t msn, std::uint32_t sink_stag, std::uint64_t sink_to,
                   std::uint32_t size) {
  Bytes u = {0x41, 0x41, 0, 0, 0, 0};
  put_be32(u, 1);  // queue 1
  put_be32(u, msn);
  put_be32(u, 0);
  put_be32(u, sink_stag);
  put_be32(u, static_cast<std::uint32_t>(sink_to >> 32));
  put_be32(u, static_cast<std::uint32_t>(sink_to));
  put_be32(u, size);
  put_be32(u, 0x5050);  // Data Source STag
  put_be32(u, 0);
  put_be32(u, 0x1000);  // Data Source TO
  return u;
}
// A Send (queue 0) of 8 octets, MSN `msn`.
Bytes send(std::uint32_t msn) { return untagged(0x3, 0, msn, 0); }
// A tagged RDMA Read Response segment of `payload` octets.
Bytes read_response(std::uint32_t stag, std::uint64_t to, bool last, std::size_t payload) {
  return tagged(0x2, stag, to, last, payload);
}

struct Fpdu {
  Direction from;
  Bytes ulpdu;
};
constexpr Direction kI = Direction::Initiator;
constexpr Direction kR = Direction::Responder;

struct Options {
  bool startup_seen = true;
  std::size_t lose_before = SIZE_MAX;  // lose_count() before this FPDU
};

// The Initiator reads, the Responder answers: each FPDU as MpaConnection feeds it.
Names judge(const std::vector<Fpdu>& fpdus, Options o = {}) {
  UlpChecks checks[2];
  std::vector<Finding> out;
  StartupFrame reply;
  reply.pd_length = 80;
  bool first[2] = {true, true};
  std::uint32_t seq = 1000;
  for (std::size_t i = 0; i < fpdus.size(); ++i) {
    if (i == o.lose_before) {
      checks[0].lose_count();
      checks[1].lose_count();
    }
    const auto from = static_cast<std::size_t>(fpdus[i].from == kR);
    TestFpdu fpdu(fpdus[i].ulpdu, seq);
    seq += 700;
    UlpContext c;
    c.direction = fpdus[i].from;
    c.first_fpdu = first[from];
    first[from] = false;
    if (o.startup_seen) {
      c.revision = 1;
      c.reply = &reply;
    }
    const UlpVerdict v = checks[from].check(fpdu.event, c, out);
    if (!v.ddp) continue;
    if (is_ird_request(*v.ddp))
      checks[from].count_request(fpdu.event, *v.ddp, {}, c.direction, out);
    if (v.ddp->opcode == (v.ddp->tagged ? 0x2 : 0xb)) {
      checks[1 - from].check_read_response(fpdu.event, *v.ddp, c.direction, out);
    }
  }
  return names(out);
}

TEST(RdmaRequests, ResponsesThatAnswerTheirRequestsRaiseNothing) {
  EXPECT_EQ(judge({{kI, read_request(1, 0x100, 0x7000, 600)},
                   {kI, read_request(2, 0x200, 0x0, 0)},
                   {kR, read_response(0x100, 0x7000, false, 400)},
                   {kR, read_response(0x100, 0x7190, true, 200)},
                   {kR, read_response(0x200, 0x0, true, 0)},
                   {kI, read_request(3, 0x300, 0x10, 5)},
                   {kR, read_response(0x300, 0x10, true, 5)}}),
            Names{});
}

TEST(RdmaRequests, AResponseTargetsTheRequestsDataSink) {
  EXPECT_EQ(judge({{kI, read_request(1, 0x100, 0x7000, 600)},
                   {kR, read_response(0x101, 0x7000, true, 600)}}),
            Names{"rdmap.read-response-mismatch"});
  EXPECT_EQ(judge({{kI, read_request(1, 0x100, 0x7000, 600)},
                   {kR, read_response(0x100, 0x7008, true, 600)}}),
            Names{"rdmap.read-response-mismatch"});
}

TEST(RdmaRequests, AResponseCarriesExactlyTheLengthRead) {
  EXPECT_EQ(judge({{kI, read_request(1, 0x100, 0x7000, 600)},
                   {kR, read_response(0x100, 0x7000, false, 300)},
                   {kR, read_response(0x100, 0x712c, true, 200)}}),
            Names{"rdmap.read-response-length"});
  // RFC 5040 5.2.1: a zero-length Read gets a zero-length Response.
  EXPECT_EQ(judge({{kI, read_request(1, 0x100, 0x0, 0)}, {kR, read_response(0x100, 0x0, true, 8)}}),
            Names{"rdmap.read-response-length"});
  // A length fault leaves the pairing known: the next Response is judged, and sound.
  EXPECT_EQ(judge({{kI, read_request(1, 0x100, 0x0, 10)},
                   {kI, read_request(2, 0x200, 0x0, 10)},
                   {kR, read_response(0x100, 0x0, true, 9)},
                   {kR, read_response(0x200, 0x0, true, 10)}}),
            Names{"rdmap.read-response-length"});
}

TEST(RdmaRequests, ResponsesComeInTheOrderOfTheirRequests) {
  EXPECT_EQ(judge({{kI, read_request(1, 0x100, 0x0, 10)},
                   {kI, read_request(2, 0x200, 0x0, 10)},
                   {kR, read_response(0x200, 0x0, true, 10)},
                   {kR, read_response(0x100, 0x0, true, 10)}}),
            Names{"rdmap.read-response-out-of-order"});
}

TEST(RdmaRequests, AResponseWithNoRequestOutstandingIsNamed) {
  EXPECT_EQ(judge({{kI, send(1)}, {kR, read_response(0x100, 0x0, true, 10)}}),
            Names{"rdmap.read-response-unrequested"});
  EXPECT_EQ(judge({{kI, read_request(1, 0x100, 0x0, 10)},
                   {kR, read_response(0x100, 0x0, true, 10)},
                   {kR, read_response(0x100, 0x0, true, 10)}}),
            Names{"rdmap.read-response-unrequested"});
}

TEST(RdmaRequests, NothingIsJudgedWithoutTheStartupOrAfterALoss) {
  // A capture that starts mid-connection: Responses to Requests it never showed.
  Options mid;
  mid.startup_seen = false;
  EXPECT_EQ(judge({{kR, read_response(0x100, 0x0, true, 10)},
                   {kI, read_request(1, 0x100, 0x0, 10)},
                   {kR, read_response(0x900, 0x0, true, 3)}},
                  mid),
            Names{});
  // Octets lost between the Request and its Response (a Request may be among them).
  Options lost;
  lost.lose_before = 1;
  EXPECT_EQ(judge({{kI, read_request(1, 0x100, 0x0, 10)},
                   {kR, read_response(0x200, 0x0, true, 10)},
                   {kR, read_response(0x100, 0x0, true, 10)}},
                  lost),
            Names{});
}

TEST(RdmaRequests, MemoryIsBoundedAndTheCeilingSaidOnce) {
  std::vector<Fpdu> fpdus;
  for (std::uint32_t i = 1; i <= RdmaRequests::kMaxOutstanding + 5; ++i) {
    fpdus.push_back({kI, read_request(i, 0x100 + i, 0x0, 10)});
  }
  fpdus.push_back({kR, read_response(0x999999, 0x0, true, 1)});  // no longer judged
  EXPECT_EQ(judge(fpdus), Names{"rdmap.read-tracking-stopped"});
}

// RFC 7306 Atomic Request, laid out as Wireshark's packet-iwarp-ddp-rdmap.c reads it: on queue 1
// (where IBM's urdma sends it; RFC 7306's text is not in the tree), Atomic Operation Code
// `operation`, Request Identifier `id`, then Remote STag and TO and the four 64-bit operands.
Bytes atomic_request(std::uint32_t msn, std::uint8_t operation, std::uint32_t id) {
  Bytes u = {0x41, 0x4a, 0, 0, 0, 0};
  put_be32(u, 1);
  put_be32(u, msn);
  put_be32(u, 0);
  put_be32(u, operation);
  put_be32(u, id);
  put_be32(u, 0x7700);  // Remote STag
  put_be32(u, 0);
  put_be32(u, 0x40);  // Remote Tagged Offset
  u.resize(u.size() + 32, 0x01);
  return u;
}
// RFC 7306 Atomic Response (queue 3, as urdma sends it): Original Request Identifier `id` and
// the Original Remote Data Value.
Bytes atomic_response(std::uint32_t msn, std::uint32_t id) {
  Bytes u = {0x41, 0x4b, 0, 0, 0, 0};
  put_be32(u, 3);
  put_be32(u, msn);
  put_be32(u, 0);
  put_be32(u, id);
  u.resize(u.size() + 8, 0x02);
  return u;
}

TEST(RdmaRequests, AtomicResponsesAnswerTheirRequestsByIdentifier) {
  EXPECT_EQ(judge({{kI, atomic_request(1, RdmaRequests::kFetchAdd, 71)},
                   {kI, read_request(2, 0x100, 0x0, 10)},
                   {kI, atomic_request(3, RdmaRequests::kCmpSwap, 72)},
                   {kR, atomic_response(1, 71)},
                   {kR, read_response(0x100, 0x0, true, 10)},
                   {kR, atomic_response(2, 72)}}),
            Names{});
  // An identifier no unanswered Request carries: another's, or one answered already.
  EXPECT_EQ(
      judge({{kI, atomic_request(1, RdmaRequests::kFetchAdd, 71)}, {kR, atomic_response(1, 70)}}),
      Names{"rdmap.atomic-response-unrequested"});
  EXPECT_EQ(judge({{kI, atomic_request(1, RdmaRequests::kFetchAdd, 71)},
                   {kR, atomic_response(1, 71)},
                   {kR, atomic_response(2, 71)}}),
            Names{"rdmap.atomic-response-unrequested"});
  EXPECT_EQ(judge({{kI, send(1)}, {kR, atomic_response(1, 5)}}),
            Names{"rdmap.atomic-response-unrequested"});
  // Without the startup, or after a loss, the pairing is unknown.
  Options mid;
  mid.startup_seen = false;
  EXPECT_EQ(judge({{kR, atomic_response(1, 5)}}, mid), Names{});
  Options lost;
  lost.lose_before = 1;
  EXPECT_EQ(
      judge({{kI, atomic_request(1, RdmaRequests::kFetchAdd, 71)}, {kR, atomic_response(1, 9)}},
            lost),
      Names{});
}

TEST(RdmaRequests, AnAtomicOperationIsFetchAddOrCmpSwap) {
  for (const std::uint8_t operation : {1, 3, 0xf}) {
    EXPECT_EQ(judge({{kI, atomic_request(1, operation, 71)}, {kI, atomic_request(2, 5, 72)}}),
              Names{"rdmap.atomic-opcode-invalid"})
        << int{operation};
  }
  // Judged whether or not Responses are paired (the startup unseen), once per direction.
  Options mid;
  mid.startup_seen = false;
  EXPECT_EQ(judge({{kI, atomic_request(1, 1, 71)}, {kR, atomic_request(1, 1, 9)}}, mid),
            (Names{"rdmap.atomic-opcode-invalid", "rdmap.atomic-opcode-invalid"}));
}

TEST(RdmaRequests, AtomicRequestsShareTheCeiling) {
  std::vector<Fpdu> fpdus;
  for (std::uint32_t i = 1; i <= RdmaRequests::kMaxOutstanding; ++i) {
    fpdus.push_back({kI, i % 2 ? read_request(i, 0x100 + i, 0x0, 10)
                               : atomic_request(i, RdmaRequests::kFetchAdd, i)});
  }
  fpdus.push_back({kI, atomic_request(RdmaRequests::kMaxOutstanding + 1, 0, 1)});
  fpdus.push_back({kR, atomic_response(1, 0x999999)});  // no longer judged
  EXPECT_EQ(judge(fpdus), Names{"rdmap.read-tracking-stopped"});
}

// A Terminate (RFC 5040 4.8) of `layer`, `etype`, `code` in Figure 8's layout.
Bytes terminate(std::uint8_t layer, std::uint8_t etype, std::uint8_t code) {
  Bytes u = {0x41, 0x47, 0, 0, 0, 0};
  put_be32(u, 2);
  put_be32(u, 1);
  put_be32(u, 0);
  u.push_back(static_cast<std::uint8_t>(layer << 4 | etype));
  u.push_back(code);
  u.push_back(0);
  u.push_back(0);
  return u;
}

Names terminate_findings(const Bytes& ulpdu) {
  UlpChecks checks;
  TestFpdu fpdu(ulpdu);
  std::vector<Finding> out;
  UlpContext c;
  checks.check_terminate(fpdu.event, c, TerminatePeer{}, out);
  return names(out);
}

TEST(RdmaRequests, TerminateValuesAreThoseFigure9Defines) {
  const Names note{"rdmap.terminate"};
  const Names invalid{"rdmap.terminate", "rdmap.terminate-invalid"};
  EXPECT_EQ(terminate_findings(terminate(0, 0, 0x42)), note);  // local catastrophic: any code
  EXPECT_EQ(terminate_findings(terminate(0, 1, 0x04)), note);  // TO wrap
  EXPECT_EQ(terminate_findings(terminate(0, 2, 0x06)), note);  // unexpected opcode
  EXPECT_EQ(terminate_findings(terminate(0, 2, 0xff)), note);
  EXPECT_EQ(terminate_findings(terminate(1, 2, 0x03)), note);  // DDP invalid MSN
  EXPECT_EQ(terminate_findings(terminate(0, 3, 0x00)), invalid);
  EXPECT_EQ(terminate_findings(terminate(0, 1, 0x06)), invalid);  // an operation code
  EXPECT_EQ(terminate_findings(terminate(0, 2, 0x02)), invalid);  // a protection code
  EXPECT_EQ(terminate_findings(terminate(1, 2, 0x00)), invalid);
  EXPECT_EQ(terminate_findings(terminate(2, 0, 9)), invalid);
  EXPECT_EQ(terminate_findings(terminate(5, 0, 0)), invalid);
}

}  // namespace
}  // namespace mpa
