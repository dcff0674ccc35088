// DDP (RFC 5041 4) and RDMAP (RFC 5040 4) header decoding, and RFC 6581 RTR recognition.
#include "mpa/ddp.h"

#include <fmt/format.h>

#include "decode/byte_order.h"

namespace mpa {
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
