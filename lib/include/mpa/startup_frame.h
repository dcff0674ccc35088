// MPA Request and Reply frames (RFC 5044 7.1.1; RFC 6581 6 and 9): parsing from bytes that
// arrive in pieces, and the rules a single frame must follow. Rev 0 (RDMA Consortium,
// RFC 5044 Appendix C) and Rev 129 (Alibaba erdma: an 8-octet extension after the
// 20-octet header, not counted in PD_Length) are named variants.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mpa/diagnostics.h"
#include "mpa/startup_layout.h"

namespace mpa {

// (Field sizes and offsets: startup_layout.h.)
inline constexpr std::uint16_t kMaxPrivateData = 512;    // RFC 5044 7.1.1
inline constexpr std::uint16_t kNoNegotiation = 0x3FFF;  // RFC 6581 9.1
inline constexpr std::uint8_t kVendorRevision = 129;

inline constexpr std::string_view kRequestKey = "MPA ID Req Frame";
inline constexpr std::string_view kReplyKey = "MPA ID Rep Frame";

namespace startup_flags {
inline constexpr std::uint8_t kM = 0x80;
inline constexpr std::uint8_t kC = 0x40;
inline constexpr std::uint8_t kR = 0x20;
inline constexpr std::uint8_t kS = 0x10;  // Rev 2; reserved before
inline constexpr std::uint8_t kRes = 0x0F;
}  // namespace startup_flags

enum class FrameKind : std::uint8_t { Request, Reply, Unknown };
std::string_view to_string(FrameKind kind);

// RFC 6581 9: A B IRD(14) | C D ORD(14), network byte order.
// A depth any real stack sends: Linux rdma_cm carries IRD and ORD in a u8, so ULPs ask for at
// most 255 (hardware caps them lower still); 0x3FFF is "no negotiation".
inline constexpr std::uint16_t kPlausibleDepth = 255;
struct EnhancedBlock {
  bool peer_to_peer = false;  // A
  bool send_rtr = false;      // B: zero-length Send (FULPDU) RTR
  bool write_rtr = false;     // C: zero-length RDMA Write RTR
  bool read_rtr = false;      // D: zero-length RDMA Read RTR
  std::uint16_t ird = 0;
  std::uint16_t ord = 0;
  static EnhancedBlock decode(const std::uint8_t* p);
  // The block as a sender that forgot network byte order writes it: each 16-bit half
  // least-significant octet first.
  static EnhancedBlock decode_little_endian(const std::uint8_t* p);
  // True when the 4 octets at `p` read as a little-endian block and not as a network-order
  // one: each half is implausible in network order (a depth above kPlausibleDepth and not
  // 0x3FFF) unless its two octets are equal (it reads alike both ways), at least one half
  // differs, and the swapped reading is plausible (depths plausible, no RTR flag without A).
  // A network-order block of plausible depths is never taken for one.
  static bool reads_little_endian(const std::uint8_t* p);
  // Both depths plausible and no RTR flag without A.
  bool plausible() const;
  bool any_rtr() const { return send_rtr || write_rtr || read_rtr; }
  bool operator==(const EnhancedBlock&) const = default;
};

struct StartupFrame {
  FrameKind kind = FrameKind::Unknown;
  std::array<std::uint8_t, kStartupKeySize> key{};
  std::uint8_t flags = 0;
  std::uint8_t revision = 0;
  std::uint16_t pd_length = 0;
  std::array<std::uint8_t, kVendorExtensionSize> vendor_extension{};
  bool has_vendor_extension = false;
  std::vector<std::uint8_t> private_data;  // as received (at most pd_length octets)
  std::optional<EnhancedBlock> enhanced;   // S=1, Rev >= 2, and 4 octets present
  // The block was sent little-endian (EnhancedBlock::reads_little_endian): `enhanced` holds
  // what the sender meant, read byte-swapped.
  bool enhanced_little_endian = false;

  bool m() const { return flags & startup_flags::kM; }
  bool c() const { return flags & startup_flags::kC; }
  bool r() const { return flags & startup_flags::kR; }
  bool s() const { return flags & startup_flags::kS; }
  // Header, vendor extension and private data.
  std::size_t wire_length() const {
    return kStartupHeaderSize + (has_vendor_extension ? kVendorExtensionSize : 0) + pd_length;
  }
  // Every field alike (parsing whole or in pieces must give equal frames).
  bool operator==(const StartupFrame&) const = default;
};

// Classifies a 16-octet key: exact Request/Reply key, or Unknown.
FrameKind classify_key(std::span<const std::uint8_t> key);
// True when `bytes` (at least 16) look like a startup key with a few octets damaged:
// "MPA ID Re? Frame" with at most 4 octets differing.
bool looks_like_damaged_key(std::span<const std::uint8_t> bytes);
// True when `bytes` begin with a startup key, exact or slightly damaged (false when fewer
// than 16 octets are given).
bool looks_like_startup_key(std::span<const std::uint8_t> bytes);

// Incremental parser for one startup frame.
class StartupFrameParser {
 public:
  // Consumes octets of the frame from `data`; returns how many it took (it stops at the end
  // of the frame; the rest belongs to what follows).
  std::size_t push(std::span<const std::uint8_t> data);
  bool complete() const { return state_ == State::Done; }
  // True once the 20-octet header is in: frame() then holds key, flags, Rev and PD_Length
  // (so PD_Length > 512 can be judged without waiting for that much private data).
  bool header_complete() const { return state_ != State::Header; }
  // Octets still needed to complete the frame (as far as known now).
  std::size_t bytes_needed() const;
  const StartupFrame& frame() const { return frame_; }
  std::size_t consumed() const { return consumed_; }

 private:
  enum class State : std::uint8_t { Header, VendorExtension, PrivateData, Done };
  State state_ = State::Header;
  std::array<std::uint8_t, kStartupHeaderSize> header_{};
  std::size_t got_ = 0;  // octets of the current part
  std::size_t consumed_ = 0;
  StartupFrame frame_;
};

struct StartupIssue {
  DiagId id;
  std::string message;
};

// Rules one frame must follow on its own (RFC 5044 7.1.1; RFC 6581 6, 9, 9.2, 10).
// `expected` is the kind the sender's role calls for.
std::vector<StartupIssue> check_startup_frame(const StartupFrame& frame, FrameKind expected);

// Rules between a Request and the Reply to it (RFC 6581 6, 9.1, 9.2, 10): enhanced (S)
// echoed both ways, A echoed, an RTR option in an accepting peer-to-peer Reply (and a note
// when none is common: the Initiator owes a Terminate unless it can send the Responder's
// own), 0x3FFF echoed, 0x3FFF
// only as the answer to 0x3FFF, and Responder ORD <= Initiator IRD (accepted Reply; a
// Responder ORD of 0x3FFF is "no negotiation" only when the Initiator IRD was 0x3FFF).
std::vector<StartupIssue> check_negotiation(const StartupFrame& request, const StartupFrame& reply);

// CRCs off in both directions (C=0 in the Request and in an accepting Reply): legal only where
// the path protects the data as well as CRC32c (RFC 5044 1.2, 4.4), which a capture does not
// show, so a note (startup.crc-disabled), said once per connection with the Reply.
std::optional<StartupIssue> check_crc_use(const StartupFrame& request, const StartupFrame& reply);
// Whether the Request and the Reply set an RTR option in common (RFC 6581 9.2).
bool rtr_options_shared(const EnhancedBlock& request, const EnhancedBlock& reply);

// One-line description: "MPA Request Rev 2 M=0 C=1 IRD=16 ORD=8 PD_Length=4".
std::string describe(const StartupFrame& frame);

}  // namespace mpa
