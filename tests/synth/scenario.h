// A scenario: everything that determines one synthetic capture (both peers' startup
// frames and messages, TCP parameters, segmentation, link options, capture effects) and
// the verdict a conformance checker should reach on it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "encapsulation.h"
#include "fpdu_framer.h"
#include "segmentation.h"
#include "startup_frame_builder.h"
#include "tcp_packet.h"
#include "tcp_session.h"
#include "ulpdu_builder.h"

namespace mpa::synth {

// One RDMAP message; its first FPDU gets `tweaks`.
struct MessageSpec {
  MessageKind kind = MessageKind::Send;
  std::size_t size = 0;  // payload octets after the DDP/RDMAP header
  bool unsplit = false;  // one DDP segment even if larger than MULPDU
  PayloadFill fill = PayloadFill::Random;
  FpduTweaks tweaks;
  std::optional<TerminateSpec> terminate;  // kind Terminate
  // kind ReadResponse: answers the peer's Read that many further on, the ones between never
  // answered (a receiver that dropped them).
  std::uint32_t skip_reads = 0;
  // Applied to the ULPDU of each DDP segment (numbered from 0) before it is framed, so that
  // its CRC covers the change: a DDP or RDMAP header field broken on purpose.
  std::function<void(std::size_t segment, Bytes& ulpdu)> edit_ulpdu;
};

struct PeerConfig {
  StartupFrameSpec frame;
  std::vector<MessageSpec> messages;
  TcpEndpointConfig tcp;
  bool isn_given = false;
};

// The index-th (0-based) full-operation data segment sent by `dir`.
struct SegmentRef {
  Dir dir = Dir::Initiator;
  std::size_t index = 0;
};

// Packets of the connection's opening where a capture can start or end.
enum class CaptureEdge : std::uint8_t {
  SynAck,    // the Responder's SYN-ACK (the SYN is not captured)
  FinalAck,  // the Initiator's ACK that completes the handshake
  Request,   // the first segment of the MPA Request
  Reply,     // the first segment of the MPA Reply
};

// The capture ends inside a startup frame: after the first `segments` segments of it.
struct EndInside {
  CaptureEdge frame = CaptureEdge::Request;  // Request or Reply
  std::size_t segments = 1;
};

// A data segment lost after the capture point (which holds it) and resent only once its
// sender has sent `after_octets` more octets (a long fat path: the window must be that
// large, see TcpEndpointConfig::window_scale): until the copy, the receiver's ACKs stop at
// the segment's first octet.
struct LateRetransmission {
  SegmentRef segment;
  std::size_t after_octets = 0;
  bool change_an_octet = true;  // the copy differs in its middle octet
};

// What happens between the wire and the capture file (or to the segments on the wire).
struct CaptureEffects {
  std::vector<SegmentRef> reorder;           // swapped with the next data segment of its sender
  std::vector<SegmentRef> duplicate;         // retransmitted identically a little later
  std::vector<SegmentRef> mismatch;          // retransmitted with one octet changed
  std::optional<LateRetransmission> late;    // lost downstream, resent much later
  std::vector<SegmentRef> drop;              // missing from the capture (the peer still ACKs it)
  std::vector<SegmentRef> fragment;          // sent as two IP fragments
  std::vector<SegmentRef> fragment_lost;     // ... the second missing from the capture
  std::vector<SegmentRef> fragment_overlap;  // ... the first captured again, an octet changed
  std::optional<SegmentRef> start_at;        // the capture starts with this segment
  std::optional<CaptureEdge> start_at_edge;  // ... or with this packet of the opening
  std::optional<EndInside> end_inside;       // the capture ends inside a startup frame
  bool duplicate_rst = false;                // the RST is captured twice (resent, or a tap's copy)
  std::optional<Encapsulation> wrap;         // every frame wrapped (a tunnel, a mirror, MPLS...)
  std::optional<IpFragmentation> ip_fragments;  // every IP packet larger than a fragment cut
};

enum class Ending : std::uint8_t { None, Fin, Rst };

// A stretch of one sender's bytes between the peer's turns.
struct Turn {
  Dir dir = Dir::Initiator;
  Phase phase = Phase::FullOperation;
  std::vector<Chunk> chunks;
  std::optional<SegmentationPolicy> policy;  // default: chosen from the scenario
  bool allow_oversize = false;
  Ending ending = Ending::None;  // the sender closes after its bytes
  // Time since the peer's last packet before this turn (a peer waiting for an answer that does
  // not come); default: a short turn gap.
  std::optional<std::uint32_t> pause_us;
  // false: the peer acknowledges none of this turn's octets (a receiver that stopped taking
  // the stream: its next segment, a close, may still carry the ACK its TCP owes).
  bool peer_acks = true;
  // Sent before the peer's previous turn reached this sender (the two crossed in flight, the
  // capture nearer this turn's receiver): its segments acknowledge the peer only up to where
  // the peer stood before that turn.
  bool crossed = false;
};

struct Plan {
  std::vector<Turn> turns;
};

// What a checker should say: exactly these errors and warnings, at least these notes.
struct Expectation {
  std::vector<std::string> findings;
  std::vector<std::string> notes;
  bool valid() const { return findings.empty(); }
};

struct Scenario {
  std::string name;
  std::string summary;  // what it shows and why it exists
  Expectation expected;
  PeerConfig initiator;
  PeerConfig responder;
  std::size_t streaming_prefix = 0;  // octets each way before the Request (delayed startup)
  SegmentationPolicy segmentation;
  std::size_t batch = 3;  // FPDUs per turn
  // > 0: captured on the sending host before segmentation offload: each turn of full
  // operation in segments of up to this many octets (FPDUs still sized for the MSS).
  std::size_t super_segment = 0;
  bool ipv6 = false;
  // The hosts, by index_of(Dir) (default: 192.0.2.10 and 192.0.2.20, MACs 02:00:5e:10:00:01
  // and :02): the plugfest corpus gives each implementation its own.
  std::optional<std::array<std::array<std::uint8_t, 4>, 2>> ipv4;
  std::optional<std::array<std::array<std::uint8_t, 6>, 2>> mac;
  std::optional<std::uint16_t> vlan;
  Ending close = Ending::Fin;
  Dir closer = Dir::Initiator;
  std::uint32_t snaplen = 262144;
  CaptureEffects effects;
  SenderQuirks initiator_quirks;                      // a broken sender's own FPDU framing
  SenderQuirks responder_quirks;                      // (the same, of the Responder)
  std::optional<bool> markers_to_responder;           // overrides the Reply's M bit
  std::optional<bool> markers_to_initiator;           // overrides the Request's M bit
  bool allow_oversize = false;                        // FPDUs larger than the MSS in one segment
  std::optional<std::uint8_t> initiator_ddp_version;  // overrides what the revision implies
  std::optional<std::uint32_t> wrap_after;  // ISNs chosen to wrap this far into full operation
  std::function<void(Plan&)> edit_plan;
  std::uint64_t seed = 1;
  std::uint64_t start_time_us = 1704067200000000ull;  // 2024-01-01 00:00:00 UTC

  PeerConfig& peer(Dir d) { return d == Dir::Initiator ? initiator : responder; }
  const PeerConfig& peer(Dir d) const { return d == Dir::Initiator ? initiator : responder; }
  // Markers in FPDUs sent by `d`: the receiver asked for them (M=1) unless overridden.
  bool markers_from(Dir d) const;
  // CRCs in both directions iff either side set C=1.
  bool crc_enabled() const { return initiator.frame.c || responder.frame.c; }
  std::uint8_t ddp_version() const { return initiator.frame.revision == 0 ? 0 : 1; }
};

// ---- building blocks for scenarios (used by the CLI, the corpus and the fault recipes)

// The default conversation: Rev 1, no markers, CRC on, a mix of message sizes.
Scenario base_scenario(const std::string& name);
// `count` messages alternating Send and RDMA Write, sizes cycled from `sizes`.
std::vector<MessageSpec> mixed_messages(std::size_t count, const std::vector<std::size_t>& sizes);
// Every third message is a Write; the tiny sizes land on Writes (Wireshark 4.0's RPC-over-RDMA
// heuristic throws on Sends with fewer than 16 payload octets). Pads of 0 to 3 octets all occur.
inline const std::vector<std::size_t> kDefaultSizes = {100, 1, 101, 1000, 3, 4000,
                                                       17,  2, 103, 1441, 0, 602};
// Sets the revision of both frames, with what that revision implies (Rev 0: markers and CRC;
// Rev 129: the erdma extension, no markers, no CRC; Rev 2: S=1 with IRD/ORD 16/16).
void set_revision(Scenario& s, std::uint8_t revision);
// Rev 2 enhanced blocks with IRD/ORD (client-server).
void set_ird_ord(Scenario& s, std::uint16_t request_ird, std::uint16_t request_ord,
                 std::uint16_t reply_ird, std::uint16_t reply_ord);
// Peer-to-peer: the Request offers every RTR, the Reply accepts `rtr`, and the Initiator's
// first message is that RTR (a Read RTR is answered with a zero-length Read Response).
void make_peer_to_peer(Scenario& s, MessageKind rtr);
// Private data lengths (enhanced block included when S=1).
void set_private_data(Scenario& s, std::uint16_t request, std::uint16_t reply);

}  // namespace mpa::synth
