// The flow table: TCP connections by their pair of endpoints, with the order in which
// they were last active, so that the least recently active can be finished first. It
// knows nothing of MPA: the caller decides what a flow holds and when one ends (a new
// connection on the same ports, eviction, the end of the capture).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <utility>
#include <vector>

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

// The flows in the order of their last activity (a list: a flow moves to its front in O(1)
// and keeps its place in memory), indexed by an open-addressing table of (hash, flow) slots,
// linear probing, at most half full: one hash per segment and, mostly, one key compared (the
// hash first), where a node-based map walked a bucket's chain of nodes (issue 44, item 2).
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
      const std::size_t at = slot_of(key, FlowKeyHash{}(key));
      if (at == kNone) return nullptr;
      last_ = slots_[at].entry;
    }
    if (last_ != entries_.begin()) entries_.splice(entries_.begin(), entries_, last_);
    return last_->flow.get();
  }
  // (The last flow found first, as find() does.)
  bool contains(const FlowKey& key) const {
    return (last_ != entries_.end() && last_->key == key) ||
           slot_of(key, FlowKeyHash{}(key)) != kNone;
  }

  // Tracks a new flow (`key` must not be tracked) as the most recently active.
  Flow& insert(const FlowKey& key, std::unique_ptr<Flow> flow) {
    const std::size_t hash = FlowKeyHash{}(key);
    entries_.push_front(Entry{key, hash, 0, std::move(flow)});
    if (2 * (size_ + 1) > slots_.size()) grow();
    place(Slot{hash, entries_.begin(), true});
    ++size_;
    last_ = entries_.begin();
    return *last_->flow;
  }
  // Forgets a flow and destroys it.
  void erase(const FlowKey& key) {
    const std::size_t at = slot_of(key, FlowKeyHash{}(key));
    if (at == kNone) return;
    const auto entry = slots_[at].entry;
    if (last_ == entry) last_ = entries_.end();
    entries_.erase(entry);
    vacate(at);
    --size_;
  }

  // The most recently active flow was active at `ns` (capture time).
  void note_activity(std::uint64_t ns) {
    if (!entries_.empty()) entries_.front().last_ns = ns;
  }

  // The least recently active flow (nullptr when empty), and when it was last active (as
  // note_activity said; 0 if never).
  Flow* least_recent() { return entries_.empty() ? nullptr : entries_.back().flow.get(); }
  std::uint64_t least_recent_ns() const { return entries_.empty() ? 0 : entries_.back().last_ns; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Entry {
    FlowKey key;
    std::size_t hash;       // FlowKeyHash of the key
    std::uint64_t last_ns;  // capture time of its last activity
    std::unique_ptr<Flow> flow;
  };
  using Entries = std::list<Entry>;  // most recent first
  struct Slot {
    std::size_t hash = 0;
    typename Entries::iterator entry{};
    bool used = false;
  };
  static constexpr std::size_t kNone = ~std::size_t{0};

  std::size_t home(std::size_t hash) const { return (hash ^ (hash >> 32)) & (slots_.size() - 1); }
  // The slot holding `key` (kNone: none).
  std::size_t slot_of(const FlowKey& key, std::size_t hash) const {
    if (slots_.empty()) return kNone;
    for (std::size_t i = home(hash);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (!s.used) return kNone;
      if (s.hash == hash && s.entry->key == key) return i;
    }
  }
  void place(const Slot& slot) {
    std::size_t i = home(slot.hash);
    while (slots_[i].used) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = slot;
  }
  void grow() {
    std::vector<Slot> old(std::max<std::size_t>(16, 2 * slots_.size()));
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.used) place(s);
    }
  }
  // Empties slot `at`, moving back the slots after it that their probe would no longer reach
  // (deletion in linear probing without tombstones: Knuth, TAOCP 6.4, Algorithm R).
  void vacate(std::size_t at) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t j = (at + 1) & mask; slots_[j].used; j = (j + 1) & mask) {
      const std::size_t k = home(slots_[j].hash);
      const bool reached = at <= j ? (at < k && k <= j) : (at < k || k <= j);
      if (!reached) {
        slots_[at] = slots_[j];
        at = j;
      }
    }
    slots_[at] = Slot{};
  }

  Entries entries_;
  std::vector<Slot> slots_;  // a power of two of them, or none yet
  std::size_t size_ = 0;
  typename Entries::iterator last_ = entries_.end();
};

}  // namespace mpa
