// Scenario building blocks (see scenario.h).
#include "scenario.h"

#include <algorithm>

#include "rng.h"

namespace mpa::synth {

bool Scenario::markers_from(Dir d) const {
  if (d == Dir::Initiator) return markers_to_responder.value_or(responder.frame.m);
  return markers_to_initiator.value_or(initiator.frame.m);
}

std::vector<MessageSpec> mixed_messages(std::size_t count, const std::vector<std::size_t>& sizes) {
  std::vector<MessageSpec> out;
  for (std::size_t i = 0; i < count; ++i) {
    MessageSpec m;
    m.kind = i % 3 == 1 ? MessageKind::Write : MessageKind::Send;
    m.size = sizes.empty() ? 64 : sizes[i % sizes.size()];
    out.push_back(m);
  }
  return out;
}

Scenario base_scenario(const std::string& name) {
  Scenario s;
  s.name = name;
  s.seed = seed_from_name(name);
  s.initiator.frame.kind = FrameKind::Request;
  s.responder.frame.kind = FrameKind::Reply;
  s.initiator.messages = mixed_messages(8, kDefaultSizes);
  std::vector<std::size_t> reply_sizes(kDefaultSizes.begin() + 3, kDefaultSizes.end());
  reply_sizes.insert(reply_sizes.end(), kDefaultSizes.begin(), kDefaultSizes.begin() + 3);
  s.responder.messages = mixed_messages(8, reply_sizes);
  return s;
}

void set_ird_ord(Scenario& s, std::uint16_t request_ird, std::uint16_t request_ord,
                 std::uint16_t reply_ird, std::uint16_t reply_ord) {
  for (PeerConfig* p : {&s.initiator, &s.responder}) {
    p->frame.s = true;
    if (!p->frame.enhanced) p->frame.enhanced = EnhancedBlock{};
    p->frame.private_data_length = std::max<std::uint16_t>(p->frame.private_data_length, 4);
  }
  s.initiator.frame.enhanced->ird = request_ird;
  s.initiator.frame.enhanced->ord = request_ord;
  s.responder.frame.enhanced->ird = reply_ird;
  s.responder.frame.enhanced->ord = reply_ord;
}

void set_revision(Scenario& s, std::uint8_t revision) {
  for (PeerConfig* p : {&s.initiator, &s.responder}) {
    p->frame.revision = revision;
    p->frame.s = false;
    p->frame.enhanced.reset();
    p->frame.vendor_extension.reset();
  }
  if (revision == 0) {
    for (PeerConfig* p : {&s.initiator, &s.responder}) p->frame.m = p->frame.c = true;
  } else if (revision == 2) {
    set_ird_ord(s, 16, 16, 16, 16);
  } else if (revision == 129) {
    for (PeerConfig* p : {&s.initiator, &s.responder}) {
      p->frame.m = p->frame.c = false;
      p->frame.vendor_extension = erdma_extension();
    }
  }
}

void make_peer_to_peer(Scenario& s, MessageKind rtr) {
  if (!s.initiator.frame.enhanced) set_ird_ord(s, 16, 16, 16, 16);
  EnhancedBlock& offer = *s.initiator.frame.enhanced;
  offer.peer_to_peer = offer.send_rtr = offer.write_rtr = offer.read_rtr = true;
  EnhancedBlock& accept = *s.responder.frame.enhanced;
  accept.peer_to_peer = true;
  accept.send_rtr = rtr == MessageKind::SendRtr;
  accept.write_rtr = rtr == MessageKind::WriteRtr;
  accept.read_rtr = rtr == MessageKind::ReadRtr;
  MessageSpec first;
  first.kind = rtr;
  s.initiator.messages.insert(s.initiator.messages.begin(), first);
  if (rtr == MessageKind::ReadRtr) {
    MessageSpec answer;
    answer.kind = MessageKind::ReadResponseEmpty;
    s.responder.messages.insert(s.responder.messages.begin(), answer);
  }
}

void set_private_data(Scenario& s, std::uint16_t request, std::uint16_t reply) {
  auto total = [](const PeerConfig& p, std::uint16_t n) {
    return p.frame.enhanced ? std::max<std::uint16_t>(n, 4) : n;
  };
  s.initiator.frame.private_data_length = total(s.initiator, request);
  s.responder.frame.private_data_length = total(s.responder, reply);
}

}  // namespace mpa::synth
