// The DDP/RDMAP header checks that have an early-out (issue 45), each beside its early-out, pure,
// so that a unit test holds the two together (tests/unit/ddp_field_checks_test.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "decode/byte_order.h"
#include "mpa/ddp.h"
#include "ulp/ddp_stream.h"

namespace mpa::ddp_fields {

// The untagged queue an RFC 5040 opcode uses (RFC 5040 5.2.1, 5.3, 5.4), if the RFC fixes one.
// (RFC 7306's opcodes are left to its text, which is not at hand.)
constexpr int queue_of(std::uint8_t opcode) {
  switch (static_cast<RdmapOpcode>(opcode)) {
    case RdmapOpcode::Send:
    case RdmapOpcode::SendInvalidate:
    case RdmapOpcode::SendSe:
    case RdmapOpcode::SendSeInvalidate:
      return 0;
    case RdmapOpcode::ReadRequest:
      return 1;
    case RdmapOpcode::Terminate:
      return 2;
    default:
      return -1;
  }
}

// RFC 5040 4.1 Figure 4: RDMA Write and Read Response are tagged, every other message untagged.
constexpr bool tagged_opcode(std::uint8_t opcode) {
  return opcode == to_wire(RdmapOpcode::Write) || opcode == to_wire(RdmapOpcode::ReadResponse);
}

// RFC 5040 4.1: the Invalidate STag is zero in Send, Send with SE, Read Request and Terminate.
constexpr bool invalidate_stag_zero(std::uint8_t opcode) {
  return opcode == to_wire(RdmapOpcode::Send) || opcode == to_wire(RdmapOpcode::SendSe) ||
         opcode == to_wire(RdmapOpcode::ReadRequest) || opcode == to_wire(RdmapOpcode::Terminate);
}

inline constexpr std::uint8_t kLastOpcode = to_wire(RdmapOpcode::AtomicResponse);  // RFC 7306's

// What DdpStream::check_fields() names of a segment's DDP and RDMAP Control fields, a bit each,
// in the order it names them. (A bitmask, not a struct of bools: asked only off the hot path.)
enum FieldFault : unsigned {
  kDdpReserved = 1u << 0,        // RFC 5041 4.1: Rsvd (the four bits between L and DV) set
  kDdpVersionChanged = 1u << 1,  // RFC 5041 4.1: a DV other than the stream's
  kRdmapReserved = 1u << 2,      // RFC 5040 4.1: bits 26-27 of the RDMAP Control field set
  kInvalidateStag = 1u << 3,     // RFC 5040 4.1: an Invalidate STag where none is invalidated
  kOpcodeReserved = 1u << 4,     // RFC 5040 4.1 (RFC 7306): an opcode no RFC defines
  kOpcodeModel = 1u << 5,        // RFC 5040 4.1 Figure 4: tagged where untagged, or the reverse
  kOpcodeQueue = 1u << 6,        // RFC 5040 5: on another queue than its own
};

// The faults of a segment whose decoded header is `ddp` and whose ULPDU begins with `head` (at
// least the DDP header's first six octets), in a stream whose DV is `stream_version` (0xff
// before its first segment: the DV is then taken, not judged). As check_fields() names them: the
// Invalidate STag only where the RDMAP reserved bits are clear, no model or queue for a reserved
// opcode, no queue where the model is wrong or the queue is not RDMAP's (ddp.queue-invalid's).
inline unsigned field_faults(const DdpHeader& ddp, std::span<const std::uint8_t> head,
                             std::uint8_t stream_version) {
  unsigned faults = 0;
  if (head[0] & 0x3c) faults |= kDdpReserved;
  if (stream_version != 0xff && ddp.ddp_version != stream_version) faults |= kDdpVersionChanged;
  if (head[1] & 0x30) {
    faults |= kRdmapReserved;
  } else if (!ddp.tagged && invalidate_stag_zero(ddp.opcode) && load_be32(&head[2]) != 0) {
    faults |= kInvalidateStag;
  }
  if (ddp.opcode > kLastOpcode) return faults | kOpcodeReserved;
  const bool model_right =
      ddp.opcode > to_wire(RdmapOpcode::Terminate) || ddp.tagged == tagged_opcode(ddp.opcode);
  const int queue = ddp.tagged || ddp.queue >= kDdpQueues ? -1 : queue_of(ddp.opcode);
  if (!model_right) {
    faults |= kOpcodeModel;
  } else if (queue >= 0 && ddp.queue != static_cast<std::uint32_t>(queue)) {
    faults |= kOpcodeQueue;
  }
  return faults;
}

// The early-out asked of every segment before field_faults() (the common case, judged without
// its call): true only where field_faults() is 0 (reserved bits clear, the stream's DV, a
// defined opcode in its DDP model and on its queue, the Invalidate STag zero where the opcode
// invalidates nothing) and the stream has a DV (0xff: never). Exact: false only where
// field_faults() names something or the stream's first DV is taken (the unit test holds it).
// A condition added to either is added to the other.
inline bool fields_plain(const DdpHeader& ddp, std::span<const std::uint8_t> head,
                         std::uint8_t stream_version) {
  if ((head[0] & 0x3c) != 0 || (head[1] & 0x30) != 0 || ddp.ddp_version != stream_version ||
      ddp.opcode > kLastOpcode) {
    return false;
  }
  if (ddp.opcode <= to_wire(RdmapOpcode::Terminate) && ddp.tagged != tagged_opcode(ddp.opcode))
    return false;
  if (ddp.tagged) return true;
  if (invalidate_stag_zero(ddp.opcode) && load_be32(&head[2]) != 0) return false;
  const int queue = ddp.queue >= kDdpQueues ? -1 : queue_of(ddp.opcode);
  return queue < 0 || ddp.queue == static_cast<std::uint32_t>(queue);
}

// RFC 5044 Appendix C: DDP and RDMAP carry one version, not mixed: 0 is an RDMA Consortium
// peer's (MPA Rev 0), 1 an IETF one's (RFC 5041 4.1 DV, RFC 5040 4.1 RV: 01b; Rev 1 and 2).
// The version an MPA `revision` names (none where the Request was not seen).
constexpr std::optional<unsigned> expected_version(std::optional<int> revision) {
  return revision ? std::optional<unsigned>(*revision == 0 ? 0u : 1u) : std::nullopt;
}

// Whether the DV and RV are what version_finding() (ulp_checks.cpp) finds nothing in: with the
// Request seen, both the version its revision names; without it, both 0 or both 1 (a DV or RV
// of 2 or 3 is no revision's, and a pair of 0s is a Rev 0 peer's, which only the Request shows).
constexpr bool versions_conform(const DdpHeader& ddp, std::optional<int> revision) {
  const std::optional<unsigned> expected = expected_version(revision);
  const auto fits = [&](unsigned version) {
    return expected ? version == *expected : version <= 1;
  };
  return fits(ddp.ddp_version) && fits(ddp.rdmap_version) && ddp.ddp_version == ddp.rdmap_version;
}

// The early-out asked of every segment before version_finding() (the common case, without its
// optional Finding). Exact: equal to versions_conform() (the unit test holds it); a condition
// added to either is added to the other.
constexpr bool versions_fit(const DdpHeader& ddp, std::optional<int> revision) {
  const unsigned version = ddp.ddp_version;
  return version == ddp.rdmap_version &&
         (revision ? version == (*revision == 0 ? 0u : 1u) : version <= 1);
}

}  // namespace mpa::ddp_fields
