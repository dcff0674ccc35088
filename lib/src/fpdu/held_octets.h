// Octets held back with the pushes that brought them (frame, and whether the push began a
// TCP segment), to be read again later exactly as they arrived. The FPDU reader holds them
// after a gap while the next FPDU is searched for, while a framing test decides, and the
// newest octets read (TailOctets: at most 32, a fixed-size copy kept on every push; with
// markers and no CRCs RecentOctets too, up to 2 KiB); the connection (mpa_connection.h) the
// Initiator's octets before the Reply, the first octets of full operation while the marker
// probe decides, a stream under study for framing inference.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "mpa/tcp_seq.h"

namespace mpa {

// One push that brought held octets.
struct HeldPush {
  std::size_t index;  // of its first octet among the held ones
  std::uint64_t frame;
  bool segment_start;
};

// The first `drop` of `size` held octets are dropped: the `count` pushes they came in are
// kept in place with their indices moved down (a push cut at the front no longer starts its
// segment). Returns how many remain.
inline std::size_t drop_held_pushes(HeldPush* pushes, std::size_t count, std::size_t drop,
                                    std::size_t size) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t end = i + 1 < count ? pushes[i + 1].index : size;
    if (end <= drop) continue;
    HeldPush push = pushes[i];
    if (push.index < drop) {
      push.index = drop;
      push.segment_start = false;  // (its first octets are gone)
    }
    push.index -= drop;
    pushes[kept++] = push;
  }
  return kept;
}

class HeldOctets {
 public:
  HeldOctets() = default;
  HeldOctets(TcpSeq seq, std::uint64_t offset) : seq_(seq), offset_(offset) {}

  TcpSeq seq() const { return seq_; }  // of the first octet held
  std::uint64_t offset() const { return offset_; }
  std::size_t size() const { return bytes_.size(); }
  bool empty() const { return bytes_.empty(); }
  TcpSeq end_seq() const { return seq_ + static_cast<std::uint32_t>(bytes_.size()); }
  std::uint64_t end_offset() const { return offset_ + bytes_.size(); }
  std::span<const std::uint8_t> bytes() const { return bytes_; }

  void append(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start) {
    if (data.empty()) return;
    pushes_.push_back({bytes_.size(), frame, segment_start});
    bytes_.insert(bytes_.end(), data.begin(), data.end());
  }
  // The same for octets the connection holds, which it replays a frame at a time: octets of
  // the frame that delivered the last ones continue its push.
  void extend(std::span<const std::uint8_t> data, std::uint64_t frame) {
    if (data.empty()) return;
    if (pushes_.empty() || pushes_.back().frame != frame)
      pushes_.push_back({bytes_.size(), frame, true});
    bytes_.insert(bytes_.end(), data.begin(), data.end());
  }
  // The same, keeping at most `limit` octets in all (the rest is dropped).
  void extend_up_to(std::size_t limit, std::span<const std::uint8_t> data, std::uint64_t frame) {
    const std::size_t room = limit - std::min(limit, bytes_.size());
    extend(data.first(std::min(room, data.size())), frame);
  }
  // The frame that delivered the first octet (`otherwise` when nothing is held).
  std::uint64_t first_frame(std::uint64_t otherwise) const {
    return pushes_.empty() ? otherwise : pushes_.front().frame;
  }
  // The held octets of `other` from index `from` on, as replay() would deliver them.
  void append_from(const HeldOctets& other, std::size_t from) {
    other.replay(from, [&](std::span<const std::uint8_t> data, std::uint64_t frame, bool start) {
      append(data, frame, start);
      return true;
    });
  }
  // Drops the oldest `n` octets (unread).
  void drop_front(std::size_t n) {
    pushes_.resize(drop_held_pushes(pushes_.data(), pushes_.size(), n, bytes_.size()));
    bytes_.erase(bytes_.begin(), bytes_.begin() + static_cast<std::ptrdiff_t>(n));
    seq_ += static_cast<std::uint32_t>(n);
    offset_ += n;
  }
  // Hands the octets from index `from` on to deliver(data, frame, segment_start), one call
  // per push (cut at `from`: no longer its segment's start). Stops after a call that returns
  // false; returns the index of the first octet not delivered (size(): all were).
  // The frames that delivered octets [from, to): the last, and whether one of them other than
  // the first push's frame, or a segment's start, lies after `from` (another segment).
  std::pair<std::uint64_t, bool> frames_of(std::size_t from, std::size_t to,
                                           std::uint64_t first_frame) const {
    std::uint64_t last = first_frame;
    bool other = false;
    for (const HeldPush& push : pushes_) {
      if (push.index >= to) break;
      if (push.index <= from) continue;
      other |= push.segment_start || push.frame != last;
      last = push.frame;
    }
    return {last, other};
  }
  template <typename Deliver>
  std::size_t replay(std::size_t from, Deliver&& deliver) const {
    for (std::size_t i = 0; i < pushes_.size(); ++i) {
      const std::size_t end = i + 1 < pushes_.size() ? pushes_[i + 1].index : bytes_.size();
      const std::size_t begin = std::max(pushes_[i].index, from);
      if (begin >= end) continue;
      if (!deliver(std::span<const std::uint8_t>(bytes_).subspan(begin, end - begin),
                   pushes_[i].frame, pushes_[i].segment_start && begin == pushes_[i].index)) {
        return end;
      }
    }
    return bytes_.size();
  }

 private:
  std::vector<std::uint8_t> bytes_;
  std::vector<HeldPush> pushes_;
  TcpSeq seq_;
  std::uint64_t offset_ = 0;
};

// The newest octets read, at most kSize, with their pushes: a bounded HeldOctets that
// allocates nothing.
class TailOctets {
 public:
  static constexpr std::size_t kSize = 32;

  std::span<const std::uint8_t> bytes() const { return {bytes_.data(), size_}; }
  void clear() { size_ = count_ = 0; }
  void remember(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start) {
    if (data.size() >= kSize) {  // (the common case: a fixed-size copy)
      std::memcpy(bytes_.data(), data.data() + data.size() - kSize, kSize);
      size_ = kSize;
      pushes_[0] = {0, frame, segment_start && data.size() == kSize};
      count_ = 1;
    } else if (!data.empty()) {
      remember_short(data, frame, segment_start);
    }
  }
  // The tail, as held octets that end where a push beginning at `push_seq` begins; the tail
  // is emptied.
  HeldOctets hold(TcpSeq push_seq, std::uint64_t push_offset) {
    HeldOctets held(push_seq - static_cast<std::uint32_t>(size_), push_offset - size_);
    for (std::size_t i = 0; i < count_; ++i) {
      const std::size_t end = i + 1 < count_ ? pushes_[i + 1].index : size_;
      held.append(bytes().subspan(pushes_[i].index, end - pushes_[i].index), pushes_[i].frame,
                  pushes_[i].segment_start);
    }
    clear();
    return held;
  }

 private:
  void remember_short(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start) {
    const std::size_t keep = std::min(size_, kSize - data.size());
    const std::size_t drop = size_ - keep;
    std::memmove(bytes_.data(), bytes_.data() + drop, keep);
    std::memcpy(bytes_.data() + keep, data.data(), data.size());
    count_ = drop_held_pushes(pushes_.data(), count_, drop, size_);
    pushes_[count_++] = {keep, frame, segment_start};
    size_ = keep + data.size();
  }

  std::array<std::uint8_t, kSize> bytes_{};
  std::size_t size_ = 0;
  std::array<HeldPush, kSize> pushes_{};
  std::size_t count_ = 0;
};

// The newest octets read, at least kKeep of them (at most twice that), with their pushes: where
// no CRC vouches for an FPDU boundary but markers do, a header misread by a few octets may pass
// the DDP test and only the first marker inside the misread FPDU, up to a marker interval on
// (RFC 5044 4.3), shows it; the framing test it opens starts from before that header. Held in a
// vector, allocated only where used (FpduReader: markers on, CRCs off).
class RecentOctets {
 public:
  static constexpr std::size_t kKeep = 1024;

  void clear() { held_ = HeldOctets(); }
  // `data` is read at `seq` (stream offset `offset`); octets not contiguous with the last start
  // the record over.
  void remember(std::span<const std::uint8_t> data, TcpSeq seq, std::uint64_t offset,
                std::uint64_t frame, bool segment_start) {
    if (data.empty()) return;
    if (held_.empty() || held_.end_seq() != seq || held_.end_offset() != offset) {
      held_ = HeldOctets(seq, offset);
    }
    if (data.size() > kKeep) {  // (only the newest kKeep octets of a long push are of use)
      const std::size_t skip = data.size() - kKeep;
      held_ = HeldOctets(seq + static_cast<std::uint32_t>(skip), offset + skip);
      held_.append(data.subspan(skip), frame, false);
      return;
    }
    held_.append(data, frame, segment_start);
    if (held_.size() > 2 * kKeep) held_.drop_front(held_.size() - kKeep);
  }
  // The first octet held when they end where a push beginning at `push_seq` begins (else
  // `push_seq`: nothing before that push is held).
  TcpSeq origin(TcpSeq push_seq) const {
    return !held_.empty() && held_.end_seq() == push_seq ? held_.seq() : push_seq;
  }
  // The octets held, when they end where a push beginning at `push_seq` begins and reach
  // further back than `than` octets (else nothing); the record is emptied.
  std::optional<HeldOctets> take(TcpSeq push_seq, std::size_t than) {
    std::optional<HeldOctets> out;
    if (!held_.empty() && held_.end_seq() == push_seq && held_.size() > than) {
      out = std::move(held_);
    }
    clear();
    return out;
  }

 private:
  HeldOctets held_;
};

}  // namespace mpa
