// Captures as the field has them: each Ethernet frame of a scenario wrapped in the
// encapsulation a tap, a mirror port or an overlay network adds (VLAN stacks, MPLS, GRE,
// IP in IP, ERSPAN, VXLAN, Geneve). A capture effect (CaptureEffects::wrap): the checker must
// report the wrapped capture exactly as the plain one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bytes.h"
#include "tcp_packet.h"

namespace mpa::synth {

enum class Wrapper : std::uint8_t {
  VlanStack,    // three tags: 0x9100, 0x88A8, 0x8100
  QinQ,         // 802.1ad S-tag, then a C-tag
  Mpls,         // two labels, then the IP packet (RFC 3032)
  MplsPw,       // two labels, a control word, then the Ethernet frame (RFC 4448)
  Gre,          // RFC 2784/2890 over IPv4; the IP packet (flags below)
  GreEthernet,  // GRE type 0x6558: the Ethernet frame
  IpInIp,       // IPv4 carrying the IP packet (protocol 4, or 41 for IPv6)
  ErspanI,      // GRE 0x88BE without sequence number, no ERSPAN header
  ErspanII,     // GRE 0x88BE with sequence number, 8-octet header
  ErspanIII,    // GRE 0x22EB, 12-octet header (+ 8-octet platform subheader if asked)
  Vxlan,        // UDP, 8-octet header (RFC 7348)
  Geneve,       // UDP, 8 octets + options (RFC 8926), the Ethernet frame
  GeneveIp,     // the same carrying the IP packet (protocol type 0x0800/0x86DD)
};

// The network the IP-underlay wrappers (GRE, IP in IP, ERSPAN, VXLAN, Geneve) cross: their outer
// IP header. The others (VLAN stacks, QinQ, MPLS, MPLS pseudowires) have none.
enum class Underlay : std::uint8_t {
  Ipv4,  // 198.51.100.<2h-1> and .<2h> (RFC 5737 TEST-NET-2)
  Ipv6,  // 2001:db8:5100::<2h-1> and ::<2h> (RFC 3849)
};

// Which outer addresses (and outer MACs) each direction's frames carry.
enum class OuterAddresses : std::uint8_t {
  PerDirection,  // swapped with the direction, as a tunnel's two endpoints (VTEPs) send
  Mirror,        // the same both ways, as a mirror session sends both to its collector
};

struct Encapsulation {
  Wrapper wrapper = Wrapper::Vxlan;
  std::uint32_t id = 42;  // VNI, GRE key, ERSPAN session, VLAN id or MPLS label
  bool gre_key = true;    // GRE, GreEthernet
  bool gre_sequence = false;
  bool gre_checksum = false;
  bool platform_subheader = false;      // ERSPAN III
  std::size_t geneve_option_words = 0;  // Geneve: options length in 4-octet units (0..63)
  std::uint16_t udp_port = 0;           // VXLAN/Geneve destination port (0: IANA's)
  std::uint8_t outer_host = 1;          // outer host pair h (1..127), see Underlay
  Underlay underlay = Underlay::Ipv4;
  OuterAddresses outer_addresses = OuterAddresses::PerDirection;  // ERSPAN's names: Mirror
};

// Whether `wrapper` has an outer IP header (Underlay and OuterAddresses apply to it).
bool has_ip_underlay(Wrapper wrapper);

// Wraps one Ethernet frame sent by `dir` (the outer addresses follow the direction or not, as
// e.outer_addresses says).
Bytes encapsulate(const Bytes& ethernet_frame, const Encapsulation& e, Dir dir);

// Every wrapper the tests hold to the invariant, by name ("vxlan", "gre-key-seq-csum", ...).
std::vector<std::pair<std::string, Encapsulation>> named_encapsulations();
// The encapsulation named `name` (as above, optionally ":ID", e.g. "vxlan:43").
std::optional<Encapsulation> encapsulation_named(std::string_view name);

}  // namespace mpa::synth
