// IP fragmentation of a frame (see fragmentation.h).
#include "fragmentation.h"

#include <algorithm>
#include <stdexcept>

#include "frame_builder.h"

namespace mpa::synth {
namespace {

constexpr std::uint16_t kIpv4 = 0x0800;
constexpr std::uint16_t kIpv6 = 0x86dd;
constexpr std::size_t kIpv6Header = 40;
constexpr std::uint8_t kFragmentHeader = 44;  // RFC 8200 4.5

struct Piece {
  std::size_t offset;
  Bytes frame;
};

// The octets of the IP payload each fragment carries.
std::size_t piece_size(const IpFragmentation& f, std::size_t payload) {
  if (f.size == 0) return std::max<std::size_t>(8, ((payload + 1) / 2 + 7) & ~std::size_t{7});
  return std::max<std::size_t>(8, f.size & ~std::size_t{7});
}

std::vector<Piece> ipv4_pieces(const Bytes& frame, std::size_t ip, const IpFragmentation& f,
                               std::uint32_t id) {
  const std::size_t header = std::size_t{frame[ip] & 0x0fu} * 4;
  const std::size_t total = std::size_t{frame[ip + 2]} << 8 | frame[ip + 3];
  if (header < 20 || total < header || ip + total > frame.size()) {
    throw std::invalid_argument("fragment_frame: inconsistent IPv4 header");
  }
  const std::size_t payload = total - header;
  const std::size_t size = piece_size(f, payload);
  std::vector<Piece> out;
  if (payload <= size) return out;
  for (std::size_t at = 0; at < payload; at += size) {
    const std::size_t n = std::min(size, payload - at);
    const bool more = at + n < payload;
    Bytes piece(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(ip + header));
    set_be16(piece, ip + 2, static_cast<std::uint16_t>(header + n));
    set_be16(piece, ip + 4, static_cast<std::uint16_t>(id));
    set_be16(piece, ip + 6, static_cast<std::uint16_t>((more ? 0x2000 : 0) | at / 8));  // no DF
    set_be16(piece, ip + 10, 0);
    set_be16(piece, ip + 10,
             internet_checksum(std::span<const std::uint8_t>(piece).subspan(ip, header)));
    const auto from = frame.begin() + static_cast<std::ptrdiff_t>(ip + header + at);
    piece.insert(piece.end(), from, from + static_cast<std::ptrdiff_t>(n));
    out.push_back({at, std::move(piece)});
  }
  return out;
}

// The whole IPv6 header is the unfragmentable part (the packets here carry no extension
// headers); the Fragment header goes after it, naming what the payload starts with.
std::vector<Piece> ipv6_pieces(const Bytes& frame, std::size_t ip, const IpFragmentation& f,
                               std::uint32_t id) {
  const std::size_t payload = std::size_t{frame[ip + 4]} << 8 | frame[ip + 5];
  if (ip + kIpv6Header + payload > frame.size()) {
    throw std::invalid_argument("fragment_frame: inconsistent IPv6 header");
  }
  const std::uint8_t next = frame[ip + 6];
  const std::size_t size = piece_size(f, payload);
  std::vector<Piece> out;
  if (payload <= size) return out;
  for (std::size_t at = 0; at < payload; at += size) {
    const std::size_t n = std::min(size, payload - at);
    const bool more = at + n < payload;
    Bytes piece(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(ip + kIpv6Header));
    set_be16(piece, ip + 4, static_cast<std::uint16_t>(8 + n));
    piece[ip + 6] = kFragmentHeader;
    put_u8(piece, next);
    put_u8(piece, 0);
    put_be16(piece, static_cast<std::uint16_t>(at | (more ? 1 : 0)));
    put_be32(piece, id);
    const auto from = frame.begin() + static_cast<std::ptrdiff_t>(ip + kIpv6Header + at);
    piece.insert(piece.end(), from, from + static_cast<std::ptrdiff_t>(n));
    out.push_back({at, std::move(piece)});
  }
  return out;
}

}  // namespace

std::vector<Bytes> fragment_frame(const Bytes& frame, const IpFragmentation& f, std::uint32_t id) {
  std::size_t ip = 12;
  if (frame.size() < ip + 2) return {frame};
  std::uint16_t type = static_cast<std::uint16_t>(frame[ip] << 8 | frame[ip + 1]);
  while ((type == 0x8100 || type == 0x88a8 || type == 0x9100) && frame.size() >= ip + 6) {
    ip += 4;
    type = static_cast<std::uint16_t>(frame[ip] << 8 | frame[ip + 1]);
  }
  ip += 2;
  std::vector<Piece> pieces;
  if (type == kIpv4 && frame.size() >= ip + 20) pieces = ipv4_pieces(frame, ip, f, id);
  if (type == kIpv6 && frame.size() >= ip + kIpv6Header) pieces = ipv6_pieces(frame, ip, f, id);
  if (pieces.empty()) return {frame};

  Bytes changed_copy = pieces.front().frame;
  changed_copy.back() ^= 0x5A;
  if (f.lose_last) pieces.pop_back();
  if (f.order == FragmentOrder::Reversed) std::reverse(pieces.begin(), pieces.end());
  std::vector<Bytes> out;
  for (Piece& p : pieces) {
    const bool first = p.offset == 0;
    out.push_back(std::move(p.frame));
    if (first && f.overlap_mismatch) {
      if (f.order != FragmentOrder::InOrder) {
        throw std::invalid_argument("fragment_frame: an overlapping copy needs fragments in order");
      }
      out.push_back(changed_copy);
    }
  }
  return out;
}

}  // namespace mpa::synth
