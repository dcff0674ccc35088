// The bundled corpus (captures/): every valid parameter combination, the RFC figures, and
// one faulty capture per wire-visible catalogue id, each with what it shows and the
// verdict a checker should reach; plus the README index and a machine-readable list.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pcap_writer.h"
#include "scenario.h"

namespace mpa::synth {

struct CorpusEntry {
  std::string name;  // file stem: <name>.pcap
  std::string summary;
  Expectation expected;
  std::function<Bytes()> pcap;
};

std::vector<CorpusEntry> corpus_entries();
std::optional<CorpusEntry> find_corpus_entry(std::string_view name);

// The notes a conformant conversation of `s` should produce (revision notes, delayed
// startup, unaligned segmentation, large private data, the close).
std::vector<std::string> implied_notes(const Scenario& s);

// Writes every capture, README.md and expected.tsv into `dir` (created if needed), and the
// plugfest corpus into dir/plugfest (plugfest.h).
void write_corpus(const std::filesystem::path& dir);

}  // namespace mpa::synth
