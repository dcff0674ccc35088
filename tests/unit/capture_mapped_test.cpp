// Unit tests for reading in place (issue 24): a pcap file is read into chunks, a plain pcapng
// file mapped, and their records are parsed there, libpcap taking over at any record it would
// read otherwise; the pipeline's reading thread hands the same records over in the same order;
// a gzip capture read through ISA-L says what zlib says of a damaged or cut stream.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <pcap/pcap.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "faults.h"     // mpa_synth
#include "generator.h"  // mpa_synth
#include "mpa/analyzer.h"
#include "mpa/capture_reader.h"
#include "mpa/frame_feeder.h"
#include "mpa/pipeline.h"
#include "scenario.h"  // mpa_synth

namespace mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("mpa_capture_mapped_" + std::to_string(getpid()) + "_" + name))
      .string();
}

void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

Bytes pcap_header(std::uint32_t snaplen) {
  Bytes out(24);
  const std::uint32_t h[6] = {0xa1b2c3d4, 0x00040002, 0, 0, snaplen, 1};
  std::memcpy(out.data(), h, sizeof h);
  return out;
}

void append_record(Bytes& out, std::uint32_t seconds, std::uint32_t caplen, std::uint8_t seed) {
  const std::uint32_t h[4] = {seconds, 7, caplen, caplen};
  const auto* p = reinterpret_cast<const std::uint8_t*>(h);
  out.insert(out.end(), p, p + sizeof h);
  for (std::uint32_t i = 0; i < caplen; ++i) out.push_back(static_cast<std::uint8_t>(seed + i));
}

struct Seen {
  std::uint64_t number, ns;
  std::uint32_t length;
  Bytes data;
  bool mapped;
};

std::vector<Seen> read_all(CaptureReader& reader, ReadStatus& last) {
  std::vector<Seen> seen;
  CaptureRecord r;
  while ((last = reader.next(r)) == ReadStatus::Record) {
    seen.push_back({r.number, r.timestamp_ns, r.original_length,
                    Bytes(r.data.begin(), r.data.end()), r.mapped});
  }
  return seen;
}

TEST(CaptureMapped, ReadsAPlainPcapInPlace) {
  const std::string path = temp_path("plain.pcap");
  Bytes file = pcap_header(65535);
  for (std::uint8_t i = 0; i < 5; ++i) append_record(file, 1700000000 + i, 60 + i, i);
  write_file(path, file);
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  EXPECT_TRUE(reader->regular_file());
  ReadStatus last{};
  const auto seen = read_all(*reader, last);
  EXPECT_EQ(last, ReadStatus::End);
  ASSERT_EQ(seen.size(), 5u);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_TRUE(seen[i].mapped);
    EXPECT_EQ(seen[i].number, i + 1);
    EXPECT_EQ(seen[i].ns, (1700000000 + i) * 1'000'000'000ull + 7000);
    EXPECT_EQ(seen[i].data.size(), 60 + i);
    EXPECT_EQ(seen[i].data[0], i);
  }
  EXPECT_EQ(reader->bytes_read(), file.size());
  std::filesystem::remove(path);
}

TEST(CaptureMapped, LibpcapTakesOverAtARecordBeyondTheSnapshotLength) {
  // Record 2 claims more octets than the file's snapshot length: libpcap gives the first
  // snaplen of them (and skips the rest); from there on libpcap reads.
  const std::string path = temp_path("snaplen.pcap");
  Bytes file = pcap_header(100);
  append_record(file, 1, 60, 1);
  append_record(file, 2, 150, 2);
  append_record(file, 3, 80, 3);
  write_file(path, file);
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  ReadStatus last{};
  const auto seen = read_all(*reader, last);
  EXPECT_EQ(last, ReadStatus::End) << reader->error();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_TRUE(seen[0].mapped);
  EXPECT_FALSE(seen[1].mapped);
  EXPECT_EQ(seen[1].data.size(), 100u);
  EXPECT_EQ(seen[1].data[0], 2);
  EXPECT_EQ(seen[2].data.size(), 80u);
  EXPECT_EQ(seen[2].number, 3u);
  std::filesystem::remove(path);
}

TEST(CaptureMapped, ACutRecordIsNamedAsLibpcapNamesIt) {
  const std::string path = temp_path("cut.pcap");
  Bytes file = pcap_header(65535);
  append_record(file, 1, 60, 1);
  append_record(file, 2, 70, 2);
  file.resize(file.size() - 5);
  write_file(path, file);
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  ReadStatus last{};
  const auto seen = read_all(*reader, last);
  EXPECT_EQ(last, ReadStatus::Error);
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_NE(reader->error().find("record 2: truncated record (truncated dump file; tried to read "
                                 "70 captured bytes, only got 65)"),
            std::string::npos)
      << reader->error();
  std::filesystem::remove(path);
}

TEST(CaptureMapped, RecordsWrittenAfterTheFileWasOpenedAreRead) {
  const std::string path = temp_path("growing.pcap");
  Bytes file = pcap_header(65535);
  append_record(file, 1, 60, 1);
  write_file(path, file);
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  CaptureRecord r;
  ASSERT_EQ(reader->next(r), ReadStatus::Record);
  Bytes more;
  append_record(more, 2, 90, 9);
  std::ofstream(path, std::ios::binary | std::ios::app)
      .write(reinterpret_cast<const char*>(more.data()), static_cast<std::streamsize>(more.size()));
  ASSERT_EQ(reader->next(r), ReadStatus::Record) << reader->error();
  EXPECT_EQ(r.number, 2u);
  EXPECT_EQ(r.data.size(), 90u);
  EXPECT_EQ(reader->next(r), ReadStatus::End);
  std::filesystem::remove(path);
}

TEST(CaptureMapped, HeldRecordsStayValidUntilReleased) {
  const std::string path = temp_path("held.pcap");
  Bytes file = pcap_header(65535);
  for (std::uint8_t i = 0; i < 50; ++i) append_record(file, i, 1000, i);
  write_file(path, file);
  std::string error;
  auto reader = CaptureReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  reader->hold_mapped();
  std::vector<CaptureRecord> records;
  CaptureRecord r;
  while (reader->next(r) == ReadStatus::Record) records.push_back(r);
  ASSERT_EQ(records.size(), 50u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    ASSERT_TRUE(records[i].mapped);
    EXPECT_EQ(records[i].data[0], static_cast<std::uint8_t>(i));
    EXPECT_EQ(records[i].data[999], static_cast<std::uint8_t>(i + 999));
  }
  reader->release(reader->bytes_read());
  std::filesystem::remove(path);
}

// What an analysis saw, for comparing two runs.
class Recording : public EventSink {
 public:
  void on_finding(const Finding& f) override {
    findings.emplace_back(f.id, f.connection, f.frame, f.certain_at, f.message);
  }
  void on_fpdu(const FpduEvent& e) override {
    fpdus.emplace_back(e.connection, e.start_offset, e.last_frame, e.crc_computed);
  }
  std::vector<std::tuple<DiagId, std::uint32_t, std::uint64_t, std::uint64_t, std::string>>
      findings;
  std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t, std::uint32_t>> fpdus;
};

Recording analyse(const std::string& path, bool read_thread, PipelineResult& result,
                  std::optional<bool> decode_while_reading = std::nullopt) {
  std::string error;
  auto reader = CaptureReader::open(path, error);
  EXPECT_NE(reader, nullptr) << error;
  Recording sink;
  if (!reader) return sink;
  Analyzer analyzer(AnalyzerOptions{}, sink);
  PipelineOptions options;
  options.read_thread = read_thread;
  options.decode_while_reading = decode_while_reading;
  result = run_pipeline(*reader, analyzer, {}, options);
  return sink;
}

TEST(CaptureMapped, TheReadingThreadHandsOverTheSameRecords) {
  synth::Scenario s = synth::base_scenario("threads");
  synth::set_revision(s, 2);
  s.initiator.frame.m = s.responder.frame.m = true;
  s.initiator.frame.c = true;
  s.initiator.messages = synth::mixed_messages(300, {1442, 64, 4096, 9000, 17});
  s.responder.messages = synth::mixed_messages(100, {512, 65000});
  const Bytes image = synth::generate_pcap(s);
  const std::string path = temp_path("threads.pcap");
  write_file(path, image);
  // And the same capture cut inside its last record, and compressed (copied, not mapped).
  const std::string cut = temp_path("threads-cut.pcap");
  write_file(cut, Bytes(image.begin(), image.end() - 10));
  const std::string packed = temp_path("threads.pcap.gz");
  gzFile gz = gzopen(packed.c_str(), "wb");
  gzwrite(gz, image.data(), static_cast<unsigned>(image.size()));
  gzclose(gz);
  const std::string zst = temp_path("threads.pcap.zst");
  {
    Bytes frame(ZSTD_compressBound(image.size()));
    frame.resize(ZSTD_compress(frame.data(), frame.size(), image.data(), image.size(), 3));
    write_file(zst, frame);
  }
  PipelineResult plain;
  const Recording reference = analyse(path, false, plain);
  for (const std::string& file : {path, cut, packed, zst}) {
    PipelineResult one, two;
    const Recording a = analyse(file, false, one);
    const Recording b = analyse(file, true, two);
    if (file != cut) {  // compressed: the same as the plain file
      EXPECT_TRUE(one.ok) << file << ": " << one.error;
      EXPECT_EQ(a.fpdus, reference.fpdus) << file;
    }
    EXPECT_EQ(one.ok, two.ok) << file;
    EXPECT_EQ(one.error, two.error) << file;
    EXPECT_EQ(one.stats.frames, two.stats.frames) << file;
    EXPECT_EQ(one.stats.tcp_segments, two.stats.tcp_segments) << file;
    EXPECT_GT(a.fpdus.size(), 100u) << file;
    EXPECT_EQ(a.fpdus, b.fpdus) << file;
    EXPECT_EQ(a.findings, b.findings) << file;
    std::filesystem::remove(file);
  }
}

// `image` as one zstd frame (level 1).
Bytes zstd_of(const Bytes& image) {
  Bytes frame(ZSTD_compressBound(image.size()));
  frame.resize(ZSTD_compress(frame.data(), frame.size(), image.data(), image.size(), 1));
  return frame;
}

// Records decoded on the reading thread, on the analysing one, or on whichever has time: the
// same analysis as on one thread, for plain segments and for those that are not (tunnelled,
// carried in IP fragments), from a plain file and from its zstd copy.
TEST(CaptureMapped, WhicheverThreadDecodesTheAnalysisIsTheSame) {
  synth::Scenario s = synth::base_scenario("decoding");
  s.initiator.frame.m = s.responder.frame.m = true;
  s.initiator.frame.c = true;
  s.initiator.messages = synth::mixed_messages(400, {1442, 64, 9000, 17});
  s.responder.messages = synth::mixed_messages(100, {512, 4096});
  for (std::size_t i = 3; i < 300; i += 7) s.effects.fragment.push_back({synth::Dir::Initiator, i});
  const std::string plain = temp_path("decoding.pcap");
  const std::string wrapped = temp_path("decoding-vxlan.pcap");
  // And their zstd copies (decompressed into the ring on the reading thread).
  const auto write_both = [](const std::string& path, const Bytes& image) {
    write_file(path, image);
    write_file(path + ".zst", zstd_of(image));
  };
  write_both(plain, synth::generate_pcap(s));
  s.effects.wrap = *synth::encapsulation_named("vxlan:42");
  write_both(wrapped, synth::generate_pcap(s));
  for (const std::string& file : {plain, wrapped, plain + ".zst", wrapped + ".zst"}) {
    PipelineResult one;
    const Recording alone = analyse(file, false, one);
    EXPECT_TRUE(one.ok) << file << ": " << one.error;
    EXPECT_GT(alone.fpdus.size(), 400u) << file;
    EXPECT_GT(one.stats.ip_datagrams, 40u) << file;
    EXPECT_EQ(one.stats.tunnelled_segments > 0, file.starts_with(wrapped)) << file;
    for (const std::optional<bool> here :
         {std::optional<bool>{}, std::optional{true}, std::optional{false}}) {
      PipelineResult two;
      const Recording threaded = analyse(file, true, two, here);
      const std::string what =
          file + (here ? (*here ? ", reader decodes" : ", analyser decodes") : ", either decodes");
      EXPECT_EQ(two.stats.frames, one.stats.frames) << what;
      EXPECT_EQ(two.stats.tcp_segments, one.stats.tcp_segments) << what;
      EXPECT_EQ(two.stats.ip_fragments, one.stats.ip_fragments) << what;
      EXPECT_EQ(two.stats.tunnelled_segments, one.stats.tunnelled_segments) << what;
      EXPECT_EQ(threaded.fpdus, alone.fpdus) << what;
      EXPECT_EQ(threaded.findings, alone.findings) << what;
    }
    std::filesystem::remove(file);
  }
}

// The captures of the corpus, sorted.
std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  for (const char* folder : {"/captures", "/captures/siw", "/captures/plugfest"}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(MPA_SOURCE_DIR + std::string(folder))) {
      const std::string name = entry.path().string();
      if (name.ends_with(".pcap") || name.ends_with(".pcapng")) files.push_back(name);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The CRC of each segment's payload worked out on the reading thread (TcpSegment::payload_crc),
// taken where one FPDU fills the segment: the same analysis as on one thread, over every
// capture of the corpus (CRCs good, wrong, miscomputed in every recognised way, left out,
// not negotiated; markers, tunnels, fragments, gaps), to the CRC computed and every finding.
TEST(CaptureMapped, CrcsWorkedOutOnTheReadingThreadGiveTheSameAnalysisOverTheCorpus) {
  const std::vector<std::string> files = corpus_files();
  ASSERT_GT(files.size(), 150u);
  std::size_t crcs = 0;
  for (const std::string& file : files) {
    PipelineResult one, two;
    const Recording alone = analyse(file, false, one);
    const Recording threaded = analyse(file, true, two, true);
    EXPECT_EQ(threaded.fpdus, alone.fpdus) << file;
    EXPECT_EQ(threaded.findings, alone.findings) << file;
    EXPECT_EQ(two.ok, one.ok) << file;
    for (const auto& finding : alone.findings) {
      const DiagId id = std::get<0>(finding);
      crcs += id == DiagId::FpduCrcMismatch || id == DiagId::FpduCrcMiscomputed;
    }
  }
  EXPECT_GT(crcs, 20u);  // (wrong CRCs among them, whose markers' states are worked out)
}

// The records of a plain pcap or pcapng file read in place name where the file holds them
// (CaptureRecord::source, at): read again from there, they are the octets read. A compressed
// file's records name nowhere.
TEST(CaptureMapped, RecordsOfAPlainFileReadAgainWhereTheyLieAreTheOctetsRead) {
  std::size_t pcap = 0, pcapng = 0;
  Bytes octets;
  std::vector<std::string> files = corpus_files();
  // And a pcapng copy of the largest (CaptureReader::keep writes what it reads).
  const std::string as_pcapng = temp_path("again.pcapng");
  {
    const std::string largest = *std::max_element(
        files.begin(), files.end(), [](const std::string& a, const std::string& b) {
          return std::filesystem::file_size(a) < std::filesystem::file_size(b);
        });
    std::string error;
    auto reader = CaptureReader::open(largest, error);
    ASSERT_NE(reader, nullptr) << error;
    ASSERT_TRUE(reader->keep(as_pcapng, error)) << error;
    CaptureRecord record;
    while (reader->next(record) == ReadStatus::Record) {
    }
  }
  files.push_back(as_pcapng);
  for (const std::string& file : files) {
    std::string error;
    auto reader = CaptureReader::open(file, error);
    ASSERT_NE(reader, nullptr) << error;
    CaptureRecord record;
    while (reader->next(record) == ReadStatus::Record) {
      if (record.source == nullptr) continue;
      ASSERT_EQ(record.source, reader.get()) << file;
      octets.assign(record.data.size(), 0);
      ASSERT_TRUE(reader->read_again(record.at, octets)) << file << " record " << record.number;
      ASSERT_TRUE(std::equal(octets.begin(), octets.end(), record.data.begin()))
          << file << " record " << record.number;
      (file.ends_with(".pcapng") ? pcapng : pcap) += 1;
    }
  }
  EXPECT_GT(pcap, 10000u);
  EXPECT_GT(pcapng, 100u);
  std::filesystem::remove(as_pcapng);
  // Past the end of the file: not there.
  const std::string first = corpus_files().front();
  std::string error;
  auto reader = CaptureReader::open(first, error);
  ASSERT_NE(reader, nullptr) << error;
  octets.assign(16, 0);
  EXPECT_FALSE(reader->read_again(std::filesystem::file_size(first) - 8, octets));
  // gzip: decompressed octets lie nowhere in the file.
  const std::string packed = temp_path("again.pcap.gz");
  {
    std::ifstream in(first, std::ios::binary);
    const Bytes image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gzFile gz = gzopen(packed.c_str(), "wb");
    gzwrite(gz, image.data(), static_cast<unsigned>(image.size()));
    gzclose(gz);
  }
  reader = CaptureReader::open(packed, error);
  ASSERT_NE(reader, nullptr) << error;
  CaptureRecord record;
  std::size_t records = 0;
  while (reader->next(record) == ReadStatus::Record) {
    EXPECT_EQ(record.source, nullptr);
    ++records;
  }
  EXPECT_GT(records, 0u);
  EXPECT_FALSE(reader->read_again(24, octets));
  std::filesystem::remove(packed);
}

// Counts the reads the reassembly asks of a reader.
class CountedReads : public OctetSource {
 public:
  explicit CountedReads(const OctetSource& reader) : reader_(reader) {}
  bool read_again(std::uint64_t at, std::span<std::uint8_t> out) const override {
    ++reads;
    return reader_.read_again(at, out);
  }
  mutable std::size_t reads = 0;

 private:
  const OctetSource& reader_;
};

// `path` analysed record by record, the TCP reassembly keeping the place of the octets it
// delivers (`placed`: read again from the file to compare retransmissions) or a copy of them.
Recording analyse_records(const std::string& path, bool placed, std::size_t& reads) {
  std::string error;
  auto reader = CaptureReader::open(path, error);
  Recording sink;
  if (!reader) {
    ADD_FAILURE() << error;
    return sink;
  }
  CountedReads counted(*reader);
  Analyzer analyzer(AnalyzerOptions{}, sink);
  FrameFeeder feeder(analyzer);
  CaptureRecord record;
  while (reader->next(record) == ReadStatus::Record) {
    CapturedFrame frame = captured_frame(record);
    frame.source = placed && record.source != nullptr ? &counted : nullptr;
    feeder.feed(frame);
  }
  feeder.finish(feeder.stats().frames);
  reads += counted.reads;
  return sink;
}

// Retransmissions compared with the octets first delivered read again from the capture file
// (TcpSegment::payload_source) instead of a copy: the same analysis over every capture of
// the corpus, retransmissions that differ (by their octets and by digests) among them.
TEST(CaptureMapped, RetransmissionsComparedWithOctetsReadAgainGiveTheSameAnalysisOverTheCorpus) {
  // And captures retransmitting many segments, the same and changed, on both sides; and one
  // resent 80 KiB later, compared by its digest.
  std::vector<std::string> files = corpus_files();
  synth::Scenario s = synth::base_scenario("again");
  synth::set_revision(s, 2);
  s.initiator.frame.m = s.responder.frame.m = true;
  s.initiator.frame.c = s.responder.frame.c = true;
  s.initiator.messages = synth::mixed_messages(400, {1442, 64, 4096, 9000, 17});
  s.responder.messages = synth::mixed_messages(200, {512, 65000});
  for (std::size_t i = 3; i < 150; i += 7) {
    const synth::Dir dir = i % 2 == 0 ? synth::Dir::Initiator : synth::Dir::Responder;
    (i % 3 == 0 ? s.effects.mismatch : s.effects.duplicate).push_back({dir, i});
  }
  files.push_back(temp_path("again.pcap"));
  write_file(files.back(), synth::generate_pcap(s));
  synth::Scenario far = synth::base_scenario("again-far");
  synth::apply_fault(far, *synth::find_fault("tcp.retransmission-mismatch--far-back"));
  files.push_back(temp_path("again-far.pcap"));
  write_file(files.back(), synth::generate_pcap(far));
  std::size_t reads = 0, mismatches = 0;
  for (const std::string& file : files) {
    std::size_t ignored = 0;
    const Recording copied = analyse_records(file, false, ignored);
    const Recording placed = analyse_records(file, true, reads);
    EXPECT_EQ(placed.findings, copied.findings) << file;
    EXPECT_EQ(placed.fpdus, copied.fpdus) << file;
    for (const auto& finding : placed.findings) {
      mismatches += std::get<0>(finding) == DiagId::TcpRetransmissionMismatch;
    }
  }
  EXPECT_GT(reads, 20u) << reads;
  EXPECT_GE(mismatches, 10u);  // (the corpus has 2, the first synthetic capture 7, the second 1)
  std::filesystem::remove(files.back());
  std::filesystem::remove(files[files.size() - 2]);
}

// gzip from a file (ISA-L where built with it) against the same stream on standard input
// (zlib): the same records and the same error, damaged or cut.
std::string read_summary(const std::string& path, bool as_stdin) {
  const std::string out = temp_path("summary.txt");
  const pid_t child = fork();
  if (child == 0) {
    std::string name = path;
    if (as_stdin) {
      FILE* in = std::fopen(path.c_str(), "rb");
      int fds[2];
      if (in == nullptr || pipe(fds) != 0) _exit(10);
      if (fork() == 0) {  // a pipe, not a file: zlib reads it
        close(fds[0]);
        char buffer[4096];
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, in)) > 0;) {
          if (write(fds[1], buffer, n) < 0) break;
        }
        _exit(0);
      }
      close(fds[1]);
      dup2(fds[0], STDIN_FILENO);
      name = "-";
    }
    std::string error;
    auto reader = CaptureReader::open(name, error);
    std::ofstream text(out);
    if (!reader) {
      text << "open: " << error.substr(error.find(':')) << '\n';
      _exit(0);
    }
    CaptureRecord r;
    std::uint64_t sum = 0, count = 0;
    ReadStatus status;
    while ((status = reader->next(r)) == ReadStatus::Record) {
      ++count;
      sum = sum * 31 + r.number;
      sum = sum * 31 + r.timestamp_ns;
      sum = sum * 31 + r.original_length;
      for (const std::uint8_t octet : r.data) sum = sum * 31 + octet;
    }
    const std::string& e = reader->error();
    text << count << ' ' << sum << ' ' << static_cast<int>(status) << ' '
         << (e.empty() ? e : e.substr(e.find(':'))) << '\n';
    text.close();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  std::filesystem::remove(out);
  return line;
}

TEST(CaptureMapped, GzipFromAFileSaysWhatZlibSays) {
  synth::Scenario s = synth::base_scenario("gzip");
  s.initiator.messages = synth::mixed_messages(200, {1442, 4096});
  const Bytes image = synth::generate_pcap(s);
  const std::string path = temp_path("members.pcap.gz");
  // Two members: the capture in two pieces.
  gzFile gz = gzopen(path.c_str(), "wb");
  gzwrite(gz, image.data(), static_cast<unsigned>(image.size() / 2));
  gzclose(gz);
  gz = gzopen((path + ".2").c_str(), "wb");
  gzwrite(gz, image.data() + image.size() / 2,
          static_cast<unsigned>(image.size() - image.size() / 2));
  gzclose(gz);
  {
    std::ifstream second(path + ".2", std::ios::binary);
    std::ofstream(path, std::ios::binary | std::ios::app) << second.rdbuf();
    std::filesystem::remove(path + ".2");
  }
  std::ifstream in(path, std::ios::binary);
  const Bytes packed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string variant = temp_path("variant.pcap.gz");
  std::vector<Bytes> variants = {packed};
  for (const std::size_t cut : {packed.size() / 3, packed.size() / 2 + 3, packed.size() - 4}) {
    variants.emplace_back(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(cut));
  }
  for (const std::size_t at : {std::size_t{40}, packed.size() / 4, packed.size() - 6}) {
    Bytes damaged = packed;
    damaged[at] ^= 0x5A;
    variants.push_back(damaged);
  }
  for (std::size_t i = 0; i < variants.size(); ++i) {
    write_file(variant, variants[i]);
    const std::string from_file = read_summary(variant, false);
    EXPECT_EQ(from_file, read_summary(variant, true)) << "variant " << i;
    if (i == 0) {
      EXPECT_EQ(from_file.back(), ' ') << from_file;  // read to its end, no error
    }
  }
  std::filesystem::remove(variant);
  std::filesystem::remove(path);
}

Bytes gzip_of(const Bytes& image, const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "wb1");
  gzwrite(gz, image.data(), static_cast<unsigned>(image.size()));
  gzclose(gz);
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The offset of every record header of a pcap image.
std::vector<std::size_t> record_offsets(const Bytes& image) {
  std::vector<std::size_t> at;
  for (std::size_t i = 24; i + 16 <= image.size();) {
    at.push_back(i);
    std::uint32_t caplen;
    std::memcpy(&caplen, image.data() + i + 8, 4);
    i += 16 + caplen;
  }
  return at;
}

// A capture of over 12 MiB, markers and CRCs on, FPDUs of mixed sizes: records across the
// edges of many chunks.
Bytes large_capture(const std::string& name) {
  synth::Scenario s = synth::base_scenario(name);
  s.initiator.frame.m = true;
  s.initiator.frame.c = true;
  s.initiator.messages = synth::mixed_messages(1500, {1442, 64, 9000, 65000, 17});
  return synth::generate_pcap(s);
}

// A pcap file is read in place from chunks (512 KiB) of its octets, a compressed one of its
// decompressed octets. Whatever it holds, it gives what libpcap gives reading the same stream
// from a pipe (records, time stamps, the error and the record it names): a capture of many
// chunks, records across their edges, a record read in place would not give as libpcap does
// (libpcap then takes over there: at its offset in a plain file, reading a compressed one
// again), the stream cut inside a record and between two, damaged.
TEST(CaptureMapped, ReadInPlaceFromChunksGivesWhatLibpcapGives) {
  const Bytes image = large_capture("chunks");
  ASSERT_GT(image.size(), 12u << 20);  // many chunks
  const std::vector<std::size_t> records = record_offsets(image);
  ASSERT_GT(records.size(), 1000u);
  std::vector<std::pair<std::string, Bytes>> images = {{"whole", image}};
  // A time stamp libpcap reads as negative, in a record past the second chunk's start.
  const auto late = std::upper_bound(records.begin(), records.end(), std::size_t{9} << 20);
  ASSERT_NE(late, records.end());
  Bytes unusual = image;
  const std::uint32_t seconds = 0x80000001u;
  std::memcpy(unusual.data() + *late, &seconds, 4);
  images.emplace_back("unusual record", unusual);
  images.emplace_back("cut inside a record", Bytes(image.begin(), image.begin() + *late + 20));
  images.emplace_back("cut between records", Bytes(image.begin(), image.begin() + *late));
  const std::string plain = temp_path("chunks.pcap");
  const std::string packed = temp_path("chunks.pcap.zst");
  const std::string gz = temp_path("chunks.pcap.gz");
  for (const auto& [what, bytes] : images) {
    write_file(plain, bytes);
    const std::string reference = read_summary(plain, true);  // libpcap, from a pipe
    EXPECT_EQ(read_summary(plain, false), reference) << what << ", plain";
    const Bytes zst = zstd_of(bytes);
    std::vector<std::pair<std::string, Bytes>> files = {{"zstd", zst},
                                                        {"gzip", gzip_of(bytes, gz)}};
    Bytes damaged = zst;
    damaged[damaged.size() * 2 / 3] ^= 0x5A;
    files.emplace_back("zstd damaged", damaged);
    files.emplace_back("zstd cut", Bytes(zst.begin(), zst.begin() + zst.size() * 2 / 3));
    for (const auto& [kind, file] : files) {
      write_file(kind.starts_with("gzip") ? gz : packed, file);
      const std::string& name = kind.starts_with("gzip") ? gz : packed;
      const std::string from_file = read_summary(name, false);
      EXPECT_EQ(from_file, read_summary(name, true)) << what << ", " << kind;
      if (kind == "zstd" || kind == "gzip") {
        EXPECT_EQ(from_file, reference) << what << ", " << kind;
      }
    }
    write_file(packed, zst);
    for (const std::string& name : {plain, packed}) {
      if (what != "whole") break;  // read in place to its end: libpcap never had to take over
      std::string error;
      auto reader = CaptureReader::open(name, error);
      ASSERT_NE(reader, nullptr) << error;
      CaptureRecord r;
      std::size_t in_place = 0;
      while (reader->next(r) == ReadStatus::Record) in_place += r.mapped;
      EXPECT_EQ(in_place, records.size()) << name;
    }
    // On a reading thread (records held across chunks), the same analysis as on one thread.
    PipelineResult a, b, c;
    const Recording alone = analyse(plain, false, a);
    const Recording plain_held = analyse(plain, true, b);
    const Recording packed_held = analyse(packed, true, c);
    for (const auto& [held, result] : {std::pair{&plain_held, &b}, std::pair{&packed_held, &c}}) {
      EXPECT_EQ(a.ok, result->ok) << what;
      EXPECT_EQ(a.stats.frames, result->stats.frames) << what;
      EXPECT_EQ(alone.fpdus, held->fpdus) << what;
      EXPECT_EQ(alone.findings, held->findings) << what;
    }
  }
  for (const std::string& path : {plain, packed, gz}) std::filesystem::remove(path);
}

// A read_summary() line's record count, and its error without the record it names, which must
// be the one after the last given ("" where it names another).
std::pair<std::uint64_t, std::string> summary_parts(const std::string& line) {
  const std::uint64_t count = std::stoull(line);
  const std::string named = fmt::format(": record {}: ", count + 1);
  const std::size_t at = line.find(named);
  return {count, at == std::string::npos ? "" : line.substr(at + named.size())};
}

// Octets [from, to) of `image` as one zstd frame (level 1, a checksum, no content size) whose
// window is 2^window_log octets (0: what level 1 takes).
Bytes zstd_frame(const Bytes& image, std::size_t from, std::size_t to, int window_log) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  if (window_log != 0) ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, window_log);
  Bytes out(ZSTD_compressBound(to - from) + 1024);
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  ZSTD_inBuffer i{image.data() + from, to - from, 0};
  while (i.pos < i.size) ZSTD_compressStream2(c, &o, &i, ZSTD_e_continue);
  while (ZSTD_compressStream2(c, &o, &i, ZSTD_e_end) != 0) {
  }
  out.resize(o.pos);
  ZSTD_freeCCtx(c);
  return out;
}

// A zstd file whose window allows it is decompressed block by block into a ring whose places
// are the chunks: it gives what libpcap gives reading the same stream from a pipe, whether one
// frame or several (a skippable frame among them), a frame whose window is too large for the
// ring (read the usual way), a later frame whose window is larger than the first's (libpcap takes
// over there), damaged in a later frame. Records held are never overwritten, even where every
// record is held to the end (the ring full: new rings).
TEST(CaptureMapped, ZstdDecompressedIntoARingGivesWhatLibpcapGives) {
  const Bytes image = large_capture("ring");
  ASSERT_GT(image.size(), 12u << 20);  // many laps of the ring (a window of 512 KiB: 4.8 MiB)
  const std::vector<std::size_t> records = record_offsets(image);
  const std::size_t third = image.size() / 3;
  const Bytes skippable = {0x50, 0x2A, 0x4D, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5};
  const auto frames = [&](int first_window, int later_window) {
    Bytes out = zstd_frame(image, 0, third, first_window);
    out.insert(out.end(), skippable.begin(), skippable.end());
    for (const auto& [from, to] :
         {std::pair{third, 2 * third}, std::pair{2 * third, image.size()}}) {
      const Bytes frame = zstd_frame(image, from, to, later_window);
      out.insert(out.end(), frame.begin(), frame.end());
    }
    return out;
  };
  Bytes damaged = frames(0, 0);
  damaged[damaged.size() * 5 / 6] ^= 0x5A;
  const std::vector<std::pair<std::string, Bytes>> files = {
      {"one frame", zstd_frame(image, 0, image.size(), 0)},
      {"frames", frames(0, 0)},
      {"a window too large for the ring", zstd_frame(image, 0, image.size(), 25)},
      {"a later window larger than the first", frames(17, 19)},
      {"damaged in a later frame", damaged}};
  const std::string plain = temp_path("ring.pcap");
  const std::string packed = temp_path("ring.pcap.zst");
  write_file(plain, image);
  const std::string reference = read_summary(plain, true);  // libpcap, from a pipe
  for (const auto& [what, file] : files) {
    write_file(packed, file);
    const std::string from_file = read_summary(packed, false);
    const std::string from_pipe = read_summary(packed, true);
    if (what != "damaged in a later frame") {
      EXPECT_EQ(from_file, from_pipe) << what;
      EXPECT_EQ(from_file, reference) << what;
    } else {
      // Found by the frame's checksum, at its end: each reader gives what it decompressed
      // before (the streaming decoder fewer: what it had not yet passed on when it found it),
      // then the error, about the record after the last it gave.
      const auto [file_records, file_error] = summary_parts(from_file);
      const auto [pipe_records, pipe_error] = summary_parts(from_pipe);
      EXPECT_GE(file_records, pipe_records) << from_file << "\n" << from_pipe;
      EXPECT_EQ(file_error, pipe_error);
      EXPECT_NE(file_error.find("checksum"), std::string::npos) << from_file;
    }
    if (what != "one frame" && what != "frames") continue;
    // Every record read in place and held: still what the file holds once all are read.
    std::string error;
    auto reader = CaptureReader::open(packed, error);
    ASSERT_NE(reader, nullptr) << error;
    reader->hold_mapped();
    std::vector<std::span<const std::uint8_t>> held;
    CaptureRecord r;
    while (reader->next(r) == ReadStatus::Record) {
      EXPECT_TRUE(r.mapped) << what << ", record " << r.number;
      held.push_back(r.data);
    }
    ASSERT_EQ(held.size(), records.size()) << what << ": " << reader->error();
    for (std::size_t i = 0; i < held.size(); ++i) {
      ASSERT_TRUE(std::equal(held[i].begin(), held[i].end(), image.begin() + records[i] + 16))
          << what << ", record " << i + 1;
    }
  }
  // libpcap took over at the second frame, after records read in place.
  write_file(packed, files[3].second);
  std::string error;
  auto reader = CaptureReader::open(packed, error);
  ASSERT_NE(reader, nullptr) << error;
  ReadStatus last{};
  const auto seen = read_all(*reader, last);
  const auto in_place =
      std::count_if(seen.begin(), seen.end(), [](const Seen& x) { return x.mapped; });
  EXPECT_GT(in_place, 0);
  EXPECT_LT(static_cast<std::size_t>(in_place), seen.size());
  for (const std::string& path : {plain, packed}) std::filesystem::remove(path);
}

}  // namespace
}  // namespace mpa
