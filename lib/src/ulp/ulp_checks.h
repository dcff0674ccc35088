// What MPA carries, checked per FPDU (RFC 5040, 5041; RFC 6581 5; RFC 5044 Appendix C):
// the negotiated RTR as the Initiator's first FPDU, DDP/RDMAP versions that belong to the
// MPA revision, ULPDUs long enough for their DDP header, RDMAP Terminates, decoded and
// held against what mpa-check saw in the data they blame, and the DDP Stream its DDP Segments
// make (ddp_stream.h). One object per sender. Pure: an
// FPDU and its context in, findings out; the connection applies them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "mpa/ddp.h"
#include "mpa/events.h"
#include "mpa/startup_frame.h"
#include "ulp/ddp_stream.h"
#include "ulp/rdma_requests.h"

namespace mpa {

// Both sides' IRD/ORD blocks when peer-to-peer was negotiated (RFC 6581 9.2).
struct RtrNegotiation {
  EnhancedBlock request;
  EnhancedBlock reply;
};

struct UlpContext {
  Direction direction = Direction::Initiator;
  bool first_fpdu = false;                // the sender's first FPDU (none before it, none lost)
  std::optional<int> revision;            // the Request's MPA revision (startup seen)
  const RtrNegotiation* rtr = nullptr;    // peer-to-peer negotiated
  const StartupFrame* reply = nullptr;    // the Reply, when seen
  const StartupFrame* request = nullptr;  // the Request, when seen
  bool siw_sender = false;                // the sender's startup frame looks like Linux siw's
};

class UlpChecks;

// The receiver of a Terminate, whose data it blames.
struct TerminatePeer {
  const UlpChecks* checks = nullptr;  // its recent FPDUs
  MpaErrorSet errors_seen;            // RFC error codes mpa-check found in its data
  std::optional<bool> crc;            // CRCs on its FPDUs (unset: not in full operation)
  std::optional<bool> markers;        // markers in its FPDUs (unset: not in full operation)
};

struct UlpVerdict {
  bool stop_judging = false;     // an error that ends MPA in this direction
  std::optional<DdpHeader> ddp;  // the ULPDU's DDP header, when it decodes
  bool terminate = false;        // an RDMAP Terminate: check_terminate() judges it
};

class UlpChecks {
 public:
  // Appends to `out` what `fpdu` breaks (rules are checked only when fpdu.judged, and
  // never on octets whose CRC failed: RFC 5044 8; the FPDU is remembered either way, for the
  // peer's Terminates to quote).
  UlpVerdict check(const FpduEvent& fpdu, const UlpContext& context, std::vector<Finding>& out);
  // An RDMAP Terminate (verdict.terminate): decoded, and held against what mpa-check saw in
  // the data of its receiver, `peer`; nothing is said of one whose CRC failed.
  void check_terminate(const FpduEvent& fpdu, const UlpContext& context, const TerminatePeer& peer,
                       std::vector<Finding>& out) const;

  struct RecentFpdu {
    std::uint64_t frame = 0;
    TcpSeq seq;
    CrcStatus crc = CrcStatus::NotChecked;
    std::array<std::uint8_t, kDdpUntaggedHeaderSize> ddp{};
    std::size_t ddp_size = 0;
  };
  // The most recent FPDU whose DDP header starts with `quoted` (at least 6 octets; no more
  // than the header its T bit announces), if any.
  const RecentFpdu* find_quoted(std::span<const std::uint8_t> quoted) const;

  // What a Terminate says of a DDP or RDMAP error (RFC 5040 Figure 9, RFC 5041 7.2).
  struct TerminateCause {
    std::uint8_t layer = 0;
    std::uint8_t etype = 0;
    std::uint8_t code = 0;
    friend bool operator==(const TerminateCause&, const TerminateCause&) = default;
  };
  // The first of this sender's DDP Segments with an error every receiver detects (RFC 5041
  // 7.1: an invalid QN on a non-zero-length untagged segment; RFC 5040 7.2: an undefined
  // opcode): the one a conforming receiver's Terminate names (RFC 5040 7.1 rule 4), after
  // which its DDP drops every segment (RFC 5041 7.1).
  struct SegmentError {
    DiagId id = DiagId::kCount;
    RecentFpdu fpdu;                     // its frame, seq and DDP header
    std::vector<TerminateCause> causes;  // what a Terminate may name of the errors it shows
    bool all_seen = false;  // every segment before it was seen, none of them RFC 7306's
  };
  const SegmentError* first_error() const { return errors_.first ? &*errors_.first : nullptr; }
  // Whether one of its ULPDUs was too short for the DDP/RDMAP headers it announces.
  bool saw_too_short() const { return too_short_seen_; }
  // The ddp.ulpdu-too-short said was the RFC's reading of a sender whose framing deviates
  // (MpaConnection::settle_too_short drops it): the next one is said again.
  void withdraw_too_short() { said_too_short_ = false; }

  // The RDMA Read and Atomic Requests this sender has outstanding at its peer (RFC 6581 9.1
  // "initiator ORD <= responder IRD", "responder ORD <= initiator IRD", with RFC 5040 4.4's
  // and RFC 7306's requests, answered in order), counted from the capture: a request seen
  // adds one, the last segment of the peer's answer removes the oldest. The count only grows
  // by what the sender sent before it could know of the answers the capture saw, so a count
  // above the IRD the peer declared (`peer_ird`, unset when unknown) is the sender's. Named
  // once per direction; never once the count is uncertain.
  void count_request(const FpduEvent& fpdu, const DdpHeader& ddp,
                     std::optional<std::uint16_t> peer_ird, Direction direction,
                     std::vector<Finding>& out);
  void count_answer();
  // A tagged RDMA Read Response segment of the peer, or an RFC 7306 Atomic Response, held to
  // this sender's Read or Atomic Requests (rdma_requests.h).
  // A Read or Atomic Response answering a Request sent after this sender's first segment in
  // error is receiver.segment-after-error-placed (once per direction).
  void check_read_response(const FpduEvent& fpdu, const DdpHeader& ddp, Direction responder,
                           std::vector<Finding>& out);
  // The sender closed its stream first (FIN) at an FPDU boundary, at `seq` / `offset` in `frame`:
  // its DDP Stream judges the messages left open (DdpStream::close).
  void on_close(std::uint64_t frame, TcpSeq seq, std::uint64_t offset, std::vector<Finding>& out) {
    if (stream_.stream) stream_.stream->close(frame, seq, offset, out);
  }
  // Octets of either direction went missing, or an FPDU could not be read as sent: requests
  // or answers may be among them.
  void lose_count() {
    count_lost_ = true;
    reads_.lose();
    if (stream_.stream) stream_.stream->lose();
  }

 private:
  void remember(const FpduEvent& fpdu);
  UlpVerdict check_segment(const FpduEvent& fpdu, const UlpContext& context,
                           std::vector<Finding>& out);
  void check_no_payload(const FpduEvent& fpdu, const DdpHeader& ddp, std::uint32_t size,
                        std::vector<Finding>& out);
  void note_errors(const std::optional<DdpHeader>& ddp, std::span<const Finding> found,
                   std::uint32_t size);

  bool said_ddp_version_ = false;
  bool said_too_short_ = false;
  bool too_short_seen_ = false;
  std::uint32_t outstanding_ = 0;  // requests not yet answered (count_request)
  bool count_lost_ = false;
  bool said_ird_ = false;
  SaidOnce said_;  // the ids named once per direction here (beside the bools above)
  struct Errors {
    std::optional<SegmentError> first;  // (first_error())
    bool extension_seen = false;        // an RFC 7306 message before it
  };
  Errors errors_;
  RdmaRequests reads_;                   // this sender's RDMA Read Requests and the peer's answers
  std::array<RecentFpdu, 32> recent_{};  // ring of the last FPDUs, for Terminates to blame
  std::size_t recent_count_ = 0;
  // The direction's DDP Stream (message assembly per queue), made at its first DDP Segment;
  // a copy of the checks copies it.
  struct StreamBox {
    std::unique_ptr<DdpStream> stream;
    StreamBox() = default;
    StreamBox(const StreamBox& o) : stream(o.stream ? new DdpStream(*o.stream) : nullptr) {}
    StreamBox& operator=(const StreamBox& o) {
      stream.reset(o.stream ? new DdpStream(*o.stream) : nullptr);
      return *this;
    }
    StreamBox(StreamBox&&) = default;
    StreamBox& operator=(StreamBox&&) = default;
    ~StreamBox() = default;
  };
  StreamBox stream_;
};

}  // namespace mpa
