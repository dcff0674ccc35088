// A pcap file read by libpcap's own loop (pcap_next_ex): a pipe, a file in another byte order
// or version, and every file from where reading it in place handed over.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "capture/capture_source.h"
#include "capture/decompressor.h"
#include "mpa/packet_decoder.h"

namespace mpa::capture {
namespace {

class LibpcapSource final : public CaptureSource {
 public:
  LibpcapSource(const SourceContext& context, std::unique_ptr<PcapFile> file, PcapPosition position)
      : context_(context),
        file_(std::move(file)),
        position_(std::move(position)),
        nanosecond_(pcap_get_tstamp_precision(file_->pcap) == PCAP_TSTAMP_PRECISION_NANO) {}
  Next next(CaptureRecord& record, std::string& error) override;
  std::uint64_t bytes_read() const override;
  std::uint32_t snaplen() const override { return pcap_snaplen(file_->pcap); }
  // The chunks a source read in place handed over stay until released.
  void release(std::uint64_t offset) override { position_.held.give_back(offset); }
  // Reads the records before record `position.records` + 1 again, without giving them.
  bool catch_up(PcapPosition& position, std::string& error);

 private:
  const SourceContext& context_;
  std::unique_ptr<PcapFile> file_;
  // bytes_seen: bytes_read() where the stream cannot tell its position (a pipe): the payload
  // bytes seen so far, which understates the file by its per-record overhead.
  PcapPosition position_;
  bool nanosecond_ = false;
  // libpcap reading the records read in place again to this one: an error before it (where
  // it found the stream damaged sooner) is about this record, the next unread.
  std::uint64_t reading_to_ = 0;
};

Next LibpcapSource::next(CaptureRecord& record, std::string& error) {
  if (context_.stop.load(std::memory_order_relaxed)) return Next::End;
  record.mapped = false;
  pcap_pkthdr* header = nullptr;
  const std::uint8_t* data = nullptr;
  const int result = pcap_next_ex(file_->pcap, &header, &data);
  // Interrupted (Ctrl-C while reading a pipe): what was read counts, the rest is not there.
  if (result < 0 && context_.stop.load(std::memory_order_relaxed)) return Next::End;
  if (result == 1) {
    pcap_record(*header, data, position_.link_type, nanosecond_, ++position_.records, record);
    position_.bytes_seen += header->caplen;
    return Next::Record;
  }
  if (result == PCAP_ERROR_BREAK) return Next::End;  // end of file
  const std::uint64_t number = std::max(position_.records + 1, reading_to_);
  error = pcap_error(context_.name, number, result, file_->pcap, file_->decompressor);
  return Next::Error;
}

std::uint64_t LibpcapSource::bytes_read() const {
  if (FILE* stream = pcap_file(file_->pcap); stream != nullptr) {
    const long position = std::ftell(stream);
    if (position >= 0) return static_cast<std::uint64_t>(position);
  }
  return position_.bytes_seen;
}

bool LibpcapSource::catch_up(PcapPosition& position, std::string& error) {
  const std::uint64_t read = position.records;
  reading_to_ = read + 1;
  CaptureRecord skipped;
  while (position_.records < read) {
    const Next status = next(skipped, error);
    if (status == Next::Error) return false;
    if (status == Next::End) {
      error = fmt::format("{}: record {}: unreadable record (the file changed while read)",
                          context_.name, read + 1);
      return false;
    }
  }
  position_.bytes_seen = position.bytes_seen;
  position_.held = std::move(position.held);
  reading_to_ = 0;
  return true;
}

}  // namespace

// pcap_datalink() returns DLT_* values, which differ from the LINKTYPE_* values written in
// files (and used by decode_frame) for a few link types whose DLT numbers were never agreed
// across operating systems. libpcap maps LINKTYPE_RAW (101) to DLT_RAW (12, or 14), and on
// OpenBSD LINKTYPE_LOOP (108) to DLT_LOOP (12); map them back.
std::uint32_t pcap_link_type(pcap_t* pcap) {
  const int dlt = pcap_datalink(pcap);
  // DLT 14 is raw IP on OpenBSD (and in files written there); DLT_RAW elsewhere is 12.
  if (dlt == DLT_RAW || dlt == 14) return link_type::kRaw;
  if (dlt == DLT_LOOP) return link_type::kLoop;
  return static_cast<std::uint32_t>(dlt);
}

std::uint32_t pcap_snaplen(pcap_t* pcap) {
  const int snaplen = pcap_snapshot(pcap);
  return snaplen < 0 ? 0 : static_cast<std::uint32_t>(snaplen);
}

void pcap_record(const pcap_pkthdr& header, const std::uint8_t* data, std::uint32_t link_type,
                 bool nanosecond, std::uint64_t number, CaptureRecord& record) {
  record.number = number;
  const auto seconds = header.ts.tv_sec < 0 ? 0 : static_cast<std::uint64_t>(header.ts.tv_sec);
  const auto fraction = header.ts.tv_usec < 0 ? 0 : static_cast<std::uint64_t>(header.ts.tv_usec);
  record.timestamp_ns = seconds * 1'000'000'000u + (nanosecond ? fraction : fraction * 1000u);
  record.original_length = header.len;
  record.link_type = link_type;
  record.data = std::span<const std::uint8_t>(data, header.caplen);
}

std::string pcap_error(const std::string& name, std::uint64_t number, int result, pcap_t* pcap,
                       const Decompressor* decompressor) {
  if (result == PCAP_ERROR && decompressor != nullptr && decompressor->failed) {
    return fmt::format("{}: record {}: {} ({})", name, number,
                       decompressor->cut_short ? "truncated record" : "unreadable record",
                       decompressor->problem);
  }
  if (result == PCAP_ERROR) {
    const char* message = pcap_geterr(pcap);
    const bool truncated = std::strstr(message, "truncated") != nullptr;
    return fmt::format("{}: record {}: {} ({})", name, number,
                       truncated ? "truncated record" : "unreadable record", message);
  }
  // 0 (timeout) only happens on live captures; anything else is undocumented.
  return fmt::format("{}: record {}: unexpected pcap_next_ex result {}", name, number, result);
}

std::unique_ptr<CaptureSource> make_libpcap_source(const SourceContext& context,
                                                   std::unique_ptr<PcapFile> file,
                                                   PcapPosition position) {
  return std::make_unique<LibpcapSource>(context, std::move(file), std::move(position));
}

std::unique_ptr<CaptureSource> make_libpcap_source_reading_again(const SourceContext& context,
                                                                 PcapPosition& position,
                                                                 std::string& error) {
  std::unique_ptr<PcapFile> file;
  std::string problem;
  if (!open_pcap_file(context, file, problem)) {
    error = fmt::format("{}: record {}: unreadable record ({})", context.name, position.records + 1,
                        problem);
    return nullptr;
  }
  PcapPosition fresh;
  fresh.link_type = position.link_type;
  auto source = std::make_unique<LibpcapSource>(context, std::move(file), std::move(fresh));
  if (!source->catch_up(position, error)) return nullptr;
  return source;
}

}  // namespace mpa::capture
