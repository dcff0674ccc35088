// Conversation planning and TCP rendering (see conversation.h).
#include "conversation.h"

#include <algorithm>
#include <array>
#include <optional>

#include "rng.h"

namespace mpa::synth {
namespace {

constexpr std::uint32_t kTurnGapUs = 300;

Chunk chunk_of(ChunkKind kind, Bytes bytes) {
  Chunk c;
  c.kind = kind;
  c.bytes = std::move(bytes);
  return c;
}

Turn turn_of(Dir dir, Phase phase, std::vector<Chunk> chunks) {
  Turn t;
  t.dir = dir;
  t.phase = phase;
  t.chunks = std::move(chunks);
  return t;
}

// Delayed startup (RFC 5044 7.1.3): a streaming "hello" each way before the Request.
Bytes streaming_text(std::string_view line, std::size_t length) {
  Bytes out;
  while (out.size() < length) append(out, line);
  out.resize(length);
  return out;
}

void add_streaming_prefix(Plan& plan, const Scenario& s) {
  if (s.streaming_prefix == 0) return;
  plan.turns.push_back(
      turn_of(Dir::Initiator, Phase::Streaming,
              {chunk_of(ChunkKind::Streaming,
                        streaming_text("HELLO switch to iWARP please\r\n", s.streaming_prefix))}));
  plan.turns.push_back(
      turn_of(Dir::Responder, Phase::Streaming,
              {chunk_of(ChunkKind::Streaming,
                        streaming_text("HELLO-ACK go ahead with MPA\r\n", s.streaming_prefix))}));
}

void add_startup(Plan& plan, const Scenario& s) {
  for (Dir d : {Dir::Initiator, Dir::Responder}) {
    const Bytes frame = build_startup_frame(s.peer(d).frame, s.seed + 17 + index_of(d));
    plan.turns.push_back(turn_of(d, Phase::Startup, {chunk_of(ChunkKind::StartupFrame, frame)}));
  }
}

// Turns alternate, Initiator first (a Responder sends no FPDU before it received one).
void add_full_operation(Plan& plan, const Scenario& s) {
  const std::vector<Chunk> fpdus[2] = {frame_fpdus(s, Dir::Initiator),
                                       frame_fpdus(s, Dir::Responder)};
  std::size_t next[2] = {0, 0};
  const std::size_t batch = std::max<std::size_t>(1, s.batch);
  while (next[0] < fpdus[0].size() || next[1] < fpdus[1].size()) {
    for (Dir d : {Dir::Initiator, Dir::Responder}) {
      const std::size_t i = index_of(d);
      const std::size_t n = std::min(batch, fpdus[i].size() - next[i]);
      if (n == 0) continue;
      const auto first = fpdus[i].begin() + static_cast<std::ptrdiff_t>(next[i]);
      Turn t = turn_of(d, Phase::FullOperation, {first, first + static_cast<std::ptrdiff_t>(n)});
      t.allow_oversize = s.allow_oversize;
      plan.turns.push_back(std::move(t));
      next[i] += n;
    }
  }
}

void add_close(Plan& plan, const Scenario& s) {
  if (s.close == Ending::None) return;
  Turn t = turn_of(s.closer, Phase::Close, {});
  t.ending = s.close;
  plan.turns.push_back(std::move(t));
}

SegmentationPolicy policy_for(const Turn& turn, const Scenario& s) {
  if (turn.policy) return *turn.policy;
  if (turn.phase == Phase::FullOperation || s.segmentation.ignores_boundaries())
    return s.segmentation;
  return SegmentationPolicy{};
}

void send_turn(TcpSession& tcp, const Turn& turn, const Scenario& s,
               std::optional<TcpSeq> stale_ack) {
  const bool super = s.super_segment > 0 && turn.phase == Phase::FullOperation;
  const std::size_t emss = super ? s.super_segment : tcp.mss(peer_of(turn.dir));
  const std::vector<Bytes> segments = segment_chunks(
      turn.chunks,
      super ? SegmentationPolicy{SegmentationPolicy::Kind::Packed} : policy_for(turn, s), emss,
      turn.allow_oversize);
  tcp.pause(turn.pause_us.value_or(kTurnGapUs));
  for (std::size_t i = 0; i < segments.size(); ++i) {
    tcp.send_data(turn.dir, segments[i], turn.phase, turn.crossed ? stale_ack : std::nullopt);
    if (i % 2 == 1 && turn.peer_acks) tcp.acknowledge(peer_of(turn.dir), turn.phase);
  }
}

void end_turn(TcpSession& tcp, const Turn& turn) {
  switch (turn.ending) {
    case Ending::Fin:
      tcp.close_gracefully(turn.dir);
      break;
    case Ending::Rst:
      tcp.reset(turn.dir);
      break;
    case Ending::None:
      if (turn.peer_acks) tcp.acknowledge(peer_of(turn.dir), turn.phase);
      break;
  }
}

}  // namespace

std::vector<Chunk> frame_fpdus(const Scenario& s, Dir from) {
  const bool markers = s.markers_from(from);
  const std::size_t max_ulpdu = mulpdu(s.peer(peer_of(from)).tcp.mss, markers);
  const std::uint8_t version =
      from == Dir::Initiator ? s.initiator_ddp_version.value_or(s.ddp_version()) : s.ddp_version();
  UlpduBuilder ulp(version, s.seed + 101 + index_of(from));
  FpduFramer framer(markers, s.crc_enabled(), 0,
                    from == Dir::Initiator ? s.initiator_quirks : s.responder_quirks);
  std::vector<Chunk> out;
  for (const MessageSpec& m : s.peer(from).messages) {
    ulp.skip_reads(m.skip_reads);
    std::vector<Bytes> ulpdus = m.terminate
                                    ? std::vector<Bytes>{ulp.terminate(*m.terminate)}
                                    : ulp.message(m.kind, m.size, max_ulpdu, m.unsplit, m.fill);
    if (m.edit_ulpdu) {
      for (std::size_t i = 0; i < ulpdus.size(); ++i) m.edit_ulpdu(i, ulpdus[i]);
    }
    for (std::size_t i = 0; i < ulpdus.size(); ++i) {
      out.push_back(framer.frame(ulpdus[i], i == 0 ? m.tweaks : FpduTweaks{}));
    }
  }
  return out;
}

Plan build_plan(const Scenario& s) {
  Plan plan;
  add_streaming_prefix(plan, s);
  add_startup(plan, s);
  add_full_operation(plan, s);
  add_close(plan, s);
  if (s.edit_plan) s.edit_plan(plan);
  return plan;
}

std::vector<TcpPacket> run_plan(const Plan& plan, const Scenario& s) {
  TcpSession tcp(s.initiator.tcp, s.responder.tcp);
  tcp.handshake();
  // Where each side stood when its latest turn began (what a crossed turn acknowledges).
  std::array<TcpSeq, 2> turn_start = {tcp.next_seq(Dir::Initiator), tcp.next_seq(Dir::Responder)};
  for (const Turn& turn : plan.turns) {
    const TcpSeq stale = turn_start[index_of(peer_of(turn.dir))];
    turn_start[index_of(turn.dir)] = tcp.next_seq(turn.dir);
    send_turn(tcp, turn, s, stale);
    end_turn(tcp, turn);
    if (turn.ending != Ending::None) break;
  }
  return tcp.take_packets();
}

std::size_t find_turn(const Plan& plan, Dir dir, Phase phase) {
  for (std::size_t i = 0; i < plan.turns.size(); ++i) {
    if (plan.turns[i].dir == dir && plan.turns[i].phase == phase) return i;
  }
  return plan.turns.size();
}

void close_instead_from(Plan& plan, std::size_t first, Dir closer, Ending how,
                        std::optional<std::uint32_t> pause_us) {
  plan.turns.resize(std::min(first, plan.turns.size()));
  Turn t = turn_of(closer, Phase::Close, {});
  t.ending = how;
  t.pause_us = pause_us;
  plan.turns.push_back(std::move(t));
}

}  // namespace mpa::synth
