// Fuzz target: the hosts file of the plugfest view (mpa/implementations.h): HostMap::parse,
// find, and the names HostNamer gives.
//
// Input layout: byte 0 picks the address family (bit 0: IPv6) and whether a MAC is given
// (bit 1); bytes 1-16 an address, bytes 17-22 a MAC address; the rest is a hosts file.
//
// The file: either entries, each with a name, its line within the file (in file order), an IP
// subnet with no host bits and a prefix no longer than its family's, or a MAC prefix of 1 to 6
// octets; or an error "FILE:LINE: ..." naming a line the file has. Parsing is deterministic.
// The address: find() gives an entry holding it (or the MAC), and no entry holding the
// address has a longer prefix; a MAC entry only when no IP entry holds the address. HostNamer
// names the host from the file exactly when find() gives an entry, by that entry's name.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "mpa/implementations.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mpa::fuzz::Input in({data, size});
  const std::uint8_t choice = in.u8();
  mpa::IpAddress address;
  address.family = (choice & 1) ? 6 : 4;
  const auto address_bytes = in.bytes(16);
  std::copy(address_bytes.begin(), address_bytes.end(), address.bytes.begin());
  if (address.family == 4) std::fill(address.bytes.begin() + 4, address.bytes.end(), 0);
  mpa::MacAddress mac_bytes;
  const auto mac_input = in.bytes(6);
  std::copy(mac_input.begin(), mac_input.end(), mac_bytes.bytes.begin());
  const std::optional<mpa::MacAddress> mac =
      (choice & 2) ? std::optional<mpa::MacAddress>(mac_bytes) : std::nullopt;
  const auto rest = in.rest();
  const std::string text(rest.begin(), rest.end());

  const std::string file = "fuzz.hosts";
  std::string error;
  const std::optional<mpa::HostMap> map = mpa::HostMap::parse(text, file, error);
  const std::size_t lines =
      static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  std::string again_error;
  const std::optional<mpa::HostMap> again = mpa::HostMap::parse(text, file, again_error);
  MPA_FUZZ_CHECK(again.has_value() == map.has_value() && again_error == error &&
                     (!map || again->entries().size() == map->entries().size()),
                 "the same file parsed twice gives two answers");
  if (!map) {
    MPA_FUZZ_CHECK(error.rfind(file + ":", 0) == 0, "an error that does not name the file");
    const std::size_t line = std::strtoull(error.c_str() + file.size() + 1, nullptr, 10);
    MPA_FUZZ_CHECK(line >= 1 && line <= lines, "an error naming a line the file does not have");
    return 0;
  }
  std::size_t previous = 0;
  for (const mpa::HostEntry& e : map->entries()) {
    MPA_FUZZ_CHECK(!e.name.empty(), "an entry without a name");
    MPA_FUZZ_CHECK(e.file == file && e.line > previous && e.line <= lines, "an entry's line");
    previous = e.line;
    if (e.kind == mpa::HostEntry::Kind::Ip) {
      const unsigned width = e.address.family == 4 ? 32 : 128;
      MPA_FUZZ_CHECK(e.prefix_bits <= width, "a prefix longer than its family's addresses");
      MPA_FUZZ_CHECK(e.holds(e.address), "a subnet that does not hold its first address");
    } else {
      MPA_FUZZ_CHECK(e.mac_octets >= 1 && e.mac_octets <= 6, "a MAC prefix of no 1 to 6 octets");
    }
  }
  const mpa::HostEntry* found = map->find(address, mac);
  bool any_ip = false;
  for (const mpa::HostEntry& e : map->entries()) {
    if (!e.holds(address)) continue;
    any_ip = true;
    MPA_FUZZ_CHECK(
        found && found->kind == mpa::HostEntry::Kind::Ip && found->prefix_bits >= e.prefix_bits,
        "find() is not the longest prefix holding the address");
  }
  if (found) {
    MPA_FUZZ_CHECK(found->kind == mpa::HostEntry::Kind::Ip ? found->holds(address)
                                                           : !any_ip && mac && found->holds(*mac),
                   "find() gives an entry that holds neither the address nor the MAC");
  }
  mpa::HostNamer namer(&*map);
  namer.observe(address, "Linux siw");
  const mpa::ImplementationName name = namer.name(address, mac);
  MPA_FUZZ_CHECK((name.source == mpa::NameSource::Hosts) == (found != nullptr) &&
                     (!found || (name.name == found->name && name.version == found->version)),
                 "the namer disagrees with find()");
  MPA_FUZZ_CHECK(found || name.label() == "looks like Linux siw", "no guess where no entry names");
  return 0;
}
