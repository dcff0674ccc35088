// How the receiver of one direction reacted to a CRC or marker error (RFC 5044 8, error
// codes 2 and 3) in the FPDUs it received (RFC 5044 4.4, 6, 8): it must not pass the FPDU
// on, nor any later one of that half connection, and MPA must not close for it (DDP's ULP
// tears down, usually after a Terminate). One object per direction, fed the sender's error
// and FPDUs, the receiver's acknowledgements, FPDUs and close. Pure: events in, findings out.
//
// Evidence, strongest first:
// - receiver.invalid-fpdu-answered: the receiver's k-th RDMA Read Response answers the
//   sender's k-th RDMA Read Request (Read Responses come in Request order, RFC 5040 5.2), with
//   the Request's Data Sink STag and tagged offset, and that Request was carried in the FPDU
//   with the error or after it.
// - receiver.closed-after-error: the receiver acknowledged the bad FPDU (its ACK covers the
//   FPDU's last octet: TCP accepted it, so it was not silently dropped for a retransmission,
//   RFC 5044 8) and then closed (FIN or RST) without sending anything, the sender not having
//   closed first.
// - receiver.error-ignored: after that acknowledgement the receiver began at least one FPDU
//   that is not a Terminate, and its stream ended (FIN or RST seen) without any Terminate.
// FPDUs it began before its acknowledgement are never taken as a reaction (it may not have
// had the bad FPDU yet). A retransmission of the sender's that differs, or a gap in either
// stream, makes what reached the receiver unknown: nothing is judged from then on.
//
// Its reaction to an error in what MPA carries is judged as well (RFC 5040 7.1: the Local Peer
// MUST send a Terminate for an error detected on an incoming RDMA Message): the sender's first
// DDP Segment with an error any receiver detects from the segment alone (RFC 5041 7.1: a
// non-zero-length untagged segment on a queue the stream does not have; RFC 5040 7.2: an
// opcode no RFC defines), which the receiver acknowledged:
// - receiver.terminate-missing: its stream then ended (FIN or RST) without a Terminate, and it
//   had sent FPDUs since its acknowledgement or its peer had not closed first. (Errors against
//   the receiver's buffers, STags and MSN range are inside it; a capture that ends first, or
//   with octets missing, is not judged.)
//
// Its reaction to legal input is judged too (RFC 5044 4.1, 4.2, 4.3: a receiver ignores the
// pad's value, a marker's reserved field and FPDUPTR's two low bits): the sender's first FPDU
// whose only oddity is one of these, in an error-free stream, is followed until the receiver
// shows it took it (an acknowledgement of later octets, an FPDU of its own), or closes:
// - receiver.legal-fpdu-refused: the receiver acknowledged that FPDU and then closed (FIN or
//   RST) sending nothing, having acknowledged nothing the sender sent after it though the
//   sender had sent more (it stopped taking the stream there), the sender not having closed;
//   or that FPDU carried an RDMA Read Request the receiver never answered, its Read Response
//   in turn answering the sender's next Read Request instead (it dropped the FPDU).
// Oddities: the pad's value, a marker's reserved field, FPDUPTR's low bits, an FPDUPTR that
// reaches back across the wrap of sequence numbers (RFC 5044 4.3), an FPDU that spans TCP
// segments (RFC 5044 5.1), and, CRCs being off, the first FPDU whose CRC field is not its
// CRC32c (RFC 5044 4.1, 4.4: not checked). A receiver whose TCP acknowledged later octets
// before it closed is not told apart from one that simply ended the conversation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mpa/ddp.h"
#include "mpa/events.h"

namespace mpa {

// std::optional's face on the heap: made when a value is set, copied deeply. (The parts of the
// reactions only an error or an oddity needs: every sender of every open connection has them.)
template <typename T>
class HeapOptional {
 public:
  HeapOptional() = default;
  HeapOptional(const HeapOptional& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  HeapOptional& operator=(const HeapOptional& o) {
    p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  ~HeapOptional() = default;
  HeapOptional& operator=(T value) {
    p_ = std::make_unique<T>(std::move(value));
    return *this;
  }
  explicit operator bool() const { return p_ != nullptr; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

class ReceiverReactions {
 public:
  // `sender`: whose FPDUs are received (the receiver is the other side).
  explicit ReceiverReactions(Direction sender = Direction::Initiator) : sender_(sender) {}
  void set_sender(Direction sender) { sender_ = sender; }

  // ---- the sender's side
  // The sender's FPDU reader reported `id` (fpdu.crc-mismatch or marker.fpduptr-mismatch; others
  // are ignored) about the octet at stream offset `offset`. Only the first error counts (RFC
  // 5044 8: MPA is over in that direction after it).
  void on_error(DiagId id, std::uint64_t offset);
  // The sender's FPDU `fpdu` holds a DDP Segment with the error `id` (ddp.queue-invalid,
  // rdmap.opcode-invalid; others are ignored): only the first counts, and none after an MPA
  // error (on_error). Told before on_sender_fpdu for the same FPDU.
  void on_ulp_error(DiagId id, const FpduEvent& fpdu);
  // Each FPDU of the sender, in stream order (`ddp`: its DDP header, when it decodes).
  void on_sender_fpdu(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp);
  // The sender closed (FIN or RST).
  void on_sender_close(std::uint64_t frame);
  // What reached the receiver is no longer known (a differing retransmission, a gap).
  void on_unknowable();

  // ---- the receiver's side
  // A segment of the receiver's (frame `frame`) acknowledges the sender's octets before `ack`;
  // `receiver_offset`: the receiver's own stream offset before that segment's payload.
  // `closes`: the segment also closes (FIN or RST): it shows nothing more was taken.
  void on_receiver_ack(TcpSeq ack, std::uint64_t frame, std::uint64_t receiver_offset,
                       bool closes = false);
  // Each FPDU of the receiver (`terminate`: an RDMAP Terminate).
  void on_receiver_fpdu(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp, bool terminate,
                        std::vector<Finding>& out);
  // The receiver closed: its FIN or RST in `frame` (`rst`), its stream then at `seq` /
  // `offset` (all the octets it sent before are delivered).
  void on_receiver_close(bool rst, std::uint64_t frame, TcpSeq seq, std::uint64_t offset,
                         std::vector<Finding>& out);
  // The receiver's stream ended in the capture (a FIN or RST seen, not the capture's end).
  void on_receiver_end(std::uint64_t frame, std::vector<Finding>& out);

  bool error_seen() const { return static_cast<bool>(error_); }

 private:
  struct Error {
    DiagId id{};
    std::uint64_t offset = 0;  // where it was found
    bool fpdu_known = false;   // the FPDU it is in has completed
    TcpSeq header_seq;
    TcpSeq end_seq;  // after the FPDU's last octet
    std::uint64_t fpdu_frame = 0;
    std::uint64_t acked_frame = 0;      // the receiver's first ACK covering the FPDU
    std::uint64_t receiver_offset = 0;  // the receiver's stream offset at that ACK
    bool unknowable = false;
    bool judged = false;  // a receiver.* finding was reported
  };
  // The sender's first FPDU with a legal oddity only (a non-zero pad or marker reserved field,
  // FPDUPTR low bits set), while the receiver's reaction to it is followed.
  struct LegalOddity {
    std::string what;  // "non-zero pad octets", ...
    TcpSeq header_seq;
    TcpSeq end_seq;
    std::uint64_t fpdu_frame = 0;
    bool acked = false;
    TcpSeq first_ack;                   // the receiver's first ACK covering it
    std::uint64_t receiver_offset = 0;  // the receiver's stream offset then
  };
  void legal_oddity_settled() {
    odd_.reset();
    odd_settled_ = true;
  }
  void on_sender_fpdu_oddity(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp);
  // A Read Request of the sender's carried in or after the FPDU with the error.
  struct ReadRequest {
    std::uint64_t index = 0;  // 1-based, in the sender's Read Request order
    std::uint32_t sink_stag = 0;
    std::uint64_t sink_to = 0;
    std::uint32_t size = 0;
    bool in_bad_fpdu = false;
    TcpSeq header_seq;
  };
  static constexpr std::size_t kReadsKept = 64;
  static std::optional<ReadRequest> read_request_of(const FpduEvent& fpdu);
  // A Read Request carried in the FPDU with a legal oddity, and the sender's next one.
  struct OddRead {
    ReadRequest request;  // index: its place in the sender's Read Request order
    std::optional<ReadRequest> next;
    std::string what;
    std::uint64_t fpdu_frame = 0;
  };
  void judge_odd_read(std::uint64_t k, const FpduEvent& fpdu, std::vector<Finding>& out);
  // The sender's first DDP or RDMAP error its receiver must answer with a Terminate.
  struct UlpError {
    DiagId id{};
    TcpSeq header_seq;
    TcpSeq end_seq;  // after the FPDU's last octet
    std::uint64_t fpdu_frame = 0;
    std::uint64_t acked_frame = 0;      // the receiver's first ACK covering the FPDU
    std::uint64_t receiver_offset = 0;  // the receiver's stream offset at that ACK
    TcpSeq went_on_seq;                 // its first FPDU after that ACK that is no Terminate
    bool went_on = false;
    bool unknowable = false;
    bool judged = false;
  };
  void judge_ulp_error(bool rst, std::uint64_t frame, TcpSeq seq, std::uint64_t offset,
                       std::vector<Finding>& out);

  std::string sender_name() const;
  std::string receiver_name() const;
  std::string error_words() const;

  Direction sender_;
  HeapOptional<Error> error_;
  std::uint64_t read_requests_ = 0;   // the sender's Read Requests so far
  std::uint64_t read_responses_ = 0;  // the receiver's completed Read Response messages
  // The receiver's Read Response message in progress: its Data Sink STag and tagged offset,
  // and where its first FPDU began.
  struct ResponseInProgress {
    bool in_progress = false;
    std::uint32_t stag = 0;
    std::uint64_t to = 0;
    TcpSeq seq;
    std::uint64_t offset = 0;
    std::uint64_t frame = 0;
  };
  ResponseInProgress response_;
  // Carried in or after the bad FPDU (a vector: an empty deque allocates, and every sender of
  // every open connection has one of these).
  std::vector<ReadRequest> reads_;
  std::uint64_t sender_closed_ = 0;  // frame of the sender's FIN or RST (0: none yet)
  // The receiver's first FPDU (not a Terminate) begun after its ACK of the bad FPDU.
  HeapOptional<Finding> went_on_;
  HeapOptional<LegalOddity> odd_;
  HeapOptional<OddRead> odd_read_;
  HeapOptional<UlpError> ulp_error_;
  // (The flags together, after the pointers: no padding between them.)
  bool pending_ = false;      // error_ set, its FPDU not yet completed
  bool counts_lost_ = false;  // a gap or a differing retransmission: Reads unmatched
  bool terminated_ = false;   // the receiver sent a Terminate
  bool odd_settled_ = false;  // the first such FPDU was taken, refused, or cannot be judged
  bool sender_sent_ = false;  // the sender has completed an FPDU
  TcpSeq sender_end_;         // after the last octet of its latest complete FPDU
};

}  // namespace mpa
