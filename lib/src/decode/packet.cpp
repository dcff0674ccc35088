// Text forms of IP addresses and TCP endpoints (RFC 5952 for IPv6, via inet_ntop),
// used in diagnostics and connection names.
#include "mpa/packet.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <sys/socket.h>

namespace mpa {

std::string to_string(const IpAddress& address) {
  // INET6_ADDRSTRLEN covers the longest IPv4 form as well.
  char text[INET6_ADDRSTRLEN] = {};
  const int family = address.family == 6 ? AF_INET6 : AF_INET;
  if (address.family != 4 && address.family != 6) return "?";
  if (inet_ntop(family, address.bytes.data(), text, sizeof text) == nullptr) return "?";
  return text;
}

std::string to_string(const Endpoint& endpoint) {
  // Brackets keep the port distinguishable from the last IPv6 group (RFC 5952 section 6).
  if (endpoint.address.family == 6) {
    return fmt::format("[{}]:{}", to_string(endpoint.address), endpoint.port);
  }
  return fmt::format("{}:{}", to_string(endpoint.address), endpoint.port);
}

std::string to_string(const MacAddress& mac) {
  const auto& b = mac.bytes;
  return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", b[0], b[1], b[2], b[3], b[4],
                     b[5]);
}

}  // namespace mpa
