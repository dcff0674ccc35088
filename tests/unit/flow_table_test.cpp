// The flow table (flow_table.h): keys both ways, least recently active first out.
#include "decode/flow_table.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace mpa {
namespace {

Endpoint ep(std::uint8_t host, std::uint16_t port) {
  Endpoint e;
  e.address.bytes[3] = host;
  e.port = port;
  return e;
}

TEST(FlowTable, BothDirectionsShareAKey) {
  EXPECT_EQ(FlowKey::of(ep(1, 10), ep(2, 20)), FlowKey::of(ep(2, 20), ep(1, 10)));
  EXPECT_FALSE(FlowKey::of(ep(1, 10), ep(2, 20)) == FlowKey::of(ep(1, 11), ep(2, 20)));
  EXPECT_EQ(FlowKeyHash{}(FlowKey::of(ep(1, 10), ep(2, 20))),
            FlowKeyHash{}(FlowKey::of(ep(2, 20), ep(1, 10))));
}

// Addresses compare as their family and then their octets in order (which end of a flow is
// `low` depends on it), whichever octet differs, in either family.
TEST(FlowTable, AddressesCompareByFamilyThenOctetsInOrder) {
  std::vector<IpAddress> addresses;
  for (const std::uint8_t family : {4, 6}) {
    for (std::size_t at = 0; at < 16; ++at) {
      for (const std::uint8_t value : {0x01, 0x7f, 0x80, 0xff}) {
        IpAddress a;
        a.family = family;
        a.bytes[15 - at] = 0x40;  // another octet set too, on the other side of `at`
        a.bytes[at] = value;
        addresses.push_back(a);
      }
    }
  }
  for (const IpAddress& a : addresses) {
    for (const IpAddress& b : addresses) {
      const auto expected = std::tie(a.family, a.bytes) <=> std::tie(b.family, b.bytes);
      EXPECT_EQ(a <=> b, expected);
      EXPECT_EQ(a == b, expected == 0);
    }
  }
}

TEST(FlowTable, FindMakesAFlowTheMostRecentlyActive) {
  FlowTable<int> table;
  const FlowKey a = FlowKey::of(ep(1, 1), ep(9, 9)), b = FlowKey::of(ep(2, 2), ep(9, 9)),
                c = FlowKey::of(ep(3, 3), ep(9, 9));
  table.insert(a, std::make_unique<int>(1));
  table.insert(b, std::make_unique<int>(2));
  table.insert(c, std::make_unique<int>(3));
  EXPECT_EQ(*table.least_recent(), 1);
  ASSERT_NE(table.find(a), nullptr);  // a is now the most recent
  EXPECT_EQ(*table.least_recent(), 2);
  EXPECT_EQ(*table.find(b), 2);
  EXPECT_EQ(*table.find(b), 2);  // the last-flow cache
  EXPECT_EQ(*table.least_recent(), 3);
  EXPECT_EQ(table.find(FlowKey::of(ep(4, 4), ep(9, 9))), nullptr);
}

TEST(FlowTable, ContainsAnswersForTheLastFlowFoundAndForAnyOther) {
  FlowTable<int> table;
  const FlowKey a = FlowKey::of(ep(1, 1), ep(9, 9)), b = FlowKey::of(ep(2, 2), ep(9, 9)),
                c = FlowKey::of(ep(3, 3), ep(9, 9));
  EXPECT_FALSE(table.contains(a));  // empty: no last flow either
  table.insert(a, std::make_unique<int>(1));
  table.insert(b, std::make_unique<int>(2));
  ASSERT_NE(table.find(b), nullptr);
  EXPECT_TRUE(table.contains(b));       // the last flow found
  EXPECT_TRUE(table.contains(a));       // another
  EXPECT_FALSE(table.contains(c));      // none
  EXPECT_EQ(*table.least_recent(), 1);  // asking moves nothing
}

TEST(FlowTable, EraseForgetsAndTheCacheDoesNotKeepAStaleFlow) {
  FlowTable<int> table;
  const FlowKey a = FlowKey::of(ep(1, 1), ep(9, 9)), b = FlowKey::of(ep(2, 2), ep(9, 9));
  table.insert(a, std::make_unique<int>(1));
  table.insert(b, std::make_unique<int>(2));
  EXPECT_EQ(*table.find(b), 2);
  table.erase(b);
  EXPECT_FALSE(table.contains(b));
  EXPECT_EQ(table.find(b), nullptr);
  EXPECT_EQ(table.size(), 1u);
  table.insert(b, std::make_unique<int>(5));  // the same ports again: a new flow
  EXPECT_EQ(*table.find(b), 5);
  table.erase(a);
  table.erase(b);
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(table.least_recent(), nullptr);
}

// Thousands of flows: the index grows, and flows erased in an order unlike that of their
// insertion leave every other flow found (slots moved back when one is emptied, no stale
// one), then come back as new flows.
TEST(FlowTable, ManyFlowsStayFoundThroughGrowthAndErasure) {
  FlowTable<int> table;
  std::vector<FlowKey> keys;
  for (int n = 0; n < 3000; ++n) {
    keys.push_back(FlowKey::of(
        ep(static_cast<std::uint8_t>(n % 251), static_cast<std::uint16_t>(n)), ep(9, 4791)));
    table.insert(keys.back(), std::make_unique<int>(n));
  }
  ASSERT_EQ(table.size(), keys.size());
  const auto erased = [](int n) { return n % 3 == 1 || n % 7 == 0; };
  for (int n = 2999; n >= 0; n -= 2) {  // odd ones from the end, then even from the start
    if (erased(n)) table.erase(keys[static_cast<std::size_t>(n)]);
  }
  for (int n = 0; n < 3000; n += 2) {
    if (erased(n)) table.erase(keys[static_cast<std::size_t>(n)]);
  }
  std::size_t kept = 0;
  for (int n = 0; n < 3000; ++n) {
    const int* flow = table.find(keys[static_cast<std::size_t>(n)]);
    if (erased(n)) {
      EXPECT_EQ(flow, nullptr) << n;
    } else {
      ++kept;
      ASSERT_NE(flow, nullptr) << n;
      EXPECT_EQ(*flow, n);
    }
  }
  EXPECT_EQ(table.size(), kept);
  for (int n = 0; n < 3000; ++n) {
    if (erased(n)) table.insert(keys[static_cast<std::size_t>(n)], std::make_unique<int>(-n));
  }
  EXPECT_EQ(table.size(), keys.size());
  for (int n = 0; n < 3000; ++n) {
    const int* flow = table.find(keys[static_cast<std::size_t>(n)]);
    ASSERT_NE(flow, nullptr) << n;
    EXPECT_EQ(*flow, erased(n) ? -n : n);
  }
}

}  // namespace
}  // namespace mpa
