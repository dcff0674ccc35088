// Capture-file reading (files or standard input, plain, gzip or zstd), feeding the RFC 5044
// MPA checker one record at a time: pcap through libpcap, pcapng block by block
// (pcapng_stream.h: interfaces of different link types and snaplens, as Wireshark reads them,
// which libpcap 1.10 refuses). A plain regular file is mapped and its records are parsed in
// place (no copy into user space at all); a pcap record the mapping cannot give as libpcap
// would (an unusual header, a record cut short, the end of the mapping) is read by libpcap
// from its own offset on, so that what is read and every message stay libpcap's. A compressed
// pcap file is decompressed into chunks whose records are parsed where they lie, likewise;
// where a record cannot be given so, libpcap reads the file again from its start and takes
// over at that record. Each way of reading is a source of its own (capture_source.h); this is
// their public face.
#include "mpa/capture_reader.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "capture/capture_source.h"
#include "capture/pcapng_out.h"

namespace mpa {

struct CaptureReader::Impl {
  capture::SourceContext context;
  std::unique_ptr<capture::CaptureSource> source;
  // The interfaces declared before the first record (pcap, live: the one).
  std::vector<std::uint32_t> link_types;
  // A plain regular file whose records read in place can be read again (read_again): its
  // descriptor (the source's own, open while the reader is).
  int again_fd = -1;
  bool regular = false;
  // Set once, before reading: stop() (maybe in a signal handler) interrupts the source then.
  bool live = false;
  // Once a read failed or the file ended, the source is not worth asking again.
  bool failed = false;
  bool ended = false;
  // -w: every record read is written here too.
  std::unique_ptr<capture::PcapngWriter> writer;
  std::chrono::steady_clock::time_point last_flush;
  bool write_failed = false;
};

namespace {

std::string display_name(const std::string& path) {
  return path == "-" ? std::string("<stdin>") : path;
}

}  // namespace

std::unique_ptr<CaptureReader> CaptureReader::open(const std::string& path, std::string& error) {
  std::unique_ptr<CaptureReader> reader(new CaptureReader());
  reader->impl_ = std::make_unique<Impl>();
  Impl& impl = *reader->impl_;
  impl.context.path = path;
  impl.context.name = display_name(path);
  capture::OpenedCapture opened;
  if (!capture::open_capture(impl.context, true, opened, error)) return nullptr;
  impl.source = std::move(opened.source);
  impl.link_types = std::move(opened.link_types);
  impl.again_fd = opened.again_fd;
  if (impl.again_fd >= 0) impl.context.again = reader.get();
  impl.regular = opened.regular;
  reader->path_ = path;
  reader->file_size_ = opened.file_size;
  return reader;
}

std::unique_ptr<CaptureReader> CaptureReader::open_live(const LiveOptions& options,
                                                        std::string& error) {
  std::unique_ptr<CaptureReader> reader(new CaptureReader());
  reader->impl_ = std::make_unique<Impl>();
  Impl& impl = *reader->impl_;
  impl.context.path = options.interface;
  impl.context.name = options.interface;
  std::uint32_t link_type = 0;
  impl.source = capture::open_live_source(impl.context, options, link_type, error);
  if (impl.source == nullptr) return nullptr;
  impl.live = true;
  impl.link_types = {link_type};
  reader->path_ = options.interface;
  return reader;
}

void CaptureReader::stop() {
  impl_->context.stop.store(true, std::memory_order_relaxed);
  if (impl_->live) impl_->source->interrupt();
}

bool CaptureReader::live() const { return impl_->live; }

CaptureReader::~CaptureReader() = default;

bool CaptureReader::read_again(std::uint64_t at, std::span<std::uint8_t> out) const {
  if (impl_->again_fd < 0) return false;
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n =
        pread(impl_->again_fd, out.data() + got, out.size() - got, static_cast<off_t>(at + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

bool CaptureReader::keep(const std::string& path, std::string& error) {
  auto writer = std::make_unique<capture::PcapngWriter>();
  if (!writer->open(path, link_type(), snaplen(), error)) return false;
  impl_->writer = std::move(writer);
  impl_->last_flush = std::chrono::steady_clock::now();
  return true;
}

ReadStatus CaptureReader::next(CaptureRecord& record) {
  Impl& impl = *impl_;
  const ReadStatus status = read_next(record);
  if (!impl.writer || impl.write_failed) return status;
  std::string problem;
  bool ok = true;
  if (status == ReadStatus::Record) {
    ok = impl.writer->write(record.timestamp_ns, record.original_length, record.data, problem);
    const auto now = std::chrono::steady_clock::now();
    if (ok && now - impl.last_flush >= std::chrono::seconds(1)) {
      ok = impl.writer->flush(problem);
      impl.last_flush = now;
    }
  } else {
    ok = impl.writer->flush(problem);
  }
  if (!ok) {
    // This record is still analysed; the reading ends at the next one, naming the file.
    impl.write_failed = true;
    impl.failed = true;
    error_ = problem;
  }
  return status;
}

ReadStatus CaptureReader::read_next(CaptureRecord& record) {
  Impl& impl = *impl_;
  if (impl.failed) return ReadStatus::Error;
  if (impl.ended) return ReadStatus::End;
  record.source = nullptr;
  for (;;) {
    switch (impl.source->next(record, error_)) {
      case capture::Next::Record:
        return ReadStatus::Record;
      case capture::Next::End:
        impl.ended = true;
        return ReadStatus::End;
      case capture::Next::Error:
        impl.failed = true;
        return ReadStatus::Error;
      case capture::Next::HandOver:
        break;
    }
    // The source that could not go on hands over to libpcap. Where it cannot, it stays: the
    // octets of the records it gave stay until the reader goes.
    std::unique_ptr<capture::CaptureSource> successor = impl.source->hand_over(error_);
    if (successor == nullptr) {
      impl.failed = true;
      return ReadStatus::Error;
    }
    impl.source = std::move(successor);
  }
}

std::uint32_t CaptureReader::link_type() const {
  return impl_->link_types.empty() ? 0 : impl_->link_types.front();
}

const std::vector<std::uint32_t>& CaptureReader::link_types() const { return impl_->link_types; }

std::uint32_t CaptureReader::snaplen() const { return impl_->source->snaplen(); }

void CaptureReader::hold_mapped() { impl_->source->hold(); }

void CaptureReader::release(std::uint64_t offset) { impl_->source->release(offset); }

bool CaptureReader::regular_file() const { return impl_->regular && !impl_->live; }

std::optional<LiveStats> CaptureReader::live_stats() const { return impl_->source->live_stats(); }

std::uint64_t CaptureReader::bytes_read() const { return impl_->source->bytes_read(); }

std::string libpcap_version() { return pcap_lib_version(); }

}  // namespace mpa
