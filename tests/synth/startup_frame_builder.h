// MPA Request and Reply frames (RFC 5044 7.1.1) with the RFC 6581 section 9 enhanced
// IRD/ORD block and the Rev 129 (Alibaba erdma) 8-octet extension. Written independently
// of lib/ so that the generator and the checker do not share a misunderstanding.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "bytes.h"

namespace mpa::synth {

enum class FrameKind : std::uint8_t { Request, Reply };

inline constexpr std::string_view kRequestKey = "MPA ID Req Frame";
inline constexpr std::string_view kReplyKey = "MPA ID Rep Frame";

namespace startup_flag {
inline constexpr std::uint8_t kM = 0x80;
inline constexpr std::uint8_t kC = 0x40;
inline constexpr std::uint8_t kR = 0x20;
inline constexpr std::uint8_t kS = 0x10;
inline constexpr std::uint8_t kReserved = 0x0F;
}  // namespace startup_flag

inline constexpr std::uint16_t kNoNegotiation = 0x3FFF;

// RFC 6581 9: `A B IRD(14) | C D ORD(14)`, big-endian.
struct EnhancedBlock {
  bool peer_to_peer = false;  // A
  bool send_rtr = false;      // B
  bool write_rtr = false;     // C
  bool read_rtr = false;      // D
  std::uint16_t ird = 0;
  std::uint16_t ord = 0;
  bool little_endian = false;  // each 16-bit half least-significant octet first (RFC 6581 9 broken)
};
Bytes encode_enhanced_block(const EnhancedBlock& block);

struct StartupFrameSpec {
  FrameKind kind = FrameKind::Request;
  std::optional<std::string> key;  // 16 octets; default follows `kind`
  bool m = false;
  bool c = true;
  bool r = false;
  bool s = false;
  std::uint8_t reserved = 0;  // low nibble of the flags byte
  std::uint8_t revision = 1;
  std::optional<EnhancedBlock> enhanced;         // first 4 octets of the private data
  std::uint16_t private_data_length = 0;         // total octets, enhanced block included
  std::optional<std::uint16_t> pd_length_field;  // a lying PD_Length, for faults
  std::optional<Bytes> vendor_extension;         // Rev 129: after the 20-octet header
  std::optional<Bytes> private_data_octets;      // exactly these octets after the enhanced block
                                                 // (instead of filler; private_data_length must
                                                 // count them)
};

// The frame's octets; private data after the enhanced block is filled from `filler`.
Bytes build_startup_frame(const StartupFrameSpec& spec, std::uint64_t filler_seed);

// The frame with exactly these private data octets (`enhanced` and `private_data_length`
// are not used; PD_Length is `pd_length_field` or the octets' count).
Bytes build_startup_frame_with_private_data(const StartupFrameSpec& spec,
                                            std::span<const std::uint8_t> private_data);

// Sets M, C, R, S and the reserved nibble from a flags octet as it goes on the wire.
void set_flags(StartupFrameSpec& spec, std::uint8_t flags);

// The length of the frame build_startup_frame produces.
std::size_t startup_frame_length(const StartupFrameSpec& spec);

// The 8-octet erdma extension: cookie and bits, as erdma's struct erdma_mpa_ext.
Bytes erdma_extension();

}  // namespace mpa::synth
