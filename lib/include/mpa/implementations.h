// Implementations by name, for the plugfest view: a hosts file maps addresses, subnets and
// MAC prefixes to the implementation (name and version) behind them; a host it does not name
// is named by the stack fingerprint its startup frames showed (interop.h), marked as a guess;
// a host neither names is known by its address. And which side broke the rule a finding
// names. Pure: text, addresses and findings in, names out.
//
//   # plugfest.hosts: one host or range a line, `#` starts a comment
//   192.0.2.11          Ardent 2.1            # an address: name, then version (optional)
//   192.0.2.32/28       Birch 0.9             # a subnet (IPv4 or IPv6, CIDR)
//   02:c0:ba            "Cobalt NIC" 5.0      # a MAC prefix (1 to 6 octets); quotes for spaces
//   2001:db8:1::/48     "Dunlin RNIC"
//
// The most specific entry names a host: the longest IP prefix that holds its address (an
// address is a /32 or /128), else the longest MAC prefix of its link-layer source address.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mpa/events.h"
#include "mpa/packet.h"

namespace mpa {

// Where a host's name comes from.
enum class NameSource : std::uint8_t {
  Address,      // nothing names it: its address stands for it
  Hosts,        // an entry of the hosts file
  Fingerprint,  // the stack its startup frames look like (a guess)
};
std::string_view to_string(NameSource source);  // "address", "hosts", "fingerprint"
std::optional<NameSource> name_source_from(std::string_view text);

struct ImplementationName {
  NameSource source = NameSource::Address;
  std::string name;     // "Cobalt NIC"; a fingerprint's stack ("Linux siw"); "" by address
  std::string version;  // from the hosts file (may be empty)
  std::string rule;     // the hosts file entry: "plugfest.hosts:3"
  std::string address;  // the host's address ("192.0.2.11", "2001:db8::1")

  bool named() const { return source != NameSource::Address; }
  // As shown beside an address: "Cobalt NIC 5.0", "looks like Linux siw"; "" when unnamed.
  std::string label() const;
  // What the interop matrix's rows and columns are: the label, or the address of a host
  // nothing names.
  std::string key() const;
  // What stays the same from one run to the next (a comparison's implementation): the name
  // without its version, "looks like NAME", or the address.
  std::string identity() const;
};

struct HostEntry {
  enum class Kind : std::uint8_t { Ip, Mac };
  Kind kind = Kind::Ip;
  IpAddress address;         // Ip: the subnet's first address
  unsigned prefix_bits = 0;  // Ip: 32 or 128 for one address
  MacAddress mac;            // Mac: the prefix, zero-filled
  unsigned mac_octets = 0;   // Mac: octets of the prefix (1-6)
  std::string pattern;       // as written
  std::string name;
  std::string version;
  std::string file;
  std::size_t line = 0;
  bool holds(const IpAddress& a) const;
  bool holds(const MacAddress& m) const;
};

class HostMap {
 public:
  // Reads a hosts file; nullopt with `error` ("FILE:LINE: what is wrong") on a line that is
  // not PATTERN NAME [VERSION], a pattern that is no address, subnet or MAC prefix, a subnet
  // with host bits set, or a pattern given twice.
  static std::optional<HostMap> load(const std::string& path, std::string& error);
  // The same from text; `file` names it in errors and in the entries.
  static std::optional<HostMap> parse(std::string_view text, const std::string& file,
                                      std::string& error);

  // The most specific entry for a host (see above), or nullptr.
  const HostEntry* find(const IpAddress& address, const std::optional<MacAddress>& mac) const;
  const std::vector<HostEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<HostEntry> entries_;
};

// Names the hosts of one run. Every side of every connection is observed first (its address
// and the stack its startup frame showed, if any); then a side is named by the hosts file, else
// by the stack its own startup frame showed, else by the one stack seen from its address
// elsewhere in the run (a host whose stack showed in one connection is named alike in the
// others; an address that showed several stacks is not guessed), else by its address.
class HostNamer {
 public:
  explicit HostNamer(const HostMap* hosts = nullptr) : hosts_(hosts) {}
  void observe(const IpAddress& address, std::string_view stack);
  // `stack`: what this side's own startup frame looked like ("" if nothing known).
  ImplementationName name(const IpAddress& address, const std::optional<MacAddress>& mac,
                          std::string_view stack = {}) const;

 private:
  const HostMap* hosts_;
  std::map<IpAddress, std::map<std::string, std::uint64_t, std::less<>>> stacks_;
};

// Which side broke the rule a finding names: for most findings the side whose data it is about
// (`data`), for those about how a side reacted to its peer (or failed to) that side, which may
// be the other one. nullopt for findings about the capture rather than either side.
std::optional<Direction> broken_by(DiagId id, Direction data);

}  // namespace mpa
