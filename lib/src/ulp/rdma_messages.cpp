// RDMA messages assembled from the DDP Segments of a connection's FPDUs (see rdma_messages.h).
#include "mpa/rdma_messages.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "decode/byte_order.h"
#include "mpa/ddp.h"

namespace mpa {

namespace {

constexpr std::uint32_t kTerminateHeaderMin = 4;  // RFC 5040 4.8: the Terminate Control field

// The RDMAP header octets an opcode needs (as the DDP layer asks of a segment it takes).
std::uint32_t needed(const DdpHeader& ddp) {
  if (!ddp.tagged && ddp.opcode == static_cast<std::uint8_t>(RdmapOpcode::Terminate)) {
    return ddp.header_size + kTerminateHeaderMin;
  }
  return ddp.header_size + rdmap_header_size(ddp);
}

// The DDP header fields the log reads (decode_ddp's but the versions and the MO, which it does
// not), into `h`; false where `head` is too short for the header its T bit announces. (Here,
// not decode_ddp: every FPDU of every connection comes through, and this one is inlined.)
bool read_header(std::span<const std::uint8_t> head, DdpHeader& h) {
  if (head.size() < 2) return false;
  const std::uint8_t* p = head.data();
  h.tagged = p[0] & 0x80;
  h.last = p[0] & 0x40;
  h.opcode = p[1] & 0x0F;
  if (h.tagged) {
    if (head.size() < kDdpTaggedHeaderSize) return false;
    h.stag = load_be32(p + 2);
    h.to = static_cast<std::uint64_t>(load_be32(p + 6)) << 32 | load_be32(p + 10);
    h.header_size = kDdpTaggedHeaderSize;
  } else {
    if (head.size() < kDdpUntaggedHeaderSize) return false;
    h.queue = load_be32(p + 6);
    h.msn = load_be32(p + 10);
    h.header_size = kDdpUntaggedHeaderSize;
  }
  return true;
}

// RFC 5040 4.4 Figure 6: the RDMA Read Request header after the untagged DDP header.
std::optional<RdmaReadAsked> read_asked(const DdpHeader& ddp, std::span<const std::uint8_t> head) {
  if (ddp.tagged || ddp.opcode != static_cast<std::uint8_t>(RdmapOpcode::ReadRequest) ||
      head.size() < kDdpUntaggedHeaderSize + kRdmaReadRequestSize) {
    return std::nullopt;
  }
  const std::uint8_t* p = head.data() + kDdpUntaggedHeaderSize;
  auto be64 = [](const std::uint8_t* q) {
    return static_cast<std::uint64_t>(load_be32(q)) << 32 | load_be32(q + 4);
  };
  return RdmaReadAsked{load_be32(p), be64(p + 4), load_be32(p + 12), load_be32(p + 16),
                       be64(p + 20)};
}

}  // namespace

std::string rdma_message_words(const RdmaMessage& m) {
  std::string words = rdmap_opcode_words(m.opcode);
  if (m.tagged) {
    words += fmt::format(" STag 0x{:08x} TO 0x{:x}", m.stag, m.to);
  } else {
    words += fmt::format(" queue {} MSN {}", m.queue, m.msn);
  }
  words += fmt::format(": {} octet{} in {} DDP segment{}", m.octets, m.octets == 1 ? "" : "s",
                       m.segments, m.segments == 1 ? "" : "s");
  if (m.read) {
    words += fmt::format(
        "; asks {} octets from STag 0x{:08x} TO 0x{:x} into STag 0x{:08x} TO 0x{:x}", m.read->size,
        m.read->source_stag, m.read->source_to, m.read->sink_stag, m.read->sink_to);
  }
  if (!m.complete) words += " (no Last segment seen)";
  return words;
}

// The message's identity and counts, which every log keeps (the next segments go on with it).
void RdmaMessageLog::begin(Open& o, const FpduEvent& fpdu, const DdpHeader& ddp) {
  const int d = static_cast<int>(fpdu.direction);
  RdmaMessage& m = o.message;
  m.number = begun_[d]++;
  m.opcode = ddp.opcode;
  m.tagged = ddp.tagged;
  m.queue = ddp.tagged ? 0 : ddp.queue;
  m.msn = ddp.tagged ? 0 : ddp.msn;
  m.stag = ddp.tagged ? ddp.stag : 0;
  m.to = ddp.tagged ? ddp.to : 0;
  m.octets = 0;
  m.segments = 0;
  ++counts_[d][ddp.opcode].messages;
  o.listed = static_cast<std::size_t>(-1);
}

void RdmaMessageLog::keep(Open& o, const FpduEvent& fpdu, const DdpHeader& ddp, bool began) {
  RdmaMessage& m = o.message;
  if (began) {
    m.direction = fpdu.direction;
    m.first_frame = fpdu.last_frame;
    m.first_seq = fpdu.header_seq;
    m.read = read_asked(ddp, fpdu.ulpdu_head);
    if (listed_.size() < max_listed_) {
      o.listed = listed_.size();
      listed_.emplace_back();
    } else {
      ++not_listed_;
    }
  }
  m.last_frame = fpdu.last_frame;
  m.last_seq = fpdu.header_seq;
  m.complete = ddp.last;
  if (o.listed != static_cast<std::size_t>(-1)) listed_[o.listed] = m;
}

const RdmaMessage* RdmaMessageLog::on_fpdu(const FpduEvent& fpdu) {
  if (fpdu.ulpdu_length == 0) return nullptr;
  const int d = static_cast<int>(fpdu.direction);
  Slots& slots = open_[d];
  const std::uint32_t size = fpdu.ulpdu_size != 0 ? fpdu.ulpdu_size : fpdu.ulpdu_length;
  DdpHeader header;
  const DdpHeader* ddp = read_header(fpdu.ulpdu_head, header) ? &header : nullptr;
  if (!fpdu.judged || fpdu.crc_status == CrcStatus::Bad || !ddp || size < needed(*ddp)) {
    for (Open& o : slots) o.open = false;  // what the segment held is unknown
    return nullptr;
  }
  Open& o = ddp->tagged ? slots[kSlots - 1] : slots[std::min<std::uint32_t>(ddp->queue, 5)];
  // A segment goes on with the open message of its queue (same MSN) or the open tagged one
  // (same opcode, and the same STag or the TO where the message's payload ended: a changed
  // STag is ddp.stag-changed's, RFC 5041 4.2); anything else begins a message.
  RdmaMessage& m = o.message;
  const bool goes_on =
      o.open && m.opcode == ddp->opcode &&
      (ddp->tagged ? ddp->stag == m.stag || ddp->to == m.to + m.octets : ddp->msn == m.msn);
  if (!goes_on) begin(o, fpdu, *ddp);
  const std::uint32_t payload = size - ddp->header_size;
  RdmaOpcodeTally& tally = counts_[d][ddp->opcode];
  tally.octets += payload;
  ++tally.segments;
  m.octets += payload;
  ++m.segments;
  o.open = !ddp->last;
  if (counts_only_) return nullptr;
  keep(o, fpdu, *ddp, !goes_on);
  return &m;
}

}  // namespace mpa
