// RDMAP Terminate messages (RFC 5040 4.8; MPA error codes RFC 5044 8, RFC 6581 8,
// registry RFC 6580): decoding the peer's own verdict, including Linux siw's nonstandard
// layout of the Terminate Control field.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "mpa/diagnostics.h"

namespace mpa {

enum class TerminateLayer : std::uint8_t { Rdmap = 0, Ddp = 1, Llp = 2 };

struct Terminate {
  std::uint8_t layer = 0;
  std::uint8_t etype = 0;
  std::uint8_t error_code = 0;
  bool segment_length_valid = false;                    // M
  bool ddp_header_included = false;                     // D
  bool rdmap_header_included = false;                   // R
  bool siw_layout = false;                              // decoded from Linux siw's swapped layout
  std::span<const std::uint8_t> terminated_ddp_header;  // when D (as far as captured)

  // LLP layer, MPA error type: the MPA error code (RFC 5044 8: 1-4, RFC 6581 8: 5-7).
  std::optional<std::uint8_t> mpa_error_code() const {
    if (layer == static_cast<std::uint8_t>(TerminateLayer::Llp) && etype == 0) return error_code;
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

// "LLP (MPA) error 2: CRC error" / "RDMAP remote operation error 0x02".
std::string describe(const Terminate& terminate);
// The name of a code as it appears on the wire ("unknown MPA error" outside 1-7).
std::string_view mpa_error_name(std::uint8_t code);

}  // namespace mpa
