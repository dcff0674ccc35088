// The plugfest view of a run (see plugfest.h).
#include "plugfest.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "json_text.h"

namespace mpa::report {

namespace {

const Endpoint& endpoint_of(const ConnectionSummary& s, Direction d) {
  return d == Direction::Initiator ? s.initiator : s.responder;
}

constexpr Direction kSides[] = {Direction::Initiator, Direction::Responder};

}  // namespace

void name_implementations(std::vector<CaptureReport>& captures, const HostMap* hosts) {
  HostNamer namer(hosts);
  for (const CaptureReport& cap : captures) {
    for (const ConnectionReport& c : cap.connections) {
      for (const Direction d : kSides) {
        namer.observe(endpoint_of(c.summary, d).address, c.summary.direction(d).stack);
      }
    }
  }
  for (CaptureReport& cap : captures) {
    for (ConnectionReport& c : cap.connections) {
      for (const Direction d : kSides) {
        ImplementationName& name = c.implementations[static_cast<int>(d)];
        // An earlier run named it from its hosts file, and no hosts file is given now.
        if (cap.from_json && !hosts && name.source == NameSource::Hosts) continue;
        name = namer.name(endpoint_of(c.summary, d).address, c.summary.direction(d).mac,
                          c.summary.direction(d).stack);
      }
    }
  }
}

std::string_view to_string(PairVerdict verdict) {
  switch (verdict) {
    case PairVerdict::NotTried:
      return "not tried";
    case PairVerdict::NotJudged:
      return "not judged";
    case PairVerdict::Clean:
      return "clean";
    case PairVerdict::Warnings:
      return "warnings";
    case PairVerdict::Errors:
      return "errors";
  }
  return "not tried";
}

PairVerdict connection_verdict(const ConnectionReport& c) {
  if (c.active[Severity::Error]) return PairVerdict::Errors;
  if (c.active[Severity::Warning]) return PairVerdict::Warnings;
  const ConnectionSummary& s = c.summary;
  if ((s.request && s.reply) || s.direction(Direction::Initiator).full_operation ||
      s.direction(Direction::Responder).full_operation) {
    return PairVerdict::Clean;
  }
  return PairVerdict::NotJudged;
}

const ReportedFinding* first_failure(const ConnectionReport& c) {
  for (const Severity severity : {Severity::Error, Severity::Warning}) {
    const ReportedFinding* first = nullptr;
    for (const ReportedFinding& f : c.findings) {
      if (f.suppressed_by || info(f.finding.id).severity != severity) continue;
      if (!first || f.finding.frame < first->finding.frame) first = &f;
    }
    if (first) return first;
  }
  return nullptr;
}

std::string side_word(const ReportedFinding& f) {
  const std::optional<Direction> side = broken_by(f.finding.id, f.finding.direction);
  return side ? std::string(to_string(*side)) : std::string();
}

namespace {

// (appended by hand, not by fmt: the JSON report spells it for each connection, issue 44)
void append_frame_words(std::string& s, const StartupFrame& f) {
  s += "Rev ";
  s += std::to_string(f.revision);
  s += f.m() ? " M=1" : " M=0";
  s += f.c() ? " C=1" : " C=0";
  s += f.r() ? " R=1" : " R=0";
  if (f.s()) s += " S=1";
  if (f.enhanced) {
    s += fmt::format(" IRD {} ORD {}", f.enhanced->ird, f.enhanced->ord);
    if (f.enhanced->peer_to_peer) {
      s += " P2P";
      if (f.enhanced->send_rtr) s += " send-RTR";
      if (f.enhanced->write_rtr) s += " write-RTR";
      if (f.enhanced->read_rtr) s += " read-RTR";
    }
  }
}

}  // namespace

std::string ConnectionIdentity::text() const {
  return fmt::format("{} -> {} port {} ({})", initiator, responder, port, startup);
}

ConnectionIdentity identity_of(const ConnectionReport& c) {
  ConnectionIdentity id;
  id.initiator = c.implementation(Direction::Initiator).identity();
  id.responder = c.implementation(Direction::Responder).identity();
  id.port = c.summary.responder.port;
  const ConnectionSummary& s = c.summary;
  if (!s.request && !s.reply) {
    id.startup = "startup not seen";
  } else {
    id.startup.reserve(64);
    id.startup = s.request ? "Request " : "no Request";
    if (s.request) append_frame_words(id.startup, *s.request);
    id.startup += s.reply ? "; Reply " : "; no Reply";
    if (s.reply) append_frame_words(id.startup, *s.reply);
  }
  return id;
}

// ---- the matrix

const MatrixCell& Matrix::cell(std::size_t initiator, std::size_t responder) const {
  static const MatrixCell kNotTried;
  const auto it = tried_cells.find({initiator, responder});
  return it == tried_cells.end() ? kNotTried : it->second;
}

bool matrix_shown(const std::vector<CaptureReport>& captures, bool asked) {
  if (asked) return true;
  std::set<std::string, std::less<>> unnamed;
  for (const CaptureReport& cap : captures) {
    for (const ConnectionReport& c : cap.connections) {
      for (const Direction d : kSides) {
        const ImplementationName& n = c.implementation(d);
        if (!n.named() && unnamed.insert(n.key()).second && unnamed.size() > kMatrixUnnamedMost)
          return false;
      }
    }
  }
  return true;
}

Matrix build_matrix(const std::vector<CaptureReport>& captures) {
  Matrix m;
  std::map<std::string, std::size_t> index;
  // The addresses of each implementation, in the order seen, each once (a set beside the list:
  // one implementation may stand for thousands of hosts).
  std::set<std::pair<std::size_t, std::string>> seen;
  for (const CaptureReport& cap : captures) {
    for (const ConnectionReport& c : cap.connections) {
      for (const Direction d : kSides) {
        const ImplementationName& n = c.implementation(d);
        const std::string key = n.key();
        auto [it, added] = index.emplace(key, m.implementations.size());
        if (added) m.implementations.push_back({key, n, {}});
        std::string address = to_string(endpoint_of(c.summary, d).address);
        if (seen.emplace(it->second, address).second)
          m.implementations[it->second].addresses.push_back(std::move(address));
      }
    }
  }
  // Named by the hosts file first, then guesses, then addresses; alphabetically in each.
  std::stable_sort(m.implementations.begin(), m.implementations.end(),
                   [](const MatrixImplementation& a, const MatrixImplementation& b) {
                     const auto rank = [](NameSource s) {
                       return s == NameSource::Hosts ? 0 : s == NameSource::Fingerprint ? 1 : 2;
                     };
                     return std::make_tuple(rank(a.name.source), a.key) <
                            std::make_tuple(rank(b.name.source), b.key);
                   });
  for (std::size_t i = 0; i < m.implementations.size(); ++i) {
    index[m.implementations[i].key] = i;
  }
  for (std::size_t k = 0; k < captures.size(); ++k) {
    for (const ConnectionReport& c : captures[k].connections) {
      const std::size_t i = index[c.implementation(Direction::Initiator).key()];
      const std::size_t r = index[c.implementation(Direction::Responder).key()];
      MatrixCell& cell = m.tried_cells[{i, r}];
      const PairVerdict v = connection_verdict(c);
      cell.connections.push_back({k, &c, v});
      ++cell.by_verdict[static_cast<int>(v)];
      ++m.connections;
      if (v > cell.verdict) cell.verdict = v;
      const ReportedFinding* f = first_failure(c);
      if (!f) continue;
      const bool error = info(f->finding.id).severity == Severity::Error;
      if (!cell.failure || (error && info(cell.failure->finding.id).severity != Severity::Error)) {
        cell.failure = f;
        cell.failure_at = {k, &c, v};
      }
    }
  }
  return m;
}

std::string verdict_counts(const MatrixCell& cell) {
  std::string counts;
  for (const PairVerdict v :
       {PairVerdict::Errors, PairVerdict::Warnings, PairVerdict::Clean, PairVerdict::NotJudged}) {
    if (const std::uint64_t n = cell.by_verdict[static_cast<int>(v)]; n) {
      counts += fmt::format("{}{} {}{}", counts.empty() ? "" : ", ", n,
                            v == PairVerdict::Errors || v == PairVerdict::Warnings ? "with " : "",
                            to_string(v));
    }
  }
  return counts;
}

namespace {

std::string reference(const std::vector<CaptureReport>& captures, const ConnectionRef& ref) {
  return fmt::format("{} connection {}", captures[ref.capture].file, ref.connection->summary.id);
}

// "errors 1/2": the verdict, and how many of the pair's connections have it.
std::string cell_word(const MatrixCell& cell) {
  if (cell.verdict == PairVerdict::NotTried) return "-";
  return fmt::format("{} {}/{}", to_string(cell.verdict),
                     cell.by_verdict[static_cast<int>(cell.verdict)], cell.connections.size());
}

std::string name_source_words(const MatrixImplementation& impl) {
  switch (impl.name.source) {
    case NameSource::Hosts:
      return impl.name.rule;
    case NameSource::Fingerprint:
      return "a guess from its startup frames";
    case NameSource::Address:
      break;
  }
  return "not named";
}

// "fpdu.crc-mismatch (error) broken by the initiator (Cobalt NIC 5.0)"
std::string failure_words(const ReportedFinding& f, const ConnectionReport& c) {
  const DiagnosticInfo& d = info(f.finding.id);
  const std::optional<Direction> side = broken_by(f.finding.id, f.finding.direction);
  std::string who = "about the capture";
  if (side) {
    who = fmt::format("broken by the {}", to_string(*side));
    if (const std::string name = c.implementation(*side).label(); !name.empty())
      who += fmt::format(" ({})", name);
  }
  return fmt::format("{} ({}) {}", d.name, to_string(d.severity), who);
}

}  // namespace

void write_matrix_text(std::ostream& out, const Matrix& m,
                       const std::vector<CaptureReport>& captures) {
  fmt::print(out,
             "Interop matrix (Initiator in rows, Responder in columns): {}, {}, {} of {} pairs "
             "tried\n",
             count_of(m.size(), "implementation"), count_of(m.connections, "MPA connection"),
             m.tried(), m.size() * m.size());
  if (m.size() == 0) return;
  std::size_t width = 0;
  for (const MatrixImplementation& impl : m.implementations)
    width = std::max(width, impl.key.size());
  for (std::size_t i = 0; i < m.size(); ++i) {
    const MatrixImplementation& impl = m.implementations[i];
    std::string addresses;
    for (const std::string& a : impl.addresses) addresses += (addresses.empty() ? "" : ", ") + a;
    fmt::print(out, "  [{}] {:<{}}  {} ({})\n", i + 1, impl.key, width, addresses,
               name_source_words(impl));
  }
  // The grid while it fits a terminal; beyond, the line of each pair tried tells the same.
  constexpr std::size_t kGridMost = 12;
  std::size_t column = 4;
  for (const auto& tried : m.tried_cells)
    column = std::max(column, cell_word(tried.second).size() + 2);
  if (m.size() > kGridMost)
    fmt::print(out, "  (no grid for more than {} implementations: the pairs tried follow)\n",
               kGridMost);
  const std::size_t label = std::to_string(m.size()).size() + 3 + width + 2;
  if (m.size() <= kGridMost) {
    std::string line = fmt::format("  {:<{}}", "Initiator \\ Responder", label);
    for (std::size_t r = 0; r < m.size(); ++r)
      line += fmt::format("{:<{}}", fmt::format("[{}]", r + 1), column);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
    for (std::size_t i = 0; i < m.size(); ++i) {
      line =
          fmt::format("  {:<{}}", fmt::format("[{}] {}", i + 1, m.implementations[i].key), label);
      for (std::size_t r = 0; r < m.size(); ++r)
        line += fmt::format("{:<{}}", cell_word(m.cell(i, r)), column);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << '\n';
    }
  }
  std::vector<std::string> untried;
  if (m.whole()) {
    for (std::size_t i = 0; i < m.size(); ++i) {
      for (std::size_t r = 0; r < m.size(); ++r) {
        if (!m.tried_cells.count({i, r}))
          untried.push_back(
              fmt::format("{} -> {}", m.implementations[i].key, m.implementations[r].key));
      }
    }
  }
  for (const auto& [pair_index, cell] : m.tried_cells) {
    const std::string pair = fmt::format("{} -> {}", m.implementations[pair_index.first].key,
                                         m.implementations[pair_index.second].key);
    const std::string counts = verdict_counts(cell);
    std::string where;
    if (cell.failure) {
      where = fmt::format(": {}, at {} frame {}",
                          failure_words(*cell.failure, *cell.failure_at.connection),
                          reference(captures, cell.failure_at), cell.failure->finding.frame);
    } else {
      where = ": " + reference(captures, cell.connections.front());
      if (cell.connections.size() > 1)
        where += fmt::format(" and {} more", cell.connections.size() - 1);
    }
    fmt::print(out, "  {}: {}, {} ({}){}\n", pair, to_string(cell.verdict),
               count_of(cell.connections.size(), "connection"), counts, where);
  }
  if (!untried.empty()) {
    std::string list;
    for (const std::string& pair : untried) list += (list.empty() ? "" : ", ") + pair;
    fmt::print(out, "  never tried ({}): {}\n", untried.size(), list);
  } else if (!m.whole()) {
    fmt::print(out, "  never tried: {} pairs (not listed for more than {} implementations)\n",
               m.size() * m.size() - m.tried(), Matrix::kMatrixGridMost);
  }
}

// ---- --compare

namespace {

using nlohmann::ordered_json;

// A finding as compared: its catalogue id and the side that broke the rule.
struct FindingKey {
  std::string id;
  std::string side;
  friend auto operator<=>(const FindingKey&, const FindingKey&) = default;
};

struct Occurrence {
  const ReportedFinding* finding = nullptr;
  std::size_t capture = 0;
  const ConnectionReport* connection = nullptr;
};

using FindingSet = std::map<FindingKey, Occurrence>;

void add_findings(FindingSet& set, std::size_t capture, const ConnectionReport& c) {
  for (const ReportedFinding& f : c.findings) {
    if (f.suppressed_by || info(f.finding.id).severity == Severity::Note) continue;
    set.emplace(FindingKey{std::string(info(f.finding.id).name), side_word(f)},
                Occurrence{&f, capture, &c});
  }
}

struct PairRun {
  bool tried = false;
  PairVerdict verdict = PairVerdict::NotTried;
  std::uint64_t connections = 0;
  std::string initiator_label, responder_label;  // as shown in this run (with versions)
  FindingSet findings;
};

using PairKey = std::pair<std::string, std::string>;

std::map<PairKey, PairRun> pairs_of(const std::vector<CaptureReport>& run) {
  std::map<PairKey, PairRun> pairs;
  for (std::size_t k = 0; k < run.size(); ++k) {
    for (const ConnectionReport& c : run[k].connections) {
      PairRun& p = pairs[{c.implementation(Direction::Initiator).identity(),
                          c.implementation(Direction::Responder).identity()}];
      p.tried = true;
      ++p.connections;
      p.verdict = std::max(p.verdict, connection_verdict(c));
      p.initiator_label = c.implementation(Direction::Initiator).key();
      p.responder_label = c.implementation(Direction::Responder).key();
      add_findings(p.findings, k, c);
    }
  }
  return pairs;
}

struct ConnectionRun {
  std::size_t capture = 0;
  const ConnectionReport* connection = nullptr;
};

std::map<ConnectionIdentity, std::vector<ConnectionRun>> connections_of(
    const std::vector<CaptureReport>& run) {
  std::map<ConnectionIdentity, std::vector<ConnectionRun>> out;
  for (std::size_t k = 0; k < run.size(); ++k) {
    for (const ConnectionReport& c : run[k].connections) out[identity_of(c)].push_back({k, &c});
  }
  return out;
}

struct Changes {
  std::vector<std::pair<FindingKey, Occurrence>> added, fixed, stayed;
};

Changes changes(const FindingSet& old_set, const FindingSet& new_set) {
  Changes ch;
  for (const auto& [key, at] : new_set) {
    if (old_set.count(key)) {
      ch.stayed.emplace_back(key, at);
    } else {
      ch.added.emplace_back(key, at);
    }
  }
  for (const auto& [key, at] : old_set) {
    if (!new_set.count(key)) ch.fixed.emplace_back(key, at);
  }
  return ch;
}

std::string where_words(const std::vector<CaptureReport>& run, const Occurrence& at) {
  return fmt::format("{} connection {} frame {}", run[at.capture].file, at.connection->summary.id,
                     at.finding->finding.frame);
}

std::string key_words(const FindingKey& key, const Occurrence& at) {
  const std::string_view severity = to_string(info(at.finding->finding.id).severity);
  return key.side.empty() ? fmt::format("{} ({}, about the capture)", key.id, severity)
                          : fmt::format("{} ({}, broken by the {})", key.id, severity, key.side);
}

ordered_json occurrence_json(const std::vector<CaptureReport>& run, const FindingKey& key,
                             const Occurrence& at) {
  return {{"id", key.id},
          {"severity", to_string(info(at.finding->finding.id).severity)},
          {"side", key.side.empty() ? ordered_json(nullptr) : ordered_json(key.side)},
          {"capture", run[at.capture].file},
          {"connection", at.connection->summary.id},
          {"frame", at.finding->finding.frame}};
}

ordered_json identity_json(const ConnectionIdentity& id) {
  return {{"initiator", id.initiator},
          {"responder", id.responder},
          {"port", id.port},
          {"startup", id.startup}};
}

// Two runs compared: per pair of implementations, then per connection (matched by identity,
// the n-th of an identity in one run with the n-th in the other), what is new, fixed and
// stayed.
struct PairComparison {
  PairKey key;
  PairRun before, after;  // not tried when the run has no connection of the pair
  Changes changes;
  std::string name() const { return fmt::format("{} -> {}", key.first, key.second); }
};

struct ConnectionComparison {
  ConnectionIdentity identity;
  std::size_t ordinal = 0;
  bool numbered = false;  // more than one connection of the identity in a run: named #n
  std::optional<ConnectionRun> before, after;
  Changes changes;
  std::string name() const {
    return fmt::format("{}{}", identity.text(),
                       numbered ? fmt::format(" #{}", ordinal + 1) : std::string());
  }
};

struct ComparedRun {
  const std::string& name;
  const std::vector<CaptureReport>& captures;
  std::uint64_t connections() const {
    std::uint64_t n = 0;
    for (const CaptureReport& cap : captures) n += cap.connections.size();
    return n;
  }
};

struct Comparison {
  ComparedRun old_run, new_run;
  std::vector<PairComparison> pairs;
  std::vector<ConnectionComparison> connections;
  std::size_t added = 0, fixed = 0, stayed = 0, only_new = 0, only_old = 0, matched = 0;
  int exit_status() const { return added ? 1 : 0; }
};

void compare_pairs(Comparison& cmp) {
  auto old_pairs = pairs_of(cmp.old_run.captures);
  auto new_pairs = pairs_of(cmp.new_run.captures);
  std::set<PairKey> keys;
  for (const auto& [k, p] : old_pairs) keys.insert(k);
  for (const auto& [k, p] : new_pairs) keys.insert(k);
  for (const PairKey& key : keys) {
    PairComparison pair{key, std::move(old_pairs[key]), std::move(new_pairs[key]), {}};
    if (pair.after.tried && pair.before.tried) {
      pair.changes = changes(pair.before.findings, pair.after.findings);
    } else if (pair.after.tried) {
      pair.changes = changes({}, pair.after.findings);
      ++cmp.only_new;
    } else {
      ++cmp.only_old;
    }
    cmp.added += pair.changes.added.size();
    cmp.fixed += pair.changes.fixed.size();
    cmp.stayed += pair.changes.stayed.size();
    cmp.pairs.push_back(std::move(pair));
  }
}

void compare_connections(Comparison& cmp) {
  auto old_connections = connections_of(cmp.old_run.captures);
  auto new_connections = connections_of(cmp.new_run.captures);
  std::set<ConnectionIdentity> identities;
  for (const auto& [id, list] : old_connections) identities.insert(id);
  for (const auto& [id, list] : new_connections) identities.insert(id);
  for (const ConnectionIdentity& id : identities) {
    const std::vector<ConnectionRun>& before = old_connections[id];
    const std::vector<ConnectionRun>& after = new_connections[id];
    for (std::size_t i = 0; i < std::max(before.size(), after.size()); ++i) {
      ConnectionComparison c{id, i, before.size() > 1 || after.size() > 1, {}, {}, {}};
      FindingSet old_set, new_set;
      if (i < before.size()) {
        c.before = before[i];
        add_findings(old_set, before[i].capture, *before[i].connection);
      }
      if (i < after.size()) {
        c.after = after[i];
        add_findings(new_set, after[i].capture, *after[i].connection);
      }
      c.changes = changes(old_set, new_set);
      cmp.matched += c.before && c.after;
      cmp.connections.push_back(std::move(c));
    }
  }
}

Comparison compare(const ComparedRun& old_run, const ComparedRun& new_run) {
  Comparison cmp{old_run, new_run, {}, {}};
  compare_pairs(cmp);
  compare_connections(cmp);
  return cmp;
}

// ---- the comparison as text

std::string connection_words(const ComparedRun& run, const ConnectionRun& r) {
  return fmt::format("{} connection {}", run.captures[r.capture].file, r.connection->summary.id);
}

void write_pair_text(std::ostream& out, const Comparison& cmp, const PairComparison& p) {
  const std::string pair = p.name();
  if (!p.before.tried) {
    fmt::print(out, "pair {}: tried in NEW only: {}, {}\n", pair, to_string(p.after.verdict),
               count_of(p.after.connections, "connection"));
  } else if (!p.after.tried) {
    fmt::print(out, "pair {}: tried in OLD only (not in NEW): {}, {}\n", pair,
               to_string(p.before.verdict), count_of(p.before.connections, "connection"));
  } else if (p.before.verdict != p.after.verdict) {
    fmt::print(out, "pair {}: {} -> {}\n", pair, to_string(p.before.verdict),
               to_string(p.after.verdict));
  }
  for (const auto& [k, at] : p.changes.added)
    fmt::print(out, "pair {}: new {} [NEW {}]\n", pair, key_words(k, at),
               where_words(cmp.new_run.captures, at));
  for (const auto& [k, at] : p.changes.fixed)
    fmt::print(out, "pair {}: fixed {} [OLD {}]\n", pair, key_words(k, at),
               where_words(cmp.old_run.captures, at));
  for (const auto& [k, at] : p.changes.stayed)
    fmt::print(out, "pair {}: stayed {} [NEW {}]\n", pair, key_words(k, at),
               where_words(cmp.new_run.captures, at));
}

void write_connection_text(std::ostream& out, const Comparison& cmp,
                           const ConnectionComparison& c) {
  const std::string name = c.name();
  if (!c.before) {
    fmt::print(out, "connection {}: in NEW only ({}): {}\n", name,
               connection_words(cmp.new_run, *c.after),
               to_string(connection_verdict(*c.after->connection)));
  } else if (!c.after) {
    fmt::print(out, "connection {}: in OLD only ({}): {}\n", name,
               connection_words(cmp.old_run, *c.before),
               to_string(connection_verdict(*c.before->connection)));
  }
  const auto where = [](std::string_view run_name, const ComparedRun& run,
                        const std::optional<ConnectionRun>& r) {
    return r ? fmt::format("{} {}", run_name, connection_words(run, *r)) : std::string();
  };
  for (const auto& [k, at] : c.changes.added)
    fmt::print(out, "connection {}: new {} [{}]\n", name, key_words(k, at),
               where("NEW", cmp.new_run, c.after));
  for (const auto& [k, at] : c.changes.fixed)
    fmt::print(out, "connection {}: fixed {} [{}]\n", name, key_words(k, at),
               where("OLD", cmp.old_run, c.before));
  for (const auto& [k, at] : c.changes.stayed)
    fmt::print(out, "connection {}: stayed {} [{}]\n", name, key_words(k, at),
               where("NEW", cmp.new_run, c.after));
}

void write_text(std::ostream& out, const Comparison& cmp) {
  for (const PairComparison& p : cmp.pairs) write_pair_text(out, cmp, p);
  for (const ConnectionComparison& c : cmp.connections) write_connection_text(out, cmp, c);
  fmt::print(out,
             "mpa-check: compared {} ({}, {}) with {} ({}, {}): {} new, {} fixed, {} stayed over "
             "{} ({} tried in NEW only, {} in OLD only); {} matched\n",
             cmp.old_run.name, count_of(cmp.old_run.captures.size(), "capture"),
             count_of(cmp.old_run.connections(), "MPA connection"), cmp.new_run.name,
             count_of(cmp.new_run.captures.size(), "capture"),
             count_of(cmp.new_run.connections(), "MPA connection"), cmp.added, cmp.fixed,
             cmp.stayed, count_of(cmp.pairs.size(), "pair"), cmp.only_new, cmp.only_old,
             count_of(cmp.matched, "connection"));
}

// ---- the comparison as JSON

// "new_findings", "fixed", "stayed": each where it shows (new findings and those that stayed
// in NEW, fixed ones in OLD).
void add_changes_json(ordered_json& j, const Comparison& cmp, const Changes& ch) {
  for (const auto& [what, list, run] : {std::tuple{"new_findings", &ch.added, &cmp.new_run},
                                        std::tuple{"fixed", &ch.fixed, &cmp.old_run},
                                        std::tuple{"stayed", &ch.stayed, &cmp.new_run}}) {
    ordered_json items = ordered_json::array();
    for (const auto& [k, at] : *list) items.push_back(occurrence_json(run->captures, k, at));
    j[what] = std::move(items);
  }
}

ordered_json pair_json(const Comparison& cmp, const PairComparison& p) {
  const auto run_json = [](const PairRun& r) {
    return r.tried ? ordered_json{{"verdict", to_string(r.verdict)},
                                  {"connections", r.connections},
                                  {"initiator", r.initiator_label},
                                  {"responder", r.responder_label}}
                   : ordered_json(nullptr);
  };
  ordered_json j = {{"initiator", p.key.first},
                    {"responder", p.key.second},
                    {"old", run_json(p.before)},
                    {"new", run_json(p.after)}};
  add_changes_json(j, cmp, p.changes);
  return j;
}

ordered_json connection_json(const Comparison& cmp, const ConnectionComparison& c) {
  const auto ref_json = [](const ComparedRun& run, const std::optional<ConnectionRun>& r) {
    return r ? ordered_json{{"capture", run.captures[r->capture].file},
                            {"connection", r->connection->summary.id},
                            {"verdict", to_string(connection_verdict(*r->connection))}}
             : ordered_json(nullptr);
  };
  ordered_json j = {{"identity", identity_json(c.identity)},
                    {"ordinal", c.ordinal},
                    {"old", ref_json(cmp.old_run, c.before)},
                    {"new", ref_json(cmp.new_run, c.after)}};
  add_changes_json(j, cmp, c.changes);
  return j;
}

void write_json(std::ostream& out, const Comparison& cmp) {
  const auto run_json = [](const ComparedRun& run) {
    return ordered_json{{"report", run.name},
                        {"captures", run.captures.size()},
                        {"connections", run.connections()}};
  };
  ordered_json pairs = ordered_json::array(), connections = ordered_json::array();
  for (const PairComparison& p : cmp.pairs) pairs.push_back(pair_json(cmp, p));
  for (const ConnectionComparison& c : cmp.connections) {
    connections.push_back(connection_json(cmp, c));
  }
  const ordered_json doc = {{"version", 1},
                            {"old", run_json(cmp.old_run)},
                            {"new", run_json(cmp.new_run)},
                            {"pairs", std::move(pairs)},
                            {"connections", std::move(connections)},
                            {"summary",
                             {{"new", cmp.added},
                              {"fixed", cmp.fixed},
                              {"stayed", cmp.stayed},
                              {"pairs", cmp.pairs.size()},
                              {"pairs_in_new_only", cmp.only_new},
                              {"pairs_in_old_only", cmp.only_old},
                              {"connections_matched", cmp.matched},
                              {"exit_status", cmp.exit_status()}}}};
  out << doc.dump(2, ' ', false, kInvalidUtf8) << '\n';
}

}  // namespace

int write_comparison_text(std::ostream& out, const std::string& old_name,
                          const std::vector<CaptureReport>& old_run, const std::string& new_name,
                          const std::vector<CaptureReport>& new_run) {
  const Comparison cmp = compare({old_name, old_run}, {new_name, new_run});
  write_text(out, cmp);
  return cmp.exit_status();
}

int write_comparison_json(std::ostream& out, const std::string& old_name,
                          const std::vector<CaptureReport>& old_run, const std::string& new_name,
                          const std::vector<CaptureReport>& new_run) {
  const Comparison cmp = compare({old_name, old_run}, {new_name, new_run});
  write_json(out, cmp);
  return cmp.exit_status();
}

}  // namespace mpa::report
