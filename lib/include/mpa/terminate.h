// RDMAP Terminate messages (RFC 5040 4.8; MPA error codes RFC 5044 8, RFC 6581 8,
// registry RFC 6580): decoding the peer's own verdict, including the nonstandard layouts of
// the Terminate Control field that real stacks send: Linux siw's (C bitfields on a
// little-endian host: the first octet 0x02 for an MPA error) and Chelsio cxgb4's and Intel
// irdma's (an MPA error as layer 2, error type 3: the first octet 0x23).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mpa/ddp.h"
#include "mpa/diagnostics.h"

namespace mpa {

// RFC 5040 4.8 (Figure 8): the Terminate Control field (Layer, EType, Error Code, M D R and
// reserved bits: 32 bits) follows the untagged DDP header; the octets of the Terminate's
// ULPDU it occupies, in every layout decode_terminate knows.
inline constexpr std::uint32_t kTerminateControlOffset = kDdpUntaggedHeaderSize;
inline constexpr std::uint32_t kTerminateControlSize = 4;

enum class TerminateLayer : std::uint8_t { Rdmap = 0, Ddp = 1, Llp = 2 };

// How the Terminate Control field was laid out.
enum class TerminateLayout : std::uint8_t {
  Rfc5040,    // Figure 8: Layer(4) EType(4) | Error Code(8) | M D R
  Siw,        // Linux siw: Layer and EType nibbles swapped, M D R in the third octet's low bits
  CxgbIrdma,  // Chelsio cxgb4, Intel irdma: an MPA error as layer 2, error type 3 (DDP's
              // "reserved for the LLP"), not RFC 6580's error type 0; flags as in Figure 8
};
// The stacks known to lay it out so ("" for RFC 5040's).
std::string_view layout_stack(TerminateLayout layout);

struct Terminate {
  std::uint8_t layer = 0;
  std::uint8_t etype = 0;
  std::uint8_t error_code = 0;
  bool segment_length_valid = false;   // M
  bool ddp_header_included = false;    // D
  bool rdmap_header_included = false;  // R
  std::uint16_t reserved = 0;  // the 13 Reserved bits after Terminate Control (RFC 5040 4.8)
  bool siw_layout = false;     // decoded from Linux siw's swapped layout
  TerminateLayout layout = TerminateLayout::Rfc5040;    // (siw_layout: TerminateLayout::Siw)
  std::span<const std::uint8_t> terminated_ddp_header;  // when D (as far as captured)

  // LLP layer, MPA error type: the MPA error code (RFC 5044 8: 1-4, RFC 6581 8: 5-7).
  std::optional<std::uint8_t> mpa_error_code() const {
    if (layer != static_cast<std::uint8_t>(TerminateLayer::Llp)) return std::nullopt;
    if (etype == 0 || (layout == TerminateLayout::CxgbIrdma && etype == 3)) return error_code;
    return std::nullopt;
  }
  // That code, when it is one RFC 5044 8 / RFC 6581 8 defines.
  std::optional<MpaError> mpa_error() const {
    const auto code = mpa_error_code();
    return code ? mpa_error_from_wire(*code) : std::nullopt;
  }
};

// Decodes the Terminate header that follows the 18-octet untagged DDP header of a ULPDU
// (`ulpdu` starts at the DDP control field). `siw_peer`: the sender's startup frames look
// like Linux siw's, so the swapped layout is preferred when the octets are ambiguous.
std::optional<Terminate> decode_terminate(std::span<const std::uint8_t> ulpdu, bool siw_peer);

// The octets the Terminate header needs after the DDP header (RFC 5040 4.8): the Terminate
// Control and reserved bits, then the DDP Segment Length and at least a tagged DDP header
// when D is set, and the 28-octet RDMA Read Request header when R is set.
std::size_t terminate_header_size(const Terminate& terminate);

// Why the layer, error type and error code of a Terminate laid out as RFC 5040 Figure 8 are
// none RFC 5040 Figure 9 defines (RDMAP; its error type 0 takes any code), RFC 5041 7.2 (DDP;
// its error type 3 is the LLP's) or RFC 5044 8 / RFC 6581 8 (MPA: layer 2, error type 0,
// codes 1-7); empty when they are defined, or when the layout is a known stack's.
std::string undefined_terminate_values(const Terminate& terminate);

// "LLP (MPA) error 2: CRC error" / "RDMAP remote operation error 0x02".
std::string describe(const Terminate& terminate);
// The name of a code as it appears on the wire ("unknown MPA error" outside 1-7).
std::string_view mpa_error_name(std::uint8_t code);

}  // namespace mpa
