// RFC 5044 Figures 5 and 6 inside real connections (see rfc_figures.h).
#include "rfc_figures.h"

#include <algorithm>
#include <stdexcept>

#include "generator.h"

namespace mpa::synth {
namespace {

constexpr std::size_t kFigure6Offset = 0x1ec;

MessageSpec zero_send(std::size_t size) {
  MessageSpec m;
  m.kind = MessageKind::Send;
  m.size = size;
  m.fill = PayloadFill::Zero;
  return m;
}

Scenario figure_connection(const std::string& name, std::vector<MessageSpec> first_messages) {
  Scenario s = base_scenario(name);
  s.initiator.frame.m = false;
  s.initiator.frame.c = true;
  s.responder.frame.m = true;  // markers Initiator -> Responder
  s.responder.frame.c = true;
  s.initiator.messages = std::move(first_messages);
  const std::vector<MessageSpec> more = mixed_messages(4, {300, 7, 1000});
  s.initiator.messages.insert(s.initiator.messages.end(), more.begin(), more.end());
  s.responder.messages = mixed_messages(4, {120, 33, 900});
  s.batch = 2;
  return s;
}

// The Initiator's full-operation octets as sent (no capture effects in these scenarios).
Bytes initiator_stream(const std::vector<TcpPacket>& packets) {
  Bytes out;
  for (const TcpPacket& p : packets) {
    if (p.dir == Dir::Initiator && p.phase == Phase::FullOperation) append(out, p.payload);
  }
  return out;
}

void expect_at(const Bytes& stream, std::size_t offset, const Bytes& figure, const char* what) {
  if (stream.size() < offset + figure.size() ||
      !std::equal(figure.begin(), figure.end(),
                  stream.begin() + static_cast<std::ptrdiff_t>(offset))) {
    throw std::logic_error(std::string("generated stream does not reproduce ") + what);
  }
}

void put_untagged_send_header(Bytes& out, std::uint32_t msn) {
  put_u8(out, 0x41);  // DDP: untagged, Last, version 1
  put_u8(out, 0x43);  // RDMAP: version 1, Send
  put_be32(out, 0);   // reserved (no STag)
  put_be32(out, 0);   // queue 0
  put_be32(out, msn);
  put_be32(out, 0);  // MO
}

}  // namespace

Bytes rfc5044_figure5() {
  Bytes out = {0x00, 0x00, 0x00, 0x00, 0x00, 0x2a};
  put_untagged_send_header(out, 1);
  out.resize(out.size() + 24, 0);
  append(out, Bytes{0x52, 0x23, 0x99, 0x83});
  return out;
}

Bytes rfc5044_figure6() {
  Bytes out = {0x00, 0x2a};
  put_untagged_send_header(out, 2);
  append(out, Bytes{0x00, 0x00, 0x00, 0x14});  // marker at 0x200: FPDUPTR 0x14
  out.resize(out.size() + 24, 0);
  append(out, Bytes{0x84, 0x92, 0x58, 0x98});
  return out;
}

std::vector<Scenario> rfc_figure_scenarios() {
  // 492 = marker 4 + ULPDU_Length 2 + (18 + 464) + CRC 4.
  std::vector<Scenario> out = {
      figure_connection("rfc5044-figure5", {zero_send(24)}),
      figure_connection("rfc5044-figure6", {zero_send(464), zero_send(24)})};
  out[0].summary = "Initiator's first FPDU is RFC 5044 Figure 5";
  out[1].summary = "Initiator's first FPDU is 492 octets, its second RFC 5044 Figure 6";
  out[1].start_time_us = out[0].start_time_us + 1000000;
  return out;
}

std::vector<CapturedFrame> rfc_figures_frames() {
  const std::vector<Scenario> scenarios = rfc_figure_scenarios();
  expect_at(initiator_stream(generate_packets(scenarios[0])), 0, rfc5044_figure5(),
            "RFC 5044 Figure 5");
  expect_at(initiator_stream(generate_packets(scenarios[1])), kFigure6Offset, rfc5044_figure6(),
            "RFC 5044 Figure 6");
  std::vector<CapturedFrame> frames = generate_frames(scenarios[0]);
  const std::vector<CapturedFrame> second = generate_frames(scenarios[1]);
  frames.insert(frames.end(), second.begin(), second.end());
  return frames;
}

}  // namespace mpa::synth
