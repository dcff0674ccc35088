// The rules of an FPDU (RFC 5044 4.1-4.5, 8). See fpdu_judge.h.
#include "fpdu/fpdu_judge.h"

#include <fmt/format.h>

#include <utility>

#include "fpdu/crc_patterns.h"
#include "fpdu/fpdu_rules.h"
#include "mpa/fpdu_layout.h"

namespace mpa {

void FpduJudge::report(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset,
                       std::uint64_t frame, std::string message) const {
  Finding finding;
  finding.id = id;
  finding.connection = connection_;
  finding.direction = direction_;
  finding.frame = frame;
  finding.tcp_seq = seq;
  finding.stream_offset = offset;
  finding.message = std::move(message);
  sink.on_finding(std::move(finding));
}

void FpduJudge::fatal(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset,
                      std::uint64_t frame, std::string message) {
  report(sink, id, seq, offset, frame, std::move(message));
  stop_judging();
}

void FpduJudge::judge_marker(const MarkerFact& fact, bool leading, std::uint64_t offset,
                             TcpSeq header_seq, std::uint64_t frame, FpduSink& sink) {
  const Marker marker{fact.reserved, fact.fpdu_ptr};
  if (!marker_reserved_is_zero(marker)) {
    report(sink, DiagId::MarkerReservedNonzero, fact.seq, offset, frame,
           fmt::format("marker at seq {} has reserved field 0x{:04x}", fact.seq.value(),
                       fact.reserved));
  }
  if (!fpdu_ptr_low_bits_are_zero(marker)) {
    report(sink, DiagId::MarkerFpduptrLowBits, fact.seq, offset, frame,
           fmt::format("marker at seq {} has FPDUPTR 0x{:04x} with low bits set", fact.seq.value(),
                       fact.fpdu_ptr));
  }
  // A marker that points exactly at a header off a multiple of 4 (a sender whose pad or
  // ULPDU_Length is not the RFC's, named as such) has only the low bits to answer for: it is
  // where RFC 5044 4.2 says it points, and clearing the low bits (as a receiver does) is what
  // the low-bits finding already says it cannot survive.
  if (!marker_points_at(marker, fact.expected_fpdu_ptr) &&
      fact.fpdu_ptr != fact.expected_fpdu_ptr) {
    fatal(sink, DiagId::MarkerFpduptrMismatch, fact.seq, offset, frame,
          leading ? fmt::format("marker at seq {} before an FPDU header has FPDUPTR {} "
                                "(expected 0)",
                                fact.seq.value(), fact.fpdu_ptr)
                  : fmt::format("marker at seq {} has FPDUPTR {}, but the FPDU header is {} "
                                "octets before it (seq {})",
                                fact.seq.value(), fact.fpdu_ptr, fact.expected_fpdu_ptr,
                                header_seq.value()));
  }
}

void FpduJudge::ulpdu_length(const FpduEvent& fpdu, std::uint64_t frame, FpduSink& sink) const {
  if (fpdu.ulpdu_length <= kLargestMulpdu) return;
  report(sink, DiagId::FpduUlpduLengthTooLarge, fpdu.header_seq, header_offset(fpdu), frame,
         fmt::format("FPDU at seq {} has ULPDU_Length {} (more than {}: no MTU-sized "
                     "path's MULPDU is that large)",
                     fpdu.header_seq.value(), fpdu.ulpdu_length, kLargestMulpdu));
}

void FpduJudge::pad_nonzero(FpduSink& sink, TcpSeq header_seq, std::uint64_t offset,
                            std::uint64_t frame, std::uint32_t ulpdu_length) const {
  report(sink, DiagId::FpduPadNonzero, header_seq, offset, frame,
         fmt::format("FPDU at seq {} (ULPDU_Length {}) has non-zero pad octets", header_seq.value(),
                     ulpdu_length));
}

void FpduJudge::judge_fpdu(const FpduEvent& fpdu, bool pad_nonzero, bool crc_explained,
                           std::uint64_t frame, FpduSink& sink) {
  const bool crc_bad = fpdu.crc_status == CrcStatus::Bad;
  // Findings about the FPDU name its ULPDU_Length field (after a leading marker).
  const std::uint64_t header_offset = mpa::header_offset(fpdu);
  if (!fpdu.judged) {
    if (pending_not_judged_ && !said_not_judged_) {
      said_not_judged_ = true;
      pending_not_judged_ = false;
      report(sink, DiagId::FpduNotJudgedAfterError, fpdu.header_seq, header_offset, frame,
             "an earlier error ended MPA in this direction (RFC 5044 8); later FPDUs "
             "are counted but not judged");
    }
    return;
  }
  if (!judging_) return;  // (an error earlier in this FPDU ended judgement)
  if (pad_nonzero)
    this->pad_nonzero(sink, fpdu.header_seq, header_offset, frame, fpdu.ulpdu_length);
  if (crc_bad && !crc_explained) {
    // A CRC made a recognisable wrong way names how the sender makes them (crc_patterns.h).
    if (const auto pattern = recognise_crc_pattern(fpdu)) {
      fatal(sink, DiagId::FpduCrcMiscomputed, fpdu.header_seq, header_offset, frame,
            fmt::format("FPDU at seq {} (ULPDU_Length {}): CRC received 0x{:08x} where 0x{:08x} "
                        "was due: {}; the receiver must reject it (RFC 5044 8)",
                        fpdu.header_seq.value(), fpdu.ulpdu_length, fpdu.crc_received,
                        fpdu.crc_computed, describe(*pattern)));
      return;
    }
    fatal(sink, DiagId::FpduCrcMismatch, fpdu.header_seq, header_offset, frame,
          fmt::format("FPDU at seq {} (ULPDU_Length {}): CRC received 0x{:08x}, computed "
                      "0x{:08x}",
                      fpdu.header_seq.value(), fpdu.ulpdu_length, fpdu.crc_received,
                      fpdu.crc_computed));
  }
}

}  // namespace mpa
