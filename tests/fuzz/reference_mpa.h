// A reference MPA sender for the differential fuzz target, written apart from lib/ and
// mpa-synth (a C++ port of tests/oracle/reference_framer.py, brute force on purpose): CRC32c
// bit by bit from its definition, markers placed octet by octet, and the sender deviations
// each overriding one step. What it says about a stream (its FPDUs, whether the stream shows
// the deviation) is the oracle's expectation; nothing here may call into lib/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mpa::reference {

using Octets = std::vector<std::uint8_t>;

// CRC32c (Castagnoli): polynomial 0x1EDC6F41 reflected (0x82F63B78), register starting at all
// ones, octets in least significant bit first, the result complemented. One bit at a time.
inline std::uint32_t crc32c(const std::uint8_t* data, std::size_t size) {
  std::uint32_t r = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < size; ++i) {
    r ^= data[i];
    for (int bit = 0; bit < 8; ++bit) r = (r & 1u) ? (r >> 1) ^ 0x82F63B78u : r >> 1;
  }
  return r ^ 0xFFFFFFFFu;
}
inline std::uint32_t crc32c(const Octets& data) { return crc32c(data.data(), data.size()); }

inline constexpr std::size_t kMarkerInterval = 512;
// An untagged DDP header with its RDMAP fields (RFC 5041 4.3, RFC 5040 4.1).
inline constexpr std::size_t kDdpHeader = 18;
inline constexpr std::size_t kDdpSendHeader = 18;  // untagged DDP header + RDMAP control

// How a sender frames. The RFC's way unless `kind` says otherwise.
enum class Kind : std::uint8_t {
  Rfc,
  LengthPlus2,
  LengthPlus4,
  LengthMinus2,
  PadUlpduTo4,
  PadNone,
  PadNPlus2Mod4,
  PadNMod4,
  CrcFieldMissing,
  CrcUlpduOnly,
  CrcWithoutMarkers,
  CrcZero,
  MarkersAbsent,
};

struct Model {
  Kind kind = Kind::Rfc;
  std::string_view name = "rfc";
  std::string_view finding;    // the catalogue id a checker names for it (empty: conformant)
  bool needs_crc = false;      // shows only where CRCs are on in its direction
  bool needs_markers = false;  // ... only where markers are on in its direction

  // What ULPDU_Length counts besides the ULPDU.
  int length_delta() const {
    return kind == Kind::LengthPlus2    ? 2
           : kind == Kind::LengthPlus4  ? 4
           : kind == Kind::LengthMinus2 ? -2
                                        : 0;
  }
  std::uint16_t length_field(std::size_t n) const {
    return static_cast<std::uint16_t>(static_cast<int>(n) + length_delta());
  }
  static std::size_t rfc_pad(std::size_t n) { return (4 - (2 + n) % 4) % 4; }
  std::size_t pad(std::size_t n) const {
    switch (kind) {
      case Kind::PadUlpduTo4:
        return (4 - n % 4) % 4;
      case Kind::PadNone:
        return 0;
      case Kind::PadNPlus2Mod4:
        return (n + 2) % 4;
      case Kind::PadNMod4:
        return n % 4;
      default:
        return rfc_pad(n);
    }
  }
  bool has_crc_field() const { return kind != Kind::CrcFieldMissing; }
  bool inserts_markers(bool negotiated) const { return negotiated && kind != Kind::MarkersAbsent; }
};

inline const std::vector<Model>& models() {
  static const std::vector<Model> all = {
      {Kind::Rfc, "rfc", "", false, false},
      {Kind::LengthPlus2, "length+2", "fpdu.ulpdu-length-miscounted", false, false},
      {Kind::LengthPlus4, "length+4", "fpdu.ulpdu-length-miscounted", false, false},
      {Kind::LengthMinus2, "length-2", "fpdu.ulpdu-length-miscounted", false, false},
      {Kind::PadUlpduTo4, "pad-ulpdu-to-4", "fpdu.pad-rule-wrong", false, false},
      {Kind::PadNone, "pad-none", "fpdu.pad-rule-wrong", false, false},
      {Kind::PadNPlus2Mod4, "pad-n+2-mod-4", "fpdu.pad-rule-wrong", false, false},
      {Kind::PadNMod4, "pad-n-mod-4", "fpdu.pad-rule-wrong", false, false},
      {Kind::CrcFieldMissing, "crc-field-missing", "fpdu.crc-field-missing", false, false},
      {Kind::CrcUlpduOnly, "crc-ulpdu-only", "fpdu.crc-miscomputed", true, false},
      {Kind::CrcWithoutMarkers, "crc-without-markers", "fpdu.crc-miscomputed", true, true},
      {Kind::CrcZero, "crc-zero", "fpdu.crc-miscomputed", true, false},
      {Kind::MarkersAbsent, "markers-absent", "fpdu.markers-missing", false, true},
  };
  return all;
}

// One FPDU as sent: offsets from the first octet of full operation.
struct SentFpdu {
  std::size_t start = 0;   // its first octet (a leading marker, if any)
  std::size_t header = 0;  // its ULPDU_Length field
  std::uint16_t length_field = 0;
  bool deviant = false;  // no RFC sender could have sent these octets
};

// A direction's full-operation octets and what they hold.
class FramedStream {
 public:
  FramedStream(const Model& model, bool markers, bool crc)
      : model_(model), negotiated_(markers), markers_(model.inserts_markers(markers)), crc_(crc) {}

  // Frames `ulpdu`; `noise` is the CRC field's value where CRCs are off (anything may stand).
  void add(const Octets& ulpdu, std::uint32_t noise) {
    const std::size_t n = ulpdu.size();
    const std::size_t start = wire.size();
    marker_here(std::nullopt);  // a marker between FPDUs belongs to the following one
    const std::size_t header_at = wire.size();
    const std::uint16_t field = model_.length_field(n);
    Octets plain = {static_cast<std::uint8_t>(field >> 8), static_cast<std::uint8_t>(field)};
    plain.insert(plain.end(), ulpdu.begin(), ulpdu.end());
    const std::size_t pad = model_.pad(n);
    plain.insert(plain.end(), pad, 0);
    put(plain, header_at);
    bool deviant = 2 + n + pad != 2 + std::size_t{field} + Model::rfc_pad(field);
    if (!deviant && field < n) {
      // Framed as an RFC sender of a shorter ULPDU would: nothing tells a reader that the
      // octets after ULPDU_Length's count are ULPDU, not pad (every ULPDU here is an untagged
      // DDP Send, its header 18 octets).
      pad_nonzero_as_read +=
          std::any_of(ulpdu.begin() + field, ulpdu.end(), [](std::uint8_t o) { return o != 0; });
      too_short_as_read += field < kDdpHeader;
    }
    if (model_.has_crc_field()) {
      marker_here(header_at);  // a marker just after the pad is the FPDU's
      const Octets covered(wire.begin() + static_cast<std::ptrdiff_t>(start), wire.end());
      std::uint32_t value = noise;
      if (crc_) {
        const std::uint32_t right = crc32c(covered);
        value = right;
        if (model_.kind == Kind::CrcUlpduOnly) value = crc32c(ulpdu);
        if (model_.kind == Kind::CrcWithoutMarkers) value = crc32c(plain);
        if (model_.kind == Kind::CrcZero) value = 0;
        deviant = deviant || value != right;
      }
      // The register's low octet first, as iSCSI sends digests (RFC 5044 Figure 5).
      put({static_cast<std::uint8_t>(value), static_cast<std::uint8_t>(value >> 8),
           static_cast<std::uint8_t>(value >> 16), static_cast<std::uint8_t>(value >> 24)},
          header_at);
    } else {
      deviant = true;
    }
    if (negotiated_ && !markers_) {
      for (std::size_t o = start; o < wire.size(); ++o)
        deviant = deviant || o % kMarkerInterval == 0;
    }
    fpdus.push_back({start, header_at, field, deviant});
  }

  bool shows_deviation() const {
    for (const SentFpdu& f : fpdus)
      if (f.deviant) return true;
    return false;
  }

  // Ids due besides the deviation's (tests/oracle/conversation.py, Direction.due).
  std::set<std::string> also_due() const {
    std::set<std::string> due;
    if (fpduptr_low_bits > 0) due.insert("marker.fpduptr-low-bits");
    if (pad_nonzero_as_read > 0 && !shows_deviation()) due.insert("fpdu.pad-nonzero");
    if (too_short_as_read > 0 && !shows_deviation()) due.insert("ddp.ulpdu-too-short");
    return due;
  }

  // Whether a sender framing as `other` (CRCs off) could have sent these octets: it frames
  // every FPDU where it was sent, its pads zero and its ULPDUs holding their DDP headers.
  // Where it could, nothing on the wire tells the two senders apart. (A sender without a CRC
  // field: its pads stand where a sender counting ULPDU_Length 4 long puts a CRC field, which
  // CRCs off may hold anything: they are not held to zero.)
  bool reads_as(const Model& other) const {
    const bool zero_pads = other.has_crc_field();
    for (std::size_t i = 0; i < fpdus.size(); ++i) {
      const int ulpdu = int{fpdus[i].length_field} - other.length_delta();
      if (ulpdu < static_cast<int>(kDdpHeader)) return false;
      const std::size_t n = static_cast<std::size_t>(ulpdu), pad = other.pad(n);
      const std::size_t content = 2 + n + pad + (other.has_crc_field() ? 4 : 0);
      std::size_t at = fpdus[i].header;
      for (std::size_t got = 0; got < content; ++at) {
        if (at >= wire.size()) return false;
        if (markers_ && at % kMarkerInterval == 0) {
          at += 3;  // (the marker's four octets, the loop's step included)
          continue;
        }
        if (zero_pads && got >= 2 + n && got < 2 + n + pad && wire[at] != 0) return false;
        ++got;
      }
      if (at != (i + 1 < fpdus.size() ? fpdus[i + 1].start : wire.size())) return false;
    }
    return !fpdus.empty();
  }

  Octets wire;
  std::vector<SentFpdu> fpdus;
  std::size_t fpduptr_low_bits = 0;     // markers whose FPDUPTR has a low bit set
  std::size_t pad_nonzero_as_read = 0;  // FPDUs an RFC reading finds non-zero pad octets in
  std::size_t too_short_as_read = 0;    // ... or a ULPDU shorter than the DDP header

 private:
  void put(const Octets& octets, std::size_t header_at) {
    for (std::uint8_t octet : octets) {
      marker_here(header_at);
      wire.push_back(octet);
    }
  }
  void marker_here(std::optional<std::size_t> header_at) {
    const std::size_t pos = wire.size();
    if (!markers_ || pos % kMarkerInterval != 0) return;
    const std::size_t fpduptr = header_at ? pos - *header_at : 0;
    // Where a deviant pad leaves FPDUs off a multiple of 4, the sender still points at its
    // header: the low two bits are then not zero (RFC 5044 4.2 says they are).
    fpduptr_low_bits += (fpduptr & 3) != 0;
    wire.insert(wire.end(), {0, 0, static_cast<std::uint8_t>(fpduptr >> 8),
                             static_cast<std::uint8_t>(fpduptr)});
  }

  Model model_;
  bool negotiated_;
  bool markers_;
  bool crc_;
};

// An untagged DDP Send (RFC 5041 4.3, RFC 5040 4.1): last segment, DDP version 1, RDMAP
// version 1, queue 0, message `msn`, offset 0; then `size` - 18 octets of body.
inline Octets ddp_send(std::uint32_t msn, std::size_t size, std::uint32_t seed) {
  Octets out = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<std::uint8_t>(msn >> shift));
  out.insert(out.end(), 4, 0);
  while (out.size() < size) {
    seed = seed * 1103515245u + 12345u;
    out.push_back(static_cast<std::uint8_t>(seed >> 16));
  }
  return out;
}

// The largest ULPDU an FPDU of at most `emss` octets carries (RFC 5044 4.5's MULPDU).
inline std::size_t mulpdu(std::size_t emss, bool markers) {
  const std::size_t overhead = 6 + emss % 4 + (markers ? 4 * ((emss + 511) / 512) : 0);
  return emss - overhead;
}

// An MPA Request or Reply, Rev 1 (RFC 5044 7.1).
inline Octets startup_frame(bool request, bool m, bool c, const Octets& private_data) {
  const std::string_view key = request ? "MPA ID Req Frame" : "MPA ID Rep Frame";
  Octets out(key.begin(), key.end());
  out.push_back(static_cast<std::uint8_t>((m ? 0x80 : 0) | (c ? 0x40 : 0)));
  out.push_back(1);
  out.push_back(static_cast<std::uint8_t>(private_data.size() >> 8));
  out.push_back(static_cast<std::uint8_t>(private_data.size()));
  out.insert(out.end(), private_data.begin(), private_data.end());
  return out;
}

}  // namespace mpa::reference
