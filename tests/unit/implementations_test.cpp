// Implementations by name (mpa/implementations.h): the hosts file, the most specific entry,
// the stack fingerprint as a guess over a run, and which side broke the rule a finding names.
#include "mpa/implementations.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <string>

namespace mpa {
namespace {

IpAddress ip(const char* text) {
  IpAddress a;
  if (inet_pton(AF_INET, text, a.bytes.data()) == 1) {
    a.family = 4;
  } else {
    EXPECT_EQ(inet_pton(AF_INET6, text, a.bytes.data()), 1) << text;
    a.family = 6;
  }
  return a;
}

HostMap parsed(const std::string& text) {
  std::string error;
  const std::optional<HostMap> map = HostMap::parse(text, "test.hosts", error);
  EXPECT_TRUE(map) << error;
  return map ? *map : HostMap{};
}

std::string error_of(const std::string& text) {
  std::string error;
  EXPECT_FALSE(HostMap::parse(text, "test.hosts", error)) << text;
  return error;
}

const MacAddress kCobaltMac{{0x02, 0xc0, 0xba, 0x00, 0x00, 0x07}};

TEST(HostMap, ReadsAddressesSubnetsAndMacPrefixesWithCommentsAndQuotes) {
  const HostMap map = parsed(
      "# the plugfest\n"
      "\n"
      "192.0.2.11      \"Ardent RNIC\" 2.1   # one address\n"
      "192.0.2.32/28   Birch 0.9\n"
      "02:c0:ba        \"Cobalt NIC\" 5.0\n"
      "2001:db8:1::/48 Dunlin\n"
      "02-00-5E-00-00-60 \"siw # host\"\n");
  ASSERT_EQ(map.entries().size(), 5u);
  const HostEntry& ardent = map.entries()[0];
  EXPECT_EQ(ardent.name, "Ardent RNIC");
  EXPECT_EQ(ardent.version, "2.1");
  EXPECT_EQ(ardent.line, 3u);
  EXPECT_EQ(ardent.prefix_bits, 32u);
  EXPECT_EQ(map.entries()[2].kind, HostEntry::Kind::Mac);
  EXPECT_EQ(map.entries()[2].mac_octets, 3u);
  EXPECT_EQ(map.entries()[3].version, "");
  EXPECT_EQ(map.entries()[4].name, "siw # host");
  EXPECT_EQ(map.entries()[4].mac_octets, 6u);

  EXPECT_EQ(map.find(ip("192.0.2.11"), std::nullopt)->name, "Ardent RNIC");
  EXPECT_EQ(map.find(ip("192.0.2.47"), std::nullopt)->name, "Birch");
  EXPECT_EQ(map.find(ip("192.0.2.48"), std::nullopt), nullptr);
  EXPECT_EQ(map.find(ip("198.51.100.7"), kCobaltMac)->name, "Cobalt NIC");
  EXPECT_EQ(map.find(ip("198.51.100.7"), std::nullopt), nullptr);
  EXPECT_EQ(map.find(ip("2001:db8:1:ffff::9"), std::nullopt)->name, "Dunlin");
  EXPECT_EQ(map.find(ip("2001:db8:2::9"), std::nullopt), nullptr);
}

TEST(HostMap, TheMostSpecificEntryNamesAHost) {
  const HostMap map = parsed(
      "192.0.2.0/24 Lab\n"
      "192.0.2.32/28 \"Birch lab\"\n"
      "192.0.2.33 Birch 0.9\n"
      "0.0.0.0/0 Anyone\n"
      "02:c0 Short\n"
      "02:c0:ba:00 Long\n");
  EXPECT_EQ(map.find(ip("192.0.2.33"), std::nullopt)->name, "Birch");
  EXPECT_EQ(map.find(ip("192.0.2.34"), std::nullopt)->name, "Birch lab");
  EXPECT_EQ(map.find(ip("192.0.2.200"), std::nullopt)->name, "Lab");
  // Any IP line before a MAC prefix, the longest MAC prefix of those.
  EXPECT_EQ(map.find(ip("198.51.100.7"), kCobaltMac)->name, "Anyone");
  const HostMap macs = parsed("02:c0 Short\n02:c0:ba:00 Long\n");
  EXPECT_EQ(macs.find(ip("198.51.100.7"), kCobaltMac)->name, "Long");
  EXPECT_EQ(macs.find(ip("198.51.100.7"), MacAddress{{0x02, 0xc0, 1, 2, 3, 4}})->name, "Short");
  EXPECT_EQ(macs.find(ip("198.51.100.7"), MacAddress{{0x02, 0xc1, 1, 2, 3, 4}}), nullptr);
}

TEST(HostMap, EveryBadLineIsNamedWithItsLine) {
  EXPECT_EQ(error_of("# ok\n192.0.2.1\n"),
            "test.hosts:2: no implementation name after 192.0.2.1 (PATTERN NAME [VERSION])");
  EXPECT_NE(error_of("foo Bar\n").find("test.hosts:1: 'foo' is not an address"), std::string::npos);
  EXPECT_NE(error_of("192.0.2.0/33 X\n").find("prefix length above 32"), std::string::npos);
  EXPECT_NE(error_of("2001:db8::/129 X\n").find("prefix length above 128"), std::string::npos);
  EXPECT_NE(error_of("192.0.2.0/x X\n").find("not a number"), std::string::npos);
  EXPECT_EQ(error_of("192.0.2.1/24 X\n"),
            "test.hosts:1: '192.0.2.1/24' has host bits set: the subnet is 192.0.2.0/24");
  EXPECT_NE(error_of("02:c0:b X\n").find("is not an address"), std::string::npos);
  EXPECT_NE(error_of("02:c0:ba:00:00:00:01 X\n").find("is not an address"), std::string::npos);
  EXPECT_NE(error_of("192.0.2.1 Two words 1.0\n").find("quote a name with spaces: \"Two words\""),
            std::string::npos);
  EXPECT_NE(error_of("192.0.2.1 \"open\n").find("test.hosts:1: unterminated quote"),
            std::string::npos);
  EXPECT_EQ(error_of("192.0.2.1 A\n192.0.2.1/32 B\n"),
            "test.hosts:2: 192.0.2.1/32 is named already on line 1 (192.0.2.1)");
  EXPECT_NE(error_of("192.0.2.1 \"\"\n").find("no implementation name"), std::string::npos);
}

TEST(ImplementationName, LabelKeyAndIdentity) {
  ImplementationName hosts{NameSource::Hosts, "Cobalt NIC", "5.0", "p.hosts:3", "198.51.100.7"};
  EXPECT_EQ(hosts.label(), "Cobalt NIC 5.0");
  EXPECT_EQ(hosts.key(), "Cobalt NIC 5.0");
  EXPECT_EQ(hosts.identity(), "Cobalt NIC");  // a new version is the same implementation
  ImplementationName guess{NameSource::Fingerprint, "Linux siw", "", "", "192.0.2.60"};
  EXPECT_EQ(guess.label(), "looks like Linux siw");
  EXPECT_EQ(guess.identity(), "looks like Linux siw");
  ImplementationName none{NameSource::Address, "", "", "", "192.0.2.9"};
  EXPECT_FALSE(none.named());
  EXPECT_EQ(none.label(), "");
  EXPECT_EQ(none.key(), "192.0.2.9");
  EXPECT_EQ(none.identity(), "192.0.2.9");
}

TEST(HostNamer, HostsFileThenOwnFingerprintThenTheAddressesOneGuess) {
  const HostMap map = parsed("192.0.2.11 Ardent 2.1\n");
  HostNamer namer(&map);
  namer.observe(ip("192.0.2.11"), "Linux siw");  // the hosts file wins over a fingerprint
  namer.observe(ip("192.0.2.60"), "Linux siw");
  namer.observe(ip("192.0.2.60"), "");
  namer.observe(ip("192.0.2.70"), "Linux siw");
  namer.observe(ip("192.0.2.70"), "Chelsio cxgb4");
  EXPECT_EQ(namer.name(ip("192.0.2.11"), std::nullopt, "Linux siw").label(), "Ardent 2.1");
  EXPECT_EQ(namer.name(ip("192.0.2.11"), std::nullopt).rule, "test.hosts:1");
  // Its address showed siw's frames elsewhere in the run: the same guess here.
  EXPECT_EQ(namer.name(ip("192.0.2.60"), std::nullopt).label(), "looks like Linux siw");
  // Two stacks from one address: no guess, unless this side's own frames say.
  EXPECT_FALSE(namer.name(ip("192.0.2.70"), std::nullopt).named());
  EXPECT_EQ(namer.name(ip("192.0.2.70"), std::nullopt, "Chelsio cxgb4").label(),
            "looks like Chelsio cxgb4");
  const ImplementationName unknown = namer.name(ip("192.0.2.80"), std::nullopt);
  EXPECT_EQ(unknown.source, NameSource::Address);
  EXPECT_EQ(unknown.key(), "192.0.2.80");
  EXPECT_EQ(HostNamer().name(ip("192.0.2.11"), std::nullopt).key(), "192.0.2.11");
}

TEST(BrokenBy, TheSideWhoseRuleItIs) {
  EXPECT_EQ(broken_by(DiagId::FpduCrcMismatch, Direction::Initiator), Direction::Initiator);
  EXPECT_EQ(broken_by(DiagId::RdmapTerminateEncoding, Direction::Responder), Direction::Responder);
  EXPECT_EQ(broken_by(DiagId::ReceiverErrorIgnored, Direction::Responder), Direction::Responder);
  EXPECT_EQ(broken_by(DiagId::StartupInsufficientIrd, Direction::Responder), Direction::Responder);
  // Reported on the Request: the Responder owed the Reply.
  EXPECT_EQ(broken_by(DiagId::StartupNoReply, Direction::Initiator), Direction::Responder);
  // About the capture, not either side.
  EXPECT_EQ(broken_by(DiagId::CaptureGap, Direction::Initiator), std::nullopt);
  EXPECT_EQ(broken_by(DiagId::IpFragmentOverlapMismatch, Direction::Initiator), std::nullopt);
}

}  // namespace
}  // namespace mpa
