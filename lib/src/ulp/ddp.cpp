// DDP (RFC 5041 4) and RDMAP (RFC 5040 4) header decoding, and RFC 6581 RTR recognition.
#include "mpa/ddp.h"

#include <fmt/format.h>

#include "decode/byte_order.h"

namespace mpa {
std::optional<DdpHeader> decode_ddp(std::span<const std::uint8_t> ulpdu) {
  if (ulpdu.size() < 2) return std::nullopt;
  DdpHeader h;
  h.tagged = ulpdu[0] & 0x80;
  h.last = ulpdu[0] & 0x40;
  h.ddp_version = ulpdu[0] & 0x03;
  h.rdmap_version = ulpdu[1] >> 6;
  h.opcode = ulpdu[1] & 0x0F;
  if (h.tagged) {
    if (ulpdu.size() < kDdpTaggedHeaderSize) return std::nullopt;
    h.stag = load_be32(&ulpdu[2]);
    h.to = static_cast<std::uint64_t>(load_be32(&ulpdu[6])) << 32 | load_be32(&ulpdu[10]);
    h.header_size = kDdpTaggedHeaderSize;
  } else {
    if (ulpdu.size() < kDdpUntaggedHeaderSize) return std::nullopt;
    h.queue = load_be32(&ulpdu[6]);
    h.msn = load_be32(&ulpdu[10]);
    h.mo = load_be32(&ulpdu[14]);
    h.header_size = kDdpUntaggedHeaderSize;
  }
  return h;
}

std::uint32_t rdmap_header_size(const DdpHeader& ddp) {
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

bool is_ird_request(const DdpHeader& ddp) {
  const auto op = static_cast<RdmapOpcode>(ddp.opcode);
  return !ddp.tagged && (op == RdmapOpcode::ReadRequest || op == RdmapOpcode::AtomicRequest);
}

bool is_ird_response_end(const DdpHeader& ddp) {
  const auto op = static_cast<RdmapOpcode>(ddp.opcode);
  if (!ddp.last) return false;
  return (ddp.tagged && op == RdmapOpcode::ReadResponse) ||
         (!ddp.tagged && op == RdmapOpcode::AtomicResponse);
}

std::string rdmap_opcode_words(std::uint8_t opcode) {
  static constexpr const char* kWords[12] = {"RDMA Write",
                                             "RDMA Read Request",
                                             "RDMA Read Response",
                                             "Send",
                                             "Send with Invalidate",
                                             "Send with Solicited Event",
                                             "Send with SE and Invalidate",
                                             "Terminate",
                                             "Immediate Data",
                                             "Immediate Data with Solicited Event",
                                             "Atomic Request",
                                             "Atomic Response"};
  return opcode < 12 ? std::string(kWords[opcode]) : fmt::format("opcode {}", opcode);
}

RtrKind classify_rtr(std::span<const std::uint8_t> ulpdu_head, std::uint16_t ulpdu_length) {
  const auto h = decode_ddp(ulpdu_head);
  if (!h) return RtrKind::None;
  const auto op = static_cast<RdmapOpcode>(h->opcode);
  if (h->tagged && op == RdmapOpcode::Write && ulpdu_length == kDdpTaggedHeaderSize) {
    return RtrKind::Write;
  }
  if (!h->tagged && (op == RdmapOpcode::Send || op == RdmapOpcode::SendSe) && h->queue == 0 &&
      ulpdu_length == kDdpUntaggedHeaderSize) {
    return RtrKind::Send;
  }
  if (!h->tagged && op == RdmapOpcode::ReadRequest && h->queue == 1 &&
      ulpdu_length == kDdpUntaggedHeaderSize + kRdmaReadRequestSize &&
      ulpdu_head.size() >= kDdpUntaggedHeaderSize + 16) {
    // RDMA Read Message Size (after sink STag and sink TO) is zero.
    if (load_be32(&ulpdu_head[kDdpUntaggedHeaderSize + 12]) == 0) return RtrKind::Read;
  }
  return RtrKind::None;
}

}  // namespace mpa
