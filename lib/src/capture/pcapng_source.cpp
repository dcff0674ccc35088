// pcapng read block by block (pcapng_stream.h), whatever its interfaces' link types and
// snaplens; a plain regular file mapped (mapped_file.h), its blocks read in place.
#include <fmt/format.h>

#include <algorithm>

#include "capture/capture_source.h"
#include "capture/mapped_file.h"
#include "capture/pcapng_stream.h"

namespace mpa::capture {
namespace {

class PcapngSource final : public CaptureSource {
 public:
  PcapngSource(const SourceContext& context, Input& input, std::unique_ptr<MappedFile> map,
               std::unique_ptr<PcapngStream> pcapng)
      : context_(context),
        buffer_(std::move(input.buffer)),
        stream_(input.stream),
        decompressor_(input.decompressor),
        map_(std::move(map)),
        pcapng_(std::move(pcapng)) {
    input.stream = nullptr;
    if (!pcapng_->interfaces().empty()) snaplen_ = pcapng_->interfaces().front().snaplen;
  }
  ~PcapngSource() override { std::fclose(stream_); }
  PcapngSource(const PcapngSource&) = delete;
  PcapngSource& operator=(const PcapngSource&) = delete;

  Next next(CaptureRecord& record, std::string& error) override;
  std::uint64_t bytes_read() const override { return pcapng_->consumed(); }
  // The first interface's (of the first section).
  std::uint32_t snaplen() const override { return snaplen_; }
  void hold() override { hold_ = true; }
  void release(std::uint64_t offset) override {
    if (map_ != nullptr) map_->give_back(offset);
  }

 private:
  // Asks for the octets up to `offset` plus kAhead to be brought into the cache, a line at a
  // time, as reading goes on: the record headers that the reading thread looks at next are
  // there when it gets to them (instead of a cache miss per record), and the octets are near
  // when the analysing thread reads them.
  static constexpr std::uint64_t kAhead = 16u << 10;
  void prefetch(std::uint64_t offset);
  Next failure(PcapngStream::Result result, std::string detail, std::string& error) const;

  const SourceContext& context_;
  std::unique_ptr<char[]> buffer_;  // the stream's buffer; outlives the stream
  FILE* stream_ = nullptr;
  // The decompressing stream's state (owned by the FILE), to say why a compressed capture
  // could not be read to its end.
  const Decompressor* decompressor_ = nullptr;
  // A plain regular file, mapped (nullptr: read through stdio). Its pages are given back
  // behind the reader, or (`hold_`) only when release() says so. (Pages are mapped in by page
  // faults, which map 64 KiB around each: here faster than MADV_POPULATE_READ ahead.)
  std::unique_ptr<MappedFile> map_;
  std::unique_ptr<PcapngStream> pcapng_;
  std::uint32_t snaplen_ = 0;
  std::uint64_t records_ = 0;
  std::uint64_t prefetched_ = 0;
  bool hold_ = false;
};

void PcapngSource::prefetch(std::uint64_t offset) {
  const std::uint64_t to = std::min<std::uint64_t>(map_->size(), offset + kAhead);
  if (prefetched_ < offset) prefetched_ = offset & ~std::uint64_t{63};
  for (; prefetched_ < to; prefetched_ += 64) __builtin_prefetch(map_->data() + prefetched_);
}

Next PcapngSource::next(CaptureRecord& record, std::string& error) {
  if (context_.stop.load(std::memory_order_relaxed)) return Next::End;
  PcapngPacket packet;
  std::string detail;
  if (map_ != nullptr) {
    if (!hold_) map_->give_back(pcapng_->consumed());
    prefetch(pcapng_->consumed());
  }
  const PcapngStream::Result result = pcapng_->next(packet, detail);
  if (result == PcapngStream::Result::Packet) {
    record.number = ++records_;
    record.timestamp_ns = packet.timestamp_ns;
    record.original_length = packet.original_length;
    record.link_type = packet.link_type;
    record.data = packet.data;
    record.mapped = packet.mapped;
    if (packet.mapped && context_.again != nullptr) {
      record.source = context_.again;
      record.at = static_cast<std::uint64_t>(packet.data.data() - map_->data());
    }
    return Next::Record;
  }
  // The end, or interrupted (Ctrl-C while reading a pipe): what was read counts.
  if (result == PcapngStream::Result::End || context_.stop.load(std::memory_order_relaxed)) {
    return Next::End;
  }
  return failure(result, std::move(detail), error);
}

Next PcapngSource::failure(PcapngStream::Result result, std::string detail,
                           std::string& error) const {
  bool truncated = result == PcapngStream::Result::Truncated;
  if (decompressor_ != nullptr && decompressor_->failed) {
    truncated = decompressor_->cut_short;
    detail = decompressor_->problem;
  } else {
    detail = "pcapng: " + detail;
  }
  error = fmt::format("{}: record {}: {} ({})", context_.name, records_ + 1,
                      truncated ? "truncated record" : "unreadable record", detail);
  return Next::Error;
}

}  // namespace

bool open_pcapng_source(const SourceContext& context, bool in_place, Input& input,
                        OpenedCapture& opened, std::string& error) {
  // A plain pcapng regular file: mapped, its blocks read in place.
  std::unique_ptr<MappedFile> map;
  if (input.compression == Compression::None && input.regular && in_place) {
    auto file = std::make_unique<MappedFile>(fileno(input.stream), input.file_size);
    if (file->data() != nullptr) map = std::move(file);
  }
  // (Its Section Header Block type reads the same in both byte orders.)
  auto pcapng = std::make_unique<PcapngStream>();
  std::string detail;
  if (map != nullptr) pcapng->map(map->data(), map->size());
  if (!pcapng->open(input.stream, detail)) {
    std::fclose(input.stream);
    input.stream = nullptr;
    error = fmt::format("{}: cannot read capture: pcapng: {}", context.name, detail);
    return false;
  }
  for (const PcapngInterface& interface : pcapng->interfaces()) {
    opened.link_types.push_back(interface.link_type);
  }
  if (map != nullptr) opened.again_fd = fileno(input.stream);
  opened.source = std::make_unique<PcapngSource>(context, input, std::move(map), std::move(pcapng));
  return true;
}

}  // namespace mpa::capture
