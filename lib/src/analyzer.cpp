// The MPA connection analyzer (RFC 5044 7.1, 4, 8; RFC 6581 5, 9). See analyzer.h.
//
// Per TCP connection: two sides (index 0 = the TCP client, the SYN sender or first sender
// seen), each with a TcpReassembler whose in-order bytes drive a small state machine:
//
//   Streaming --key found--> Startup --Request done--> AwaitReply (Initiator)
//                                    --Reply done----> FullOperation (both sides)
//   Inferring (no startup in the capture) --FPDUs recognised--> FullOperation
//   Ended: MPA is over on this side (rejected, a startup error, the stream closed).
//
// Roles follow the MPA Request, not the SYN. Findings that arise before a connection is
// known to carry MPA are held back and dropped if it never does.
#include "mpa/analyzer.h"

#include <algorithm>
#include <cstring>
#include <list>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mpa/ddp.h"
#include "mpa/fingerprint.h"
#include "mpa/terminate.h"
#include "mpa/fpdu_reader.h"
#include "mpa/fpdu_search.h"
#include "mpa/marker_grid.h"

namespace mpa {
namespace {

constexpr std::size_t kKeyPrefixSize = 9;  // "MPA ID Re"
constexpr std::size_t kEarlyBufferLimit = 256u << 10;
constexpr std::size_t kPendingFindingsLimit = 256;

// Stream offset of an FPDU's ULPDU_Length field (after its leading marker, if any).
std::uint64_t header_offset(const FpduEvent& fpdu) {
  return fpdu.start_offset + fpdu.header_seq.distance_from(fpdu.start_seq);
}

struct ConnectionKey {
  Endpoint low;
  Endpoint high;
  friend bool operator==(const ConnectionKey&, const ConnectionKey&) = default;
};

struct ConnectionKeyHash {
  std::size_t operator()(const ConnectionKey& key) const {
    // Eight octets at a time: this runs once per segment.
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0xBF58476D1CE4E5B9ull; h ^= h >> 31; };
    for (const Endpoint* e : {&key.low, &key.high}) {
      std::uint64_t words[2];
      std::memcpy(words, e->address.bytes.data(), sizeof words);
      mix(words[0]);
      mix(words[1]);
      mix(static_cast<std::uint64_t>(e->port) << 8 | e->address.family);
    }
    return static_cast<std::size_t>(h);
  }
};

ConnectionKey make_key(const Endpoint& a, const Endpoint& b) {
  return a < b ? ConnectionKey{a, b} : ConnectionKey{b, a};
}

enum class Phase : std::uint8_t {
  Streaming, Startup, AwaitReply, Probing, FullOperation, Inferring, Ended
};
constexpr std::size_t kProbeLimit = 70000;  // one FPDU of any size, with its markers

// Bytes held back with the frames that delivered them, replayed later in order.
struct HeldBytes {
  std::vector<std::uint8_t> bytes;
  std::vector<std::pair<std::size_t, std::uint64_t>> chunks;  // (index in bytes, frame)
  TcpSeq seq;
  std::uint64_t offset = 0;
  void clear() {
    bytes.clear();
    chunks.clear();
  }
  void append(std::span<const std::uint8_t> data, std::uint64_t frame) {
    if (data.empty()) return;
    chunks.emplace_back(bytes.size(), frame);
    bytes.insert(bytes.end(), data.begin(), data.end());
  }
};

}  // namespace

struct Analyzer::Impl {
  struct Connection;

  struct Side : StreamSink, FpduSink {
    Connection* connection = nullptr;
    int index = 0;
    Endpoint endpoint;
    TcpReassembler reassembler;
    Phase phase = Phase::Streaming;
    bool syn_seen = false;
    bool ended = false;
    std::optional<std::uint16_t> mss;
    // Streaming: key search across chunk boundaries.
    std::vector<std::uint8_t> tail;
    std::uint64_t streaming_bytes = 0;
    // Startup.
    std::optional<StartupFrameParser> parser;
    TcpSeq frame_seq;
    std::uint64_t frame_offset = 0;
    std::uint64_t frame_first_frame = 0;
    // Full operation.
    std::optional<FpduReader> reader;
    HeldBytes held;  // AwaitReply: early initiator bytes; Inferring/Probing: bytes under study
    FpduReaderConfig reader_config;
    bool unjudged = false;  // an error ended judgement before the reader existed
    std::size_t next_inference_at = 4096;  // held octets at the next inference attempt
    bool said_early = false;
    bool said_responder_first = false;
    bool said_mulpdu = false;
    bool said_alignment = false;
    bool first_fpdu_done = false;
    bool said_ddp_version = false;
    bool said_too_short = false;
    bool siw = false;                 // startup frame fingerprints as Linux siw
    std::uint8_t codes_seen = 0;      // RFC error codes found in this side's data (bit n)
    struct RecentFpdu {
      std::uint64_t frame = 0;
      TcpSeq seq;
      CrcStatus crc = CrcStatus::NotChecked;
      std::array<std::uint8_t, kDdpUntaggedHeaderSize> ddp{};
      std::size_t ddp_size = 0;
    };
    std::array<RecentFpdu, 32> recent{};  // ring of the last FPDUs, for Terminates to blame
    std::size_t recent_count = 0;
    DirectionSummary stats;

    explicit Side(ReassemblyOptions options) : reassembler(options) {}

    // StreamSink
    void on_stream_data(std::uint64_t offset, TcpSeq seq, std::span<const std::uint8_t> data,
                        std::uint64_t frame) override;
    void on_stream_gap(std::uint64_t offset, TcpSeq seq, std::uint64_t length, GapCause cause,
                       std::uint64_t frame) override;
    void on_stream_end(std::uint64_t offset, TcpSeq seq, StreamEnd how,
                       std::uint64_t frame) override;
    void on_retransmission_mismatch(std::uint64_t offset, TcpSeq seq, std::uint32_t length,
                                    std::uint64_t frame) override;
    // FpduSink
    void on_fpdu(const FpduEvent& fpdu) override;
    void on_finding(Finding&& finding) override;
  };

  struct Connection {
    Impl* impl = nullptr;
    std::uint32_t id = 0;
    ConnectionKey key;
    Side sides[2];
    int initiator = 0;  // side index of the Initiator
    bool is_mpa = false;
    bool request_done = false;
    bool reply_done = false;
    bool finished = false;
    bool said_not_seen = false;
    int reset_by = -1;  // side that sent an RST
    std::optional<std::pair<bool, bool>> rtr_offer;
    EnhancedBlock rtr_request, rtr_reply;
    bool p2p = false;
    ConnectionSummary summary;
    std::vector<std::pair<int, Finding>> pending;  // held until is_mpa
    std::list<Connection*>::iterator lru;

    explicit Connection(ReassemblyOptions options) : sides{Side(options), Side(options)} {}

    Direction direction_of(int side) const {
      return side == initiator ? Direction::Initiator : Direction::Responder;
    }
    Side& side_of(Direction d) { return sides[d == Direction::Initiator ? initiator : 1 - initiator]; }
  };

  AnalyzerOptions options;
  EventSink& sink;
  std::unordered_map<ConnectionKey, std::unique_ptr<Connection>, ConnectionKeyHash> table;
  std::list<Connection*> lru;  // most recently active first
  Connection* last_connection = nullptr;  // the most recent segment's connection
  std::uint32_t next_id = 0;
  std::uint64_t tcp_connections = 0;
  std::uint64_t mpa_connections = 0;
  std::uint64_t current_frame = 0;
  std::uint64_t current_ns = 0;
  // Rev 2 Requests the peer refused, by (initiator address, responder endpoint): the frame.
  std::map<std::pair<IpAddress, Endpoint>, std::uint64_t> refused_rev2;
  static std::pair<IpAddress, Endpoint> retry_key(const Endpoint& initiator, const Endpoint& responder) {
    return {initiator.address, responder};
  }

  Impl(AnalyzerOptions o, EventSink& s) : options(std::move(o)), sink(s) {}

  // ---- findings
  void emit(Connection& c, int side, DiagId id, std::uint64_t frame, TcpSeq seq,
            std::uint64_t offset, std::string message) {
    Finding f;
    f.id = id;
    f.connection = c.id;
    f.frame = frame;
    f.tcp_seq = seq;
    f.stream_offset = offset;
    f.message = std::move(message);
    deliver(c, side, std::move(f));
  }
  void deliver(Connection& c, int side, Finding&& f) {
    f.connection = c.id;
    if (!c.is_mpa) {
      if (c.pending.size() < kPendingFindingsLimit) c.pending.emplace_back(side, std::move(f));
      return;
    }
    f.direction = c.direction_of(side);
    if (info(f.id).error_code != 0 && f.id != DiagId::ConnectionClosed) {
      c.sides[side].codes_seen |= static_cast<std::uint8_t>(1u << info(f.id).error_code);
    }
    ++c.summary.findings[static_cast<int>(info(f.id).severity)];
    sink.on_finding(f);
  }
  void become_mpa(Connection& c) {
    if (c.is_mpa) return;
    c.is_mpa = true;
    ++mpa_connections;
    auto pending = std::move(c.pending);
    c.pending.clear();
    for (auto& [side, f] : pending) deliver(c, side, std::move(f));
  }

  // ---- connection table
  Connection& connection_for(const TcpSegment& seg, bool& is_new) {
    const ConnectionKey key = make_key(seg.source, seg.destination);
    const bool pure_syn = (seg.flags & tcp_flags::kSyn) && !(seg.flags & tcp_flags::kAck);
    // Segments come in bursts per connection: try the last one before hashing.
    if (last_connection && !pure_syn && last_connection->key == key) {
      is_new = false;
      if (last_connection->lru != lru.begin()) lru.splice(lru.begin(), lru, last_connection->lru);
      return *last_connection;
    }
    auto it = table.find(key);
    if (it != table.end() && pure_syn) {
      Connection& old = *it->second;
      Side& s = old.sides[old.sides[0].endpoint == seg.source ? 0 : 1];
      if (s.reassembler.started() && !(s.syn_seen && s.reassembler.next_offset() == 0)) {
        finish_connection(old, seg.frame);  // a new connection on the same ports
        it = table.find(key);
      }
    }
    if (it != table.end()) {
      is_new = false;
      Connection& c = *it->second;
      lru.splice(lru.begin(), lru, c.lru);
      last_connection = &c;
      return c;
    }
    is_new = true;
    if (table.size() >= options.max_connections && !lru.empty()) {
      finish_connection(*lru.back(), seg.frame);
    }
    auto c = std::make_unique<Connection>(options.reassembly);
    c->impl = this;
    c->id = next_id++;
    c->key = key;
    // Side 0 is the TCP client: the SYN sender, or (no SYN) the SYN-ACK's receiver, or the
    // first sender seen.
    const bool from_server = (seg.flags & tcp_flags::kSyn) && (seg.flags & tcp_flags::kAck);
    c->sides[0].endpoint = from_server ? seg.destination : seg.source;
    c->sides[1].endpoint = from_server ? seg.source : seg.destination;
    for (int i = 0; i < 2; ++i) {
      c->sides[i].connection = c.get();
      c->sides[i].index = i;
    }
    c->summary.id = c->id;
    c->summary.first_frame = seg.frame;
    ++tcp_connections;
    lru.push_front(c.get());
    c->lru = lru.begin();
    Connection& ref = *c;
    table.emplace(key, std::move(c));
    last_connection = &ref;
    return ref;
  }

  void on_segment(const TcpSegment& seg) {
    current_frame = seg.frame;
    current_ns = seg.timestamp_ns;
    if (seg.payload.empty() && seg.payload_missing == 0 &&
        !(seg.flags & (tcp_flags::kSyn | tcp_flags::kFin | tcp_flags::kRst))) {
      const ConnectionKey key = make_key(seg.source, seg.destination);
      if (!table.contains(key)) return;  // a pure ACK of a connection we do not follow
    }
    bool is_new = false;
    Connection& c = connection_for(seg, is_new);
    c.summary.last_frame = seg.frame;
    Side& side = c.sides[c.sides[0].endpoint == seg.source ? 0 : 1];
    if (seg.flags & tcp_flags::kSyn) {
      side.syn_seen = true;
      if (seg.mss) side.mss = seg.mss;
    }
    side.stats.bytes += seg.payload.size() + seg.payload_missing;
    side.reassembler.on_segment(seg, side);
    if (seg.flags & tcp_flags::kRst) {
      if (c.reset_by < 0) c.reset_by = side.index;
      // A reset ends both directions.
      Side& peer = c.sides[1 - side.index];
      if (!peer.ended) end_side(c, peer, seg.frame, StreamEnd::Rst);
    }
    if (c.sides[0].ended && c.sides[1].ended) finish_connection(c, seg.frame);
  }

  // ---- stream events
  void on_data(Connection& c, Side& s, std::uint64_t offset, TcpSeq seq,
               std::span<const std::uint8_t> data, std::uint64_t frame) {
    bool segment_start = true;
    while (!data.empty()) {
      std::size_t used = data.size();
      switch (s.phase) {
        case Phase::Streaming: used = scan_streaming(c, s, offset, seq, data, frame); break;
        case Phase::Startup: used = feed_startup(c, s, data, frame); break;
        case Phase::AwaitReply: {
          const std::size_t room = kEarlyBufferLimit - std::min(kEarlyBufferLimit, s.held.bytes.size());
          if (!s.said_early) {
            s.said_early = true;
            emit(c, s.index, DiagId::StartupInitiatorDataBeforeReply, frame, seq, offset,
                 fmt::format("Initiator sent {} octets at seq {} before the MPA Reply arrived",
                             data.size(), seq.value()));
          }
          s.held.append(data.first(std::min(room, data.size())), frame);
          break;
        }
        case Phase::FullOperation: feed_full_operation(c, s, seq, offset, data, frame, segment_start); break;
        case Phase::Probing:
          check_responder_first(c, s, seq, offset, data.size(), frame);
          s.held.append(data, frame);
          probe_markers(c, s, false);
          break;
        case Phase::Inferring: {
          s.held.append(data, frame);
          try_inference(c, s, frame, false);
          break;
        }
        case Phase::Ended: break;
      }
      data = data.subspan(used);
      offset += used;
      seq += static_cast<std::uint32_t>(used);
      segment_start = false;
    }
  }

  // Streaming mode: everything before a startup frame. Returns octets consumed.
  std::size_t scan_streaming(Connection& c, Side& s, std::uint64_t offset, TcpSeq seq,
                             std::span<const std::uint8_t> data, std::uint64_t frame) {
    const bool at_start = s.streaming_bytes == 0 && offset == 0;
    if (at_start) {
      const bool starts_with_key =
          data.size() >= kKeyPrefixSize && std::memcmp(data.data(), kRequestKey.data(), kKeyPrefixSize) == 0;
      if (!starts_with_key && data.size() >= kStartupKeySize && looks_like_damaged_key(data)) {
        start_frame(c, s, offset, seq, frame);  // a startup frame with a damaged key
        return 0;
      }
      // A capture that starts after the SYN: recognise MPA by its FPDUs, unless the
      // stream opens with a startup frame.
      const bool no_syn = !c.sides[0].syn_seen && !c.sides[1].syn_seen;
      if (!starts_with_key && !c.request_done && (no_syn || options.infer_with_syn)) {
        s.phase = Phase::Inferring;
        s.held.clear();
        s.held.seq = seq;
        s.held.offset = offset;
        return 0;
      }
    }
    // Look for "MPA ID Re" across the previous chunk's tail and this chunk.
    if (!s.tail.empty()) {
      std::vector<std::uint8_t> joined(s.tail);
      const std::size_t extra = std::min(data.size(), kKeyPrefixSize - 1);
      joined.insert(joined.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(extra));
      for (std::size_t i = 0; i < s.tail.size(); ++i) {
        if (i + kKeyPrefixSize <= joined.size() &&
            std::memcmp(&joined[i], kRequestKey.data(), kKeyPrefixSize) == 0) {
          // The key began in octets already consumed as streaming; rewind is not possible
          // through the reassembler, so parse it from the joined copy.
          const std::size_t back = s.tail.size() - i;
          s.streaming_bytes -= back;
          start_frame(c, s, offset - back, seq - static_cast<std::uint32_t>(back), frame);
          s.tail.clear();
          s.parser->push(std::span<const std::uint8_t>(&joined[i], back));
          return 0;
        }
      }
    }
    const void* hit = memmem(data.data(), data.size(), kRequestKey.data(), kKeyPrefixSize);
    if (hit != nullptr) {
      const std::size_t at = static_cast<const std::uint8_t*>(hit) - data.data();
      s.streaming_bytes += at;
      start_frame(c, s, offset + at, seq + static_cast<std::uint32_t>(at), frame);
      return at;
    }
    s.streaming_bytes += data.size();
    // Keep the stream's last octets (the previous tail too, when this chunk is short) so
    // that a key split over many small segments is still found.
    if (data.size() >= kKeyPrefixSize - 1) {
      s.tail.assign(data.end() - static_cast<std::ptrdiff_t>(kKeyPrefixSize - 1), data.end());
    } else {
      s.tail.insert(s.tail.end(), data.begin(), data.end());
      if (s.tail.size() > kKeyPrefixSize - 1) {
        s.tail.erase(s.tail.begin(), s.tail.end() - static_cast<std::ptrdiff_t>(kKeyPrefixSize - 1));
      }
    }
    return data.size();
  }

  void start_frame(Connection&, Side& s, std::uint64_t offset, TcpSeq seq, std::uint64_t frame) {
    s.phase = Phase::Startup;
    s.parser.emplace();
    s.frame_offset = offset;
    s.frame_seq = seq;
    s.frame_first_frame = frame;
  }

  std::size_t feed_startup(Connection& c, Side& s, std::span<const std::uint8_t> data,
                           std::uint64_t frame) {
    const std::size_t used = s.parser->push(data);
    if (s.parser->complete()) startup_complete(c, s, frame, used < data.size());
    return used;
  }

  bool has_rfc_code(const std::vector<StartupIssue>& issues, std::uint8_t code) {
    return std::any_of(issues.begin(), issues.end(),
                       [code](const StartupIssue& i) { return info(i.id).error_code == code; });
  }

  void end_mpa(Connection& c) {
    for (Side& s : c.sides) {
      if (s.phase != Phase::FullOperation) s.phase = Phase::Ended;
    }
  }

  void startup_complete(Connection& c, Side& s, std::uint64_t frame, bool trailing_in_segment) {
    const StartupFrame f = s.parser->frame();
    s.parser.reset();
    const bool request_due = !c.request_done;
    if (request_due && f.kind != FrameKind::Reply) c.initiator = s.index;  // roles follow the Request
    become_mpa(c);
    c.summary.startup_seen = true;
    if (s.streaming_bytes > 0) {
      emit(c, s.index, DiagId::StartupStreamingPrefix, s.frame_first_frame, s.frame_seq,
           s.frame_offset, fmt::format("{} streaming-mode octets precede the MPA {}",
                                       s.streaming_bytes, to_string(f.kind)));
    }
    const FrameKind expected = request_due ? FrameKind::Request : FrameKind::Reply;
    std::vector<StartupIssue> issues = check_startup_frame(f, expected);
    if (expected == FrameKind::Reply && c.summary.request && (f.kind == FrameKind::Reply || f.kind == FrameKind::Unknown)) {
      auto more = check_negotiation(*c.summary.request, f);
      issues.insert(issues.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    if (trailing_in_segment) {
      issues.push_back({DiagId::StartupPdLengthMismatch,
                        fmt::format("octets follow the MPA {} (PD_Length {}) in the same segment, "
                                    "before the peer could have answered it",
                                    to_string(f.kind == FrameKind::Unknown ? expected : f.kind),
                                    f.pd_length)});
    }
    for (StartupIssue& issue : issues) {
      // Linux siw's GSO experiment uses reserved bit 0x08: name it precisely.
      if (issue.id == DiagId::StartupReservedBitsSet && (f.flags & startup_flags::kRes) == 0x08) {
        issue.id = DiagId::StartupReservedBitSiwGso;
        issue.message = fmt::format("reserved flag bit 0x08 set in the MPA {} (flags 0x{:02x}): Linux "
                                    "siw's GSO experiment; FPDUs larger than the MSS are to be expected",
                                    to_string(f.kind == FrameKind::Unknown ? expected : f.kind), f.flags);
      }
    }
    if (auto guess = recognise_stack(f, expected == FrameKind::Reply && c.summary.request
                                            ? &*c.summary.request : nullptr)) {
      s.siw = guess->siw;
      s.stats.stack = guess->name;
      issues.push_back({DiagId::InteropStackFingerprint,
                        fmt::format("MPA {} looks like {}: {}", to_string(f.kind == FrameKind::Unknown ? expected : f.kind),
                                    guess->name, guess->why)});
    }
    const Direction dir = c.direction_of(s.index);
    sink.on_startup_frame(c.id, dir, f, frame, s.frame_seq);
    for (auto& issue : issues) {
      emit(c, s.index, issue.id, frame, s.frame_seq, s.frame_offset, std::move(issue.message));
    }
    const bool invalid = has_rfc_code(issues, 4);
    const TcpSeq after = s.frame_seq + static_cast<std::uint32_t>(f.wire_length());
    const std::uint64_t after_offset = s.frame_offset + f.wire_length();

    if (expected == FrameKind::Request) {
      if (f.kind == FrameKind::Reply || invalid) {
        c.summary.request = f;  // shown in the summary even when malformed
        end_mpa(c);
        return;
      }
      c.request_done = true;
      c.summary.request = f;
      c.summary.request_ns = current_ns;
      if (f.revision == 1) {
        auto refused = refused_rev2.find(retry_key(s.endpoint, c.sides[1 - s.index].endpoint));
        if (refused != refused_rev2.end()) {
          emit(c, s.index, DiagId::InteropRev2RetriedAsRev1, frame, s.frame_seq, s.frame_offset,
               fmt::format("Rev 1 Request after a Rev 2 Request to the same peer was refused (frame {}): "
                           "the Chelsio/Intel fallback", refused->second));
        }
      }
      s.phase = Phase::AwaitReply;
      s.held.clear();
      s.held.seq = after;
      s.held.offset = after_offset;
      Side& peer = c.sides[1 - s.index];
      if (peer.phase == Phase::Streaming || peer.phase == Phase::Inferring) {
        peer.tail.clear();
        peer.held.clear();
        start_frame(c, peer, peer.reassembler.next_offset(), peer.reassembler.next_seq(), frame);
      }
      return;
    }
    // The Reply (or what came in its place).
    c.reply_done = true;
    c.summary.reply = f;
    c.summary.reply_ns = current_ns;
    if (f.kind == FrameKind::Request || invalid || f.r()) {
      end_mpa(c);
      if (invalid && f.kind != FrameKind::Request && !f.r()) {
        // The Initiator may still answer with a Terminate (an FPDU): frame its octets with
        // the parameters the frames announce, judging nothing (RFC 5044 8).
        Side& init = c.sides[c.initiator];
        const StartupFrame& request = *c.summary.request;
        start_full_operation(c, init, init.held.seq, init.held.offset, f.m(), request.c() || f.c(),
                             false, std::nullopt, true);
        HeldBytes early = std::move(init.held);
        init.held.clear();
        replay(c, init, early);
      }
      return;
    }
    const StartupFrame& request = *c.summary.request;
    const bool crc = request.c() || f.c();
    if (request.enhanced && f.enhanced && request.enhanced->peer_to_peer && f.enhanced->peer_to_peer) {
      c.p2p = true;
      c.rtr_request = *request.enhanced;
      c.rtr_reply = *f.enhanced;
    }
    // Markers X->Y iff Y asked (RFC 5044 7.1.1): the Reply's M governs the Initiator's data.
    Side& init = c.sides[c.initiator];
    start_full_operation(c, init, init.held.seq, init.held.offset, f.m(), crc, false);
    start_full_operation(c, s, after, after_offset, request.m(), crc, false);
    // Errors of RFC 6581 (codes 6, 7) in the Reply end judgement of the Responder's side.
    if (has_rfc_code(issues, 6) || has_rfc_code(issues, 7)) {
      s.unjudged = true;  // the reader may not exist yet (Probing)
      if (s.reader) s.reader->stop_judging();
    }
    // Replay what the Initiator sent too early.
    HeldBytes early = std::move(init.held);
    init.held.clear();
    replay(c, init, early);
  }

  void start_full_operation(Connection& c, Side& s, TcpSeq seq, std::uint64_t offset,
                            bool markers, bool crc, bool inferred,
                            std::optional<TcpSeq> grid_origin = std::nullopt, bool unjudged = false) {
    FpduReaderConfig config;
    config.connection = c.id;
    config.direction = c.direction_of(s.index);
    config.start_seq = seq;
    config.start_offset = offset;
    config.markers = markers;
    config.crc = crc;
    config.keep_ulpdu = options.keep_ulpdu;
    if (grid_origin) {
      config.grid_origin = *grid_origin;
      config.grid_origin_set = true;
    }
    s.reader_config = config;
    if (!markers && !inferred && !unjudged) {
      // RFC 5044 7.1.1: M=0 means no markers. Hold the first octets to see whether the
      // sender inserts them anyway (marker.unexpected).
      s.phase = Phase::Probing;
      s.held.clear();
      s.held.seq = seq;
      s.held.offset = offset;
    } else {
      s.reader.emplace(config);
      s.phase = Phase::FullOperation;
      if (unjudged) s.reader->stop_judging();
    }
    s.stats.full_operation = true;
    s.stats.markers = markers;
    s.stats.crc = crc;
    s.stats.inferred = inferred;
  }

  void replay(Connection& c, Side& s, const HeldBytes& held, std::size_t from = 0) {
    for (std::size_t i = 0; i < held.chunks.size(); ++i) {
      const std::size_t begin = std::max(held.chunks[i].first, from);
      const std::size_t end = i + 1 < held.chunks.size() ? held.chunks[i + 1].first : held.bytes.size();
      if (begin >= end) continue;
      on_data(c, s, held.offset + begin, held.seq + static_cast<std::uint32_t>(begin),
              std::span<const std::uint8_t>(held.bytes).subspan(begin, end - begin),
              held.chunks[i].second);
    }
  }

  void check_responder_first(Connection& c, Side& s, TcpSeq seq, std::uint64_t offset,
                             std::size_t size, std::uint64_t frame) {
    if (c.direction_of(s.index) != Direction::Responder || c.sides[c.initiator].first_fpdu_done ||
        s.said_responder_first || !c.summary.startup_seen) {
      return;
    }
    // RFC 5044 7.1.2 rule 4: no FPDU or marker before one FPDU has been received.
    s.said_responder_first = true;
    emit(c, s.index, DiagId::FpduResponderSentFirst, frame, seq, offset,
         fmt::format("Responder sent {} octets of full operation at seq {} before the "
                     "Initiator's first FPDU was complete", size, seq.value()));
  }

  void feed_full_operation(Connection& c, Side& s, TcpSeq seq, std::uint64_t offset,
                           std::span<const std::uint8_t> data, std::uint64_t frame,
                           bool segment_start) {
    check_responder_first(c, s, seq, offset, data.size(), frame);
    if (segment_start) {
      ++s.stats.segments;
      if (!s.reader->in_fpdu() && s.reader->synchronised()) ++s.stats.segments_starting_fpdu;
    }
    s.reader->push(data, frame, segment_start, s);
  }

  // Full operation without negotiated markers: a stream that opens with a zero marker and
  // frames only with markers carries markers its receiver did not ask for.
  void probe_markers(Connection& c, Side& s, bool final) {
    const std::span<const std::uint8_t> bytes = s.held.bytes;
    bool unexpected = false;
    if (bytes.size() < kMarkerSize && !final) return;
    const bool zero_start = bytes.size() >= kMarkerSize &&
                            std::all_of(bytes.begin(), bytes.begin() + kMarkerSize,
                                        [](std::uint8_t b) { return b == 0; });
    if (zero_start) {
      // Frame the held octets both ways; the reading that frames further is the sender's.
      // (Without CRCs a zero marker also reads as an empty FPDU, so one FPDU decides
      // nothing: compare the chains.)
      bool with_end = false;
      bool without_end = false;
      const bool crc = s.reader_config.crc;
      const std::size_t with = count_valid_fpdus(bytes, s.held.seq, 0, MarkerGrid(s.held.seq), crc, SIZE_MAX, with_end);
      const std::size_t without = count_valid_fpdus(bytes, s.held.seq, 0, MarkerGrid(), crc, SIZE_MAX, without_end);
      // reached_end: the reading is still consistent (it only ran out of octets).
      if (with_end && without_end && !final && bytes.size() < kProbeLimit) return;
      if (with_end != without_end) {
        unexpected = with_end && with >= 1;
      } else {
        unexpected = with > without;
      }
    }
    FpduReaderConfig config = s.reader_config;
    if (unexpected) {
      config.markers = true;
      config.grid_origin = s.held.seq;
      config.grid_origin_set = true;
      s.stats.markers = true;
    }
    s.reader.emplace(config);
    if (s.unjudged) s.reader->stop_judging();
    s.phase = Phase::FullOperation;
    HeldBytes held = std::move(s.held);
    s.held.clear();
    if (unexpected) {
      emit(c, s.index, DiagId::MarkerUnexpected, held.chunks.empty() ? current_frame : held.chunks.front().second,
           held.seq, held.offset,
           fmt::format("{} sends markers (first at seq {}) although its peer's startup frame had M=0",
                       to_string(c.direction_of(s.index)), held.seq.value()));
      s.reader->stop_judging();
    }
    replay(c, s, held);
  }

  // ---- inference (no startup frames in the capture)
  struct Hypothesis {
    bool markers = false;
    bool crc = false;
    std::uint32_t phase = 0;  // grid origin = held.seq + phase
    std::size_t start = 0;
  };


  std::optional<Hypothesis> infer(std::span<const std::uint8_t> buffer, TcpSeq seq, bool final) {
    const std::size_t needed_fpdus = 3;
    std::vector<bool> crc_choices = options.crc ? std::vector<bool>{*options.crc} : std::vector<bool>{true, false};
    std::vector<bool> marker_choices = options.markers ? std::vector<bool>{*options.markers} : std::vector<bool>{true, false};
    for (bool crc : crc_choices) {
      for (bool markers : marker_choices) {
        const std::uint32_t phases = markers ? kMarkerInterval : 1;
        for (std::uint32_t phase = 0; phase < phases; ++phase) {
          const MarkerGrid grid = markers ? MarkerGrid(seq + phase) : MarkerGrid();
          const SearchResult r = find_fpdu_start(buffer, seq, grid, crc, 0, 4);
          if (r.kind != SearchResult::Kind::Found) continue;
          bool reached_end = false;
          const std::size_t valid = count_valid_fpdus(buffer, seq, r.start, grid, crc,
                                                      SIZE_MAX, reached_end);
          const bool enough = valid >= needed_fpdus || (final && valid >= 1 && reached_end);
          if (!enough) continue;
          if (!crc && !reached_end) continue;  // without CRCs, the whole window must frame
          // A ULPDU too short for a DDP header (all-zero data frames as empty FPDUs) or
          // without DDP versions is no evidence.
          if (!crc && !starts_like_ddp(buffer, seq, r.start, grid).value_or(false)) continue;
          return Hypothesis{markers, crc, phase, r.start};
        }
      }
    }
    return std::nullopt;
  }

  void try_inference(Connection& c, Side& s, std::uint64_t frame, bool final) {
    const std::size_t size = s.held.bytes.size();
    // Try at 4 KiB, then each time the held octets double (not at every segment: the
    // search is linear in the held octets), and at the window's end.
    if (!final && size < options.inference_window && size < s.next_inference_at) return;
    s.next_inference_at = std::max<std::size_t>(4096, size * 2);
    const auto h = infer(s.held.bytes, s.held.seq, final || size >= options.inference_window);
    if (!h) {
      if (final || size >= options.inference_window) {
        // Not recognisable as MPA: treat the octets as streaming mode (a startup frame may
        // still come).
        HeldBytes held = std::move(s.held);
        s.held.clear();
        s.phase = Phase::Streaming;
        s.streaming_bytes = 1;  // not at the start of the stream any more
        if (!final) replay(c, s, held);
      }
      return;
    }
    become_mpa(c);
    HeldBytes held = std::move(s.held);
    s.held.clear();
    const TcpSeq start = held.seq + static_cast<std::uint32_t>(h->start);
    if (!c.summary.startup_seen && !c.said_not_seen) {
      c.said_not_seen = true;
      emit(c, s.index, DiagId::CaptureStartupNotSeen, frame, start, held.offset + h->start,
           "the capture holds no MPA startup frames for this connection; startup rules could "
           "not be checked");
    }
    emit(c, s.index, DiagId::CaptureParametersInferred, frame, start, held.offset + h->start,
         fmt::format("{} from the data: markers {}, CRC {}; first FPDU at seq {}{}",
                     options.markers || options.crc ? "taken from options and checked"
                                                    : "inferred",
                     h->markers ? fmt::format("on (grid at seq {})", (held.seq + h->phase).value())
                                : std::string("off"),
                     h->crc ? "on" : "off", start.value(),
                     h->start > 0 ? fmt::format(" ({} octets before it not verified)", h->start)
                                  : std::string()));
    start_full_operation(c, s, start, held.offset + h->start, h->markers, h->crc, true,
                         held.seq + h->phase);
    replay(c, s, held, h->start);
  }

  void on_gap(Connection& c, Side& s, std::uint64_t offset, TcpSeq seq, std::uint64_t length,
              GapCause cause, std::uint64_t frame) {
    const bool truncated = cause == GapCause::Truncated;
    emit(c, s.index, truncated ? DiagId::CaptureTruncated : DiagId::CaptureGap, frame, seq, offset,
         fmt::format("{} octets at seq {} {}", length, seq.value(),
                     truncated ? "cut by the snapshot length"
                     : cause == GapCause::BufferLimit
                         ? "dropped: out-of-order data beyond the reassembly ceiling"
                         : "missing from the capture"));
    if (s.phase == Phase::Probing) probe_markers(c, s, true);
    if (!s.first_fpdu_done && (s.phase == Phase::FullOperation || s.phase == Phase::AwaitReply)) {
      // The first FPDU may be among the missing octets: the ordering rules that depend on it
      // (Responder waits for it, RFC 5044 7.1.2; it is the RTR, RFC 6581 5) cannot be checked.
      s.first_fpdu_done = true;
    }
    switch (s.phase) {
      case Phase::FullOperation: s.reader->on_gap(length, frame, s); break;
      case Phase::Startup:
      case Phase::AwaitReply:
        // The startup exchange cannot be followed any more on this side.
        s.phase = Phase::Ended;
        break;
      case Phase::Inferring:
        // Study only what follows the gap.
        s.held.clear();
        s.held.seq = seq + static_cast<std::uint32_t>(length);
        s.held.offset = offset + length;
        break;
      case Phase::Probing:  // decided above
      case Phase::Streaming:
        s.tail.clear();
        s.streaming_bytes += length;
        break;
      case Phase::Ended: break;
    }
  }

  void end_side(Connection& c, Side& s, std::uint64_t frame, StreamEnd how) {
    if (s.ended) return;
    s.ended = true;
    const char* what = how == StreamEnd::Fin ? "closed (FIN)" : "reset (RST)";
    if (s.phase == Phase::Probing) probe_markers(c, s, true);
    const TcpSeq seq = s.reassembler.next_seq();
    const std::uint64_t offset = s.reassembler.next_offset();
    switch (s.phase) {
      case Phase::FullOperation:
        if (!s.reader->synchronised()) break;
        if (s.reader->in_fpdu()) {
          if (s.reader->judging()) {
            emit(c, s.index, DiagId::ConnectionLostMidFpdu, frame, seq, offset,
                 fmt::format("connection {} at seq {} inside an FPDU ({} more octets were due)",
                             what, seq.value(), s.reader->bytes_needed()));
          }
        } else if (s.reader->judging()) {
          emit(c, s.index, DiagId::ConnectionClosed, frame, seq, offset,
               fmt::format("connection {} at seq {}, at an FPDU boundary", what, seq.value()));
        }
        break;
      case Phase::Startup:
        if (s.parser && s.parser->header_complete()) {
          // What the header alone shows is still reported (e.g. a PD_Length above 512).
          const FrameKind expected = c.request_done ? FrameKind::Reply : FrameKind::Request;
          for (StartupIssue& issue : check_startup_frame(s.parser->frame(), expected)) {
            if (info(issue.id).severity != Severity::Note) {
              emit(c, s.index, issue.id, frame, s.frame_seq, s.frame_offset, std::move(issue.message));
            }
          }
        }
        if (s.parser && s.parser->consumed() > 0) {
          emit(c, s.index, DiagId::ConnectionLostMidStartup, frame, seq, offset,
               fmt::format("connection {} at seq {} inside a startup frame ({} more octets were due)",
                           what, seq.value(), s.parser->bytes_needed()));
        }
        break;
      case Phase::Inferring: try_inference(c, s, frame, true); break;
      default: break;
    }
  }

  // DDP/RDMAP awareness (RFC 5040, 5041): statistics, versions, Terminates.
  void inspect_ulpdu(Connection& c, Side& s, const FpduEvent& fpdu) {
    std::size_t bucket = 0;
    while (bucket + 1 < kUlpduSizeBuckets && fpdu.ulpdu_length > kUlpduSizeBounds[bucket]) ++bucket;
    ++s.stats.ulpdu_sizes[bucket];
    Side::RecentFpdu& recent = s.recent[s.recent_count++ % s.recent.size()];
    recent.frame = fpdu.last_frame;
    recent.seq = fpdu.header_seq;
    recent.crc = fpdu.crc_status;
    recent.ddp_size = std::min(fpdu.ulpdu_head.size(), recent.ddp.size());
    std::copy_n(fpdu.ulpdu_head.begin(), recent.ddp_size, recent.ddp.begin());
    if (fpdu.ulpdu_length == 0) return;
    const auto header = decode_ddp(fpdu.ulpdu_head);
    if (!header) {
      if (fpdu.judged && !s.said_too_short) {
        s.said_too_short = true;
        emit(c, s.index, DiagId::DdpUlpduTooShort, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
             fmt::format("ULPDU of {} octets at seq {} cannot hold the {} DDP header it announces "
                         "(first of this direction)", fpdu.ulpdu_length, fpdu.header_seq.value(),
                         (fpdu.ulpdu_head[0] & 0x80) ? "14-octet tagged" : "18-octet untagged"));
      }
      return;
    }
    ++s.stats.rdmap_opcodes[header->opcode & 0x0F];
    // RFC 5044 Appendix C: DDP/RDMAP version 0 belongs to Rev 0 peers, version 1 to IETF ones.
    if (fpdu.judged && c.summary.request && !s.said_ddp_version) {
      const int expected = c.summary.request->revision == 0 ? 0 : 1;
      if (header->ddp_version != expected || header->rdmap_version != expected) {
        s.said_ddp_version = true;
        emit(c, s.index, DiagId::DdpVersionMismatch, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
             fmt::format("DDP version {}, RDMAP version {} in an MPA Rev {} connection (expected {})",
                         header->ddp_version, header->rdmap_version, c.summary.request->revision, expected));
      }
    }
    if (!header->tagged && header->opcode == static_cast<std::uint8_t>(RdmapOpcode::Terminate)) {
      on_terminate(c, s, fpdu);
    }
  }

  void on_terminate(Connection& c, Side& s, const FpduEvent& fpdu) {
    ++s.stats.terminates;
    const auto t = decode_terminate(fpdu.ulpdu_head, s.siw);
    if (!t) return;
    Side& peer = c.sides[1 - s.index];
    // The FPDU it blames: the one whose DDP header the Terminate quotes (RFC 5040 4.8, D bit).
    const Side::RecentFpdu* blamed = nullptr;
    if (!t->terminated_ddp_header.empty()) {
      const std::size_t n = std::min(peer.recent_count, peer.recent.size());
      for (std::size_t i = 0; i < n && !blamed; ++i) {
        const Side::RecentFpdu& r = peer.recent[(peer.recent_count - 1 - i) % peer.recent.size()];
        const std::size_t k = std::min(r.ddp_size, t->terminated_ddp_header.size());
        if (k >= 6 && std::equal(r.ddp.begin(), r.ddp.begin() + static_cast<std::ptrdiff_t>(k),
                                 t->terminated_ddp_header.begin())) {
          blamed = &r;
        }
      }
    }
    std::string blame = blamed ? fmt::format("; it quotes the FPDU at frame {} (seq {})", blamed->frame,
                                             blamed->seq.value())
                               : std::string();
    emit(c, s.index, DiagId::RdmapTerminate, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
         fmt::format("{} sent a Terminate: {}{}", to_string(c.direction_of(s.index)), describe(*t), blame));
    if (t->siw_layout) {
      emit(c, s.index, DiagId::RdmapTerminateEncoding, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
           fmt::format("Terminate Control octets {:02x} {:02x} {:02x}: Layer and EType nibbles swapped "
                       "(Linux siw's C bitfields); an RFC 5040 reader sees layer {}, error type {}",
                       fpdu.ulpdu_head[kDdpUntaggedHeaderSize], fpdu.ulpdu_head[kDdpUntaggedHeaderSize + 1],
                       fpdu.ulpdu_head[kDdpUntaggedHeaderSize + 2], t->etype, t->layer));
    }
    const auto code = t->mpa_error_code();
    if (!code) return;
    std::string disagreement;
    const bool peer_crc = peer.reader && peer.reader->crc_enabled();
    switch (*code) {
      case 2:
        if (blamed && blamed->crc == CrcStatus::Good) {
          disagreement = fmt::format("it claims a CRC error, but the FPDU it quotes (frame {}) has a correct CRC",
                                     blamed->frame);
        } else if (peer.reader && !peer_crc) {
          disagreement = "it claims a CRC error, but CRCs were not negotiated on this connection";
        } else if (!(peer.codes_seen & (1u << 2))) {
          disagreement = "it claims a CRC error, but every CRC mpa-check checked in the peer's data was right";
        }
        break;
      case 3:
        if (!(peer.codes_seen & (1u << 3))) {
          disagreement = peer.reader && !peer.reader->grid().enabled()
                             ? "it claims a marker error, but no markers were negotiated towards it"
                             : "it claims a marker/ULPDU_Length error that mpa-check did not see";
        }
        break;
      case 4:
        if (!(peer.codes_seen & (1u << 4))) {
          disagreement = "it claims an invalid Request/Reply, but the peer's startup frame was valid";
        }
        break;
      case 6:
        if (!(peer.codes_seen & (1u << 6))) {
          const auto& reply = c.summary.reply;
          const bool no_negotiation = reply && reply->enhanced &&
                                      (reply->enhanced->ord == kNoNegotiation || reply->enhanced->ird == kNoNegotiation);
          disagreement = no_negotiation
                             ? "it claims insufficient IRD, but the Reply's 0x3FFF means \"no IRD/ORD "
                               "negotiation\" (RFC 6581 9.1: the initiator leaves its IRD unchanged), not a depth"
                             : "it claims insufficient IRD, but the IRD/ORD exchange satisfied RFC 6581 9.1";
        }
        break;
      case 7:
        if (!(peer.codes_seen & (1u << 7))) {
          disagreement = "it claims no matching RTR option, but mpa-check found the RTR negotiation sound";
        }
        break;
      default: break;
    }
    if (!disagreement.empty()) {
      emit(c, s.index, DiagId::RdmapTerminateDisagrees, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
           fmt::format("Terminate MPA error {} ({}): {}", *code, mpa_error_name(*code), disagreement));
    }
  }

  // Hints that predict interop failures without being RFC violations.
  void interop_hints(Connection& c, std::uint64_t frame) {
    if (!c.summary.request || c.summary.request->revision != 2) return;
    const StartupFrame& request = *c.summary.request;
    const int responder = 1 - c.initiator;
    const bool refused = (c.summary.reply && c.summary.reply->r()) ||
                         (!c.summary.reply && c.reset_by == responder);
    if (!refused) return;
    Side& init = c.sides[c.initiator];
    refused_rev2[retry_key(init.endpoint, c.sides[responder].endpoint)] = frame;
    if (request.enhanced && !request.enhanced->peer_to_peer) {
      Side& resp = c.sides[responder];
      emit(c, responder, DiagId::InteropP2pRequired, frame, resp.reassembler.next_seq(),
           resp.reassembler.next_offset(),
           fmt::format("the Responder {} a Rev 2 Request with A=0 (client-server): Intel irdma "
                       "refuses such frames and requires peer-to-peer (A=1)",
                       c.summary.reply ? "rejected (R=1)" : "reset the connection after"));
    }
  }

  void finish_connection(Connection& c, std::uint64_t frame) {
    if (c.finished) return;
    c.finished = true;
    for (Side& s : c.sides) s.reassembler.finish(frame, s);
    for (Side& s : c.sides) {
      if (s.phase == Phase::Probing) probe_markers(c, s, true);
    }
    for (Side& s : c.sides) {
      if (s.phase == Phase::Inferring) try_inference(c, s, frame, true);
    }
    if (c.request_done && !c.reply_done) {
      Side& init = c.sides[c.initiator];
      emit(c, init.index, DiagId::StartupNoReply, frame, init.held.seq, init.held.offset,
           "MPA Request seen but no Reply by the end of the capture");
    }
    interop_hints(c, frame);
    if (c.is_mpa) {
      ConnectionSummary& sum = c.summary;
      const Side& init = c.sides[c.initiator];
      const Side& resp = c.sides[1 - c.initiator];
      sum.initiator = init.endpoint;
      sum.responder = resp.endpoint;
      for (int i = 0; i < 2; ++i) {
        const Side& s = c.sides[i];
        DirectionSummary d = s.stats;
        if (s.reader) {
          d.fpdus = s.reader->fpdus();
          d.ulpdu_bytes = s.reader->ulpdu_bytes();
          d.crc_failures = s.reader->crc_failures();
        }
        d.mss = s.mss;
        const Side& receiver = c.sides[1 - i];
        d.mulpdu = receiver.mss ? mulpdu(*receiver.mss, d.markers) : 0;
        sum.directions[static_cast<int>(c.direction_of(i))] = d;
      }
      sink.on_connection_end(sum);
    }
    lru.erase(c.lru);
    if (last_connection == &c) last_connection = nullptr;
    table.erase(c.key);  // destroys c
  }
};

// ---- Side callbacks

void Analyzer::Impl::Side::on_stream_data(std::uint64_t offset, TcpSeq seq,
                                          std::span<const std::uint8_t> data, std::uint64_t frame) {
  connection->impl->on_data(*connection, *this, offset, seq, data, frame);
}

void Analyzer::Impl::Side::on_stream_gap(std::uint64_t offset, TcpSeq seq, std::uint64_t length,
                                         GapCause cause, std::uint64_t frame) {
  connection->impl->on_gap(*connection, *this, offset, seq, length, cause, frame);
}

void Analyzer::Impl::Side::on_stream_end(std::uint64_t, TcpSeq, StreamEnd how, std::uint64_t frame) {
  connection->impl->end_side(*connection, *this, frame, how);
}

void Analyzer::Impl::Side::on_retransmission_mismatch(std::uint64_t offset, TcpSeq seq,
                                                      std::uint32_t length, std::uint64_t frame) {
  connection->impl->emit(*connection, index, DiagId::TcpRetransmissionMismatch, frame, seq, offset,
                         fmt::format("retransmitted octets at seq {} ({} octets) differ from those "
                                     "first sent", seq.value(), length));
}

void Analyzer::Impl::Side::on_finding(Finding&& finding) {
  connection->impl->deliver(*connection, index, std::move(finding));
}

void Analyzer::Impl::Side::on_fpdu(const FpduEvent& fpdu) {
  Connection& c = *connection;
  Impl& impl = *c.impl;
  const Direction dir = c.direction_of(index);
  if (fpdu.within_one_segment) ++stats.fpdus_in_one_segment;
  stats.max_ulpdu = std::max(stats.max_ulpdu, fpdu.ulpdu_length);
  if (c.summary.first_fpdu_ns == 0) c.summary.first_fpdu_ns = impl.current_ns;
  if (fpdu.judged) {
    if (fpdu.ulpdu_length == 0) {
      impl.emit(c, index, DiagId::FpduUlpduLengthZero, fpdu.last_frame, fpdu.header_seq,
                header_offset(fpdu), fmt::format("FPDU at seq {} has ULPDU_Length 0", fpdu.header_seq.value()));
    }
    // MULPDU from the MSS the receiver announced (RFC 5044 4.5).
    const Side& receiver = c.sides[1 - index];
    if (receiver.mss && !said_mulpdu) {
      const std::uint32_t limit = mulpdu(*receiver.mss, reader->grid().enabled());
      if (fpdu.ulpdu_length > limit) {
        said_mulpdu = true;
        impl.emit(c, index, DiagId::FpduExceedsMulpdu, fpdu.last_frame, fpdu.header_seq,
                  header_offset(fpdu),
                  fmt::format("ULPDU_Length {} exceeds the MULPDU {} that the peer's MSS {} allows "
                              "(first of this direction)", fpdu.ulpdu_length, limit, *receiver.mss));
      }
    }
    if (!said_alignment && !fpdu.within_one_segment &&
        (!receiver.mss || fpdu.wire_length <= *receiver.mss)) {
      said_alignment = true;
      impl.emit(c, index, DiagId::FpduNotSegmentAligned, fpdu.last_frame, fpdu.header_seq,
                header_offset(fpdu),
                fmt::format("FPDU at seq {} ({} octets on the wire) spans TCP segments "
                            "(first of this direction)", fpdu.header_seq.value(), fpdu.wire_length));
    }
    // RFC 6581 5: with peer-to-peer, the Initiator's first FPDU is the negotiated RTR.
    if (dir == Direction::Initiator && !first_fpdu_done && c.p2p) {
      const RtrKind kind = classify_rtr(fpdu.ulpdu_head, fpdu.ulpdu_length);
      const bool ok = (kind == RtrKind::Send && c.rtr_request.send_rtr && c.rtr_reply.send_rtr) ||
                      (kind == RtrKind::Write && c.rtr_request.write_rtr && c.rtr_reply.write_rtr) ||
                      (kind == RtrKind::Read && c.rtr_request.read_rtr && c.rtr_reply.read_rtr);
      if (!ok) {
        impl.emit(c, index, DiagId::FpduRtrMissing, fpdu.last_frame, fpdu.header_seq,
                  header_offset(fpdu),
                  fmt::format("peer-to-peer negotiated, but the Initiator's first FPDU (ULPDU_Length "
                              "{}) is {}", fpdu.ulpdu_length,
                              kind == RtrKind::None ? "not a zero-length RTR message"
                                                    : "an RTR of a type not negotiated"));
        reader->stop_judging();
      }
    }
  }
  impl.inspect_ulpdu(c, *this, fpdu);
  first_fpdu_done = true;
  impl.sink.on_fpdu(fpdu);
}

// ---- Analyzer

Analyzer::Analyzer(AnalyzerOptions options, EventSink& sink)
    : impl_(std::make_unique<Impl>(std::move(options), sink)) {}
Analyzer::~Analyzer() = default;

void Analyzer::on_segment(const TcpSegment& segment) { impl_->on_segment(segment); }

void Analyzer::on_ip_fragment(std::uint64_t frame, const std::string& detail) {
  Finding f;
  f.id = DiagId::CaptureIpFragment;
  f.connection = UINT32_MAX;
  f.frame = frame;
  f.message = detail;
  impl_->sink.on_finding(f);
}

void Analyzer::finish(std::uint64_t last_frame) {
  while (!impl_->lru.empty()) impl_->finish_connection(*impl_->lru.back(), last_frame);
}

std::uint64_t Analyzer::tcp_connections() const { return impl_->tcp_connections; }
std::uint64_t Analyzer::mpa_connections() const { return impl_->mpa_connections; }

}  // namespace mpa
