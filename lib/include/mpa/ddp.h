// Just enough of DDP (RFC 5041 4) and RDMAP (RFC 5040 4) headers to recognise the
// RFC 6581 RTR messages and DDP versions. Not a DDP conformance checker.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace mpa {

inline constexpr std::uint32_t kDdpTaggedHeaderSize = 14;    // ctrl, RDMAP ctrl, STag, TO
inline constexpr std::uint32_t kDdpUntaggedHeaderSize = 18;  // ctrl, RDMAP ctrl, rsvd, QN, MSN, MO
inline constexpr std::uint32_t kRdmaReadRequestSize = 28;    // RFC 5040 4.4

enum class RdmapOpcode : std::uint8_t {
  Write = 0x0, ReadRequest = 0x1, ReadResponse = 0x2, Send = 0x3, SendInvalidate = 0x4,
  SendSe = 0x5, SendSeInvalidate = 0x6, Terminate = 0x7,
};

struct DdpHeader {
  bool tagged = false;
  bool last = false;
  std::uint8_t ddp_version = 0;
  std::uint8_t rdmap_version = 0;
  std::uint8_t opcode = 0;
  std::uint32_t stag = 0;       // tagged
  std::uint64_t to = 0;         // tagged
  std::uint32_t queue = 0;      // untagged
  std::uint32_t msn = 0;        // untagged
  std::uint32_t mo = 0;         // untagged
  std::uint32_t header_size = 0;
};

// Decodes the DDP/RDMAP header at the start of a ULPDU; nullopt if too short.
std::optional<DdpHeader> decode_ddp(std::span<const std::uint8_t> ulpdu);

enum class RtrKind : std::uint8_t { None, Send, Write, Read };

// Which zero-length RTR message (RFC 6581 9.2) a ULPDU is, if any.
RtrKind classify_rtr(std::span<const std::uint8_t> ulpdu_head, std::uint16_t ulpdu_length);

}  // namespace mpa
