// The JSON report's values that are not plain members (report_json_model.h): how they are
// spelled and read back, and the parts that are worked out when written.
#include "report_json_model.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace mpa::report::json_model {

void EndpointWords::parse(const json& v, Endpoint& e) {
  e = Endpoint{};
  const std::string text = text_of(v);
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) return;
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (inet_pton(AF_INET, host.c_str(), e.address.bytes.data()) == 1) {
    e.address.family = 4;
  } else if (inet_pton(AF_INET6, host.c_str(), e.address.bytes.data()) == 1) {
    e.address.family = 6;
  }
  const std::string port = text.substr(colon + 1);
  if (!port.empty() && port.size() <= 5 &&
      port.find_first_not_of("0123456789") == std::string::npos)
    e.port = static_cast<std::uint16_t>(std::stoul(port));
}

ordered_json FindingTimeWords::spell(const Finding& f) {
  const std::uint64_t ns = f.frame_place.timestamp_ns ? f.frame_place.timestamp_ns : f.timestamp_ns;
  return ns ? ordered_json(utc_time(ns)) : ordered_json(nullptr);
}

void FindingTimeWords::parse(const json& v, Finding& f) {
  // "2026-11-26T11:20:01.123456Z", as utc_time writes it.
  std::tm tm{};
  unsigned micro = 0;
  char zone = 0;
  const std::string text = text_of(v);
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%6u%c", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &micro, &zone) != 8 ||
      zone != 'Z') {
    return;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t seconds = timegm(&tm);
  if (seconds < 0) return;
  const std::uint64_t ns =
      static_cast<std::uint64_t>(seconds) * 1'000'000'000u + std::uint64_t{micro} * 1000u;
  f.frame_place.timestamp_ns = ns;
  f.timestamp_ns = ns;
}

ordered_json tool_json(std::string_view version) {
  return {{"name", "mpa-check"},
          {"version", version.empty() ? ordered_json(nullptr) : ordered_json(version)}};
}

void CrcWords::parse(const json& v, CrcStatus& c) {
  const std::string crc = text_of(v);
  c = crc == "good" ? CrcStatus::Good : crc == "bad" ? CrcStatus::Bad : CrcStatus::NotChecked;
}

std::string_view FrameKindWords::spell(FrameKind k) {
  return k == FrameKind::Request ? "request" : k == FrameKind::Reply ? "reply" : "invalid";
}

void FrameKindWords::parse(const json& v, FrameKind& k) {
  const std::string kind = text_of(v);
  k = kind == "request" ? FrameKind::Request
      : kind == "reply" ? FrameKind::Reply
                        : FrameKind::Unknown;
}

ordered_json MacWords::spell(const std::optional<MacAddress>& mac) {
  return mac ? ordered_json(to_string(*mac)) : ordered_json(nullptr);
}

void MacWords::parse(const json& v, std::optional<MacAddress>& mac) {
  mac.reset();
  if (!v.is_string()) return;
  const std::string text = v.get<std::string>();
  unsigned b[6];
  if (std::sscanf(text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x", &b[0], &b[1], &b[2], &b[3], &b[4],
                  &b[5]) != 6)
    return;
  MacAddress m;
  for (int i = 0; i < 6; ++i) m.bytes[i] = static_cast<std::uint8_t>(b[i]);
  mac = m;
}

ordered_json CaptureWarningWords::spell(const CaptureStats& st) {
  const std::string warning = unreached_warning(st);
  return warning.empty() ? ordered_json(nullptr) : ordered_json(warning);
}

// "... (why; first: frame N, DETAIL)": the detail, as the warning will be written again.
void CaptureWarningWords::parse(const json& v, CaptureStats& st) {
  const std::string warning = text_of(v);
  if (warning.empty()) return;
  const std::string first = fmt::format("first: frame {}, ", st.first_unreached_frame);
  if (const std::size_t at = warning.find(first); at != std::string::npos && warning.ends_with(")"))
    st.first_unreached_detail =
        warning.substr(at + first.size(), warning.size() - at - first.size() - 1);
}

StartupLatency latency_of(const ConnectionSummary& s) {
  auto micros = [](std::uint64_t from, std::uint64_t to) -> std::optional<std::uint64_t> {
    if (from && to && to >= from) return (to - from) / 1000;
    return std::nullopt;
  };
  return {micros(s.request_ns, s.reply_ns), micros(s.reply_ns, s.first_fpdu_ns)};
}

void apply_latency(const StartupLatency& latency, ConnectionSummary& s) {
  s.reply_ns = std::uint64_t{1} << 50;  // (any time: only the differences are shown)
  // (null when not seen; a latency beyond 2^50 ns, some 13 days, is cut there)
  constexpr std::uint64_t kMostUs = (std::uint64_t{1} << 50) / 1000 - 1;
  if (latency.request_to_reply)
    s.request_ns = s.reply_ns - std::min(*latency.request_to_reply, kMostUs) * 1000;
  if (latency.reply_to_first_fpdu)
    s.first_fpdu_ns = s.reply_ns + std::min(*latency.reply_to_first_fpdu, kMostUs) * 1000;
  if (!s.request_ns && !s.first_fpdu_ns) s.reply_ns = 0;
}

ordered_json rfc_error_code_json(DiagId id) {
  const DiagnosticInfo& d = info(id);
  return d.error_code != MpaError::None ? ordered_json(number(d.error_code))
                                        : ordered_json(nullptr);
}

std::string_view capture_verdict(const CaptureReport& cap, const Policy& policy) {
  return !cap.result.ok ? "unreadable" : fails(cap, policy) ? "fail" : "pass";
}

// A live capture's libpcap counters (packets received and dropped) and what drops mean.
ordered_json live_json(const PipelineResult& result) {
  const std::string warning = drops_warning(result);
  return {{"packets_received", result.live->received},
          {"packets_dropped", result.live->dropped},
          {"packets_dropped_by_interface", result.live->interface_dropped},
          {"drops_warning", warning.empty() ? ordered_json(nullptr) : ordered_json(warning)}};
}

SeverityCounts listed_counts(const ConnectionReport& c, bool suppressed) {
  SeverityCounts counts;
  for (const ReportedFinding& f : c.findings) {
    if (static_cast<bool>(f.suppressed_by) == suppressed) ++counts[info(f.finding.id).severity];
  }
  return counts;
}

}  // namespace mpa::report::json_model
