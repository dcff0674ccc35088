// Unit tests for the capture reader (pcap through libpcap, pcapng with mixed interfaces and
// sections, standard input, truncated and missing files) that feeds the RFC 5044 checker.
#include "mpa/capture_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pcap/pcap.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "mpa/packet_decoder.h"
#include "pcap_writer.h"    // mpa_synth
#include "pcapng_writer.h"  // mpa_synth

namespace mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;

// In the system's temporary folder (TMPDIR), not the build folder: the tests also run as a
// user who may not write there.
std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("mpa_capture_reader_" + std::to_string(getpid()) + "_" + name))
      .string();
}

Bytes frame_bytes(std::size_t size, std::uint8_t seed) {
  Bytes out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::uint8_t>(seed + i);
  return out;
}

struct Written {
  timeval ts;  // tv_usec holds nanoseconds when the file has nanosecond precision
  Bytes data;
  std::uint32_t original_length;
};

// Writes a pcap file through libpcap itself.
void write_pcap(const std::string& path, int dlt, const std::vector<Written>& records,
                bool nanoseconds = false) {
  pcap_t* dead = pcap_open_dead_with_tstamp_precision(
      dlt, 65535, nanoseconds ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
  ASSERT_NE(dead, nullptr);
  pcap_dumper_t* dumper = pcap_dump_open(dead, path.c_str());
  ASSERT_NE(dumper, nullptr) << pcap_geterr(dead);
  for (const Written& record : records) {
    pcap_pkthdr header{};
    header.ts = record.ts;
    header.caplen = static_cast<bpf_u_int32>(record.data.size());
    header.len = record.original_length;
    pcap_dump(reinterpret_cast<u_char*>(dumper), &header, record.data.data());
  }
  pcap_dump_close(dumper);
  pcap_close(dead);
}

std::vector<Written> three_records() {
  return {{{1700000000, 123456}, frame_bytes(60, 1), 60},
          {{1700000001, 5}, frame_bytes(100, 2), 1514},
          {{1700000002, 999999}, frame_bytes(80, 3), 80}};
}

void truncate_file(const std::string& path, std::uintmax_t remove) {
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size - remove);
}

void expect_record(CaptureReader& reader, std::uint64_t number, const Written& expected,
                   std::uint64_t expected_ns) {
  CaptureRecord record;
  ASSERT_EQ(reader.next(record), ReadStatus::Record) << reader.error();
  EXPECT_EQ(record.number, number);
  EXPECT_EQ(record.timestamp_ns, expected_ns);
  EXPECT_EQ(record.original_length, expected.original_length);
  EXPECT_EQ(Bytes(record.data.begin(), record.data.end()), expected.data);
}

TEST(CaptureReader, ReadsBackAPcapWrittenByLibpcap) {
  const std::string path = temp_path("basic.pcap");
  const auto records = three_records();
  write_pcap(path, DLT_EN10MB, records);

  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  EXPECT_EQ(reader->path(), path);
  EXPECT_EQ(reader->link_type(), link_type::kEthernet);
  EXPECT_EQ(reader->snaplen(), 65535u);
  EXPECT_EQ(reader->file_size(), std::filesystem::file_size(path));
  EXPECT_LT(reader->bytes_read(), reader->file_size());
  expect_record(*reader, 1, records[0], 1700000000'123456000u);
  expect_record(*reader, 2, records[1], 1700000001'000005000u);
  expect_record(*reader, 3, records[2], 1700000002'999999000u);
  CaptureRecord record;
  EXPECT_EQ(reader->next(record), ReadStatus::End);
  EXPECT_EQ(reader->next(record), ReadStatus::End);
  EXPECT_EQ(reader->bytes_read(), reader->file_size());
  EXPECT_TRUE(reader->error().empty());
  std::filesystem::remove(path);
}

// mpa-check -i -w: what the reader returns is written as pcapng, record N as frame N, and
// reads back the same (bytes, lengths, nanosecond time stamps, link type and snaplen).
TEST(CaptureReader, KeepWritesEveryRecordReadAsPcapng) {
  const std::string path = temp_path("keep-source.pcap");
  const std::string kept = temp_path("kept.pcapng");
  const auto records = three_records();
  write_pcap(path, DLT_EN10MB, records);
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  ASSERT_TRUE(reader->keep(kept, error)) << error;
  CaptureRecord record;
  while (reader->next(record) == ReadStatus::Record) {
  }
  EXPECT_TRUE(reader->error().empty()) << reader->error();
  reader.reset();

  auto again = CaptureReader::open(kept, error);
  ASSERT_NE(again, nullptr) << error;
  EXPECT_EQ(again->link_type(), link_type::kEthernet);
  EXPECT_EQ(again->snaplen(), 65535u);
  expect_record(*again, 1, records[0], 1700000000'123456000u);
  expect_record(*again, 2, records[1], 1700000001'000005000u);
  expect_record(*again, 3, records[2], 1700000002'999999000u);
  EXPECT_EQ(again->next(record), ReadStatus::End);
  std::filesystem::remove(path);
  std::filesystem::remove(kept);
}

TEST(CaptureReader, KeepNamesAFileItCannotCreate) {
  const std::string path = temp_path("keep-fail.pcap");
  write_pcap(path, DLT_EN10MB, three_records());
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  const std::string kept = temp_path("no-such-folder") + "/kept.pcapng";
  EXPECT_FALSE(reader->keep(kept, error));
  EXPECT_NE(error.find(kept + ": cannot write"), std::string::npos) << error;
  CaptureRecord record;
  EXPECT_EQ(reader->next(record), ReadStatus::Record);  // reading goes on without it
  std::filesystem::remove(path);
}

TEST(CaptureReader, KeepsNanosecondTimestamps) {
  const std::string path = temp_path("nano.pcap");
  const std::vector<Written> records = {{{1700000000, 123456789}, frame_bytes(40, 9), 40}};
  write_pcap(path, DLT_EN10MB, records, /*nanoseconds=*/true);
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  expect_record(*reader, 1, records[0], 1700000000'123456789u);
  std::filesystem::remove(path);
}

TEST(CaptureReader, ReportsRawIpAsLinktypeRawNotDltRaw) {
  // libpcap hands out DLT_RAW (12) for LINKTYPE_RAW (101) files; the decoder wants 101.
  const std::string path = temp_path("raw.pcap");
  write_pcap(path, DLT_RAW, {{{1, 0}, frame_bytes(40, 0x45), 40}});
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  EXPECT_EQ(reader->link_type(), link_type::kRaw);
  std::filesystem::remove(path);

  for (int dlt : {DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_NULL, DLT_IPV4, DLT_IPV6}) {
    write_pcap(path, dlt, {});
    reader = CaptureReader::open(path, error);
    ASSERT_NE(reader, nullptr) << error;
    EXPECT_EQ(reader->link_type(), static_cast<std::uint32_t>(dlt));
    std::filesystem::remove(path);
  }
}

// pcapng files as mpa-synth writes them: one interface, Ethernet, snaplen 262144,
// nanosecond timestamps; each packet 100 octets longer on the wire than captured.
// Opens `path`, reads `good` records, then expects the next read to fail with an error
// naming `message` (file, record, cause).
void expect_error_after(const std::string& path, std::size_t good, const std::string& message) {
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  CaptureRecord record;
  for (std::size_t i = 0; i < good; ++i) ASSERT_EQ(reader->next(record), ReadStatus::Record) << i;
  ASSERT_EQ(reader->next(record), ReadStatus::Error);
  EXPECT_NE(reader->error().find(message), std::string::npos) << reader->error();
}

Bytes pcapng_file(const std::vector<std::pair<std::uint64_t, Bytes>>& packets) {
  std::vector<synth::PcapngPacket> out;
  for (const auto& [timestamp_ns, data] : packets) {
    out.push_back({timestamp_ns, data, static_cast<std::uint32_t>(data.size() + 100)});
  }
  return synth::encode_pcapng(out, 262144);
}

void write_file(const std::string& path, const Bytes& bytes) { synth::write_file(path, bytes); }

TEST(CaptureReader, ReadsAHandWrittenPcapngWithNanosecondResolution) {
  const std::string path = temp_path("two.pcapng");
  const Bytes first = frame_bytes(61, 7);  // odd length: exercises block padding
  const Bytes second = frame_bytes(64, 8);
  write_file(path, pcapng_file({{1700000000'000000001u, first}, {1700000000'500000000u, second}}));

  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  EXPECT_EQ(reader->link_type(), link_type::kEthernet);
  EXPECT_EQ(reader->snaplen(), 262144u);
  expect_record(*reader, 1, {{}, first, 161}, 1700000000'000000001u);
  expect_record(*reader, 2, {{}, second, 164}, 1700000000'500000000u);
  CaptureRecord record;
  EXPECT_EQ(reader->next(record), ReadStatus::End);
  EXPECT_EQ(reader->bytes_read(), reader->file_size());
  std::filesystem::remove(path);
}

// What `dumpcap -i lo -i eth0` and a mergecap of Ethernet and cooked captures write, and
// libpcap 1.10 refuses: interfaces of different link types, snaplens and time stamp units.
TEST(CaptureReader, ReadsPcapngInterfacesOfDifferentLinkTypesAndSnaplens) {
  const std::string path = temp_path("mixed.pcapng");
  synth::PcapngSectionSpec section;
  section.interfaces = {
      {link_type::kEthernet, 262144, 9, std::nullopt},
      {link_type::kLinuxSll, 96, std::nullopt, std::nullopt},  // microseconds (the default)
      {14, 0, 0x8A, 1700000000},  // OpenBSD's raw IP, 2^-10 s, if_tsoffset
  };
  const Bytes sll = frame_bytes(96, 1), ethernet = frame_bytes(61, 2), simple = frame_bytes(70, 3),
              raw = frame_bytes(40, 4);
  section.records = {
      {1, synth::PcapngBlockKind::Enhanced, 1700000000'000001u, sll, 1514},
      {0, synth::PcapngBlockKind::Enhanced, 1700000000'000000007u, ethernet, std::nullopt},
      {0, synth::PcapngBlockKind::Simple, 0, simple, std::nullopt},  // SPB: interface 0, no time
      {2, synth::PcapngBlockKind::ObsoletePacket, 3 * 1024 + 512, raw, std::nullopt},
  };
  section.statistics_block = true;
  write_file(path, synth::encode_pcapng_sections({section}));

  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  EXPECT_EQ(
      reader->link_types(),
      (std::vector<std::uint32_t>{link_type::kEthernet, link_type::kLinuxSll, link_type::kRaw}));
  EXPECT_EQ(reader->link_type(), link_type::kEthernet);
  CaptureRecord record;
  ASSERT_EQ(reader->next(record), ReadStatus::Record) << reader->error();
  EXPECT_EQ(record.link_type, link_type::kLinuxSll);
  EXPECT_EQ(record.timestamp_ns, 1700000000'000001000u);  // microseconds by default
  EXPECT_EQ(record.original_length, 1514u);
  EXPECT_EQ(Bytes(record.data.begin(), record.data.end()), sll);
  ASSERT_EQ(reader->next(record), ReadStatus::Record) << reader->error();
  EXPECT_EQ(record.number, 2u);
  EXPECT_EQ(record.link_type, link_type::kEthernet);
  EXPECT_EQ(record.timestamp_ns, 1700000000'000000007u);
  EXPECT_EQ(Bytes(record.data.begin(), record.data.end()), ethernet);
  ASSERT_EQ(reader->next(record), ReadStatus::Record) << reader->error();
  EXPECT_EQ(record.number, 3u);
  EXPECT_EQ(record.link_type, link_type::kEthernet);
  EXPECT_EQ(record.original_length, 70u);
  EXPECT_EQ(Bytes(record.data.begin(), record.data.end()), simple);
  ASSERT_EQ(reader->next(record), ReadStatus::Record) << reader->error();
  EXPECT_EQ(record.number, 4u);
  EXPECT_EQ(record.link_type, link_type::kRaw);
  EXPECT_EQ(record.timestamp_ns, 1700000003'500000000u);
  EXPECT_EQ(Bytes(record.data.begin(), record.data.end()), raw);
  EXPECT_EQ(reader->next(record), ReadStatus::End);
  EXPECT_EQ(reader->bytes_read(), reader->file_size());
  std::filesystem::remove(path);
}

TEST(CaptureReader, ReadsTheRecordOfEachPcapngInterfaceWithItsLinkType) {
  const std::string path = temp_path("link-per-record.pcapng");
  synth::PcapngSectionSpec section;
  section.interfaces = {{link_type::kLinuxSll, 262144, 9, std::nullopt},
                        {link_type::kEthernet, 65535, 9, std::nullopt}};
  section.records = {{1, synth::PcapngBlockKind::Enhanced, 5, frame_bytes(60, 1), std::nullopt},
                     {0, synth::PcapngBlockKind::Enhanced, 6, frame_bytes(60, 2), std::nullopt}};
  write_file(path, synth::encode_pcapng_sections({section}));
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  EXPECT_EQ(reader->snaplen(), 262144u);  // the first interface's
  CaptureRecord record;
  ASSERT_EQ(reader->next(record), ReadStatus::Record);
  EXPECT_EQ(record.link_type, link_type::kEthernet);
  ASSERT_EQ(reader->next(record), ReadStatus::Record);
  EXPECT_EQ(record.link_type, link_type::kLinuxSll);
  std::filesystem::remove(path);
}

TEST(CaptureReader, ReadsPcapngSectionsOfEitherByteOrderNumberingRecordsOnward) {
  const std::string path = temp_path("sections.pcapng");
  synth::PcapngSectionSpec little;
  little.interfaces = {{link_type::kEthernet, 262144, 9, std::nullopt}};
  little.records = {{0, synth::PcapngBlockKind::Enhanced, 1'000'000'123u, frame_bytes(60, 1), 70}};
  synth::PcapngSectionSpec big;
  big.big_endian = true;
  big.interfaces = {{link_type::kLinuxSll2, 128, 6, 10}};
  big.records = {{0, synth::PcapngBlockKind::Enhanced, 2'000'001u, frame_bytes(80, 2), 1500},
                 {0, synth::PcapngBlockKind::Simple, 0, frame_bytes(128, 3), 300}};
  write_file(path, synth::encode_pcapng_sections({little, big}));

  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  expect_record(*reader, 1, {{}, frame_bytes(60, 1), 70}, 1'000'000'123u);
  expect_record(*reader, 2, {{}, frame_bytes(80, 2), 1500}, 12'000'001'000u);  // + 10 s offset
  CaptureRecord record;
  ASSERT_EQ(reader->next(record), ReadStatus::Record) << reader->error();
  EXPECT_EQ(record.number, 3u);
  EXPECT_EQ(record.link_type, link_type::kLinuxSll2);
  EXPECT_EQ(Bytes(record.data.begin(), record.data.end()), frame_bytes(128, 3));  // snaplen 128
  EXPECT_EQ(record.original_length, 300u);
  EXPECT_EQ(reader->next(record), ReadStatus::End);
  // The interfaces declared before the first record, not the last section's.
  EXPECT_EQ(reader->link_types(), std::vector<std::uint32_t>{link_type::kEthernet});
  EXPECT_EQ(reader->link_type(), link_type::kEthernet);
  EXPECT_EQ(reader->snaplen(), 262144u);
  std::filesystem::remove(path);
}

TEST(CaptureReader, NamesAPcapngPacketOfAnUndeclaredInterfaceAfterTheRecordsBeforeIt) {
  const std::string path = temp_path("undeclared.pcapng");
  synth::PcapngSectionSpec section;
  section.interfaces = {{link_type::kEthernet, 262144, 9, std::nullopt}};
  section.records = {{0, synth::PcapngBlockKind::Enhanced, 1, frame_bytes(60, 1), std::nullopt},
                     {3, synth::PcapngBlockKind::Enhanced, 2, frame_bytes(60, 2), std::nullopt}};
  write_file(path, synth::encode_pcapng_sections({section}));
  expect_error_after(path, 1,
                     path + ": record 2: unreadable record (pcapng: packet of interface 3");
  std::filesystem::remove(path);
}

TEST(CaptureReader, NamesAPcapngBlockWhoseTrailingLengthDisagrees) {
  const std::string path = temp_path("trailer.pcapng");
  Bytes file = pcapng_file({{1, frame_bytes(60, 1)}, {2, frame_bytes(60, 2)}});
  file[file.size() - 4] ^= 0x04;  // the last block's trailing total length
  write_file(path, file);
  expect_error_after(path, 1, path + ": record 2: unreadable record (pcapng: block of type 0x6");
  std::filesystem::remove(path);
}

TEST(CaptureReader, ReportsALastRecordCutMidDataAsAnErrorNamingFileAndRecord) {
  const std::string path = temp_path("cut-data.pcap");
  const auto records = three_records();
  write_pcap(path, DLT_EN10MB, records);
  truncate_file(path, 30);  // record 3 keeps its header and 50 of 80 bytes

  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  expect_record(*reader, 1, records[0], 1700000000'123456000u);
  expect_record(*reader, 2, records[1], 1700000001'000005000u);
  CaptureRecord record;
  ASSERT_EQ(reader->next(record), ReadStatus::Error);
  EXPECT_NE(reader->error().find(path + ": record 3: truncated record"), std::string::npos)
      << reader->error();
  EXPECT_EQ(reader->next(record), ReadStatus::Error);  // stays failed
  std::filesystem::remove(path);
}

TEST(CaptureReader, ReportsALastRecordCutMidHeaderAsAnError) {
  const std::string path = temp_path("cut-header.pcap");
  const auto records = three_records();
  write_pcap(path, DLT_EN10MB, records);
  truncate_file(path, 80 + 6);  // record 3 keeps 10 of its 16 header bytes

  expect_error_after(path, 2, path + ": record 3: truncated record");
  std::filesystem::remove(path);
}

TEST(CaptureReader, ReportsATruncatedPcapngBlockAsAnError) {
  const std::string path = temp_path("cut.pcapng");
  Bytes file = pcapng_file({{1, frame_bytes(60, 1)}, {2, frame_bytes(60, 2)}});
  // erase, not resize: resize trips a g++ 12 -Wstringop-overflow false positive under ASan.
  file.erase(file.end() - 20, file.end());
  write_file(path, file);
  expect_error_after(path, 1, path + ": record 2: ");
  std::filesystem::remove(path);
}

TEST(CaptureReader, ReturnsNullAndNamesAMissingFile) {
  const std::string path = temp_path("does-not-exist.pcap");
  std::string error;
  EXPECT_EQ(CaptureReader::open(path, error), nullptr);
  EXPECT_NE(error.find(path), std::string::npos) << error;
}

TEST(CaptureReader, ReturnsNullAndNamesAFileThatIsNoCapture) {
  const std::string path = temp_path("not-a-capture.txt");
  write_file(path, Bytes(64, 'x'));
  std::string error;
  EXPECT_EQ(CaptureReader::open(path, error), nullptr);
  EXPECT_NE(error.find(path), std::string::npos) << error;
  std::filesystem::remove(path);
}

TEST(CaptureReader, ReadsStandardInputWhenThePathIsADash) {
  const std::string path = temp_path("stdin.pcap");
  const auto records = three_records();
  write_pcap(path, DLT_EN10MB, records);
  const auto file_size = std::filesystem::file_size(path);

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Only async-signal-safe-ish, gtest-free work here; the exit code carries the verdict.
    FILE* in = std::fopen(path.c_str(), "rb");
    if (in == nullptr || dup2(fileno(in), STDIN_FILENO) < 0) _exit(10);
    std::string error;
    auto reader = CaptureReader::open("-", error);
    if (reader == nullptr) _exit(11);
    if (reader->file_size() != file_size) _exit(12);
    CaptureRecord record;
    std::uint64_t count = 0;
    while (reader->next(record) == ReadStatus::Record) {
      if (record.data.size() != records[count].data.size()) _exit(13);
      ++count;
    }
    if (count != 3 || !reader->error().empty()) _exit(14);
    reader.reset();
    // The reader closed its own duplicate, not the process's standard input.
    if (fcntl(STDIN_FILENO, F_GETFD) < 0) _exit(15);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::filesystem::remove(path);
}

TEST(CaptureReader, NamesStandardInputInErrors) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[1]);
    if (dup2(pipe_fds[0], STDIN_FILENO) < 0) _exit(10);
    std::string error;
    auto reader = CaptureReader::open("-", error);  // empty pipe: no file header
    if (reader != nullptr) _exit(11);
    if (error.find("<stdin>") == std::string::npos) _exit(12);
    _exit(0);
  }
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace mpa
