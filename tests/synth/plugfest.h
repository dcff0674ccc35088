// The plugfest corpus (captures/plugfest/): four implementations with their own addresses and
// startup habits connect pairwise over two days of captures; two of them carry faults made by
// the fault recipes (faults.h), and between the days one fault is fixed and one introduced.
// With it: the hosts file naming three of them (by address, subnet and MAC prefix; the fourth
// is left to its stack fingerprint) and expected.tsv, every connection with the findings its
// recipes intend and the side that breaks each rule, from which a test predicts the interop
// matrix and the comparison of the two days.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "pcap_writer.h"

namespace mpa::synth {

struct PlugfestConnection {
  std::string initiator;  // the implementation, as the matrix names it ("Birch 0.9")
  std::string responder;
  std::vector<std::string> findings;  // errors and warnings intended: "id@initiator"
  std::vector<std::string> notes;     // notes intended
};

struct PlugfestCapture {
  std::string path;  // under plugfest/: "day1/session-1.pcap"
  std::string summary;
  std::vector<PlugfestConnection> connections;  // in capture order (connection 0, 1, ...)
  std::function<Bytes()> pcap;
};

std::vector<PlugfestCapture> plugfest_captures();
// The hosts file (plugfest.hosts).
std::string plugfest_hosts();
// Writes the captures, plugfest.hosts and expected.tsv into `dir` (captures/plugfest); returns
// the captures' sizes.
std::vector<std::uintmax_t> write_plugfest(const std::filesystem::path& dir,
                                           const std::vector<PlugfestCapture>& captures);
// The section of captures/README.md that indexes them.
std::string plugfest_readme(const std::vector<PlugfestCapture>& captures,
                            const std::vector<std::uintmax_t>& sizes);

}  // namespace mpa::synth
