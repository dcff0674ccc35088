// The bundled corpus (see corpus.h).
#include "corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "conversation.h"
#include "faults.h"
#include "generator.h"
#include "mpa/diagnostics.h"
#include "plugfest.h"
#include "rfc_figures.h"

namespace mpa::synth {
namespace {

using Tweak = std::function<void(Scenario&)>;

Bytes concatenated_pcap(const std::vector<Scenario>& scenarios);

void add_note(std::vector<std::string>& notes, const std::string& id) {
  if (std::find(notes.begin(), notes.end(), id) == notes.end()) notes.push_back(id);
}

CorpusEntry entry_of(const Scenario& s) {
  return {s.name, s.summary, s.expected, [s] { return generate_pcap(s); }};
}

bool strictly_inside(std::size_t cut, std::size_t field_start) {
  return cut > field_start && cut < field_start + 4;
}

// Cuts of a middlebox turn that fall strictly inside a marker (first) or a CRC (second).
std::pair<std::size_t, std::size_t> cuts_inside_fields(const Turn& turn, std::size_t every) {
  std::pair<std::size_t, std::size_t> hits{0, 0};
  std::size_t base = 0;
  for (const Chunk& chunk : turn.chunks) {
    for (std::size_t cut = (base / every + 1) * every; cut < base + chunk.bytes.size();
         cut += every) {
      for (std::size_t m : chunk.marker_offsets) hits.first += strictly_inside(cut - base, m);
      hits.second += strictly_inside(cut - base, chunk.crc_offset);
    }
    base += chunk.bytes.size();
  }
  return hits;
}

// The corpus promises middlebox captures that cut inside markers and CRCs both ways.
void require_cuts_inside_markers_and_crcs(const Scenario& scenario) {
  const Scenario s = resolved(scenario);
  const Plan plan = build_plan(s);
  for (Dir d : {Dir::Initiator, Dir::Responder}) {
    std::pair<std::size_t, std::size_t> total{0, 0};
    for (const Turn& t : plan.turns) {
      if (t.dir != d || t.phase != Phase::FullOperation) continue;
      const auto hits = cuts_inside_fields(t, s.segmentation.every);
      total.first += hits.first;
      total.second += hits.second;
    }
    if (total.first == 0 || total.second == 0) {
      throw std::logic_error(s.name + ": the middlebox never cuts inside a marker and a CRC");
    }
  }
}

Scenario valid(const std::string& name, const std::string& summary, const Tweak& tweak) {
  Scenario s = base_scenario(name);
  s.summary = summary;
  tweak(s);
  s.expected.notes = implied_notes(s);
  return s;
}

void markers(Scenario& s, bool to_responder, bool to_initiator) {
  s.responder.frame.m = to_responder;
  s.initiator.frame.m = to_initiator;
}
void crc(Scenario& s, bool request, bool reply) {
  s.initiator.frame.c = request;
  s.responder.frame.c = reply;
}

void add_rev1_matrix(std::vector<Scenario>& out) {
  struct Grid {
    const char* name;
    bool to_r;
    bool to_i;
    const char* words;
  };
  const Grid grids[] = {
      {"none", false, false, "no markers"},
      {"both", true, true, "markers both ways"},
      {"to-responder", true, false, "markers Initiator->Responder only (Reply M=1)"},
      {"to-initiator", false, true, "markers Responder->Initiator only (Request M=1)"}};
  for (const Grid& g : grids) {
    for (bool on : {true, false}) {
      const std::string name =
          fmt::format("valid-rev1-markers-{}-crc-{}", g.name, on ? "on" : "off");
      out.push_back(valid(name,
                          fmt::format("Rev 1, {}, CRC {}", g.words,
                                      on ? "on (C=1 both)" : "off (C=0 both; CRC field zero)"),
                          [&](Scenario& s) {
                            markers(s, g.to_r, g.to_i);
                            crc(s, on, on);
                          }));
    }
  }
  out.push_back(valid("valid-rev1-crc-request-only",
                      "Rev 1, only the Request has C=1: CRCs on in both directions",
                      [](Scenario& s) { crc(s, true, false); }));
  out.push_back(
      valid("valid-rev1-crc-reply-only",
            "Rev 1, only the Reply has C=1: CRCs on in both directions; markers both ways",
            [](Scenario& s) {
              crc(s, false, true);
              markers(s, true, true);
            }));
}

void add_revisions(std::vector<Scenario>& out) {
  out.push_back(valid("valid-rev2-client-server",
                      "Rev 2, S=1, client-server (A=0), Request IRD/ORD 32/16, Reply 16/32",
                      [](Scenario& s) {
                        set_revision(s, 2);
                        set_ird_ord(s, 32, 16, 16, 32);
                      }));
  out.push_back(
      valid("valid-rev2-no-negotiation",
            "Rev 2 peer-to-peer (Write RTR), IRD/ORD 0x3FFF (no negotiation) echoed by the Reply; "
            "markers both ways",
            [](Scenario& s) {
              set_revision(s, 2);
              set_ird_ord(s, kNoNegotiation, kNoNegotiation, kNoNegotiation, kNoNegotiation);
              make_peer_to_peer(s, MessageKind::WriteRtr);
              markers(s, true, true);
            }));
  const std::pair<const char*, MessageKind> rtrs[] = {{"send", MessageKind::SendRtr},
                                                      {"write", MessageKind::WriteRtr},
                                                      {"read", MessageKind::ReadRtr}};
  for (const auto& [word, rtr] : rtrs) {
    const MessageKind kind = rtr;  // clang 14 cannot capture a structured binding
    out.push_back(
        valid(fmt::format("valid-rev2-p2p-{}-rtr", word),
              fmt::format("Rev 2 peer-to-peer: Request offers all RTRs, Reply accepts {0}; the "
                          "Initiator's first FPDU is the zero-length {0} RTR{1}",
                          word,
                          kind == MessageKind::ReadRtr
                              ? " (answered by a zero-length Read Response); markers both ways"
                              : ""),
              [kind](Scenario& s) {
                set_revision(s, 2);
                make_peer_to_peer(s, kind);
                if (kind == MessageKind::ReadRtr) markers(s, true, true);
              }));
  }
  out.push_back(valid(
      "valid-rev2-rdmap-extensions",
      "Rev 2, IRD/ORD 4 both ways: the Initiator sends RFC 7306 Immediate Data (with and without "
      "Solicited Event), an Atomic Request and two 3000-octet RDMA Read Requests (three requests "
      "outstanding, within the IRD), then a Send; the Responder answers them in order (the Read "
      "Responses in several DDP segments)",
      [](Scenario& s) {
        set_revision(s, 2);
        set_ird_ord(s, 4, 4, 4, 4);
        s.batch = 8;
        const auto msg = [](MessageKind kind, std::size_t size) {
          MessageSpec m;
          m.kind = kind;
          m.size = size;
          return m;
        };
        s.initiator.messages = {
            msg(MessageKind::ImmediateData, 0),  msg(MessageKind::ImmediateDataSe, 0),
            msg(MessageKind::AtomicRequest, 0),  msg(MessageKind::ReadRequest, 3000),
            msg(MessageKind::ReadRequest, 3000), msg(MessageKind::Send, 200)};
        s.responder.messages = {msg(MessageKind::AtomicResponse, 0),
                                msg(MessageKind::ReadResponse, 3000),
                                msg(MessageKind::ReadResponse, 3000)};
      }));
  Scenario own_rtr =
      valid("valid-rev2-p2p-responder-rtr",
            "Rev 2 peer-to-peer: the Request offers the Send RTR only, the Reply names the Write "
            "RTR only "
            "(its own, as RFC 6581 9.2 allows); the Initiator can send it: its first FPDU is the "
            "zero-length Write RTR",
            [](Scenario& s) {
              set_revision(s, 2);
              make_peer_to_peer(s, MessageKind::WriteRtr);
              EnhancedBlock& offer = *s.initiator.frame.enhanced;
              offer.write_rtr = offer.read_rtr = false;
            });
  own_rtr.expected.notes.push_back("startup.no-matching-rtr");
  out.push_back(own_rtr);
  // RFC 6581 10: a Responder without enhanced support closes on an enhanced Request, as it
  // must; no Reply is owed.
  Scenario unenhanced = valid(
      "valid-rev2-request-closed-by-unenhanced-responder",
      "Rev 2 enhanced Request (S=1); the Responder, which does not support enhanced connection "
      "establishment, acknowledges it and closes without a Reply (RFC 6581 10)",
      [](Scenario& s) {
        set_revision(s, 2);
        s.edit_plan = [](Plan& p) {
          close_instead_from(p, find_turn(p, Dir::Responder, Phase::Startup), Dir::Responder);
        };
      });
  unenhanced.expected.notes = {"startup.revision-2", "startup.no-reply"};
  out.push_back(unenhanced);
  // RFC 5044 7.1.2: after a Reject the ULP may use the connection for other purposes.
  Scenario other =
      valid("valid-reject-then-other-protocol",
            "the Reply rejects (R=1, CRC on); both sides leave MPA and exchange lines of another "
            "protocol over the same connection, then the Initiator closes",
            [](Scenario& s) {
              s.responder.frame.r = true;
              s.edit_plan = [](Plan& p) {
                p.turns.resize(find_turn(p, Dir::Responder, Phase::Startup) + 1);
                const char* lines[] = {"HELLO fallback to plain TCP\r\n", "OK plain TCP it is\r\n",
                                       "DATA 0123456789abcdef\r\n", "BYE\r\n"};
                Dir dir = Dir::Initiator;
                for (const char* line : lines) {
                  Turn t;
                  t.dir = dir;
                  t.phase = Phase::Streaming;
                  Chunk c;
                  c.kind = ChunkKind::Streaming;
                  append(c.bytes, std::string_view(line));
                  t.chunks.push_back(std::move(c));
                  p.turns.push_back(std::move(t));
                  dir = peer_of(dir);
                }
                close_instead_from(p, p.turns.size(), Dir::Initiator);
              };
            });
  other.expected.notes = {"startup.connection-rejected"};
  out.push_back(other);
  out.push_back(valid("valid-rev0",
                      "Rev 0 (RDMA Consortium): markers and CRC both ways, DDP/RDMAP version 0",
                      [](Scenario& s) { set_revision(s, 0); }));
  out.push_back(valid("valid-rev129-erdma",
                      "Rev 129 (Alibaba erdma): 8-octet extension after the header, not counted in "
                      "PD_Length; M=0, C=0",
                      [](Scenario& s) {
                        set_revision(s, 129);
                        set_private_data(s, 16, 16);
                      }));
}

void add_startup_variants(std::vector<Scenario>& out) {
  out.push_back(valid("valid-delayed-startup",
                      "Delayed startup: 200 streaming octets each way, then MPA; markers both ways "
                      "counted from full operation",
                      [](Scenario& s) {
                        s.streaming_prefix = 200;
                        markers(s, true, true);
                      }));
  for (std::uint16_t pd : {0, 16, 256, 512}) {
    out.push_back(
        valid(fmt::format("valid-private-data-{}", pd),
              fmt::format("Rev 1, {} octets of private data in the Request and in the Reply", pd),
              [pd](Scenario& s) { set_private_data(s, pd, pd); }));
  }
  out.push_back(valid("valid-rev2-private-data-512",
                      "Rev 2, 512 octets of private data (enhanced block included) each way",
                      [](Scenario& s) {
                        set_revision(s, 2);
                        set_private_data(s, 512, 512);
                      }));
}

void add_segmentation(std::vector<Scenario>& out) {
  auto policy = [](const char* text) { return *SegmentationPolicy::parse(text); };
  out.push_back(valid("valid-seg-one",
                      "One FPDU per segment, MSS-sized FPDUs (multi-segment messages split at "
                      "MULPDU); markers both ways",
                      [](Scenario& s) { markers(s, true, true); }));
  out.push_back(valid("valid-seg-packed", "Several FPDUs packed per segment; markers both ways",
                      [&](Scenario& s) {
                        s.segmentation = policy("packed");
                        s.batch = 6;
                        markers(s, true, true);
                      }));
  out.push_back(valid("valid-seg-packed-no-markers", "Several FPDUs packed per segment; no markers",
                      [&](Scenario& s) {
                        s.segmentation = policy("packed");
                        s.batch = 6;
                      }));
  out.push_back(valid("valid-seg-middlebox-139",
                      "A middlebox re-segments every 139 octets: cuts inside headers, markers and "
                      "CRCs (startup frames too); markers both ways",
                      [&](Scenario& s) {
                        s.segmentation = policy("middlebox:139");
                        markers(s, true, true);
                        s.responder.messages = mixed_messages(8, kDefaultSizes);
                      }));
  out.push_back(valid("valid-seg-middlebox-1000-no-markers",
                      "A middlebox re-segments every 1000 octets; no markers",
                      [&](Scenario& s) { s.segmentation = policy("middlebox:1000"); }));
  out.push_back(valid("valid-seg-bytes",
                      "One octet per segment, startup frames included; markers both ways",
                      [&](Scenario& s) {
                        s.segmentation = policy("bytes");
                        markers(s, true, true);
                        s.initiator.messages = mixed_messages(4, {30, 3, 500, 121});
                        s.responder.messages = mixed_messages(3, {60, 2, 480});
                      }));
}

void add_tcp_variants(std::vector<Scenario>& out) {
  out.push_back(valid("valid-out-of-order",
                      "Segments overtaken by the next segment of the same sender (both "
                      "directions); markers both ways",
                      [](Scenario& s) {
                        markers(s, true, true);
                        s.effects.reorder = {{Dir::Initiator, 1}, {Dir::Responder, 3}};
                      }));
  out.push_back(valid("valid-duplicates",
                      "Identical retransmissions of already delivered segments (both directions); "
                      "markers both ways",
                      [](Scenario& s) {
                        markers(s, true, true);
                        s.effects.duplicate = {{Dir::Initiator, 1}, {Dir::Responder, 0}};
                      }));
  out.push_back(valid("valid-seq-wrap",
                      "TCP sequence numbers wrap 700 octets into full operation in both "
                      "directions; markers both ways",
                      [](Scenario& s) {
                        markers(s, true, true);
                        s.wrap_after = 700;
                      }));
  out.push_back(valid("valid-seq-wrap-middlebox",
                      "Sequence wrap 1002 octets into full operation with a 93-octet re-segmenting "
                      "middlebox (cuts inside markers and CRCs); markers both ways",
                      [](Scenario& s) {
                        markers(s, true, true);
                        s.wrap_after = 1002;
                        s.segmentation = *SegmentationPolicy::parse("middlebox:93");
                        s.responder.messages = mixed_messages(8, kDefaultSizes);
                      }));
  out.push_back(valid("valid-ipv6", "IPv6 (MSS 1440); markers both ways", [](Scenario& s) {
    s.ipv6 = true;
    s.initiator.tcp.mss = s.responder.tcp.mss = 1440;
    markers(s, true, true);
  }));
  out.push_back(
      valid("valid-vlan", "802.1Q VLAN 100 tag on every frame", [](Scenario& s) { s.vlan = 100; }));
  out.push_back(valid("valid-ipv6-vlan", "IPv6 inside VLAN 42; Rev 2", [](Scenario& s) {
    s.ipv6 = true;
    s.vlan = 42;
    s.initiator.tcp.mss = s.responder.tcp.mss = 1440;
    set_revision(s, 2);
  }));
  out.push_back(
      valid("valid-small-mss",
            "MSS 536 both ways (smaller MULPDU, more DDP segments per message); markers both ways",
            [](Scenario& s) {
              s.initiator.tcp.mss = s.responder.tcp.mss = 536;
              markers(s, true, true);
            }));
  out.push_back(valid(
      "valid-large-messages",
      "16 KiB Sends and Writes split into MULPDU-sized DDP segments; markers to the Responder",
      [](Scenario& s) {
        markers(s, true, false);
        s.initiator.messages = mixed_messages(4, {16384, 9000});
        s.responder.messages = mixed_messages(3, {16384});
      }));
  out.push_back(valid("valid-close-fin",
                      "Graceful close (FIN) at an FPDU boundary, by the Initiator",
                      [](Scenario&) {}));
  out.push_back(valid("valid-close-fin-responder",
                      "Graceful close (FIN) at an FPDU boundary, by the Responder",
                      [](Scenario& s) { s.closer = Dir::Responder; }));
  out.push_back(valid("valid-close-rst",
                      "Abortive close (RST) at an FPDU boundary; markers both ways",
                      [](Scenario& s) {
                        s.close = Ending::Rst;
                        markers(s, true, true);
                      }));
  out.push_back(valid("valid-close-rst-duplicated",
                      "Abortive close (RST) by the Responder, the RST captured twice: one TCP "
                      "connection, and its connection.closed notes name the side that reset",
                      [](Scenario& s) {
                        s.close = Ending::Rst;
                        s.closer = Dir::Responder;
                        s.effects.duplicate_rst = true;
                      }));
  out.push_back(valid("valid-loopback-mss",
                      "MSS 65495 both ways (Linux loopback): RFC 5044 4.5 gives a MULPDU of 65489, "
                      "shown capped at 64768",
                      [](Scenario& s) { s.initiator.tcp.mss = s.responder.tcp.mss = 65495; }));
}

// Non-MPA traffic carrying MPA's keys: HTTP downloads whose bodies hold
// "MPA ID Req Frame" after the HTTP header. No peer answers with a startup frame of its own,
// so no connection is MPA: no finding at all.
// RFC 5044 section 7.1.1 as published (Figure 8 and the Key field).
constexpr std::string_view kRfc5044Excerpt =
    "7.1.1  MPA Request and Reply Frame Format\n"
    "\n"
    "       0                   1                   2                   3\n"
    "       0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1\n"
    "      +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+\n"
    "   0  |                                                               |\n"
    "      +         Key (16 bytes containing \"MPA ID Req Frame\")          +\n"
    "   4  |      (4D 50 41 20 49 44 20 52 65 71 20 46 72 61 6D 65)        |\n"
    "      +         Or  (16 bytes containing \"MPA ID Rep Frame\")          +\n"
    "   8  |      (4D 50 41 20 49 44 20 52 65 70 20 46 72 61 6D 65)        |\n"
    "      +                                                               +\n"
    "   12 |                                                               |\n"
    "      +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+\n"
    "   16 |M|C|R| Res     |     Rev       |          PD_Length            |\n"
    "      +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+\n"
    "      |                                                               |\n"
    "      ~                                                               ~\n"
    "      ~                   Private Data                                ~\n"
    "      |                                                               |\n"
    "      |                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+\n"
    "      |                               |\n"
    "      +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+\n"
    "\n"
    "                     Figure 8: MPA Request/Reply Frame\n"
    "\n"
    "\n"
    "   Key: This field contains the \"key\" used to validate that the sender\n"
    "       is an MPA sender.  Initiator mode senders MUST set this field to\n"
    "       the fixed value \"MPA ID Req Frame\" or (in byte order) 4D 50 41 20\n"
    "       49 44 20 52 65 71 20 46 72 61 6D 65 (in hexadecimal).  Responder\n"
    "       mode receivers MUST check this field for the same value, and\n"
    "       close the connection and report an error locally if any other\n"
    "       value is detected.  Responder mode senders MUST set this field to\n"
    "       the fixed value \"MPA ID Rep Frame\" or (in byte order) 4D 50 41 20\n"
    "       49 44 20 52 65 70 20 46 72 61 6D 65 (in hexadecimal).  Initiator\n"
    "       mode receivers MUST check this field for the same value, and\n"
    "       close the connection and report an error locally if any other\n"
    "       value is detected.\n";

Turn streaming_turn(Dir dir, Bytes bytes, Ending ending = Ending::None) {
  Turn t;
  t.dir = dir;
  t.phase = Phase::Streaming;
  Chunk c;
  c.kind = ChunkKind::Streaming;
  c.bytes = std::move(bytes);
  t.chunks.push_back(std::move(c));
  t.ending = ending;
  return t;
}

Scenario http_download(const std::string& name, const std::string& path, const std::string& type,
                       const Bytes& body, std::uint64_t start_time_us) {
  Scenario s = base_scenario(name);
  s.start_time_us = start_time_us;
  s.edit_plan = [path, type, body](Plan& p) {
    Bytes get;
    append(get, "GET " + path + " HTTP/1.1\r\nHost: www.example.org\r\nAccept: */*\r\n\r\n");
    Bytes response;
    append(response,
           fmt::format("HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\n\r\n", type,
                       body.size()));
    append(response, body);
    p.turns = {streaming_turn(Dir::Initiator, std::move(get)),
               streaming_turn(Dir::Responder, std::move(response), Ending::Fin)};
  };
  return s;
}

CorpusEntry non_mpa_entry() {
  CorpusEntry e;
  e.name = "valid-non-mpa-http-downloads";
  e.summary =
      "Not MPA: two HTTP downloads whose bodies hold MPA keys after the HTTP header (RFC 5044's "
      "frame format text, and a capture of an MPA conversation); no peer answers with a startup "
      "frame, so no connection is MPA and nothing is reported";
  Bytes text;
  append(text, kRfc5044Excerpt);
  Scenario inner = base_scenario("valid-non-mpa-http-downloads-inner");
  const Bytes capture = generate_pcap(inner);
  const Scenario rfc =
      http_download(e.name + "-rfc", "/rfc/rfc5044.txt", "text/plain", text, 1704067200000000ull);
  const Scenario pcap = http_download(e.name + "-pcap", "/captures/valid.pcap",
                                      "application/vnd.tcpdump.pcap", capture, 1704067201000000ull);
  e.pcap = [rfc, pcap] { return concatenated_pcap({rfc, pcap}); };
  return e;
}

std::vector<Scenario> valid_scenarios() {
  std::vector<Scenario> out;
  add_rev1_matrix(out);
  add_revisions(out);
  add_startup_variants(out);
  add_segmentation(out);
  add_tcp_variants(out);
  for (const Scenario& s : out) {
    if (s.segmentation.kind == SegmentationPolicy::Kind::Middlebox &&
        s.markers_from(Dir::Initiator)) {
      require_cuts_inside_markers_and_crcs(s);
    }
  }
  return out;
}

CorpusEntry figures_entry() {
  CorpusEntry e;
  e.name = "rfc5044-figures";
  e.summary =
      "Two connections (Replies M=1 C=1): the first Initiator FPDU of connection 1 is RFC 5044 "
      "Figure 5 "
      "(CRC 52 23 99 83); in connection 2 a 492-octet first FPDU is followed by Figure 6 at stream "
      "offset 0x1ec (marker FPDUPTR 0x14 at 0x200, CRC 84 92 58 98)";
  e.expected.notes = {"connection.closed"};
  e.pcap = [] { return encode_pcap(rfc_figures_frames(), 262144); };
  return e;
}

// Connections one after the other in one capture.
Bytes concatenated_pcap(const std::vector<Scenario>& scenarios) {
  std::vector<CapturedFrame> frames;
  for (const Scenario& s : scenarios) {
    const std::vector<CapturedFrame> more = generate_frames(s);
    frames.insert(frames.end(), more.begin(), more.end());
  }
  return encode_pcap(frames, 262144);
}

CorpusEntry rev2_retry_entry() {
  const std::string name = "fault-interop.rev2-retried-as-rev1";
  Scenario refused = base_scenario(name);
  apply_fault(refused, *find_fault("interop.p2p-required"));
  Scenario retry = base_scenario(name + "-retry");
  retry.start_time_us = refused.start_time_us + 500000;
  CorpusEntry e;
  e.name = name;
  e.summary =
      "Rev 2 client-server Request rejected (R=1); the Initiator retries at once with Rev 1 on a "
      "new "
      "connection to the same server, which is accepted";
  e.expected.notes = {"interop.rev2-retried-as-rev1", "interop.p2p-required",
                      "startup.connection-rejected"};
  e.pcap = [refused, retry] { return concatenated_pcap({refused, retry}); };
  return e;
}

// Catalogue ids no capture is meant to show (the corpus should cover every wire-visible one;
// a recipe too large to bundle covers its id elsewhere).
std::vector<std::string> uncovered_ids(const std::vector<CorpusEntry>& entries) {
  std::vector<std::string> out;
  for (const DiagnosticInfo& d : catalogue()) {
    const std::string id(d.name);
    const auto recipes = fault_recipes();
    const bool elsewhere = std::any_of(recipes.begin(), recipes.end(), [&](const FaultRecipe& r) {
      return !r.bundled && r.id == id;
    });
    const bool covered =
        elsewhere || std::any_of(entries.begin(), entries.end(), [&](const CorpusEntry& e) {
          const auto& f = e.expected.findings;
          const auto& n = e.expected.notes;
          return std::find(f.begin(), f.end(), id) != f.end() ||
                 std::find(n.begin(), n.end(), id) != n.end();
        });
    if (!covered) out.push_back(id);
  }
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : std::string(sep)) + item;
  return out;
}

std::string with_severity(const std::string& id) {
  const std::optional<DiagId> d = find_diagnostic(id);
  return fmt::format("`{}` ({})", id, d ? to_string(info(*d).severity) : "not in the catalogue");
}

std::string verdict_of(const Expectation& e) {
  if (e.valid()) return "valid";
  std::vector<std::string> items;
  for (const std::string& id : e.findings) items.push_back(with_severity(id));
  return join(items, ", ");
}

std::string notes_of(const Expectation& e) {
  std::vector<std::string> items;
  for (const std::string& id : e.notes) items.push_back("`" + id + "`");
  return join(items, ", ");
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string readme(const std::vector<CorpusEntry>& entries,
                   const std::vector<std::uintmax_t>& sizes) {
  std::string out =
      "# captures/: the bundled MPA corpus\n\n"
      "Generated by `mpa-synth` (tests/synth/); do not edit by hand. Regenerate "
      "(byte-identical) with:\n\n"
      "    build/tests/synth/mpa-synth --corpus captures\n\n"
      "Every file is a classic pcap (LINKTYPE_ETHERNET, microsecond timestamps) of synthetic but "
      "realistic\n"
      "iWARP traffic: TCP handshake, MPA startup (RFC 5044 7.1 / RFC 6581), DDP/RDMAP ULPDUs (RFC "
      "5041/5040)\n"
      "in FPDUs with markers and CRC32c computed by the generator's own framing code, ACKs, and a "
      "close.\n"
      "Addresses are from the documentation ranges (192.0.2.0/24, 2001:db8::/32); the server port "
      "is 20049.\n\n"
      "**Expected verdict**: `valid` means no errors and no warnings; otherwise the listed "
      "error/warning ids\n"
      "and nothing else at those severities. **Notes expected** must appear; other notes are "
      "allowed. The same\n"
      "data, machine-readable, is in `expected.tsv` (file, verdict, errors/warnings, notes).\n\n"
      "Beside each capture, `<file>.expected.json` pins mpa-check's exact findings (connection, "
      "id,\n"
      "severity, error code, direction, frame) for the golden tests (`tests/golden/`); it is "
      "written by\n"
      "`cmake --build build --target update-expectations` and reviewed with `git diff`, never by\n"
      "this generator. A golden test also checks that each capture's findings agree with the "
      "verdict\n"
      "above.\n\n"
      "Why these files: the `valid-*` captures prove that a checker never cries wolf on a "
      "conformant peer,\n"
      "across every startup parameter (`valid-rev*`, `valid-private-data-*`, "
      "`valid-delayed-startup`), every\n"
      "way of cutting the byte stream (`valid-seg-*`), TCP and link-layer variety (reordering, "
      "retransmission,\n"
      "sequence wrap, IPv6, VLAN, closes). `rfc5044-figures.pcap` anchors the framing to the RFC's "
      "own\n"
      "examples. The `fault-*` captures prove that each diagnostic fires on exactly the fault it "
      "names.\n\n"
      "`fault-<id>.pcap` holds exactly the fault `<id>` of the diagnostics catalogue on an "
      "otherwise valid\n"
      "conversation (Rev 1, no markers, CRC on, unless the fault needs otherwise). Startup faults "
      "the RFC\n"
      "answers with a close end with that close; the others go on normally after the fault.\n"
      "`fault-<id>--<variant>.pcap` is another way to the same id, one a checker once "
      "misjudged.\n\n"
      "| File | What it shows (and why it exists) | Expected verdict | Notes expected | Size |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const CorpusEntry& e = entries[i];
    out += fmt::format("| `{}.pcap` | {} | {} | {} | {} |\n", e.name, e.summary,
                       verdict_of(e.expected), notes_of(e.expected), sizes[i]);
  }
  return out;
}

std::string expected_tsv(const std::vector<CorpusEntry>& entries) {
  std::string out = "# file\tverdict\terrors_and_warnings\tnotes\n";
  for (const CorpusEntry& e : entries) {
    out += fmt::format("{}.pcap\t{}\t{}\t{}\n", e.name, e.expected.valid() ? "valid" : "fault",
                       join(e.expected.findings, ","), join(e.expected.notes, ","));
  }
  return out;
}

}  // namespace

std::vector<std::string> implied_notes(const Scenario& s) {
  std::vector<std::string> notes;
  const std::uint8_t rev = s.initiator.frame.revision;
  if (rev == 0) add_note(notes, "startup.revision-0");
  if (rev == 2) add_note(notes, "startup.revision-2");
  if (rev == 129) add_note(notes, "startup.vendor-revision");
  if (s.streaming_prefix > 0) add_note(notes, "startup.streaming-prefix");
  if (s.initiator.frame.private_data_length > 256 || s.responder.frame.private_data_length > 256) {
    add_note(notes, "startup.private-data-over-256");
  }
  if (s.segmentation.ignores_boundaries()) add_note(notes, "fpdu.not-segment-aligned");
  if (s.close != Ending::None) add_note(notes, "connection.closed");
  if (!s.crc_enabled() && !s.responder.frame.r) add_note(notes, "startup.crc-disabled");
  return notes;
}

// A fault as captured in the field: inside an overlay tunnel or a mirror session, or sent as
// IP fragments. The findings are the plain capture's (tests/unit/encapsulation_test.cpp holds
// every wrapper and fragmentation to that; a fragmented datagram counts at the frame of its
// last fragment); these show it to a user.
std::vector<CorpusEntry> wrapped_entries() {
  std::vector<CorpusEntry> out;
  const FaultRecipe& crc = *find_fault("fpdu.crc-mismatch");
  const struct {
    const char* wrapper;
    const char* summary;
  } wraps[] = {
      {"vxlan", "inside VXLAN (VNI 42, UDP 4789) between 198.51.100.1 and 198.51.100.2"},
      {"erspan-ii", "as mirrored by ERSPAN type II (GRE, session 42) to 198.51.100.2"},
      {"erspan-iii", "as mirrored by ERSPAN type III (GRE 0x22EB, session 42) to 198.51.100.2"},
      {"geneve-options", "inside Geneve (VNI 42, UDP 6081) with two option words"},
      {"gre-key", "inside GRE (key 42) carrying IPv4 between 198.51.100.1 and 198.51.100.2"},
      {"ipip", "inside IP in IP (protocol 4) between 198.51.100.1 and 198.51.100.2"},
      {"mpls-pw", "carried by an MPLS Ethernet pseudowire with a control word"},
      {"qinq", "with two VLAN tags (802.1ad outer, 802.1Q inner)"},
  };
  for (const auto& w : wraps) {
    Scenario s = base_scenario(fmt::format("fault-fpdu.crc-mismatch--{}", w.wrapper));
    apply_fault(s, crc);
    s.summary = fmt::format("{}, {}", crc.summary, w.summary);
    s.effects.wrap = encapsulation_named(w.wrapper);
    out.push_back(entry_of(s));
  }
  {  // A cloud's traffic mirroring: both directions with the same outer addresses, over IPv6.
    Scenario s = base_scenario("fault-fpdu.crc-mismatch--vxlan-ipv6-mirror");
    apply_fault(s, crc);
    s.summary = fmt::format(
        "{}, as mirrored inside VXLAN (VNI 42) over IPv6 from 2001:db8:5100::1 to "
        "2001:db8:5100::2 in both directions",
        crc.summary);
    s.effects.wrap = encapsulation_named("vxlan");
    s.effects.wrap->underlay = Underlay::Ipv6;
    s.effects.wrap->outer_addresses = OuterAddresses::Mirror;
    out.push_back(entry_of(s));
  }
  const struct {
    const char* name;
    bool ipv6;
    std::size_t size;
    FragmentOrder order;
    const char* summary;
  } fragmented[] = {
      {"ip-fragments", false, 512, FragmentOrder::InOrder,
       "every IPv4 packet longer than 532 octets sent as fragments of 512 octets of payload"},
      {"ipv6-fragments", true, 504, FragmentOrder::Reversed,
       "every IPv6 packet longer than 544 octets sent as fragments of 504 octets (Fragment "
       "headers), the last fragment first"},
  };
  for (const auto& f : fragmented) {
    Scenario s = base_scenario(fmt::format("fault-fpdu.crc-mismatch--{}", f.name));
    apply_fault(s, crc);
    // The wrong CRC in a packet long enough to be cut: the error is found in a datagram.
    s.initiator.messages[1].tweaks.corrupt_crc = false;
    s.initiator.messages[3].tweaks.corrupt_crc = true;
    s.summary = fmt::format(
        "the Initiator's fourth FPDU (1000 octets of payload) has a wrong CRC; more FPDUs "
        "follow, {}",
        f.summary);
    s.ipv6 = f.ipv6;
    if (f.ipv6) s.initiator.tcp.mss = s.responder.tcp.mss = 1440;  // a 1500-octet MTU
    IpFragmentation cut;
    cut.size = f.size;
    cut.order = f.order;
    s.effects.ip_fragments = cut;
    out.push_back(entry_of(s));
  }
  // Captured on the sending host (TSO/GSO, BIG TCP): each side's FPDUs in super-segments of
  // up to 128 KiB; beyond 65535 octets IPv4 says total length 0 and IPv6 sends a Jumbo
  // Payload option.
  for (const bool ipv6 : {false, true}) {
    Scenario s = base_scenario(
        fmt::format("fault-fpdu.crc-mismatch--{}", ipv6 ? "ipv6-jumbo" : "ipv4-super-segments"));
    apply_fault(s, crc);
    s.initiator.messages = mixed_messages(150, {1454});
    const MessageSpec terminate = s.responder.messages.back();  // the recipe's answer
    s.responder.messages = mixed_messages(150, {1454});
    s.responder.messages.push_back(terminate);  // its last message: it answers the error
    s.initiator.messages[40].tweaks.corrupt_crc = true;
    s.batch = 150;
    s.super_segment = 128u << 10;
    s.ipv6 = ipv6;
    if (ipv6) s.initiator.tcp.mss = s.responder.tcp.mss = 1440;
    s.summary = fmt::format(
        "the Initiator's 41st message has a wrong CRC; captured on the sending host before "
        "segmentation offload: each side's FPDUs in {} super-segments of up to 128 KiB",
        ipv6 ? "IPv6 (Jumbo Payload option)" : "IPv4 (total length 0)");
    out.push_back(entry_of(s));
  }
  return out;
}

std::vector<CorpusEntry> corpus_entries() {
  std::vector<CorpusEntry> out;
  for (const Scenario& s : valid_scenarios()) out.push_back(entry_of(s));
  out.push_back(figures_entry());
  for (const FaultRecipe& r : fault_recipes()) {
    if (!r.bundled) continue;
    Scenario s = base_scenario("fault-" + recipe_name(r));
    s.summary = std::string(r.summary);
    apply_fault(s, r);
    out.push_back(entry_of(s));
  }
  for (const CorpusEntry& e : wrapped_entries()) out.push_back(e);
  out.push_back(rev2_retry_entry());
  out.push_back(non_mpa_entry());
  return out;
}

std::optional<CorpusEntry> find_corpus_entry(std::string_view name) {
  for (CorpusEntry& e : corpus_entries()) {
    if (e.name == name) return std::move(e);
  }
  return std::nullopt;
}

void write_corpus(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const std::vector<CorpusEntry> entries = corpus_entries();
  std::vector<std::uintmax_t> sizes;
  for (const CorpusEntry& e : entries) {
    const Bytes pcap = e.pcap();
    write_file(dir / (e.name + ".pcap"), pcap);
    sizes.push_back(pcap.size());
  }
  const std::vector<PlugfestCapture> plugfest = plugfest_captures();
  const std::vector<std::uintmax_t> plugfest_sizes = write_plugfest(dir / "plugfest", plugfest);
  write_text(dir / "README.md", readme(entries, sizes) + plugfest_readme(plugfest, plugfest_sizes));
  write_text(dir / "expected.tsv", expected_tsv(entries));
  for (const std::string& id : uncovered_ids(entries)) {
    fmt::print(stderr, "mpa-synth: note: no capture of the corpus is expected to show {}\n", id);
  }
}

}  // namespace mpa::synth
