// ULPDUs as an RNIC hands them to MPA: DDP segments (RFC 5041) carrying RDMAP messages
// (RFC 5040): untagged Send, tagged RDMA Write, RDMA Read Request and Response, the
// zero-length RTR indications of RFC 6581 9.2, and RFC 7306's Immediate Data and Atomic
// Request and Response. DDP/RDMAP version 1, or 0 for Rev 0
// (RDMA Consortium) conversations.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "bytes.h"
#include "rng.h"

namespace mpa::synth {

enum class MessageKind : std::uint8_t {
  Send,                  // untagged, QN 0
  Write,                 // tagged
  SendRtr,               // zero-length Send (ULPDU_Length 18)
  WriteRtr,              // zero-length RDMA Write (ULPDU_Length 14)
  ReadRtr,               // RDMA Read Request, read size 0 (ULPDU_Length 46)
  ReadResponseEmpty,     // zero-length RDMA Read Response, the answer to a Read RTR
  EmptyUlpdu,            // ULPDU_Length 0: no DDP header at all
  TruncatedDdp,          // 10 octets of an untagged DDP header (too short for it)
  Terminate,             // RDMAP Terminate (QN 2), see TerminateSpec
  ReadRequest,           // RDMA Read Request (QN 1) for `size` octets (read_sink() names its sink)
  ReadResponse,          // RDMA Read Response of `size` octets answering the peer's next Read
  ImmediateData,         // RFC 7306 Immediate Data (opcode 0x8, QN 0): 8 octets, `size` ignored
  ImmediateDataSe,       // RFC 7306 Immediate Data with Solicited Event (opcode 0x9)
  AtomicRequest,         // RFC 7306 Atomic Request (opcode 0xA): FetchAdd, `size` ignored
  AtomicResponse,        // RFC 7306 Atomic Response (opcode 0xB), `size` ignored
  TruncatedReadRequest,  // an RDMA Read Request cut to 12 octets of its 28-octet header
};

// The Data Sink buffer (STag, tagged offset) of the Read Request with MSN `msn` (RFC 5040
// 4.4): a ReadRequest names it and the peer's ReadResponse to that Read writes into it.
struct ReadSink {
  std::uint32_t stag = 0;
  std::uint64_t to = 0;
};
ReadSink read_sink(std::uint32_t msn);

// An RDMAP Terminate (RFC 5040 4.8): Terminate Control `Layer EType ErrorCode M D R`, then
// the DDP Segment Length (M) and the terminated DDP header (D).
struct TerminateSpec {
  std::uint8_t layer = 0;
  std::uint8_t etype = 0;
  std::uint8_t code = 0;
  std::uint16_t ddp_segment_length = 0;
  Bytes ddp_header;         // quoted; empty: D=0
  bool siw_layout = false;  // Linux siw's little-endian C bitfields: nibbles swapped, flags low
  // Chelsio cxgb4's and Intel irdma's: an LLP (layer 2) error with error type 3 (first octet
  // 0x23 for an MPA error), the rest as RFC 5040 Figure 8.
  bool cxgb_irdma_layout = false;
  std::uint16_t reserved = 0;  // the 13 Reserved bits (RFC 5040 4.8: zero), as Figure 7 lays them
};

enum class PayloadFill : std::uint8_t { Random, Zero };

inline constexpr std::size_t kUntaggedHeader = 18;  // DDP untagged header incl. RDMAP ctrl
inline constexpr std::size_t kTaggedHeader = 14;
inline constexpr std::size_t kReadRequestBody = 28;

// One untagged DDP segment carrying a whole RDMAP Send (L=1, QN 0, MO 0) with `msn` and
// `payload`, outside any conversation.
Bytes untagged_send(std::uint8_t ddp_version, std::uint32_t msn,
                    std::span<const std::uint8_t> payload);

// Builds the ULPDUs of one direction's messages, tracking MSNs and tagged offsets.
class UlpduBuilder {
 public:
  UlpduBuilder(std::uint8_t ddp_version, std::uint64_t seed) : version_(ddp_version), rng_(seed) {}

  // The DDP segments of one message with `payload_size` data octets; each ULPDU is at
  // most `mulpdu` octets unless `unsplit`.
  std::vector<Bytes> message(MessageKind kind, std::size_t payload_size, std::size_t mulpdu,
                             bool unsplit, PayloadFill fill);
  Bytes terminate(const TerminateSpec& spec);
  // The next ReadResponse answers the peer's Read `n` further on: those between are never
  // answered.
  void skip_reads(std::uint32_t n) { reads_answered_ += n; }

 private:
  std::vector<Bytes> send(std::size_t size, std::size_t max_payload, PayloadFill fill);
  std::vector<Bytes> write(std::size_t size, std::size_t max_payload, PayloadFill fill);
  Bytes read_request(std::size_t read_size, bool named_sink = false);
  std::vector<Bytes> read_response(std::size_t size, std::size_t max_payload, PayloadFill fill);
  Bytes atomic_request();
  Bytes atomic_response();
  Bytes untagged(bool last, std::uint8_t opcode, std::uint32_t qn, std::uint32_t msn,
                 std::uint32_t mo, std::size_t payload, PayloadFill fill);
  Bytes tagged(bool last, std::uint8_t opcode, std::uint32_t stag, std::uint64_t to,
               std::size_t payload, PayloadFill fill);
  void put_payload(Bytes& out, std::size_t size, PayloadFill fill);

  std::uint8_t version_;
  Rng rng_;
  std::map<std::uint32_t, std::uint32_t> next_msn_;  // per queue number, starting at 1
  std::uint32_t next_stag_ = 0x00A1B200;
  std::uint32_t reads_answered_ = 0;  // ReadResponse messages so far (the peer's Reads in order)
};

}  // namespace mpa::synth
