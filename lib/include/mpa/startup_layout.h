// Where the fields of an MPA Request/Reply frame sit (RFC 5044 7.1.1; RFC 6581 9; Rev 129,
// Alibaba erdma: an 8-octet vendor extension after the header). The startup parser reads
// the header at these offsets; the Wireshark plugin shows each field where this says.
//
//   Key(16) | M C R S Res(1) | Rev(1) | PD_Length(2) | [vendor extension(8)] | private data
//                                                      (Rev 2, S=1: IRD/ORD block first)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpa/tcp_seq.h"

namespace mpa {

inline constexpr std::size_t kStartupKeySize = 16;
inline constexpr std::size_t kStartupFlagsOffset = 16;
inline constexpr std::size_t kStartupRevisionOffset = 17;
inline constexpr std::size_t kStartupPdLengthOffset = 18;  // 16 bits, network byte order
inline constexpr std::size_t kStartupHeaderSize = 20;
inline constexpr std::size_t kVendorExtensionSize = 8;  // Rev 129, not counted in PD_Length
inline constexpr std::uint16_t kEnhancedBlockSize = 4;  // RFC 6581 9: at the start of private data

static_assert(kStartupFlagsOffset == kStartupKeySize &&
              kStartupRevisionOffset == kStartupFlagsOffset + 1 &&
              kStartupPdLengthOffset == kStartupRevisionOffset + 1 &&
              kStartupHeaderSize == kStartupPdLengthOffset + 2);

struct StartupFrame;

// A startup frame's fields in sequence space. Length 0: not in this frame.
struct StartupFrameFields {
  SeqRange whole;  // header, vendor extension and PD_Length octets of private data
  SeqRange key, flags, revision, pd_length;
  SeqRange vendor_extension;  // Rev 129
  SeqRange private_data;      // the octets received (at most PD_Length)
  SeqRange enhanced;          // the IRD/ORD block, when the frame carries one
};

// The fields of `frame` (as parsed) whose first octet is at `at`.
StartupFrameFields startup_frame_fields(TcpSeq at, const StartupFrame& frame);

// The octets of `frame` as they were received, in the order of its fields: the parser keeps
// every one (key, flags, Rev, PD_Length, the vendor extension, the private data received).
std::vector<std::uint8_t> startup_frame_octets(const StartupFrame& frame);

}  // namespace mpa
