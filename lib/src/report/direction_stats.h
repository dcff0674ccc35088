// Statistics of one sender, collected from the events of its stream: payload octets,
// full-operation segments, FPDUs (sizes, alignment, RDMAP opcodes, Terminates) and the
// parameters it ran with. Nothing here judges; DirectionSummary is what it adds up to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mpa/connection_summary.h"
#include "mpa/ddp.h"
#include "mpa/events.h"

namespace mpa {

class DirectionStats {
 public:
  // A TCP segment of this sender: its payload octets, captured or not.
  void on_payload(std::uint64_t octets) { s_.bytes += octets; }
  // The link-layer source of one of its frames: the first one is kept.
  void on_source_mac(const std::optional<MacAddress>& mac) {
    if (mac && !s_.mac) s_.mac = mac;
  }
  // Full operation began, with these parameters (inferred: not negotiated).
  void on_full_operation(bool markers, bool crc, bool inferred) {
    s_.full_operation = true;
    s_.markers = markers;
    s_.crc = crc;
    s_.inferred = inferred;
  }
  // The sender turned out to insert markers nobody negotiated.
  void on_markers_found() { s_.markers = true; }
  void on_stack(std::string name) { s_.stack = std::move(name); }
  // A segment carrying full-operation octets; `starts_fpdu`: its first octet starts one.
  void on_full_operation_segment(bool starts_fpdu) {
    ++s_.segments;
    if (starts_fpdu) ++s_.segments_starting_fpdu;
  }
  // An FPDU, with the DDP header of its ULPDU when it decodes (inline: once per FPDU).
  void on_fpdu(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp, bool terminate) {
    if (fpdu.within_one_segment) ++s_.fpdus_in_one_segment;
    if (fpdu.ulpdu_length > s_.max_ulpdu) s_.max_ulpdu = fpdu.ulpdu_length;
    std::size_t bucket = 0;
    while (bucket + 1 < kUlpduSizeBuckets && fpdu.ulpdu_length > kUlpduSizeBounds[bucket]) ++bucket;
    ++s_.ulpdu_sizes[bucket];
    if (ddp) ++s_.rdmap_opcodes[ddp->opcode & 0x0F];
    if (terminate) ++s_.terminates;
  }

  // The summary, with the FPDU reader's counts and the MSS options of both SYNs.
  struct ReaderCounts {
    std::uint64_t fpdus = 0, ulpdu_bytes = 0, crc_failures = 0;
  };
  DirectionSummary summary(const std::optional<ReaderCounts>& reader,
                           std::optional<std::uint16_t> mss,
                           std::optional<std::uint16_t> receiver_mss) const;

 private:
  DirectionSummary s_;
};

}  // namespace mpa
