// One captured frame into the connection analyzer (see frame_feeder.h).
#include "mpa/frame_feeder.h"

namespace mpa {

DecodeResult decode_captured(const CapturedFrame& frame, const DecodeOptions& options) {
  return decode_frame(frame.link_type, frame.data, frame.original_length, frame.number,
                      frame.timestamp_ns, options);
}

DecodeResult decode_captured(const CapturedFrame& frame) {
  return decode_frame(frame.link_type, frame.data, frame.original_length, frame.number,
                      frame.timestamp_ns);
}

DecodeResult FrameFeeder::decode(const CapturedFrame& frame) {
  ++stats_.frames;
  stats_.bytes += frame.data.size();
  DecodeResult decoded = decode_captured(frame, analyzer_.options().decode);
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
  return decoded;
}

void FrameFeeder::count_not_tcp(const CapturedFrame& frame, const DecodeResult& decoded) {
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
    stats_.first_unreached_frame = frame.number;
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
      analyzer_.on_ip_fragment(frame.number, decoded.detail);
      break;
    default:
      break;
  }
}

}  // namespace mpa
