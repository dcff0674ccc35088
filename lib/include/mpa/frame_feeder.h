// One captured frame into the connection analyzer: the link, IP and TCP headers decoded
// (packet_decoder.h), IP fragments reassembled (ip_reassembly.h), and what the frame holds
// handed to the Analyzer (a TCP segment: the frame's own, or the one an IP datagram carries
// whose last fragment the frame holds), frames counted by what they held. The step both faces
// take per record, mpa-check's capture pipeline (pipeline.h) and the Wireshark plugin, so that
// both analyze the same segments. Pure: no libpcap, no I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>

#include "mpa/analyzer.h"
#include "mpa/ip_reassembly.h"
#include "mpa/packet_decoder.h"

namespace mpa {

struct CaptureStats {
  std::uint64_t frames = 0;
  std::uint64_t bytes = 0;  // captured octets of all records
  // What each frame held, and what each IP datagram reassembled from fragments held (counted
  // at the frame of the fragment that completed it): frames + ip_datagrams == tcp_segments +
  // other_frames + malformed_frames + ip_fragments.
  std::uint64_t tcp_segments = 0;
  std::uint64_t other_frames = 0;  // not TCP: the sum of the reasons below
  std::uint64_t malformed_frames = 0;
  std::uint64_t ip_fragments = 0;          // IP fragments, held for reassembly
  std::uint64_t tunnelled_segments = 0;    // of tcp_segments, those found inside a tunnel
  std::uint64_t reassembled_segments = 0;  // of tcp_segments, those reassembled from fragments
  std::uint64_t ip_datagrams = 0;          // datagrams reassembled from fragments
  // Datagrams given up with fragments missing (capture loss, the snapshot length, the
  // reassembly's limits): what they carried is a gap in the capture.
  std::uint64_t ip_datagrams_incomplete = 0;
  // other_frames by reason (NotTcpReason).
  std::uint64_t other_ethertype = 0;
  std::uint64_t other_ip_protocol = 0;
  std::uint64_t tunnel_payload = 0;  // a tunnel whose payload is not decoded
  std::uint64_t too_deep = 0;        // encapsulations nested too deep
  std::uint64_t unsupported_link_type = 0;
  // Frames that may have carried TCP the analysis never saw: a report warns of them.
  std::uint64_t unreached() const { return tunnel_payload + too_deep + unsupported_link_type; }
  std::uint64_t first_unreached_frame = 0;  // the first of them, and why (the decoder's detail)
  std::string first_unreached_detail;
};

// Tunnel descriptions by Endpoint::tunnel ("vxlan vni 42 10.0.0.1->10.0.0.2"), for reports.
using TunnelNames = std::unordered_map<std::uint64_t, std::string>;
inline constexpr std::size_t kMaxTunnelNames = 4096;  // beyond: shown by number

struct CapturedFrame {
  std::uint64_t number = 0;            // frame number (from 1, in capture order)
  std::uint32_t link_type = 0;         // tcpdump.org LINKTYPE_*
  std::span<const std::uint8_t> data;  // the captured octets, link layer included
  std::uint32_t original_length = 0;   // the frame's length on the wire
  std::uint64_t timestamp_ns = 0;
  // Where `data` can be read again (source nullptr: nowhere): data[0] lies at offset `at` of
  // `source`. Decoding places a TCP payload that lies within `data` there too, and the
  // analysis reads it again until it finishes: `source` must outlive the Analyzer's finish().
  const OctetSource* source = nullptr;
  std::uint64_t at = 0;
};

// Decodes `frame` by its own link type, as FrameFeeder does before it feeds the analyzer (a
// second pass over a capture, such as the HTML report's octets, decodes the same way).
DecodeResult decode_captured(const CapturedFrame& frame, const DecodeOptions& options);
void decode_captured(const CapturedFrame& frame, const DecodeOptions& options,
                     DecodeResult& result);  // into `result` (decode_frame's reuse)
DecodeResult decode_captured(const CapturedFrame& frame);

class FrameFeeder : private IpReassemblyEvents {
 public:
  // Decodes as analyzer.options().decode says (the UDP tunnel ports) and reassembles IP
  // fragments within analyzer.options().ip_reassembly.
  explicit FrameFeeder(Analyzer& analyzer);

  // Decodes `frame` and feeds the analyzer what it holds; returns what it held (IpFragment
  // also for the fragment that completes a datagram, whose TCP segment the analyzer then
  // takes with this frame's number).
  DecodeStatus feed(const CapturedFrame& frame) {
    return feed(frame, [](const TcpSegment&) {});
  }
  // The same; `before_segment(const TcpSegment&)` sees the frame's own TCP segment just
  // before the analyzer takes it (the plugin notes where the segment's payload sits in the
  // frame). A segment reassembled from IP fragments lies in no one frame: it is not shown.
  template <typename BeforeSegment>
  DecodeStatus feed(const CapturedFrame& frame, BeforeSegment&& before_segment) {
    decode_captured(frame, analyzer_.options().decode, decoded_);
    account(frame, decoded_);
    if (decoded_.status == DecodeStatus::Tcp) before_segment(decoded_.segment);
    deliver(frame, decoded_);
    return decoded_.status;
  }
  // The same for a frame decoded already, by decode_captured(frame, decode_options()) (on
  // another thread: the capture pipeline decodes on its reading thread).
  DecodeStatus feed_decoded(const CapturedFrame& frame, const DecodeResult& decoded) {
    account(frame, decoded);
    deliver(frame, decoded);
    return decoded.status;
  }
  // The same for a frame that decode_captured() found to hold a TCP segment outside any
  // tunnel (the common case): only the segment crosses threads, not the whole DecodeResult.
  void feed_plain_segment(const CapturedFrame& frame, const TcpSegment& segment) {
    note_place(frame);
    ++stats_.frames;
    stats_.bytes += frame.data.size();
    ++stats_.tcp_segments;
    analyzer_.on_segment(segment);
  }
  // Whether feed_plain_segment(frame, decoded.segment) does what feed_decoded(frame, decoded)
  // does.
  static bool plain_segment(const DecodeResult& decoded) {
    return decoded.status == DecodeStatus::Tcp && decoded.tunnels.depth == 0;
  }
  const DecodeOptions& decode_options() const { return analyzer_.options().decode; }
  // The capture ended at `last_frame`: IP datagrams still incomplete are given up (a capture
  // gap each), then the analyzer finishes every connection.
  void finish(std::uint64_t last_frame);

  const CaptureStats& stats() const { return stats_; }
  // The tunnels TCP segments came through (at most kMaxTunnelNames).
  const TunnelNames& tunnel_names() const { return tunnel_names_; }

 private:
  void account(const CapturedFrame& frame, const DecodeResult& decoded);
  // Tells the analyzer where the frame lies in the file (Analyzer::on_frame).
  void note_place(const CapturedFrame& frame);
  // Counts what a frame or a reassembled datagram held.
  void count(std::uint64_t frame, const DecodeResult& decoded);
  void count_not_tcp(std::uint64_t frame, const DecodeResult& decoded);
  void note_tunnel(const DecodeResult& decoded);
  void deliver(const CapturedFrame& frame, const DecodeResult& decoded);
  void reassemble(const CapturedFrame& frame, const DecodeResult& fragment);
  void on_fragment_overlap_mismatch(std::uint64_t frame, std::uint64_t timestamp_ns,
                                    std::string detail) override;
  void on_datagram_incomplete(const IncompleteDatagram& datagram) override;

  Analyzer& analyzer_;
  DecodeResult decoded_;  // the frame being fed (reused: set up once, not per frame)
  CaptureStats stats_;
  TunnelNames tunnel_names_;
  IpReassembler reassembler_;
};

}  // namespace mpa
