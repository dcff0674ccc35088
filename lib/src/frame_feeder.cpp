// One captured frame into the connection analyzer (see frame_feeder.h).
#include "mpa/frame_feeder.h"

namespace mpa {

DecodeResult decode_captured(const CapturedFrame& frame) {
  return decode_frame(frame.link_type, frame.data, frame.original_length, frame.number,
                      frame.timestamp_ns);
}

DecodeResult FrameFeeder::decode(const CapturedFrame& frame) {
  ++stats_.frames;
  stats_.bytes += frame.data.size();
  DecodeResult decoded = decode_captured(frame);
  switch (decoded.status) {
    case DecodeStatus::Tcp:
      ++stats_.tcp_segments;
      break;
    case DecodeStatus::IpFragment:
      ++stats_.ip_fragments;
      break;
    case DecodeStatus::Malformed:
      ++stats_.malformed_frames;
      break;
    default:
      ++stats_.other_frames;
      break;
  }
  return decoded;
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
