// TCP reassembly of one direction of a connection (RFC 793 3.3, 3.9): segments in any
// order in, in-order bytes, explicit gaps and the end of the stream out. Every byte
// position is delivered exactly once, either as data or inside a gap; nothing is dropped
// silently.
//
// Stream offsets are 64-bit and count from the first octet after the SYN (or, when the
// SYN was not captured, from the first payload octet seen). The reassembler is the only
// place that unwraps 32-bit sequence numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "mpa/packet.h"
#include "mpa/tcp_seq.h"

namespace mpa {

enum class GapCause : std::uint8_t {
  NotCaptured,  // a hole in the sequence space the capture never filled (capture loss)
  Truncated,    // payload cut by the capture's snapshot length
  BufferLimit,  // out-of-order data beyond the reassembly ceiling
};

enum class StreamEnd : std::uint8_t { Fin, Rst };

// How a differing retransmission was found.
enum class MismatchEvidence : std::uint8_t {
  Octets,  // compared octet by octet: `offset` is the first differing octet
  Digest,  // the octets first sent were no longer held: the CRC32c of the `length` octets at
           // `offset` (a unit of the original, see tcp_reassembly.cpp) differs
};

class StreamSink {
 public:
  virtual ~StreamSink() = default;
  // In-order bytes at `offset` (sequence number `seq`), first delivered by `frame`.
  virtual void on_stream_data(std::uint64_t offset, TcpSeq seq, std::span<const std::uint8_t> data,
                              std::uint64_t frame) = 0;
  // `length` bytes at `offset` will never be seen. `frame` is where that became certain.
  virtual void on_stream_gap(std::uint64_t offset, TcpSeq seq, std::uint64_t length, GapCause cause,
                             std::uint64_t frame) = 0;
  // The sender closed (FIN, once all bytes before it were delivered) or reset.
  virtual void on_stream_end(std::uint64_t offset, TcpSeq seq, StreamEnd how,
                             std::uint64_t frame) = 0;
  // A retransmission carried bytes different from those first seen at `offset`.
  virtual void on_retransmission_mismatch(std::uint64_t offset, TcpSeq seq, std::uint32_t length,
                                          MismatchEvidence evidence, std::uint64_t frame) = 0;
  // Once per direction: the peer's acknowledgements lag more than `retransmission_reach`
  // behind, so retransmissions of octets before `offset` are no longer compared although
  // TCP could still send them.
  virtual void on_retransmission_check_stopped(std::uint64_t offset, TcpSeq seq,
                                               std::uint64_t frame) = 0;
};

struct ReassemblyOptions {
  // Ceiling on buffered out-of-order bytes per direction. What does not fit becomes a gap.
  std::size_t max_buffered_bytes = 4u << 20;
  // How many recently delivered bytes are kept to compare retransmissions against (those a
  // segment's payload_source can read again by their place, the others as a copy).
  std::size_t retransmission_window = 64u << 10;
  // After octets were read again from their place in the capture, a direction copies the
  // octets it delivers next, this many, instead of keeping their place (a capture full of
  // retransmissions is not read twice).
  std::size_t copy_after_reading_again = 1u << 20;
  // How far behind the newest delivered octet retransmissions are still compared while the
  // peer has not acknowledged the octets (tracked with on_peer_ack): beyond the window, by
  // a CRC32c digest per unit of at most 1 KiB (a few octets of memory per KiB). Past it the
  // check stops and says so once. Needs a window of at least 4 KiB and a reach beyond it;
  // otherwise, and while no acknowledgement was seen, only the window is compared.
  std::size_t retransmission_reach = 16u << 20;
};

enum class SegmentOutcome : std::uint8_t {
  Delivered,       // new in-order data delivered (possibly releasing buffered data)
  Buffered,        // out of order, held until the hole before it fills
  Retransmission,  // only bytes already delivered (identical)
  RetransmissionMismatch,
  KeepAlive,         // one octet at next-1: a keep-alive probe, not data
  Control,           // no payload (SYN, FIN, RST, pure ACK)
  BeforeStart,       // data before the stream's origin
  DroppedOverLimit,  // buffer ceiling reached; reported as a gap
};

// A queue kept in a vector, released on demand: a reassembler is made for each direction of
// every connection, and std::deque allocates a block of its own however empty it is.
template <typename T>
class VectorQueue {
 public:
  using const_iterator = typename std::vector<T>::const_iterator;
  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  const T& front() const { return items_[head_]; }
  T& front() { return items_[head_]; }
  T& back() { return items_.back(); }
  const T& back() const { return items_.back(); }
  const_iterator begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  const_iterator end() const { return items_.end(); }
  void push_back(const T& item) { items_.push_back(item); }
  void pop_front() {
    if (++head_ == items_.size()) {
      clear();
    } else if (head_ >= 32 && head_ * 2 >= items_.size()) {  // drop what was popped
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }
  // Empty, and its memory given back.
  void release() {
    std::vector<T>().swap(items_);
    head_ = 0;
  }
  std::size_t capacity() const { return items_.capacity(); }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

class TcpReassembler {
 public:
  explicit TcpReassembler(ReassemblyOptions options = {});

  SegmentOutcome on_segment(const TcpSegment& segment, StreamSink& sink);
  // The peer acknowledged everything before `ack` (the ACK field of a segment it sent with
  // the ACK flag). Octets it acknowledged are compared only while still in the window.
  void on_peer_ack(TcpSeq ack) {
    // (Most segments repeat the last.)
    if (!beyond_.acks_seen || ack != beyond_.last_ack) take_peer_ack(ack);
  }
  // End of capture: every hole still open becomes a gap; buffered data after it is
  // delivered; a FIN seen but not yet reached is honoured.
  void finish(std::uint64_t frame, StreamSink& sink);

  bool started() const { return started_; }
  bool ended() const { return ended_; }
  std::uint64_t next_offset() const { return next_offset_; }
  TcpSeq next_seq() const { return origin_ + static_cast<std::uint32_t>(next_offset_); }
  std::size_t buffered_bytes() const { return buffered_bytes_; }
  const ReassemblyOptions& options() const { return options_; }
  // Whether an acknowledgement from the peer was seen (on_peer_ack after the stream began).
  bool peer_acks_seen() const { return beyond_.acks_seen; }
  // Offset of the peer's cumulative acknowledgement (0 before any).
  std::uint64_t peer_acked_offset() const { return beyond_.acked_offset; }
  // Octets of history held in memory, for tests that bound what an idle connection costs.
  std::size_t history_bytes() const {
    return history_.capacity + history_.runs.capacity() * sizeof(Run) +
           beyond_.cuts.capacity() * 8 + beyond_.digests.capacity() * sizeof(Digest);
  }
  // Digests held for octets that left the window unacknowledged, and the oldest offset a
  // digest covers (next_offset() when none).
  std::size_t digests() const { return beyond_.digests.size(); }
  std::uint64_t digests_from() const {
    return beyond_.digests.empty() ? next_offset_ : beyond_.digests.front().start;
  }

 private:
  // Implementation detail; see tcp_reassembly.cpp.
  struct Pending {
    std::vector<std::uint8_t> data;  // buffered bytes; empty for a truncated run
    std::uint64_t truncated = 0;     // length of a snaplen-truncated run (data empty)
    std::uint64_t frame = 0;         // frame the piece arrived in
    std::uint64_t length() const { return data.size() + truncated; }
  };
  struct Call;  // per-segment context: frame, sink, whether a mismatch was reported
  // CRC32c of one unit of delivered octets that left the window unacknowledged.
  struct Digest {
    std::uint64_t start = 0;
    std::uint32_t length = 0;
    std::uint32_t crc = 0;
  };
  // A run of delivered octets the history holds: kept as their place in the capture
  // (`source` holds octet `start` at `at`) or copied (`source` nullptr: octet `start` is at
  // copy position `at`, see History).
  struct Run {
    std::uint64_t start = 0;  // stream offset
    std::uint64_t length = 0;
    const OctetSource* source = nullptr;
    std::uint64_t at = 0;
  };
  // The last delivered octets, at most the window of them, up to next_offset_: `runs` then the
  // last `tail` octets, copied, tile them (none after a gap, until the next octet). (The tail
  // is not a run of its own until a placed run follows it: a direction that only copies, an
  // idle connection's startup frames or a compressed capture, keeps no run.) Copied octets take
  // copy positions in delivery order (`copied_end` handed out, the last `copied` of them held) and
  // sit in the `copies` ring at position % capacity: sized to the copied octets the window holds,
  // grown on demand, shrunk when a quarter of it is in use, none before the first copy. (A ring
  // laid out over stream offsets cost the whole window however few octets a capture read in place
  // copies: 400 connections, 50 MiB.)
  struct History {
    VectorQueue<Run> runs;  // by start, contiguous, the first trimmed to the window
    std::size_t tail = 0;
    std::unique_ptr<std::uint8_t[]> copies;
    std::size_t capacity = 0;
    std::size_t copied = 0;
    std::uint64_t copied_end = 0;
    mutable std::uint64_t copy_until = 0;  // octets before this offset are copied (see .cpp)
  };
  // The ring of unit cuts (segment starts, increasing, at least 256 octets apart, all within
  // the window, so it never holds more than window / 256 + 1 of them). Allocated at the first cut,
  // released with the history.
  class CutRing {
   public:
    void resize(std::size_t n) { slots_ = static_cast<std::uint32_t>(n); }
    std::size_t capacity() const { return cuts_.size(); }
    bool any() const { return count_ != 0; }
    std::uint64_t first() const { return cuts_[head_]; }
    std::uint64_t last() const { return last_; }  // the latest cut (or 0)
    void pop_up_to(std::uint64_t offset) {
      while (count_ != 0 && cuts_[head_] <= offset) {
        head_ = head_ + 1 == cuts_.size() ? 0 : head_ + 1;
        --count_;
      }
    }
    void push(std::uint64_t offset) {
      if (cuts_.empty()) cuts_.resize(slots_);
      if (count_ == cuts_.size()) return;  // cannot happen (see above); units just grow
      const std::uint32_t at = head_ + count_;
      cuts_[at < cuts_.size() ? at : at - cuts_.size()] = offset;
      ++count_;
      last_ = offset;
    }
    void clear() { count_ = 0; }

   private:
    std::vector<std::uint64_t> cuts_;
    std::uint32_t slots_ = 0;  // (window / 256 + 2)
    std::uint32_t head_ = 0;
    std::uint32_t count_ = 0;
    std::uint64_t last_ = 0;
  };
  // Retransmissions beyond the window (see tcp_reassembly.cpp, "Digests"): the peer's
  // acknowledgements, and the digests of what it has not acknowledged.
  struct BeyondWindow {
    bool acks_seen = false;
    bool digesting = false;          // acks_seen, and the options allow digests
    bool reach_exceeded = false;     // on_retransmission_check_stopped was called
    TcpSeq last_ack;                 // the last ACK field seen (most segments repeat it)
    std::uint64_t acked_offset = 0;  // the peer's cumulative acknowledgement
    std::uint64_t cursor = 0;        // first octet not yet cut into a unit
    CutRing cuts;                    // segment starts that end units
    VectorQueue<Digest> digests;     // by start, disjoint, all end beyond acked_offset
  };
  // The first FIN at or beyond the in-order position (tcp_reassembly.cpp, step 5).
  struct Fin {
    std::uint64_t offset = 0;
    std::uint64_t frame = 0;
  };

  TcpSeq seq_at(std::uint64_t offset) const { return origin_ + static_cast<std::uint32_t>(offset); }
  std::uint64_t end_limit() const;
  SegmentOutcome process_data(std::int64_t start, std::span<const std::uint8_t> captured,
                              std::uint64_t missing, Call& call);
  bool buffer_out_of_order(std::uint64_t base, std::span<const std::uint8_t> captured,
                           std::uint64_t lo, std::uint64_t cap_end, std::uint64_t hi, Call& call);
  void deliver(std::span<const std::uint8_t> data, std::uint64_t frame, Call& call);
  void emit_gap(std::uint64_t length, GapCause cause, std::uint64_t frame, Call& call);
  void drain(Call& call);
  void flush_pending(GapCause cause, Call& call);
  void maybe_end_at_fin(Call& call);
  void trim_pending_to(std::uint64_t limit);
  void check_retransmission(std::uint64_t offset, std::span<const std::uint8_t> data, Call& call);
  bool check_digests(std::uint64_t offset, std::span<const std::uint8_t> data, Call& call);
  void report_mismatch(std::uint64_t offset, std::uint64_t length, Call& call,
                       MismatchEvidence evidence = MismatchEvidence::Octets);
  void remember(std::span<const std::uint8_t> data, Call& call);
  // Calls take(offset, span) with the delivered octets [from, to) (within the window) in
  // order, from the ring or read again from where they lie, until take returns false; false
  // where some could not be read again (those skipped).
  template <typename Take>
  bool kept_octets(std::uint64_t from, std::uint64_t to, Take&& take) const;
  bool digesting() const { return beyond_.digesting; }
  bool any_pending() const { return pending_ && !pending_->empty(); }
  std::map<std::uint64_t, Pending>& pieces() {
    if (!pending_) pending_ = std::make_unique<std::map<std::uint64_t, Pending>>();
    return *pending_;
  }
  // The first octet the history holds (next_offset_ when none).
  std::uint64_t history_from() const {
    return history_.runs.empty() ? next_offset_ - history_.tail : history_.runs.front().start;
  }
  // The tail as a run (see History).
  Run tail_run() const {
    return {next_offset_ - history_.tail, history_.tail, nullptr,
            history_.copied_end - history_.tail};
  }
  void keep_run(std::span<const std::uint8_t> data, std::uint64_t from, Call& call);
  void drop_history_before(std::uint64_t offset);
  void resize_copies(std::size_t capacity);
  void take_peer_ack(TcpSeq ack);
  // The peer acknowledged every delivered octet: what the history no longer needs is given
  // back.
  void release_unneeded();
  std::optional<std::uint32_t> ring_crc(std::uint64_t from, std::uint64_t to,
                                        std::span<const std::uint8_t> incoming) const;
  void digest_units_before(std::uint64_t limit, std::span<const std::uint8_t> incoming);
  void drop_digests_beyond_reach(std::uint64_t newest, Call& call);

  ReassemblyOptions options_;
  bool started_ = false;
  bool ended_ = false;
  bool fin_seen_ = false;          // fin_ holds it
  TcpSeq origin_;                  // sequence number of stream offset 0
  std::uint64_t next_offset_ = 0;  // next in-order offset to deliver
  // Out-of-order pieces by offset, disjoint; made at the first (most directions have none).
  std::unique_ptr<std::map<std::uint64_t, Pending>> pending_;
  std::size_t buffered_bytes_ = 0;  // sum of pending_ data sizes
  History history_;
  std::uint64_t highest_end_ = 0;  // end of the furthest payload seen (keep-alive test)
  BeyondWindow beyond_;
  Fin fin_;
};

}  // namespace mpa
