// The flow table: TCP connections by their pair of endpoints, with the order in which
// they were last active, so that the least recently active can be finished first. It
// knows nothing of MPA: the caller decides what a flow holds and when one ends (a new
// connection on the same ports, eviction, the end of the capture).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <unordered_map>
#include <utility>

#include "mpa/packet.h"

namespace mpa {

// Both directions of a connection map to one key.
struct FlowKey {
  Endpoint low;
  Endpoint high;
  static FlowKey of(const Endpoint& a, const Endpoint& b) {
    return a < b ? FlowKey{a, b} : FlowKey{b, a};
  }
  friend bool operator==(const FlowKey&, const FlowKey&) = default;
};

struct FlowKeyHash {
  std::size_t operator()(const FlowKey& key) const {
    // Eight octets at a time: this runs once per segment.
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    auto mix = [&h](std::uint64_t v) {
      h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
    };
    for (const Endpoint* e : {&key.low, &key.high}) {
      std::uint64_t words[2];
      std::memcpy(words, e->address.bytes.data(), sizeof words);
      mix(words[0]);
      mix(words[1]);
      mix(static_cast<std::uint64_t>(e->port) << 8 | e->address.family);
    }
    mix(key.low.tunnel);  // both ends share it
    return static_cast<std::size_t>(h);
  }
};

template <typename Flow>
class FlowTable {
 public:
  FlowTable() = default;
  FlowTable(const FlowTable&) = delete;
  FlowTable& operator=(const FlowTable&) = delete;

  // The flow of `key`, now the most recently active; nullptr when it is not tracked.
  // Segments come in bursts per connection: the last flow found is tried before hashing.
  Flow* find(const FlowKey& key) {
    if (last_ == entries_.end() || !(last_->key == key)) {
      const auto it = index_.find(key);
      if (it == index_.end()) return nullptr;
      last_ = it->second;
    }
    if (last_ != entries_.begin()) entries_.splice(entries_.begin(), entries_, last_);
    return last_->flow.get();
  }
  // (The last flow found first, as find() does: a pure ACK asks this before find().)
  bool contains(const FlowKey& key) const {
    return (last_ != entries_.end() && last_->key == key) || index_.contains(key);
  }

  // Tracks a new flow (`key` must not be tracked) as the most recently active.
  Flow& insert(const FlowKey& key, std::unique_ptr<Flow> flow) {
    entries_.push_front(Entry{key, 0, std::move(flow)});
    index_.emplace(key, entries_.begin());
    last_ = entries_.begin();
    return *last_->flow;
  }
  // Forgets a flow and destroys it.
  void erase(const FlowKey& key) {
    const auto it = index_.find(key);
    if (it == index_.end()) return;
    if (last_ == it->second) last_ = entries_.end();
    entries_.erase(it->second);
    index_.erase(it);
  }

  // The most recently active flow was active at `ns` (capture time).
  void note_activity(std::uint64_t ns) {
    if (!entries_.empty()) entries_.front().last_ns = ns;
  }

  // The least recently active flow (nullptr when empty), and when it was last active (as
  // note_activity said; 0 if never).
  Flow* least_recent() { return entries_.empty() ? nullptr : entries_.back().flow.get(); }
  std::uint64_t least_recent_ns() const { return entries_.empty() ? 0 : entries_.back().last_ns; }
  std::size_t size() const { return index_.size(); }
  bool empty() const { return index_.empty(); }

 private:
  struct Entry {
    FlowKey key;
    std::uint64_t last_ns;  // capture time of its last activity
    std::unique_ptr<Flow> flow;
  };
  using Entries = std::list<Entry>;  // most recent first
  Entries entries_;
  std::unordered_map<FlowKey, typename Entries::iterator, FlowKeyHash> index_;
  typename Entries::iterator last_ = entries_.end();
};

}  // namespace mpa
