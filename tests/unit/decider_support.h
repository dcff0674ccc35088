// Inputs for the deciders' unit tests: startup frames parsed from octets built from the RFC
// text (test_streams.h), FPDU events as the reader would report them.
#pragma once

#include <string>
#include <vector>

#include "mpa/events.h"
#include "mpa/startup_frame.h"
#include "test_streams.h"

namespace mpa::test {

inline StartupFrame parse(const FrameSpec& spec) {
  StartupFrameParser parser;
  const Bytes bytes = startup_frame(spec);
  parser.push(bytes);
  return parser.frame();
}

// Rev 2 frames with the IRD/ORD block (RFC 6581 9).
inline StartupFrame rev2(std::string_view key, std::uint8_t flags, bool a, std::uint16_t ird,
                         std::uint16_t ord, bool b = false, bool c = false, bool d = false) {
  return parse({key, static_cast<std::uint8_t>(flags | startup_flags::kS), 2,
                enhanced_block(a, b, ird, c, d, ord)});
}

inline std::vector<std::string> names(const std::vector<StartupIssue>& issues) {
  std::vector<std::string> out;
  for (const StartupIssue& i : issues) out.emplace_back(info(i.id).name);
  return out;
}
inline std::vector<std::string> names(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) out.emplace_back(info(f.id).name);
  return out;
}

// An FPDU event carrying `ulpdu` (its first octets as ulpdu_head).
struct TestFpdu {
  Bytes ulpdu;
  FpduEvent event;
  explicit TestFpdu(Bytes u, std::uint32_t seq = 1000) : ulpdu(std::move(u)) {
    event.header_seq = TcpSeq(seq);
    event.start_seq = TcpSeq(seq);
    event.start_offset = 100;
    event.ulpdu_length = static_cast<std::uint16_t>(ulpdu.size());
    event.ulpdu_size = static_cast<std::uint32_t>(ulpdu.size());
    event.wire_length =
        static_cast<std::uint32_t>(2 + ulpdu.size() + (4 - (2 + ulpdu.size()) % 4) % 4 + 4);
    event.last_frame = 7;
    event.within_one_segment = true;
    event.ulpdu_head =
        std::span<const std::uint8_t>(ulpdu).first(std::min<std::size_t>(ulpdu.size(), 64));
  }
};

// An untagged DDP segment (RFC 5041 4.3) carrying RDMAP `opcode` (RFC 5040 4.1), version 1,
// and `payload` octets of 0xab.
inline Bytes untagged(std::uint8_t opcode, std::uint32_t qn, std::uint32_t msn, std::uint32_t mo,
                      bool last = true, std::size_t payload = 8) {
  Bytes u = {static_cast<std::uint8_t>(last ? 0x41 : 0x01),
             static_cast<std::uint8_t>(0x40 | opcode),
             0,
             0,
             0,
             0};
  put_be32(u, qn);
  put_be32(u, msn);
  put_be32(u, mo);
  u.resize(u.size() + payload, 0xab);
  return u;
}
// A tagged DDP segment (RFC 5041 4.2) carrying RDMAP `opcode` (RDMA Write 0x0, Read Response
// 0x2), version 1, and `payload` octets of 0xcd.
inline Bytes tagged(std::uint8_t opcode, std::uint32_t stag, std::uint64_t to, bool last,
                    std::size_t payload = 8) {
  Bytes u = {static_cast<std::uint8_t>(last ? 0xc1 : 0x81),
             static_cast<std::uint8_t>(0x40 | opcode)};
  put_be32(u, stag);
  put_be32(u, static_cast<std::uint32_t>(to >> 32));
  put_be32(u, static_cast<std::uint32_t>(to));
  u.resize(u.size() + payload, 0xcd);
  return u;
}

}  // namespace mpa::test
