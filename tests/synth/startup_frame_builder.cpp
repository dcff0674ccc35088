// MPA Request/Reply frame construction (see startup_frame_builder.h).
#include "startup_frame_builder.h"

#include <algorithm>

#include "rng.h"

namespace mpa::synth {
namespace {

constexpr std::size_t kHeaderLength = 20;  // key 16, flags, rev, PD_Length

std::uint8_t flags_byte(const StartupFrameSpec& spec) {
  std::uint8_t flags = spec.reserved & startup_flag::kReserved;
  if (spec.m) flags |= startup_flag::kM;
  if (spec.c) flags |= startup_flag::kC;
  if (spec.r) flags |= startup_flag::kR;
  if (spec.s) flags |= startup_flag::kS;
  return flags;
}

void put_key(Bytes& out, const StartupFrameSpec& spec) {
  std::string key(spec.kind == FrameKind::Request ? kRequestKey : kReplyKey);
  if (spec.key) key = *spec.key;
  key.resize(16, ' ');
  append(out, key);
}

// Key, flags, revision, PD_Length, and the Rev 129 extension when there is one.
void put_header(Bytes& out, const StartupFrameSpec& spec, std::uint16_t pd_length) {
  put_key(out, spec);
  put_u8(out, flags_byte(spec));
  put_u8(out, spec.revision);
  put_be16(out, spec.pd_length_field.value_or(pd_length));
  if (spec.vendor_extension) append(out, *spec.vendor_extension);
}

Bytes private_data(const StartupFrameSpec& spec, std::uint64_t filler_seed) {
  Bytes pd;
  if (spec.enhanced) pd = encode_enhanced_block(*spec.enhanced);
  pd.resize(std::min<std::size_t>(pd.size(), spec.private_data_length));
  if (spec.private_data_octets) {
    append(pd, *spec.private_data_octets);
    pd.resize(spec.private_data_length);
    return pd;
  }
  Rng rng(filler_seed);
  rng.fill(pd, spec.private_data_length - pd.size());
  return pd;
}

}  // namespace

Bytes encode_enhanced_block(const EnhancedBlock& block) {
  auto half = [](bool first, bool second, std::uint16_t value) {
    return static_cast<std::uint16_t>((first ? 0x8000 : 0) | (second ? 0x4000 : 0) |
                                      (value & 0x3FFF));
  };
  Bytes out;
  for (const std::uint16_t h : {half(block.peer_to_peer, block.send_rtr, block.ird),
                                half(block.write_rtr, block.read_rtr, block.ord)}) {
    if (block.little_endian) {
      out.push_back(static_cast<std::uint8_t>(h & 0xFF));
      out.push_back(static_cast<std::uint8_t>(h >> 8));
    } else {
      put_be16(out, h);
    }
  }
  return out;
}

Bytes erdma_extension() {
  Bytes out;
  put_be32(out, 0x45524D41u);  // cookie ("ERMA")
  put_be32(out, 0x00000000u);  // bits: no congestion-control selection
  return out;
}

Bytes build_startup_frame(const StartupFrameSpec& spec, std::uint64_t filler_seed) {
  Bytes out;
  put_header(out, spec, spec.private_data_length);
  append(out, private_data(spec, filler_seed));
  return out;
}

Bytes build_startup_frame_with_private_data(const StartupFrameSpec& spec,
                                            std::span<const std::uint8_t> private_data) {
  Bytes out;
  put_header(out, spec, static_cast<std::uint16_t>(private_data.size()));
  append(out, private_data);
  return out;
}

void set_flags(StartupFrameSpec& spec, std::uint8_t flags) {
  spec.m = (flags & startup_flag::kM) != 0;
  spec.c = (flags & startup_flag::kC) != 0;
  spec.r = (flags & startup_flag::kR) != 0;
  spec.s = (flags & startup_flag::kS) != 0;
  spec.reserved = flags & startup_flag::kReserved;
}

std::size_t startup_frame_length(const StartupFrameSpec& spec) {
  return kHeaderLength + (spec.vendor_extension ? spec.vendor_extension->size() : 0) +
         spec.private_data_length;
}

}  // namespace mpa::synth
