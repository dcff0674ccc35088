// A live capture on a network interface, through libpcap (CaptureReader::open_live).
#include <fmt/format.h>
#include <poll.h>

#include "capture/capture_source.h"

namespace mpa::capture {
namespace {

class LiveSource final : public CaptureSource {
 public:
  LiveSource(const SourceContext& context, pcap_t* pcap, bool nano, std::uint64_t duration_ms)
      : context_(context),
        pcap_(pcap),
        link_type_(pcap_link_type(pcap)),
        nanosecond_(nano && pcap_get_tstamp_precision(pcap) == PCAP_TSTAMP_PRECISION_NANO) {
    if (duration_ms) {
      deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(duration_ms);
    }
  }
  ~LiveSource() override { pcap_close(pcap_); }
  LiveSource(const LiveSource&) = delete;
  LiveSource& operator=(const LiveSource&) = delete;

  Next next(CaptureRecord& record, std::string& error) override;
  std::uint64_t bytes_read() const override { return bytes_seen_; }
  std::uint32_t snaplen() const override { return pcap_snaplen(pcap_); }
  std::optional<LiveStats> live_stats() const override;
  void interrupt() override { pcap_breakloop(pcap_); }
  std::uint32_t link_type() const { return link_type_; }

 private:
  const SourceContext& context_;
  pcap_t* pcap_;
  std::uint32_t link_type_ = 0;
  bool nanosecond_ = false;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  std::uint64_t records_ = 0;
  std::uint64_t bytes_seen_ = 0;  // the payload bytes seen so far (for progress)
};

Next LiveSource::next(CaptureRecord& record, std::string& error) {
  record.mapped = false;
  pcap_pkthdr* header = nullptr;
  const std::uint8_t* data = nullptr;
  int result = 0;
  for (;;) {
    if (context_.stop.load(std::memory_order_relaxed) ||
        std::chrono::steady_clock::now() >= deadline_) {
      return Next::End;
    }
    result = pcap_next_ex(pcap_, &header, &data);
    if (result != 0) break;
    // 0: nothing has arrived on the live interface yet; wait a little for it.
    pollfd fd{pcap_get_selectable_fd(pcap_), POLLIN, 0};
    poll(&fd, 1, 200);
  }
  if (result < 0 && context_.stop.load(std::memory_order_relaxed)) return Next::End;
  if (result == 1) {
    pcap_record(*header, data, link_type_, nanosecond_, ++records_, record);
    bytes_seen_ += header->caplen;
    return Next::Record;
  }
  if (result == PCAP_ERROR_BREAK) return Next::End;
  error = pcap_error(context_.name, records_ + 1, result, pcap_, nullptr);
  return Next::Error;
}

std::optional<LiveStats> LiveSource::live_stats() const {
  pcap_stat stat{};
  if (pcap_stats(pcap_, &stat) != 0) return std::nullopt;
  return LiveStats{stat.ps_recv, stat.ps_drop, stat.ps_ifdrop};
}

// The settings of `options` on the created handle, then activated; `nano`: it gives
// nanosecond time stamps.
bool activate(pcap_t* pcap, const CaptureReader::LiveOptions& options, bool& nano,
              std::string& error) {
  const std::string& name = options.interface;
  // Settings before activation fail only on an activated handle; say so if one does.
  const int settings[] = {
      pcap_set_snaplen(pcap, static_cast<int>(options.snaplen)),
      pcap_set_promisc(pcap, 0),
      // Packets reach the reader in blocks the kernel hands over when full or after 200 ms,
      // and the reader wakes at least that often to notice stop() and the duration. Not
      // immediate mode: there libpcap 1.10 takes a TPACKET_V2 ring of fixed slots sized for a
      // 64 KiB offloaded segment (veth, most NICs), so the 32 MiB below would hold 512
      // packets, a few milliseconds of a busy link (tests/bench/live_rate.sh: drops from
      // 150-440 Mbit/s there, none at 2.5 Gbit/s here); TPACKET_V3 packs the packets as sent.
      pcap_set_timeout(pcap, 200),
      pcap_set_immediate_mode(pcap, 0),
      pcap_set_buffer_size(pcap, 32 << 20),
  };
  for (const int status : settings) {
    if (status != 0) {
      error = fmt::format("{}: cannot capture: {}", name, pcap_statustostr(status));
      return false;
    }
  }
  // Nanosecond time stamps where the interface offers them (not an error otherwise).
  nano = pcap_set_tstamp_precision(pcap, PCAP_TSTAMP_PRECISION_NANO) == 0;
  const int activated = pcap_activate(pcap);
  if (activated < 0) {
    error = fmt::format("{}: cannot capture: {}", name,
                        activated == PCAP_ERROR ? pcap_geterr(pcap) : pcap_statustostr(activated));
    return false;
  }
  return true;
}

// The BPF filter of `options`, if any, and non-blocking reads.
bool filter_and_unblock(pcap_t* pcap, const CaptureReader::LiveOptions& options,
                        std::string& error) {
  const std::string& name = options.interface;
  if (!options.filter.empty()) {
    bpf_program program{};
    if (pcap_compile(pcap, &program, options.filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0 ||
        pcap_setfilter(pcap, &program) != 0) {
      error = fmt::format("{}: capture filter \"{}\": {}", name, options.filter, pcap_geterr(pcap));
      pcap_freecode(&program);
      return false;
    }
    pcap_freecode(&program);
  }
  // Non-blocking reads and poll(2) with a timeout: pcap_next_ex alone may wait for a packet
  // forever, and a quiet interface must not keep stop() or the duration
  // from ending the capture.
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  if (pcap_setnonblock(pcap, 1, errbuf) != 0 || pcap_get_selectable_fd(pcap) < 0) {
    error = fmt::format("{}: cannot capture without blocking: {}", name, errbuf);
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<CaptureSource> open_live_source(const SourceContext& context,
                                                const CaptureReader::LiveOptions& options,
                                                std::uint32_t& link_type, std::string& error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* pcap = pcap_create(options.interface.c_str(), errbuf);
  if (pcap == nullptr) {
    error = fmt::format("{}: cannot capture: {}", options.interface, errbuf);
    return nullptr;
  }
  bool nano = false;
  if (!activate(pcap, options, nano, error) || !filter_and_unblock(pcap, options, error)) {
    pcap_close(pcap);
    return nullptr;
  }
  auto source = std::make_unique<LiveSource>(context, pcap, nano, options.duration_ms);
  link_type = source->link_type();
  return source;
}

}  // namespace mpa::capture
