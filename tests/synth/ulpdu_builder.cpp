// DDP/RDMAP ULPDU construction (see ulpdu_builder.h).
#include "ulpdu_builder.h"

#include <algorithm>

namespace mpa::synth {
namespace {

// RDMAP opcodes (RFC 5040 4.3).
constexpr std::uint8_t kOpWrite = 0x0;
constexpr std::uint8_t kOpReadRequest = 0x1;
constexpr std::uint8_t kOpReadResponse = 0x2;
constexpr std::uint8_t kOpSend = 0x3;
constexpr std::uint8_t kOpTerminate = 0x7;
// RFC 7306.
constexpr std::uint8_t kOpImmediateData = 0x8;
constexpr std::uint8_t kOpImmediateDataSe = 0x9;
constexpr std::uint8_t kOpAtomicRequest = 0xA;
constexpr std::uint8_t kOpAtomicResponse = 0xB;

constexpr std::uint32_t kSendQueue = 0;
constexpr std::uint32_t kReadRequestQueue = 1;
constexpr std::uint32_t kTerminateQueue = 2;
constexpr std::uint32_t kAtomicRequestQueue = 3;
constexpr std::uint32_t kAtomicResponseQueue = 4;

// Terminate Control and the 13 reserved bits after it, as RFC 5040 Figure 8 lays them out,
// or as Linux siw's little-endian bitfields put them on the wire.
void put_terminate_control(Bytes& out, const TerminateSpec& t) {
  const bool m = t.ddp_segment_length != 0 || !t.ddp_header.empty();
  const bool d = !t.ddp_header.empty();
  if (t.siw_layout) {
    put_u8(out, static_cast<std::uint8_t>((t.etype & 0xF) << 4 | (t.layer & 0xF)));
    put_u8(out, t.code);
    put_u8(out, static_cast<std::uint8_t>((m ? 0x01 : 0) | (d ? 0x02 : 0)));
  } else {
    const std::uint8_t etype = t.cxgb_irdma_layout && t.layer == 2 ? 3 : t.etype;
    put_u8(out, static_cast<std::uint8_t>((t.layer & 0xF) << 4 | (etype & 0xF)));
    put_u8(out, t.code);
    put_u8(out,
           static_cast<std::uint8_t>((m ? 0x80 : 0) | (d ? 0x40 : 0) | (t.reserved >> 8 & 0x1F)));
  }
  put_u8(out, static_cast<std::uint8_t>(t.reserved));
}

// DDP control (RFC 5041 4.1): T L Rsvd(4) DV(2); RDMAP control: RV(2) Rsv(2) Opcode(4).
std::uint8_t ddp_control(bool tagged, bool last, std::uint8_t version) {
  return static_cast<std::uint8_t>((tagged ? 0x80 : 0) | (last ? 0x40 : 0) | (version & 0x3));
}
std::uint8_t rdmap_control(std::uint8_t version, std::uint8_t opcode) {
  return static_cast<std::uint8_t>((version & 0x3) << 6 | (opcode & 0xF));
}

// DDP untagged header (RFC 5041 4.3) with the RDMAP control octet (RFC 5040 4.1).
void put_untagged_header(Bytes& out, std::uint8_t version, bool last, std::uint8_t opcode,
                         std::uint32_t qn, std::uint32_t msn, std::uint32_t mo) {
  put_u8(out, ddp_control(false, last, version));
  put_u8(out, rdmap_control(version, opcode));
  put_be32(out, 0);  // RsvdULP[8:39]: Invalidate STag, zero for Send
  put_be32(out, qn);
  put_be32(out, msn);
  put_be32(out, mo);
}

// Splits `size` octets into pieces of at most `max_piece` (at least one piece, maybe empty).
std::vector<std::size_t> pieces(std::size_t size, std::size_t max_piece) {
  std::vector<std::size_t> out;
  do {
    const std::size_t n = std::min(size, max_piece);
    out.push_back(n);
    size -= n;
  } while (size > 0);
  return out;
}

}  // namespace

void UlpduBuilder::put_payload(Bytes& out, std::size_t size, PayloadFill fill) {
  if (fill == PayloadFill::Zero) {
    out.resize(out.size() + size, 0);
  } else {
    rng_.fill(out, size);
  }
}

Bytes UlpduBuilder::untagged(bool last, std::uint8_t opcode, std::uint32_t qn, std::uint32_t msn,
                             std::uint32_t mo, std::size_t payload, PayloadFill fill) {
  Bytes out;
  put_untagged_header(out, version_, last, opcode, qn, msn, mo);
  put_payload(out, payload, fill);
  return out;
}

Bytes UlpduBuilder::tagged(bool last, std::uint8_t opcode, std::uint32_t stag, std::uint64_t to,
                           std::size_t payload, PayloadFill fill) {
  Bytes out;
  put_u8(out, ddp_control(true, last, version_));
  put_u8(out, rdmap_control(version_, opcode));
  put_be32(out, stag);
  put_be64(out, to);
  put_payload(out, payload, fill);
  return out;
}

std::vector<Bytes> UlpduBuilder::send(std::size_t size, std::size_t max_payload, PayloadFill fill) {
  const std::uint32_t msn = ++next_msn_[kSendQueue];
  std::vector<Bytes> out;
  const std::vector<std::size_t> parts = pieces(size, max_payload);
  std::uint32_t mo = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out.push_back(untagged(i + 1 == parts.size(), kOpSend, kSendQueue, msn, mo, parts[i], fill));
    mo += static_cast<std::uint32_t>(parts[i]);
  }
  return out;
}

std::vector<Bytes> UlpduBuilder::write(std::size_t size, std::size_t max_payload,
                                       PayloadFill fill) {
  const std::uint32_t stag = next_stag_++;
  std::uint64_t to = 0x7F3A00001000ull;
  std::vector<Bytes> out;
  const std::vector<std::size_t> parts = pieces(size, max_payload);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out.push_back(tagged(i + 1 == parts.size(), kOpWrite, stag, to, parts[i], fill));
    to += parts[i];
  }
  return out;
}

ReadSink read_sink(std::uint32_t msn) {
  return {0x00C5D000 + msn, 0x7F3B00000000ull + 0x10000ull * msn};
}

Bytes UlpduBuilder::read_request(std::size_t read_size, bool named_sink) {
  const std::uint32_t msn = ++next_msn_[kReadRequestQueue];
  Bytes out = untagged(true, kOpReadRequest, kReadRequestQueue, msn, 0, 0, PayloadFill::Zero);
  const ReadSink sink = named_sink ? read_sink(msn) : ReadSink{};
  put_be32(out, sink.stag);  // Data Sink STag
  put_be64(out, sink.to);    // Data Sink Tagged Offset
  put_be32(out, static_cast<std::uint32_t>(read_size));
  put_be32(out, named_sink ? 0x00D5E000 + msn : 0);   // Data Source STag
  put_be64(out, named_sink ? 0x7F3C00000000ull : 0);  // Data Source Tagged Offset
  return out;
}

std::vector<Bytes> UlpduBuilder::read_response(std::size_t size, std::size_t max_payload,
                                               PayloadFill fill) {
  const ReadSink sink = read_sink(++reads_answered_);
  std::uint64_t to = sink.to;
  std::vector<Bytes> out;
  const std::vector<std::size_t> parts = pieces(size, max_payload);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out.push_back(tagged(i + 1 == parts.size(), kOpReadResponse, sink.stag, to, parts[i], fill));
    to += parts[i];
  }
  return out;
}

// RFC 7306 Atomic Request header: Reserved(28) Atomic Operation Code(4), Request Identifier,
// Remote STag, Remote Tagged Offset, Add or Swap Data, Add or Swap Mask, Compare Data,
// Compare Mask (the 64-bit fields big-endian).
Bytes UlpduBuilder::atomic_request() {
  const std::uint32_t msn = ++next_msn_[kAtomicRequestQueue];
  Bytes out = untagged(true, kOpAtomicRequest, kAtomicRequestQueue, msn, 0, 0, PayloadFill::Zero);
  put_be32(out, 0);    // Atomic Operation Code 0: FetchAdd
  put_be32(out, msn);  // Request Identifier
  put_be32(out, 0x00C0FFEE);
  put_be64(out, 0x7F3C00003000ull);
  put_be64(out, 1);  // add 1
  put_be64(out, 0);
  put_be64(out, 0);
  put_be64(out, 0);
  return out;
}

// RFC 7306 Atomic Response header: Original Request Identifier, Original Remote Data Value.
Bytes UlpduBuilder::atomic_response() {
  const std::uint32_t msn = ++next_msn_[kAtomicResponseQueue];
  Bytes out = untagged(true, kOpAtomicResponse, kAtomicResponseQueue, msn, 0, 0, PayloadFill::Zero);
  put_be32(out, msn);  // the n-th response answers the n-th request
  put_be64(out, 41);
  return out;
}

Bytes UlpduBuilder::terminate(const TerminateSpec& spec) {
  const std::uint32_t msn = ++next_msn_[kTerminateQueue];
  Bytes out = untagged(true, kOpTerminate, kTerminateQueue, msn, 0, 0, PayloadFill::Zero);
  put_terminate_control(out, spec);
  put_be16(out, spec.ddp_segment_length);
  append(out, spec.ddp_header);
  return out;
}

std::vector<Bytes> UlpduBuilder::message(MessageKind kind, std::size_t payload_size,
                                         std::size_t mulpdu, bool unsplit, PayloadFill fill) {
  const auto max_payload = [&](std::size_t header) {
    return unsplit ? payload_size : std::max<std::size_t>(1, mulpdu - header);
  };
  switch (kind) {
    case MessageKind::Send:
      return send(payload_size, max_payload(kUntaggedHeader), fill);
    case MessageKind::Write:
      return write(payload_size, max_payload(kTaggedHeader), fill);
    case MessageKind::SendRtr:
      return send(0, 1, fill);
    case MessageKind::WriteRtr:
      return {tagged(true, kOpWrite, 0, 0, 0, fill)};
    case MessageKind::ReadRtr:
      return {read_request(0)};
    case MessageKind::ReadResponseEmpty:
      return {tagged(true, kOpReadResponse, 0, 0, 0, fill)};
    case MessageKind::EmptyUlpdu:
      return {Bytes{}};
    case MessageKind::TruncatedDdp: {
      Bytes out = untagged(true, kOpSend, kSendQueue, ++next_msn_[kSendQueue], 0, 0, fill);
      out.resize(10);
      return {out};
    }
    case MessageKind::Terminate:
      return {terminate(TerminateSpec{})};
    case MessageKind::ReadRequest:
      return {read_request(payload_size, true)};
    case MessageKind::ReadResponse:
      return read_response(payload_size, max_payload(kTaggedHeader), fill);
    case MessageKind::ImmediateData:
    case MessageKind::ImmediateDataSe: {
      const std::uint8_t op =
          kind == MessageKind::ImmediateData ? kOpImmediateData : kOpImmediateDataSe;
      return {untagged(true, op, kSendQueue, ++next_msn_[kSendQueue], 0, 8, fill)};
    }
    case MessageKind::AtomicRequest:
      return {atomic_request()};
    case MessageKind::AtomicResponse:
      return {atomic_response()};
    case MessageKind::TruncatedReadRequest: {
      Bytes out = read_request(0);
      out.resize(kUntaggedHeader + 12);
      return {out};
    }
  }
  return {};
}

Bytes untagged_send(std::uint8_t ddp_version, std::uint32_t msn,
                    std::span<const std::uint8_t> payload) {
  Bytes out;
  put_untagged_header(out, ddp_version, true, kOpSend, kSendQueue, msn, 0);
  append(out, payload);
  return out;
}

}  // namespace mpa::synth
