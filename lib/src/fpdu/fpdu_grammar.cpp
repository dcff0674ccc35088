// The FPDU grammar (RFC 5044 4.1-4.4). See fpdu_grammar.h.
#include "fpdu/fpdu_grammar.h"

#include <algorithm>
#include <cstring>

#include "decode/byte_order.h"
#include "mpa/crc32c.h"
#include "mpa/fpdu_layout.h"

namespace mpa {

FpduGrammar::FpduGrammar(TcpSeq start, std::uint64_t offset, MarkerGrid grid, bool crc,
                         bool keep_ulpdu, std::uint32_t connection, Direction direction)
    : grid_(grid), pos_(start), offset_(offset) {
  crc_.checked = crc;
  ulpdu_.keep = keep_ulpdu;
  current_.connection = connection;
  current_.direction = direction;
}

std::uint32_t FpduGrammar::bytes_needed() const {
  if (state_ == State::Header) {
    // The rest of ULPDU_Length, the rest of a marker being read, and the markers in between.
    const std::uint32_t header_left = kUlpduLengthSize - header_.got;
    if (marker_.got > 0) {
      const std::uint32_t marker_left = kMarkerSize - marker_.got;
      return header_left + marker_left +
             kMarkerSize * grid_.markers_within(pos_ + marker_left, header_left);
    }
    return header_left + kMarkerSize * grid_.markers_within(pos_, header_left);
  }
  const std::uint32_t wire =
      fpdu_wire_length(grid_, current_.start_seq, framing_, current_.ulpdu_length);
  return wire - static_cast<std::uint32_t>(offset_ - current_.start_offset);
}

bool FpduGrammar::give_crc(std::span<const std::uint8_t> data, std::uint32_t state) {
  given_.armed = false;
  if (seen_any_octet_ || !framing_.crc_field || !(crc_.checked || crc_.unchecked_due)) return false;
  // ULPDU_Length follows a leading marker, or comes first; one split by a marker: not here.
  const std::uint32_t to_marker = grid_.distance_to_marker(pos_);
  if (to_marker != 0 && to_marker < kUlpduLengthSize) return false;
  const std::size_t header = to_marker == 0 ? kMarkerSize : 0;
  if (data.size() < header + kUlpduLengthSize + kCrcSize) return false;
  const std::uint32_t wire = fpdu_wire_length(grid_, pos_, framing_, load_be16(&data[header]));
  if (wire != data.size()) return false;
  // The CRC field is the last four octets, whole: no marker begins within seven of the end.
  constexpr std::uint32_t kNear = kMarkerSize + kCrcSize - 1;
  if (grid_.distance_to_marker(pos_ + (wire - kNear)) < kNear) return false;
  given_.armed = true;
  given_.state = state;
  given_.first = data.data();
  return true;
}

std::optional<std::pair<std::uint32_t, TcpSeq>> FpduGrammar::crc_so_far() const {
  if (!header_read() || !crc_.computed || given_.in_progress || marker_.got > 0 ||
      crc_.run != nullptr) {
    return std::nullopt;
  }
  if (state_ != State::Crc) return std::pair{crc_.state, pos_};
  // (In the CRC field: the CRC runs up to its first octet, when no marker came since.)
  const std::uint32_t got = (framing_.crc_field ? kCrcSize : 0) - remaining_;
  if (grid_.enabled() && grid_.distance_to_marker(pos_ - got) < got) return std::nullopt;
  return std::pair{crc_.state, pos_ - got};
}

bool FpduGrammar::may_be_one_fpdu(std::span<const std::uint8_t> data) {
  // give_crc takes it where data.size() = content + kMarkerSize * markers, content being
  // ULPDU_Length + 6 - length_bias + pad (0-3, bias within an int8), markers those within
  // data (at most one each kMarkerInterval, and one more).
  const auto n = static_cast<std::int64_t>(data.size());
  const std::int64_t most_markers = n / kMarkerInterval + 1;
  constexpr std::int64_t kBias = 128;
  for (const std::size_t header : {std::size_t{0}, std::size_t{kMarkerSize}}) {
    if (data.size() < header + kUlpduLengthSize + kCrcSize) continue;
    const std::int64_t content = kUlpduLengthSize + load_be16(&data[header]) + kCrcSize;
    if (content - kBias <= n && content + 3 + kBias >= n - kMarkerSize * most_markers) return true;
  }
  return false;
}

void FpduGrammar::marker_states_from_given() {
  std::uint32_t state = kCrc32cInit;
  const std::uint8_t* from = given_.first;
  for (MarkerFact& m : marker_.facts) {
    const std::uint8_t* at = given_.first + m.seq.distance_from(current_.start_seq);
    state = crc32c_update(state, {from, at});
    m.crc_before = state;
    from = at;
  }
}

void FpduGrammar::begin(std::uint64_t frame, bool segment_start, bool judged) {
  seen_any_octet_ = true;
  current_.judged = judged;
  current_.start_seq = pos_;
  current_.start_offset = offset_;
  current_.header_seq = pos_;
  current_.leading_marker = false;
  current_.first_frame = frame;
  current_.starts_segment = segment_start;
  current_.within_one_segment = true;
  marker_.facts.clear();
  crc_.computed = crc_.checked || crc_.unchecked_due;
  given_.in_progress = given_.armed && crc_.computed;  // (give_crc: computed elsewhere)
  given_.armed = false;
  if (given_.in_progress) crc_.computed = false;
  crc_.state = kCrc32cInit;
  pad_nonzero_ = false;
  current_.pad = {};
  ulpdu_.head_size = 0;
  ulpdu_.got = 0;
  ulpdu_.whole.clear();
}

void FpduGrammar::complete(std::uint64_t frame) {
  current_.last_frame = frame;
  current_.ulpdu_size = ulpdu_.size;
  current_.crc_field = framing_.crc_field;
  current_.crc_received = framing_.crc_field ? crc_from_wire(crc_field_.data()) : 0;
  current_.wire_length = static_cast<std::uint32_t>(offset_ - current_.start_offset);
  if (given_.in_progress) {
    crc_.state = given_.state;
    crc_.computed = true;  // (computed, if not here)
    if (crc32c_finish(crc_.state) != current_.crc_received) marker_states_from_given();
  }
  // (A sender without a CRC field, CRCs negotiated or not: nothing to check.)
  if (crc_.checked && framing_.crc_field) {
    current_.crc_computed = crc32c_finish(crc_.state);
    current_.crc_status =
        current_.crc_computed == current_.crc_received ? CrcStatus::Good : CrcStatus::Bad;
  } else {
    current_.crc_computed = 0;
    current_.crc_status = CrcStatus::NotChecked;
  }
  current_.crc_unchecked.reset();
  if (!crc_.checked && crc_.computed) {
    // CRCs off: computed for the first FPDU, and for the next as long as each CRC field held
    // its CRC32c (a sender that writes them anyway): up to the first that does not.
    current_.crc_unchecked = crc32c_finish(crc_.state);
    crc_.unchecked_due = framing_.crc_field && current_.crc_received == *current_.crc_unchecked;
  }
  crc_.computed = crc_.checked;
  current_.markers = marker_.facts;
  current_.ulpdu_head = {ulpdu_.head.data(), ulpdu_.head_size};
  current_.ulpdu = ulpdu_.whole;
  reset(pos_, offset_);  // (the next octet begins the next FPDU)
}

}  // namespace mpa
