// The FPDU reader (RFC 5044 4.1-4.4, 6, 8). See fpdu_reader.h.
//
// The reader is a state machine over the FPDU fields (Header -> Ulpdu -> Pad -> Crc);
// markers are not a state but an interruption: before any octet at a marker position of
// the grid is taken as FPDU content, four octets are read as a marker. A marker met before
// the ULPDU_Length field is the FPDU's leading marker (FPDUPTR 0, inside its CRC). The CRC
// is updated over each contiguous run, so no FPDU is ever copied.
#include "mpa/fpdu_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "mpa/crc32c.h"
#include "mpa/fpdu_search.h"

namespace mpa {
namespace {

// RFC 5044 4.5: no IP datagram carries a larger ULPDU (65535 - IP/TCP headers - FPDU overhead).
constexpr std::uint32_t kLargestSensibleUlpdu = 64768;
// Octets kept while looking for the next FPDU after a gap.
constexpr std::size_t kLostBufferLimit = 256u << 10;

std::uint16_t load_be16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

}  // namespace

FpduReader::FpduReader(const FpduReaderConfig& config)
    : config_(config),
      grid_(config.markers ? MarkerGrid(config.grid_origin_set ? config.grid_origin
                                                               : config.start_seq)
                           : MarkerGrid()),
      pos_(config.start_seq),
      offset_(config.start_offset) {
  current_.connection = config.connection;
  current_.direction = config.direction;
}

void FpduReader::stop_judging() {
  if (!judging_) return;
  judging_ = false;
  pending_not_judged_ = true;
}

void FpduReader::report(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset,
                        std::uint64_t frame, std::string message) {
  Finding finding;
  finding.id = id;
  finding.connection = config_.connection;
  finding.direction = config_.direction;
  finding.frame = frame;
  finding.tcp_seq = seq;
  finding.stream_offset = offset;
  finding.message = std::move(message);
  sink.on_finding(std::move(finding));
}

void FpduReader::fatal(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset,
                       std::uint64_t frame, std::string message) {
  report(sink, id, seq, offset, frame, std::move(message));
  stop_judging();
}

std::uint32_t FpduReader::bytes_needed() const {
  if (lost_) return 1;
  if (state_ == State::Header) {
    std::uint32_t needed = (kUlpduLengthSize - header_got_);
    if (marker_got_ > 0) {
      needed += kMarkerSize - marker_got_;
    } else if (header_got_ == 0 && grid_.is_marker_at(pos_)) {
      needed += kMarkerSize;
    }
    return needed;
  }
  const std::uint32_t wire =
      grid_.fpdu_wire_length(current_.start_seq, current_.ulpdu_length);
  return wire - static_cast<std::uint32_t>(offset_ - current_.start_offset);
}

void FpduReader::begin_fpdu(std::uint64_t frame, bool segment_start) {
  seen_any_octet_ = true;
  current_.start_seq = pos_;
  current_.start_offset = offset_;
  current_.header_seq = pos_;
  current_.leading_marker = false;
  current_.first_frame = frame;
  current_.starts_segment = segment_start;
  current_.within_one_segment = true;
  markers_.clear();
  crc_state_ = kCrc32cInit;
  pad_nonzero_ = false;
  ulpdu_head_size_ = 0;
  ulpdu_got_ = 0;
  ulpdu_.clear();
}

void FpduReader::read_marker(const std::uint8_t* data, std::uint32_t n, std::uint64_t frame,
                             FpduSink& sink) {
  std::memcpy(&marker_[marker_got_], data, n);
  if (config_.crc && !(state_ == State::Crc && remaining_ < kCrcSize)) {
    // All markers are inside the CRC of the FPDU holding them, including one right after
    // the pad (RFC 5044 4.4).
    crc_state_ = crc32c_update(crc_state_, {data, n});
  }
  marker_got_ += n;
  if (marker_got_ < kMarkerSize) return;
  marker_got_ = 0;

  MarkerFact fact;
  fact.seq = pos_ + n - kMarkerSize;
  fact.reserved = load_be16(&marker_[0]);
  fact.fpdu_ptr = load_be16(&marker_[2]);
  const bool leading = state_ == State::Header && header_got_ == 0;
  if (leading) {
    current_.leading_marker = true;
    fact.expected_fpdu_ptr = 0;
  } else {
    fact.expected_fpdu_ptr = static_cast<std::uint16_t>(fact.seq.distance_from(current_.header_seq));
  }
  markers_.push_back(fact);
  if (!judging_) return;
  const std::uint64_t marker_offset = offset_ + n - kMarkerSize;
  if (fact.reserved != 0) {
    report(sink, DiagId::MarkerReservedNonzero, fact.seq, marker_offset, frame,
           fmt::format("marker at seq {} has reserved field 0x{:04x}", fact.seq.value(),
                       fact.reserved));
  }
  if ((fact.fpdu_ptr & 3u) != 0) {
    report(sink, DiagId::MarkerFpduptrLowBits, fact.seq, marker_offset, frame,
           fmt::format("marker at seq {} has FPDUPTR 0x{:04x} with low bits set",
                       fact.seq.value(), fact.fpdu_ptr));
  }
  if ((fact.fpdu_ptr & 0xFFFCu) != fact.expected_fpdu_ptr) {
    fatal(sink, DiagId::MarkerFpduptrMismatch, fact.seq, marker_offset, frame,
          leading ? fmt::format("marker at seq {} before an FPDU header has FPDUPTR {} "
                                "(expected 0)", fact.seq.value(), fact.fpdu_ptr)
                  : fmt::format("marker at seq {} has FPDUPTR {}, but the FPDU header is {} "
                                "octets before it (seq {})",
                                fact.seq.value(), fact.fpdu_ptr, fact.expected_fpdu_ptr,
                                current_.header_seq.value()));
  }
}

void FpduReader::finish_fpdu(std::uint64_t frame, FpduSink& sink) {
  current_.last_frame = frame;
  current_.crc_received = static_cast<std::uint32_t>(crc_bytes_[0]) |
                          static_cast<std::uint32_t>(crc_bytes_[1]) << 8 |
                          static_cast<std::uint32_t>(crc_bytes_[2]) << 16 |
                          static_cast<std::uint32_t>(crc_bytes_[3]) << 24;
  current_.wire_length = static_cast<std::uint32_t>(offset_ - current_.start_offset);
  if (config_.crc) {
    current_.crc_computed = crc32c_finish(crc_state_);
    current_.crc_status =
        current_.crc_computed == current_.crc_received ? CrcStatus::Good : CrcStatus::Bad;
  } else {
    current_.crc_computed = 0;
    current_.crc_status = CrcStatus::NotChecked;
  }
  current_.markers = markers_;
  current_.ulpdu_head = {ulpdu_head_.data(), ulpdu_head_size_};
  current_.ulpdu = ulpdu_;
  current_.judged = judging_;
  ++fpdus_;
  ulpdu_bytes_ += current_.ulpdu_length;
  if (current_.crc_status == CrcStatus::Bad) ++crc_failures_;

  if (judging_) {
    if (pad_nonzero_) {
      report(sink, DiagId::FpduPadNonzero, current_.header_seq, current_.start_offset, frame,
             fmt::format("FPDU at seq {} (ULPDU_Length {}) has non-zero pad octets",
                         current_.header_seq.value(), current_.ulpdu_length));
    }
    if (current_.crc_status == CrcStatus::Bad) {
      fatal(sink, DiagId::FpduCrcMismatch, current_.header_seq, current_.start_offset, frame,
            fmt::format("FPDU at seq {} (ULPDU_Length {}): CRC received 0x{:08x}, computed "
                        "0x{:08x}", current_.header_seq.value(), current_.ulpdu_length,
                        current_.crc_received, current_.crc_computed));
      current_.judged = true;  // this FPDU was judged; later ones are not
    }
  } else if (pending_not_judged_ && !said_not_judged_) {
    said_not_judged_ = true;
    pending_not_judged_ = false;
    report(sink, DiagId::FpduNotJudgedAfterError, current_.header_seq, current_.start_offset,
           frame, "an earlier error ended MPA in this direction (RFC 5044 8); later FPDUs "
                  "are counted but not judged");
  }
  sink.on_fpdu(current_);

  state_ = State::Header;
  header_got_ = 0;
  seen_any_octet_ = false;
}

void FpduReader::push(std::span<const std::uint8_t> data, std::uint64_t frame,
                      bool segment_start, FpduSink& sink) {
  if (lost_) {
    push_lost(data, frame, sink);
    return;
  }
  if (seen_any_octet_ && !data.empty()) current_.within_one_segment = false;
  const std::uint8_t* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    if (!seen_any_octet_) begin_fpdu(frame, segment_start && left == data.size());
    std::uint32_t take;
    const std::uint32_t to_marker = marker_got_ > 0 ? 0 : grid_.distance_to_marker(pos_);
    if (to_marker == 0) {
      take = static_cast<std::uint32_t>(std::min<std::size_t>(kMarkerSize - marker_got_, left));
      pos_ += take;
      offset_ += take;
      read_marker(p, take, frame, sink);
      p += take;
      left -= take;
      continue;
    }
    const std::uint32_t limit = static_cast<std::uint32_t>(std::min<std::size_t>(left, to_marker));
    switch (state_) {
      case State::Header: {
        take = std::min<std::uint32_t>(limit, kUlpduLengthSize - header_got_);
        if (header_got_ == 0) current_.header_seq = pos_;
        std::memcpy(&header_[header_got_], p, take);
        if (config_.crc) crc_state_ = crc32c_update(crc_state_, {p, take});
        header_got_ += take;
        if (header_got_ == kUlpduLengthSize) {
          current_.ulpdu_length = load_be16(header_.data());
          current_.pad_length = static_cast<std::uint8_t>(pad_length(current_.ulpdu_length));
          if (judging_ && current_.ulpdu_length > kLargestSensibleUlpdu) {
            report(sink, DiagId::FpduUlpduLengthTooLarge, current_.header_seq,
                   offset_ + take - kUlpduLengthSize, frame,
                   fmt::format("FPDU at seq {} has ULPDU_Length {} (more than {})",
                               current_.header_seq.value(), current_.ulpdu_length,
                               kLargestSensibleUlpdu));
          }
          if (current_.ulpdu_length > 0) {
            state_ = State::Ulpdu;
            remaining_ = current_.ulpdu_length;
          } else if (current_.pad_length > 0) {
            state_ = State::Pad;
            remaining_ = current_.pad_length;
          } else {
            state_ = State::Crc;
            remaining_ = kCrcSize;
          }
        }
        break;
      }
      case State::Ulpdu: {
        take = std::min(limit, remaining_);
        if (ulpdu_head_size_ < kUlpduHeadSize) {
          const std::uint32_t copy = std::min<std::uint32_t>(take, kUlpduHeadSize - ulpdu_head_size_);
          std::memcpy(&ulpdu_head_[ulpdu_head_size_], p, copy);
          ulpdu_head_size_ += copy;
        }
        if (config_.keep_ulpdu) ulpdu_.insert(ulpdu_.end(), p, p + take);
        if (config_.crc) crc_state_ = crc32c_update(crc_state_, {p, take});
        remaining_ -= take;
        ulpdu_got_ += take;
        if (remaining_ == 0) {
          if (current_.pad_length > 0) {
            state_ = State::Pad;
            remaining_ = current_.pad_length;
          } else {
            state_ = State::Crc;
            remaining_ = kCrcSize;
          }
        }
        break;
      }
      case State::Pad: {
        take = std::min(limit, remaining_);
        for (std::uint32_t i = 0; i < take; ++i) pad_nonzero_ |= p[i] != 0;
        if (config_.crc) crc_state_ = crc32c_update(crc_state_, {p, take});
        remaining_ -= take;
        if (remaining_ == 0) {
          state_ = State::Crc;
          remaining_ = kCrcSize;
        }
        break;
      }
      case State::Crc:
      default: {
        take = std::min(limit, remaining_);
        std::memcpy(&crc_bytes_[kCrcSize - remaining_], p, take);
        remaining_ -= take;
        break;
      }
    }
    pos_ += take;
    offset_ += take;
    p += take;
    left -= take;
    if (state_ == State::Crc && remaining_ == 0) finish_fpdu(frame, sink);
  }
}

void FpduReader::on_gap(std::uint64_t length, std::uint64_t frame, FpduSink& sink) {
  (void)sink;
  pos_ += static_cast<std::uint32_t>(length);
  offset_ += length;
  // The FPDU in progress (if any) can no longer be verified; it is dropped silently: the
  // analyzer has reported the gap itself.
  state_ = State::Header;
  header_got_ = 0;
  marker_got_ = 0;
  seen_any_octet_ = false;
  if (!lost_) {
    lost_ = true;
    lost_buffer_.clear();
    lost_seq_ = pos_;
    lost_offset_ = offset_;
  } else {
    // Another gap while searching: restart the search after it.
    lost_buffer_.clear();
    lost_seq_ = pos_;
    lost_offset_ = offset_;
  }
  lost_frame_ = frame;
}

void FpduReader::push_lost(std::span<const std::uint8_t> data, std::uint64_t frame,
                           FpduSink& sink) {
  lost_buffer_.insert(lost_buffer_.end(), data.begin(), data.end());
  pos_ += static_cast<std::uint32_t>(data.size());
  offset_ += data.size();
  if (try_resync(frame, sink)) return;
  if (lost_buffer_.size() > kLostBufferLimit) {
    // Keep the newest half; the octets dropped stay unverified (they were covered by the gap
    // the analyzer reported).
    const std::size_t drop = lost_buffer_.size() - kLostBufferLimit / 2;
    lost_buffer_.erase(lost_buffer_.begin(), lost_buffer_.begin() + static_cast<std::ptrdiff_t>(drop));
    lost_seq_ += static_cast<std::uint32_t>(drop);
    lost_offset_ += drop;
  }
}

bool FpduReader::try_resync(std::uint64_t frame, FpduSink& sink) {
  // FPDUs are multiples of four octets, so starts keep the phase of the first one.
  const std::uint32_t alignment = config_.start_seq.value() & 3u;
  const SearchResult found =
      find_fpdu_start(lost_buffer_, lost_seq_, grid_, config_.crc, 0, alignment);
  if (found.kind != SearchResult::Kind::Found) return false;

  std::vector<std::uint8_t> rest(lost_buffer_.begin() + static_cast<std::ptrdiff_t>(found.start),
                                 lost_buffer_.end());
  const TcpSeq start_seq = lost_seq_ + static_cast<std::uint32_t>(found.start);
  const std::uint64_t start_offset = lost_offset_ + found.start;
  lost_ = false;
  lost_buffer_.clear();
  pos_ = start_seq;
  offset_ = start_offset;
  report(sink, DiagId::CaptureResynchronised, start_seq, start_offset, frame,
         fmt::format("FPDU framing found again at seq {} ({} octets after the gap{})",
                     start_seq.value(), found.start,
                     grid_.enabled() ? ", by marker" : (config_.crc ? ", by CRC" : "")));
  push(rest, frame, false, sink);
  return true;
}

}  // namespace mpa
