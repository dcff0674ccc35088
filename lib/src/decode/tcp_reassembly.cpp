// TCP reassembly of one direction of a connection (RFC 793 3.3, 3.9).
//
// The algorithm, per segment (TcpReassembler::on_segment):
//
//  1. Origin. The first SYN fixes stream offset 0 at ISN+1. Without a SYN, the first
//     segment that carries payload (or a FIN or RST, so that an end is still reported)
//     fixes offset 0 at its own sequence number. Pure ACKs never start a stream.
//  2. Unwrapping. Sequence numbers become 64-bit offsets relative to the current
//     in-order position: offset = next_offset + (seq - next_seq) as a signed 32-bit
//     distance. This is the only place sequence numbers are unwrapped, so a stream may
//     cross 0xFFFFFFFF -> 0 any number of times.
//  3. Keep-alives. A segment of 0 or 1 payload octets (and no SYN/FIN/RST) at next_seq-1
//     is a keep-alive probe; Linux fills the octet with garbage, so it is never compared
//     as a retransmission. next_seq here is either the in-order position or the end of
//     the furthest payload seen (the sender's snd_una when the capture lost data).
//  4. RST. The connection is over: every hole before buffered data is reported as a
//     NotCaptured gap, the buffered data is delivered, then the stream ends (Rst) at the
//     in-order position. An RST's payload is not stream data and is ignored.
//  5. FIN. The FIN occupies the sequence number after the segment's payload. The first
//     FIN at or beyond the in-order position is recorded; buffered data beyond it is
//     discarded, and later data beyond it is ignored. The end event (Fin) fires once,
//     when the in-order position reaches the FIN's offset.
//  6. Payload. A segment covers [start, start+captured+missing): `captured` bytes the
//     capture holds, then `missing` bytes cut by the snapshot length. It is clipped to
//     the stream's origin (bytes before it are BeforeStart) and to its end (FIN or RST),
//     then split at the in-order position:
//     a. The old part (below next_offset) was already delivered or reported as a gap.
//        Its captured bytes are compared with the history, which holds the last
//        `retransmission_window` delivered bytes (below, "History"), and, further back,
//        with the digests of octets the peer has not acknowledged (below, "Digests"); bytes
//        inside reported gaps, and older bytes nothing is kept for, cannot be compared and
//        pass silently.
//        The first difference is reported once per segment (offset of the first
//        differing byte, length of the compared region from there; for a digest, the
//        unit that differs).
//     b. If the new part starts exactly at next_offset it is delivered at once, straight
//        from the caller's buffer (the only copy is into the history, where its place in
//        the capture file is not known); its missing bytes become a Truncated gap. Then
//        buffered pieces that have become contiguous are delivered, each with the frame it
//        arrived in; a buffered piece partly overlapped by what was just delivered is
//        compared (old part) and trimmed.
//     c. Otherwise the new part is out of order. Its pieces not yet covered by buffered
//        pieces are copied into `pending_` (an ordered map of disjoint pieces; overlaps
//        with buffered bytes are compared, then trimmed). Missing bytes are buffered as
//        a truncated piece that holds no bytes.
//     d. If buffering would push the buffered bytes over `max_buffered_bytes`, nothing
//        is buffered. Instead the hole before the earliest out-of-order data (the
//        earliest buffered piece, or this segment if it comes first) is declared a
//        BufferLimit gap, the reassembler skips ahead over it, delivers what became
//        contiguous, and re-examines the segment from step 6a. Each round consumes at
//        least one buffered piece or makes the segment in order, so this terminates.
//
// finish(): end of capture. Each remaining hole becomes a NotCaptured gap followed by the
// buffered data after it; a FIN recorded but not reached is then honoured (after a final
// NotCaptured gap up to it).
//
// History: delivered octets whose place the segment names (TcpSegment::payload_source, a
// capture file read in place) are kept as that place, runs of at least kMinPlaced octets,
// and read again from it only when a retransmission is compared with them (or a digest
// computed); the others are copied into a ring sized to the copied octets the window holds
// (a capture read in place copies few, so an open connection costs little more than its runs;
// a compressed one fills the window). The history is kept whether or not the peer has
// acknowledged it: a retransmission of acknowledged octets is compared too while they are in
// the window (captures/fault-tcp.retransmission-mismatch.pcap). Copying every octet was the
// analysis's first touch of most of them: where the CRC of an FPDU comes with its segment, the
// analysis reads little more than the FPDU headers and markers. A direction whose octets had to be
// read again copies them for a while (copy_after_reading_again), so that a capture full of
// retransmissions is not read twice. Octets that cannot be read again (the file shrank)
// are not compared, nor digested; a file rewritten while it is read gives its new octets.
//
// Digests: TCP may retransmit any octet the peer has not acknowledged, however long ago it
// was first sent (a window of several MiB is common). Octets are kept only for the recent
// window; an octet that leaves the ring while still unacknowledged (the peer's cumulative
// ACK, fed by on_peer_ack from the other direction's segments) leaves a CRC32c digest of
// its unit behind. Units tile the delivered stream: a unit ends at every multiple of
// 1 KiB, at each delivered segment's start (unless that would leave a unit shorter than
// 256 octets) and before a gap. So a retransmission that repeats the original segments
// (what stacks do) covers whole units, and one cut differently, or a piece of a large
// (TSO/GRO) segment, still covers the whole 1 KiB units inside it; only units a
// retransmission covers entirely are compared, a part of one cannot be (its octets are
// gone). A digest is dropped once the peer acknowledges its unit: a retransmission of
// acknowledged octets is compared only while they are in the ring. Memory is bounded by
// `retransmission_reach`: digests more than that far behind the newest octet are dropped
// and the sink is told once (the check stopped short of the peer's acknowledgement).
// Digests are computed only for octets that leave the ring unacknowledged, so a peer that
// acknowledges within the window costs nothing. Without any acknowledgement seen (a capture
// of one direction) nothing is digested: it is not known what TCP could still resend.
//
// Invariant: every stream offset below next_offset was reported exactly once, either in
// on_stream_data or inside on_stream_gap; nothing is dropped silently.
#include "mpa/tcp_reassembly.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <utility>

#include "mpa/crc32c.h"

namespace mpa {

namespace {

constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();
// The smallest window with which retransmissions beyond it are digested.
constexpr std::size_t kMinHistory = 4096;
// The ring of copied octets is not shrunk below this (nor while it is this small, so that a
// direction copying a few small segments now and then does not allocate each time).
constexpr std::size_t kSmallCopies = 4096;
// Digest units: never across a multiple of kUnitGrid; a segment's start ends the unit
// before it only if that unit has kMinUnit octets (so tiny segments cost no more memory
// than 1 KiB / kMinUnit digests per KiB).
constexpr std::uint64_t kUnitGrid = 1024;
constexpr std::uint64_t kMinUnit = 256;
// History: runs of delivered octets at least this long are kept as their place in the
// capture (after octets were read again, the direction's next ones are copied for a while:
// ReassemblyOptions::copy_after_reading_again). Every run: a short segment copied cost more
// (its copy, the ring's room) than its place (a run of 32 octets), measured on row (a) of
// mpa_check_bench (256 before).
constexpr std::size_t kMinPlaced = 1;

// Copies `len` bytes (len <= size) into the ring of `size` at the position of `offset`.
void ring_write(std::uint8_t* ring, std::size_t size, std::uint64_t offset, const std::uint8_t* src,
                std::size_t len) {
  const std::size_t pos = static_cast<std::size_t>(offset % size);
  const std::size_t first = std::min(len, size - pos);
  std::memcpy(ring + pos, src, first);
  if (len > first) std::memcpy(ring, src + first, len - first);
}

// Index of the first byte of `a` differing from `b`, or `len` if none.
std::size_t first_difference(const std::uint8_t* a, const std::uint8_t* b, std::size_t len) {
  if (std::memcmp(a, b, len) == 0) return len;
  std::size_t i = 0;
  while (a[i] == b[i]) ++i;
  return i;
}

// Walks [lo, hi) against a map of disjoint pieces keyed by offset: calls
// on_free(a, b) for each subrange no piece covers and on_covered(a, b, piece_offset, piece)
// for each covered one, in offset order. on_free may insert into the map at `a`.
template <typename Map, typename Free, typename Covered>
void walk_pieces(Map& pieces, std::uint64_t lo, std::uint64_t hi, Free&& on_free,
                 Covered&& on_covered) {
  auto it = pieces.upper_bound(lo);
  if (it != pieces.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second.length() > lo) it = prev;
  }
  std::uint64_t cur = lo;
  while (cur < hi) {
    if (it == pieces.end() || it->first >= hi) {
      on_free(cur, hi);
      break;
    }
    if (it->first > cur) {
      on_free(cur, it->first);
      cur = it->first;
    }
    const std::uint64_t covered_end = std::min(hi, it->first + it->second.length());
    on_covered(cur, covered_end, it->first, it->second);
    cur = covered_end;
    ++it;
  }
}

}  // namespace

struct TcpReassembler::Call {
  std::uint64_t frame;
  StreamSink& sink;
  bool mismatch_reported = false;
  // The segment's payload, and where its source can read it again (source nullptr: nowhere).
  std::span<const std::uint8_t> payload{};
  const OctetSource* source = nullptr;
  std::uint64_t at = 0;
};

TcpReassembler::TcpReassembler(ReassemblyOptions options) : options_(options) {}

std::uint64_t TcpReassembler::end_limit() const {
  if (ended_) return next_offset_;
  if (fin_seen_) return fin_.offset;
  return kNoLimit;
}

void TcpReassembler::take_peer_ack(TcpSeq ack) {
  if (!started_) return;  // no origin yet to place it
  beyond_.last_ack = ack;
  if (!beyond_.acks_seen) {
    beyond_.acks_seen = true;
    beyond_.digesting = options_.retransmission_window >= kMinHistory &&
                        options_.retransmission_reach > options_.retransmission_window;
    if (beyond_.digesting) beyond_.cuts.resize(options_.retransmission_window / kMinUnit + 2);
  }
  const std::int64_t at =
      static_cast<std::int64_t>(next_offset_) + ack.signed_distance_from(next_seq());
  // Not beyond what the sender was seen to send (and its FIN): a wild ACK would otherwise
  // switch the comparison off for data still to come.
  const std::uint64_t sent = std::max(next_offset_, highest_end_) + 1;
  const std::uint64_t offset =
      std::min<std::uint64_t>(static_cast<std::uint64_t>(std::max<std::int64_t>(at, 0)), sent);
  if (offset <= beyond_.acked_offset) return;
  beyond_.acked_offset = offset;
  while (!beyond_.digests.empty() &&
         beyond_.digests.front().start + beyond_.digests.front().length <= beyond_.acked_offset) {
    beyond_.digests.pop_front();
  }
  // (The ring is kept although the peer acknowledged it all: a differing retransmission of
  // acknowledged octets is found while they are in it, captures/fault-tcp.retransmission-
  // mismatch.pcap. What it no longer needs is given back.)
  if (offset >= next_offset_) release_unneeded();
}

// Every delivered octet is acknowledged: no digest is owed, and their queue is given back (an
// idle connection, most of those open at once, should cost little).
void TcpReassembler::release_unneeded() {
  beyond_.digests.release();  // (all popped above)
}

SegmentOutcome TcpReassembler::on_segment(const TcpSegment& segment, StreamSink& sink) {
  const bool syn = (segment.flags & tcp_flags::kSyn) != 0;
  const bool fin = (segment.flags & tcp_flags::kFin) != 0;
  const bool rst = (segment.flags & tcp_flags::kRst) != 0;
  const std::uint64_t total = segment.payload.size() + segment.payload_missing;
  // The SYN occupies one sequence number; its payload (if any) follows it.
  const TcpSeq data_seq = segment.seq + (syn ? 1u : 0u);

  if (!started_) {
    if (!syn && total == 0 && !fin && !rst) return SegmentOutcome::Control;
    origin_ = data_seq;
    started_ = true;
  }
  Call call{segment.frame,     sink, false, segment.payload, segment.payload_source,
            segment.payload_at};

  if (!syn && !fin && !rst && total <= 1 &&
      (segment.seq == next_seq() - 1 || segment.seq == seq_at(highest_end_) - 1)) {
    return SegmentOutcome::KeepAlive;
  }

  if (rst) {
    if (!ended_) {
      flush_pending(GapCause::NotCaptured, call);
      if (!ended_) {  // flushing may have reached a recorded FIN
        sink.on_stream_end(next_offset_, next_seq(), StreamEnd::Rst, segment.frame);
        ended_ = true;
      }
    }
    return SegmentOutcome::Control;
  }

  const std::int64_t start =
      static_cast<std::int64_t>(next_offset_) + data_seq.signed_distance_from(next_seq());
  if (fin && !fin_seen_ && !ended_) {
    const std::int64_t fin_at = start + static_cast<std::int64_t>(total);
    // A FIN before bytes already delivered contradicts the stream; it cannot end it.
    if (fin_at >= static_cast<std::int64_t>(next_offset_)) {
      fin_seen_ = true;
      fin_.offset = static_cast<std::uint64_t>(fin_at);
      fin_.frame = segment.frame;
      trim_pending_to(fin_.offset);
    }
  }

  SegmentOutcome outcome = SegmentOutcome::Control;
  if (total > 0) {
    outcome = process_data(start, segment.payload, segment.payload_missing, call);
  }
  maybe_end_at_fin(call);  // a bare FIN at the in-order position
  return outcome;
}

SegmentOutcome TcpReassembler::process_data(std::int64_t start,
                                            std::span<const std::uint8_t> captured,
                                            std::uint64_t missing, Call& call) {
  const std::uint64_t total = captured.size() + missing;
  if (start + static_cast<std::int64_t>(total) <= 0) return SegmentOutcome::BeforeStart;
  if (start < 0) {  // straddles the origin: keep the part from offset 0 on
    const std::uint64_t cut = static_cast<std::uint64_t>(-start);
    if (cut >= captured.size()) {
      missing -= cut - captured.size();
      captured = {};
    } else {
      captured = captured.subspan(cut);
    }
    start = 0;
  }

  const std::uint64_t base = static_cast<std::uint64_t>(start);  // offset of captured[0]
  std::uint64_t lo = base;
  std::uint64_t hi = std::min(base + captured.size() + missing, end_limit());
  const std::uint64_t cap_end = std::min(base + captured.size(), hi);
  highest_end_ = std::max(highest_end_, hi);
  auto bytes = [&](std::uint64_t from, std::uint64_t to) {
    return captured.subspan(from - base, to - from);
  };

  bool old = false;
  bool delivered = false;
  bool buffered = false;
  bool over_limit = false;
  while (lo < hi) {
    if (lo < next_offset_) {  // 6a: already delivered or reported as a gap
      const std::uint64_t old_end = std::min(hi, next_offset_);
      if (lo < cap_end) check_retransmission(lo, bytes(lo, std::min(cap_end, old_end)), call);
      old = true;
      lo = old_end;
      continue;
    }
    if (lo == next_offset_) {  // 6b: in order
      if (lo < cap_end) deliver(bytes(lo, cap_end), call.frame, call);
      if (hi > next_offset_) emit_gap(hi - next_offset_, GapCause::Truncated, call.frame, call);
      drain(call);
      delivered = true;
      break;
    }
    // 6c: out of order.
    std::uint64_t new_bytes = 0;
    if (lo < cap_end) {
      walk_pieces(
          pieces(), lo, cap_end, [&](std::uint64_t a, std::uint64_t b) { new_bytes += b - a; },
          [](std::uint64_t, std::uint64_t, std::uint64_t, const Pending&) {});
    }
    if (buffered_bytes_ + new_bytes <= options_.max_buffered_bytes) {
      if (buffer_out_of_order(base, captured, lo, cap_end, hi, call)) {
        buffered = true;
      } else {
        old = true;  // a duplicate of buffered data
      }
      break;
    }
    // 6d: over the ceiling; skip ahead over the earliest hole and look again.
    over_limit = true;
    if (!any_pending() || lo < pending_->begin()->first) {
      emit_gap(lo - next_offset_, GapCause::BufferLimit, call.frame, call);
    } else {
      emit_gap(pending_->begin()->first - next_offset_, GapCause::BufferLimit, call.frame, call);
      drain(call);
    }
  }

  if (call.mismatch_reported) return SegmentOutcome::RetransmissionMismatch;
  if (over_limit) return SegmentOutcome::DroppedOverLimit;
  if (delivered) return SegmentOutcome::Delivered;
  if (buffered) return SegmentOutcome::Buffered;
  if (old) return SegmentOutcome::Retransmission;
  return SegmentOutcome::Control;  // all of it lay beyond the end of the stream
}

bool TcpReassembler::buffer_out_of_order(std::uint64_t base, std::span<const std::uint8_t> captured,
                                         std::uint64_t lo, std::uint64_t cap_end, std::uint64_t hi,
                                         Call& call) {
  bool inserted = false;
  if (lo < cap_end) {
    walk_pieces(
        pieces(), lo, cap_end,
        [&](std::uint64_t a, std::uint64_t b) {
          const auto* p = captured.data() + (a - base);
          Pending piece;
          piece.data.assign(p, p + (b - a));
          piece.frame = call.frame;
          pending_->emplace(a, std::move(piece));
          buffered_bytes_ += b - a;
          inserted = true;
        },
        [&](std::uint64_t a, std::uint64_t b, std::uint64_t piece_offset, const Pending& piece) {
          // Compare with bytes buffered earlier; a truncated piece holds none.
          if (piece.data.empty() || call.mismatch_reported) return;
          const std::size_t len = b - a;
          const std::size_t diff = first_difference(captured.data() + (a - base),
                                                    piece.data.data() + (a - piece_offset), len);
          if (diff < len) report_mismatch(a + diff, len - diff, call);
        });
  }
  const std::uint64_t gap_lo = std::max(lo, cap_end);
  if (gap_lo < hi) {
    walk_pieces(
        pieces(), gap_lo, hi,
        [&](std::uint64_t a, std::uint64_t b) {
          Pending piece;
          piece.truncated = b - a;
          piece.frame = call.frame;
          pending_->emplace(a, std::move(piece));
          inserted = true;
        },
        [](std::uint64_t, std::uint64_t, std::uint64_t, const Pending&) {});
  }
  return inserted;
}

void TcpReassembler::deliver(std::span<const std::uint8_t> data, std::uint64_t frame, Call& call) {
  if (data.empty()) return;
  call.sink.on_stream_data(next_offset_, next_seq(), data, frame);
  remember(data, call);
  next_offset_ += data.size();
}

void TcpReassembler::emit_gap(std::uint64_t length, GapCause cause, std::uint64_t frame,
                              Call& call) {
  if (length == 0) return;
  // The ring is given up below (it holds no bytes for the gap): what it holds that the peer
  // may still have resent is digested first, its last unit ending where the gap starts.
  if (digesting()) digest_units_before(next_offset_, {});
  call.sink.on_stream_gap(next_offset_, next_seq(), length, cause, frame);
  next_offset_ += length;
  // The ring holds no bytes for the gap; nothing before it can be compared reliably
  // without tracking holes in the history, so comparisons restart here.
  history_.runs.clear();
  history_.tail = 0;
  history_.copied = 0;
  beyond_.cursor = next_offset_;
  beyond_.cuts.clear();
}

void TcpReassembler::drain(Call& call) {
  while (any_pending() && !ended_) {
    auto it = pending_->begin();
    const std::uint64_t offset = it->first;
    if (offset > next_offset_) break;
    Pending& piece = it->second;
    const std::uint64_t end = offset + piece.length();
    const std::uint64_t skip = std::min(end, next_offset_) - offset;  // already delivered
    const std::span<const std::uint8_t> data(piece.data);
    if (!data.empty()) {
      if (skip > 0) check_retransmission(offset, data.first(skip), call);
      deliver(data.subspan(skip), piece.frame, call);
    } else if (end > next_offset_) {
      emit_gap(end - next_offset_, GapCause::Truncated, piece.frame, call);
    }
    buffered_bytes_ -= piece.data.size();
    pending_->erase(it);
    maybe_end_at_fin(call);
  }
}

void TcpReassembler::flush_pending(GapCause cause, Call& call) {
  while (any_pending() && !ended_) {
    emit_gap(pending_->begin()->first - next_offset_, cause, call.frame, call);
    drain(call);
  }
}

void TcpReassembler::maybe_end_at_fin(Call& call) {
  if (!fin_seen_ || ended_ || next_offset_ != fin_.offset) return;
  call.sink.on_stream_end(fin_.offset, seq_at(fin_.offset), StreamEnd::Fin, fin_.frame);
  ended_ = true;
  pending_.reset();  // trimmed to the FIN already; nothing can remain, but be certain
  buffered_bytes_ = 0;
}

void TcpReassembler::trim_pending_to(std::uint64_t limit) {
  if (!any_pending()) return;
  auto it = pending_->lower_bound(limit);
  for (auto drop = it; drop != pending_->end(); ++drop) buffered_bytes_ -= drop->second.data.size();
  pending_->erase(it, pending_->end());
  if (pending_->empty()) return;
  auto& [offset, piece] = *std::prev(pending_->end());
  if (offset + piece.length() <= limit) return;
  if (!piece.data.empty()) {
    buffered_bytes_ -= piece.data.size() - (limit - offset);
    piece.data.resize(limit - offset);
  } else {
    piece.truncated = limit - offset;
  }
}

void TcpReassembler::check_retransmission(std::uint64_t offset, std::span<const std::uint8_t> data,
                                          Call& call) {
  if (call.mismatch_reported) return;
  if (!beyond_.digests.empty() &&
      offset < beyond_.digests.back().start + beyond_.digests.back().length &&
      check_digests(offset, data, call)) {
    return;
  }
  const std::uint64_t a = std::max(offset, history_from());
  const std::uint64_t b = std::min(offset + data.size(), next_offset_);
  if (a >= b) return;  // older than the window, or inside a reported gap
  kept_octets(a, b, [&](std::uint64_t at, std::span<const std::uint8_t> kept) {
    const std::size_t diff =
        first_difference(data.data() + (at - offset), kept.data(), kept.size());
    if (diff < kept.size()) {
      report_mismatch(at + diff, b - (at + diff), call);
      return false;
    }
    return true;
  });
}

template <typename Take>
bool TcpReassembler::kept_octets(std::uint64_t from, std::uint64_t to, Take&& take) const {
  bool whole = true;
  std::uint64_t cur = from;
  // Passes the octets of `run` from `cur` on (up to `to`) to take; false when take stopped.
  const auto visit = [&](const Run& run) {
    const std::uint64_t end = std::min(to, run.start + run.length);
    if (run.source != nullptr) {
      // (One buffer a thread, not one a direction: few directions ever read octets again.)
      thread_local std::vector<std::uint8_t> read_again;
      read_again.resize(static_cast<std::size_t>(end - cur));
      if (run.source->read_again(run.at + (cur - run.start), read_again)) {
        history_.copy_until = next_offset_ + options_.copy_after_reading_again;
        if (!take(cur, std::span<const std::uint8_t>(read_again))) return false;
      } else {
        whole = false;  // (the file no longer holds them: skipped)
      }
      cur = end;
      return true;
    }
    while (cur < end) {  // copied: up to two pieces of the ring
      const std::size_t pos =
          static_cast<std::size_t>((run.at + (cur - run.start)) % history_.capacity);
      const std::size_t len =
          static_cast<std::size_t>(std::min<std::uint64_t>(end - cur, history_.capacity - pos));
      if (!take(cur, std::span<const std::uint8_t>(history_.copies.get() + pos, len))) {
        return false;
      }
      cur += len;
    }
    return true;
  };
  // The first run that ends after `from`, then the tail.
  const auto& runs = history_.runs;
  auto run = std::upper_bound(runs.begin(), runs.end(), from,
                              [](std::uint64_t at, const Run& r) { return at < r.start; });
  if (run != runs.begin() && std::prev(run)->start + std::prev(run)->length > from) --run;
  for (; run != runs.end() && cur < to; ++run) {
    if (run->start > cur) return false;  // (cannot be: the runs tile the history)
    if (!visit(*run)) return whole;
  }
  if (cur < to) {
    const Run last = tail_run();
    if (last.length == 0 || last.start > cur) return false;  // (cannot be, as above)
    if (!visit(last)) return whole;
  }
  return whole;
}

// Compares the units `data` (at `offset`) covers entirely with their digests; true when one
// differs (reported). Units partly covered are skipped: their octets are gone.
bool TcpReassembler::check_digests(std::uint64_t offset, std::span<const std::uint8_t> data,
                                   Call& call) {
  const std::uint64_t end = std::min(offset + data.size(), next_offset_);
  auto it = std::lower_bound(beyond_.digests.begin(), beyond_.digests.end(), offset,
                             [](const Digest& d, std::uint64_t at) { return d.start < at; });
  for (; it != beyond_.digests.end() && it->start + it->length <= end; ++it) {
    if (crc32c(data.subspan(it->start - offset, it->length)) != it->crc) {
      report_mismatch(it->start, it->length, call, MismatchEvidence::Digest);
      return true;
    }
  }
  return false;
}

void TcpReassembler::report_mismatch(std::uint64_t offset, std::uint64_t length, Call& call,
                                     MismatchEvidence evidence) {
  if (call.mismatch_reported) return;
  call.mismatch_reported = true;
  const auto len32 = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(length, std::numeric_limits<std::uint32_t>::max()));
  call.sink.on_retransmission_mismatch(offset, seq_at(offset), len32, evidence, call.frame);
}

// CRC32c of the delivered octets [from, to): those below next_offset_ from the history
// (which must hold them), the rest from `incoming` (the octets at next_offset_ being
// delivered). nullopt where the history's octets could not be read again.
std::optional<std::uint32_t> TcpReassembler::ring_crc(
    std::uint64_t from, std::uint64_t to, std::span<const std::uint8_t> incoming) const {
  std::uint32_t state = kCrc32cInit;
  const std::uint64_t kept_to = std::min(to, next_offset_);
  if (from < kept_to &&
      !kept_octets(from, kept_to, [&](std::uint64_t, std::span<const std::uint8_t> kept) {
        state = crc32c_update(state, kept);
        return true;
      })) {
    return std::nullopt;
  }
  if (to > next_offset_) {
    const std::uint64_t lo = std::max(from, next_offset_);
    state = crc32c_update(state, incoming.subspan(static_cast<std::size_t>(lo - next_offset_),
                                                  static_cast<std::size_t>(to - lo)));
  }
  return crc32c_finish(state);
}

// Cuts the octets from the digest cursor up to `limit` (which are about to leave the ring)
// into units and keeps a digest of each unit the peer has not acknowledged entirely. The
// last unit may end past `limit`, within the ring or `incoming`.
void TcpReassembler::digest_units_before(std::uint64_t limit,
                                         std::span<const std::uint8_t> incoming) {
  std::uint64_t cur = std::max(beyond_.cursor, history_from());
  if (beyond_.acked_offset >= limit) {  // all acknowledged: nothing to keep
    cur = std::max(cur, limit);
  }
  const std::uint64_t available = next_offset_ + incoming.size();
  while (cur < limit) {
    beyond_.cuts.pop_up_to(cur);
    std::uint64_t end = std::min(cur - cur % kUnitGrid + kUnitGrid, available);
    if (beyond_.cuts.any()) end = std::min(end, beyond_.cuts.first());
    if (end > beyond_.acked_offset) {
      // (A unit whose octets could not be read again is not kept: it cannot be compared.)
      if (const std::optional<std::uint32_t> crc = ring_crc(cur, end, incoming)) {
        beyond_.digests.push_back({cur, static_cast<std::uint32_t>(end - cur), *crc});
      }
    }
    cur = end;
  }
  beyond_.cuts.pop_up_to(cur);
  beyond_.cursor = std::max(beyond_.cursor, cur);
}

// Keeps digests within `retransmission_reach` of `newest`; the first one dropped (it was
// unacknowledged) is told to the sink, once.
void TcpReassembler::drop_digests_beyond_reach(std::uint64_t newest, Call& call) {
  const std::uint64_t reach = options_.retransmission_reach;
  if (newest <= reach) return;
  const std::uint64_t floor = newest - reach;
  std::uint64_t dropped_to = 0;
  while (!beyond_.digests.empty() && beyond_.digests.front().start < floor) {
    dropped_to = beyond_.digests.front().start + beyond_.digests.front().length;
    beyond_.digests.pop_front();
  }
  if (dropped_to == 0 || beyond_.reach_exceeded) return;
  beyond_.reach_exceeded = true;
  call.sink.on_retransmission_check_stopped(dropped_to, seq_at(dropped_to), call.frame);
}

// Appends delivered bytes (at next_offset_) to the history, which keeps the last
// retransmission_window of them; octets that leave it (or never fit) are digested first while
// unacknowledged. Called before next_offset_ advances.
void TcpReassembler::remember(std::span<const std::uint8_t> data, Call& call) {
  const std::size_t window = options_.retransmission_window;
  if (window == 0) return;
  // What the history holds after this write starts here; octets before it leave.
  const std::uint64_t end = next_offset_ + data.size();
  const std::uint64_t kept_from = std::max(history_from(), end > window ? end - window : 0);
  if (digesting()) {
    // This segment's start ends the unit before it, unless that unit would be too short.
    // (The unit would start at the latest of the last cut, the grid line and the cursor.)
    const std::uint64_t at = next_offset_;
    if (at % kUnitGrid >= kMinUnit && at - beyond_.cuts.last() >= kMinUnit &&
        at >= beyond_.cursor + kMinUnit)
      beyond_.cuts.push(at);
    if (kept_from > beyond_.cursor) {
      if (beyond_.acked_offset >=
          kept_from) {  // all acknowledged (the usual case): nothing to keep
        beyond_.cursor = kept_from;
        beyond_.cuts.pop_up_to(kept_from);
      } else {
        digest_units_before(kept_from, data);
      }
    }
    if (!beyond_.digests.empty()) drop_digests_beyond_reach(end, call);
  }
  drop_history_before(kept_from);
  keep_run(data, std::max(kept_from, next_offset_), call);
}

// Keeps the delivered octets `data` (at next_offset_) from offset `from` on as a run: as their
// place in the capture, or copied.
void TcpReassembler::keep_run(std::span<const std::uint8_t> data, std::uint64_t from, Call& call) {
  const std::span<const std::uint8_t> kept =
      data.subspan(static_cast<std::size_t>(from - next_offset_));
  auto& runs = history_.runs;
  if (call.source != nullptr && data.size() >= kMinPlaced && next_offset_ >= history_.copy_until &&
      octets_within(data, call.payload)) {
    const std::uint64_t at =
        call.at + static_cast<std::uint64_t>(kept.data() - call.payload.data());
    if (history_.tail != 0) {  // the copied octets before it become a run
      runs.push_back(tail_run());
      history_.tail = 0;
    }
    if (!runs.empty() && runs.back().source == call.source &&
        runs.back().at + runs.back().length == at) {
      runs.back().length += kept.size();
    } else {
      runs.push_back({from, kept.size(), call.source, at});
    }
    return;
  }
  const std::size_t need = history_.copied + kept.size();  // (never over the window)
  if (need > history_.capacity) {
    resize_copies(std::max(need, std::min(options_.retransmission_window, 2 * history_.capacity)));
  }
  ring_write(history_.copies.get(), history_.capacity, history_.copied_end, kept.data(),
             kept.size());
  history_.tail += kept.size();
  history_.copied_end += kept.size();
  history_.copied = need;
}

// The history lets go of the octets before `offset`; its ring of copies shrinks when a quarter
// of it is in use.
void TcpReassembler::drop_history_before(std::uint64_t offset) {
  auto& runs = history_.runs;
  while (!runs.empty() && runs.front().start < offset) {
    Run& run = runs.front();
    const std::uint64_t cut = std::min(offset - run.start, run.length);
    if (run.source == nullptr) history_.copied -= static_cast<std::size_t>(cut);
    if (cut == run.length) {
      runs.pop_front();
    } else {
      run.start += cut;
      run.length -= cut;
      run.at += cut;
    }
  }
  if (runs.empty() && history_.tail != 0) {
    const std::uint64_t tail_start = next_offset_ - history_.tail;
    if (tail_start < offset) {
      const std::size_t cut =
          static_cast<std::size_t>(std::min<std::uint64_t>(offset - tail_start, history_.tail));
      history_.tail -= cut;
      history_.copied -= cut;
    }
  }
  if (history_.capacity > kSmallCopies && history_.copied <= history_.capacity / 4) {
    resize_copies(history_.capacity / 2);
  }
}

// The ring of copies at `capacity` octets (at least those held), its octets laid out again.
void TcpReassembler::resize_copies(std::size_t capacity) {
  // (Slots are written before they are read: never initialised.)
  std::unique_ptr<std::uint8_t[]> ring(new std::uint8_t[capacity]);
  const std::uint64_t end = history_.copied_end;
  for (std::uint64_t cur = end - history_.copied; cur < end;) {
    const std::size_t pos = static_cast<std::size_t>(cur % history_.capacity);
    const std::size_t len =
        static_cast<std::size_t>(std::min<std::uint64_t>(end - cur, history_.capacity - pos));
    ring_write(ring.get(), capacity, cur, history_.copies.get() + pos, len);
    cur += len;
  }
  history_.copies.swap(ring);
  history_.capacity = capacity;
}

void TcpReassembler::finish(std::uint64_t frame, StreamSink& sink) {
  if (!started_ || ended_) return;
  Call call{frame, sink};
  flush_pending(GapCause::NotCaptured, call);
  if (fin_seen_ && !ended_) {
    emit_gap(fin_.offset - next_offset_, GapCause::NotCaptured, frame, call);
    maybe_end_at_fin(call);
  }
}

}  // namespace mpa
