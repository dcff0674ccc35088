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

}  // namespace mpa
