// The early-outs of the DDP/RDMAP header checks (ulp/ddp_field_checks.h, issue 45) held to the
// checks they shortcut, over random DDP headers and every edge value: fields_plain() true only
// where field_faults() names nothing, false only where it names something or the stream's first
// DV is being taken; versions_fit() equal to versions_conform() for every DV, RV and revision.
#include "ulp/ddp_field_checks.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "mpa/ddp.h"

namespace mpa {
namespace {

using namespace ddp_fields;

using Head = std::array<std::uint8_t, kDdpUntaggedHeaderSize>;

void put_be32(Head& head, std::size_t at, std::uint32_t value) {
  for (std::size_t i = 0; i < 4; ++i)
    head[at + i] = static_cast<std::uint8_t>(value >> (24 - 8 * i));
}

// What the pair said of the headers seen, and the first header they disagreed on.
struct Tally {
  std::uint64_t samples = 0;
  std::uint64_t plain = 0;
  std::uint64_t conservative = 0;  // not plain, nothing named: the stream's first DV taken
  std::uint64_t wrong = 0;         // plain with a fault, or not plain for no reason
  std::array<std::uint64_t, 7> fault_seen{};
  std::string first_wrong;

  void add(const Head& head, std::uint8_t stream_version) {
    const std::optional<DdpHeader> ddp = decode_ddp(head);
    ASSERT_TRUE(ddp.has_value());
    const bool is_plain = fields_plain(*ddp, head, stream_version);
    const unsigned faults = field_faults(*ddp, head, stream_version);
    ++samples;
    for (std::size_t bit = 0; bit < fault_seen.size(); ++bit) {
      if (faults & (1u << bit)) ++fault_seen[bit];
    }
    if (is_plain) ++plain;
    if (!is_plain && faults == 0) ++conservative;
    // Exact: plain where nothing is named and the stream has its DV already.
    if (is_plain != (faults == 0 && stream_version != 0xff)) {
      if (wrong++ == 0) {
        first_wrong = "control octets " + std::to_string(head[0]) + " " + std::to_string(head[1]) +
                      ", STag " + std::to_string(load_be32(&head[2])) + ", queue " +
                      std::to_string(ddp->queue) + ", stream DV " + std::to_string(stream_version) +
                      ": plain " + std::to_string(is_plain) + ", faults " + std::to_string(faults);
      }
    }
  }
};

// One of `values`, or (one time in `odds`) anything.
template <std::size_t N>
std::uint32_t edge_or_any(std::mt19937& rng, const std::array<std::uint32_t, N>& values,
                          unsigned odds) {
  if (rng() % odds == 0) return static_cast<std::uint32_t>(rng());
  return values[rng() % N];
}

// A random DDP header (every field random, the edges favoured: each field is at a value a
// check turns on about half the time), and the DV of the stream it is on.
std::pair<Head, std::uint8_t> random_header(std::mt19937& rng) {
  Head head;
  for (auto& octet : head) octet = static_cast<std::uint8_t>(rng());
  constexpr std::array<std::uint8_t, 5> kStreamVersions = {0xff, 0, 1, 2, 3};
  const std::uint8_t stream_version = kStreamVersions[rng() % kStreamVersions.size()];
  // DDP Control: T, L, Rsvd (clear half the time), DV (the stream's half the time).
  if (rng() % 2) head[0] &= static_cast<std::uint8_t>(~0x3cu);
  if (rng() % 2 && stream_version != 0xff) head[0] = (head[0] & 0xfc) | stream_version;
  // RDMAP Control: RV (the DV half the time), Rsvd (clear half the time), opcode 0-15; the T
  // flag set as the opcode's model needs half the time.
  if (rng() % 2) head[1] = static_cast<std::uint8_t>((head[1] & 0x3f) | (head[0] & 0x03) << 6);
  if (rng() % 2) head[1] &= static_cast<std::uint8_t>(~0x30u);
  if (rng() % 2) {
    const unsigned opcode = head[1] & 0x0f;
    const bool tagged = opcode == 0x0 || opcode == 0x2;  // RFC 5040 4.1 Figure 4
    head[0] = static_cast<std::uint8_t>(tagged ? head[0] | 0x80 : head[0] & 0x7f);
  }
  // Invalidate STag (tagged: the STag), and the QN: the edges, or anything.
  constexpr std::array<std::uint32_t, 4> kStags = {0, 0, 1, 0xffffffff};
  put_be32(head, 2, edge_or_any(rng, kStags, 4));
  constexpr std::array<std::uint32_t, 8> kQueues = {0, 1, 2, 3, 4, 5, 6, 0xffffffff};
  put_be32(head, 6, edge_or_any(rng, kQueues, 8));
  return {head, stream_version};
}

TEST(DdpFieldChecks, FieldsPlainIsExactOverRandomHeaders) {
  std::mt19937 rng(45);
  Tally tally;
  for (int i = 0; i < 400000; ++i) {
    const auto [head, stream_version] = random_header(rng);
    tally.add(head, stream_version);
  }
  EXPECT_EQ(tally.wrong, 0u) << "first: " << tally.first_wrong;
  // The draw reaches both sides and every fault.
  EXPECT_GT(tally.plain, tally.samples / 100);
  EXPECT_GT(tally.conservative, 0u);
  for (std::size_t bit = 0; bit < tally.fault_seen.size(); ++bit) {
    EXPECT_GT(tally.fault_seen[bit], tally.samples / 1000) << "fault bit " << bit;
  }
  // Conservative only on a stream's first segment: rare on any stream of more than a few.
  EXPECT_LT(tally.conservative, tally.samples / 5);
}

// Every DDP and RDMAP Control octet pair (T, L, Rsvd, DV; RV, Rsvd, opcode 0-15), against every
// stream DV, the Invalidate STag zero or not and the QNs about RDMAP's five.
TEST(DdpFieldChecks, FieldsPlainIsExactOverEveryControlField) {
  Tally tally;
  constexpr std::array<std::uint32_t, 2> kStags = {0, 0x80000000};
  constexpr std::array<std::uint32_t, 7> kQueues = {0, 1, 2, 3, 4, 5, 0xffffffff};
  constexpr std::array<std::uint8_t, 5> kStreamVersions = {0xff, 0, 1, 2, 3};
  Head head{};
  for (unsigned ddp_control = 0; ddp_control < 256; ++ddp_control) {
    for (unsigned rdmap_control = 0; rdmap_control < 256; ++rdmap_control) {
      head[0] = static_cast<std::uint8_t>(ddp_control);
      head[1] = static_cast<std::uint8_t>(rdmap_control);
      for (const std::uint32_t stag : kStags) {
        put_be32(head, 2, stag);
        for (const std::uint32_t queue : kQueues) {
          put_be32(head, 6, queue);
          for (const std::uint8_t stream_version : kStreamVersions) tally.add(head, stream_version);
        }
      }
    }
  }
  EXPECT_EQ(tally.wrong, 0u) << "first: " << tally.first_wrong;
  EXPECT_GT(tally.plain, 0u);
  for (std::size_t bit = 0; bit < tally.fault_seen.size(); ++bit) {
    EXPECT_GT(tally.fault_seen[bit], 0u) << "fault bit " << bit;
  }
}

// The revisions a Request may name (RFC 5044 Rev 0 and 1, RFC 6581 Rev 2, and any later
// number), or none (the startup not seen).
constexpr std::array<std::optional<int>, 7> kRevisions = {std::nullopt, 0, 1, 2, 3, 127, 255};

TEST(DdpFieldChecks, VersionsFitIsExactForEveryVersionAndRevision) {
  std::mt19937 rng(5044);
  int fits = 0;
  for (int i = 0; i < 20000; ++i) {
    Head head;
    for (auto& octet : head) octet = static_cast<std::uint8_t>(rng());
    const DdpHeader ddp = *decode_ddp(head);
    for (const std::optional<int> revision : kRevisions) {
      EXPECT_EQ(versions_fit(ddp, revision), versions_conform(ddp, revision))
          << "DV " << int{ddp.ddp_version} << ", RV " << int{ddp.rdmap_version} << ", revision "
          << (revision ? std::to_string(*revision) : "unseen");
      fits += versions_fit(ddp, revision) ? 1 : 0;
    }
  }
  EXPECT_GT(fits, 0);
  // Every DV and RV (0-3) against every revision, and what RFC 5044 Appendix C says of some.
  for (std::uint8_t dv = 0; dv < 4; ++dv) {
    for (std::uint8_t rv = 0; rv < 4; ++rv) {
      DdpHeader ddp;
      ddp.ddp_version = dv;
      ddp.rdmap_version = rv;
      for (const std::optional<int> revision : kRevisions) {
        EXPECT_EQ(versions_fit(ddp, revision), versions_conform(ddp, revision))
            << "DV " << int{dv} << ", RV " << int{rv};
      }
    }
  }
  DdpHeader ietf;
  ietf.ddp_version = ietf.rdmap_version = 1;
  DdpHeader consortium;  // both 0
  DdpHeader mixed;
  mixed.ddp_version = 1;
  EXPECT_TRUE(versions_conform(ietf, 1));
  EXPECT_TRUE(versions_conform(ietf, 2));
  EXPECT_FALSE(versions_conform(ietf, 0));
  EXPECT_TRUE(versions_conform(consortium, 0));
  EXPECT_FALSE(versions_conform(consortium, 1));
  EXPECT_TRUE(versions_conform(consortium, std::nullopt));
  EXPECT_FALSE(versions_conform(mixed, std::nullopt));
}

}  // namespace
}  // namespace mpa
