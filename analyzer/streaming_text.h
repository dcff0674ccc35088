// The text report while a capture is still arriving (a live interface, a pipe): each
// finding is printed as soon as it is certain and its suppression decided, repeats folded
// when their connection ends; the capture line and totals follow at the end as usual.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>

#include "report.h"

namespace mpa::report {

class StreamingText : public FindingObserver {
 public:
  StreamingText(std::ostream& out, std::string file, const TextOptions& options)
      : out_(out), file_(std::move(file)), options_(options) {}
  void on_decided(const ReportedFinding& finding, std::uint32_t connection) override;
  void on_connection_end(const ConnectionReport& connection) override;

 private:
  struct Repeats {
    std::uint64_t count = 0;
    ReportedFinding first_folded;
  };
  std::ostream& out_;
  std::string file_;
  TextOptions options_;
  // By connection, id and whether suppressed.
  std::map<std::tuple<std::uint32_t, DiagId, bool>, Repeats> repeats_;
};

}  // namespace mpa::report
