// The flow table (flow_table.h): keys both ways, least recently active first out.
#include "mpa/flow_table.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mpa
