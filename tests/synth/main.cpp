// mpa-synth: writes pcap captures of synthetic MPA (RFC 5044 / RFC 6581) conversations,
// valid or with one chosen fault, and the bundled corpus of captures/.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "corpus.h"
#include "faults.h"
#include "generator.h"

namespace {

using namespace mpa::synth;

struct Options {
  std::string output, scenario, fault, corpus;
  bool list_scenarios = false, list_faults = false;
  int rev = 1;
  int request_m = 0, reply_m = 0, request_c = 1, reply_c = 1;
  int request_pd = 0, reply_pd = 0;
  std::string request_pd_hex;
  std::vector<int> ird_ord;
  std::string request_abcd, reply_abcd, p2p;
  std::size_t delayed = 0;
  std::size_t initiator_messages = 8, responder_messages = 8, batch = 3;
  std::vector<std::size_t> sizes = kDefaultSizes;
  std::string segmentation = "one";
  std::vector<std::string> reorder, duplicate, drop, fragment;
  std::vector<std::uint32_t> isn, mss;
  std::optional<std::uint32_t> wrap_after;
  bool ipv6 = false;
  std::optional<std::uint16_t> vlan;
  std::string wrap;  // an encapsulation name (encapsulation.h)
  std::uint16_t tunnel_port = 0;
  std::string underlay = "ipv4", outer_addresses;  // of --wrap; outer_addresses empty: its own
  std::optional<std::size_t> fragment_size;        // every IP packet cut (fragmentation.h)
  std::string fragment_order = "in-order";
  bool fragment_outer = false;
  std::string close = "fin", closer = "initiator";
  std::uint32_t snaplen = 262144;
  std::optional<std::uint64_t> seed;
};

void add_selection_options(CLI::App& app, Options& o) {
  app.add_option("-o,--output", o.output, "Capture file to write");
  app.add_option("--scenario", o.scenario,
                 "Write the built-in scenario NAME (see --list-scenarios)");
  app.add_flag("--list-scenarios", o.list_scenarios,
               "List the built-in scenarios (the corpus) and exit");
  app.add_option("--fault", o.fault,
                 "Put fault ID (a catalogue id, see --list-faults) into the conversation");
  app.add_flag("--list-faults", o.list_faults, "List the fault ids and exit");
  app.add_option("--corpus", o.corpus,
                 "Write the whole bundled corpus (pcaps, README.md, expected.tsv) into DIR");
}

void add_startup_options(CLI::App& app, Options& o) {
  app.add_option("--rev", o.rev, "MPA revision of both frames: 0, 1, 2 or 129")
      ->check(CLI::IsMember({0, 1, 2, 129}));
  app.add_option("--request-m", o.request_m, "M bit of the Request (markers Responder->Initiator)")
      ->check(CLI::Range(0, 1));
  app.add_option("--reply-m", o.reply_m, "M bit of the Reply (markers Initiator->Responder)")
      ->check(CLI::Range(0, 1));
  app.add_option("--request-c", o.request_c, "C bit of the Request")->check(CLI::Range(0, 1));
  app.add_option("--reply-c", o.reply_c, "C bit of the Reply (CRCs on iff either C is 1)")
      ->check(CLI::Range(0, 1));
  app.add_option("--request-pd", o.request_pd, "Private data octets in the Request (0..512)")
      ->check(CLI::Range(0, 512));
  app.add_option(
      "--request-pd-hex", o.request_pd_hex,
      "Private data of the Request: exactly these octets, as hex (after the IRD/ORD block)");
  app.add_option("--reply-pd", o.reply_pd, "Private data octets in the Reply (0..512)")
      ->check(CLI::Range(0, 512));
  app.add_option("--ird-ord", o.ird_ord,
                 "Rev 2: Request IRD, Request ORD, Reply IRD, Reply ORD (e.g. 16,16,16,16)")
      ->expected(4)
      ->delimiter(',');
  app.add_option("--request-abcd", o.request_abcd,
                 "Rev 2: A B C D flags of the Request as four 0/1 digits");
  app.add_option("--reply-abcd", o.reply_abcd,
                 "Rev 2: A B C D flags of the Reply as four 0/1 digits");
  app.add_option("--p2p", o.p2p,
                 "Rev 2 peer-to-peer with this RTR (Request offers all): send, write or read")
      ->check(CLI::IsMember({"send", "write", "read"}));
  app.add_option("--delayed", o.delayed,
                 "Delayed startup: N streaming octets each way before the Request");
}

void add_traffic_options(CLI::App& app, Options& o) {
  app.add_option("--initiator-messages", o.initiator_messages,
                 "RDMAP messages the Initiator sends (Send/Write mix)");
  app.add_option("--responder-messages", o.responder_messages,
                 "RDMAP messages the Responder sends");
  app.add_option("--sizes", o.sizes,
                 "Message payload sizes, cycled (larger than MULPDU: several DDP segments)")
      ->delimiter(',');
  app.add_option("--segmentation", o.segmentation, "one | packed | middlebox:N | bytes");
  app.add_option("--batch", o.batch, "FPDUs a side sends before the other side's turn");
  app.add_option("--reorder", o.reorder,
                 "i:N or r:N: that full-operation data segment is overtaken by the next one");
  app.add_option("--duplicate", o.duplicate,
                 "i:N or r:N: that segment is retransmitted identically");
  app.add_option("--drop", o.drop,
                 "i:N or r:N: that segment is missing from the capture (capture loss)");
  app.add_option("--fragment", o.fragment, "i:N or r:N: that segment is sent as two IP fragments");
  app.add_option("--fragment-size", o.fragment_size,
                 "Every IP packet whose payload exceeds SIZE octets is sent as fragments of SIZE "
                 "(rounded down to a multiple of 8): IPv4 fragments, or IPv6 Fragment headers");
  app.add_option("--fragment-order", o.fragment_order,
                 "Fragments of --fragment-size in-order or reversed (the last one first)")
      ->check(CLI::IsMember({"in-order", "reversed"}));
  app.add_flag("--fragment-outer", o.fragment_outer,
               "--fragment-size cuts the outer IP packet of --wrap (the tunnel's), not the inner");
}

// Of --wrap's outer IP header; the wrappers without one ignore them.
void add_underlay_options(CLI::App& app, Options& o) {
  std::string exempt;
  for (const auto& [name, e] : named_encapsulations()) {
    if (!has_ip_underlay(e.wrapper)) exempt += (exempt.empty() ? "" : ", ") + name;
  }
  app.add_option("--underlay", o.underlay,
                 "Outer IP of --wrap: ipv4 (198.51.100.0/24, default) or ipv6 (2001:db8:5100::/48)"
                 "; ignored without an IP underlay: " +
                     exempt)
      ->check(CLI::IsMember({"ipv4", "ipv6"}));
  app.add_option("--outer-addresses", o.outer_addresses,
                 "Outer addresses and MACs of --wrap: swapped with the direction as tunnel "
                 "endpoints send (default but for erspan-*) or mirror, the same both ways as a "
                 "mirror session sends (erspan-*'s default); ignored without an IP underlay: " +
                     exempt)
      ->check(CLI::IsMember({"swapped", "mirror"}));
}

void add_tcp_options(CLI::App& app, Options& o) {
  app.add_option("--isn", o.isn, "Initial sequence numbers: INITIATOR,RESPONDER")
      ->expected(2)
      ->delimiter(',');
  app.add_option("--wrap-after", o.wrap_after,
                 "Choose ISNs so sequence numbers wrap N octets into full operation");
  app.add_option("--mss", o.mss, "MSS advertised in the SYNs: INITIATOR,RESPONDER")
      ->expected(2)
      ->delimiter(',');
  app.add_flag("--ipv6", o.ipv6, "IPv6 instead of IPv4");
  app.add_option("--vlan", o.vlan, "802.1Q VLAN id")->check(CLI::Range(0, 4095));
  std::string wrappers;
  for (const auto& [name, e] : named_encapsulations())
    wrappers += (wrappers.empty() ? "" : ", ") + name;
  app.add_option(
      "--wrap", o.wrap,
      "Wrap every frame: NAME or NAME:ID (VNI, key, session, label), NAME one of " + wrappers);
  app.add_option("--tunnel-port", o.tunnel_port,
                 "UDP port of --wrap vxlan/geneve (default IANA's)");
  add_underlay_options(app, o);
  app.add_option("--close", o.close, "fin (graceful), rst (abrupt) or none")
      ->check(CLI::IsMember({"fin", "rst", "none"}));
  app.add_option("--closer", o.closer, "initiator or responder")
      ->check(CLI::IsMember({"initiator", "responder"}));
  app.add_option("--snaplen", o.snaplen, "Snapshot length of the capture");
  app.add_option("--seed", o.seed,
                 "Seed for ISNs, ports and payloads (default: from the scenario name)");
}

SegmentRef parse_segment_ref(const std::string& text) {
  if (text.size() < 3 || text[1] != ':' || (text[0] != 'i' && text[0] != 'r')) {
    throw CLI::ValidationError("segment reference", "expected i:N or r:N, got '" + text + "'");
  }
  return {text[0] == 'i' ? Dir::Initiator : Dir::Responder, std::stoul(text.substr(2))};
}

std::vector<SegmentRef> parse_segment_refs(const std::vector<std::string>& texts) {
  std::vector<SegmentRef> out;
  for (const std::string& t : texts) out.push_back(parse_segment_ref(t));
  return out;
}

EnhancedBlock with_abcd(EnhancedBlock block, const std::string& digits) {
  if (digits.size() != 4 || digits.find_first_not_of("01") != std::string::npos) {
    throw CLI::ValidationError("ABCD flags", "expected four 0/1 digits, got '" + digits + "'");
  }
  block.peer_to_peer = digits[0] == '1';
  block.send_rtr = digits[1] == '1';
  block.write_rtr = digits[2] == '1';
  block.read_rtr = digits[3] == '1';
  return block;
}

void apply_enhanced_options(Scenario& s, const Options& o) {
  if (!o.ird_ord.empty()) {
    auto v = [&](int i) {
      return static_cast<std::uint16_t>(o.ird_ord[static_cast<std::size_t>(i)]);
    };
    set_ird_ord(s, v(0), v(1), v(2), v(3));
  }
  if (!o.p2p.empty()) {
    make_peer_to_peer(s, o.p2p == "send"    ? MessageKind::SendRtr
                         : o.p2p == "write" ? MessageKind::WriteRtr
                                            : MessageKind::ReadRtr);
  }
  if (!o.request_abcd.empty() || !o.reply_abcd.empty()) {
    if (!s.initiator.frame.enhanced) set_ird_ord(s, 16, 16, 16, 16);
    if (!o.request_abcd.empty())
      s.initiator.frame.enhanced = with_abcd(*s.initiator.frame.enhanced, o.request_abcd);
    if (!o.reply_abcd.empty())
      s.responder.frame.enhanced = with_abcd(*s.responder.frame.enhanced, o.reply_abcd);
  }
}

void apply_startup_options(Scenario& s, const Options& o) {
  set_revision(s, static_cast<std::uint8_t>(o.rev));
  if (o.rev != 0 && o.rev != 129) {
    s.initiator.frame.m = o.request_m;
    s.responder.frame.m = o.reply_m;
    s.initiator.frame.c = o.request_c;
    s.responder.frame.c = o.reply_c;
  }
  apply_enhanced_options(s, o);
  set_private_data(s, static_cast<std::uint16_t>(o.request_pd),
                   static_cast<std::uint16_t>(o.reply_pd));
  if (!o.request_pd_hex.empty()) {
    const std::string& hex = o.request_pd_hex;
    if (hex.size() % 2 != 0 ||
        hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      throw CLI::ValidationError("--request-pd-hex", "expected pairs of hex digits");
    }
    Bytes octets;
    for (std::size_t i = 0; i < hex.size(); i += 2) {
      octets.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
    }
    StartupFrameSpec& request = s.initiator.frame;
    const std::size_t enhanced = request.enhanced ? 4 : 0;
    if (enhanced + octets.size() > 512)
      throw CLI::ValidationError("--request-pd-hex", "more than 512 octets");
    request.private_data_length = static_cast<std::uint16_t>(enhanced + octets.size());
    request.private_data_octets = std::move(octets);
  }
  s.streaming_prefix = o.delayed;
}

void apply_traffic_options(Scenario& s, const Options& o) {
  s.initiator.messages = mixed_messages(o.initiator_messages, o.sizes);
  s.responder.messages = mixed_messages(o.responder_messages, o.sizes);
  const auto policy = SegmentationPolicy::parse(o.segmentation);
  if (!policy)
    throw CLI::ValidationError("--segmentation", "unknown policy '" + o.segmentation + "'");
  s.segmentation = *policy;
  s.batch = o.batch;
  s.effects.reorder = parse_segment_refs(o.reorder);
  s.effects.duplicate = parse_segment_refs(o.duplicate);
  s.effects.drop = parse_segment_refs(o.drop);
  s.effects.fragment = parse_segment_refs(o.fragment);
  if (o.fragment_size) {
    if (*o.fragment_size < 8) throw CLI::ValidationError("--fragment-size", "at least 8 octets");
    IpFragmentation f;
    f.size = *o.fragment_size;
    f.order = o.fragment_order == "reversed" ? FragmentOrder::Reversed : FragmentOrder::InOrder;
    f.outer = o.fragment_outer;
    s.effects.ip_fragments = f;
  } else if (o.fragment_order != "in-order" || o.fragment_outer) {
    throw CLI::ValidationError("--fragment-order/--fragment-outer", "need --fragment-size");
  }
}

void apply_tcp_options(Scenario& s, const Options& o) {
  if (o.isn.size() == 2) {
    s.initiator.tcp.isn = o.isn[0];
    s.responder.tcp.isn = o.isn[1];
    s.initiator.isn_given = s.responder.isn_given = true;
  }
  if (o.ipv6) s.initiator.tcp.mss = s.responder.tcp.mss = 1440;  // 1500-octet MTU
  if (o.mss.size() == 2) {
    s.initiator.tcp.mss = static_cast<std::uint16_t>(o.mss[0]);
    s.responder.tcp.mss = static_cast<std::uint16_t>(o.mss[1]);
  }
  s.wrap_after = o.wrap_after;
  s.ipv6 = o.ipv6;
  s.vlan = o.vlan;
  s.close = o.close == "fin" ? Ending::Fin : o.close == "rst" ? Ending::Rst : Ending::None;
  s.closer = o.closer == "initiator" ? Dir::Initiator : Dir::Responder;
  s.snaplen = o.snaplen;
  if (o.seed) s.seed = *o.seed;
}

std::optional<Encapsulation> wrap_from_options(const Options& o) {
  if (o.wrap.empty()) {
    if (o.underlay != "ipv4" || !o.outer_addresses.empty())
      throw CLI::ValidationError("--underlay/--outer-addresses", "need --wrap");
    return std::nullopt;
  }
  std::optional<Encapsulation> wrap = encapsulation_named(o.wrap);
  if (!wrap) throw CLI::ValidationError("--wrap", "unknown encapsulation '" + o.wrap + "'");
  wrap->udp_port = o.tunnel_port;
  wrap->underlay = o.underlay == "ipv6" ? Underlay::Ipv6 : Underlay::Ipv4;
  if (!o.outer_addresses.empty()) {
    wrap->outer_addresses =
        o.outer_addresses == "mirror" ? OuterAddresses::Mirror : OuterAddresses::PerDirection;
  }
  return wrap;
}

Scenario scenario_from_options(const Options& o) {
  Scenario s = base_scenario("mpa-synth");
  apply_traffic_options(s, o);  // before the startup options: --p2p prepends the RTR
  apply_startup_options(s, o);
  apply_tcp_options(s, o);
  if (!o.fault.empty()) {
    const FaultRecipe* recipe = find_fault(o.fault);
    if (!recipe)
      throw CLI::ValidationError("--fault", "unknown fault '" + o.fault + "' (see --list-faults)");
    apply_fault(s, *recipe);
  }
  s.effects.wrap = wrap_from_options(o);
  return s;
}

void list_scenarios() {
  for (const CorpusEntry& e : corpus_entries()) fmt::print("{:<48} {}\n", e.name, e.summary);
}

void list_faults() {
  for (const FaultRecipe& r : fault_recipes()) fmt::print("{:<38} {}\n", recipe_name(r), r.summary);
}

int run(const Options& o) {
  if (o.list_scenarios) return list_scenarios(), 0;
  if (o.list_faults) return list_faults(), 0;
  if (!o.corpus.empty()) {
    write_corpus(o.corpus);
    return 0;
  }
  if (o.output.empty()) throw CLI::ValidationError("--output", "an output file is required");
  if (!o.scenario.empty()) {
    const auto entry = find_corpus_entry(o.scenario);
    if (!entry) throw CLI::ValidationError("--scenario", "unknown scenario '" + o.scenario + "'");
    write_file(o.output, entry->pcap());
    return 0;
  }
  write_file(o.output, generate_pcap(scenario_from_options(o)));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "mpa-synth: writes pcap captures of synthetic iWARP (MPA, RFC 5044 / RFC 6581) "
      "conversations.\n"
      "Either a built-in scenario (--scenario, --list-scenarios), the whole corpus (--corpus DIR), "
      "or a\n"
      "conversation described by the options below, optionally with one --fault. Output is "
      "deterministic."};
  Options o;
  add_selection_options(app, o);
  add_startup_options(app, o);
  add_traffic_options(app, o);
  add_tcp_options(app, o);
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpa-synth: %s\n", e.what());
    return 1;
  }
}
