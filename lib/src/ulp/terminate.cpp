// RDMAP Terminate decoding (RFC 5040 4.8, RFC 6580, RFC 6581 8). See terminate.h.
#include "mpa/terminate.h"

#include <fmt/format.h>

#include "mpa/ddp.h"

namespace mpa {

std::string_view mpa_error_name(std::uint8_t code) {
  const auto known = mpa_error_from_wire(code);
  return known ? describe(*known) : "unknown MPA error";
}

std::string_view layout_stack(TerminateLayout layout) {
  switch (layout) {
    case TerminateLayout::Siw:
      return "Linux siw";
    case TerminateLayout::CxgbIrdma:
      return "Chelsio cxgb4 / Intel irdma";
    case TerminateLayout::Rfc5040:
      break;
  }
  return "";
}

std::size_t terminate_header_size(const Terminate& t) {
  std::size_t size = 4;  // Terminate Control (19 bits) and Reserved (13 bits)
  if (t.ddp_header_included) size += 2 + kDdpTaggedHeaderSize;
  if (t.rdmap_header_included) size += kRdmaReadRequestSize;
  return size;
}

std::optional<Terminate> decode_terminate(std::span<const std::uint8_t> ulpdu, bool siw_peer) {
  constexpr std::size_t kControl = kTerminateControlOffset;
  if (ulpdu.size() < kControl + kTerminateControlSize) return std::nullopt;
  const std::uint8_t b0 = ulpdu[kControl];
  const std::uint8_t code = ulpdu[kControl + 1];
  const std::uint8_t b2 = ulpdu[kControl + 2];
  Terminate t;
  t.error_code = code;
  // RFC 5040 Figure 8: Layer(4) EType(4) | Error Code(8) | M D R (bits 16-18).
  // Linux siw fills the field with C bitfields, so on little-endian hosts the first octet is
  // EType<<4 | Layer and M/D/R land in the low bits of the third octet: an LLP/MPA error
  // (layer 2, etype 0) then reads as layer 0, etype 2.
  const bool flags_low = (b2 & 0xE0) == 0 && (b2 & 0x07) != 0;
  const bool looks_swapped = b0 == 0x02 && code >= 1 && code <= 7;
  if (looks_swapped && (siw_peer || flags_low)) {
    t.siw_layout = true;
    t.layout = TerminateLayout::Siw;
    t.layer = b0 & 0x0F;
    t.etype = b0 >> 4;
    t.segment_length_valid = b2 & 0x01;
    t.ddp_header_included = b2 & 0x02;
    t.rdmap_header_included = b2 & 0x04;
    // (bits 19-31 of the little-endian word: the third octet's high 5 bits, the fourth octet)
    t.reserved = static_cast<std::uint16_t>((b2 >> 3) << 8 | ulpdu[kControl + 3]);
  } else {
    t.layer = b0 >> 4;
    t.etype = b0 & 0x0F;
    t.segment_length_valid = b2 & 0x80;
    t.ddp_header_included = b2 & 0x40;
    t.rdmap_header_included = b2 & 0x20;
    // Figure 7: bits 19-31, the third octet's low 5 bits and the fourth octet.
    t.reserved = static_cast<std::uint16_t>((b2 & 0x1F) << 8 | ulpdu[kControl + 3]);
    // Chelsio cxgb4 (LAYER_MPA | DDP_LLP) and Intel irdma ((LAYER_MPA << 4) | DDP_LLP) write
    // an MPA error as layer 2 with DDP's error type 3; RFC 6580 registers MPA errors under
    // error type 0 and nothing under 3, so the octet names those stacks.
    if (b0 == 0x23 && code >= 1 && code <= 7) t.layout = TerminateLayout::CxgbIrdma;
  }
  if (t.ddp_header_included) {
    const std::size_t at = kControl + 4 + 2;  // after the DDP Segment Length field
    if (ulpdu.size() > at) t.terminated_ddp_header = ulpdu.subspan(at);
  }
  return t;
}

namespace {
// RFC 5040 Figure 9: the codes of the RDMAP error types that have codes.
bool rdmap_code_defined(std::uint8_t etype, std::uint8_t code) {
  if (code == 0xFF || code == 0x09) return true;  // Unspecified; STag cannot be Invalidated
  if (etype == 1) return code <= 0x04;            // Remote Protection Error
  return code >= 0x05 && code <= 0x08;            // Remote Operation Error
}
// RFC 5041 7.2: DDP's error types and codes.
bool ddp_code_defined(std::uint8_t etype, std::uint8_t code) {
  switch (etype) {
    case 0:
      return code == 0x00;  // Local Catastrophic
    case 1:
      return code <= 0x04;  // Tagged Buffer Error
    case 2:
      return code >= 0x01 && code <= 0x06;  // Untagged Buffer Error
    default:
      return etype == 3;  // reserved for the LLP: its codes are the LLP's
  }
}
}  // namespace

std::string undefined_terminate_values(const Terminate& t) {
  if (t.layout != TerminateLayout::Rfc5040) return {};
  switch (t.layer) {
    case 0:
      if (t.etype > 2) return fmt::format("RDMAP error type {} (Figure 9 defines 0-2)", t.etype);
      if (t.etype != 0 && !rdmap_code_defined(t.etype, t.error_code)) {
        return fmt::format("RDMAP error type {} code 0x{:02x} (not in Figure 9)", t.etype,
                           t.error_code);
      }
      return {};
    case 1:
      if (!ddp_code_defined(t.etype, t.error_code)) {
        return fmt::format("DDP error type {} code 0x{:02x} (not in RFC 5041 7.2)", t.etype,
                           t.error_code);
      }
      return {};
    case 2:
      if (t.etype != 0 || !mpa_error_from_wire(t.error_code)) {
        return fmt::format(
            "LLP (MPA) error type {} code {} (RFC 6580: error type 0; RFC 5044 8, RFC 6581 8: "
            "codes "
            "1-7)",
            t.etype, t.error_code);
      }
      return {};
    default:
      return fmt::format("layer {} (Figure 9 defines 0 RDMAP, 1 DDP, 2 LLP)", t.layer);
  }
}

std::string describe(const Terminate& t) {
  const char* layer = t.layer == 0   ? "RDMAP"
                      : t.layer == 1 ? "DDP"
                      : t.layer == 2 ? "LLP"
                                     : "unknown layer";
  if (auto mpa = t.mpa_error_code()) {
    if (t.layout == TerminateLayout::CxgbIrdma) {
      return fmt::format("LLP (MPA) error {}: {} (as {} write it: error type 3)", *mpa,
                         mpa_error_name(*mpa), layout_stack(t.layout));
    }
    return fmt::format("LLP (MPA) error {}: {}", *mpa, mpa_error_name(*mpa));
  }
  return fmt::format("{} (layer {}) error type {} code 0x{:02x}", layer, t.layer, t.etype,
                     t.error_code);
}

}  // namespace mpa
