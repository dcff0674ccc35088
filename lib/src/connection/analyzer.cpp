// The MPA connection analyzer (see analyzer.h): the flow table and the segment dispatch.
// Everything per connection is MpaConnection's (mpa_connection.h).
//
//   TcpSegment -> Analyzer (flow table: find, reopen, evict) -> MpaConnection::on_segment
//     -> Sender's TcpReassembler -> in-order octets, gaps, ends -> the Sender's phase handler
//        (sender_events.cpp) -> deciders: startup_exchange, framing_inference, fpdu_rules,
//        ulp_checks, interop -> verdicts applied by MpaConnection (startup_application.cpp)
//     -> FpduReader (full operation) -> FPDUs and findings -> the finding gate -> EventSink
#include "mpa/analyzer.h"

#include "connection/mpa_connection.h"
#include "decode/flow_table.h"

namespace mpa {

struct Analyzer::Impl {
  Impl(AnalyzerOptions options, EventSink& sink) : context(std::move(options), sink) {}

  AnalysisContext context;
  FlowTable<MpaConnection> table;
  std::uint64_t tcp_connections = 0;
  std::uint64_t expired = 0;  // connections finished for being idle (idle_timeout_ns)

  void finish(MpaConnection& c, const FlowKey& key, std::uint64_t frame) {
    c.finish(frame);
    table.erase(key);  // destroys c
  }

  void on_segment(const TcpSegment& seg) {
    context.frame = seg.frame;
    context.ns = seg.timestamp_ns;
    if (context.options.idle_timeout_ns != 0) expire_idle(seg);
    const FlowKey key = FlowKey::of(seg.source, seg.destination);
    MpaConnection* c = table.find(key);  // (one look-up: a miss changes nothing)
    if (!c && seg.payload.empty() && seg.payload_missing == 0 && !(seg.flags & tcp_flags::kSyn)) {
      // A pure ACK, FIN or RST of a connection we do not follow: it carries nothing to
      // analyse, and a duplicated RST or FIN after the close must not count as another TCP
      // connection.
      return;
    }
    const bool pure_syn = (seg.flags & tcp_flags::kSyn) && !(seg.flags & tcp_flags::kAck);
    if (c && pure_syn && c->reopened_by(seg)) {
      finish(*c, key, seg.frame);  // a new connection on the same ports
      c = nullptr;
    }
    if (!c) {
      if (table.size() >= context.options.max_connections) {
        if (MpaConnection* oldest = table.least_recent()) evict(*oldest, seg.frame);
      }
      c = &table.insert(key, std::make_unique<MpaConnection>(context, seg));
      ++tcp_connections;
    }
    table.note_activity(seg.timestamp_ns);
    c->on_segment(seg);
    if (c->both_ended()) finish(*c, key, seg.frame);
  }

  // Finishes the connections idle for longer than the timeout before `seg`, least recently
  // active first (the table's order), at the frame before it: nothing after their last
  // segment was theirs.
  void expire_idle(const TcpSegment& seg) {
    const std::uint64_t timeout = context.options.idle_timeout_ns;
    while (MpaConnection* oldest = table.least_recent()) {
      const std::uint64_t last = table.least_recent_ns();
      if (seg.timestamp_ns <= last || seg.timestamp_ns - last <= timeout) return;
      oldest->mark_expired();
      ++expired;
      evict(*oldest, seg.frame == 0 ? 0 : seg.frame - 1);
    }
  }

  void evict(MpaConnection& c, std::uint64_t frame) {
    const FlowKey key = c.key();
    finish(c, key, frame);
  }
};

Analyzer::Analyzer(AnalyzerOptions options, EventSink& sink)
    : impl_(std::make_unique<Impl>(std::move(options), sink)) {}
Analyzer::~Analyzer() = default;

void Analyzer::on_segment(const TcpSegment& segment) { impl_->on_segment(segment); }

void Analyzer::on_frame(std::uint64_t number, const FramePlace& place) {
  impl_->context.frame_places.note(number, place);
}

void Analyzer::on_capture_finding(DiagId id, std::uint64_t frame, std::uint64_t timestamp_ns,
                                  std::string detail) {
  Finding f = make_finding(id, frame, TcpSeq(), 0, std::move(detail));
  f.connection = kCaptureFinding;
  f.timestamp_ns = timestamp_ns;
  impl_->context.frame_places.stamp(f);
  impl_->context.sink.on_finding(f);
}

void Analyzer::finish(std::uint64_t last_frame) {
  while (MpaConnection* c = impl_->table.least_recent()) impl_->evict(*c, last_frame);
}

std::uint64_t Analyzer::tcp_connections() const { return impl_->tcp_connections; }
std::uint64_t Analyzer::expired_connections() const { return impl_->expired; }
std::uint64_t Analyzer::mpa_connections() const { return impl_->context.mpa_connections; }
const AnalyzerOptions& Analyzer::options() const { return impl_->context.options; }

}  // namespace mpa
