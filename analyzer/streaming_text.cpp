// The text report of a capture still arriving (see streaming_text.h).
#include "streaming_text.h"

namespace mpa::report {

void StreamingText::on_decided(const ReportedFinding& f, std::uint32_t connection) {
  if (!listed(f, options_)) return;
  if (connection == kCaptureFinding) {
    if (options_.timestamps) out_ << utc_time(f.finding.timestamp_ns) << ' ';
    out_ << finding_line(file_, f, nullptr, options_.color) << std::flush;
    return;
  }
  Repeats& r = repeats_[{connection, f.finding.id, f.suppressed_by != nullptr}];
  if (++r.count > options_.fold_after) {
    if (r.count == options_.fold_after + 1) r.first_folded = f;
    return;
  }
  ConnectionSummary where;
  where.id = connection;
  if (options_.timestamps) out_ << utc_time(f.finding.timestamp_ns) << ' ';
  out_ << finding_line(file_, f, &where, options_.color, options_.certain_at) << std::flush;
}

void StreamingText::on_connection_end(const ConnectionReport& c) {
  auto it = repeats_.lower_bound({c.summary.id, DiagId{}, false});
  while (it != repeats_.end() && std::get<0>(it->first) == c.summary.id) {
    const Repeats& r = it->second;
    if (r.count > options_.fold_after) {
      out_ << fold_line(file_, r.first_folded, r.count - options_.fold_after, c.summary.id,
                        options_.color);
    }
    it = repeats_.erase(it);
  }
  if (options_.connections) write_connection(out_, c);
  out_ << std::flush;
}

}  // namespace mpa::report
