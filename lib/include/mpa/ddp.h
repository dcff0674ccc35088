// Just enough of DDP (RFC 5041 4) and RDMAP (RFC 5040 4, RFC 7306) headers to recognise the
// RFC 6581 RTR messages, DDP versions, the headers each opcode needs and the RDMA Read and
// Atomic requests a peer must hold. Not a DDP conformance checker.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace mpa {

inline constexpr std::uint32_t kDdpTaggedHeaderSize = 14;    // ctrl, RDMAP ctrl, STag, TO
inline constexpr std::uint32_t kDdpUntaggedHeaderSize = 18;  // ctrl, RDMAP ctrl, rsvd, QN, MSN, MO
inline constexpr std::uint32_t kRdmaReadRequestSize = 28;    // RFC 5040 4.4

enum class RdmapOpcode : std::uint8_t {
  Write = 0x0,
  ReadRequest = 0x1,
  ReadResponse = 0x2,
  Send = 0x3,
  SendInvalidate = 0x4,
  SendSe = 0x5,
  SendSeInvalidate = 0x6,
  Terminate = 0x7,
  // RFC 7306 (RDMAP extensions).
  ImmediateData = 0x8,
  ImmediateDataSe = 0x9,  // with Solicited Event
  AtomicRequest = 0xA,
  AtomicResponse = 0xB,
};
// The opcode as the RDMAP control field carries it (RFC 5040 4.1).
constexpr std::uint8_t to_wire(RdmapOpcode o) { return static_cast<std::uint8_t>(o); }

// The RFC 7306 Atomic Request header: Reserved and Atomic Operation Code, Request Identifier,
// Remote STag, Remote Tagged Offset, Add or Swap Data, Add or Swap Mask, Compare Data, Compare
// Mask (64 bits each from the Remote Tagged Offset on), as Wireshark's packet-iwarp-ddp-rdmap.c
// reads it for both operations it names and IBM's urdma lays it out (RFC 7306's text is not in
// the tree).
inline constexpr std::uint32_t kAtomicRequestMinSize = 52;
// RFC 7306 Atomic Response header: Original Request Identifier, Original Remote Data Value.
inline constexpr std::uint32_t kAtomicResponseSize = 12;

struct DdpHeader {
  bool tagged = false;
  bool last = false;
  std::uint8_t ddp_version = 0;
  std::uint8_t rdmap_version = 0;
  std::uint8_t opcode = 0;
  std::uint32_t stag = 0;   // tagged
  std::uint64_t to = 0;     // tagged
  std::uint32_t queue = 0;  // untagged
  std::uint32_t msn = 0;    // untagged
  std::uint32_t mo = 0;     // untagged
  std::uint32_t header_size = 0;
};

// Whether a ULPDU of `ulpdu_length` octets whose first two octets are `ddp_control` and
// `rdmap_control` begins like DDP (RFC 5041 4, RFC 5040 4, RFC 5044 Appendix C): room for a
// DDP header, a DDP version of 0 or 1 and an RDMAP version equal to it. What a misframed
// stream rarely shows: an FPDU boundary read in the wrong place meets it one time in eight.
constexpr bool ulpdu_begins_like_ddp(std::uint32_t ulpdu_length, std::uint8_t ddp_control,
                                     std::uint8_t rdmap_control) {
  const unsigned ddp_version = ddp_control & 0x03u;
  const unsigned rdmap_version = rdmap_control >> 6;
  return ulpdu_length >= kDdpTaggedHeaderSize && ddp_version <= 1 && rdmap_version == ddp_version;
}

// Stricter: whether those octets are a DDP/RDMAP header a sender would write: versions as
// above, an RDMAP opcode that exists (RFC 5040 4.1; 8-11 for RFC 7306's atomics) in the
// DDP model it needs (tagged for RDMA Write and Read Response, untagged for the others), and
// room for that header. What the FPDU reader asks of every FPDU boundary (sender_framing.h):
// octets read in the wrong place pass it about one time in twenty.
constexpr bool ulpdu_header_plausible(std::uint32_t ulpdu_length, std::uint8_t ddp_control,
                                      std::uint8_t rdmap_control) {
  if (!ulpdu_begins_like_ddp(ulpdu_length, ddp_control, rdmap_control)) return false;
  const bool tagged = (ddp_control & 0x80u) != 0;
  const unsigned opcode = rdmap_control & 0x0fu;
  if (opcode > 0xb) return false;
  const bool needs_tag = opcode == 0x0 || opcode == 0x2;
  return tagged == needs_tag &&
         ulpdu_length >= (tagged ? kDdpTaggedHeaderSize : kDdpUntaggedHeaderSize);
}

namespace ddp_detail {
// A 32-bit field in network byte order (RFC 5041 4: the DDP header's fields are big-endian).
inline std::uint32_t load_be32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}
}  // namespace ddp_detail

// Decodes the DDP/RDMAP header at the start of a ULPDU; nullopt if too short. (Inline: every
// FPDU's header is decoded, by the checks and by the sinks that group messages.)
inline std::optional<DdpHeader> decode_ddp(std::span<const std::uint8_t> ulpdu) {
  if (ulpdu.size() < 2) return std::nullopt;
  const std::uint8_t* p = ulpdu.data();
  DdpHeader h;
  h.tagged = p[0] & 0x80;
  h.last = p[0] & 0x40;
  h.ddp_version = p[0] & 0x03;
  h.rdmap_version = p[1] >> 6;
  h.opcode = p[1] & 0x0F;
  if (h.tagged) {
    if (ulpdu.size() < kDdpTaggedHeaderSize) return std::nullopt;
    h.stag = ddp_detail::load_be32(p + 2);
    h.to = static_cast<std::uint64_t>(ddp_detail::load_be32(p + 6)) << 32 |
           ddp_detail::load_be32(p + 10);
    h.header_size = kDdpTaggedHeaderSize;
  } else {
    if (ulpdu.size() < kDdpUntaggedHeaderSize) return std::nullopt;
    h.queue = ddp_detail::load_be32(p + 6);
    h.msn = ddp_detail::load_be32(p + 10);
    h.mo = ddp_detail::load_be32(p + 14);
    h.header_size = kDdpUntaggedHeaderSize;
  }
  return h;
}

// The RDMAP header octets an opcode needs after the DDP header when it comes in the DDP
// model it belongs to (a whole untagged RDMA Read Request: 28; Atomic Request: 52;
// Atomic Response: 12; 0 for the others; a Terminate's depends on its flags, see
// terminate_header_size()).
constexpr std::uint32_t rdmap_header_size(const DdpHeader& ddp) {
  if (ddp.tagged) return 0;
  switch (static_cast<RdmapOpcode>(ddp.opcode)) {
    case RdmapOpcode::ReadRequest:
      return kRdmaReadRequestSize;
    case RdmapOpcode::AtomicRequest:
      return kAtomicRequestMinSize;
    case RdmapOpcode::AtomicResponse:
      return kAtomicResponseSize;
    default:
      return 0;
  }
}

// A request the peer must hold until it answers it (RFC 5040 4.4 RDMA Read Request, RFC
// 7306 Atomic Request; both count against the peer's IRD), and the last segment of its
// answer (RDMA Read Response with L=1, Atomic Response).
constexpr bool is_ird_request(const DdpHeader& ddp) {
  return !ddp.tagged && (ddp.opcode == to_wire(RdmapOpcode::ReadRequest) ||
                         ddp.opcode == to_wire(RdmapOpcode::AtomicRequest));
}
constexpr bool is_ird_response_end(const DdpHeader& ddp) {
  if (!ddp.last) return false;
  return ddp.tagged ? ddp.opcode == to_wire(RdmapOpcode::ReadResponse)
                    : ddp.opcode == to_wire(RdmapOpcode::AtomicResponse);
}

// "RDMA Read Request", "Atomic Response", ... ("opcode 12" for the undefined).
std::string rdmap_opcode_words(std::uint8_t opcode);

enum class RtrKind : std::uint8_t { None, Send, Write, Read };

// Which zero-length RTR message (RFC 6581 9.2) a ULPDU is, if any.
RtrKind classify_rtr(std::span<const std::uint8_t> ulpdu_head, std::uint16_t ulpdu_length);

}  // namespace mpa
