// One direction's DDP Stream of RDMAP messages, checked segment by segment (see ddp_stream.h).
#include "ulp/ddp_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "decode/byte_order.h"
#include "ulp/ddp_field_checks.h"

namespace mpa {

namespace {

using ddp_fields::field_faults;
using ddp_fields::fields_plain;
using ddp_fields::queue_of;

// What a conforming receiver answers an untagged DDP error with (RFC 5041 7.2, carried in a
// Terminate's layer 1 as RFC 5040 4.8 Figure 9 says).
std::string ddp_terminate(unsigned code, const char* name) {
  return fmt::format(
      "a conforming receiver answers with a Terminate of layer 1 (DDP), error type "
      "2 (untagged buffer), code 0x{:02x} ({}): RFC 5041 7.2",
      code, name);
}

}  // namespace

DdpStream::DdpStream(bool from_start) {
  for (Queue& q : queues_) q.known = from_start;
  tagged_.known = from_start;
}

void DdpStream::lose() {
  for (Queue& q : queues_) q = Queue{};
  tagged_ = Tagged{};
}

void DdpStream::say(DiagId id, const FpduEvent& fpdu, std::string message,
                    std::vector<Finding>& out) {
  say_at(id, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu), std::move(message), out);
}

void DdpStream::say_at(DiagId id, std::uint64_t frame, TcpSeq seq, std::uint64_t offset,
                       std::string message, std::vector<Finding>& out) {
  if (!said_.first(id)) return;
  out.push_back(
      make_finding(id, frame, seq, offset, std::move(message) + " (first of this direction)"));
}

void DdpStream::close(std::uint64_t frame, TcpSeq seq, std::uint64_t offset,
                      std::vector<Finding>& out) {
  if (terminated_) return;  // a Terminate ended the stream (RFC 5040 5.4): nothing more is due
  for (std::uint32_t i = 0; i < kDdpQueues; ++i) {
    const Queue& q = queues_[i];
    if (!q.whole || q.segments == 0) continue;
    if (q.open) {
      say_at(DiagId::DdpMessageOpenAtClose, frame, seq, offset,
             fmt::format("the sender closed at seq {} while queue {} message MSN {} (first segment "
                         "in frame {}, {} segments, MO up to {}) had no segment with the Last flag",
                         seq.value(), i, q.msn, q.first_frame, q.segments, q.end),
             out);
    } else if (!covered(q)) {
      say_at(DiagId::DdpMoInvalid, frame, seq, offset,
             fmt::format("the sender closed at seq {} with queue {} message MSN {} (first segment "
                         "in frame {}) closed by its Last flag: {}; {}",
                         seq.value(), i, q.msn, q.first_frame, mo_fault(q),
                         ddp_terminate(0x04, "invalid MO")),
             out);
    }
  }
  if (tagged_.open && tagged_.whole) {
    say_at(DiagId::DdpMessageOpenAtClose, frame, seq, offset,
           fmt::format("the sender closed at seq {} while its tagged {} to STag 0x{:08x} ({} "
                       "segments) had no segment with the Last flag",
                       seq.value(), rdmap_opcode_words(tagged_.opcode), tagged_.stag,
                       tagged_.segments),
           out);
  }
}

namespace {
using Run = std::pair<std::uint64_t, std::uint64_t>;  // octets [first, second)

// Whether [lo, hi) shares octets with one of `runs`' first n.
bool overlaps(const Run* runs, std::size_t n, std::uint64_t lo, std::uint64_t hi) {
  for (std::size_t i = 0; i < n; ++i) {
    if (lo < runs[i].second && hi > runs[i].first) return true;
  }
  return false;
}

// Adds [lo, hi), which overlaps none, to the n runs (in order, adjacent ones joined) of the
// `capacity` `runs` holds; false (nothing added) where it would be one run too many.
bool add_run(Run* runs, std::uint8_t& n, std::size_t capacity, std::uint64_t lo, std::uint64_t hi) {
  // (The common cases first: a message's first payload, and one that goes on where the last
  // run ends.)
  if (n == 0) {
    runs[0] = {lo, hi};
    n = 1;
    return true;
  }
  if (runs[n - 1].second == lo) {
    runs[n - 1].second = hi;
    return true;
  }
  // Where the run goes (the runs in order), joined to its neighbours.
  std::size_t at = 0;
  while (at < n && runs[at].second < lo) ++at;
  if (at < n && runs[at].second == lo) {
    runs[at].second = hi;
    if (at + 1 < n && runs[at + 1].first == hi) {
      runs[at].second = runs[at + 1].second;
      std::copy(runs + at + 2, runs + n, runs + at + 1);
      --n;
    }
  } else if (at < n && runs[at].first == hi) {
    runs[at].first = lo;
  } else if (n == capacity) {
    return false;
  } else {
    std::copy_backward(runs + at, runs + n, runs + n + 1);
    runs[at] = {lo, hi};
    ++n;
  }
  return true;
}
}  // namespace

void DdpStream::cover(Queue& q, std::uint64_t mo, std::uint64_t end) {
  q.end = std::max(q.end, end);
  if (mo == end) return;  // no payload
  q.overlap |= overlaps(q.runs.data(), q.run_count, mo, end);
  if (q.overlap || q.too_many_runs) return;
  if (!add_run(q.runs.data(), q.run_count, Queue::kRuns, mo, end)) q.too_many_runs = true;
}

namespace {
// What is wrong with a message's MOs, `covered` being false.
template <typename Q>
std::string mo_fault_of(const Q& q) {
  if (q.overlap) {
    return "two of its segments carry payload for the same MOs (RFC 5041 5.2: each MO is its "
           "payload's offset in the message)";
  }
  if (q.end > q.last_end) {
    return fmt::format(
        "a segment reaches MO {}, beyond the end {} of the segment with the Last flag (RFC "
        "5041 4.1: the Last segment carries the highest MO)",
        q.end, q.last_end);
  }
  if (q.run_count == 0 || q.runs[0].first != 0) {
    return fmt::format(
        "no segment carries its first octet, MO 0 (RFC 5041 4.3){}",
        q.run_count == 0 ? std::string() : fmt::format(": its lowest MO is {}", q.runs[0].first));
  }
  return fmt::format(
      "its segments leave MOs {} to {} of its {} octets uncovered (RFC 5041 5.2: each MO is its "
      "payload's offset in the message)",
      q.runs[0].second, q.run_count > 1 ? q.runs[1].first : q.last_end, q.last_end);
}
}  // namespace

std::string DdpStream::mo_fault(const Queue& q) { return mo_fault_of(q); }

void DdpStream::judge_mos(std::uint32_t queue, const Queue& q, const FpduEvent& fpdu,
                          std::vector<Finding>& out) {
  if (!q.whole || q.segments == 0 || covered(q)) return;
  say(DiagId::DdpMoInvalid, fpdu,
      fmt::format(
          "queue {} message MSN {} (first segment in frame {}), closed by its Last flag, is "
          "followed at seq {} by MSN {}: {}; {}",
          queue, q.msn, q.first_frame, fpdu.header_seq.value(), q.msn + 1, mo_fault(q),
          ddp_terminate(0x04, "invalid MO")),
      out);
}

void DdpStream::late_segment(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload,
                             Queue& q, std::vector<Finding>& out) {
  const std::uint64_t end = std::uint64_t{ddp.mo} + payload;
  if (end > q.last_end) {
    say(DiagId::DdpMoInvalid, fpdu,
        fmt::format("queue {} MSN {} segment at seq {} (MO {}, {} octets) comes after the "
                    "message's Last segment and reaches beyond its end {} (RFC 5041 4.1: the Last "
                    "segment carries the highest MO); {}",
                    ddp.queue, ddp.msn, fpdu.header_seq.value(), ddp.mo, payload, q.last_end,
                    ddp_terminate(0x04, "invalid MO")),
        out);
  } else {
    say(DiagId::DdpSegmentsOutOfOrder, fpdu,
        fmt::format("queue {} MSN {} segment at seq {} (MO {}) sent after the message's Last "
                    "segment",
                    ddp.queue, ddp.msn, fpdu.header_seq.value(), ddp.mo),
        out);
  }
  cover(q, ddp.mo, end);
  ++q.segments;
}

void DdpStream::check(const FpduEvent& fpdu, const DdpHeader& ddp,
                      std::span<const std::uint8_t> head, std::uint32_t ulpdu_size,
                      std::vector<Finding>& out) {
  const std::uint64_t seq = fpdu.header_seq.value();
  if (terminated_) {
    say(DiagId::RdmapAfterTerminate, fpdu,
        fmt::format("{} at seq {} after this direction's Terminate (RFC 5040 5.4: no more "
                    "Messages on the stream)",
                    rdmap_opcode_words(ddp.opcode), seq),
        out);
  }
  if (!fields_plain(ddp, head, ddp_version_)) check_fields(fpdu, ddp, head, out);
  const std::uint32_t payload = ulpdu_size > ddp.header_size ? ulpdu_size - ddp.header_size : 0;
  if (ddp.tagged) {
    check_tagged(fpdu, ddp, payload, out);
  } else {
    check_untagged(fpdu, ddp, payload, out);
  }
  if (!ddp.tagged && ddp.opcode == to_wire(RdmapOpcode::Terminate)) terminated_ = true;
}

void DdpStream::check_fields(const FpduEvent& fpdu, const DdpHeader& ddp,
                             std::span<const std::uint8_t> head, std::vector<Finding>& out) {
  // (Asked only where fields_plain() is false: what field_faults() names, in its order.)
  const std::uint64_t seq = fpdu.header_seq.value();
  const unsigned faults = field_faults(ddp, head, ddp_version_);
  // RFC 5041 4.1: Rsvd (the four bits between L and DV) zero on transmit.
  if (faults & ddp_fields::kDdpReserved) {
    say(DiagId::DdpReservedNonzero, fpdu,
        fmt::format("DDP Control octet {:02x} at seq {}: reserved bits {:x} set", head[0], seq,
                    (head[0] & 0x3c) >> 2),
        out);
  }
  // RFC 5041 4.1: one DV for the whole stream.
  if (ddp_version_ == 0xff) {
    ddp_version_ = ddp.ddp_version;
  } else if (faults & ddp_fields::kDdpVersionChanged) {
    say(DiagId::DdpVersionChanged, fpdu,
        fmt::format("DDP version {} at seq {} in a stream whose segments had version {}; a "
                    "conforming receiver answers with a Terminate of layer 1 (DDP), error type "
                    "{}, code 0x{:02x} (invalid DDP version): RFC 5041 7.2",
                    ddp.ddp_version, seq, ddp_version_, ddp.tagged ? 1 : 2,
                    ddp.tagged ? 0x04 : 0x06),
        out);
  }
  // RFC 5040 4.1: bits 26-27 of the RDMAP Control field zero; the Invalidate STag zero where
  // the message invalidates nothing.
  if (faults & ddp_fields::kRdmapReserved) {
    say(DiagId::RdmapReservedNonzero, fpdu,
        fmt::format("RDMAP Control octet {:02x} at seq {}: reserved bits {:x} set", head[1], seq,
                    (head[1] & 0x30) >> 4),
        out);
  } else if (faults & ddp_fields::kInvalidateStag) {
    say(DiagId::RdmapReservedNonzero, fpdu,
        fmt::format("{} at seq {} carries Invalidate STag 0x{:08x} (zero on transmit for this "
                    "opcode)",
                    rdmap_opcode_words(ddp.opcode), seq, load_be32(&head[2])),
        out);
  }
  const char* terminate =
      "a conforming receiver answers with a Terminate of layer 0 (RDMAP), "
      "error type 2 (remote operation), code 0x06 (unexpected opcode): RFC "
      "5040 4.8";
  if (faults & ddp_fields::kOpcodeReserved) {
    say(DiagId::RdmapOpcodeInvalid, fpdu,
        fmt::format("RDMAP opcode {} at seq {} is reserved; {}", ddp.opcode, seq, terminate), out);
  } else if (faults & ddp_fields::kOpcodeModel) {
    say(DiagId::RdmapOpcodeMisplaced, fpdu,
        fmt::format("{} at seq {} in a{} DDP Segment (RFC 5040 4.1 Figure 4: {}); {}",
                    rdmap_opcode_words(ddp.opcode), seq, ddp.tagged ? " tagged" : "n untagged",
                    ddp.tagged ? "untagged" : "tagged", terminate),
        out);
  } else if (faults & ddp_fields::kOpcodeQueue) {
    say(DiagId::RdmapOpcodeMisplaced, fpdu,
        fmt::format("{} at seq {} on queue {} (RFC 5040 5: queue {}); {}",
                    rdmap_opcode_words(ddp.opcode), seq, ddp.queue, queue_of(ddp.opcode),
                    terminate),
        out);
  }
}

void DdpStream::check_untagged(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload,
                               std::vector<Finding>& out) {
  const std::uint64_t seq = fpdu.header_seq.value();
  if (ddp.queue >= kDdpQueues) {
    say(DiagId::DdpQueueInvalid, fpdu,
        fmt::format("{} at seq {} on queue {}, which RDMAP does not define; {}",
                    rdmap_opcode_words(ddp.opcode), seq, ddp.queue,
                    ddp_terminate(0x01, "invalid QN")),
        out);
    return;
  }
  Queue& q = queues_[ddp.queue];
  // A segment of the message its Last segment closed before the message's octets were all
  // there: sent out of order, or beyond the Last segment (RFC 5041 4.1, 5.3).
  if (q.whole && !q.open && ddp.msn == q.msn && q.segments != 0 && !covered(q)) {
    late_segment(fpdu, ddp, payload, q, out);
    return;
  }
  bool first_segment = true;  // of a message
  if (q.open && ddp.msn == q.msn) {
    first_segment = false;
    if (ddp.mo != q.next_mo) {
      say(DiagId::DdpSegmentsOutOfOrder, fpdu,
          fmt::format("queue {} MSN {} segment at seq {} has MO {} where the previous segment's "
                      "payload ended at {}",
                      ddp.queue, ddp.msn, seq, ddp.mo, q.next_mo),
          out);
    }
  } else if (q.open && ddp.msn == q.msn + 1) {
    say(DiagId::DdpMessageUnfinished, fpdu,
        fmt::format("queue {} message MSN {} began at seq {} while message MSN {} had no segment "
                    "with the Last flag",
                    ddp.queue, ddp.msn, seq, q.msn),
        out);
  } else if (q.known && ddp.msn != q.msn + 1) {
    const std::string which =
        q.open ? fmt::format("message MSN {} was open", q.msn)
        : ddp.msn == q.msn
            ? fmt::format(
                  "message MSN {} had been closed by its Last flag: either that flag was "
                  "set on a segment that was not the last, or the MSN was not increased",
                  q.msn)
            : fmt::format("the queue's next MSN is {}", q.msn + 1);
    say(DiagId::DdpMsnInvalid, fpdu,
        fmt::format("{} at seq {} on queue {} with MSN {}, where {}; {}",
                    rdmap_opcode_words(ddp.opcode), seq, ddp.queue, ddp.msn, which,
                    ddp_terminate(0x03, "MSN range is not valid")),
        out);
  }
  // (A queue not known, after a gap or a segment that was not judged, may have lost the first
  // segments of the message this one goes on with.)
  if (first_segment && q.known && ddp.mo != 0) {
    say(DiagId::DdpSegmentsOutOfOrder, fpdu,
        fmt::format("queue {} MSN {} begins at seq {} with MO {} (its first octet's MO is 0)",
                    ddp.queue, ddp.msn, seq, ddp.mo),
        out);
  }
  if (first_segment) {
    if (!q.open && q.whole && q.segments != 0 && !covered(q)) judge_mos(ddp.queue, q, fpdu, out);
    // Every segment of this message is seen where the queue's place was known before it.
    q = Queue{.first_frame = fpdu.last_frame, .whole = q.known};
  }
  const std::uint64_t end = std::uint64_t{ddp.mo} + payload;
  cover(q, ddp.mo, end);
  ++q.segments;
  if (ddp.last) {
    q.last_end = end;
    // RFC 5041 5.2: a zero-length message is one segment.
    if (q.whole && q.end == 0 && q.segments > 1) {
      say(DiagId::DdpZeroLengthSplit, fpdu,
          fmt::format("queue {} zero-length message MSN {} ends at seq {} after {} segments "
                      "without payload (the first in frame {})",
                      ddp.queue, ddp.msn, seq, q.segments, q.first_frame),
          out);
    }
  }
  q.msn = ddp.msn;
  q.known = true;
  q.open = !ddp.last;
  q.next_mo = ddp.mo + payload;
}

void DdpStream::check_tagged(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload,
                             std::vector<Finding>& out) {
  const std::uint64_t seq = fpdu.header_seq.value();
  // RFC 5041 5.2: a zero-length tagged message's STag and TO are not checked; an empty segment
  // after an open message's empty segments goes on with it.
  const bool empty_going_on = tagged_.open && tagged_.octets == 0 && payload == 0;
  bool same_message = empty_going_on;  // (as the checks below read it)
  if (tagged_.open && !empty_going_on) {
    const bool same_stag = ddp.stag == tagged_.stag && ddp.opcode == tagged_.opcode;
    const bool same_to = ddp.to == tagged_.next_to;
    same_message = same_stag || (same_to && ddp.opcode == tagged_.opcode);
    if (same_stag && !same_to) {
      say(DiagId::DdpSegmentsOutOfOrder, fpdu,
          fmt::format("{} segment at seq {} (STag 0x{:08x}) has TO 0x{:x} where the previous "
                      "segment's payload ended at 0x{:x}",
                      rdmap_opcode_words(ddp.opcode), seq, ddp.stag, ddp.to, tagged_.next_to),
          out);
    } else if (!same_stag && same_to && ddp.opcode == tagged_.opcode) {
      say(DiagId::DdpStagChanged, fpdu,
          fmt::format("{} segment at seq {} goes on at TO 0x{:x} with STag 0x{:08x}, where its "
                      "message's segments had STag 0x{:08x}",
                      rdmap_opcode_words(ddp.opcode), seq, ddp.to, ddp.stag, tagged_.stag),
          out);
    } else if (!same_stag) {
      say(DiagId::DdpMessageUnfinished, fpdu,
          fmt::format("{} (STag 0x{:08x}) began at seq {} while the tagged {} to STag 0x{:08x} "
                      "had no segment with the Last flag",
                      rdmap_opcode_words(ddp.opcode), ddp.stag, seq,
                      rdmap_opcode_words(tagged_.opcode), tagged_.stag),
          out);
    }
  }
  if (!same_message) {
    tagged_.whole = tagged_.known;
    tagged_.octets = tagged_.segments = 0;
    tagged_.run_count = 0;
    tagged_.tos_judged = true;
  }
  tagged_.octets += payload;
  ++tagged_.segments;
  tile_tagged(fpdu, ddp, payload, out);
  if (ddp.last && tagged_.whole && tagged_.octets == 0 && tagged_.segments > 1) {
    say(DiagId::DdpZeroLengthSplit, fpdu,
        fmt::format("zero-length {} ends at seq {} after {} tagged segments without payload",
                    rdmap_opcode_words(ddp.opcode), seq, tagged_.segments),
        out);
  }
  tagged_.stag = ddp.stag;
  tagged_.opcode = ddp.opcode;
  tagged_.next_to = ddp.to + payload;
  tagged_.open = !ddp.last;
  if (ddp.last) tagged_.known = true;
}

void DdpStream::tile_tagged(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t payload,
                            std::vector<Finding>& out) {
  Tagged& t = tagged_;
  const std::uint64_t end = ddp.to + payload;
  // (A payload past TO 2^64 - 1 is named by no rule here: its TOs are left unjudged.)
  if (payload != 0 && t.tos_judged && end < ddp.to) t.tos_judged = false;
  if (payload != 0 && t.tos_judged) {
    if (overlaps(t.runs.data(), t.run_count, ddp.to, end)) {
      say(DiagId::DdpTaggedOffsetsInconsistent, fpdu,
          fmt::format("{} segment at seq {} (STag 0x{:08x}, TO 0x{:x}, {} octets) carries TOs an "
                      "earlier segment of its message carried (RFC 5041 5.2: each TO is the "
                      "message's initial TO plus its payload's offset in the message)",
                      rdmap_opcode_words(ddp.opcode), fpdu.header_seq.value(), ddp.stag, ddp.to,
                      payload),
          out);
      t.tos_judged = false;
    } else if (!add_run(t.runs.data(), t.run_count, Tagged::kRuns, ddp.to, end)) {
      t.tos_judged = false;  // (more runs apart than kept: the message's TOs not judged)
    }
  }
  // The message is complete (RFC 5041 5.3 lets its segments come in any TO order, the one
  // with the Last flag last): every segment seen, its payloads must be one run.
  if (ddp.last && t.whole && t.tos_judged && t.run_count > 1) {
    say(DiagId::DdpTaggedOffsetsInconsistent, fpdu,
        fmt::format("{} to STag 0x{:08x} ends at seq {} ({} segments) with TOs 0x{:x} to 0x{:x} "
                    "carried by none of its segments, between TOs 0x{:x} and 0x{:x} (RFC 5041 "
                    "5.2: each TO is the message's initial TO plus its payload's offset in the "
                    "message)",
                    rdmap_opcode_words(ddp.opcode), ddp.stag, fpdu.header_seq.value(), t.segments,
                    t.runs[0].second, t.runs[1].first, t.runs[0].first,
                    t.runs[t.run_count - 1].second),
        out);
  }
}

}  // namespace mpa
