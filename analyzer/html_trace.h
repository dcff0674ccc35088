// What the HTML report (report_html.cpp) needs beyond the CaptureReport the other reports
// use: per MPA connection a bounded ladder of events (startup frames, the first FPDUs,
// bands of uneventful FPDUs, finding pins), time-binned throughput and findings, the first
// FPDUs' geometry for the marker strip, and for the first findings the place in the stream
// they concern (an FPDU or a startup frame, with the fields to highlight, from the
// library's layout functions). Collected from the library's events as they come, in
// bounded memory; the octets themselves are read back from the capture file afterwards
// (html_bytes.cpp), only for those places.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "mpa/analyzer.h"
#include "mpa/rdma_messages.h"
#include "mpa/startup_frame.h"
#include "mpa/tcp_seq.h"

namespace mpa::report {

// Bounds (per connection unless said otherwise).
inline constexpr std::size_t kLadderFpdusPerDirection = 4;  // drawn before bands begin
inline constexpr std::size_t kLadderMaxItems = 48;          // beyond: everything folds into bands
inline constexpr std::size_t kPlacedFindings = 12;          // findings with a hex dump
inline constexpr std::size_t kPlacedFindingsPerCapture = 400;
inline constexpr std::size_t kTimeBins = 48;
inline constexpr std::size_t kStripFpdus = 24;       // FPDUs on the marker strip
inline constexpr std::uint32_t kStripOctets = 4096;  // sequence space the strip shows
inline constexpr std::size_t kLadderMessages = 64;   // RDMA messages kept for the ladder

// A highlighted field of a dump: sequence range, and what it is.
struct Highlight {
  SeqRange range;
  std::string label;    // "CRC (received 0x..., computed 0x...)"
  bool target = false;  // where something points (an FPDUPTR), drawn differently
};

// The octets a finding concerns: an FPDU or a startup frame of one direction.
struct Place {
  enum class Kind : std::uint8_t { Fpdu, StartupFrame } kind = Kind::Fpdu;
  Direction direction{};
  SeqRange whole;                 // the FPDU (markers and CRC included) or the frame
  std::uint64_t first_frame = 0;  // frames that may hold its octets: first..last
  std::uint64_t last_frame = 0;
  std::vector<Highlight> highlights;
  std::vector<SeqRange> shown;       // the parts of `whole` the dump shows (bounded)
  std::vector<std::uint8_t> octets;  // octets of `shown`, in order (filled by read_places)
  std::vector<bool> present;         // per octet of `octets`: found in the capture
  std::string caption;               // "FPDU at seq 123 (ULPDU_Length 34, 2 markers)"
};

// The ladder's items, one type per kind; LadderItem holds what they share.
namespace ladder {

// A TCP control segment.
enum class TcpFlag : std::uint8_t { Syn, Fin, Rst };
std::string_view to_string(TcpFlag flag);  // "SYN", "FIN", "RST"

struct Tcp {
  TcpFlag flag = TcpFlag::Syn;
};

// A startup frame as parsed, and where it starts.
struct Startup {
  StartupFrame frame;
  std::uint32_t seq = 0;
};

// An FPDU drawn on its own: opcode (-1: not RDMAP), length, CRC.
struct Fpdu {
  std::uint32_t seq = 0;  // of its header
  std::uint16_t ulpdu_length = 0;
  int rdmap_opcode = -1;
  CrcStatus crc = CrcStatus::NotChecked;
  std::int64_t message = -1;  // the number of the RDMA message it is a segment of (-1: none)
};

// Uneventful FPDUs folded together (the item's frame and ns: of the first one).
struct Band {
  std::uint64_t fpdus[2] = {0, 0};  // by direction
  std::uint64_t octets = 0;
  std::uint64_t last_frame = 0, last_ns = 0;
  bool retime_last = false;    // (as LadderItem::retime, for last_ns)
  std::uint64_t findings = 0;  // findings folded into the band (beyond the pins)
  std::uint64_t messages = 0;  // RDMA messages that began in the band
};

// A finding's pin.
struct Finding {
  std::size_t index = 0;  // into the connection's findings
};

}  // namespace ladder

struct LadderItem {
  Direction direction{};
  std::uint64_t frame = 0;  // first frame (bands: of the first FPDU)
  std::uint64_t ns = 0;
  std::variant<ladder::Startup, ladder::Fpdu, ladder::Band, ladder::Finding, ladder::Tcp> what;
  // `ns` may not be the capture time of `frame` (an event reported after later frames were
  // read: octets held for a decision): read_places reads it from the capture.
  bool retime = false;
};

// Values binned over time, the bin width doubling as the connection goes on.
struct TimeBins {
  std::uint64_t origin_ns = 0;
  std::uint64_t width_ns = 1000000;  // 1 ms to start
  std::array<std::uint64_t, kTimeBins> values{};
  void add(std::uint64_t ns, std::uint64_t value);
};

struct StripFpdu {
  std::uint32_t start = 0;  // sequence number of its first octet
  std::uint32_t wire_length = 0;
  std::uint32_t header = 0;
  std::vector<MarkerFact> markers;
};

// Where octets went missing (capture.gap, capture.truncated, connection.lost-mid-fpdu):
// the finding's place in the stream, with the FPDUs framed just before and after it.
struct StreamSpan {
  std::uint32_t seq = 0;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
};
struct GapView {
  Direction direction{};
  StreamSpan at;                     // the finding's seq/offset (length unknown)
  std::optional<StreamSpan> before;  // the last FPDU framed before it
  std::optional<StreamSpan> after;   // the first FPDU framed after it
};

struct ConnectionTrace {
  std::vector<LadderItem> ladder;
  bool ladder_full = false;
  std::size_t fpdus_drawn[2] = {0, 0};
  std::array<TimeBins, 2> throughput;          // ULPDU octets by direction
  std::array<TimeBins, 3> findings_over_time;  // by severity
  std::array<std::vector<StripFpdu>, 2> strip;
  std::map<std::size_t, Place> places;  // by index into the connection's findings
  std::map<std::size_t, GapView> gaps;  // by index into the connection's findings
  std::array<std::optional<StreamSpan>, 2> last_fpdu;
  std::size_t findings_seen = 0;
  // Findings still waiting for the FPDU they concern: index, direction, stream offset.
  struct Waiting {
    std::size_t index;
    Direction direction;
    std::uint64_t offset;
    DiagId id;
    TcpSeq seq;
  };
  std::vector<Waiting> waiting;
  // The last startup frame of each direction: where it sits.
  std::array<std::optional<std::pair<TcpSeq, StartupFrame>>, 2> last_startup;
  std::array<std::uint64_t, 2> last_startup_frame{};
  // The last FPDU reported in each direction (its markers kept alongside; no ULPDU), for
  // findings about it that come after it.
  std::array<std::optional<FpduEvent>, 2> last_event;
  std::array<std::vector<MarkerFact>, 2> last_markers;
  // The last marker seen in each direction (the grid a revised FPDU's pad runs through).
  std::array<std::optional<TcpSeq>, 2> last_marker;
  // A place whose dump reaches past its FPDU (where a missing CRC field belongs): the first
  // frame of the next FPDU of its direction holds those octets.
  std::array<std::optional<std::size_t>, 2> reaching_past;
  // Its RDMA messages as the library groups its FPDUs (the first kLadderMessages listed, for
  // the ladder folded by message), and the last one each direction began (-1: none).
  RdmaMessageLog messages{kLadderMessages};
  std::array<std::int64_t, 2> last_message{-1, -1};
};

// Everything the HTML report keeps of one capture, by connection number (as in reports).
struct CaptureTrace {
  std::map<std::uint32_t, ConnectionTrace> connections;
  std::size_t places = 0;
  bool bytes_readable = true;  // false: a pipe or live capture (no dump)
  std::string bytes_note;      // why octets are missing, if they are
};

// An EventSink in front of the report's Collector: forwards every event to it, and keeps
// the trace.
class HtmlTracer : public EventSink {
 public:
  HtmlTracer(EventSink& next, CaptureTrace& trace) : next_(next), trace_(trace) {}
  void on_finding(const Finding& finding) override;
  void on_startup_frame(std::uint32_t connection, Direction direction, const StartupFrame& frame,
                        std::uint64_t frame_number, TcpSeq seq) override;
  void on_fpdu(const FpduEvent& fpdu) override;
  void on_fpdu_revised(const FpduEvent& revised, bool markers) override;
  void on_connection_start(const ConnectionSummary& summary) override;
  void on_connection_end(const ConnectionSummary& summary) override;

 private:
  ConnectionTrace& of(std::uint32_t library_id);
  void add(ConnectionTrace& c, LadderItem item);
  ladder::Band& band(ConnectionTrace& c, const FpduEvent& fpdu);
  bool place_waiting(ConnectionTrace& c, const FpduEvent& fpdu);
  void redraw_revised(ConnectionTrace& c, const FpduEvent& revised);
  void ladder_fpdu(ConnectionTrace& c, const FpduEvent& fpdu, bool eventful,
                   const RdmaMessage* message);

  EventSink& next_;
  CaptureTrace& trace_;
  std::set<std::uint32_t> open_;        // the connections started and not yet ended
  std::uint32_t last_id_ = UINT32_MAX;  // the connection of the last FPDU (a cache)
  std::uint64_t frame_seen_ = 0;        // the latest frame any event was at (capture order)
  bool retime_ = false;                 // the FPDU being traced was reported late
  // Ladder times are the time of the frame being read when their event came (`now_ns_`):
  // an event of a later frame at that same time shows those of earlier frames came late.
  struct Stamped {
    ConnectionTrace* connection;
    std::size_t item;  // into its ladder
    bool band_last;    // the band's last_ns, not the item's ns
    std::uint64_t frame;
  };
  std::uint64_t now_ns_ = 0;
  std::vector<Stamped> stamped_;
  void clock(std::uint64_t frame, std::uint64_t ns);
  void stamp(ConnectionTrace& c, bool band_last, std::uint64_t frame);
  ConnectionTrace* last_ = nullptr;
};

// Reads the octets of every Place of `trace` back from the capture file `path` (a second,
// bounded pass: only the frames that hold them are decoded; it stops after the last), and
// the capture time of the frames the ladder's rows are at (the library stamps an FPDU or a
// finding with the time it was reported: later, for octets held until a framing decision).
// `connections`: the capture's connections as reported (numbered as the trace is);
// `options`: how the first pass decoded (the tunnel ports, the limits of IP reassembly);
// `ip_fragments`: the first pass met IP fragments, so this one reassembles them too, from the
// capture's first frame on.
struct ConnectionReport;
void read_places(const std::string& path, const std::vector<ConnectionReport>& connections,
                 CaptureTrace& trace, const AnalyzerOptions& options, bool ip_fragments);

}  // namespace mpa::report
