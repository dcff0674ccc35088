// The plugin's C++ side (see mpa_bridge.h): per capture file, one mpa::Analyzer fed with
// every captured record on Wireshark's first pass through the library's FrameFeeder (the
// same decode-and-feed step as mpa-check's), and an EventSink that files what the library
// reports into the per-frame cache (frame_cache.h), which every pass renders as plain C
// views. Every rule and every piece of layout lives in the library; this file translates
// library values into views, and library ids into the connection numbers mpa-check shows.
#include "mpa_bridge.h"

#include <algorithm>
#include <deque>
#include <exception>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "frame_cache.h"
#include "mpa/analyzer.h"
#include "mpa/conformance.h"
#include "mpa/diagnostics.h"
#include "mpa/events.h"
#include "mpa/frame_feeder.h"
#include "mpa/packet.h"
#include "mpa/packet_decoder.h"
#include "mpa/rdma_messages.h"
#include "mpa/startup_frame.h"
#include "mpa/startup_layout.h"
#include "mpa/tcp_seq.h"

static_assert(MPA_FLAG_M == mpa::startup_flags::kM && MPA_FLAG_C == mpa::startup_flags::kC &&
              MPA_FLAG_R == mpa::startup_flags::kR && MPA_FLAG_S == mpa::startup_flags::kS &&
              MPA_FLAG_RES == mpa::startup_flags::kRes);
static_assert(MPA_FIELD_NONE == static_cast<int>(mpa::DiagField::None) &&
              MPA_FIELD_FPDU == static_cast<int>(mpa::DiagField::Fpdu) &&
              MPA_FIELD_ULPDU_LENGTH == static_cast<int>(mpa::DiagField::UlpduLength) &&
              MPA_FIELD_ULPDU == static_cast<int>(mpa::DiagField::Ulpdu) &&
              MPA_FIELD_PAD == static_cast<int>(mpa::DiagField::Pad) &&
              MPA_FIELD_CRC == static_cast<int>(mpa::DiagField::Crc) &&
              MPA_FIELD_MARKER == static_cast<int>(mpa::DiagField::Marker) &&
              MPA_FIELD_STARTUP_FRAME == static_cast<int>(mpa::DiagField::StartupFrame) &&
              MPA_FIELD_STARTUP_KEY == static_cast<int>(mpa::DiagField::StartupKey) &&
              MPA_FIELD_STARTUP_FLAGS == static_cast<int>(mpa::DiagField::StartupFlags) &&
              MPA_FIELD_STARTUP_REVISION == static_cast<int>(mpa::DiagField::StartupRevision) &&
              MPA_FIELD_STARTUP_PD_LENGTH == static_cast<int>(mpa::DiagField::StartupPdLength) &&
              MPA_FIELD_STARTUP_PRIVATE_DATA ==
                  static_cast<int>(mpa::DiagField::StartupPrivateData) &&
              MPA_FIELD_STARTUP_ENHANCED == static_cast<int>(mpa::DiagField::StartupEnhanced));
static_assert(MPA_SEVERITY_NOTE == static_cast<int>(mpa::Severity::Note) &&
              MPA_SEVERITY_WARNING == static_cast<int>(mpa::Severity::Warning) &&
              MPA_SEVERITY_ERROR == static_cast<int>(mpa::Severity::Error));

namespace
{

// ---- The catalogue as C views (NUL-terminated copies of the library's string_views).
struct CatalogueViews {
    std::deque<std::string> strings;
    std::vector<mpa_diag_info> entries;
    std::vector<std::uint32_t> index_of_id; // DiagId value -> index in `entries`

    CatalogueViews()
    {
        const auto catalogue = mpa::catalogue();
        auto keep = [this](std::string_view s) { return strings.emplace_back(s).c_str(); };
        for (std::size_t i = 0; i < catalogue.size(); ++i) {
            const mpa::DiagnosticInfo &d = catalogue[i];
            entries.push_back({ keep(d.name), static_cast<int>(d.severity), keep(d.rfc),
                                mpa::number(d.error_code), keep(d.summary),
                                static_cast<int>(d.category), keep(mpa::rule_ids_of(d.id)),
                                static_cast<int>(d.field) });
            const auto id = static_cast<std::size_t>(d.id);
            if (index_of_id.size() <= id)
                index_of_id.resize(id + 1, 0);
            index_of_id[id] = static_cast<std::uint32_t>(i);
        }
    }
    std::uint32_t
    index(mpa::DiagId id) const
    {
        const auto i = static_cast<std::size_t>(id);
        return i < index_of_id.size() ? index_of_id[i] : 0;
    }
};

const CatalogueViews &
catalogue_views()
{
    static const CatalogueViews views;
    return views;
}

int
frame_kind(mpa::FrameKind kind)
{
    switch (kind) {
    case mpa::FrameKind::Request:
        return MPA_REQUEST;
    case mpa::FrameKind::Reply:
        return MPA_REPLY;
    case mpa::FrameKind::Unknown:
        break;
    }
    return MPA_UNKNOWN_FRAME;
}

using mpa_plugin::direction_view;

} // namespace

struct mpa_bridge final : mpa::EventSink {
    explicit mpa_bridge(const mpa::AnalyzerOptions &options)
        : analyzer(options, *this), feeder(analyzer)
    {
    }

    // ---- EventSink: file what the library reports, by frame, under mpa-check's numbers.
    void
    on_finding(const mpa::Finding &f) override
    {
        mpa_finding_view v{};
        v.diag = catalogue_views().index(f.id);
        v.connection = f.connection;
        v.direction = direction_view(f.direction);
        v.tcp_seq = f.tcp_seq.value();
        v.message = cache.keep(f.message);
        v.field = static_cast<int>(mpa::info(f.id).field);
        cache.add_finding(f.frame, v);
    }

    void
    on_startup_frame(std::uint32_t connection, mpa::Direction dir, const mpa::StartupFrame &f,
                     std::uint64_t frame_number, mpa::TcpSeq seq) override
    {
        mpa_startup_view v{};
        v.connection = connection;
        v.direction = direction_view(dir);
        v.kind = frame_kind(f.kind);
        v.description = cache.keep(mpa::describe(f));
        v.tcp_seq = seq.value();
        v.key = cache.keep(f.key);
        v.key_length = static_cast<std::uint32_t>(f.key.size());
        v.flags = f.flags;
        v.revision = f.revision;
        v.pd_length = f.pd_length;
        v.has_vendor_extension = f.has_vendor_extension;
        v.vendor_extension = f.has_vendor_extension ? cache.keep(f.vendor_extension) : nullptr;
        v.vendor_extension_length =
            static_cast<std::uint32_t>(f.has_vendor_extension ? f.vendor_extension.size() : 0);
        v.private_data = cache.keep(f.private_data);
        v.private_data_length = static_cast<std::uint32_t>(f.private_data.size());
        if (f.enhanced) {
            v.has_enhanced = 1;
            v.peer_to_peer = f.enhanced->peer_to_peer;
            v.send_rtr = f.enhanced->send_rtr;
            v.write_rtr = f.enhanced->write_rtr;
            v.read_rtr = f.enhanced->read_rtr;
            v.ird = f.enhanced->ird;
            v.ord = f.enhanced->ord;
        }
        // Where the fields are in this frame (when this frame's segment completed it).
        const mpa::StartupFrameFields at = mpa::startup_frame_fields(seq, f);
        const auto locate = [&](mpa::SeqRange range) {
            return cache.locate_in_segment(frame_number, range);
        };
        v.whole = locate(at.whole);
        v.key_range = locate(at.key);
        v.flags_range = locate(at.flags);
        v.revision_range = locate(at.revision);
        v.pd_length_range = locate(at.pd_length);
        v.vendor_extension_range = locate(at.vendor_extension);
        v.private_data_range = locate(at.private_data);
        v.enhanced_range = locate(at.enhanced);
        cache.add_startup(frame_number, v);
    }

    void
    on_fpdu(const mpa::FpduEvent &e) override
    {
        cache.add_fpdu(e, e.connection);
        // The RDMA message it is a segment of, kept at the frame where it ends.
        const mpa::RdmaMessage *m =
            message_logs.try_emplace(e.connection, 0).first->second.on_fpdu(e);
        if (m != nullptr && m->complete)
            messages_at.emplace(e.last_frame, std::make_pair(e.connection, *m));
    }

    // The views of the messages that end at `frame` (valid until the next call).
    std::span<const mpa_message_view>
    messages(std::uint64_t frame)
    {
        rendered_messages.clear();
        rendered_words.clear();
        const auto [begin, end] = messages_at.equal_range(frame);
        for (auto it = begin; it != end; ++it)
            rendered_words.push_back(mpa::rdma_message_words(it->second.second));
        std::size_t i = 0;
        for (auto it = begin; it != end; ++it, ++i) {
            const mpa::RdmaMessage &m = it->second.second;
            rendered_messages.push_back({ it->second.first, direction_view(m.direction),
                                          m.last_seq.value(), m.number, m.opcode, m.octets,
                                          m.segments, m.first_frame, rendered_words[i].c_str() });
        }
        return rendered_messages;
    }

    void
    on_fpdu_revised(const mpa::FpduEvent &e, bool markers) override
    {
        cache.revise_fpdu(e, markers);
    }

    void
    on_connection_end(const mpa::ConnectionSummary &s) override
    {
        message_logs.erase(s.id);
        mpa_connection_view &v = connections.emplace_back();
        v.id = s.id;
        v.initiator = cache.keep(mpa::to_string(s.initiator));
        v.responder = cache.keep(mpa::to_string(s.responder));
        v.startup_seen = s.startup_seen;
        v.revision = s.revision();
        v.request = s.request ? cache.keep(mpa::describe(*s.request)) : nullptr;
        v.reply = s.reply ? cache.keep(mpa::describe(*s.reply)) : nullptr;
        for (int d = 0; d < 2; ++d) {
            const mpa::DirectionSummary &ds = s.directions[d];
            v.directions[d] = { ds.full_operation, ds.markers,      ds.crc,   ds.inferred, ds.fpdus,
                                ds.ulpdu_bytes,    ds.crc_failures, ds.bytes, ds.max_ulpdu };
        }
        std::copy(s.findings.values.begin(), s.findings.values.end(), std::begin(v.findings));
        v.first_frame = s.first_frame;
        v.last_frame = s.last_frame;
        v.reported_frame = cache.current_frame();
        cache.add_ended(cache.current_frame(), &v);
    }

    // ---- Feeding (first pass).
    void
    feed(std::uint64_t frame, std::uint32_t link_type, std::span<const std::uint8_t> data,
         std::uint32_t original_length, std::uint64_t timestamp_ns)
    {
        last_frame = frame;
        cache.begin_frame(frame, data.data());
        feeder.feed({ frame, link_type, data, original_length, timestamp_ns },
                    [&](const mpa::TcpSegment &seg) {
                        cache.begin_segment(
                            { static_cast<std::uint32_t>(seg.payload.data() - data.data()),
                              static_cast<std::uint32_t>(seg.payload.size()), seg.seq });
                    });
        cache.end_frame();
    }

    void
    finish()
    {
        cache.begin_frame(last_frame, nullptr);
        feeder.finish(last_frame);
        cache.end_frame();
        finished = true;
    }

    void
    fail(const char *what)
    {
        if (!error.empty())
            return;
        error = std::string("mpa library: ") + (what ? what : "unknown error");
        error_frame = last_frame;
    }

    const mpa_frame_view *
    view(std::uint64_t frame)
    {
        return cache.view(frame);
    }

    mpa::Analyzer analyzer;
    mpa::FrameFeeder feeder;
    mpa_plugin::FrameCache cache;
    std::deque<mpa_connection_view> connections;
    // RDMA messages: each open connection's assembly (counts only), and every message by the
    // frame where it ended, with its connection; the views of the frame rendered last.
    std::map<std::uint32_t, mpa::RdmaMessageLog> message_logs;
    std::multimap<std::uint64_t, std::pair<std::uint32_t, mpa::RdmaMessage>> messages_at;
    std::vector<std::string> rendered_words;
    std::vector<mpa_message_view> rendered_messages;
    std::uint64_t last_frame = 0;
    bool finished = false;
    std::string error;
    std::uint64_t error_frame = 0;
};

// ---- The C interface. Nothing throws past these functions.
extern "C" {

size_t
mpa_catalogue_size(void)
{
    try {
        return catalogue_views().entries.size();
    } catch (...) {
        return 0;
    }
}

const mpa_diag_info *
mpa_catalogue_entry(size_t index)
{
    try {
        const auto &entries = catalogue_views().entries;
        return index < entries.size() ? &entries[index] : nullptr;
    } catch (...) {
        return nullptr;
    }
}

int
mpa_link_type_supported(uint32_t link_type)
{
    try {
        return mpa::is_supported_link_type(link_type);
    } catch (...) {
        return 0;
    }
}

int
mpa_looks_like_startup_key(const uint8_t *data, size_t length)
{
    if (data == nullptr)
        return 0;
    try {
        return mpa::looks_like_startup_key(std::span<const std::uint8_t>(data, length));
    } catch (...) {
        return 0;
    }
}

mpa_bridge *
mpa_bridge_new(const mpa_bridge_options *options)
{
    try {
        mpa::AnalyzerOptions o;
        o.keep_ulpdu = true;
        if (options != nullptr) {
            if (options->markers != MPA_AUTO)
                o.markers = options->markers == MPA_ON;
            if (options->crc != MPA_AUTO)
                o.crc = options->crc == MPA_ON;
            o.infer_with_syn = options->infer_all != 0;
            for (uint32_t i = 0; i < options->vxlan_port_count; i++)
                o.decode.vxlan_ports.push_back(options->vxlan_ports[i]);
            for (uint32_t i = 0; i < options->geneve_port_count; i++)
                o.decode.geneve_ports.push_back(options->geneve_ports[i]);
        }
        return new mpa_bridge(o);
    } catch (...) {
        return nullptr;
    }
}

void
mpa_bridge_free(mpa_bridge *bridge)
{
    delete bridge;
}

void
mpa_bridge_feed(mpa_bridge *bridge, uint64_t frame, uint32_t link_type, const uint8_t *data,
                uint32_t captured_length, uint32_t original_length, uint64_t timestamp_ns)
{
    if (bridge == nullptr || !bridge->error.empty() || bridge->finished)
        return;
    if (frame <= bridge->last_frame)
        return;
    try {
        bridge->feed(frame, link_type,
                     std::span<const std::uint8_t>(data, data ? captured_length : 0),
                     original_length, timestamp_ns);
    } catch (const std::exception &e) {
        bridge->fail(e.what());
    } catch (...) {
        bridge->fail(nullptr);
    }
}

uint64_t
mpa_bridge_error_frame(const mpa_bridge *bridge)
{
    return bridge ? bridge->error_frame : 0;
}

size_t
mpa_bridge_filed_earlier(const mpa_bridge *bridge, uint64_t frame, uint64_t *frames, size_t max)
{
    if (bridge == nullptr || bridge->finished)
        return 0;
    const std::span<const std::uint64_t> earlier = bridge->cache.filed_earlier(frame);
    std::copy_n(earlier.begin(), std::min(max, earlier.size()), frames);
    return earlier.size();
}

uint64_t
mpa_bridge_last_frame(const mpa_bridge *bridge)
{
    return bridge ? bridge->last_frame : 0;
}

void
mpa_bridge_finish(mpa_bridge *bridge)
{
    if (bridge == nullptr || bridge->finished || !bridge->error.empty())
        return;
    try {
        bridge->finish();
    } catch (const std::exception &e) {
        bridge->fail(e.what());
    } catch (...) {
        bridge->fail(nullptr);
    }
    bridge->finished = true;
}

int
mpa_bridge_finished(const mpa_bridge *bridge)
{
    return bridge && bridge->finished;
}

const char *
mpa_bridge_error(const mpa_bridge *bridge)
{
    return bridge && !bridge->error.empty() ? bridge->error.c_str() : nullptr;
}

const mpa_frame_view *
mpa_bridge_frame(mpa_bridge *bridge, uint64_t frame)
{
    if (bridge == nullptr)
        return nullptr;
    try {
        return bridge->view(frame);
    } catch (...) {
        return nullptr;
    }
}

size_t
mpa_bridge_messages(mpa_bridge *bridge, uint64_t frame, const mpa_message_view **messages)
{
    *messages = nullptr;
    if (bridge == nullptr)
        return 0;
    try {
        const auto views = bridge->messages(frame);
        *messages = views.data();
        return views.size();
    } catch (...) {
        return 0;
    }
}

size_t
mpa_bridge_connection_count(const mpa_bridge *bridge)
{
    return bridge ? bridge->connections.size() : 0;
}

const mpa_connection_view *
mpa_bridge_connection(const mpa_bridge *bridge, size_t index)
{
    if (bridge == nullptr || index >= bridge->connections.size())
        return nullptr;
    return &bridge->connections[index];
}

} // extern "C"
