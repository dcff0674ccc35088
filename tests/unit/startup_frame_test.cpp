// Tests for MPA Request/Reply frames (startup_frame.h; RFC 5044 7.1.1, 7.1.2, Appendix C;
// RFC 6581 6, 9, 10): parsing in any pieces, and each rule of one frame and of a
// Request/Reply pair.
#include "mpa/startup_frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "test_streams.h"

namespace mpa {
namespace {

using test::Bytes;
using test::enhanced_block;
using test::FrameSpec;
using test::startup_frame;

StartupFrame parse_whole(const Bytes& bytes) {
  StartupFrameParser parser;
  EXPECT_EQ(parser.push(bytes), bytes.size());
  EXPECT_TRUE(parser.complete());
  EXPECT_EQ(parser.consumed(), bytes.size());
  EXPECT_EQ(parser.bytes_needed(), 0u);
  return parser.frame();
}

StartupFrame parse(const FrameSpec& spec) { return parse_whole(startup_frame(spec)); }

std::vector<std::string> names_of(const std::vector<StartupIssue>& issues) {
  std::vector<std::string> names;
  for (const StartupIssue& issue : issues) {
    EXPECT_FALSE(issue.message.empty()) << info(issue.id).name;
    names.emplace_back(info(issue.id).name);
  }
  return names;
}

std::vector<std::string> frame_issues(const FrameSpec& spec, FrameKind expected) {
  return names_of(check_startup_frame(parse(spec), expected));
}

std::vector<std::string> negotiation_issues(const FrameSpec& request, const FrameSpec& reply) {
  return names_of(check_negotiation(parse(request), parse(reply)));
}

using Names = std::vector<std::string>;

// The siw Request of the brief: "MPA ID Req Frame" 10 02 00 04, IRD/ORD block.
FrameSpec siw_request() {
  return {.key = test::kReq,
          .flags = 0x10,
          .revision = 2,
          .private_data = enhanced_block(false, false, 16, false, false, 16)};
}

// ---- parsing

TEST(StartupFrameParser, ParsesRev1RequestFields) {
  const StartupFrame f =
      parse({.key = test::kReq, .flags = 0xC0, .revision = 1, .private_data = Bytes{1, 2, 3, 4}});
  EXPECT_EQ(f.kind, FrameKind::Request);
  EXPECT_TRUE(f.m());
  EXPECT_TRUE(f.c());
  EXPECT_FALSE(f.r());
  EXPECT_FALSE(f.s());
  EXPECT_EQ(f.revision, 1);
  EXPECT_EQ(f.pd_length, 4);
  EXPECT_EQ(f.private_data, (Bytes{1, 2, 3, 4}));
  EXPECT_FALSE(f.enhanced.has_value());
  EXPECT_FALSE(f.has_vendor_extension);
  EXPECT_EQ(f.wire_length(), 24u);
}

TEST(StartupFrameParser, ReadsEachFlagBitAlone) {
  struct Case {
    std::uint8_t flags;
    bool m, c, r, s;
  };
  for (const Case& k :
       {Case{0x80, true, false, false, false}, Case{0x40, false, true, false, false},
        Case{0x20, false, false, true, false}, Case{0x10, false, false, false, true},
        Case{0x0F, false, false, false, false}, Case{0xFF, true, true, true, true}}) {
    const StartupFrame f = parse({.key = test::kRep, .flags = k.flags, .revision = 1});
    EXPECT_EQ(f.flags, k.flags);
    EXPECT_EQ(f.m(), k.m) << int(k.flags);
    EXPECT_EQ(f.c(), k.c) << int(k.flags);
    EXPECT_EQ(f.r(), k.r) << int(k.flags);
    EXPECT_EQ(f.s(), k.s) << int(k.flags);
  }
}

TEST(StartupFrameParser, DecodesRev2IrdOrdBlock) {
  const StartupFrame f =
      parse({.key = test::kRep,
             .flags = 0x10,
             .revision = 2,
             .private_data = enhanced_block(true, false, 0x1234, true, true, 0x0ABC)});
  ASSERT_TRUE(f.enhanced.has_value());
  EXPECT_TRUE(f.enhanced->peer_to_peer);
  EXPECT_FALSE(f.enhanced->send_rtr);
  EXPECT_TRUE(f.enhanced->write_rtr);
  EXPECT_TRUE(f.enhanced->read_rtr);
  EXPECT_EQ(f.enhanced->ird, 0x1234);
  EXPECT_EQ(f.enhanced->ord, 0x0ABC);
  EXPECT_TRUE(f.enhanced->any_rtr());

  const StartupFrame none =
      parse({.key = test::kReq,
             .flags = 0x10,
             .revision = 2,
             .private_data = enhanced_block(false, true, 0x3FFF, false, false, 0x3FFF)});
  ASSERT_TRUE(none.enhanced.has_value());
  EXPECT_TRUE(none.enhanced->send_rtr);
  EXPECT_EQ(none.enhanced->ird, kNoNegotiation);
  EXPECT_EQ(none.enhanced->ord, kNoNegotiation);
}

TEST(StartupFrameParser, DecodesIrdOrdOnlyWithSBitAndRev2) {
  const Bytes block = enhanced_block(true, true, 7, false, false, 9);
  EXPECT_FALSE(parse({.flags = 0x00, .revision = 2, .private_data = block}).enhanced.has_value());
  EXPECT_FALSE(parse({.flags = 0x10, .revision = 1, .private_data = block}).enhanced.has_value());
  EXPECT_FALSE(
      parse({.flags = 0x10, .revision = 2, .private_data = Bytes{0x80, 0}}).enhanced.has_value());
  EXPECT_TRUE(parse({.flags = 0x10, .revision = 2, .private_data = block}).enhanced.has_value());
}

// RFC 6581 9: network byte order. A block whose halves are little-endian is read as meant when
// its depths in network order are implausible and byte-swapped are not.
TEST(StartupFrameParser, ReadsALittleEndianIrdOrdBlockAsMeant) {
  const auto read = [](Bytes block) {
    return parse({.key = test::kReq, .flags = 0x10, .revision = 2, .private_data = block});
  };
  const StartupFrame le = read({0x10, 0x00, 0x08, 0x00});  // IRD 16, ORD 8 little-endian
  ASSERT_TRUE(le.enhanced.has_value());
  EXPECT_TRUE(le.enhanced_little_endian);
  EXPECT_EQ(le.enhanced->ird, 16);
  EXPECT_EQ(le.enhanced->ord, 8);
  const StartupFrame none = read({0xFF, 0x3F, 0xFF, 0x3F});  // 0x3FFF twice, little-endian
  EXPECT_TRUE(none.enhanced_little_endian);
  EXPECT_EQ(none.enhanced->ird, kNoNegotiation);
  EXPECT_EQ(none.enhanced->ord, kNoNegotiation);
  const StartupFrame p2p = read({0x04, 0x80, 0x02, 0x80});  // A=1 IRD 4, C=1 ORD 2
  EXPECT_TRUE(p2p.enhanced_little_endian);
  EXPECT_TRUE(p2p.enhanced->peer_to_peer);
  EXPECT_TRUE(p2p.enhanced->write_rtr);
  EXPECT_EQ(p2p.enhanced->ird, 4);
  EXPECT_EQ(p2p.enhanced->ord, 2);
  const StartupFrame half = read({0x00, 0x00, 0x10, 0x00});  // IRD 0 reads alike both ways
  EXPECT_TRUE(half.enhanced_little_endian);
  EXPECT_EQ(half.enhanced->ird, 0);
  EXPECT_EQ(half.enhanced->ord, 16);
}

TEST(StartupFrameParser, NeverTakesAPlausibleNetworkOrderBlockForALittleEndianOne) {
  const auto order_of = [](Bytes block) {
    const StartupFrame f =
        parse({.key = test::kReq, .flags = 0x10, .revision = 2, .private_data = block});
    EXPECT_TRUE(f.enhanced.has_value());
    return f.enhanced_little_endian;
  };
  EXPECT_FALSE(order_of(enhanced_block(false, false, 16, false, false, 16)));
  EXPECT_FALSE(order_of(enhanced_block(false, false, 0, false, false, 0)));  // siw's 0/0
  EXPECT_FALSE(order_of(enhanced_block(false, false, 0x3FFF, false, false, 0x3FFF)));
  EXPECT_FALSE(order_of(enhanced_block(true, false, 16, true, true, 8)));
  EXPECT_FALSE(order_of(enhanced_block(false, false, 255, false, false, 128)));
  // One half plausible in network order: not little-endian, whatever the other.
  EXPECT_FALSE(order_of(enhanced_block(false, false, 16, false, false, 0x1000)));
  // Implausible both ways (swapped: 0x3492): read as sent.
  EXPECT_FALSE(order_of(enhanced_block(true, false, 0x1234, true, true, 0x0ABC)));
  // Swapped, an RTR flag without A (10 40 = B=1, A=0): not a plausible block either.
  EXPECT_FALSE(order_of({0x10, 0x40, 0x08, 0x00}));
}

TEST(StartupFrameParser, Rev129ExtensionFollowsTheHeaderAndIsNotInPdLength) {
  const std::array<std::uint8_t, 8> extension = {0xC0, 0x0C, 0x1E, 0x00, 0, 0, 0, 1};
  const Bytes bytes = startup_frame({.key = test::kReq,
                                     .flags = 0x00,
                                     .revision = 129,
                                     .private_data = Bytes{9, 8, 7},
                                     .extension = extension});
  ASSERT_EQ(bytes.size(), 20u + 8u + 3u);
  const StartupFrame f = parse_whole(bytes);
  EXPECT_TRUE(f.has_vendor_extension);
  EXPECT_EQ(f.vendor_extension, extension);
  EXPECT_EQ(f.pd_length, 3);
  EXPECT_EQ(f.private_data, (Bytes{9, 8, 7}));
  EXPECT_EQ(f.wire_length(), 31u);

  const StartupFrame empty = parse({.revision = 129, .extension = extension});
  EXPECT_TRUE(empty.private_data.empty());
  EXPECT_EQ(empty.wire_length(), 28u);
}

TEST(StartupFrameParser, StopsAtTheEndOfTheFrame) {
  Bytes bytes = startup_frame({.key = test::kRep, .revision = 1, .private_data = Bytes{1, 2}});
  bytes.insert(bytes.end(), {0xAA, 0xBB, 0xCC});
  StartupFrameParser parser;
  EXPECT_EQ(parser.push(bytes), 22u);
  EXPECT_TRUE(parser.complete());
  EXPECT_EQ(parser.push(bytes), 0u);  // nothing more once complete
  EXPECT_EQ(parser.consumed(), 22u);
  EXPECT_EQ(parser.frame().private_data, (Bytes{1, 2}));
}

TEST(StartupFrameParser, ClassifiesKeys) {
  EXPECT_EQ(parse({.key = test::kReq}).kind, FrameKind::Request);
  EXPECT_EQ(parse({.key = test::kRep}).kind, FrameKind::Reply);
  EXPECT_EQ(parse({.key = "MPA ID Rex Frame"}).kind, FrameKind::Unknown);
  EXPECT_EQ(parse({.key = "mpa id req frame"}).kind, FrameKind::Unknown);
}

TEST(StartupFrameParser, RecognisesDamagedKeysButNotOtherText) {
  const auto bytes = [](std::string_view s) { return Bytes(s.begin(), s.end()); };
  EXPECT_TRUE(looks_like_damaged_key(bytes("MPA ID Req Frame")));
  EXPECT_TRUE(looks_like_damaged_key(bytes("MPA ID Rex Frame")));
  EXPECT_TRUE(looks_like_damaged_key(bytes("MPB ID Rep FrXXe")));   // 4 octets differ
  EXPECT_FALSE(looks_like_damaged_key(bytes("MPB ID Rep XXXXe")));  // 5 octets differ
  EXPECT_FALSE(looks_like_damaged_key(bytes("GET / HTTP/1.1\r\n")));
  EXPECT_FALSE(looks_like_damaged_key(bytes("MPA ID Req Fram")));  // too short
}

// Every revision, flag combination and private data size parses the same whole, octet by
// octet and at random splits; bytes_needed() is exact at every step once the header is in.
TEST(StartupFrameParser, ParsesTheSameInAnyPiecesAndKnowsExactlyWhatItNeeds) {
  std::mt19937 generator(5044);
  const std::array<std::uint8_t, 8> extension = {1, 2, 3, 4, 5, 6, 7, 8};
  for (const std::uint8_t revision : {0, 1, 2, 129, 7}) {
    for (const std::uint8_t flags : {0x00, 0x80, 0x40, 0x20, 0x10, 0x0F, 0xF0, 0xFF}) {
      for (const std::size_t pd : {0u, 4u, 256u, 257u, 512u, 513u}) {
        SCOPED_TRACE(testing::Message()
                     << "rev " << int(revision) << " flags " << int(flags) << " pd " << pd);
        Bytes private_data = test::random_bytes(pd, static_cast<std::uint32_t>(pd + flags));
        if (pd >= 4) {
          const Bytes block = enhanced_block(true, false, 0x3FFF, true, false, 3);
          std::copy(block.begin(), block.end(), private_data.begin());
        }
        FrameSpec spec{.key = (flags & 1) ? test::kRep : test::kReq,
                       .flags = flags,
                       .revision = revision,
                       .private_data = private_data};
        if (revision == 129) spec.extension = extension;
        const Bytes bytes = startup_frame(spec);
        const StartupFrame whole = parse_whole(bytes);
        EXPECT_EQ(whole.wire_length(), bytes.size());
        EXPECT_EQ(whole.private_data, private_data);
        EXPECT_EQ(whole.enhanced.has_value(),
                  (flags & 0x10) && (revision == 2 || revision == 7) && pd >= 4);

        // Octet by octet.
        StartupFrameParser single;
        for (std::size_t i = 0; i < bytes.size(); ++i) {
          ASSERT_FALSE(single.complete());
          if (i >= kStartupHeaderSize)
            ASSERT_EQ(single.bytes_needed(), bytes.size() - i);
          else
            ASSERT_EQ(single.bytes_needed(), kStartupHeaderSize - i);
          ASSERT_EQ(single.header_complete(), i >= kStartupHeaderSize);
          ASSERT_EQ(single.push(std::span<const std::uint8_t>(&bytes[i], 1)), 1u);
        }
        ASSERT_TRUE(single.complete());
        EXPECT_EQ(single.bytes_needed(), 0u);
        EXPECT_TRUE(single.frame() == whole);

        // Random splits.
        for (int round = 0; round < 3; ++round) {
          StartupFrameParser pieces;
          std::size_t at = 0;
          while (at < bytes.size()) {
            const std::size_t n = std::min(
                bytes.size() - at, std::uniform_int_distribution<std::size_t>(1, 40)(generator));
            ASSERT_EQ(pieces.push(std::span<const std::uint8_t>(&bytes[at], n)), n);
            at += n;
          }
          ASSERT_TRUE(pieces.complete());
          EXPECT_TRUE(pieces.frame() == whole);
        }
      }
    }
  }
}

TEST(StartupFrameParser, BytesNeededCountsTheVendorExtensionAndPrivateData) {
  const Bytes bytes = startup_frame(
      {.revision = 129, .private_data = Bytes(10, 0), .extension = std::array<std::uint8_t, 8>{}});
  StartupFrameParser parser;
  parser.push(std::span<const std::uint8_t>(bytes).first(20));
  EXPECT_EQ(parser.bytes_needed(), 18u);
  parser.push(std::span<const std::uint8_t>(bytes).subspan(20, 5));
  EXPECT_EQ(parser.bytes_needed(), 13u);
}

// ---- rules of one frame

TEST(StartupFrameCheck, LinuxSiwRev2RequestIsValid) {
  const Bytes bytes = startup_frame(siw_request());
  ASSERT_EQ(Bytes(bytes.begin() + 16, bytes.begin() + 20), (Bytes{0x10, 0x02, 0x00, 0x04}));
  EXPECT_EQ(names_of(check_startup_frame(parse_whole(bytes), FrameKind::Request)),
            (Names{"startup.revision-2"}));
}

TEST(StartupFrameCheck, PlainRev1FramesHaveNoIssues) {
  EXPECT_EQ(frame_issues({.key = test::kReq, .flags = 0xC0, .revision = 1}, FrameKind::Request),
            Names{});
  EXPECT_EQ(
      frame_issues({.key = test::kRep, .flags = 0x40, .revision = 1, .private_data = Bytes(256, 1)},
                   FrameKind::Reply),
      Names{});
  // Rev 2 without S is legal and plain (RFC 6581 6).
  EXPECT_EQ(frame_issues({.key = test::kRep, .flags = 0x00, .revision = 2}, FrameKind::Reply),
            Names{"startup.revision-2"});
}

TEST(StartupFrameCheck, InvalidKeyIsCode4) {
  const auto issues = check_startup_frame(parse({.key = "MPA ID Rex Frame"}), FrameKind::Reply);
  EXPECT_EQ(names_of(issues), Names{"startup.key-invalid"});
  EXPECT_EQ(info(issues[0].id).error_code, MpaError::InvalidStartupFrame);
  EXPECT_NE(issues[0].message.find("MPA ID Rex Frame"), std::string::npos);
}

TEST(StartupFrameCheck, RequestWhereReplyDueAndReplyWhereRequestDue) {
  EXPECT_EQ(frame_issues({.key = test::kReq}, FrameKind::Reply),
            Names{"startup.unexpected-request"});
  EXPECT_EQ(frame_issues({.key = test::kRep}, FrameKind::Request),
            Names{"startup.unexpected-reply"});
}

TEST(StartupFrameCheck, PrivateDataLimits) {
  EXPECT_EQ(frame_issues({.key = test::kReq, .private_data = Bytes(256, 0)}, FrameKind::Request),
            Names{});
  EXPECT_EQ(frame_issues({.key = test::kReq, .private_data = Bytes(257, 0)}, FrameKind::Request),
            Names{"startup.private-data-over-256"});
  EXPECT_EQ(frame_issues({.key = test::kReq, .private_data = Bytes(512, 0)}, FrameKind::Request),
            Names{"startup.private-data-over-256"});
  EXPECT_EQ(frame_issues({.key = test::kReq, .private_data = Bytes(513, 0)}, FrameKind::Request),
            Names{"startup.pd-length-too-large"});
}

TEST(StartupFrameCheck, EachRevisionIsNamed) {
  EXPECT_EQ(frame_issues({.key = test::kReq, .flags = 0xC0, .revision = 0}, FrameKind::Request),
            Names{"startup.revision-0"});
  EXPECT_EQ(
      frame_issues({.key = test::kReq, .revision = 129, .extension = std::array<std::uint8_t, 8>{}},
                   FrameKind::Request),
      Names{"startup.vendor-revision"});
  for (const std::uint8_t revision : {3, 7, 128, 130, 255}) {
    EXPECT_EQ(frame_issues({.key = test::kReq, .revision = revision}, FrameKind::Request),
              Names{"startup.revision-unsupported"})
        << int(revision);
  }
}

TEST(StartupFrameCheck, ReservedBitsAreAWarning) {
  for (const std::uint8_t bits : {0x01, 0x02, 0x04, 0x08, 0x0F}) {
    EXPECT_EQ(frame_issues({.key = test::kRep, .flags = static_cast<std::uint8_t>(0x40 | bits)},
                           FrameKind::Reply),
              Names{"startup.reserved-bits-set"});
  }
}

TEST(StartupFrameCheck, RBitIsAWarningInARequestAndARejectionInAReply) {
  EXPECT_EQ(frame_issues({.key = test::kReq, .flags = 0x20}, FrameKind::Request),
            Names{"startup.reject-bit-in-request"});
  EXPECT_EQ(frame_issues({.key = test::kRep, .flags = 0x20}, FrameKind::Reply),
            Names{"startup.connection-rejected"});
}

TEST(StartupFrameCheck, SBitNeedsRev2AndTheIrdOrdBlock) {
  EXPECT_EQ(frame_issues({.key = test::kReq,
                          .flags = 0x10,
                          .revision = 1,
                          .private_data = enhanced_block(false, false, 1, false, false, 1)},
                         FrameKind::Request),
            Names{"startup.enhanced-without-rev2"});
  const auto missing = check_startup_frame(
      parse({.key = test::kReq, .flags = 0x10, .revision = 2, .private_data = Bytes{0, 1, 0}}),
      FrameKind::Request);
  EXPECT_EQ(names_of(missing), (Names{"startup.revision-2", "startup.enhanced-data-missing"}));
  EXPECT_EQ(info(missing[1].id).error_code, MpaError::InvalidStartupFrame);
  EXPECT_EQ(frame_issues({.key = test::kReq, .flags = 0x10, .revision = 2}, FrameKind::Request),
            (Names{"startup.revision-2", "startup.enhanced-data-missing"}));
}

TEST(StartupFrameCheck, RtrFlagsWithoutPeerToPeerAreAWarning) {
  EXPECT_EQ(frame_issues({.key = test::kReq,
                          .flags = 0x10,
                          .revision = 2,
                          .private_data = enhanced_block(false, false, 4, false, true, 4)},
                         FrameKind::Request),
            (Names{"startup.revision-2", "startup.rtr-flags-without-p2p"}));
  EXPECT_EQ(frame_issues({.key = test::kReq,
                          .flags = 0x10,
                          .revision = 2,
                          .private_data = enhanced_block(true, false, 4, false, true, 4)},
                         FrameKind::Request),
            Names{"startup.revision-2"});
}

// ---- rules between Request and Reply

FrameSpec rev2(std::string_view key, Bytes block, std::uint8_t flags = 0x10) {
  return {.key = key, .flags = flags, .revision = 2, .private_data = std::move(block)};
}

TEST(StartupNegotiation, SiwExchangeIsValid) {
  EXPECT_EQ(negotiation_issues(siw_request(), rev2(test::kRep, enhanced_block(false, false, 16,
                                                                              false, false, 16))),
            Names{});
}

TEST(StartupNegotiation, PlainRev1ExchangeIsValid) {
  EXPECT_EQ(
      negotiation_issues({.key = test::kReq, .flags = 0x80}, {.key = test::kRep, .flags = 0x40}),
      Names{});
}

TEST(StartupNegotiation, EnhancedReplyToPlainRequestIsAMismatch) {
  EXPECT_EQ(negotiation_issues({.key = test::kReq, .revision = 2},
                               rev2(test::kRep, enhanced_block(false, false, 1, false, false, 1))),
            Names{"startup.enhanced-mismatch"});
}

TEST(StartupNegotiation, PlainReplyToEnhancedRequestIsAMismatch) {
  // RFC 6581 10: "If the responder receives an enhanced MPA message, it MUST respond with an
  // enhanced MPA message."
  EXPECT_EQ(negotiation_issues(siw_request(), {.key = test::kRep, .revision = 1}),
            Names{"startup.enhanced-mismatch"});
  EXPECT_EQ(negotiation_issues(siw_request(), {.key = test::kRep, .revision = 2}),
            Names{"startup.enhanced-mismatch"});
  // A rejection answers in kind too; a frame with a broken key is not judged on S.
  EXPECT_EQ(negotiation_issues(siw_request(), {.key = test::kRep, .flags = 0x20, .revision = 2}),
            Names{"startup.enhanced-mismatch"});
  EXPECT_EQ(negotiation_issues(siw_request(), {.key = "MPA ID Rex Frame", .revision = 2}), Names{});
}

TEST(StartupNegotiation, PeerToPeerFlagMustBeEchoed) {
  EXPECT_EQ(negotiation_issues(rev2(test::kReq, enhanced_block(true, false, 4, true, true, 4)),
                               rev2(test::kRep, enhanced_block(false, false, 4, false, false, 4))),
            Names{"startup.p2p-mismatch"});
  EXPECT_EQ(negotiation_issues(rev2(test::kReq, enhanced_block(false, false, 4, false, false, 4)),
                               rev2(test::kRep, enhanced_block(true, false, 4, true, false, 4))),
            Names{"startup.p2p-mismatch"});
}

TEST(StartupNegotiation, PeerToPeerNeedsACommonRtrOption) {
  const FrameSpec request = rev2(test::kReq, enhanced_block(true, false, 4, true, false, 4));
  EXPECT_EQ(
      negotiation_issues(request, rev2(test::kRep, enhanced_block(true, false, 4, true, false, 4))),
      Names{});
  EXPECT_EQ(
      negotiation_issues(request, rev2(test::kRep, enhanced_block(true, false, 4, true, true, 4))),
      Names{});
  const auto none = check_negotiation(
      parse(request), parse(rev2(test::kRep, enhanced_block(true, true, 4, false, true, 4))));
  // Options of the Responder's own, none offered: allowed (RFC 6581 9.2), a note; the
  // Initiator owes a Terminate unless it can send one.
  EXPECT_EQ(names_of(none), Names{"startup.no-matching-rtr"});
  EXPECT_EQ(info(none[0].id).severity, Severity::Note);
  // No option at all: the Responder's fault, a warning (a MUST or a SHOULD of RFC 6581 9.2).
  EXPECT_EQ(negotiation_issues(request,
                               rev2(test::kRep, enhanced_block(true, false, 4, false, false, 4))),
            (Names{"startup.reply-without-rtr", "startup.no-matching-rtr"}));
  EXPECT_EQ(info(DiagId::StartupReplyWithoutRtr).severity, Severity::Warning);
  // A rejection does not negotiate.
  EXPECT_EQ(negotiation_issues(
                request, rev2(test::kRep, enhanced_block(true, false, 4, false, false, 4), 0x30)),
            Names{});
}

TEST(StartupNegotiation, ResponderOrdAboveInitiatorIrdIsInsufficientIrd) {
  const FrameSpec request = rev2(test::kReq, enhanced_block(false, false, 8, false, false, 4));
  EXPECT_EQ(negotiation_issues(request,
                               rev2(test::kRep, enhanced_block(false, false, 4, false, false, 8))),
            Names{});
  const auto over = check_negotiation(
      parse(request), parse(rev2(test::kRep, enhanced_block(false, false, 4, false, false, 9))));
  EXPECT_EQ(names_of(over), Names{"startup.insufficient-ird"});
  EXPECT_EQ(info(over[0].id).error_code, MpaError::InsufficientIrd);
  // A reject may name the ORD the Responder needs (RFC 6581 9.1).
  EXPECT_EQ(negotiation_issues(
                request, rev2(test::kRep, enhanced_block(false, false, 4, false, false, 9), 0x30)),
            Names{});
  // A Responder IRD below the Initiator ORD is not a violation: the Initiator lowers its ORD.
  EXPECT_EQ(negotiation_issues(request,
                               rev2(test::kRep, enhanced_block(false, false, 1, false, false, 8))),
            Names{});
}

TEST(StartupNegotiation, NoNegotiationOnlyAnswersNoNegotiation) {
  // RFC 6581 9.1: 0x3FFF is the answer to 0x3FFF. A Responder ORD 0x3FFF to an Initiator IRD
  // of 8 is an ORD above that IRD: code 6, the Terminate Linux siw sends.
  const auto ord = check_negotiation(
      parse(rev2(test::kReq, enhanced_block(false, false, 8, false, false, 4))),
      parse(rev2(test::kRep, enhanced_block(false, false, 4, false, false, 0x3FFF))));
  ASSERT_EQ(names_of(ord), Names{"startup.insufficient-ird"});
  EXPECT_EQ(info(ord[0].id).error_code, MpaError::InsufficientIrd);
  EXPECT_NE(ord[0].message.find("0x3FFF"), std::string::npos);
  // A Responder IRD 0x3FFF to an Initiator ORD of 4: unsolicited "no negotiation".
  const auto ird = check_negotiation(
      parse(rev2(test::kReq, enhanced_block(false, false, 8, false, false, 4))),
      parse(rev2(test::kRep, enhanced_block(false, false, 0x3FFF, false, false, 8))));
  ASSERT_EQ(names_of(ird), Names{"startup.no-negotiation-unsolicited"});
  EXPECT_EQ(info(ird[0].id).severity, Severity::Warning);
  // Both at once.
  EXPECT_EQ(negotiation_issues(
                rev2(test::kReq, enhanced_block(false, false, 8, false, false, 4)),
                rev2(test::kRep, enhanced_block(false, false, 0x3FFF, false, false, 0x3FFF))),
            (Names{"startup.insufficient-ird", "startup.no-negotiation-unsolicited"}));
  // Answering 0x3FFF with 0x3FFF stays valid, on either side alone.
  EXPECT_EQ(
      negotiation_issues(rev2(test::kReq, enhanced_block(false, false, 0x3FFF, false, false, 4)),
                         rev2(test::kRep, enhanced_block(false, false, 4, false, false, 0x3FFF))),
      Names{});
  EXPECT_EQ(
      negotiation_issues(rev2(test::kReq, enhanced_block(false, false, 8, false, false, 0x3FFF)),
                         rev2(test::kRep, enhanced_block(false, false, 0x3FFF, false, false, 8))),
      Names{});
  // A reject does not negotiate.
  EXPECT_EQ(negotiation_issues(
                rev2(test::kReq, enhanced_block(false, false, 8, false, false, 4)),
                rev2(test::kRep, enhanced_block(false, false, 0x3FFF, false, false, 0x3FFF), 0x30)),
            Names{});
}

TEST(StartupNegotiation, NoNegotiationMustBeEchoed) {
  const FrameSpec request =
      rev2(test::kReq, enhanced_block(false, false, 0x3FFF, false, false, 0x3FFF));
  EXPECT_EQ(negotiation_issues(request, rev2(test::kRep, enhanced_block(false, false, 0x3FFF, false,
                                                                        false, 0x3FFF))),
            Names{});
  EXPECT_EQ(negotiation_issues(
                request, rev2(test::kRep, enhanced_block(false, false, 16, false, false, 0x3FFF))),
            Names{"startup.no-negotiation-not-echoed"});
  EXPECT_EQ(negotiation_issues(
                request, rev2(test::kRep, enhanced_block(false, false, 0x3FFF, false, false, 16))),
            Names{"startup.no-negotiation-not-echoed"});
}

TEST(StartupFrameCheck, LittleEndianIrdOrdBlockIsAWarningAndTheRestIsJudgedAsMeant) {
  const FrameSpec request = rev2(test::kReq, Bytes{0x04, 0x00, 0x04, 0x00});  // IRD 4, ORD 4
  const auto issues = check_startup_frame(parse(request), FrameKind::Request);
  ASSERT_EQ(names_of(issues),
            (Names{"startup.revision-2", "startup.enhanced-block-little-endian"}));
  EXPECT_EQ(info(issues[1].id).severity, Severity::Warning);
  EXPECT_NE(issues[1].message.find("IRD 1024 ORD 1024"), std::string::npos);
  EXPECT_NE(issues[1].message.find("IRD 4 ORD 4"), std::string::npos);
  // Judged as meant: a Responder ORD of 8 exceeds the Initiator IRD of 4 (read in network
  // order it would be 1024, and nothing would be said).
  EXPECT_EQ(negotiation_issues(request,
                               rev2(test::kRep, enhanced_block(false, false, 4, false, false, 8))),
            Names{"startup.insufficient-ird"});
  EXPECT_EQ(negotiation_issues(request,
                               rev2(test::kRep, enhanced_block(false, false, 4, false, false, 4))),
            Names{});
}

TEST(StartupFrameCheck, EnhancedRequestThatNegotiatesNothingIsAWarning) {
  const Bytes nothing = enhanced_block(false, false, 0x3FFF, false, false, 0x3FFF);
  const auto issues = check_startup_frame(parse(rev2(test::kReq, nothing)), FrameKind::Request);
  ASSERT_EQ(names_of(issues), (Names{"startup.revision-2", "startup.enhanced-negotiates-nothing"}));
  EXPECT_EQ(info(issues[1].id).severity, Severity::Warning);
  // The Reply that echoes it must (RFC 6581 9.1, 10): not blamed.
  EXPECT_EQ(frame_issues(rev2(test::kRep, nothing), FrameKind::Reply), Names{"startup.revision-2"});
  // Peer-to-peer, or one depth to negotiate, is enhanced functionality.
  EXPECT_EQ(frame_issues(rev2(test::kReq, enhanced_block(true, false, 0x3FFF, true, false, 0x3FFF)),
                         FrameKind::Request),
            Names{"startup.revision-2"});
  EXPECT_EQ(frame_issues(rev2(test::kReq, enhanced_block(false, false, 0x3FFF, false, false, 0)),
                         FrameKind::Request),
            Names{"startup.revision-2"});
  EXPECT_EQ(frame_issues(rev2(test::kReq, enhanced_block(false, false, 8, false, false, 0x3FFF)),
                         FrameKind::Request),
            Names{"startup.revision-2"});
}

TEST(StartupNegotiation, CrcsOffBothWaysIsANoteWithTheAcceptingReply) {
  const auto crc_use = [](std::uint8_t request_flags, std::uint8_t reply_flags) {
    return check_crc_use(parse({.key = test::kReq, .flags = request_flags}),
                         parse({.key = test::kRep, .flags = reply_flags}));
  };
  const auto off = crc_use(0x00, 0x00);
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(info(off->id).name, "startup.crc-disabled");
  EXPECT_EQ(info(off->id).severity, Severity::Note);
  EXPECT_FALSE(crc_use(0x40, 0x00).has_value());  // either side's C=1 turns CRCs on
  EXPECT_FALSE(crc_use(0x00, 0x40).has_value());
  EXPECT_FALSE(crc_use(0x00, 0x20).has_value());  // a reject: no full operation
  EXPECT_FALSE(
      check_crc_use(parse({.key = test::kReq}), parse({.key = "MPA ID Rex Frame"})).has_value());
}

TEST(StartupFrameDescribe, SaysWhatTheFrameNegotiates) {
  EXPECT_EQ(
      describe(parse(rev2(test::kReq, enhanced_block(true, false, 16, true, false, 8), 0x50))),
      "MPA Request Rev 2 M=0 C=1 S=1 IRD=16 ORD=8 P2P RTR=Write PD_Length=4");
  EXPECT_EQ(describe(parse({.key = test::kRep, .flags = 0xA0})),
            "MPA Reply Rev 1 M=1 C=0 R=1 PD_Length=0");
}

}  // namespace
}  // namespace mpa
