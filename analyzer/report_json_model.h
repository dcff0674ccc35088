// The JSON report's keys, one table per report type, read by the writer (report_json.cpp) and
// the reader (report_from_json.cpp) alike; docs/mpa-check-report.schema.json publishes them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "plugfest.h"
#include "report.h"

namespace mpa::report::json_model {

// A table is a generic lambda `(io, value)`: it names each key of the value's JSON object once,
// in the order written, through the operations of `io`. The writer (JsonWriter) and the
// reader (JsonReader) are its two `io`s; the value is const for the one, not for the other.
// A key a table does not name is neither written nor read; the reader takes a member that is
// absent, or not of its type, as empty (0, "", false) unless the operation says otherwise.
//   field(key, m)              m as is (bool, integer, string)
//   field_or(key, m, absent)   the same; the reader takes `absent` for a missing key
//   nullable(key, m)           written null when m is empty (0, ""); read as field
//   null_unless(key, m, shown) written null unless `shown`; read as field
//   or_null(key, optional)     written null when unset; read from any number
//   unsigned_or_null(...)      the same; read from unsigned numbers only
//   when_set(key, optional)    written when set; read when there
//   spelled<Words>(key, m)     written Words::spell(m); read Words::parse(value, m)
//   derived(key, f)            written f() (or f(policy)); worked out, so never read
//   written_if(c, f)           the keys f names are written only if c; always read
//   object(key, m, table)      a nested object (read only when an object)
//   object_or(key, m, table, fallback)  the same; the reader takes fallback() without one
//   optional_object(key, optional, table)  written when set; read when an object
//   inline_optional(optional, table)  its keys in this object, when set; read when the
//                                     table's first key is there
//   view(key, m, to, from, table)  an object of the view to(m); read back by from(view, m)
//   tally(key, array, label, zeros) an object of counts by label(i), zeros left out unless
//                                   `zeros`
//   list(key, vector, table)   an array of objects
//   streamed(key, vector, table)  the same, written one item at a time (a capture's
//                                 connections: StreamedWriter)
//   diagnostic(key, id)        the catalogue id; false when the reader does not know it
//   rule(key, rule, table, id) the suppression rule a finding names (null: none)

using nlohmann::json;
using nlohmann::ordered_json;

// A member as the reader takes it: of its type, else `fallback` ("" for text, false for a
// flag). Out-of-range integers wrap as integer conversions do.
template <typename T>
T value_of(const json& v, T fallback = T{}) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean() && v.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.is_string() ? v.get<std::string>() : std::string();
  } else {
    if (v.is_number_unsigned()) return static_cast<T>(v.get<std::uint64_t>());
    if (v.is_number_integer()) return static_cast<T>(v.get<std::int64_t>());
    return fallback;
  }
}
inline std::string text_of(const json& v) { return value_of<std::string>(v); }

// A key a table makes at run time (its other keys are literals), for the writers that check
// literal keys when compiled (StreamWriter's Key) to check when written.
struct RuntimeKey {
  const char* text;
  operator const char*() const { return text; }
};

// How values that are not numbers, flags or plain text are spelled, and read back.
struct EndpointWords {
  static std::string spell(const Endpoint& e) { return to_string(e); }
  static void parse(const json& v, Endpoint& e);  // "10.0.0.1:4000" or "[2001:db8::1]:4000"
};
struct DirectionWords {
  static std::string_view spell(Direction d) { return to_string(d); }
  static void parse(const json& v, Direction& d) {
    d = text_of(v) == "responder" ? Direction::Responder : Direction::Initiator;
  }
};
struct TcpSeqWords {
  static std::uint32_t spell(TcpSeq s) { return s.value(); }
  static void parse(const json& v, TcpSeq& s) { s = TcpSeq(value_of<std::uint32_t>(v)); }
};
struct OpcodeWords {  // RDMAP opcodes by rdmap_opcode_name
  static std::string_view spell(std::uint8_t op) { return rdmap_opcode_name(op); }
  static void parse(const json& v, std::uint8_t& op) {
    for (std::uint8_t i = 0; i < 16; ++i) {
      if (rdmap_opcode_name(i) == text_of(v)) op = i;
    }
  }
};
struct CrcWords {
  static std::string_view spell(CrcStatus c) { return to_string(c); }
  static void parse(const json& v, CrcStatus& c);
};
struct FrameKindWords {
  static std::string_view spell(FrameKind k);
  static void parse(const json& v, FrameKind& k);
};
struct NameSourceWords {
  static std::string_view spell(NameSource s) { return to_string(s); }
  static void parse(const json& v, NameSource& s) {
    s = name_source_from(text_of(v)).value_or(NameSource::Address);
  }
};
struct MacWords {
  static ordered_json spell(const std::optional<MacAddress>& mac);
  static void parse(const json& v, std::optional<MacAddress>& mac);
};
// The warning of frames not analysed; read back, the detail it names of the first one (so
// that the warning is written again as it was).
struct CaptureWarningWords {
  static ordered_json spell(const CaptureStats& st);
  static void parse(const json& v, CaptureStats& st);
};

// When a finding's frame was captured (its FramePlace; else the capture time when it was
// found), as utc_time writes it; null where the capture holds no time. Read back into both.
struct FindingTimeWords {
  static ordered_json spell(const Finding& f);
  static void parse(const json& v, Finding& f);
};

// The latencies of the startup exchange, in microseconds (unset when not seen): the capture
// times themselves are not in the report.
struct StartupLatency {
  std::optional<std::uint64_t> request_to_reply;
  std::optional<std::uint64_t> reply_to_first_fpdu;
};
StartupLatency latency_of(const ConnectionSummary& s);
// Any times with the latencies between them (only the differences are shown).
void apply_latency(const StartupLatency& latency, ConnectionSummary& s);

// Write-only parts: what the catalogue says of a finding's id, a capture's verdict, a live
// capture's libpcap counters.
ordered_json rfc_error_code_json(DiagId id);
std::string_view capture_verdict(const CaptureReport& cap, const Policy& policy);
ordered_json live_json(const PipelineResult& result);

// ---- the tables

inline constexpr auto map_counts = [](auto& io, auto& c) {
  io.field("errors", c[Severity::Error]);
  io.field("warnings", c[Severity::Warning]);
  io.field("notes", c[Severity::Note]);
};

// A value per side, by Direction: {"initiator": ..., "responder": ...}.
inline constexpr auto by_side = [](auto table) {
  return [table](auto& io, auto& sides) {
    io.object("initiator", sides[0], table);
    io.object("responder", sides[1], table);
  };
};

// Where a suppression rule was read; then why it suppresses, or the count= it used up
// (`suppressing` false: a finding it did not suppress for that count).
inline constexpr auto map_rule = [](auto& io, auto& rule, bool suppressing) {
  io.field("file", rule.file);
  io.field("line", rule.line);
  io.written_if(suppressing, [&] { io.field("reason", rule.reason); });
  io.written_if(!suppressing, [&] { io.when_set("count", rule.count); });
};
inline constexpr auto map_suppressed = [](auto& io, auto& rule) { map_rule(io, rule, true); };
inline constexpr auto map_over_count = [](auto& io, auto& rule) { map_rule(io, rule, false); };

// A finding: a connection's has the side and place in the stream, a capture's (IP
// fragments) has none.
inline constexpr auto map_finding = [](auto& io, auto& rf, bool of_connection) {
  auto& f = rf.finding;
  if (!io.diagnostic("id", f.id)) return;
  const DiagnosticInfo& d = info(f.id);
  io.derived("severity", [&] { return to_string(d.severity); });
  io.derived("rfc_error_code", [&] { return rfc_error_code_json(d.id); });
  io.derived("rfc", [&] { return d.rfc; });
  io.written_if(of_connection,
                [&] { io.template spelled<DirectionWords>("direction", f.direction); });
  io.field("frame", f.frame);
  io.field_or("certain_at", f.certain_at, f.frame);
  io.template spelled<FindingTimeWords>("time", f);
  io.written_if(of_connection, [&] {
    io.template spelled<TcpSeqWords>("tcp_seq", f.tcp_seq);
    io.field("stream_offset", f.stream_offset);
  });
  io.field("message", f.message);
  io.rule("suppressed", rf.suppressed_by, map_suppressed, d.name);
  io.written_if(!rf.suppressed_by,
                [&] { io.rule("over_count", rf.over_count, map_over_count, d.name); });
};
inline constexpr auto map_connection_finding = [](auto& io, auto& rf) {
  map_finding(io, rf, true);
};
inline constexpr auto map_capture_finding = [](auto& io, auto& rf) { map_finding(io, rf, false); };

inline constexpr auto map_direction = [](auto& io, auto& d) {
  io.field("markers", d.markers);
  io.field("crc", d.crc);
  io.field("full_operation", d.full_operation);
  io.field("parameters_inferred", d.inferred);
  io.field("fpdus", d.fpdus);
  io.field("ulpdu_bytes", d.ulpdu_bytes);
  io.field("crc_failures", d.crc_failures);
  io.field("segments", d.segments);
  io.field("segments_starting_fpdu", d.segments_starting_fpdu);
  io.field("fpdus_in_one_segment", d.fpdus_in_one_segment);
  io.field("max_ulpdu_length", d.max_ulpdu);
  io.or_null("mss", d.mss);
  io.nullable("mulpdu", d.mulpdu);
  io.derived("segments_starting_fpdu_percent",
             [&] { return percent(d.segments_starting_fpdu, d.segments); });
  io.derived("fpdus_in_one_segment_percent",
             [&] { return percent(d.fpdus_in_one_segment, d.fpdus); });
  io.tally("ulpdu_sizes", d.ulpdu_sizes, ulpdu_bucket_label, true);
  io.tally(
      "rdmap_opcodes", d.rdmap_opcodes,
      [](std::size_t i) { return std::string(rdmap_opcode_name(i)); }, false);
  io.field("terminates", d.terminates);
  io.nullable("stack", d.stack);
  io.template spelled<MacWords>("mac", d.mac);
  io.field("payload_octets", d.bytes);
};

inline constexpr auto map_rtr = [](auto& io, auto& e) {
  io.field("send", e.send_rtr);
  io.field("write", e.write_rtr);
  io.field("read", e.read_rtr);
};
// The enhanced block (RFC 6581), in the startup frame's own object: there when "ird" is.
inline constexpr auto map_enhanced = [](auto& io, auto& e) {
  io.field("ird", e.ird);
  io.field("ord", e.ord);
  io.field("peer_to_peer", e.peer_to_peer);
  io.object("rtr", e, map_rtr);
};
inline constexpr auto map_startup = [](auto& io, auto& f) {
  io.template spelled<FrameKindWords>("kind", f.kind);
  io.field("revision", f.revision);
  io.derived("m", [&] { return f.m(); });
  io.derived("c", [&] { return f.c(); });
  io.derived("r", [&] { return f.r(); });
  io.derived("s", [&] { return f.s(); });
  io.field("flags", f.flags);
  io.field("pd_length", f.pd_length);
  io.inline_optional(f.enhanced, map_enhanced);
};

// Who a side is: its name, and where the name came from.
inline constexpr auto map_implementation_name = [](auto& io, auto& n) {
  io.derived("label", [&] { return n.key(); });
  io.template spelled<NameSourceWords>("source", n.source);
  io.null_unless("name", n.name, n.named());
  io.nullable("version", n.version);
  io.nullable("rule", n.rule);
};
// (the reader takes the address from the connection's endpoint)
inline constexpr auto map_implementation = [](auto& io, auto& n) {
  map_implementation_name(io, n);
  io.derived("address", [&]() -> const std::string& { return n.address; });
};

inline constexpr auto map_latency = [](auto& io, auto& l) {
  io.unsigned_or_null("request_to_reply", l.request_to_reply);
  io.unsigned_or_null("reply_to_first_fpdu", l.reply_to_first_fpdu);
};

inline constexpr auto map_fpdu = [](auto& io, auto& r) {
  io.field("frame", r.frame);
  io.template spelled<DirectionWords>("direction", r.direction);
  io.template spelled<TcpSeqWords>("tcp_seq", r.seq);
  io.field("ulpdu_length", r.ulpdu_length);
  io.template spelled<CrcWords>("crc", r.crc);
  io.field("markers", r.markers);
  io.field("first_frame", r.first_frame);
};

// RDMA messages (mpa/rdma_messages.h): per side, by opcode (those seen), how many began, their
// DDP payload octets and DDP segments; with --list-messages each message.
inline constexpr auto map_opcode_tally = [](auto& io, auto& t) {
  io.field("messages", t.messages);
  io.field("octets", t.octets);
  io.field("segments", t.segments);
};
inline constexpr auto map_message_counts = [](auto& io, auto& counts) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    io.written_if(counts[i].messages != 0, [&] {
      io.object(RuntimeKey{rdmap_opcode_name(i).data()}, counts[i], map_opcode_tally);
    });
  }
};
inline constexpr auto map_read_asked = [](auto& io, auto& r) {
  io.field("size", r.size);
  io.field("source_stag", r.source_stag);
  io.field("source_to", r.source_to);
  io.field("sink_stag", r.sink_stag);
  io.field("sink_to", r.sink_to);
};
inline constexpr auto map_message = [](auto& io, auto& m) {
  io.field("number", m.number);
  io.template spelled<DirectionWords>("direction", m.direction);
  io.template spelled<OpcodeWords>("opcode", m.opcode);
  io.field("tagged", m.tagged);
  io.written_if(!m.tagged, [&] {
    io.field("queue", m.queue);
    io.field("msn", m.msn);
  });
  io.written_if(m.tagged, [&] {
    io.field("stag", m.stag);
    io.field("to", m.to);
  });
  io.field("octets", m.octets);
  io.field("segments", m.segments);
  io.field("complete", m.complete);
  io.field("first_frame", m.first_frame);
  io.field("last_frame", m.last_frame);
  io.template spelled<TcpSeqWords>("first_tcp_seq", m.first_seq);
  io.template spelled<TcpSeqWords>("last_tcp_seq", m.last_seq);
  io.optional_object("read_request", m.read, map_read_asked);
};

// Who the sides of a connection are, as the matrix knows them (plugfest.h): worked out, so
// never read.
inline constexpr auto map_identity = [](auto& io, auto& id) {
  io.derived("initiator", [&]() -> const std::string& { return id.initiator; });
  io.derived("responder", [&]() -> const std::string& { return id.responder; });
  io.derived("port", [&] { return id.port; });
  io.derived("startup", [&]() -> const std::string& { return id.startup; });
};

// A connection: who and where, its startup and each direction's parameters...
inline constexpr auto map_connection_about = [](auto& io, auto& c) {
  auto& s = c.summary;
  io.field("id", s.id);
  io.template spelled<EndpointWords>("initiator", s.initiator);
  io.template spelled<EndpointWords>("responder", s.responder);
  io.nullable("tunnel", c.tunnel);
  io.object("implementations", c.implementations, by_side(map_implementation));
  io.view(
      "identity", c, identity_of, [](const ConnectionIdentity&, auto&) {}, map_identity);
  io.derived("verdict", [&] { return to_string(connection_verdict(c)); });
  io.field("first_frame", s.first_frame);
  io.field("last_frame", s.last_frame);
  io.derived("revision",
             [&] { return s.request ? ordered_json(s.request->revision) : ordered_json(nullptr); });
  io.field("startup_seen", s.startup_seen);
  // Let go for being idle (--idle-timeout): only where it was.
  io.written_if(s.expired, [&] { io.field_or("expired", s.expired, false); });
  io.optional_object("request", s.request, map_startup);
  io.optional_object("reply", s.reply, map_startup);
  io.object("directions", s.directions, by_side(map_direction));
  io.view("startup_latency_us", s, latency_of, apply_latency, map_latency);
};
// ... its findings (a live capture's JSON Lines give each a line of its own) ...
inline constexpr auto map_connection_findings = [](auto& io, auto& c) {
  io.list("findings", c.findings, map_connection_finding);
  io.field("findings_not_listed", c.findings_not_stored);
};
// ... and its counts (a report without them: those of its listed findings) and FPDUs.
SeverityCounts listed_counts(const ConnectionReport& c, bool suppressed);
inline constexpr auto map_connection_counts = [](auto& io, auto& c) {
  io.object_or("counts", c.active, map_counts, [&] { return listed_counts(c, false); });
  io.object_or("suppressed", c.suppressed, map_counts, [&] { return listed_counts(c, true); });
  io.written_if(!c.fpdus.empty(), [&] { io.list("fpdus", c.fpdus, map_fpdu); });
  io.object("messages", c.messages.counts, by_side(map_message_counts));
  io.written_if(!c.messages.list.empty(),
                [&] { io.list("message_list", c.messages.list, map_message); });
  io.written_if(c.messages.not_listed != 0, [&] {
    io.field_or("messages_not_listed", c.messages.not_listed, std::uint64_t{0});
  });
};
inline constexpr auto map_connection = [](auto& io, auto& c) {
  map_connection_about(io, c);
  map_connection_findings(io, c);
  map_connection_counts(io, c);
};

inline constexpr auto map_not_tcp = [](auto& io, auto& st) {
  io.field("other_ethertype", st.other_ethertype);
  io.field("other_ip_protocol", st.other_ip_protocol);
  io.field("tunnel_payload", st.tunnel_payload);
  io.field("too_deep", st.too_deep);
  io.field("unsupported_link_type", st.unsupported_link_type);
  io.field("malformed", st.malformed_frames);
  io.field("ip_fragments", st.ip_fragments);
};

// A capture: how far it was read...
inline constexpr auto map_capture_reading = [](auto& io, auto& cap) {
  io.field("frames", cap.result.stats.frames);
  io.field_or("complete", cap.result.ok, true);
  io.written_if(!cap.result.ok, [&] { io.field("error", cap.result.error); });
  io.field("tcp_connections", cap.tcp_connections);
  io.written_if(cap.expired_connections != 0, [&] {
    io.field_or("expired_connections", cap.expired_connections, std::uint64_t{0});
  });
};
// ... what its frames held ...
inline constexpr auto map_capture_stats = [](auto& io, auto& cap) {
  auto& st = cap.result.stats;
  io.field("tcp_segments", st.tcp_segments);
  io.field("tunnelled_segments", st.tunnelled_segments);
  io.field("reassembled_segments", st.reassembled_segments);
  io.field("ip_datagrams", st.ip_datagrams);
  io.field("ip_datagrams_incomplete", st.ip_datagrams_incomplete);
  io.object("not_tcp", st, map_not_tcp);
  io.derived("unreached_frames", [&] { return st.unreached(); });
  io.nullable("first_unreached_frame", st.first_unreached_frame);
  io.template spelled<CaptureWarningWords>("capture_warning", st);
};
// ... its verdict and counts ...
inline constexpr auto map_capture_verdict = [](auto& io, auto& cap) {
  io.written_if(cap.result.live.has_value(),
                [&] { io.derived("live", [&] { return live_json(cap.result); }); });
  io.derived("verdict", [&](const Policy& policy) { return capture_verdict(cap, policy); });
  io.object("counts", cap.active, map_counts);
  io.object("suppressed", cap.suppressed, map_counts);
};
// ... its connections and the findings of no connection.
inline constexpr auto map_capture = [](auto& io, auto& cap) {
  io.field("file", cap.file);
  map_capture_reading(io, cap);
  map_capture_stats(io, cap);
  map_capture_verdict(io, cap);
  io.streamed("connections", cap.connections, map_connection);
  io.list("findings", cap.capture_findings, map_capture_finding);
};

// The document: {"version": 1, "tool": {...}, "captures": [...], "summary": ...,
// "matrix": ...}. Its captures are written one connection at a time (report_json.cpp frames
// them by hand). "tool" names the mpa-check that wrote it (its version null where not known);
// --from-json does not read it back (the report it writes is this run's).
inline constexpr int kVersion = 1;
inline constexpr const char* kVersionKey = "version";
inline constexpr const char* kToolKey = "tool";
inline constexpr const char* kCapturesKey = "captures";
ordered_json tool_json(std::string_view version);

}  // namespace mpa::report::json_model
