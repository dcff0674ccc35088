// Tests for where a startup frame's fields sit (startup_layout.h; RFC 5044 7.1.1, RFC 6581
// 9, Rev 129), on frames written octet by octet: the parser reads each field at its offset,
// and startup_frame_fields places each field at the same octets in sequence space.
#include "mpa/startup_layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "mpa/startup_frame.h"

namespace mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes frame_bytes(std::string_view key, std::uint8_t flags, std::uint8_t revision,
                  const Bytes& vendor_extension, const Bytes& private_data,
                  std::uint16_t pd_length) {
  Bytes b(key.begin(), key.end());
  b.push_back(flags);
  b.push_back(revision);
  b.push_back(static_cast<std::uint8_t>(pd_length >> 8));
  b.push_back(static_cast<std::uint8_t>(pd_length));
  b.insert(b.end(), vendor_extension.begin(), vendor_extension.end());
  b.insert(b.end(), private_data.begin(), private_data.end());
  return b;
}

StartupFrame parse(const Bytes& bytes) {
  StartupFrameParser parser;
  parser.push(bytes);
  return parser.frame();
}

// The octets of `bytes` (which begin at sequence number `at`) that `range` names.
Bytes octets(const Bytes& bytes, TcpSeq at, SeqRange range) {
  const std::uint32_t from = range.seq.distance_from(at);
  return Bytes(bytes.begin() + from, bytes.begin() + from + range.length);
}

TEST(StartupLayout, FieldOffsetsAreThoseOfRfc5044Figure10) {
  EXPECT_EQ(kStartupKeySize, 16u);
  EXPECT_EQ(kStartupFlagsOffset, 16u);
  EXPECT_EQ(kStartupRevisionOffset, 17u);
  EXPECT_EQ(kStartupPdLengthOffset, 18u);
  EXPECT_EQ(kStartupHeaderSize, 20u);
}

TEST(StartupLayout, Rev1RequestFieldsSitWhereTheParserReadsThem) {
  const Bytes bytes = frame_bytes(kRequestKey, 0xC0, 1, {}, {0xAA, 0xBB, 0xCC}, 3);
  const StartupFrame f = parse(bytes);
  ASSERT_EQ(f.kind, FrameKind::Request);
  EXPECT_EQ(f.flags, 0xC0);
  EXPECT_EQ(f.revision, 1);
  EXPECT_EQ(f.pd_length, 3);

  const TcpSeq at(0xFFFFFFF8u);  // the frame crosses the wrap
  const StartupFrameFields fields = startup_frame_fields(at, f);
  EXPECT_EQ(fields.whole, (SeqRange{at, 23}));
  EXPECT_EQ(octets(bytes, at, fields.key), Bytes(kRequestKey.begin(), kRequestKey.end()));
  EXPECT_EQ(octets(bytes, at, fields.flags), Bytes{0xC0});
  EXPECT_EQ(octets(bytes, at, fields.revision), Bytes{0x01});
  EXPECT_EQ(octets(bytes, at, fields.pd_length), (Bytes{0x00, 0x03}));
  EXPECT_EQ(octets(bytes, at, fields.private_data), (Bytes{0xAA, 0xBB, 0xCC}));
  EXPECT_EQ(fields.vendor_extension.length, 0u);
  EXPECT_EQ(fields.enhanced.length, 0u);
}

TEST(StartupLayout, Rev2EnhancedBlockOpensThePrivateData) {
  const Bytes block = {0x80, 0x10, 0x40, 0x08};  // A=1 IRD=16 | D=1 ORD=8
  Bytes private_data = block;
  private_data.push_back(0x77);
  const Bytes bytes = frame_bytes(kReplyKey, 0x10, 2, {}, private_data, 5);
  const StartupFrame f = parse(bytes);
  ASSERT_TRUE(f.enhanced.has_value());
  const TcpSeq at(1000);
  const StartupFrameFields fields = startup_frame_fields(at, f);
  EXPECT_EQ(octets(bytes, at, fields.enhanced), block);
  EXPECT_EQ(fields.private_data, (SeqRange{TcpSeq(1020), 5}));
}

TEST(StartupLayout, Rev129VendorExtensionPrecedesThePrivateData) {
  const Bytes extension = {1, 2, 3, 4, 5, 6, 7, 8};
  const Bytes bytes = frame_bytes(kRequestKey, 0x40, kVendorRevision, extension, {0x55, 0x66}, 2);
  const StartupFrame f = parse(bytes);
  ASSERT_TRUE(f.has_vendor_extension);
  const TcpSeq at(0);
  const StartupFrameFields fields = startup_frame_fields(at, f);
  EXPECT_EQ(fields.whole.length, bytes.size());
  EXPECT_EQ(octets(bytes, at, fields.vendor_extension), extension);
  EXPECT_EQ(octets(bytes, at, fields.private_data), (Bytes{0x55, 0x66}));
}

TEST(StartupLayout, PrivateDataIsWhatArrivedWholeIsWhatPdLengthAnnounces) {
  // PD_Length 600, 10 octets received so far.
  const Bytes bytes = frame_bytes(kRequestKey, 0x00, 1, {}, Bytes(10, 0x11), 600);
  const StartupFrame f = parse(bytes);
  const StartupFrameFields fields = startup_frame_fields(TcpSeq(0), f);
  EXPECT_EQ(fields.whole.length, 620u);
  EXPECT_EQ(fields.private_data.length, 10u);
}

TEST(StartupLayout, AFramesOctetsAreThoseItWasParsedFrom) {
  const Bytes extension = {1, 2, 3, 4, 5, 6, 7, 8};
  for (const Bytes& bytes : {frame_bytes(kRequestKey, 0xC0, 1, {}, {0xAA, 0xBB, 0xCC}, 3),
                             frame_bytes(kReplyKey, 0x10, 2, {}, {0x80, 0x10, 0x40, 0x08, 0x77}, 5),
                             frame_bytes(kRequestKey, 0x40, kVendorRevision, extension, {0x55}, 1),
                             frame_bytes(kRequestKey, 0x00, 1, {}, Bytes(10, 0x11), 600)}) {
    EXPECT_EQ(startup_frame_octets(parse(bytes)), bytes);
  }
}

TEST(StartupLayout, AStartupKeyIsRecognisedExactOrSlightlyDamaged) {
  const Bytes request(kRequestKey.begin(), kRequestKey.end());
  Bytes damaged = request;
  damaged[3] = 'x';
  EXPECT_TRUE(looks_like_startup_key(request));
  EXPECT_TRUE(looks_like_startup_key(damaged));
  EXPECT_FALSE(looks_like_startup_key(std::span(request).first(kStartupKeySize - 1)));
  EXPECT_FALSE(looks_like_startup_key(Bytes(16, 0)));
}

}  // namespace
}  // namespace mpa
