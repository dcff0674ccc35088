// The plugfest corpus (see plugfest.h).
#include "plugfest.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "corpus.h"
#include "faults.h"
#include "generator.h"
#include "scenario.h"

namespace mpa::synth {
namespace {

// An implementation at the plugfest: where it is and how it opens a connection.
struct Implementation {
  const char* key;  // as the matrix names it (the hosts file's name and version, or the guess)
  std::array<std::uint8_t, 4> ipv4;
  std::array<std::uint8_t, 6> mac;
  std::uint8_t revision;       // the highest it speaks (a pair uses the lower of the two)
  bool m;                      // asks for markers (its frame's M)
  bool c;                      // asks for CRCs (its frame's C)
  std::uint16_t private_data;  // octets of private data (the IRD/ORD block included at Rev 2)
  std::uint16_t ird, ord;      // Rev 2
  bool siw = false;  // Linux siw's habits: its Reply echoes the Request's flags; its Terminate
                     // Control has the Layer and EType nibbles swapped
};

// Ardent by its address, Birch by its lab's subnet, Cobalt by its MAC prefix (its address is
// handed out by DHCP); the fourth, at 192.0.2.60, is in no hosts file: its Rev 2 Requests look
// like Linux siw's, and so do Cobalt's (private data only the IRD/ORD block), which the hosts
// file names all the same. siw recognises itself in a Reply to such a Request (it echoes the
// Request's flags), and its Terminate layout is then read as siw's.
const Implementation kArdent{
    "Ardent RNIC 2.1", {192, 0, 2, 11}, {0x02, 0xa0, 0, 0, 0, 0x11}, 2, false, true, 16, 16, 16};
const Implementation kBirch{
    "Birch 0.9", {192, 0, 2, 33}, {0x02, 0xb1, 0, 0, 0, 0x33}, 1, true, true, 0, 0, 0};
const Implementation kCobalt{
    "Cobalt NIC 5.0", {198, 51, 100, 7}, {0x02, 0xc0, 0xba, 0, 0, 0x07}, 2, false, true, 4, 32, 32};
const Implementation kSiw{"looks like Linux siw",
                          {192, 0, 2, 60},
                          {0x02, 0x00, 0x5e, 0, 0, 0x60},
                          2,
                          false,
                          false,
                          4,
                          16,
                          16,
                          true};

// A fault a recipe makes, and the side whose rule it breaks (the recipes used here all break
// an Initiator's rule).
struct Fault {
  const char* recipe;
  const char* side = "initiator";
};

struct Pair {
  const Implementation* initiator;
  const Implementation* responder;
  std::optional<Fault> fault;
  bool capture_ends_after_request = false;
};

Scenario pair_scenario(const std::string& name, const Pair& p, std::uint64_t start_us,
                       PlugfestConnection& expected) {
  const Implementation& i = *p.initiator;
  const Implementation& r = *p.responder;
  Scenario s = base_scenario(name);
  s.start_time_us = start_us;
  s.initiator.messages = mixed_messages(4, {100, 1000, 17, 602});
  s.responder.messages = mixed_messages(4, {602, 3, 1000, 101});
  s.ipv4 = {{i.ipv4, r.ipv4}};
  s.mac = {{i.mac, r.mac}};
  const std::uint8_t revision = std::min(i.revision, r.revision);
  set_revision(s, revision);
  s.initiator.frame.m = i.m;
  s.initiator.frame.c = i.c;
  s.responder.frame.m = r.m;
  s.responder.frame.c = r.siw ? i.c : r.c;  // siw echoes the Request's flags
  // The Responder's ORD never exceeds the Initiator's IRD.
  if (revision == 2) set_ird_ord(s, i.ird, i.ord, r.ird, std::min(r.ord, i.ird));
  set_private_data(s, i.private_data, r.private_data);
  s.expected.notes = implied_notes(s);
  if (p.fault) {
    const FaultRecipe* recipe = find_fault(p.fault->recipe);
    if (!recipe) throw std::logic_error(std::string("no fault recipe ") + p.fault->recipe);
    apply_fault(s, *recipe);
    if (r.siw) {
      // siw answers the error with its own Terminate layout.
      for (MessageSpec& m : s.responder.messages) {
        if (m.terminate) m.terminate->siw_layout = true;
      }
    }
  }
  if (p.capture_ends_after_request) {
    apply_fault(s, *find_fault("startup.no-reply"));
    s.expected.notes.erase(
        std::remove(s.expected.notes.begin(), s.expected.notes.end(), "connection.closed"),
        s.expected.notes.end());
  }
  expected.initiator = i.key;
  expected.responder = r.key;
  for (const std::string& id : s.expected.findings) {
    expected.findings.push_back(fmt::format("{}@{}", id, p.fault ? p.fault->side : "initiator"));
  }
  if (p.fault && r.siw) {
    for (const MessageSpec& m : s.responder.messages) {
      if (m.terminate && m.terminate->siw_layout) {
        expected.findings.push_back("rdmap.terminate-encoding@responder");
        break;
      }
    }
  }
  expected.notes = s.expected.notes;
  s.summary = fmt::format("{} -> {}", i.key, r.key);
  return s;
}

struct Session {
  const char* name;
  const char* when;
  std::uint64_t start_us;
  std::vector<Pair> pairs;
};

// 2026-05-12 and 2026-05-13 (UTC).
constexpr std::uint64_t kDay1 = 1778544000000000ull;
constexpr std::uint64_t kDay2 = kDay1 + 86400000000ull;
constexpr std::uint64_t kHour = 3600000000ull;

std::vector<Session> sessions(int day) {
  const std::uint64_t base = day == 1 ? kDay1 : kDay2;
  // Day 1: Birch pads some FPDUs with garbage (a warning), Cobalt sends a bad CRC (an error;
  // siw answers it with a Terminate in its own layout). Overnight Birch fixes its pads, and
  // Ardent's new marker code writes a wrong FPDUPTR, which only Birch (asking for markers) sees.
  const std::optional<Fault> birch =
      day == 1 ? std::optional<Fault>(Fault{"fpdu.pad-nonzero"}) : std::nullopt;
  const std::optional<Fault> ardent =
      day == 2 ? std::optional<Fault>(Fault{"marker.fpduptr-mismatch"}) : std::nullopt;
  const Fault cobalt{"fpdu.crc-mismatch"};
  return {
      {"session-1",
       "09:00",
       base + 9 * kHour,
       {{&kArdent, &kBirch, ardent}, {&kBirch, &kArdent, birch}, {&kSiw, &kArdent, {}}}},
      {"session-2",
       "11:00",
       base + 11 * kHour,
       {{&kCobalt, &kArdent, cobalt},
        {&kBirch, &kCobalt, birch},
        {&kArdent, &kSiw, {}},
        {&kCobalt, &kSiw, cobalt}}},
      {"session-3",
       "14:00",
       base + 14 * kHour,
       {{&kArdent, &kCobalt, {}},
        {&kArdent, &kCobalt, {}},
        {&kSiw, &kBirch, {}},
        {&kBirch, &kSiw, {}, true}}},
  };
}

Bytes concatenated(const std::vector<Scenario>& scenarios) {
  std::vector<CapturedFrame> frames;
  for (const Scenario& s : scenarios) {
    const std::vector<CapturedFrame> more = generate_frames(s);
    frames.insert(frames.end(), more.begin(), more.end());
  }
  return encode_pcap(frames, 262144);
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : std::string(sep)) + item;
  return out;
}

}  // namespace

std::vector<PlugfestCapture> plugfest_captures() {
  std::vector<PlugfestCapture> out;
  for (const int day : {1, 2}) {
    for (const Session& session : sessions(day)) {
      PlugfestCapture cap;
      cap.path = fmt::format("day{}/{}.pcap", day, session.name);
      std::vector<Scenario> scenarios;
      std::vector<std::string> pairs;
      for (std::size_t k = 0; k < session.pairs.size(); ++k) {
        PlugfestConnection expected;
        scenarios.push_back(pair_scenario(fmt::format("plugfest-day{}-{}-{}", day, session.name, k),
                                          session.pairs[k], session.start_us + k * 200000,
                                          expected));
        pairs.push_back(expected.initiator + " -> " + expected.responder +
                        (expected.findings.empty() ? std::string()
                                                   : " (" + join(expected.findings, ", ") + ")") +
                        (session.pairs[k].capture_ends_after_request
                             ? std::string(" (the capture ends after its Request)")
                             : std::string()));
        cap.connections.push_back(std::move(expected));
      }
      cap.summary = fmt::format("day {}, {} (UTC): {}", day, session.when, join(pairs, "; "));
      cap.pcap = [scenarios] { return concatenated(scenarios); };
      out.push_back(std::move(cap));
    }
  }
  return out;
}

std::string plugfest_hosts() {
  return "# plugfest.hosts: who is who at the synthetic plugfest of captures/plugfest/\n"
         "# (written by mpa-synth --corpus; mpa-check --hosts reads it). One host or range a\n"
         "# line: an address, a subnet or a MAC prefix, then the implementation's name and\n"
         "# version. 192.0.2.60 is in no line: its startup frames name it, as a guess.\n"
         "192.0.2.11        \"Ardent RNIC\" 2.1   # one address\n"
         "192.0.2.32/28     Birch 0.9           # Birch's lab: a subnet\n"
         "02:c0:ba          \"Cobalt NIC\" 5.0    # Cobalt's cards by MAC prefix (DHCP "
         "addresses)\n";
}

std::vector<std::uintmax_t> write_plugfest(const std::filesystem::path& dir,
                                           const std::vector<PlugfestCapture>& captures) {
  std::vector<std::uintmax_t> sizes;
  std::string tsv =
      "# day\tcapture\tconnection\tinitiator\tresponder\terrors_and_warnings\tnotes\n"
      "# errors_and_warnings: catalogue id@side that breaks the rule, as the fault recipes "
      "intend\n";
  for (const PlugfestCapture& cap : captures) {
    std::filesystem::create_directories((dir / cap.path).parent_path());
    const Bytes pcap = cap.pcap();
    write_file(dir / cap.path, pcap);
    sizes.push_back(pcap.size());
    for (std::size_t k = 0; k < cap.connections.size(); ++k) {
      const PlugfestConnection& c = cap.connections[k];
      tsv += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", cap.path.substr(0, cap.path.find('/')),
                         cap.path, k, c.initiator, c.responder, join(c.findings, ","),
                         join(c.notes, ","));
    }
  }
  const auto text = [&dir](const char* name, const std::string& content) {
    std::ofstream out(dir / name, std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
  };
  text("plugfest.hosts", plugfest_hosts());
  text("expected.tsv", tsv);
  return sizes;
}

std::string plugfest_readme(const std::vector<PlugfestCapture>& captures,
                            const std::vector<std::uintmax_t>& sizes) {
  std::string out =
      "\n## plugfest/: two days of a synthetic plugfest\n\n"
      "Four implementations with their own addresses and startup habits connect pairwise: "
      "Ardent RNIC 2.1\n"
      "(192.0.2.11: Rev 2, IRD/ORD 16/16, 16 octets of private data), Birch 0.9 (192.0.2.33: "
      "Rev 1, asks for\n"
      "markers), Cobalt NIC 5.0 (198.51.100.7, MAC 02:c0:ba:00:00:07: Rev 2, IRD/ORD 32/32, no "
      "private data\n"
      "beyond the IRD/ORD block, so its Requests look like Linux siw's) and "
      "a Linux siw\n"
      "host at 192.0.2.60 (Rev 2, no CRC asked, private data only the IRD/ORD block; its Reply "
      "echoes the\n"
      "Request's flags, its Terminate has siw's layout). A pair speaks the lower revision of the "
      "two. The\n"
      "faults come from the fault recipes: on day 1 Birch as Initiator sends an FPDU with "
      "non-zero pad\n"
      "octets (`fault-fpdu.pad-nonzero`) and Cobalt as Initiator a wrong CRC "
      "(`fault-fpdu.crc-mismatch`, every\n"
      "day); on day 2 Birch's pads are fixed and Ardent as Initiator writes a wrong FPDUPTR "
      "where Birch asks\n"
      "for markers (`fault-marker.fpduptr-mismatch`).\n\n"
      "`plugfest.hosts` names three of them (`mpa-check --hosts`: an address, a subnet, a MAC "
      "prefix); the\n"
      "siw host is named by its stack fingerprint, as a guess. `expected.tsv` lists every "
      "connection with\n"
      "the errors and warnings its recipes intend and the side that breaks each rule; "
      "`tests/cli` predicts\n"
      "the interop matrix of each day and the comparison of the two from it. Never tried: every "
      "implementation\n"
      "with itself, Cobalt -> Birch and siw -> Cobalt; Birch -> siw is tried once but the "
      "capture ends after\n"
      "its Request (not judged).\n\n"
      "| File | Connections (Initiator -> Responder) | Size |\n| --- | --- | --- |\n";
  for (std::size_t i = 0; i < captures.size(); ++i) {
    out += fmt::format("| `plugfest/{}` | {} | {} |\n", captures[i].path, captures[i].summary,
                       sizes[i]);
  }
  return out;
}

}  // namespace mpa::synth
