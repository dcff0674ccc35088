// Framing from the bytes alone (RFC 5044 4, 6; Appendix A.3): which parameters a sender
// uses when the startup frames do not say (a capture that starts mid-connection), and
// whether a sender inserts markers its receiver did not ask for. Pure: octets in, a
// hypothesis out; the connection decides what to do with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "mpa/tcp_seq.h"

namespace mpa {

// A framing that explains the octets: markers (with the grid's phase) and CRC use, and
// where the first FPDU starts.
struct FramingHypothesis {
  bool markers = false;
  bool crc = false;
  std::uint32_t phase = 0;  // the marker grid's origin is seq + phase
  std::size_t start = 0;    // index of the first FPDU's first octet
};

// Parameters the user declared (unset: try both).
struct FramingChoices {
  std::optional<bool> markers;
  std::optional<bool> crc;
};

// The first framing, in the order CRC on/off, markers on/off, grid phase, under which
// `bytes` (starting at `seq`) hold a chain of valid FPDUs: three, or (`final`: nothing
// more will arrive) one that ends where the octets do. Without CRCs the whole buffer must
// frame and the first FPDU must look like DDP; without CRCs and markers, eight FPDUs that all
// begin like DDP (or, `final`, three that frame the octets to their end): zeros or text are
// no evidence.
std::optional<FramingHypothesis> infer_framing(std::span<const std::uint8_t> bytes, TcpSeq seq,
                                               const FramingChoices& choices, bool final);

// Full operation with M=0 towards this sender: does it insert markers anyway?
enum class MarkerProbe : std::uint8_t {
  Undecided,  // both readings still frame every octet: wait for more
  Absent,     // no markers (the negotiated framing)
  Present,    // the stream opens with a zero marker and frames only with markers
};
// Octets held before deciding at the latest (one FPDU of any size, with its markers).
inline constexpr std::size_t kMarkerProbeLimit = 70000;
// `bytes` are the sender's first octets of full operation (starting at `seq`, the grid's
// origin if markers are present); `final`: nothing more will arrive.
MarkerProbe probe_markers(std::span<const std::uint8_t> bytes, TcpSeq seq, bool crc, bool final);

}  // namespace mpa
