// Fuzz target: the DDP/RDMAP layer (lib/src/ulp: ulp_checks, ddp_stream, terminate, and the
// connection's use of them above the FPDU reader: IRD counting, Terminates held against the
// peer's data, receiver reactions) through the Analyzer. The fuzzer's bytes describe RDMAP
// messages on both directions of one MPA connection; a generator written here makes them
// valid DDP Segments (RFC 5041, RFC 5040, RFC 7306: per-queue MSN from 1 and MO from 0,
// tagged messages contiguous in STag and TO, Read Responses answering the peer's Read
// Requests in order within its IRD, Terminates on queue 2 and nothing after them) unless a
// record asks for a mutation of one of its segments (a header field, the ULPDU's length or
// an octet, a segment dropped, repeated or swapped). The reference sender (reference_mpa.h)
// frames every ULPDU as RFC 5044 says (with markers and CRCs as negotiated), so nothing
// below DDP is wrong, and the whole conversation is fed twice: one FPDU to a segment, and
// each run of one direction's FPDUs cut at points the input's seed chooses.
//
// Checks beyond "no crash, no UB, no leak":
//   - every finding's id is in the catalogue; none of the FPDU framing, marker, CRC or
//     capture layers (nothing below DDP is wrong);
//   - a DDP/RDMAP finding (ddp.*, rdmap.*, fpdu.rtr-missing, fpdu.ulpdu-length-zero) stands
//     at the ULPDU_Length field of an FPDU this direction sent, and at or after the first
//     mutation of this direction (of either direction for rdmap.ird-exceeded): the valid
//     generator's streams draw none;
//   - rdmap.terminate and its companions stand on FPDUs that hold an untagged opcode 7, and
//     every Terminate of a direction not mutated yet is named;
//   - receiver.* only once a Terminate was sent, but receiver.terminate-missing, only once
//     the other direction was named for ddp.queue-invalid or rdmap.opcode-invalid;
//   - the number of findings is bounded by the number of FPDUs;
//   - both segmentations give the same findings (id, direction, sequence number), but
//     fpdu.not-segment-aligned, which is about the segmentation itself.
//
// Input layout (any input is valid: reads past the end give zeros):
//   byte 0      0x01 markers (M in both frames), 0x02 CRCs (C in both frames), 0x04 Rev 2 with
//               an IRD/ORD block, 0x08 peer-to-peer (with 0x04), 0x10 its RTR a zero-length
//               RDMA Write (else a zero-length Send)
//   byte 1      the Request's IRD (low nibble) and ORD (high nibble); byte 2 the Reply's
//   bytes 3-6   the seed of the second segmentation (little endian)
//   then records of 4 octets, one RDMAP message each:
//     a   0x01 direction (Responder), 0x1E kind (>> 1: 0 Send, 1 Send with Invalidate,
//         2 Send with SE, 3 Send with SE and Invalidate, 4 RDMA Write, 5 RDMA Read Request,
//         6 RDMA Read Response (answers the peer's oldest request; else an RDMA Write),
//         7 Terminate, 8 Immediate Data, 9 Immediate Data with SE, 10 Atomic Request,
//         11 Atomic Response (answers the peer's oldest Atomic Request; else a Send),
//         12-15 Send), 0xE0 segments - 1 (of the messages that may have several)
//     b   octets of payload per segment (a Read Request: per segment of its Response; a
//         Terminate: 0x03 its kind, 0x1C the MPA error code of an LLP one)
//     c   a mutation when (c & 0xE0) == 0xE0: c & 0x1F its kind (see mutate())
//     d   the mutation's argument: 0x07 which segment, 0xF8 a value
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "connection_input.h"  // fuzz_endpoint
#include "fuzz_support.h"
#include "mpa/analyzer.h"
#include "mpa/diagnostics.h"
#include "reference_mpa.h"

namespace {

namespace ref = mpa::reference;
using mpa::DiagId;
using ref::Octets;

void put32(Octets& o, std::size_t at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) o[at + k] = static_cast<std::uint8_t>(v >> (24 - 8 * k));
}
void put64(Octets& o, std::size_t at, std::uint64_t v) {
  put32(o, at, static_cast<std::uint32_t>(v >> 32));
  put32(o, at + 4, static_cast<std::uint32_t>(v));
}
std::uint32_t get32(const Octets& o, std::size_t at) {
  return std::uint32_t{o[at]} << 24 | std::uint32_t{o[at + 1]} << 16 |
         std::uint32_t{o[at + 2]} << 8 | o[at + 3];
}

// DDP/RDMAP headers (RFC 5041 4.2, 4.3; RFC 5040 4.1), DDP version 1 and RDMAP version 1.
Octets tagged(std::uint8_t opcode, bool last, std::uint32_t stag, std::uint64_t to,
              std::size_t payload) {
  Octets o(14 + payload);
  o[0] = static_cast<std::uint8_t>(0x80 | (last ? 0x40 : 0) | 0x01);
  o[1] = static_cast<std::uint8_t>(0x40 | opcode);
  put32(o, 2, stag);
  put64(o, 6, to);
  for (std::size_t k = 14; k < o.size(); ++k) o[k] = static_cast<std::uint8_t>(k * 7 + opcode);
  return o;
}
Octets untagged(std::uint8_t opcode, bool last, std::uint32_t queue, std::uint32_t msn,
                std::uint32_t mo, std::size_t payload) {
  Octets o(18 + payload);
  o[0] = static_cast<std::uint8_t>((last ? 0x40 : 0) | 0x01);
  o[1] = static_cast<std::uint8_t>(0x40 | opcode);
  if (opcode == 4 || opcode == 6) put32(o, 2, 0x5A5A0000u | msn);  // Invalidate STag
  put32(o, 6, queue);
  put32(o, 10, msn);
  put32(o, 14, mo);
  for (std::size_t k = 18; k < o.size(); ++k) o[k] = static_cast<std::uint8_t>(k * 13 + msn);
  return o;
}

// A request a direction has outstanding at its peer (RFC 5040 4.4, RFC 7306).
struct Request {
  bool atomic = false;
  std::uint32_t stag = 0;  // sink STag (Read) / request identifier (Atomic)
  std::uint64_t to = 0;
  std::uint32_t segment = 0;   // octets per Read Response segment
  std::uint32_t segments = 0;  // Read Response segments
};

// One direction's generator state.
struct Side {
  std::uint32_t msn[5] = {};  // the last MSN per queue
  std::uint32_t next_stag = 0;
  std::deque<Request> pending;  // its requests the peer has not answered yet
  bool terminated = false;
  bool mutated = false;  // a mutation (or a message after a Terminate) went out
  Octets last_ulpdu;     // its last ULPDU sent, for a Terminate of the peer to quote
};

// One FPDU as generated, in the order of the conversation.
struct Sent {
  int dir = 0;
  std::size_t start = 0, end = 0;   // of its octets in the direction's full-operation stream
  std::uint32_t header = 0;         // sequence number of its ULPDU_Length field
  bool mutated_before = false;      // a mutation of this direction at or before it
  bool any_mutated_before = false;  // ... of either direction
  bool terminate = false;           // an untagged opcode 7 of 22 octets or more
};

struct Config {
  bool markers = false, crc = false, enhanced = false, p2p = false, write_rtr = false;
  std::uint16_t req_ird = 0, req_ord = 0, rep_ird = 0, rep_ord = 0;
  // The IRD bounding each direction's requests (as the connection counts them: the Reply's
  // IRD for the Initiator's, the larger of the Request's IRD and the Reply's ORD for the
  // Responder's); unset without the block.
  std::optional<std::uint16_t> peer_ird(int dir) const {
    if (!enhanced) return std::nullopt;
    return dir == 0 ? rep_ird : std::max(req_ird, rep_ord);
  }
};

class Conversation {
 public:
  explicit Conversation(const Config& config)
      : streams_{ref::FramedStream(rfc(), config.markers, config.crc),
                 ref::FramedStream(rfc(), config.markers, config.crc)},
        config_(config) {}

  void rtr() {
    emit(0, config_.write_rtr ? tagged(0, true, 0, 0, 0)
                              : untagged(3, true, 0, ++sides_[0].msn[0], 0, 0));
  }
  void message(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d);

  const Config& config() const { return config_; }
  ref::FramedStream streams_[2];
  std::vector<Sent> sent;

 private:
  static const ref::Model& rfc() { return ref::models().front(); }
  std::vector<Octets> build(int dir, unsigned kind, unsigned segments, std::uint8_t b);
  std::vector<Octets> send(Side& s, std::uint8_t opcode, unsigned segments, std::size_t size);
  std::vector<Octets> write(Side& s, std::uint8_t opcode, std::uint32_t stag, std::uint64_t to,
                            unsigned segments, std::size_t size);
  std::vector<Octets> read_request(int dir, unsigned segments, std::uint8_t b);
  std::vector<Octets> terminate(int dir, std::uint8_t b);
  bool mutate(std::vector<Octets>& segments, unsigned kind, std::uint8_t d);
  void emit(int dir, const Octets& ulpdu) {
    Side& s = sides_[dir];
    ref::FramedStream& stream = streams_[dir];
    Sent f;
    f.dir = dir;
    f.start = stream.wire.size();
    stream.add(ulpdu, 0xDEADBEEF);
    f.end = stream.wire.size();
    f.header = static_cast<std::uint32_t>(stream.fpdus.back().header);
    f.mutated_before = s.mutated;
    f.any_mutated_before = sides_[0].mutated || sides_[1].mutated;
    f.terminate = ulpdu.size() >= 22 && !(ulpdu[0] & 0x80) && (ulpdu[1] & 0x0F) == 7;
    s.last_ulpdu = ulpdu;
    sent.push_back(f);
  }

  Config config_;
  Side sides_[2];
};

std::vector<Octets> Conversation::send(Side& s, std::uint8_t opcode, unsigned segments,
                                       std::size_t size) {
  std::vector<Octets> out;
  const std::uint32_t msn = ++s.msn[0];
  for (unsigned k = 0; k < segments; ++k) {
    out.push_back(
        untagged(opcode, k + 1 == segments, 0, msn, static_cast<std::uint32_t>(k * size), size));
  }
  return out;
}

std::vector<Octets> Conversation::write(Side&, std::uint8_t opcode, std::uint32_t stag,
                                        std::uint64_t to, unsigned segments, std::size_t size) {
  std::vector<Octets> out;
  for (unsigned k = 0; k < segments; ++k)
    out.push_back(tagged(opcode, k + 1 == segments, stag, to + k * size, size));
  return out;
}

std::vector<Octets> Conversation::read_request(int dir, unsigned segments, std::uint8_t b) {
  Side& s = sides_[dir];
  const auto ird = config_.peer_ird(dir);
  if (ird && s.pending.size() >= *ird) return send(s, 3, segments, b);  // no room at the peer
  Request r;
  r.stag = 0x2000u + ++s.next_stag;
  r.to = std::uint64_t{r.stag} << 20;
  r.segment = b + 1u;
  r.segments = segments;
  s.pending.push_back(r);
  Octets o = untagged(1, true, 1, ++s.msn[1], 0, 28);
  put32(o, 18, r.stag);
  put64(o, 22, r.to);
  put32(o, 30, r.segment * r.segments);  // RDMA Read Message Size
  put32(o, 34, 0x3000u + s.next_stag);   // source STag
  put64(o, 38, 0x100000);                // source TO
  return {o};
}

std::vector<Octets> Conversation::terminate(int dir, std::uint8_t b) {
  Side& s = sides_[dir];
  Octets o = untagged(7, true, 2, ++s.msn[2], 0, 4);
  std::fill(o.begin() + 18, o.end(), 0);
  const unsigned kind = b & 0x03;
  if (kind == 0) {  // RDMAP, remote operation, unexpected opcode; no headers quoted
    o[18] = 0x02, o[19] = 0x06;
    return {o};
  }
  // A DDP error (untagged buffer, invalid MSN) or an LLP (MPA) one, quoting the DDP header of
  // the peer's last FPDU (D flag, RFC 5040 4.8).
  o[18] = kind == 1 ? 0x12 : 0x20;
  o[19] = kind == 1 ? 0x03 : static_cast<std::uint8_t>((b >> 2) & 0x07);
  o[20] = 0x40;
  const Octets& quoted = sides_[1 - dir].last_ulpdu;
  o.push_back(static_cast<std::uint8_t>(quoted.size() >> 8));
  o.push_back(static_cast<std::uint8_t>(quoted.size()));
  for (std::size_t k = 0; k < 14; ++k) o.push_back(k < quoted.size() ? quoted[k] : 0);
  return {o};
}

std::vector<Octets> Conversation::build(int dir, unsigned kind, unsigned segments, std::uint8_t b) {
  Side& s = sides_[dir];
  Side& peer = sides_[1 - dir];
  switch (kind) {
    case 0:
    case 1:
    case 2:
    case 3:
      return send(s, static_cast<std::uint8_t>(3 + kind), segments, b);
    case 4:
    case 6: {
      if (kind == 6 && !peer.pending.empty() && !peer.pending.front().atomic) {
        const Request r = peer.pending.front();
        peer.pending.pop_front();
        return write(s, 2, r.stag, r.to, r.segments, r.segment);
      }
      const std::uint32_t stag = 0x1000u + ++s.next_stag;
      return write(s, 0, stag, std::uint64_t{stag} << 16, segments, b);
    }
    case 5:
      return read_request(dir, segments, b);
    case 7:
      return terminate(dir, b);
    case 8:
    case 9:
      return send(s, static_cast<std::uint8_t>(kind), 1, 8);  // RFC 7306: 8 octets of data
    case 10: {
      const auto ird = config_.peer_ird(dir);
      if (ird && s.pending.size() >= *ird) return send(s, 3, segments, b);
      Request r;
      r.atomic = true;
      r.stag = ++s.next_stag;
      s.pending.push_back(r);
      Octets o = untagged(0xA, true, 3, ++s.msn[3], 0, 52);  // (the 52-octet header, ddp.h)
      put32(o, 18, 0);                                       // Fetch and Add
      put32(o, 22, r.stag);                                  // Request Identifier
      put32(o, 26, 0x4000u + r.stag);
      put64(o, 30, 0x8000);
      return {o};
    }
    case 11:
      if (!peer.pending.empty() && peer.pending.front().atomic) {
        const Request r = peer.pending.front();
        peer.pending.pop_front();
        Octets o = untagged(0xB, true, 4, ++s.msn[4], 0, 12);
        put32(o, 18, r.stag);
        return {o};
      }
      return send(s, 3, segments, b);
    default:
      return send(s, 3, segments, b);
  }
}

// Breaks one segment of a message (or the message's order); true if anything changed.
bool Conversation::mutate(std::vector<Octets>& segments, unsigned kind, std::uint8_t d) {
  const std::size_t which = (d & 0x07) % segments.size();
  Octets& o = segments[which];
  const unsigned v = d >> 3;  // 0-31
  const auto delta = static_cast<std::uint32_t>(static_cast<int>(v) - 16 + (v >= 16 ? 1 : 0));
  const bool is_tagged = o.size() >= 14 && (o[0] & 0x80);
  const bool is_untagged = o.size() >= 18 && !(o[0] & 0x80);
  switch (kind) {
    case 0:
      if (is_untagged) put32(o, 10, get32(o, 10) + delta);
      break;  // MSN
    case 1:
      if (is_untagged) put32(o, 14, get32(o, 14) + 4 * delta);
      break;  // MO
    case 2:
      if (is_untagged) put32(o, 6, v % 8);
      break;  // queue
    case 3:
      o[0] ^= 0x80;
      break;  // tagged flag
    case 4:
      o[0] ^= 0x40;
      break;  // Last flag
    case 5:
      o[0] |= static_cast<std::uint8_t>((v & 0x0F) << 2);
      break;  // DDP Rsvd
    case 6:
      o[0] = static_cast<std::uint8_t>((o[0] & ~0x03) | (v & 0x03));
      break;  // DV
    case 7:
      o[1] = static_cast<std::uint8_t>((o[1] & 0x3F) | (v & 0x03) << 6);
      break;  // RV
    case 8:
      o[1] = static_cast<std::uint8_t>((o[1] & 0xF0) | (v & 0x0F));
      break;  // opcode
    case 9:
      o[1] |= static_cast<std::uint8_t>((v & 0x03) << 4);
      break;  // RDMAP Rsvd
    case 10:
      if (o.size() >= 6) put32(o, 2, get32(o, 2) ^ (v + 1));
      break;  // Inv. STag / STag
    case 11:
      if (is_tagged) put32(o, 10, get32(o, 10) + delta);
      break;  // TO
    case 12:
      o.resize(std::min<std::size_t>(o.size(), v));
      break;  // cut short
    case 13:
      o[(v * 5u) % o.size()] ^= static_cast<std::uint8_t>(d | 1);
      break;  // an octet
    case 14:
      segments.erase(segments.begin() + static_cast<std::ptrdiff_t>(which));
      break;
    case 15:
      segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(which), o);
      break;
    case 16:
      if (which + 1 < segments.size())
        std::swap(segments[which], segments[which + 1]);
      else if (which > 0)
        std::swap(segments[which], segments[which - 1]);
      else
        return false;
      break;
    default:
      return false;
  }
  return true;
}

void Conversation::message(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  const int dir = a & 0x01;
  Side& s = sides_[dir];
  std::vector<Octets> segments = build(dir, (a >> 1) & 0x0F, 1u + (a >> 5), b);
  if (s.terminated) s.mutated = true;  // RFC 5040 5.4: nothing after a Terminate
  if ((c & 0xE0) == 0xE0 && mutate(segments, c & 0x1F, d)) s.mutated = true;
  for (const Octets& ulpdu : segments) {
    emit(dir, ulpdu);
    if (sent.back().terminate) s.terminated = true;
  }
}

// What the Analyzer reports.
class Sink : public mpa::EventSink {
 public:
  void on_finding(const mpa::Finding& f) override {
    MPA_FUZZ_CHECK(static_cast<std::size_t>(f.id) < static_cast<std::size_t>(DiagId::kCount),
                   "finding id outside the catalogue");
    found.emplace_back(f.id, f.direction == mpa::Direction::Initiator ? 0 : 1, f.tcp_seq.value());
    if (std::getenv("FUZZ_ULP_VERBOSE"))
      std::fprintf(stderr, "  %s: %s\n", mpa::info(f.id).name.data(), f.message.c_str());
  }
  void on_fpdu(const mpa::FpduEvent&) override { ++fpdus; }
  std::vector<std::tuple<DiagId, int, std::uint32_t>> found;
  std::size_t fpdus = 0;
};

// An MPA Request or Reply (RFC 5044 7.1; Rev 2 with its IRD/ORD block, RFC 6581 9).
Octets startup_frame(const Config& c, bool request) {
  if (!c.enhanced) return ref::startup_frame(request, c.markers, c.crc, {});
  Octets pd(4);
  const std::uint16_t ird = request ? c.req_ird : c.rep_ird, ord = request ? c.req_ord : c.rep_ord;
  const bool send_rtr = c.p2p && !c.write_rtr, write_rtr = c.p2p && c.write_rtr;
  const auto first =
      static_cast<std::uint16_t>((c.p2p ? 0x8000 : 0) | (send_rtr ? 0x4000 : 0) | ird);
  const auto second = static_cast<std::uint16_t>((write_rtr ? 0x8000 : 0) | ord);
  pd = {static_cast<std::uint8_t>(first >> 8), static_cast<std::uint8_t>(first),
        static_cast<std::uint8_t>(second >> 8), static_cast<std::uint8_t>(second)};
  Octets f = ref::startup_frame(request, c.markers, c.crc, pd);
  f[17] = 2;  // Rev
  return f;
}

// Runs the conversation through an Analyzer: `seed` 0 one FPDU to a segment, else each run
// of one direction's FPDUs cut where `seed` says. Returns the findings, sorted.
std::vector<std::tuple<DiagId, int, std::uint32_t>> run(const Conversation& conv,
                                                        std::uint32_t seed, std::uint32_t* full,
                                                        std::size_t* fpdus) {
  using namespace mpa::tcp_flags;
  Sink sink;
  mpa::Analyzer analyzer(mpa::AnalyzerOptions{}, sink);
  const std::uint32_t isn[2] = {0x10000000u, 0xFFFFF000u};  // the Responder's wraps
  mpa::fuzz::ConversationWire wire(analyzer, isn[0], isn[1]);
  const Octets request = startup_frame(conv.config(), true);
  const Octets reply = startup_frame(conv.config(), false);
  wire.send(0, kSyn, nullptr, 0, 1460);
  wire.send(1, kSyn | kAck, nullptr, 0, 1460);
  wire.send(0, kAck, nullptr, 0);
  wire.send(0, kAck | kPsh, request.data(), request.size());
  wire.send(1, kAck | kPsh, reply.data(), reply.size());
  full[0] = wire.next(0);
  full[1] = wire.next(1);
  std::uint32_t random = seed | 1u;
  const auto& sent = conv.sent;
  for (std::size_t i = 0; i < sent.size();) {
    const int dir = sent[i].dir;
    std::size_t j = i;
    while (j < sent.size() && sent[j].dir == dir) ++j;  // a run [i, j) of one direction
    const Octets& wire_octets = conv.streams_[dir].wire;
    std::size_t a = sent[i].start;
    const std::size_t end = sent[j - 1].end;
    for (std::size_t k = i; a < end; ++k) {
      std::size_t b = sent[std::min(k, j - 1)].end;
      if (seed != 0) {
        random ^= random << 13, random ^= random >> 17, random ^= random << 5;
        b = std::min(end, a + 1 + random % ((random >> 8) % 4 == 0 ? 600 : 24));
      }
      wire.send(dir, kAck | kPsh, wire_octets.data() + a, b - a);
      a = b;
    }
    i = j;
  }
  wire.send(0, kAck | kFin, nullptr, 0);
  wire.send(1, kAck | kFin, nullptr, 0);
  wire.send(0, kAck, nullptr, 0);
  analyzer.finish(wire.frames());
  *fpdus = sink.fpdus;
  std::sort(sink.found.begin(), sink.found.end());
  return sink.found;
}

bool one_of(DiagId id, std::initializer_list<DiagId> ids) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The layers below DDP, whose input here is always right.
bool below_ddp(DiagId id) {
  return one_of(id, {DiagId::FpduCrcMismatch,
                     DiagId::FpduPadNonzero,
                     DiagId::FpduUlpduLengthTooLarge,
                     DiagId::MarkerFpduptrMismatch,
                     DiagId::MarkerReservedNonzero,
                     DiagId::MarkerFpduptrLowBits,
                     DiagId::MarkerUnexpected,
                     DiagId::ConnectionLostMidFpdu,
                     DiagId::ConnectionLostMidStartup,
                     DiagId::TcpRetransmissionMismatch,
                     DiagId::CaptureGap,
                     DiagId::CaptureTruncated,
                     DiagId::CaptureStartupNotSeen,
                     DiagId::CaptureParametersInferred,
                     DiagId::CaptureIpFragment,
                     DiagId::CaptureResynchronised,
                     DiagId::FpduFramingLost,
                     DiagId::FpduPadRuleWrong,
                     DiagId::FpduCrcFieldMissing,
                     DiagId::FpduMarkersMissing,
                     DiagId::FpduUlpduLengthMiscounted,
                     DiagId::CaptureStartupFrameCut,
                     DiagId::IpFragmentOverlapMismatch,
                     DiagId::TcpRetransmissionCheckStopped,
                     DiagId::FpduCrcMiscomputed,
                     DiagId::StartupNoReply});
}

// Findings of what DDP/RDMAP carry, which the valid generator's streams never draw.
bool ulp_rule(DiagId id) {
  return one_of(id, {DiagId::DdpVersionMismatch, DiagId::DdpUlpduTooShort, DiagId::FpduRtrMissing,
                     DiagId::FpduUlpduLengthZero, DiagId::RdmapIrdExceeded}) ||
         (id >= DiagId::DdpReservedNonzero && id <= DiagId::RdmapAfterTerminate);
}

bool terminate_finding(DiagId id) {
  return one_of(id, {DiagId::RdmapTerminate, DiagId::RdmapTerminateDisagrees,
                     DiagId::RdmapTerminateEncoding});
}

const char* name(DiagId id) { return mpa::info(id).name.data(); }

// Where a direction's framing rests on its DDP headers alone (no markers, no CRCs: RFC 5044
// gives nothing else to vouch for an FPDU boundary), a mutated header may make the FPDU reader
// test how the sender frames and read on otherwise (framing truth): from that direction's
// first mutated FPDU on, framing findings are allowed and FPDUs may stand elsewhere.
// Returns, per direction, the offset of that FPDU's ULPDU_Length field (none: the reader
// must frame as sent).
std::array<std::optional<std::uint32_t>, 2> reframed_from(const Conversation& conv) {
  std::array<std::optional<std::uint32_t>, 2> from;
  if (conv.config().crc || conv.config().markers) return from;
  for (const Sent& f : conv.sent) {
    if (f.mutated_before && !from[f.dir]) from[f.dir] = f.header;
  }
  return from;
}

bool framing_truth(DiagId id) {
  return one_of(id, {DiagId::FpduFramingLost, DiagId::FpduPadRuleWrong, DiagId::FpduCrcFieldMissing,
                     DiagId::FpduMarkersMissing, DiagId::FpduUlpduLengthMiscounted});
}

void check(const Conversation& conv,
           const std::vector<std::tuple<DiagId, int, std::uint32_t>>& found,
           const std::uint32_t* full) {
  // The FPDU each direction sent at each ULPDU_Length field's sequence number.
  std::map<std::pair<int, std::uint32_t>, const Sent*> at;
  bool terminate_sent = false;
  for (const Sent& f : conv.sent) {
    at[{f.dir, full[f.dir] + f.header}] = &f;
    terminate_sent = terminate_sent || f.terminate;
  }
  std::map<std::pair<int, std::uint32_t>, int> terminates_named;
  const auto reframed = reframed_from(conv);
  for (const auto& [id, dir, seq] : found) {
    if (const auto from = reframed[dir]; from && seq - full[dir] >= *from) {
      // (Relative offsets: the stream is far shorter than 2^31.)
      if (framing_truth(id) || ulp_rule(id) || terminate_finding(id)) continue;
    }
    if (below_ddp(id)) std::fprintf(stderr, "%s at seq %u\n", name(id), seq);
    MPA_FUZZ_CHECK(!below_ddp(id), "a finding of a layer below DDP, whose octets are right");
    if (id == DiagId::ReceiverTerminateMissing || id == DiagId::ReceiverSegmentAfterErrorPlaced) {
      const bool error_named = std::any_of(found.begin(), found.end(), [on = dir](const auto& g) {
        return std::get<1>(g) != on &&
               one_of(std::get<0>(g), {DiagId::DdpQueueInvalid, DiagId::RdmapOpcodeInvalid});
      });
      MPA_FUZZ_CHECK(error_named, "a receiver's DDP/RDMAP finding without its peer's error");
    } else if (mpa::info(id).name.starts_with("receiver.")) {
      MPA_FUZZ_CHECK(terminate_sent, "a receiver finding without any Terminate");
    }
    if (!ulp_rule(id) && !terminate_finding(id)) continue;
    const auto it = at.find({dir, seq});
    if (it == at.end()) std::fprintf(stderr, "%s at seq %u (direction %d)\n", name(id), seq, dir);
    MPA_FUZZ_CHECK(it != at.end(), "a DDP/RDMAP finding away from every FPDU of its direction");
    const Sent& f = *it->second;
    if (terminate_finding(id)) {
      MPA_FUZZ_CHECK(f.terminate, "a Terminate finding on an FPDU that holds no Terminate");
      if (id == DiagId::RdmapTerminate) ++terminates_named[{dir, seq}];
      continue;
    }
    const bool allowed = id == DiagId::RdmapIrdExceeded ? f.any_mutated_before : f.mutated_before;
    if (!allowed) std::fprintf(stderr, "%s at seq %u (direction %d)\n", name(id), seq, dir);
    MPA_FUZZ_CHECK(allowed, "a DDP/RDMAP finding on a valid stream");
  }
  for (const Sent& f : conv.sent) {
    if (!f.terminate || f.any_mutated_before) continue;
    const int n = terminates_named[{f.dir, full[f.dir] + f.header}];
    if (n != 1) std::fprintf(stderr, "Terminate at %zu named %d times\n", f.start, n);
    MPA_FUZZ_CHECK(n == 1, "a Terminate of a valid stream not named once");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mpa::fuzz::Input input({data, size});
  Config config;
  const std::uint8_t flags = input.u8();
  config.markers = flags & 0x01;
  config.crc = flags & 0x02;
  config.enhanced = flags & 0x04;
  config.p2p = config.enhanced && (flags & 0x08);
  config.write_rtr = flags & 0x10;
  const std::uint8_t req = input.u8(), rep = input.u8();
  config.req_ird = req & 0x0F, config.req_ord = req >> 4;
  config.rep_ird = rep & 0x0F, config.rep_ord = rep >> 4;
  const std::uint32_t seed = input.u32();

  Conversation conv(config);
  if (config.p2p) conv.rtr();
  for (bool first = true; input.remaining() >= 4; first = false) {
    std::uint8_t a = input.u8();
    const std::uint8_t b = input.u8(), c = input.u8(), d = input.u8();
    if (first && !config.p2p) a &= 0xFE;  // the Initiator's FPDU comes first (RFC 5044 7.1.2)
    conv.message(a, b, c, d);
  }

  std::uint32_t full[2], full_b[2];
  std::size_t fpdus = 0, fpdus_b = 0;
  const auto found = run(conv, 0, full, &fpdus);
  const auto found_b = run(conv, seed, full_b, &fpdus_b);
  const auto reframed = reframed_from(conv);
  if (!reframed[0] && !reframed[1])
    MPA_FUZZ_CHECK(fpdus == conv.sent.size(), "an FPDU sent not listed, or one listed twice");
  MPA_FUZZ_CHECK(fpdus_b == fpdus, "the segmentation changed the FPDUs listed");
  MPA_FUZZ_CHECK(found.size() <= 4 * conv.sent.size() + 64, "more findings than the input bears");
  check(conv, found, full);
  // What the segmentation itself decides: an FPDU not aligned to its segment, and a receiver
  // that went away after one that spans TCP segments (RFC 5044 5.1: a legal oddity, so
  // receiver.legal-fpdu-refused; whether it spans them is the segmentation's).
  const auto comparable = [](auto list) {
    std::erase_if(list, [](const auto& t) {
      return std::get<0>(t) == DiagId::FpduNotSegmentAligned ||
             std::get<0>(t) == DiagId::ReceiverLegalFpduRefused;
    });
    return list;
  };
  const auto a = comparable(found), b = comparable(found_b);
  if (a != b) {
    for (const auto& [id, dir, seq] : a) std::fprintf(stderr, "A %s %d %u\n", name(id), dir, seq);
    for (const auto& [id, dir, seq] : b) std::fprintf(stderr, "B %s %d %u\n", name(id), dir, seq);
  }
  MPA_FUZZ_CHECK(a == b, "another segmentation gives other findings");
  return 0;
}
