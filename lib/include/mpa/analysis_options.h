// What an analysis is asked to do (AnalyzerOptions) and where what it finds goes (EventSink):
// the face the Analyzer (analyzer.h) and each connection it follows (mpa_connection.h) share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "mpa/connection_summary.h"
#include "mpa/events.h"
#include "mpa/ip_reassembly.h"
#include "mpa/packet_decoder.h"
#include "mpa/startup_frame.h"
#include "mpa/tcp_reassembly.h"
#include "mpa/tcp_seq.h"

namespace mpa {

struct AnalyzerOptions {
  ReassemblyOptions reassembly;
  // Connections tracked at once; beyond this the least recently active one is finished
  // early (its findings so far are kept).
  std::size_t max_connections = 16384;
  // Captures without startup frames: declared parameters (unset: inferred from the data).
  std::optional<bool> markers;
  std::optional<bool> crc;
  // Look for FPDUs in connections whose SYN was captured but which never sent a startup
  // frame (normally such connections are taken to be other protocols).
  bool infer_with_syn = false;
  // A connection with no segment for this long (capture time, nanoseconds) is finished and
  // freed before the next segment is analysed, as at the end of the capture, and its summary
  // says so (ConnectionSummary::expired): Zeek's TCP inactivity timeout. 0: never.
  std::uint64_t idle_timeout_ns = 0;
  // Octets per direction examined to recognise MPA without startup frames.
  std::size_t inference_window = 64u << 10;
  // Hand each whole ULPDU (markers removed) to EventSink::on_fpdu (FpduEvent::ulpdu).
  bool keep_ulpdu = false;
  // How the frames fed to it are decoded (FrameFeeder): the UDP tunnel ports, and the limits
  // of IP fragment reassembly.
  DecodeOptions decode;
  IpReassemblyLimits ip_reassembly;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_finding(const Finding& finding) = 0;
  virtual void on_startup_frame(std::uint32_t connection, Direction direction,
                                const StartupFrame& frame, std::uint64_t frame_number, TcpSeq seq) {
    (void)connection, (void)direction, (void)frame, (void)frame_number, (void)seq;
  }
  virtual void on_fpdu(const FpduEvent& fpdu) { (void)fpdu; }
  // A framing deviation was named (fpdu.pad-rule-wrong, fpdu.crc-field-missing,
  // fpdu.ulpdu-length-miscounted, fpdu.markers-missing): the FPDU at `revised.start_seq`,
  // reported before as the RFC frames it, as its sender framed it: its ULPDU size, pad, CRC
  // field, wire length and the frame that completed it (last_frame). Its CRC is not checked
  // again, its ULPDU and markers are not given again (`markers`: the sender inserts markers,
  // so those reported before that lie within it stay). Every later FPDU of the direction is
  // reported with the sender's framing from the start.
  virtual void on_fpdu_revised(const FpduEvent& revised, bool markers) {
    (void)revised, (void)markers;
  }
  // A connection is known to carry MPA from now on (a startup frame, or FPDUs recognised):
  // its id, roles and endpoints as known at this moment. Its findings follow.
  virtual void on_connection_start(const ConnectionSummary& summary) { (void)summary; }
  // A connection ended (closed, evicted, or the capture ended). Only MPA connections.
  virtual void on_connection_end(const ConnectionSummary& summary) { (void)summary; }
};

}  // namespace mpa
