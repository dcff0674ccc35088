// One captured frame into the connection analyzer (see frame_feeder.h).
#include "mpa/frame_feeder.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace mpa {

namespace {

// A TCP payload within the frame's octets lies where they do in the frame's source (one
// reassembled from IP fragments lies in no frame).
void place_payload(const CapturedFrame& frame, DecodeResult& result) {
  if (frame.source == nullptr || result.status != DecodeStatus::Tcp ||
      !octets_within(result.segment.payload, frame.data)) {
    return;
  }
  result.segment.payload_source = frame.source;
  result.segment.payload_at =
      frame.at + static_cast<std::uint64_t>(result.segment.payload.data() - frame.data.data());
}

}  // namespace

DecodeResult decode_captured(const CapturedFrame& frame, const DecodeOptions& options) {
  DecodeResult result;
  decode_captured(frame, options, result);
  return result;
}

void decode_captured(const CapturedFrame& frame, const DecodeOptions& options,
                     DecodeResult& result) {
  decode_frame(result, frame.link_type, frame.data, frame.original_length, frame.number,
               frame.timestamp_ns, options);
  place_payload(frame, result);
}

DecodeResult decode_captured(const CapturedFrame& frame) {
  static const DecodeOptions defaults;
  return decode_captured(frame, defaults);
}

FrameFeeder::FrameFeeder(Analyzer& analyzer)
    : analyzer_(analyzer), reassembler_(analyzer.options().ip_reassembly) {}

void FrameFeeder::account(const CapturedFrame& frame, const DecodeResult& decoded) {
  note_place(frame);
  ++stats_.frames;
  stats_.bytes += frame.data.size();
  count(frame.number, decoded);
}

void FrameFeeder::note_place(const CapturedFrame& frame) {
  // A place in the file only where the octets can be read there again (a plain file).
  FramePlace place;
  place.timestamp_ns = frame.timestamp_ns;
  if (frame.source != nullptr) {
    place.offset = frame.at;
    place.length = static_cast<std::uint32_t>(frame.data.size());
  }
  analyzer_.on_frame(frame.number, place);
}

void FrameFeeder::count(std::uint64_t frame, const DecodeResult& decoded) {
  switch (decoded.status) {
    case DecodeStatus::Tcp:
      ++stats_.tcp_segments;
      if (decoded.tunnels.depth != 0) note_tunnel(decoded);
      break;
    case DecodeStatus::IpFragment:
      ++stats_.ip_fragments;
      break;
    case DecodeStatus::Malformed:
      ++stats_.malformed_frames;
      break;
    default:
      ++stats_.other_frames;
      count_not_tcp(frame, decoded);
      break;
  }
}

void FrameFeeder::count_not_tcp(std::uint64_t frame, const DecodeResult& decoded) {
  switch (decoded.reason) {
    case NotTcpReason::OtherEtherType:
      ++stats_.other_ethertype;
      return;
    case NotTcpReason::TunnelPayload:
      ++stats_.tunnel_payload;
      break;
    case NotTcpReason::TooDeep:
      ++stats_.too_deep;
      break;
    case NotTcpReason::LinkType:
      ++stats_.unsupported_link_type;
      break;
    default:
      ++stats_.other_ip_protocol;
      return;
  }
  if (stats_.first_unreached_frame == 0) {
    stats_.first_unreached_frame = frame;
    stats_.first_unreached_detail = decoded.detail;
  }
}

// Named once per tunnel: a lookup per tunnelled segment, a string only for a new tunnel.
void FrameFeeder::note_tunnel(const DecodeResult& decoded) {
  ++stats_.tunnelled_segments;
  const std::uint64_t id = decoded.segment.source.tunnel;
  if (tunnel_names_.size() >= kMaxTunnelNames || tunnel_names_.contains(id)) return;
  tunnel_names_.emplace(id, to_string(decoded.tunnels));
}

void FrameFeeder::deliver(const CapturedFrame& frame, const DecodeResult& decoded) {
  switch (decoded.status) {
    case DecodeStatus::Tcp:
      analyzer_.on_segment(decoded.segment);
      break;
    case DecodeStatus::IpFragment:
      reassemble(frame, decoded);
      break;
    default:
      break;
  }
}

// The datagram a fragment completes is decoded as a frame would be and counted at this frame.
void FrameFeeder::reassemble(const CapturedFrame& frame, const DecodeResult& fragment) {
  mpa::reassemble(reassembler_, fragment, frame.number, frame.timestamp_ns,
                  analyzer_.options().decode, *this, [&](const DecodeResult& datagram) {
                    ++stats_.ip_datagrams;
                    count(frame.number, datagram);
                    if (datagram.status != DecodeStatus::Tcp) return;
                    ++stats_.reassembled_segments;
                    analyzer_.on_segment(datagram.segment);
                  });
}

void FrameFeeder::finish(std::uint64_t last_frame) {
  reassembler_.finish(*this);
  analyzer_.finish(last_frame);
}

void FrameFeeder::on_fragment_overlap_mismatch(std::uint64_t frame, std::uint64_t timestamp_ns,
                                               std::string detail) {
  analyzer_.on_capture_finding(DiagId::IpFragmentOverlapMismatch, frame, timestamp_ns,
                               std::move(detail));
}

// A capture gap: named when the datagram may have carried TCP (a UDP datagram only when its
// ports are unknown or a tunnel's).
void FrameFeeder::on_datagram_incomplete(const IncompleteDatagram& datagram) {
  ++stats_.ip_datagrams_incomplete;
  if (datagram.protocol == 17 && datagram.source_port && datagram.destination_port) {
    const DecodeOptions& options = analyzer_.options().decode;
    const auto tunnel_port = [&](std::uint16_t port) {
      return std::find(options.vxlan_ports.begin(), options.vxlan_ports.end(), port) !=
                 options.vxlan_ports.end() ||
             std::find(options.geneve_ports.begin(), options.geneve_ports.end(), port) !=
                 options.geneve_ports.end();
    };
    if (!tunnel_port(*datagram.source_port) && !tunnel_port(*datagram.destination_port)) return;
  }
  analyzer_.on_capture_finding(DiagId::CaptureIpFragment, datagram.last_frame, datagram.last_ns,
                               describe(datagram, reassembler_.limits()));
}

}  // namespace mpa
