// Where a startup frame's fields sit (RFC 5044 7.1.1; RFC 6581 9). See startup_layout.h.
#include "mpa/startup_layout.h"

#include "mpa/startup_frame.h"

namespace mpa {

StartupFrameFields startup_frame_fields(TcpSeq at, const StartupFrame& frame) {
  StartupFrameFields f;
  f.whole = {at, static_cast<std::uint32_t>(frame.wire_length())};
  f.key = {at, kStartupKeySize};
  f.flags = {at + kStartupFlagsOffset, 1};
  f.revision = {at + kStartupRevisionOffset, 1};
  f.pd_length = {at + kStartupPdLengthOffset, 2};
  TcpSeq data = at + kStartupHeaderSize;
  if (frame.has_vendor_extension) {
    f.vendor_extension = {data, kVendorExtensionSize};
    data += kVendorExtensionSize;
  }
  f.private_data = {data, static_cast<std::uint32_t>(frame.private_data.size())};
  if (frame.enhanced) f.enhanced = {data, kEnhancedBlockSize};
  return f;
}

std::vector<std::uint8_t> startup_frame_octets(const StartupFrame& frame) {
  std::vector<std::uint8_t> wire(frame.key.begin(), frame.key.end());
  wire.resize(kStartupHeaderSize);
  wire[kStartupFlagsOffset] = frame.flags;
  wire[kStartupRevisionOffset] = frame.revision;
  wire[kStartupPdLengthOffset] = static_cast<std::uint8_t>(frame.pd_length >> 8);
  wire[kStartupPdLengthOffset + 1] = static_cast<std::uint8_t>(frame.pd_length & 0xFF);
  if (frame.has_vendor_extension) {
    wire.insert(wire.end(), frame.vendor_extension.begin(), frame.vendor_extension.end());
  }
  wire.insert(wire.end(), frame.private_data.begin(), frame.private_data.end());
  return wire;
}

}  // namespace mpa
