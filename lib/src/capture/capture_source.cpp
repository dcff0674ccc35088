// The factory of capture sources (capture_source.h): opens the input, decompresses it where
// it is compressed, and picks the source by what it holds.
#include "capture/capture_source.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mpa::capture {
namespace {

// stdio's default 4 KiB buffer costs a read(2) per 4 KiB; captures are read front to back.
constexpr std::size_t kReadBufferSize = 1u << 20;
// A compressed pcap file read in place: stdio gives libpcap only the file header (the chunks
// are read past it straight from the decompressor, or the ring decompresses again from the
// start), so a larger buffer would only be decompressed into, and for zstd twice.
constexpr std::size_t kHeaderBufferSize = 4u << 10;

constexpr std::array<std::uint8_t, 4> kPcapngMagic = {0x0A, 0x0D, 0x0D, 0x0A};

// libpcap's open errors often start with the file name already; don't repeat it. Its words
// for a file that is no capture at all are said plainly: no octets at all (after any
// decompression) is an empty file; a head that is no pcap magic (nor pcapng's, nor a
// compressor's, sniffed before) is not a capture file.
std::string open_error(const std::string& name, const char* pcap_message) {
  std::string_view message(pcap_message);
  if (message.find("tried to read 4 file header bytes, only got 0") != std::string_view::npos)
    return fmt::format("{}: empty file", name);
  if (message.starts_with("unknown file format") ||
      message.find("tried to read 4 file header bytes") != std::string_view::npos)
    return fmt::format("{}: not a capture file", name);
  if (message.size() > name.size() + 2 && message.substr(0, name.size()) == name &&
      message.substr(name.size(), 2) == ": ") {
    return std::string(message);
  }
  return fmt::format("{}: cannot read capture: {}", name, message);
}

// The file, or a duplicate of standard input ("-"); `status` its fstat(2).
FILE* open_file(const SourceContext& context, struct stat& status, std::string& error) {
  if (context.path == "-") {
    // Read a duplicate of fd 0 so that pcap_close() leaves the process's stdin open.
    const int fd = dup(STDIN_FILENO);
    FILE* stream = fd >= 0 ? fdopen(fd, "rb") : nullptr;
    if (stream == nullptr) {
      error = fmt::format("{}: cannot read standard input: {}", context.name, std::strerror(errno));
      if (fd >= 0) ::close(fd);
      return nullptr;
    }
    if (fstat(fd, &status) != 0) status = {};
    return stream;
  }
  FILE* stream = std::fopen(context.path.c_str(), "rb");
  if (stream == nullptr) {
    error = fmt::format("{}: cannot open: {}", context.name, std::strerror(errno));
    return nullptr;
  }
  if (fstat(fileno(stream), &status) != 0) status = {};
  return stream;
}

// The input opened, through a decompressing stream where it is compressed (.gz, .zst, .lz4).
bool open_input(const SourceContext& context, Input& input, std::string& error) {
  struct stat status {};
  FILE* stream = open_file(context, status, error);
  if (stream == nullptr) return false;
  input.regular = S_ISREG(status.st_mode);
  if (input.regular) input.file_size = static_cast<std::uint64_t>(status.st_size);
  FILE* readable =
      decompressing(stream, input.regular, input.compression, input.head, input.decompressor);
  if (readable == nullptr) {
    error = fmt::format("{}: cannot read: {}", context.name, std::strerror(errno));
    std::fclose(stream);
    return false;
  }
  input.stream = readable;
  if (input.compression != Compression::None) input.file_size = 0;  // progress in octets read
  const Decompressor* d = input.decompressor;
  if (d != nullptr && d->failed && d->head_size < input.head.size()) {
    error = fmt::format("{}: cannot read capture: {}", context.name, d->problem);
    std::fclose(input.stream);
    return false;
  }
  return true;
}

void set_buffer(Input& input, std::size_t size) {
  input.buffer.reset(new char[size]);
  std::setvbuf(input.stream, input.buffer.get(), _IOFBF, size);
}

// libpcap opens the pcap file `input` holds (its stream and buffer taken).
bool open_with_libpcap(const SourceContext& context, Input& input, std::unique_ptr<PcapFile>& file,
                       std::string& error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  // Nanosecond precision: libpcap scales every timestamp to it, whatever the file holds.
  pcap_t* pcap =
      pcap_fopen_offline_with_tstamp_precision(input.stream, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (pcap == nullptr) {
    std::fclose(input.stream);
    error = open_error(context.name, errbuf);
    return false;
  }
  file = std::make_unique<PcapFile>();
  file->buffer = std::move(input.buffer);
  file->pcap = pcap;
  file->decompressor = input.decompressor;
  return true;
}

// A pcap file in this machine's byte order whose records libpcap reads as they are (version
// 2.4, micro- or nanosecond time stamps, a snapshot length: other versions have record
// headers of their own), read in place from after the file header libpcap read.
std::unique_ptr<CaptureSource> in_place_source(const SourceContext& context, const Input& input,
                                               std::unique_ptr<PcapFile>& file,
                                               OpenedCapture& opened) {
  pcap_t* pcap = file->pcap;
  const bool usual = pcap_major_version(pcap) == 2 && pcap_minor_version(pcap) == 4 &&
                     !pcap_is_swapped(pcap) && pcap_snapshot(pcap) > 0;
  if (!usual) return nullptr;
  std::uint32_t magic;
  std::memcpy(&magic, input.head.data(), 4);
  const bool nanosecond = magic == 0xa1b23c4du;
  if (input.compression == Compression::None) {
    opened.again_fd = fileno(pcap_file(pcap));
    return make_plain_pcap_source(context, std::move(file), nanosecond);
  }
  if (input.compression == Compression::Zstd) {
    if (auto ring = make_zstd_ring_source(context, file, nanosecond)) return ring;
  }
  return make_decompressed_pcap_source(context, std::move(file), nanosecond);
}

}  // namespace

bool open_capture(const SourceContext& context, bool in_place, OpenedCapture& opened,
                  std::string& error) {
  Input input;
  if (!open_input(context, input, error)) return false;
  opened.regular = input.regular;
  opened.file_size = input.file_size;
  // A pcap file in this machine's byte order (its magic, first) from a regular file, read in
  // place: a plain one with pread(2); a compressed one (not from standard input: libpcap reads
  // it again by its path where it takes over) past what stdio holds already straight from its
  // decompressor.
  std::uint32_t magic;
  std::memcpy(&magic, input.head.data(), 4);
  const bool compressed = input.compression != Compression::None;
  const bool chunked = input.regular && in_place &&
                       (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du) &&
                       (!compressed || context.path != "-");
  set_buffer(input, chunked && compressed ? kHeaderBufferSize : kReadBufferSize);
  if (input.head == kPcapngMagic)
    return open_pcapng_source(context, in_place, input, opened, error);
  std::unique_ptr<PcapFile> file;
  if (!open_with_libpcap(context, input, file, error)) return false;
  opened.link_types = {pcap_link_type(file->pcap)};
  if (chunked) {
    opened.source = in_place_source(context, input, file, opened);
    if (opened.source != nullptr) return true;
    if (compressed) {
      // libpcap reads it from its start again, by its path.
      file.reset();
      opened = OpenedCapture{};
      return open_capture(context, false, opened, error);
    }
  }
  PcapPosition position;
  position.link_type = opened.link_types.front();
  opened.source = make_libpcap_source(context, std::move(file), std::move(position));
  return true;
}

bool open_pcap_file(const SourceContext& context, std::unique_ptr<PcapFile>& file,
                    std::string& error) {
  Input input;
  if (!open_input(context, input, error)) return false;
  set_buffer(input, kReadBufferSize);
  return open_with_libpcap(context, input, file, error);
}

}  // namespace mpa::capture
