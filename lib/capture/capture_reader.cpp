// Capture-file reading through libpcap (pcap and pcapng, files or standard input), feeding
// the RFC 5044 MPA checker one record at a time.
#include "mpa/capture_reader.h"

#include <fmt/format.h>
#include <pcap/pcap.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mpa/packet_decoder.h"

namespace mpa {
namespace {

// pcap_datalink() returns DLT_* values, which differ from the LINKTYPE_* values written in
// files (and used by decode_frame) for a few link types whose DLT numbers were never agreed
// across operating systems. libpcap maps LINKTYPE_RAW (101) to DLT_RAW (12, or 14), and on
// OpenBSD LINKTYPE_LOOP (108) to DLT_LOOP (12); map them back.
std::uint32_t dlt_to_linktype(int dlt) {
  if (dlt == DLT_RAW) return link_type::kRaw;
  if (dlt == DLT_LOOP) return link_type::kLoop;
  return static_cast<std::uint32_t>(dlt);
}

std::string display_name(const std::string& path) {
  return path == "-" ? std::string("<stdin>") : path;
}

// libpcap's open errors often start with the file name already; don't repeat it.
std::string open_error(const std::string& name, const char* pcap_message) {
  std::string_view message(pcap_message);
  if (message.size() > name.size() + 2 && message.substr(0, name.size()) == name &&
      message.substr(name.size(), 2) == ": ") {
    return std::string(message);
  }
  return fmt::format("{}: cannot read capture: {}", name, message);
}

}  // namespace

// stdio's default 4 KiB buffer costs a read(2) per 4 KiB; captures are read front to back.
constexpr std::size_t kReadBufferSize = 1u << 20;

struct CaptureReader::Impl {
  std::unique_ptr<char[]> buffer;  // the stream's buffer; outlives the stream (see ~Impl)
  pcap_t* pcap = nullptr;
  bool nanosecond_timestamps = false;
  bool failed = false;
  bool ended = false;
  std::uint64_t records = 0;
  // Fallback for bytes_read() when the stream cannot tell its position (a pipe): the
  // payload bytes seen so far, which understates the file by its per-record overhead.
  std::uint64_t bytes_seen = 0;

  ~Impl() {
    if (pcap != nullptr) pcap_close(pcap);
  }
};

std::unique_ptr<CaptureReader> CaptureReader::open(const std::string& path, std::string& error) {
  const std::string name = display_name(path);
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* pcap = nullptr;
  std::uint64_t file_size = 0;
  struct stat status {};
  FILE* stream = nullptr;
  std::unique_ptr<char[]> buffer;
  if (path == "-") {
    // Read a duplicate of fd 0 so that pcap_close() leaves the process's stdin open.
    const int fd = dup(STDIN_FILENO);
    stream = fd >= 0 ? fdopen(fd, "rb") : nullptr;
    if (stream == nullptr) {
      error = fmt::format("{}: cannot read standard input: {}", name, std::strerror(errno));
      if (fd >= 0) ::close(fd);
      return nullptr;
    }
    if (fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
      file_size = static_cast<std::uint64_t>(status.st_size);
    }
  } else {
    stream = std::fopen(path.c_str(), "rb");
    if (stream == nullptr) {
      error = fmt::format("{}: cannot open: {}", name, std::strerror(errno));
      return nullptr;
    }
    if (fstat(fileno(stream), &status) == 0 && S_ISREG(status.st_mode)) {
      file_size = static_cast<std::uint64_t>(status.st_size);
    }
  }
  buffer.reset(new char[kReadBufferSize]);
  std::setvbuf(stream, buffer.get(), _IOFBF, kReadBufferSize);
  // Nanosecond precision: libpcap scales every timestamp to it, whatever the file holds.
  pcap = pcap_fopen_offline_with_tstamp_precision(stream, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (pcap == nullptr) std::fclose(stream);
  if (pcap == nullptr) {
    error = open_error(name, errbuf);
    return nullptr;
  }

  std::unique_ptr<CaptureReader> reader(new CaptureReader());
  reader->impl_ = std::make_unique<Impl>();
  reader->impl_->buffer = std::move(buffer);
  reader->impl_->pcap = pcap;
  reader->impl_->nanosecond_timestamps =
      pcap_get_tstamp_precision(pcap) == PCAP_TSTAMP_PRECISION_NANO;
  reader->path_ = path;
  reader->file_size_ = file_size;
  return reader;
}

CaptureReader::~CaptureReader() = default;

ReadStatus CaptureReader::next(CaptureRecord& record) {
  Impl& impl = *impl_;
  // Once a read failed or the file ended, libpcap's state is not worth asking again.
  if (impl.failed) return ReadStatus::Error;
  if (impl.ended) return ReadStatus::End;

  pcap_pkthdr* header = nullptr;
  const std::uint8_t* data = nullptr;
  const int result = pcap_next_ex(impl.pcap, &header, &data);
  if (result == 1) {
    ++impl.records;
    record.number = impl.records;
    const auto seconds = header->ts.tv_sec < 0 ? 0 : static_cast<std::uint64_t>(header->ts.tv_sec);
    const auto fraction =
        header->ts.tv_usec < 0 ? 0 : static_cast<std::uint64_t>(header->ts.tv_usec);
    record.timestamp_ns =
        seconds * 1'000'000'000u + (impl.nanosecond_timestamps ? fraction : fraction * 1000u);
    record.original_length = header->len;
    record.data = std::span<const std::uint8_t>(data, header->caplen);
    impl.bytes_seen += header->caplen;
    return ReadStatus::Record;
  }
  if (result == PCAP_ERROR_BREAK) {  // end of file
    impl.ended = true;
    return ReadStatus::End;
  }
  impl.failed = true;
  const std::uint64_t number = impl.records + 1;
  const std::string name = display_name(path_);
  if (result == PCAP_ERROR) {
    const char* message = pcap_geterr(impl.pcap);
    const bool truncated = std::strstr(message, "truncated") != nullptr;
    error_ = fmt::format("{}: record {}: {} ({})", name, number,
                         truncated ? "truncated record" : "unreadable record", message);
  } else {
    // 0 (timeout) only happens on live captures; anything else is undocumented.
    error_ = fmt::format("{}: record {}: unexpected pcap_next_ex result {}", name, number, result);
  }
  return ReadStatus::Error;
}

std::uint32_t CaptureReader::link_type() const {
  // libpcap 1.10 refuses pcapng interfaces whose link type differs from the first one, so
  // the link type cannot change mid-file; ask anyway in case a later libpcap does.
  return dlt_to_linktype(pcap_datalink(impl_->pcap));
}

std::uint32_t CaptureReader::snaplen() const {
  const int snaplen = pcap_snapshot(impl_->pcap);
  return snaplen < 0 ? 0 : static_cast<std::uint32_t>(snaplen);
}

std::uint64_t CaptureReader::bytes_read() const {
  if (FILE* stream = pcap_file(impl_->pcap); stream != nullptr) {
    const long position = std::ftell(stream);
    if (position >= 0) return static_cast<std::uint64_t>(position);
  }
  return impl_->bytes_seen;
}

std::string libpcap_version() { return pcap_lib_version(); }

}  // namespace mpa
