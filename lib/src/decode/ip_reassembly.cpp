// IP fragment reassembly (see ip_reassembly.h). Each datagram keeps one buffer by offset and the
// ranges of it held, sorted and merged: a fragment costs its octets and a search of the ranges,
// never a walk over every fragment held.
#include "mpa/ip_reassembly.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace mpa {
namespace {

constexpr std::uint8_t kProtoTcp = 6;
constexpr std::uint8_t kProtoUdp = 17;
// What a datagram costs besides its octets: its list and index nodes, its ranges.
constexpr std::size_t kDatagramOverhead = 512;

std::string protocol_name(std::uint8_t protocol, bool ipv6) {
  switch (protocol) {
    case kProtoTcp:
      return "TCP";
    case kProtoUdp:
      return "UDP";
    case 4:
      return "IPv4";
    case 41:
      return "IPv6";
    case 47:
      return "GRE";
    default:
      return fmt::format("{} {}", ipv6 ? "next header" : "protocol", protocol);
  }
}

std::string endpoint_name(const IpAddress& address, std::optional<std::uint16_t> port) {
  if (!port) return to_string(address);
  Endpoint e;
  e.address = address;
  e.port = *port;
  return to_string(e);
}

std::string frames_of(std::uint32_t fragments, std::uint64_t first, std::uint64_t last) {
  if (first == last) {
    return fmt::format("{} fragment{} (frame {})", fragments, fragments == 1 ? "" : "s", first);
  }
  return fmt::format("{} fragments (frames {}-{})", fragments, first, last);
}

}  // namespace

struct IpReassembler::Datagram {
  Key key;
  std::uint8_t protocol = 0;  // what it carries (IPv6: the first fragment's next header)
  TunnelPath tunnels;
  std::vector<std::uint8_t> octets;                             // by offset
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // held [begin, end), merged
  std::optional<std::uint32_t> length;                          // from its last fragment
  std::uint32_t fragments = 0;
  bool cut = false;
  std::uint64_t first_frame = 0, last_frame = 0, first_ns = 0, last_ns = 0;
  std::size_t cost = 0;  // counted against max_octets

  std::uint64_t octets_held() const {
    std::uint64_t n = 0;
    for (const auto& [begin, end] : ranges) n += end - begin;
    return n;
  }
  bool complete() const {
    return length && !ranges.empty() && ranges.front().first == 0 &&
           ranges.front().second >= *length;
  }
  // Copies [begin, end) of `data` (which starts at `begin`) where nothing is held yet; true
  // when octets already held there differ, the first of them at `*differs_at`.
  bool insert(std::uint32_t begin, std::uint32_t end, const std::uint8_t* data,
              std::uint32_t* differs_at);
};

bool IpReassembler::Datagram::insert(std::uint32_t begin, std::uint32_t end,
                                     const std::uint8_t* data, std::uint32_t* differs_at) {
  if (octets.size() < end) {
    if (length && *length >= end && octets.capacity() < *length) octets.reserve(*length);
    octets.resize(end);
  }
  bool differs = false;
  std::uint32_t at = begin;
  // The first range that ends after `begin`, then every one that starts before `end`.
  auto r =
      std::upper_bound(ranges.begin(), ranges.end(), begin,
                       [](std::uint32_t value, const auto& range) { return value < range.second; });
  const auto first_touched = r;
  for (; r != ranges.end() && r->first < end; ++r) {
    if (at < r->first) std::memcpy(octets.data() + at, data + (at - begin), r->first - at);
    const std::uint32_t overlap_begin = std::max(at, r->first);
    const std::uint32_t overlap_end = std::min(end, r->second);
    if (!differs && overlap_begin < overlap_end &&
        std::memcmp(octets.data() + overlap_begin, data + (overlap_begin - begin),
                    overlap_end - overlap_begin) != 0) {
      differs = true;
      for (std::uint32_t i = overlap_begin; i < overlap_end; ++i) {
        if (octets[i] != data[i - begin]) {
          *differs_at = i;
          break;
        }
      }
    }
    at = std::max(at, r->second);
  }
  if (at < end) std::memcpy(octets.data() + at, data + (at - begin), end - at);
  // Merge [begin, end) with the ranges it touches or adjoins.
  auto from = first_touched;
  if (from != ranges.begin() && std::prev(from)->second == begin) --from;
  auto to = from;
  std::uint32_t merged_begin = begin, merged_end = end;
  while (to != ranges.end() && to->first <= end) {
    merged_begin = std::min(merged_begin, to->first);
    merged_end = std::max(merged_end, to->second);
    ++to;
  }
  from = ranges.erase(from, to);
  ranges.insert(from, {merged_begin, merged_end});
  return differs;
}

std::size_t IpReassembler::KeyHash::operator()(const Key& key) const {
  std::uint64_t h = key.tunnel ^ (std::uint64_t{key.id} << 8) ^ key.protocol;
  for (const IpAddress* a : {&key.source, &key.destination}) {
    std::uint64_t word = 0;
    for (std::size_t i = 0; i < a->bytes.size(); ++i) {
      word = word * 131 + a->bytes[i];
    }
    h = (h ^ word ^ a->family) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return static_cast<std::size_t>(h);
}

IpReassembler::IpReassembler(IpReassemblyLimits limits) : limits_(limits) {}
IpReassembler::~IpReassembler() = default;

std::size_t IpReassembler::datagrams_held() const { return held_.size(); }
std::size_t IpReassembler::octets_held() const { return octets_; }

void IpReassembler::account(Datagram& d) {
  const std::size_t cost =
      kDatagramOverhead + d.octets.capacity() + d.ranges.capacity() * sizeof(d.ranges[0]);
  octets_ = octets_ - d.cost + cost;
  d.cost = cost;
}

std::optional<IpDatagram> IpReassembler::add(const DecodeResult& fragment, std::uint64_t frame,
                                             std::uint64_t timestamp_ns,
                                             IpReassemblyEvents& events) {
  // The datagram returned last may hold this fragment (a fragment inside it): it stays alive
  // until this call returns.
  [[maybe_unused]] const std::vector<std::uint8_t> previous = std::move(completed_);
  completed_.clear();
  now_ns_ = std::max(now_ns_, timestamp_ns);
  give_up_old(events);

  const TcpSegment& segment = fragment.segment;
  const IpFragmentHeader& header = fragment.fragment;
  const bool ipv4 = segment.source.address.family == 4;
  const Key key{segment.source.tunnel, segment.source.address, segment.destination.address,
                header.id, ipv4 ? header.protocol : std::uint8_t{0}};
  Held::iterator it;
  if (const auto found = index_.find(key); found != index_.end()) {
    it = found->second;
  } else {
    it = held_.emplace(held_.end());
    it->key = key;
    it->protocol = header.protocol;
    it->tunnels = fragment.tunnels;
    it->first_frame = frame;
    it->first_ns = timestamp_ns;
    index_.emplace(key, it);
  }
  Datagram& d = *it;
  ++d.fragments;
  d.last_frame = frame;
  d.last_ns = timestamp_ns;
  if (segment.payload_missing != 0) {
    // Cut by the snapshot length: not held, so its datagram never completes (as in Wireshark).
    d.cut = true;
    account(d);
    keep_within_limits(&d, events);
    return std::nullopt;
  }
  if (header.offset == 0) d.protocol = header.protocol;
  const std::uint64_t begin = header.offset;
  std::uint64_t end = begin + segment.payload.size();
  if (!header.more && !d.length) d.length = static_cast<std::uint32_t>(end);
  if (d.length) end = std::min<std::uint64_t>(end, *d.length);  // beyond its end: ignored
  if (end > begin) {
    std::uint32_t differs_at = 0;
    if (d.insert(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end),
                 segment.payload.data(), &differs_at)) {
      events.on_fragment_overlap_mismatch(
          frame, timestamp_ns,
          fmt::format("IPv{} fragment {} -> {} ({}, id 0x{:0{}x}) at offset {}, {} octets: "
                      "octet {} of the datagram is 0x{:02x} here but 0x{:02x} in a fragment "
                      "captured before (its fragments since frame {}); the octets captured first "
                      "are kept",
                      ipv4 ? 4 : 6, to_string(key.source), to_string(key.destination),
                      protocol_name(d.protocol, !ipv4), header.id, ipv4 ? 4 : 8, header.offset,
                      segment.payload.size(), differs_at,
                      segment.payload[differs_at - header.offset], d.octets[differs_at],
                      d.first_frame));
    }
  }
  if (d.complete()) {
    completed_ = std::move(d.octets);
    completed_.resize(*d.length);
    IpDatagram out{d.key.source, d.key.destination, d.protocol, d.tunnels, completed_};
    octets_ -= d.cost;
    index_.erase(d.key);
    held_.erase(it);
    return out;
  }
  account(d);
  keep_within_limits(&d, events);
  return std::nullopt;
}

void IpReassembler::finish(IpReassemblyEvents& events) {
  while (!held_.empty()) give_up(held_.begin(), GiveUpReason::CaptureEnd, events);
  completed_.clear();
  completed_.shrink_to_fit();
}

void IpReassembler::give_up_old(IpReassemblyEvents& events) {
  while (!held_.empty() && now_ns_ - held_.front().first_ns > limits_.timeout_ns) {
    give_up(held_.begin(), GiveUpReason::Timeout, events);
  }
}

void IpReassembler::keep_within_limits(const Datagram* keep, IpReassemblyEvents& events) {
  while (held_.size() > limits_.max_datagrams || octets_ > limits_.max_octets) {
    auto oldest = held_.begin();
    if (&*oldest == keep) ++oldest;
    if (oldest == held_.end()) return;
    give_up(oldest, GiveUpReason::Limit, events);
  }
}

void IpReassembler::give_up(Held::iterator it, GiveUpReason reason, IpReassemblyEvents& events) {
  const Datagram& d = *it;
  IncompleteDatagram out;
  out.source = d.key.source;
  out.destination = d.key.destination;
  out.protocol = d.protocol;
  out.id = d.key.id;
  if ((d.protocol == kProtoTcp || d.protocol == kProtoUdp) && !d.ranges.empty() &&
      d.ranges.front().first == 0 && d.ranges.front().second >= 4) {
    out.source_port = static_cast<std::uint16_t>(d.octets[0] << 8 | d.octets[1]);
    out.destination_port = static_cast<std::uint16_t>(d.octets[2] << 8 | d.octets[3]);
  }
  out.fragments = d.fragments;
  out.octets = d.octets_held();
  if (d.length) out.length = *d.length;
  out.cut = d.cut;
  out.first_frame = d.first_frame;
  out.last_frame = d.last_frame;
  out.last_ns = d.last_ns;
  out.reason = reason;
  octets_ -= d.cost;
  index_.erase(d.key);
  held_.erase(it);
  events.on_datagram_incomplete(out);
}

std::string describe(const IncompleteDatagram& d, const IpReassemblyLimits& limits) {
  const bool ipv4 = d.source.family == 4;
  std::string why;
  switch (d.reason) {
    case GiveUpReason::CaptureEnd:
      why = "at the capture's end";
      break;
    case GiveUpReason::Timeout:
      why = fmt::format("{} s after its first fragment", limits.timeout_ns / 1'000'000'000);
      break;
    case GiveUpReason::Limit:
      why = fmt::format("to hold no more than {} datagrams and {}", limits.max_datagrams,
                        limits.max_octets % (std::size_t{1} << 20) == 0
                            ? fmt::format("{} MiB", limits.max_octets >> 20)
                            : fmt::format("{} octets", limits.max_octets));
      break;
  }
  const std::string octets = d.length ? fmt::format("{} of its {} octets", d.octets, *d.length)
                                      : fmt::format("{} octets", d.octets);
  return fmt::format("IPv{} datagram {} -> {} ({}, id 0x{:0{}x}) given up {} with {} from {}{}{}",
                     ipv4 ? 4 : 6, endpoint_name(d.source, d.source_port),
                     endpoint_name(d.destination, d.destination_port),
                     protocol_name(d.protocol, !ipv4), d.id, ipv4 ? 4 : 8, why, octets,
                     frames_of(d.fragments, d.first_frame, d.last_frame),
                     d.length ? "" : "; its last fragment was not captured",
                     d.cut ? "; fragments cut by the snapshot length are not reassembled" : "");
}

}  // namespace mpa
