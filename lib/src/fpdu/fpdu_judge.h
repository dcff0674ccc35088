// The rules the FPDU reader judges each FPDU by (RFC 5044 4.1-4.5, 8), in one place: the
// markers (reserved field, FPDUPTR low bits, FPDUPTR), ULPDU_Length above kLargestMulpdu,
// the pad and the CRC, and, once an error has ended MPA in this direction, that later FPDUs
// are not judged. Fed the facts of fpdu_grammar.h; reports every finding of its reader.
#pragma once

#include <cstdint>
#include <string>

#include "mpa/events.h"
#include "mpa/fpdu_layout.h"

namespace mpa {

class FpduJudge {
 public:
  FpduJudge(std::uint32_t connection, Direction direction)
      : connection_(connection), direction_(direction) {}

  void report(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset, std::uint64_t frame,
              std::string message) const;
  // An error (RFC 5044 8): reported, and nothing more is judged.
  void fatal(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset, std::uint64_t frame,
             std::string message);
  void stop_judging() {
    if (!judging_) return;
    judging_ = false;
    pending_not_judged_ = true;
  }
  bool judging() const { return judging_; }

  // A marker read at stream offset `offset`, inside (or, `leading`, before) the FPDU whose
  // ULPDU_Length field is at `header_seq`. Only while judging.
  void marker(const MarkerFact& fact, bool leading, std::uint64_t offset, TcpSeq header_seq,
              std::uint64_t frame, FpduSink& sink) {
    // (Inline: a marker as a conformant sender writes it, the common case, costs no call.)
    if (!marker_exact(Marker{fact.reserved, fact.fpdu_ptr}, fact.expected_fpdu_ptr)) {
      judge_marker(fact, leading, offset, header_seq, frame, sink);
    }
  }
  // The FPDU's ULPDU_Length, once its ULPDU begins (`frame` read the field).
  void ulpdu_length(const FpduEvent& fpdu, std::uint64_t frame, FpduSink& sink) const;
  // fpdu.pad-nonzero about the FPDU whose ULPDU_Length field is at `header_seq` (judge_fpdu,
  // or a warning the reader held until the octets after that FPDU bore it out).
  void pad_nonzero(FpduSink& sink, TcpSeq header_seq, std::uint64_t offset, std::uint64_t frame,
                   std::uint32_t ulpdu_length) const;
  // The FPDU completed, before its event: its pad (`pad_nonzero`, as its sender framed it)
  // and CRC (`crc_explained`: it matched where a deviation puts it), or that it is not judged.
  void fpdu(const FpduEvent& fpdu, bool pad_nonzero, bool crc_explained, std::uint64_t frame,
            FpduSink& sink) {
    // (Inline: this runs once per FPDU and almost never finds anything.)
    const bool crc_bad = fpdu.crc_status == CrcStatus::Bad;
    if (!fpdu.judged ? pending_not_judged_
                     : judging_ && (pad_nonzero || (crc_bad && !crc_explained))) {
      judge_fpdu(fpdu, pad_nonzero, crc_explained, frame, sink);
    }
  }

 private:
  void judge_marker(const MarkerFact& fact, bool leading, std::uint64_t offset, TcpSeq header_seq,
                    std::uint64_t frame, FpduSink& sink);
  void judge_fpdu(const FpduEvent& fpdu, bool pad_nonzero, bool crc_explained, std::uint64_t frame,
                  FpduSink& sink);

  std::uint32_t connection_;
  Direction direction_;
  bool judging_ = true;
  bool said_not_judged_ = false;
  bool pending_not_judged_ = false;
};

}  // namespace mpa
