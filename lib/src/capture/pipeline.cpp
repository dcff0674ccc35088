// The capture pipeline: records -> FrameFeeder (decode_frame -> Analyzer) (see pipeline.h).
#include "mpa/pipeline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

#include "fpdu/fpdu_grammar.h"
#include "mpa/crc32c.h"
#include "mpa/frame_feeder.h"
#include "mpa/marker_grid.h"

namespace mpa {
namespace {

// A thread that finds the queue empty (or full) spins this many pause instructions (about
// 100 microseconds on this project's AMD EPYC machine) before it sleeps: a batch takes tens of
// microseconds to fill or analyse, and a thread put to sleep is woken through the kernel (on a
// virtual machine an interrupt to a halted virtual CPU), which takes as long again. The bench's
// 1.1 GiB: 161 futex calls instead of 1,784; median wall 0.239 s against 0.255 in 16 alternating
// runs, its zstd copy 0.320 against 0.345 in 10.
constexpr int kSpins = 4096;

// Waits a little for `ready` on this core before the caller sleeps.
template <typename Ready>
bool spin_until(Ready ready) {
  for (int i = 0; i < kSpins; ++i) {
    if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  return ready();
}

// A bounded single-producer single-consumer queue of pointers: push() waits while it is
// full, pop() while it is empty (C++20 atomic waits, after spinning a little: no lock).
template <std::size_t N>
class SpscQueue {
 public:
  void push(void* item) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    std::size_t head = head_.load(std::memory_order_acquire);
    while (tail - head == N) {
      if (spin_until([&] { return tail - (head = head_.load(std::memory_order_acquire)) != N; }))
        break;
      head_.wait(head, std::memory_order_acquire);
      head = head_.load(std::memory_order_acquire);
    }
    slots_[tail % N] = item;
    tail_.store(tail + 1, std::memory_order_release);
    tail_.notify_one();
  }
  // Items pushed and not yet popped (as last seen: the other thread may be changing it).
  std::size_t size() const {
    return tail_.load(std::memory_order_relaxed) - head_.load(std::memory_order_relaxed);
  }
  void* pop() {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    std::size_t tail = tail_.load(std::memory_order_acquire);
    while (tail == head) {
      if (spin_until([&] { return (tail = tail_.load(std::memory_order_acquire)) != head; })) break;
      tail_.wait(tail, std::memory_order_acquire);
      tail = tail_.load(std::memory_order_acquire);
    }
    void* item = slots_[head % N];
    head_.store(head + 1, std::memory_order_release);
    head_.notify_one();
    return item;
  }

 private:
  std::array<void*, N> slots_{};
  alignas(64) std::atomic<std::size_t> head_{0};  // the next slot to pop
  alignas(64) std::atomic<std::size_t> tail_{0};  // the next slot to push
};

// What decoding a record (on the reading thread) found: a TCP segment outside any tunnel (the
// common case), or else the whole DecodeResult, kept aside (a quarter of the octets to
// hand from one core to the other per record).
struct Decoded {
  TcpSegment segment;                     // FrameFeeder::plain_segment()
  std::uint32_t unusual = kPlainSegment;  // else: its index in Batch::unusual
  static constexpr std::uint32_t kPlainSegment = ~std::uint32_t{0};
};

// Records handed from the reading thread to the analysing one. Octets read in place (the
// mapped file, a compressed pcap file's chunks) are handed as they lie there; others
// (libpcap's, a compressed pcapng block's) are copied into `octets`, since the reader reuses
// its buffer.
struct Batch {
  std::vector<CaptureRecord> records;
  std::vector<Decoded> decoded;  // each record decoded (link, IP, TCP), on the reading thread
  std::vector<DecodeResult> unusual;
  std::vector<std::uint8_t> octets;
  std::vector<std::size_t> copied;  // records whose data lie in `octets` (offsets below)
  std::vector<std::size_t> copied_at;
  std::uint64_t consumed = 0;              // reader.bytes_read() after the last record
  ReadStatus status = ReadStatus::Record;  // End or Error: the last batch
  std::uint64_t mapped_octets = 0;
  bool decoded_here = false;  // `decoded` holds the records decoded (else: decode them)
  void clear() {
    records.clear();
    unusual.clear();
    octets.clear();
    copied.clear();
    copied_at.clear();
    mapped_octets = 0;
    status = ReadStatus::Record;
  }
};

// A batch is handed over at this many records or octets; this many batches exist. Memory
// held by the handover: at most kBatches * (kBatchOctets + one record).
// 3 MiB in flight: what the reading thread wrote (a compressed capture's decompressed octets,
// the records and their decoding) is still in the caches when the analysing thread reads it,
// and the batches and chunks it reuses are still cached when it writes them again. With
// 12 MiB in flight the zstd copy of the bench took 0.97 s of CPU against 0.72-0.77, the plain
// file as long (measured in alternating runs, also with another process busy on one core).
constexpr std::size_t kBatchRecords = 256;
constexpr std::size_t kBatchOctets = 192u << 10;
constexpr std::size_t kBatches = 16;

// The reading thread decodes a batch's records only while at least this many batches wait for
// the analysing thread; else that thread, which would soon wait for the reader, decodes them:
// each thread takes the work the other has no time for (the bench's 1.1 GiB: median 0.23 s
// against 0.26 when the reader decoded every batch; 3 to 8 measured alike).
constexpr std::size_t kDecodeWhileQueued = 4;

// Payloads this long or longer get their CRC worked out on the reading thread (shorter ones
// hold no FPDU worth it).
constexpr std::size_t kPayloadCrcMin = 64;

// Records prefetched ahead of the one analysed, and of the one decoded.
constexpr std::size_t kAhead = 4;
constexpr std::size_t kDecodeAhead = 8;

void prefetch(const CaptureRecord& record, const Decoded& decoded) {
  const auto* at = reinterpret_cast<const char*>(&decoded);
  for (std::size_t line = 0; line < sizeof decoded; line += 64) __builtin_prefetch(at + line);
  const std::uint8_t* data = record.data.data();
  for (std::size_t line = 0; line < record.data.size(); line += 64) __builtin_prefetch(data + line);
}

bool unsupported(const CaptureReader& reader, PipelineResult& result, FrameFeeder& feeder) {
  // A capture none of whose interfaces (those declared before its first record) the decoder
  // knows is refused; in one that mixes link types, frames of an unknown one count as not TCP.
  const std::vector<std::uint32_t>& links = reader.link_types();
  if (links.empty() || std::any_of(links.begin(), links.end(), is_supported_link_type)) {
    return false;
  }
  result.ok = false;
  result.error = fmt::format(
      "{}: unsupported link type {} (supported: Ethernet, Linux SLL/SLL2, "
      "raw IP, BSD loopback)",
      reader.path() == "-" ? std::string("<stdin>") : reader.path(), fmt::join(links, ", "));
  feeder.finish(0);
  return true;
}

void read_here(CaptureReader& reader, FrameFeeder& feeder, PipelineResult& result,
               const std::function<void(const CaptureReader&)>& progress) {
  CaptureRecord record;
  for (;;) {
    const ReadStatus status = reader.next(record);
    if (status == ReadStatus::End) break;
    if (status == ReadStatus::Error) {
      result.ok = false;
      result.error = reader.error();
      break;
    }
    feeder.feed(captured_frame(record));
    if (progress && (record.number & 0x3FFF) == 0) progress(reader);
  }
}

using Progress = std::function<void(const CaptureReader&)>;
using Queue = SpscQueue<kBatches>;

// Fills `batch` with the reader's records until it is full or the capture ends (then false,
// the batch's status saying how it ended). Octets not read in place are copied into the batch.
bool fill_batch(CaptureReader& reader, Batch& batch, CaptureRecord& record,
                const std::atomic<bool>& abandon, const Progress& progress) {
  bool more = true;
  while (batch.records.size() < kBatchRecords &&
         batch.octets.size() + batch.mapped_octets < kBatchOctets) {
    const ReadStatus status =
        abandon.load(std::memory_order_relaxed) ? ReadStatus::End : reader.next(record);
    if (status != ReadStatus::Record) {
      batch.status = status;
      more = false;
      break;
    }
    if (record.mapped) {
      batch.mapped_octets += record.data.size();
    } else {
      batch.copied.push_back(batch.records.size());
      batch.copied_at.push_back(batch.octets.size());
      batch.octets.insert(batch.octets.end(), record.data.begin(), record.data.end());
    }
    batch.records.push_back(record);
    if (progress && (record.number & 0x3FFF) == 0) progress(reader);
  }
  // The copies' final place, now that `octets` grows no more.
  for (std::size_t i = 0; i < batch.copied.size(); ++i) {
    CaptureRecord& r = batch.records[batch.copied[i]];
    r.data = std::span<const std::uint8_t>(batch.octets.data() + batch.copied_at[i], r.data.size());
  }
  return more;
}

// Decodes the batch's records on the reading thread (`decoded` reused: set up once, not per
// record).
void decode_batch(Batch& batch, const DecodeOptions& options, DecodeResult& decoded) {
  if (batch.decoded.size() < batch.records.size()) {
    batch.decoded.resize(batch.records.size());  // (never shrunk: reused)
  }
  for (std::size_t i = 0; i < batch.records.size(); ++i) {
    if (i + kDecodeAhead < batch.records.size()) {
      // The headers decoding looks at next (the record's first two lines).
      const std::uint8_t* ahead = batch.records[i + kDecodeAhead].data.data();
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + 64);
    }
    decode_captured(captured_frame(batch.records[i]), options, decoded);
    Decoded& handed = batch.decoded[i];
    if (FrameFeeder::plain_segment(decoded)) {
      handed.segment = decoded.segment;
      handed.unusual = Decoded::kPlainSegment;
      // The CRC of an FPDU that fills the segment, as senders align them, worked out
      // here, while its octets are in this core's cache (TcpSegment::payload_crc): the
      // analysing thread's largest single cost.
      const std::span<const std::uint8_t> payload = handed.segment.payload;
      if (payload.size() >= kPayloadCrcMin && handed.segment.payload_missing == 0 &&
          FpduGrammar::may_be_one_fpdu(payload)) {
        handed.segment.payload_crc =
            crc32c_update(kCrc32cInit, payload.first(payload.size() - kCrcSize));
      }
    } else {
      handed.unusual = static_cast<std::uint32_t>(batch.unusual.size());
      batch.unusual.push_back(decoded);
    }
  }
}

// The reading thread: fills batches until the capture ends; each batch that comes back
// gives its mapped octets back. What it throws is kept in `failure`.
void read_batches(CaptureReader& reader, Queue& full, Queue& empty,
                  const std::atomic<bool>& abandon, const Progress& progress,
                  std::optional<bool> decode_while_reading, const DecodeOptions& options,
                  std::exception_ptr& failure) {
  CaptureRecord record;
  DecodeResult decoded;  // reused: set up once, not per record
  for (bool more = true; more;) {
    auto* batch = static_cast<Batch*>(empty.pop());
    try {
      if (batch->consumed != 0) reader.release(batch->consumed);
      batch->clear();
      more = fill_batch(reader, *batch, record, abandon, progress);
      // Decoded here (decoding is pure) while the analysing thread has enough to do (a
      // compressed capture's too: where decompressing keeps this thread the busier, batches
      // do not queue up; the bench's zstd copy, decompressed into the ring: median 0.312 s
      // against 0.337 and 0.338 against 0.374 in two sets of 12 alternating runs, gzip
      // unchanged); never where its octets were copied (copying keeps this thread the busier).
      batch->decoded_here =
          batch->copied.empty() && decode_while_reading.value_or(full.size() >= kDecodeWhileQueued);
      if (batch->decoded_here) decode_batch(*batch, options, decoded);
      batch->consumed = reader.bytes_read();
    } catch (...) {
      failure = std::current_exception();
      batch->records.clear();
      batch->status = ReadStatus::End;
      more = false;
    }
    full.push(batch);
  }
}

// Feeds a batch's records to the analysis, decoded here or already decoded.
void analyse_batch(FrameFeeder& feeder, const Batch& batch) {
  const std::size_t n = batch.records.size();
  if (!batch.decoded_here) {
    for (std::size_t i = 0; i < n; ++i) feeder.feed(captured_frame(batch.records[i]));
    return;
  }
  for (std::size_t i = 0; i < std::min(n, kAhead); ++i) {
    prefetch(batch.records[i], batch.decoded[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    // The octets (and the decoding) of a record ahead, into this core's cache while this
    // one is analysed: they were read on the other core, long enough ago to have left its
    // cache, and the CRC and the retransmission history would wait for each line.
    if (i + kAhead < n) prefetch(batch.records[i + kAhead], batch.decoded[i + kAhead]);
    const Decoded& decoded = batch.decoded[i];
    if (decoded.unusual == Decoded::kPlainSegment) {
      feeder.feed_plain_segment(captured_frame(batch.records[i]), decoded.segment);
    } else {
      feeder.feed_decoded(captured_frame(batch.records[i]), batch.unusual[decoded.unusual]);
    }
  }
}

void read_on_a_thread(CaptureReader& reader, FrameFeeder& feeder, PipelineResult& result,
                      const Progress& progress, std::optional<bool> decode_while_reading) {
  std::array<Batch, kBatches> batches;
  Queue full, empty;
  for (Batch& batch : batches) empty.push(&batch);
  std::atomic<bool> abandon{false};
  reader.hold_mapped();
  const DecodeOptions& options = feeder.decode_options();
  std::exception_ptr failure;  // what the reading thread threw (rethrown here)
  std::thread producer([&] {
    read_batches(reader, full, empty, abandon, progress, decode_while_reading, options, failure);
  });
  Batch* batch = nullptr;
  try {
    for (;;) {
      batch = static_cast<Batch*>(full.pop());
      analyse_batch(feeder, *batch);
      const ReadStatus status = batch->status;
      empty.push(batch);
      batch = nullptr;
      if (status == ReadStatus::Error) {
        result.ok = false;
        result.error = reader.error();
      }
      if (status != ReadStatus::Record) break;
    }
  } catch (...) {
    // The reader stops at its next record; what it still hands over is not looked at.
    abandon = true;
    bool ended = batch != nullptr && batch->status != ReadStatus::Record;
    if (batch != nullptr) empty.push(batch);
    while (!ended) {
      batch = static_cast<Batch*>(full.pop());
      ended = batch->status != ReadStatus::Record;
      empty.push(batch);
    }
    producer.join();
    throw;
  }
  producer.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

CapturedFrame captured_frame(const CaptureRecord& record) {
  return {record.number,       record.link_type, record.data, record.original_length,
          record.timestamp_ns, record.source,    record.at};
}

PipelineResult run_pipeline(CaptureReader& reader, Analyzer& analyzer,
                            const std::function<void(const CaptureReader&)>& progress,
                            const PipelineOptions& options) {
  FrameFeeder feeder(analyzer);
  return run_pipeline(reader, feeder, progress, options);
}

PipelineResult run_pipeline(CaptureReader& reader, FrameFeeder& feeder,
                            const std::function<void(const CaptureReader&)>& progress,
                            const PipelineOptions& options) {
  PipelineResult result;
  if (unsupported(reader, result, feeder)) return result;
  if (options.read_thread && reader.regular_file()) {
    read_on_a_thread(reader, feeder, result, progress, options.decode_while_reading);
  } else {
    read_here(reader, feeder, result, progress);
  }
  if (reader.live()) result.live = reader.live_stats();
  feeder.finish(feeder.stats().frames);
  result.stats = feeder.stats();
  return result;
}

}  // namespace mpa
