// Implementations by name (see implementations.h).
#include "mpa/implementations.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace mpa {

std::string_view to_string(NameSource source) {
  switch (source) {
    case NameSource::Address:
      return "address";
    case NameSource::Hosts:
      return "hosts";
    case NameSource::Fingerprint:
      return "fingerprint";
  }
  return "address";
}

std::optional<NameSource> name_source_from(std::string_view text) {
  for (NameSource s : {NameSource::Address, NameSource::Hosts, NameSource::Fingerprint}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

std::string ImplementationName::label() const {
  switch (source) {
    case NameSource::Hosts:
      return version.empty() ? name : fmt::format("{} {}", name, version);
    case NameSource::Fingerprint:
      return "looks like " + name;
    case NameSource::Address:
      break;
  }
  return {};
}

std::string ImplementationName::key() const { return named() ? label() : address; }

std::string ImplementationName::identity() const {
  switch (source) {
    case NameSource::Hosts:
      return name;
    case NameSource::Fingerprint:
      return label();
    case NameSource::Address:
      break;
  }
  return address;
}

bool HostEntry::holds(const IpAddress& a) const {
  if (kind != Kind::Ip || a.family != address.family) return false;
  unsigned bits = prefix_bits;
  for (std::size_t i = 0; bits > 0; ++i, bits = bits >= 8 ? bits - 8 : 0) {
    const std::uint8_t mask = bits >= 8 ? 0xFF : static_cast<std::uint8_t>(0xFF << (8 - bits));
    if ((a.bytes[i] & mask) != address.bytes[i]) return false;
  }
  return true;
}

bool HostEntry::holds(const MacAddress& m) const {
  return kind == Kind::Mac &&
         std::equal(mac.bytes.begin(), mac.bytes.begin() + mac_octets, m.bytes.begin());
}

namespace {

// The fields of a line: words, or "quoted strings" (which may hold spaces and '#'); a '#'
// outside quotes ends the line. False, with `why`, on an unterminated quote.
bool split_fields(std::string_view line, std::vector<std::string>& fields, std::string& why) {
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size() || line[i] == '#') break;
    if (line[i] == '"') {
      const std::size_t close = line.find('"', i + 1);
      if (close == std::string_view::npos) {
        why = fmt::format("unterminated quote at column {}", i + 1);
        return false;
      }
      fields.emplace_back(line.substr(i + 1, close - i - 1));
      i = close + 1;
      continue;
    }
    const std::size_t end = line.find_first_of(" \t\r#", i);
    fields.emplace_back(line.substr(i, end == std::string_view::npos ? end : end - i));
    i = end == std::string_view::npos ? line.size() : end;
  }
  return true;
}

bool parse_ip(const std::string& text, IpAddress& out) {
  if (inet_pton(AF_INET, text.c_str(), out.bytes.data()) == 1) {
    out.family = 4;
    return true;
  }
  if (inet_pton(AF_INET6, text.c_str(), out.bytes.data()) == 1) {
    out.family = 6;
    return true;
  }
  return false;
}

// 1 to 6 octets as two hex digits each, separated by ':' or '-'.
bool parse_mac_prefix(const std::string& text, MacAddress& mac, unsigned& octets) {
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  octets = 0;
  std::size_t i = 0;
  while (true) {
    if (octets == 6 || i + 2 > text.size() || hex(text[i]) < 0 || hex(text[i + 1]) < 0)
      return false;
    mac.bytes[octets++] = static_cast<std::uint8_t>(hex(text[i]) * 16 + hex(text[i + 1]));
    i += 2;
    if (i == text.size()) return true;
    if (text[i] != ':' && text[i] != '-') return false;
    ++i;
  }
}

// A pattern: an address, a subnet (ADDRESS/BITS) or a MAC prefix. "" on success, else why not.
std::string parse_pattern(const std::string& text, HostEntry& e) {
  const std::size_t slash = text.find('/');
  IpAddress address;
  if (parse_ip(text.substr(0, slash), address)) {
    const unsigned width = address.family == 4 ? 32 : 128;
    unsigned bits = width;
    if (slash != std::string::npos) {
      const std::string digits = text.substr(slash + 1);
      if (digits.empty() || digits.size() > 3 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        return fmt::format("'{}': the prefix length after '/' is not a number", text);
      }
      bits = static_cast<unsigned>(std::stoul(digits));
      if (bits > width) {
        return fmt::format("'{}': a prefix length above {} for an IPv{} subnet", text, width,
                           address.family);
      }
    }
    e.kind = HostEntry::Kind::Ip;
    e.prefix_bits = bits;
    IpAddress first = address;
    for (unsigned i = 0; i < 16; ++i) {
      const unsigned kept = bits > i * 8 ? std::min(8u, bits - i * 8) : 0;
      first.bytes[i] &= static_cast<std::uint8_t>(kept == 0 ? 0 : 0xFF << (8 - kept));
    }
    if (first != address) {
      return fmt::format("'{}' has host bits set: the subnet is {}/{}", text, to_string(first),
                         bits);
    }
    e.address = first;
    return {};
  }
  if (slash == std::string::npos && parse_mac_prefix(text, e.mac, e.mac_octets)) {
    e.kind = HostEntry::Kind::Mac;
    return {};
  }
  return fmt::format(
      "'{}' is not an address, a subnet (ADDRESS/BITS) or a MAC prefix (1 to 6 octets, "
      "02:c0:ba)",
      text);
}

bool same_pattern(const HostEntry& a, const HostEntry& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == HostEntry::Kind::Ip)
    return a.address == b.address && a.prefix_bits == b.prefix_bits;
  return a.mac_octets == b.mac_octets && a.mac == b.mac;
}

}  // namespace

std::optional<HostMap> HostMap::parse(std::string_view text, const std::string& file,
                                      std::string& error) {
  HostMap map;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++number;
    std::vector<std::string> fields;
    std::string why;
    const auto fail = [&](const std::string& what) {
      error = fmt::format("{}:{}: {}", file, number, what);
      return std::nullopt;
    };
    if (!split_fields(line, fields, why)) return fail(why);
    if (fields.empty()) continue;
    HostEntry e;
    e.pattern = fields[0];
    e.file = file;
    e.line = number;
    if (const std::string bad = parse_pattern(fields[0], e); !bad.empty()) return fail(bad);
    if (fields.size() < 2 || fields[1].empty()) {
      return fail(
          fmt::format("no implementation name after {} (PATTERN NAME [VERSION])", fields[0]));
    }
    if (fields.size() > 3) {
      return fail(fmt::format(
          "{} fields after {}: expected NAME [VERSION] (quote a name with spaces: \"{} {}\")",
          fields.size() - 1, fields[0], fields[1], fields[2]));
    }
    e.name = fields[1];
    if (fields.size() == 3) e.version = fields[2];
    for (const HostEntry& earlier : map.entries_) {
      if (same_pattern(earlier, e)) {
        return fail(fmt::format("{} is named already on line {} ({})", fields[0], earlier.line,
                                earlier.pattern));
      }
    }
    map.entries_.push_back(std::move(e));
  }
  return map;
}

std::optional<HostMap> HostMap::load(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("{}: cannot read the hosts file", path);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, error);
}

const HostEntry* HostMap::find(const IpAddress& address,
                               const std::optional<MacAddress>& mac) const {
  const HostEntry* best = nullptr;
  for (const HostEntry& e : entries_) {
    if (e.holds(address) && (!best || e.prefix_bits > best->prefix_bits)) best = &e;
  }
  if (best || !mac) return best;
  for (const HostEntry& e : entries_) {
    if (e.holds(*mac) && (!best || e.mac_octets > best->mac_octets)) best = &e;
  }
  return best;
}

void HostNamer::observe(const IpAddress& address, std::string_view stack) {
  if (stack.empty()) return;
  auto& seen = stacks_[address];
  auto it = seen.find(stack);
  if (it == seen.end()) it = seen.emplace(std::string(stack), 0).first;
  ++it->second;
}

ImplementationName HostNamer::name(const IpAddress& address, const std::optional<MacAddress>& mac,
                                   std::string_view stack) const {
  ImplementationName n;
  n.address = to_string(address);
  if (hosts_) {
    if (const HostEntry* e = hosts_->find(address, mac)) {
      n.source = NameSource::Hosts;
      n.name = e->name;
      n.version = e->version;
      n.rule = fmt::format("{}:{}", e->file, e->line);
      return n;
    }
  }
  if (!stack.empty()) {
    n.source = NameSource::Fingerprint;
    n.name = stack;
    return n;
  }
  if (const auto it = stacks_.find(address); it != stacks_.end() && it->second.size() == 1) {
    n.source = NameSource::Fingerprint;
    n.name = it->second.begin()->first;
  }
  return n;
}

std::optional<Direction> broken_by(DiagId id, Direction data) {
  switch (id) {
    // About the capture, not about what either side did.
    case DiagId::CaptureGap:
    case DiagId::CaptureTruncated:
    case DiagId::CaptureStartupNotSeen:
    case DiagId::CaptureParametersInferred:
    case DiagId::CaptureIpFragment:
    case DiagId::CaptureResynchronised:
    case DiagId::CaptureStartupFrameCut:
    case DiagId::IpFragmentOverlapMismatch:
    case DiagId::TcpRetransmissionCheckStopped:
      return std::nullopt;
    // Reported on the other side's data: the Responder answered, or failed to answer, the
    // Initiator's frame.
    case DiagId::StartupNoReply:
      return Direction::Responder;
    default:
      return data;
  }
}

}  // namespace mpa
