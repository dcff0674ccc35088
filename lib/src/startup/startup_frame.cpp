// MPA Request/Reply frames (RFC 5044 7.1.1; RFC 6581 6, 9). See startup_frame.h.
#include "mpa/startup_frame.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "decode/byte_order.h"

namespace mpa {
namespace {

bool equals_key(std::span<const std::uint8_t> bytes, std::string_view key) {
  return bytes.size() >= kStartupKeySize &&
         std::memcmp(bytes.data(), key.data(), kStartupKeySize) == 0;
}

std::string rtr_list(const EnhancedBlock& block) {
  std::string out;
  auto add = [&out](bool on, const char* name) {
    if (!on) return;
    if (!out.empty()) out += ",";
    out += name;
  };
  add(block.send_rtr, "Send");
  add(block.write_rtr, "Write");
  add(block.read_rtr, "Read");
  return out.empty() ? "none" : out;
}

}  // namespace

std::string_view to_string(FrameKind kind) {
  switch (kind) {
    case FrameKind::Request:
      return "Request";
    case FrameKind::Reply:
      return "Reply";
    case FrameKind::Unknown:
      return "frame with invalid key";
  }
  return "?";
}

EnhancedBlock EnhancedBlock::decode(const std::uint8_t* p) {
  EnhancedBlock block;
  const std::uint16_t first = load_be16(p);
  const std::uint16_t second = load_be16(p + 2);
  block.peer_to_peer = first & 0x8000;
  block.send_rtr = first & 0x4000;
  block.ird = first & 0x3FFF;
  block.write_rtr = second & 0x8000;
  block.read_rtr = second & 0x4000;
  block.ord = second & 0x3FFF;
  return block;
}

EnhancedBlock EnhancedBlock::decode_little_endian(const std::uint8_t* p) {
  const std::array<std::uint8_t, kEnhancedBlockSize> swapped{p[1], p[0], p[3], p[2]};
  return decode(swapped.data());
}

bool EnhancedBlock::plausible() const {
  const auto depth = [](std::uint16_t v) { return v <= kPlausibleDepth || v == kNoNegotiation; };
  return depth(ird) && depth(ord) && (peer_to_peer || !any_rtr());
}

bool EnhancedBlock::reads_little_endian(const std::uint8_t* p) {
  bool differs = false;
  for (int half = 0; half < 2; ++half) {
    const std::uint8_t* h = p + 2 * half;
    if (h[0] == h[1]) continue;  // reads alike both ways
    differs = true;
    const std::uint16_t value = load_be16(h) & 0x3FFF;
    if (value <= kPlausibleDepth || value == kNoNegotiation) return false;
  }
  return differs && decode_little_endian(p).plausible();
}

FrameKind classify_key(std::span<const std::uint8_t> key) {
  if (equals_key(key, kRequestKey)) return FrameKind::Request;
  if (equals_key(key, kReplyKey)) return FrameKind::Reply;
  return FrameKind::Unknown;
}

bool looks_like_damaged_key(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kStartupKeySize) return false;
  int differ_request = 0;
  int differ_reply = 0;
  for (std::size_t i = 0; i < kStartupKeySize; ++i) {
    differ_request += bytes[i] != static_cast<std::uint8_t>(kRequestKey[i]);
    differ_reply += bytes[i] != static_cast<std::uint8_t>(kReplyKey[i]);
  }
  return std::min(differ_request, differ_reply) <= 4;
}

bool looks_like_startup_key(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kStartupKeySize) return false;
  const auto key = bytes.first(kStartupKeySize);
  return classify_key(key) != FrameKind::Unknown || looks_like_damaged_key(key);
}

std::size_t StartupFrameParser::push(std::span<const std::uint8_t> data) {
  std::size_t used = 0;
  while (used < data.size() && state_ != State::Done) {
    const std::size_t left = data.size() - used;
    switch (state_) {
      case State::Header: {
        const std::size_t take = std::min(left, kStartupHeaderSize - got_);
        std::memcpy(&header_[got_], &data[used], take);
        got_ += take;
        used += take;
        if (got_ == kStartupHeaderSize) {
          std::memcpy(frame_.key.data(), header_.data(), kStartupKeySize);
          frame_.kind = classify_key(frame_.key);
          frame_.flags = header_[kStartupFlagsOffset];
          frame_.revision = header_[kStartupRevisionOffset];
          frame_.pd_length = load_be16(&header_[kStartupPdLengthOffset]);
          got_ = 0;
          if (frame_.revision == kVendorRevision) {
            frame_.has_vendor_extension = true;
            state_ = State::VendorExtension;
          } else {
            state_ = frame_.pd_length > 0 ? State::PrivateData : State::Done;
          }
        }
        break;
      }
      case State::VendorExtension: {
        const std::size_t take = std::min(left, kVendorExtensionSize - got_);
        std::memcpy(&frame_.vendor_extension[got_], &data[used], take);
        got_ += take;
        used += take;
        if (got_ == kVendorExtensionSize) {
          got_ = 0;
          state_ = frame_.pd_length > 0 ? State::PrivateData : State::Done;
        }
        break;
      }
      case State::PrivateData: {
        const std::size_t take = std::min<std::size_t>(left, frame_.pd_length - got_);
        frame_.private_data.insert(frame_.private_data.end(), &data[used], &data[used] + take);
        got_ += take;
        used += take;
        if (got_ == frame_.pd_length) state_ = State::Done;
        break;
      }
      case State::Done:
        break;
    }
  }
  if (state_ == State::Done && frame_.s() && frame_.revision >= 2 &&
      frame_.revision != kVendorRevision && frame_.private_data.size() >= kEnhancedBlockSize &&
      !frame_.enhanced) {
    const std::uint8_t* block = frame_.private_data.data();
    frame_.enhanced_little_endian = EnhancedBlock::reads_little_endian(block);
    frame_.enhanced = frame_.enhanced_little_endian ? EnhancedBlock::decode_little_endian(block)
                                                    : EnhancedBlock::decode(block);
  }
  consumed_ += used;
  return used;
}

std::size_t StartupFrameParser::bytes_needed() const {
  switch (state_) {
    case State::Header:
      return kStartupHeaderSize - got_;
    case State::VendorExtension:
      return kVendorExtensionSize - got_ + frame_.pd_length;
    case State::PrivateData:
      return frame_.pd_length - got_;
    case State::Done:
      return 0;
  }
  return 0;
}

namespace {

// The key: the frame expected, or one of the other kind, or no startup frame's.
void check_key(const StartupFrame& frame, FrameKind expected, std::vector<StartupIssue>& issues) {
  if (frame.kind == FrameKind::Unknown) {
    std::string shown;
    for (std::uint8_t c : frame.key) shown += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '.';
    issues.push_back({DiagId::StartupKeyInvalid,
                      fmt::format("startup frame key \"{}\" is not \"{}\"", shown,
                                  expected == FrameKind::Reply ? kReplyKey : kRequestKey)});
  } else if (frame.kind != expected) {
    issues.push_back({frame.kind == FrameKind::Request ? DiagId::StartupUnexpectedRequest
                                                       : DiagId::StartupUnexpectedReply,
                      fmt::format("MPA {} where an MPA {} was due", to_string(frame.kind),
                                  to_string(expected))});
  }
}

void check_revision(const StartupFrame& frame, const std::string& name,
                    std::vector<StartupIssue>& issues) {
  // RFC 5044 7.1.1: Rev 1; RFC 6581 6: Rev 2; Appendix C: Rev 0; erdma: 129.
  switch (frame.revision) {
    case 0:
      issues.push_back(
          {DiagId::StartupRevision0,
           fmt::format("MPA {} Rev 0 (RDMA Consortium): DDP/RDMAP version 0 expected", name)});
      break;
    case 1:
      break;
    case 2:
      issues.push_back({DiagId::StartupRevision2, fmt::format("MPA {} Rev 2", name)});
      break;
    case kVendorRevision:
      issues.push_back({DiagId::StartupVendorRevision,
                        fmt::format("MPA {} Rev 129 (Alibaba erdma): 8-octet extension not counted "
                                    "in PD_Length",
                                    name)});
      break;
    default:
      issues.push_back({DiagId::StartupRevisionUnsupported,
                        fmt::format("MPA {} carries Rev {}; known revisions are 0, 1, 2 and 129",
                                    name, frame.revision)});
      break;
  }
}

void check_pd_length(const StartupFrame& frame, std::vector<StartupIssue>& issues) {
  if (frame.pd_length > kMaxPrivateData) {
    issues.push_back({DiagId::StartupPdLengthTooLarge,
                      fmt::format("PD_Length {} exceeds {}", frame.pd_length, kMaxPrivateData)});
  } else if (frame.pd_length > 256) {
    issues.push_back({DiagId::StartupPrivateDataOver256,
                      fmt::format("PD_Length {}: Linux siw, Chelsio and erdma refuse more than 256",
                                  frame.pd_length)});
  }
}

// The R, Res and S flags.
void check_flags(const StartupFrame& frame, bool is_request, const std::string& name,
                 std::vector<StartupIssue>& issues) {
  if (frame.r()) {
    if (is_request) {
      issues.push_back({DiagId::StartupRejectBitInRequest, "R bit set in an MPA Request"});
    } else {
      issues.push_back({DiagId::StartupConnectionRejected,
                        "MPA Reply with R=1: the Responder rejected the connection"});
    }
  }
  if (frame.flags & startup_flags::kRes) {
    issues.push_back({DiagId::StartupReservedBitsSet,
                      fmt::format("reserved flag bits 0x{:02x} set in the MPA {} (flags 0x{:02x})",
                                  frame.flags & startup_flags::kRes, name, frame.flags)});
  }
  if (frame.s()) {
    if (frame.revision < 2) {
      issues.push_back({DiagId::StartupEnhancedWithoutRev2,
                        fmt::format("S bit set in an MPA {} with Rev {}", name, frame.revision)});
    } else if (frame.revision != kVendorRevision && frame.pd_length < kEnhancedBlockSize) {
      issues.push_back({DiagId::StartupEnhancedDataMissing,
                        fmt::format("S=1 but PD_Length {} cannot hold the 4-octet IRD/ORD block",
                                    frame.pd_length)});
    }
  }
}

// The IRD/ORD block of an enhanced frame (RFC 6581 9, 10).
void check_enhanced_block(const StartupFrame& frame, bool is_request, const std::string& name,
                          std::vector<StartupIssue>& issues) {
  if (frame.enhanced_little_endian && frame.enhanced) {
    // RFC 6581 9: network byte order. Named, then judged as meant (swapped).
    const EnhancedBlock as_sent = EnhancedBlock::decode(frame.private_data.data());
    const EnhancedBlock& meant = *frame.enhanced;
    issues.push_back(
        {DiagId::StartupEnhancedBlockLittleEndian,
         fmt::format("IRD/ORD block {:02x} {:02x} {:02x} {:02x} of the MPA {} is little-endian: in "
                     "network order it reads IRD {} ORD {}{}, byte-swapped IRD {} ORD {}{}; read "
                     "as meant",
                     frame.private_data[0], frame.private_data[1], frame.private_data[2],
                     frame.private_data[3], name, as_sent.ird, as_sent.ord,
                     as_sent.peer_to_peer ? " A=1" : "", meant.ird, meant.ord,
                     meant.peer_to_peer ? " A=1" : "")});
  }
  // RFC 6581 10: an Initiator that wants no enhanced feature sends an unenhanced Request. With
  // A=0 and IRD and ORD 0x3FFF the exchange settles nothing (the Reply must echo 0x3FFF and A=0).
  if (is_request && frame.enhanced && !frame.enhanced->peer_to_peer &&
      frame.enhanced->ird == kNoNegotiation && frame.enhanced->ord == kNoNegotiation) {
    issues.push_back({DiagId::StartupEnhancedNegotiatesNothing,
                      fmt::format("enhanced MPA {} (S=1, Rev {}) negotiates nothing: A=0 and IRD "
                                  "and ORD 0x3FFF (no negotiation)",
                                  name, frame.revision)});
  }
  if (frame.enhanced && !frame.enhanced->peer_to_peer && frame.enhanced->any_rtr()) {
    issues.push_back({DiagId::StartupRtrFlagsWithoutP2p,
                      fmt::format("A=0 but RTR flags set ({})", rtr_list(*frame.enhanced))});
  }
}

}  // namespace

std::vector<StartupIssue> check_startup_frame(const StartupFrame& frame, FrameKind expected) {
  std::vector<StartupIssue> issues;
  const FrameKind kind = frame.kind == FrameKind::Unknown ? expected : frame.kind;
  const std::string name = std::string(to_string(kind));
  const bool is_request = kind == FrameKind::Request;
  check_key(frame, expected, issues);
  check_revision(frame, name, issues);
  check_pd_length(frame, issues);
  check_flags(frame, is_request, name, issues);
  check_enhanced_block(frame, is_request, name, issues);
  return issues;
}

std::optional<StartupIssue> check_crc_use(const StartupFrame& request, const StartupFrame& reply) {
  // RFC 5044 1.2, 4.4: CRCs are off only if both sides asked (C=0 both); legal where the path
  // protects the data as well, which a capture does not show.
  if (reply.kind != FrameKind::Reply || reply.r() || request.c() || reply.c()) return std::nullopt;
  return StartupIssue{DiagId::StartupCrcDisabled,
                      "C=0 in the Request and in the Reply: no CRCs in either direction (RFC 5044 "
                      "4.4 (2b)); only a path with integrity at least as good as CRC32c makes "
                      "that conformant (RFC 5044 1.2)"};
}

std::vector<StartupIssue> check_negotiation(const StartupFrame& request,
                                            const StartupFrame& reply) {
  std::vector<StartupIssue> issues;
  // RFC 6581 10: an enhanced Request is answered with an enhanced Reply (accepting or
  // rejecting), an unenhanced one with an unenhanced Reply.
  if (reply.s() && !request.s() && reply.revision >= 2) {
    issues.push_back({DiagId::StartupEnhancedMismatch,
                      "Reply has S=1 (IRD/ORD block) but the Request did not offer enhanced "
                      "connection establishment"});
  } else if (request.s() && request.revision >= 2 && request.revision != kVendorRevision &&
             reply.kind == FrameKind::Reply && !reply.s()) {
    // (A Reply with an invalid key is judged by that alone.)
    issues.push_back({DiagId::StartupEnhancedMismatch,
                      fmt::format("Request offers enhanced connection establishment (S=1, Rev {}) "
                                  "but the Reply (Rev {}) has S=0",
                                  request.revision, reply.revision)});
  }
  if (!request.enhanced || !reply.enhanced) return issues;
  const EnhancedBlock& rq = *request.enhanced;
  const EnhancedBlock& rp = *reply.enhanced;
  // RFC 6581 9.2: the responder echoes A.
  if (rq.peer_to_peer != rp.peer_to_peer) {
    issues.push_back({DiagId::StartupP2pMismatch,
                      fmt::format("Request A={} but Reply A={}", rq.peer_to_peer ? 1 : 0,
                                  rp.peer_to_peer ? 1 : 0)});
  } else if (rq.peer_to_peer && !reply.r()) {
    // RFC 6581 9.2: the Responder sets at least one RTR option, one of its own when it supports
    // none of those offered; an Initiator that can send none of the Responder's MUST terminate
    // (code 7). So a Reply with no option breaks the Responder's rules, and one naming only
    // options not offered is allowed, leaving the Initiator to send one or a Terminate.
    if (!rp.any_rtr()) {
      issues.push_back({DiagId::StartupReplyWithoutRtr,
                        fmt::format("Reply accepts peer-to-peer (A=1) with no RTR option set "
                                    "(Initiator offered {}): the Initiator has no RTR to send",
                                    rtr_list(rq))});
    }
    if (!rtr_options_shared(rq, rp)) {
      issues.push_back(
          {DiagId::StartupNoMatchingRtr,
           fmt::format("Initiator offers RTR {}, Responder names {}: no option both set; unless "
                       "the Initiator can send one of the Responder's, it must send a Terminate "
                       "(layer 2, error type 0, code 7) and close",
                       rtr_list(rq), rtr_list(rp))});
    }
  }
  // RFC 6581 9.1: 0x3FFF ("no negotiation") is answered in kind.
  if (rq.ord == kNoNegotiation && rp.ird != kNoNegotiation) {
    issues.push_back({DiagId::StartupNoNegotiationNotEchoed,
                      fmt::format("Initiator ORD 0x3FFF answered with Responder IRD {}", rp.ird)});
  }
  if (rq.ird == kNoNegotiation && rp.ord != kNoNegotiation) {
    issues.push_back({DiagId::StartupNoNegotiationNotEchoed,
                      fmt::format("Initiator IRD 0x3FFF answered with Responder ORD {}", rp.ord)});
  }
  // RFC 6581 9.1: "The responder MUST set its ORD at most to the initiator IRD." 0x3FFF is
  // "no negotiation" only as the answer to an Initiator 0x3FFF; otherwise a Responder ORD of
  // 0x3FFF is a depth of 16383, above any Initiator IRD but 0x3FFF (the Initiator then
  // terminates with code 6, as Linux siw does). A reject may name the ORD it needs.
  if (!reply.r() && rq.ird != kNoNegotiation && rp.ord > rq.ird) {
    issues.push_back(
        {DiagId::StartupInsufficientIrd,
         rp.ord == kNoNegotiation
             ? fmt::format(
                   "Responder ORD 0x3FFF answers Initiator IRD {}: 0x3FFF (no negotiation) only "
                   "answers 0x3FFF, so it is an ORD of 16383, above the Initiator IRD",
                   rq.ird)
             : fmt::format("Responder ORD {} exceeds Initiator IRD {}", rp.ord, rq.ird)});
  }
  // A Responder IRD of 0x3FFF answers an Initiator ORD of 0x3FFF, nothing else (RFC 6581 9.1):
  // the Initiator would leave its ORD unnegotiated.
  if (!reply.r() && rq.ord != kNoNegotiation && rp.ird == kNoNegotiation) {
    issues.push_back({DiagId::StartupNoNegotiationUnsolicited,
                      fmt::format("Responder IRD 0x3FFF (no negotiation) answers Initiator ORD {}, "
                                  "which was not 0x3FFF",
                                  rq.ord)});
  }
  return issues;
}

bool rtr_options_shared(const EnhancedBlock& request, const EnhancedBlock& reply) {
  return (request.send_rtr && reply.send_rtr) || (request.write_rtr && reply.write_rtr) ||
         (request.read_rtr && reply.read_rtr);
}

std::string describe(const StartupFrame& frame) {
  std::string out = fmt::format("MPA {} Rev {} M={} C={}", to_string(frame.kind), frame.revision,
                                frame.m() ? 1 : 0, frame.c() ? 1 : 0);
  if (frame.r()) out += " R=1";
  if (frame.s()) out += " S=1";
  if (frame.enhanced) {
    const EnhancedBlock& e = *frame.enhanced;
    out += fmt::format(" IRD={} ORD={}", e.ird, e.ord);
    if (e.peer_to_peer) out += fmt::format(" P2P RTR={}", rtr_list(e));
  }
  out += fmt::format(" PD_Length={}", frame.pd_length);
  return out;
}

}  // namespace mpa
