/* packet-mpa.c
 * MPA (RFC 5044 / RFC 6581, iWARP framing over TCP) for Wireshark, as the mpa-check
 * library sees it. A thin adapter: on the first pass every captured frame goes to the
 * library (mpa_bridge.h), which reassembles TCP and analyzes each MPA connection; on every
 * pass this file renders what the library cached for the frame: startup frames, FPDUs with
 * their markers, pads and CRCs, one expert item per finding, and each ULPDU handed to
 * Wireshark's DDP/RDMAP dissector. No MPA rule is written here.
 *
 * How frames reach the library: a postdissector sees every frame, whichever dissector took
 * its TCP payload (ports owned by others such as NVMe/TCP 4420 included), and passes the
 * frame's bytes to the library's own frame decoder, so the plugin and mpa-check analyze
 * identical segments. A TCP heuristic, a conversation dissector and "Decode As" only claim
 * the TCP payload of MPA connections so that no other dissector shows it.
 *
 * The library's end-of-capture findings (startup.no-reply, gaps, connections still open)
 * exist once the first pass is over: in Wireshark after the file is loaded, in tshark with
 * two passes (-2). A single-pass tshark cannot show them, nor findings the library only
 * confirms at a later frame than the one they are about.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <wireshark.h>

#include <epan/conversation.h>
#include <epan/exceptions.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/reassemble.h>
#include <epan/show_exception.h>
#include <epan/strutil.h>
#include <epan/tap.h>
#include <wiretap/pcap-encap.h>
#include <wiretap/wtap.h>

#include "mpa_bridge.h"
#include "ws_compat.h"
#include "packet-mpa.h"

/* ---- Registration arrays and state */

static int proto_mpa = -1;
static int mpa_tap = -1;

static int hf_mpa_connection = -1;
static int hf_mpa_finding = -1;
static int hf_mpa_finding_detail = -1;
static int hf_mpa_finding_shown_in = -1;
static int hf_mpa_severity = -1;
static int hf_mpa_direction = -1;
static int hf_mpa_key = -1;
static int hf_mpa_flags = -1;
static int hf_mpa_flag_m = -1;
static int hf_mpa_flag_c = -1;
static int hf_mpa_flag_r = -1;
static int hf_mpa_flag_s = -1;
static int hf_mpa_flag_res = -1;
static int hf_mpa_rev = -1;
static int hf_mpa_pd_length = -1;
static int hf_mpa_vendor_extension = -1;
static int hf_mpa_private_data = -1;
static int hf_mpa_a = -1;
static int hf_mpa_b = -1;
static int hf_mpa_c_rtr = -1;
static int hf_mpa_d = -1;
static int hf_mpa_ird = -1;
static int hf_mpa_ord = -1;
static int hf_mpa_ulpdu_length = -1;
static int hf_mpa_pad = -1;
static int hf_mpa_crc = -1;
static int hf_mpa_crc_computed = -1;
static int hf_mpa_crc_status = -1;
static int hf_mpa_first_frame = -1;
static int hf_mpa_marker = -1;
static int hf_mpa_marker_fpduptr = -1;
static int hf_mpa_marker_reserved = -1;
static int hf_mpa_marker_points_to = -1;
static int hf_mpa_ulpdu = -1;
static int hf_mpa_message = -1;
static int hf_mpa_message_opcode = -1;
static int hf_mpa_message_length = -1;
static int hf_mpa_message_segments = -1;
static int hf_mpa_message_first_frame = -1;
static int hf_mpa_message_number = -1;

static gint ett_mpa = -1;
static gint ett_mpa_startup = -1;
static gint ett_mpa_flags = -1;
static gint ett_mpa_enhanced = -1;
static gint ett_mpa_fpdu = -1;
static gint ett_mpa_marker = -1;
static gint ett_mpa_finding = -1;
static gint ett_mpa_message = -1;

/* One expert item per catalogue entry, registered from mpa_catalogue_entry(). */
static expert_field *ei_mpa_catalogue = NULL;
static size_t ei_mpa_catalogue_size = 0;
static expert_field ei_mpa_library_error = EI_INIT;
static expert_field ei_mpa_single_pass = EI_INIT;

/* Descriptions (tshark -G fields) of the expert items that are not catalogue entries. */
static const char *const internal_expert_blurbs[][2] = {
    { "mpa.plugin.library-error",
      "The mpa library failed at this frame: the capture was analyzed only up to here" },
    { "mpa.single_pass",
      "Wireshark's first pass had shown the frames this frame's analysis framed or judged: "
      "tshark -2, or Wireshark once the file is loaded, shows them" },
};

static dissector_handle_t mpa_tcp_handle = NULL;
static dissector_handle_t ddp_rdmap_handle = NULL;
static int proto_ddp_rdmap = -1;

/* RDMAP opcodes (RFC 5040 4.2, RFC 7306) as mpa.message.opcode shows them. */
static const value_string rdmap_opcode_names[] = { { 0x0, "RDMA Write" },
                                                   { 0x1, "RDMA Read Request" },
                                                   { 0x2, "RDMA Read Response" },
                                                   { 0x3, "Send" },
                                                   { 0x4, "Send with Invalidate" },
                                                   { 0x5, "Send with Solicited Event" },
                                                   { 0x6, "Send with SE and Invalidate" },
                                                   { 0x7, "Terminate" },
                                                   { 0x8, "Immediate Data" },
                                                   { 0x9, "Immediate Data with Solicited Event" },
                                                   { 0xA, "Atomic Request" },
                                                   { 0xB, "Atomic Response" },
                                                   { 0, NULL } };

/* The RDMA message the FPDU `f` ends (its segment with the Last flag), as the library grouped
 * the DDP Segments: a summary under the FPDU's item (mpa.message, mpa.message.opcode, ...). */
static void
add_message_ended(proto_item *fpdu_item, tvbuff_t *tvb, const mpa_fpdu_view *f,
                  const mpa_message_view *messages, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const mpa_message_view *m = &messages[i];
        proto_tree *ft, *mt;
        proto_item *mi;

        if (m->connection != f->connection || m->direction != f->direction ||
            m->tcp_seq != f->header_seq || fpdu_item == NULL)
            continue;
        ft = proto_item_get_subtree(fpdu_item);
        if (ft == NULL)
            ft = proto_item_add_subtree(fpdu_item, ett_mpa_fpdu);
        mi = proto_tree_add_string(ft, hf_mpa_message, tvb, 0, 0, m->description);
        proto_item_set_generated(mi);
        mt = proto_item_add_subtree(mi, ett_mpa_message);
        proto_item_set_generated(
            proto_tree_add_uint(mt, hf_mpa_message_opcode, tvb, 0, 0, m->opcode));
        proto_item_set_generated(
            proto_tree_add_uint64(mt, hf_mpa_message_length, tvb, 0, 0, m->octets));
        proto_item_set_generated(
            proto_tree_add_uint(mt, hf_mpa_message_segments, tvb, 0, 0, m->segments));
        proto_item_set_generated(proto_tree_add_uint(mt, hf_mpa_message_first_frame, tvb, 0, 0,
                                                     (guint32)m->first_frame));
        proto_item_set_generated(
            proto_tree_add_uint64(mt, hf_mpa_message_number, tvb, 0, 0, m->number));
        return;
    }
}

/* RDMA Send reassembly on later passes (see keep_send_reassembly): frame -> the reassembled
 * RDMA Send message (fragment_head) whose fragments that frame carries, for the frames
 * Wireshark's DDP/RDMAP dissector keeps nothing for. */
static wmem_map_t *send_message_of_frame = NULL;

/* Preferences */
static mpa_ws_bool pref_disable_builtin = TRUE;
static gint pref_markers = MPA_AUTO;
static gint pref_crc = MPA_AUTO;
static mpa_ws_bool pref_infer_all = FALSE;
static range_t *pref_vxlan_ports = NULL;
static range_t *pref_geneve_ports = NULL;
static mpa_ws_bool pref_rpcordma = TRUE;

/* The ports of a range preference, at most `max` of them. */
static uint32_t
ports_of(const range_t *range, uint16_t *ports, uint32_t max)
{
    uint32_t n = 0;
    for (guint i = 0; range != NULL && i < range->nranges; i++) {
        for (guint32 port = range->ranges[i].low; port <= range->ranges[i].high && n < max; port++)
            ports[n++] = (uint16_t)port;
    }
    return n;
}

/* The built-in dissector's heuristic, and its state before we touched it. */
#define BUILTIN_MPA_HEURISTIC "iwarp_mpa_tcp"
static gboolean builtin_state_saved = FALSE;
static gboolean builtin_enabled_before = TRUE;

/* Wireshark 4.0's RPC-over-RDMA heuristic under DDP/RDMAP (packet-rpcrdma.c), which fails on
 * valid RDMA Sends ("Dissector bug ... tvb && tvb->initialized"; tests/plugin/upstream/), and
 * its state before we touched it. */
#define RPCORDMA_HEURISTIC "rpcrdma_iwarp"
static gboolean rpcordma_state_saved = FALSE;
static gboolean rpcordma_enabled_before = TRUE;

/* The library's state for the open capture file. */
static mpa_bridge *mpa_file = NULL;

/* Wiretap encapsulation -> tcpdump.org link type the library decodes (or -1). */
static int *link_type_of_encap = NULL;
static int link_type_of_encap_size = 0;

/* The TCP payload a claim handed us in the frame being dissected. */
static guint32 claimed_frame = 0;
static gint claimed_offset = -1;
static guint claimed_length = 0;

static const value_string mpa_direction_vals[] = {
    { MPA_INITIATOR, "Initiator" },
    { MPA_RESPONDER, "Responder" },
    { 0, NULL },
};

/* mpa.severity: the worst finding of the frame (the coloring rules select on it). */
static const value_string mpa_severity_vals[] = {
    { 1, "Note" },
    { 2, "Warning" },
    { 3, "Error" },
    { 0, NULL },
};

static const value_string mpa_crc_status_vals[] = {
    { MPA_CRC_BAD, "Bad" },
    { MPA_CRC_GOOD, "Good" },
    { MPA_CRC_UNCHECKED, "Unchecked (CRC not negotiated)" },
    { 0, NULL },
};

static const enum_val_t mpa_tristate_vals[] = {
    { "auto", "Auto (inferred from the data)", MPA_AUTO },
    { "on", "On", MPA_ON },
    { "off", "Off", MPA_OFF },
    { NULL, NULL, 0 },
};

/* Wireshark's expert group for each category of the catalogue. */
static const int mpa_expert_groups[] = {
    [MPA_CATEGORY_PROTOCOL] = PI_PROTOCOL,
    [MPA_CATEGORY_MALFORMED] = PI_MALFORMED,
    [MPA_CATEGORY_CHECKSUM] = PI_CHECKSUM,
    [MPA_CATEGORY_SEQUENCE] = PI_SEQUENCE,
};

static const int mpa_expert_severities[] = {
    [MPA_SEVERITY_NOTE] = PI_NOTE,
    [MPA_SEVERITY_WARNING] = PI_WARN,
    [MPA_SEVERITY_ERROR] = PI_ERROR,
};

/* ---- Helpers */

static int
expert_group_of(int category)
{
    return category >= 0 && category < (int)G_N_ELEMENTS(mpa_expert_groups)
               ? mpa_expert_groups[category]
               : PI_PROTOCOL;
}

static void
apply_builtin_setting(void)
{
    heur_dtbl_entry_t *builtin = find_heur_dissector_by_unique_short_name(BUILTIN_MPA_HEURISTIC);
    gboolean ours_enabled = proto_is_protocol_enabled(find_protocol_by_id(proto_mpa));

    if (builtin == NULL)
        return;
    if (!builtin_state_saved) {
        builtin_enabled_before = builtin->enabled;
        builtin_state_saved = TRUE;
    }
    builtin->enabled = (pref_disable_builtin && ours_enabled) ? FALSE : builtin_enabled_before;
}

static void
apply_rpcordma_setting(void)
{
    heur_dtbl_entry_t *rpcordma = find_heur_dissector_by_unique_short_name(RPCORDMA_HEURISTIC);

    if (rpcordma == NULL)
        return;
    if (!rpcordma_state_saved) {
        rpcordma_enabled_before = rpcordma->enabled;
        rpcordma_state_saved = TRUE;
    }
    rpcordma->enabled = pref_rpcordma ? rpcordma_enabled_before : FALSE;
}

static void
build_link_type_map(void)
{
    int n = wtap_get_num_encap_types();

    link_type_of_encap = (int *)g_realloc(link_type_of_encap, sizeof(int) * (size_t)n);
    link_type_of_encap_size = n;
    for (int i = 0; i < n; i++)
        link_type_of_encap[i] = -1;
    /* Link types are 16-bit; the ones the library knows are all small. */
    for (int dlt = 0; dlt < 1024; dlt++) {
        int encap;
        if (!mpa_link_type_supported((uint32_t)dlt))
            continue;
        encap = wtap_pcap_encap_to_wtap_encap(dlt);
        if (encap >= 0 && encap < n && link_type_of_encap[encap] < 0)
            link_type_of_encap[encap] = dlt;
    }
}

static uint32_t
link_type_of(const packet_info *pinfo)
{
    int encap;

    if (pinfo->rec == NULL || pinfo->rec->rec_type != REC_TYPE_PACKET)
        return UINT32_MAX;
    encap = pinfo->rec->rec_header.packet_header.pkt_encap;
    if (encap < 0 || encap >= link_type_of_encap_size || link_type_of_encap[encap] < 0)
        return UINT32_MAX;
    return (uint32_t)link_type_of_encap[encap];
}

/* First pass: the frame's bytes to the library (read here, so no tvb exception can reach
 * the C++ side). */
static void
feed_frame(tvbuff_t *tvb, packet_info *pinfo)
{
    guint captured = tvb_captured_length(tvb);
    const guint8 *data = captured ? tvb_get_ptr(tvb, 0, captured) : NULL;
    uint64_t ns = (uint64_t)pinfo->abs_ts.secs * G_GUINT64_CONSTANT(1000000000) +
                  (uint64_t)pinfo->abs_ts.nsecs;

    mpa_bridge_feed(mpa_file, pinfo->num, link_type_of(pinfo), data, captured, pinfo->fd->pkt_len,
                    ns);
}

/* Labels are only read from a tree someone displays (tshark -V/-O/-P, Wireshark's
 * details pane); tshark -T fields and filters build a hidden tree. */
static gboolean
tree_visible(proto_tree *tree)
{
    return tree != NULL && PTREE_DATA(tree)->visible;
}

static gboolean
markers_wanted(proto_tree *tree)
{
    return tree != NULL && (proto_field_is_referenced(tree, hf_mpa_marker) ||
                            proto_field_is_referenced(tree, hf_mpa_marker_fpduptr) ||
                            proto_field_is_referenced(tree, hf_mpa_marker_reserved) ||
                            proto_field_is_referenced(tree, hf_mpa_marker_points_to));
}

static proto_item *
add_uint(proto_tree *tree, int hf, tvbuff_t *tvb, mpa_range r, guint32 value)
{
    return proto_tree_add_uint(tree, hf, tvb, (gint)r.offset, (gint)r.length, value);
}

static proto_item *
add_boolean(proto_tree *tree, int hf, tvbuff_t *tvb, mpa_range r, guint32 value)
{
    return proto_tree_add_boolean(tree, hf, tvb, (gint)r.offset, (gint)r.length, value);
}

static proto_item *
add_bytes(proto_tree *tree, int hf, tvbuff_t *tvb, mpa_range r, const uint8_t *bytes)
{
    return proto_tree_add_bytes(tree, hf, tvb, (gint)r.offset, (gint)r.length, bytes);
}

static void
add_connection_fields(proto_tree *tree, tvbuff_t *tvb, const mpa_frame_view *view)
{
    /* Each (connection, direction) this frame reports about, once. */
    uint32_t seen_conn[8];
    int seen_dir[8];
    guint seen = 0;

#define MPA_NOTE_CONNECTION(c, d)                            \
    do {                                                     \
        guint k_;                                            \
        for (k_ = 0; k_ < seen; k_++)                        \
            if (seen_conn[k_] == (c) && seen_dir[k_] == (d)) \
                break;                                       \
        if (k_ == seen && seen < G_N_ELEMENTS(seen_conn)) {  \
            seen_conn[seen] = (c);                           \
            seen_dir[seen] = (d);                            \
            seen++;                                          \
        }                                                    \
    } while (0)

    for (uint32_t i = 0; i < view->startup_count; i++)
        MPA_NOTE_CONNECTION(view->startups[i].connection, view->startups[i].direction);
    for (uint32_t i = 0; i < view->fpdu_count; i++)
        MPA_NOTE_CONNECTION(view->fpdus[i].connection, view->fpdus[i].direction);
    for (uint32_t i = 0; i < view->finding_count; i++)
        MPA_NOTE_CONNECTION(view->findings[i].connection, view->findings[i].direction);
#undef MPA_NOTE_CONNECTION

    for (guint i = 0; i < seen; i++) {
        proto_item *pi = proto_tree_add_uint(tree, hf_mpa_connection, tvb, 0, 0, seen_conn[i]);
        proto_item_set_generated(pi);
        pi = proto_tree_add_uint(tree, hf_mpa_direction, tvb, 0, 0, (guint32)seen_dir[i]);
        proto_item_set_generated(pi);
    }
}

/* The items of what a frame shows that findings hang on, by enum mpa_field (NULL: not shown). */
typedef struct field_items {
    proto_item *field[MPA_FIELD_STARTUP_ENHANCED + 1];
    proto_item **markers; /* an FPDU's marker items, when built */
    uint32_t marker_count;
} field_items;

static void
render_startup(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const mpa_startup_view *s,
               field_items *items)
{
    proto_tree *st, *ft;
    proto_item *fi;

    st = proto_tree_add_subtree(tree, tvb, (gint)s->whole.offset, (gint)s->whole.length,
                                ett_mpa_startup, &items->field[MPA_FIELD_STARTUP_FRAME],
                                s->description);
    items->field[MPA_FIELD_STARTUP_KEY] = proto_tree_add_string(
        st, hf_mpa_key, tvb, (gint)s->key_range.offset, (gint)s->key_range.length,
        format_text(pinfo->pool, MPA_FORMAT_TEXT_STRING(s->key), s->key_length));
    fi = add_uint(st, hf_mpa_flags, tvb, s->flags_range, s->flags);
    items->field[MPA_FIELD_STARTUP_FLAGS] = fi;
    ft = proto_item_add_subtree(fi, ett_mpa_flags);
    add_boolean(ft, hf_mpa_flag_m, tvb, s->flags_range, s->flags);
    add_boolean(ft, hf_mpa_flag_c, tvb, s->flags_range, s->flags);
    add_boolean(ft, hf_mpa_flag_r, tvb, s->flags_range, s->flags);
    add_boolean(ft, hf_mpa_flag_s, tvb, s->flags_range, s->flags);
    add_uint(ft, hf_mpa_flag_res, tvb, s->flags_range, s->flags);
    items->field[MPA_FIELD_STARTUP_REVISION] =
        add_uint(st, hf_mpa_rev, tvb, s->revision_range, s->revision);
    items->field[MPA_FIELD_STARTUP_PD_LENGTH] =
        add_uint(st, hf_mpa_pd_length, tvb, s->pd_length_range, s->pd_length);
    if (s->has_vendor_extension)
        add_bytes(st, hf_mpa_vendor_extension, tvb, s->vendor_extension_range, s->vendor_extension);
    if (s->private_data_length > 0) {
        mpa_range r = s->private_data_range;
        items->field[MPA_FIELD_STARTUP_PRIVATE_DATA] = proto_tree_add_bytes_with_length(
            st, hf_mpa_private_data, tvb, (gint)r.offset, (gint)r.length, s->private_data,
            (gint)s->private_data_length);
    }
    if (s->has_enhanced) {
        proto_tree *et = proto_tree_add_subtree(st, tvb, (gint)s->enhanced_range.offset,
                                                (gint)s->enhanced_range.length, ett_mpa_enhanced,
                                                &items->field[MPA_FIELD_STARTUP_ENHANCED],
                                                "Enhanced connection establishment (RFC 6581)");
        add_boolean(et, hf_mpa_a, tvb, s->enhanced_range, s->peer_to_peer);
        add_boolean(et, hf_mpa_b, tvb, s->enhanced_range, s->send_rtr);
        add_uint(et, hf_mpa_ird, tvb, s->enhanced_range, s->ird);
        add_boolean(et, hf_mpa_c_rtr, tvb, s->enhanced_range, s->write_rtr);
        add_boolean(et, hf_mpa_d, tvb, s->enhanced_range, s->read_rtr);
        add_uint(et, hf_mpa_ord, tvb, s->enhanced_range, s->ord);
    }
    col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", s->description);
    proto_item_append_text(proto_tree_get_parent(tree), ", %s", s->description);
}

/* Returns the ULPDU's tvb (for DDP/RDMAP), or NULL. */
static tvbuff_t *
render_fpdu(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const mpa_fpdu_view *f,
            field_items *items)
{
    proto_tree *ft;
    proto_item *pi;
    tvbuff_t *ulpdu_tvb = NULL;
    const char *crc_note = f->crc_status == MPA_CRC_BAD ? " [CRC bad]" : "";

    ft = proto_tree_add_subtree_format(tree, tvb, (gint)f->range.offset, (gint)f->range.length,
                                       ett_mpa_fpdu, &items->field[MPA_FIELD_FPDU],
                                       "FPDU: ULPDU_Length %u%s%s", f->ulpdu_length,
                                       f->marker_count ? ", markers" : "", crc_note);
    items->field[MPA_FIELD_ULPDU_LENGTH] =
        add_uint(ft, hf_mpa_ulpdu_length, tvb, f->header_range, f->ulpdu_length);
    if (f->first_frame != pinfo->num) {
        pi = proto_tree_add_uint(ft, hf_mpa_first_frame, tvb, 0, 0, (guint32)f->first_frame);
        proto_item_set_generated(pi);
    }
    /* The pad with its octets when they are in this frame. */
    pi = add_uint(ft, hf_mpa_pad, tvb, f->pad_range, f->pad_length);
    if (f->pad_range.length == 0)
        proto_item_set_generated(pi);
    items->field[MPA_FIELD_PAD] = pi;
    if (f->crc_field)
        items->field[MPA_FIELD_CRC] = add_uint(ft, hf_mpa_crc, tvb, f->crc_range, f->crc_received);
    if (f->crc_status != MPA_CRC_UNCHECKED) {
        pi = proto_tree_add_uint(ft, hf_mpa_crc_computed, tvb, 0, 0, f->crc_computed);
        proto_item_set_generated(pi);
    }
    pi = proto_tree_add_uint(ft, hf_mpa_crc_status, tvb, 0, 0, (guint32)f->crc_status);
    proto_item_set_generated(pi);

    /* Markers only when someone looks at them (a visible tree, a filter or a field naming
     * them): with several per FPDU they are most of the items an FPDU adds. */
    if (f->marker_count > 0 && markers_wanted(ft)) {
        items->markers = wmem_alloc_array(pinfo->pool, proto_item *, f->marker_count);
        items->marker_count = f->marker_count;
        for (uint32_t i = 0; i < f->marker_count; i++) {
            const mpa_marker_view *m = &f->markers[i];
            proto_tree *mt;
            proto_item *mi = proto_tree_add_item(ft, hf_mpa_marker, tvb, (gint)m->range.offset,
                                                 (gint)m->range.length, ENC_NA);
            items->markers[i] = mi;
            if (tree_visible(ft))
                proto_item_append_text(mi, " at seq %u: FPDUPTR %u", m->tcp_seq, m->fpdu_ptr);
            mt = proto_item_add_subtree(mi, ett_mpa_marker);
            add_uint(mt, hf_mpa_marker_reserved, tvb, m->range, m->reserved);
            add_uint(mt, hf_mpa_marker_fpduptr, tvb, m->range, m->fpdu_ptr);
            pi = proto_tree_add_uint(mt, hf_mpa_marker_points_to, tvb, 0, 0, m->points_to);
            proto_item_set_generated(pi);
        }
    }

    if (f->ulpdu_piece_count == 1) {
        ulpdu_tvb = tvb_new_subset_length(tvb, (gint)f->ulpdu_pieces[0].offset,
                                          (gint)f->ulpdu_pieces[0].length);
    } else if (f->ulpdu_piece_count > 1) {
        /* Markers inside: the pieces between them, joined for this dissection only. */
        guint8 *joined = (guint8 *)wmem_alloc(pinfo->pool, f->ulpdu_size);
        guint at = 0;
        for (uint32_t i = 0; i < f->ulpdu_piece_count; i++) {
            tvb_memcpy(tvb, joined + at, (gint)f->ulpdu_pieces[i].offset,
                       f->ulpdu_pieces[i].length);
            at += f->ulpdu_pieces[i].length;
        }
        ulpdu_tvb = tvb_new_child_real_data(tvb, joined, at, (gint)at);
        add_new_data_source(pinfo, ulpdu_tvb, "MPA ULPDU");
    } else if (f->ulpdu != NULL) {
        ulpdu_tvb = tvb_new_child_real_data(tvb, f->ulpdu, f->ulpdu_kept, (gint)f->ulpdu_kept);
        add_new_data_source(pinfo, ulpdu_tvb, "MPA ULPDU");
    }
    if (ulpdu_tvb != NULL)
        items->field[MPA_FIELD_ULPDU] =
            proto_tree_add_item(ft, hf_mpa_ulpdu, ulpdu_tvb, 0, -1, ENC_NA);

    col_append_sep_fstr(pinfo->cinfo, COL_INFO, ", ", "FPDU len=%u%s", f->ulpdu_length, crc_note);
    if (tree_visible(tree))
        proto_item_append_text(proto_tree_get_parent(tree), ", FPDU len=%u%s", f->ulpdu_length,
                               crc_note);
    return ulpdu_tvb;
}

/* One finding: the catalogue id in the field mpa.finding (mpa.finding == "fpdu.crc-mismatch"),
 * its details (values, sequence numbers) in mpa.finding.detail, and the expert item with the
 * catalogue's text, so that -z expert and the Expert Information dialog group the findings of
 * one id. With `field` (the item of the field the library says it is about: a CRC, a pad, a
 * marker, a ULPDU_Length, a startup frame's field) both hang on that field, and the Expert
 * Information dialog leads to its octets; without, they are items of `tree`. */
static void
add_finding(proto_tree *tree, proto_item *field, tvbuff_t *tvb, packet_info *pinfo,
            const mpa_finding_view *f)
{
    const mpa_diag_info *d = mpa_catalogue_entry(f->diag);
    proto_item *fi, *pi;
    proto_tree *ft;

    if (field != NULL) {
        tree = proto_item_get_subtree(field);
        if (tree == NULL)
            tree = proto_item_add_subtree(field, ett_mpa_finding);
    }
    fi = proto_tree_add_string_format_value(tree, hf_mpa_finding, tvb, 0, 0, d->name, "%s: %s",
                                            d->name, f->message);
    proto_item_set_generated(fi);
    ft = proto_item_add_subtree(fi, ett_mpa_finding);
    pi = proto_tree_add_string(ft, hf_mpa_finding_detail, tvb, 0, 0, f->message);
    proto_item_set_generated(pi);
    if (f->shown_in != 0) {
        /* Its FPDU or startup frame spans frames: drawn, with the field, where it completes. */
        pi = proto_tree_add_uint(ft, hf_mpa_finding_shown_in, tvb, 0, 0, (guint32)f->shown_in);
        proto_item_set_generated(pi);
    }
    expert_add_info(pinfo, field != NULL ? field : fi, &ei_mpa_catalogue[f->diag]);
}

/* The findings of the frame about its `kind` number `index`, each under the item of its field
 * (the FPDU's or startup frame's own item when that field is not drawn: a CRC field the
 * sender does not send, markers not built for a filter that names none of them). */
static void
add_findings_about(const mpa_frame_view *view, int kind, uint32_t index, const field_items *items,
                   proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo)
{
    for (uint32_t i = 0; i < view->finding_count; i++) {
        const mpa_finding_view *f = &view->findings[i];
        proto_item *field = NULL;

        if (f->subject != kind || f->subject_index != index || f->diag >= ei_mpa_catalogue_size)
            continue;
        if (f->field == MPA_FIELD_MARKER && f->marker_index >= 0 &&
            (uint32_t)f->marker_index < items->marker_count)
            field = items->markers[f->marker_index];
        else if (f->field > MPA_FIELD_NONE && f->field <= MPA_FIELD_STARTUP_ENHANCED)
            field = items->field[f->field];
        if (field == NULL)
            field =
                items->field[kind == MPA_SUBJECT_FPDU ? MPA_FIELD_FPDU : MPA_FIELD_STARTUP_FRAME];
        add_finding(tree, field, tvb, pinfo, f);
    }
}

/* RDMA Send reassembly on later passes without its quadratic cost.
 *
 * Wireshark 4.0's DDP/RDMAP dissector (packet-iwarp-ddp-rdmap.c, dissect_rdmap_payload) keeps,
 * per frame, the reassembled Send message it got back (proto data of iwarp_ddp_rdmap, key 0):
 * on the first pass only frames that complete a message get one. On the next pass a frame
 * without it (one that carries only non-last fragments of a Send) adds its fragment to the
 * reassembly table again, as on the first pass, to a reassembly that never completes (the last
 * fragments, which have their message kept, are not added again) and grows by one fragment,
 * found by walking the list and copied, per frame; only then does it keep the message the
 * table holds for that frame from the first pass (fragment_get_reassembled_id: the message
 * whose fragment list holds the frame) and show it, and the extra reassembly changes nothing
 * it shows. That pass cost the square of the capture: tshark -2 on 111 MB with markers, 39.5 s
 * of CPU and 375 MB against 4.95 s and 300 MB in one pass (Wireshark's first display filter
 * in the GUI the same).
 *
 * So on the first pass, at each frame where a message completes, the frames of its fragments
 * are noted (the message's fragment list, as the table keys them); on later passes a frame
 * noted and without a kept message gets that message as its kept one before its ULPDUs go to
 * DDP/RDMAP: the dissector shows what it showed, and adds nothing. (A frame carrying only
 * non-last fragments holds fragments of one message only: a direction's Sends are in order.) */
static void
note_send_messages(packet_info *pinfo)
{
    fragment_head *message;

    if (proto_ddp_rdmap < 0 || send_message_of_frame == NULL)
        return;
    message = (fragment_head *)p_get_proto_data(wmem_file_scope(), pinfo, proto_ddp_rdmap, 0);
    if (message == NULL)
        return;
    for (fragment_item *fragment = message->next; fragment != NULL; fragment = fragment->next) {
        if (fragment->frame != pinfo->num)
            wmem_map_insert(send_message_of_frame, GUINT_TO_POINTER(fragment->frame), message);
    }
}

static void
keep_send_reassembly(packet_info *pinfo)
{
    void *message;

    if (proto_ddp_rdmap < 0 || send_message_of_frame == NULL ||
        p_get_proto_data(wmem_file_scope(), pinfo, proto_ddp_rdmap, 0) != NULL)
        return;
    message = wmem_map_lookup(send_message_of_frame, GUINT_TO_POINTER(pinfo->num));
    if (message != NULL)
        p_add_proto_data(wmem_file_scope(), pinfo, proto_ddp_rdmap, 0, message);
}

/* A malformed ULPDU ends its own dissection, not the frame's. */
static void
call_ddp_rdmap(tvbuff_t *ulpdu, packet_info *pinfo, proto_tree *tree)
{
    /* clang-format off (Wireshark's exception macros) */
    TRY
    {
        call_dissector(ddp_rdmap_handle, ulpdu, pinfo, tree);
    }
    CATCH_NONFATAL_ERRORS
    {
        show_exception(ulpdu, pinfo, tree, EXCEPT_CODE, GET_MESSAGE);
    }
    ENDTRY;
    /* clang-format on */
}

/* ---- Dissection */

/* Wireshark's first pass: the analysis of this frame framed or judged earlier frames, which
 * that pass has dissected already (octets the library held until it could decide how their
 * sender frames its FPDUs, a finding confirmed only here). A single pass (tshark without -2)
 * showed them as payload with no FPDU, or without the finding: say so where it happens. */
static void
note_single_pass(packet_info *pinfo, proto_item *ti, const uint64_t *frames, size_t count)
{
    wmem_strbuf_t *list = wmem_strbuf_new(pinfo->pool, "");
    size_t shown = MIN(count, 8);

    for (size_t i = 0; i < shown; i++)
        wmem_strbuf_append_printf(list, "%s%" PRIu64,
                                  i == 0 ? "" : (i + 1 == count ? " and " : ", "), frames[i]);
    if (count > shown)
        wmem_strbuf_append_printf(list, " and %zu more", count - shown);
    expert_add_info_format(pinfo, ti, &ei_mpa_single_pass,
                           "Single pass: frame%s %s %s shown before this frame's analysis "
                           "framed or judged %s; tshark -2 (or Wireshark once the file is "
                           "loaded) shows %s",
                           count == 1 ? "" : "s", wmem_strbuf_get_str(list),
                           count == 1 ? "was" : "were", count == 1 ? "it" : "them",
                           count == 1 ? "it" : "them");
}

/* Claims the TCP payload of an MPA connection (conversation dissector, heuristic, Decode
 * As). The frame itself is rendered by dissect_mpa_frame() once the library has seen it. */
static int
dissect_mpa_tcp(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree _U_, void *data _U_)
{
    claimed_frame = pinfo->num;
    claimed_offset = tvb_raw_offset(tvb);
    claimed_length = tvb_captured_length(tvb);
    col_set_str(pinfo->cinfo, COL_PROTOCOL, "MPA");
    return (int)tvb_captured_length(tvb);
}

static mpa_ws_bool
dissect_mpa_heur(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    guint length = tvb_captured_length(tvb);
    guint probe = MIN(length, 64);
    const guint8 *head = probe ? tvb_get_ptr(tvb, 0, probe) : NULL;

    if (!mpa_looks_like_startup_key(head, probe))
        return FALSE;
    conversation_set_dissector(find_or_create_conversation(pinfo), mpa_tcp_handle);
    dissect_mpa_tcp(tvb, pinfo, tree, data);
    return TRUE;
}

/* The postdissector: every frame. */
static int
dissect_mpa_frame(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    const mpa_frame_view *view;
    gboolean claimed = claimed_frame == pinfo->num;
    proto_item *ti;
    proto_tree *mpa_tree;
    mpa_range payload = { 0, 0 };
    tvbuff_t **ulpdus;
    guint n_ulpdus = 0;
    const char *error;
    uint64_t earlier_frames[8];
    size_t earlier = 0;

    if (mpa_file == NULL)
        return 0;
    if (!PINFO_FD_VISITED(pinfo)) {
        feed_frame(tvb, pinfo);
        earlier = mpa_bridge_filed_earlier(mpa_file, pinfo->num, earlier_frames,
                                           G_N_ELEMENTS(earlier_frames));
    }
    view = mpa_bridge_frame(mpa_file, pinfo->num);
    error = mpa_bridge_error(mpa_file);
    if (error != NULL && mpa_bridge_error_frame(mpa_file) != pinfo->num)
        error = NULL;
    if (view == NULL && !claimed && error == NULL && earlier == 0)
        return 0;

    if (view != NULL && view->payload.length > 0)
        payload = view->payload;
    else if (claimed && claimed_offset >= 0 &&
             (guint)claimed_offset + claimed_length <= tvb_captured_length(tvb))
        payload = (mpa_range){ (uint32_t)claimed_offset, claimed_length };
    ti = proto_tree_add_item(tree, proto_mpa, tvb, (gint)payload.offset, (gint)payload.length,
                             ENC_NA);
    mpa_tree = proto_item_add_subtree(ti, ett_mpa);
    if (error != NULL)
        expert_add_info_format(pinfo, ti, &ei_mpa_library_error, "%s", error);
    if (earlier > 0)
        note_single_pass(pinfo, ti, earlier_frames, earlier);
    if (view == NULL) {
        proto_item_append_text(ti, ", payload of an MPA connection (no FPDU ends here)");
        return 0;
    }

    if (view->mpa_payload) {
        col_set_str(pinfo->cinfo, COL_PROTOCOL, "MPA");
        col_clear(pinfo->cinfo, COL_INFO);
        /* Later passes find the payload of this connection claimed for MPA up front. */
        if (!PINFO_FD_VISITED(pinfo) && !claimed && pinfo->ptype == PT_TCP) {
            conversation_t *conv = find_conversation_pinfo(pinfo, 0);
            if (conv != NULL && conversation_get_dissector(conv, pinfo->num) != mpa_tcp_handle)
                conversation_set_dissector(conv, mpa_tcp_handle);
        }
    }
    add_connection_fields(mpa_tree, tvb, view);

    /* Findings about no field this frame shows first, at the top; the others under the field
     * they are about once it is drawn (add_finding). The worst severity of the frame's
     * findings is mpa.severity, which the shipped coloring rules select on: other protocols'
     * expert items in the frame do not count. */
    uint32_t worst = 0;
    for (uint32_t i = 0; i < view->finding_count; i++) {
        const mpa_finding_view *f = &view->findings[i];
        if (f->diag >= ei_mpa_catalogue_size)
            continue;
        const mpa_diag_info *d = mpa_catalogue_entry(f->diag);
        if (f->subject == MPA_SUBJECT_NONE)
            add_finding(mpa_tree, NULL, tvb, pinfo, f);
        if ((uint32_t)d->severity + 1 > worst)
            worst = (uint32_t)d->severity + 1;
    }
    if (worst > 0)
        proto_item_set_generated(proto_tree_add_uint(mpa_tree, hf_mpa_severity, tvb, 0, 0, worst));
    for (uint32_t i = 0; i < view->startup_count; i++) {
        field_items items = { { NULL }, NULL, 0 };
        render_startup(mpa_tree, tvb, pinfo, &view->startups[i], &items);
        add_findings_about(view, MPA_SUBJECT_STARTUP, i, &items, mpa_tree, tvb, pinfo);
    }
    ulpdus = wmem_alloc_array(pinfo->pool, tvbuff_t *, view->fpdu_count);
    const mpa_message_view *messages = NULL;
    size_t message_count =
        view->fpdu_count ? mpa_bridge_messages(mpa_file, pinfo->num, &messages) : 0;
    for (uint32_t i = 0; i < view->fpdu_count; i++) {
        field_items items = { { NULL }, NULL, 0 };
        tvbuff_t *ulpdu = render_fpdu(mpa_tree, tvb, pinfo, &view->fpdus[i], &items);
        add_findings_about(view, MPA_SUBJECT_FPDU, i, &items, mpa_tree, tvb, pinfo);
        add_message_ended(items.field[MPA_FIELD_FPDU], tvb, &view->fpdus[i], messages,
                          message_count);
        if (ulpdu != NULL && tvb_reported_length(ulpdu) > 0)
            ulpdus[n_ulpdus++] = ulpdu;
    }
    for (uint32_t i = 0; i < view->ended_count; i++)
        tap_queue_packet(mpa_tap, pinfo, view->ended[i]);

    /* The ULPDUs to DDP/RDMAP (and through it iSER, SMB Direct, NVMe-oF, ...). */
    if (n_ulpdus > 0 && ddp_rdmap_handle != NULL) {
        col_append_str(pinfo->cinfo, COL_INFO, " | ");
        col_set_fence(pinfo->cinfo, COL_INFO);
        if (PINFO_FD_VISITED(pinfo))
            keep_send_reassembly(pinfo);
        for (guint i = 0; i < n_ulpdus; i++)
            call_ddp_rdmap(ulpdus[i], pinfo, tree);
        if (!PINFO_FD_VISITED(pinfo))
            note_send_messages(pinfo);
    }
    return (int)tvb_captured_length(tvb);
}

/* ---- Per-file state */

static void
mpa_init(void)
{
    uint16_t vxlan[64];
    uint16_t geneve[64];
    mpa_bridge_options options = { pref_markers, pref_crc, pref_infer_all, vxlan, 0, geneve, 0 };
    options.vxlan_port_count = ports_of(pref_vxlan_ports, vxlan, array_length(vxlan));
    options.geneve_port_count = ports_of(pref_geneve_ports, geneve, array_length(geneve));

    apply_builtin_setting();
    apply_rpcordma_setting();
    mpa_bridge_free(mpa_file);
    mpa_file = mpa_bridge_new(&options);
    claimed_frame = 0;
}

static void
mpa_cleanup(void)
{
    mpa_bridge_free(mpa_file);
    mpa_file = NULL;
    claimed_frame = 0;
}

/* The first pass is over: let the library finish the connections still open. */
static void
mpa_first_pass_done(void)
{
    mpa_bridge_finish(mpa_file);
}

static void
mpa_prefs_applied(void)
{
    apply_builtin_setting();
    apply_rpcordma_setting();
}

/* ---- Registration */

/* Wireshark registers an expert item's filter field without a description: give each of
 * ours one (tshark -G fields, the display filter dialog), naming its finding. */
static void
describe_expert_fields(void)
{
    static const char *const severity_names[] = { "note", "warning", "error" };

    for (size_t i = 0; i < ei_mpa_catalogue_size; i++) {
        const mpa_diag_info *d = mpa_catalogue_entry(i);
        gchar *name = g_strdup_printf("mpa.%s", d->name);
        header_field_info *hfi = proto_registrar_get_byname(name);
        g_free(name);
        if (hfi == NULL || (hfi->blurb != NULL && hfi->blurb[0] != '\0'))
            continue;
        hfi->blurb = g_strdup_printf(
            "The mpa-check finding %s (%s); beside it mpa.finding holds the id and "
            "mpa.finding.detail its values",
            d->name, d->severity >= 0 && d->severity < 3 ? severity_names[d->severity] : "finding");
    }
    for (size_t i = 0; i < G_N_ELEMENTS(internal_expert_blurbs); i++) {
        header_field_info *hfi = proto_registrar_get_byname(internal_expert_blurbs[i][0]);
        if (hfi != NULL && (hfi->blurb == NULL || hfi->blurb[0] == '\0'))
            hfi->blurb = internal_expert_blurbs[i][1];
    }
}

void
proto_register_mpa(void)
{
    static hf_register_info hf[] = {
        { &hf_mpa_connection,
          { "Connection", "mpa.connection", FT_UINT32, BASE_DEC, NULL, 0x0,
            "The analyzer's MPA connection index", HFILL } },
        { &hf_mpa_finding,
          { "Finding", "mpa.finding", FT_STRING, BASE_NONE, NULL, 0x0,
            "A finding's catalogue id (mpa-check --list-diagnostics); its expert item carries "
            "the catalogue's text",
            HFILL } },
        { &hf_mpa_finding_detail,
          { "Detail", "mpa.finding.detail", FT_STRING, BASE_NONE, NULL, 0x0,
            "What the finding saw: its values and sequence numbers", HFILL } },
        { &hf_mpa_finding_shown_in,
          { "Its field is shown in frame", "mpa.finding.shown_in", FT_FRAMENUM, BASE_NONE, NULL,
            0x0,
            "The frame that completes the FPDU or startup frame the finding is about, where the "
            "field it is about is drawn (the finding stays at the frame where its octets begin)",
            HFILL } },
        { &hf_mpa_severity,
          { "Worst finding", "mpa.severity", FT_UINT8, BASE_DEC, VALS(mpa_severity_vals), 0x0,
            "The most severe of the frame's MPA findings (1 note, 2 warning, 3 error)", HFILL } },
        { &hf_mpa_direction,
          { "Direction", "mpa.direction", FT_UINT8, BASE_DEC, VALS(mpa_direction_vals), 0x0,
            "Sender of the data: the Initiator sends the MPA Request", HFILL } },
        { &hf_mpa_key,
          { "Key", "mpa.key", FT_STRING, BASE_NONE, NULL, 0x0,
            "The startup frame's 16-octet key: MPA ID Req Frame or MPA ID Rep Frame (RFC 5044 "
            "7.1.1)",
            HFILL } },
        { &hf_mpa_flags,
          { "Flags", "mpa.flags", FT_UINT8, BASE_HEX, NULL, 0x0,
            "The startup frame's flags octet: M, C, R, S and reserved bits (RFC 5044 7.1.1)",
            HFILL } },
        { &hf_mpa_flag_m,
          { "Marker flag (M)", "mpa.flags.m", FT_BOOLEAN, 8, NULL, MPA_FLAG_M,
            "The sender wants markers in the data it receives", HFILL } },
        { &hf_mpa_flag_c,
          { "CRC flag (C)", "mpa.flags.c", FT_BOOLEAN, 8, NULL, MPA_FLAG_C,
            "The sender wants CRC32c on the FPDUs; CRCs are on both ways if either side sets it",
            HFILL } },
        { &hf_mpa_flag_r,
          { "Rejected connection (R)", "mpa.flags.r", FT_BOOLEAN, 8, NULL, MPA_FLAG_R,
            "Set in a Reply that rejects the connection; must be 0 in a Request", HFILL } },
        { &hf_mpa_flag_s,
          { "Enhanced connection establishment (S)", "mpa.flags.s", FT_BOOLEAN, 8, NULL, MPA_FLAG_S,
            "RFC 6581: IRD/ORD block in the private data", HFILL } },
        { &hf_mpa_flag_res,
          { "Reserved", "mpa.flags.res", FT_UINT8, BASE_HEX, NULL, MPA_FLAG_RES,
            "Reserved flag bits: sent as zero, ignored on receipt", HFILL } },
        { &hf_mpa_rev,
          { "Revision", "mpa.rev", FT_UINT8, BASE_DEC, NULL, 0x0,
            "MPA revision: 1 (RFC 5044), 2 (RFC 6581), 0 (RDMA Consortium), 129 (erdma)", HFILL } },
        { &hf_mpa_pd_length,
          { "Private data length", "mpa.pd_length", FT_UINT16, BASE_DEC, NULL, 0x0,
            "Octets of private data after the startup frame's header (RFC 5044 7.1.1)", HFILL } },
        { &hf_mpa_vendor_extension,
          { "Vendor extension", "mpa.vendor_extension", FT_BYTES, BASE_NONE, NULL, 0x0,
            "Rev 129 (Alibaba erdma) extension, not counted in PD_Length", HFILL } },
        { &hf_mpa_private_data,
          { "Private data", "mpa.private_data", FT_BYTES, BASE_NONE, NULL, 0x0,
            "The startup frame's private data, for the ULP (enhanced connection establishment, RFC "
            "6581, puts the IRD/ORD block first)",
            HFILL } },
        { &hf_mpa_a,
          { "Peer-to-peer (A)", "mpa.a", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "RFC 6581: the connection is peer-to-peer; a Ready To Receive message follows",
            HFILL } },
        { &hf_mpa_b,
          { "Zero-length Send RTR (B)", "mpa.b", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "RFC 6581: a zero-length RDMA Send may be the Ready To Receive message", HFILL } },
        { &hf_mpa_c_rtr,
          { "Zero-length RDMA Write RTR (C)", "mpa.c_rtr", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "RFC 6581: a zero-length RDMA Write may be the Ready To Receive message", HFILL } },
        { &hf_mpa_d,
          { "Zero-length RDMA Read RTR (D)", "mpa.d", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
            "RFC 6581: a zero-length RDMA Read may be the Ready To Receive message", HFILL } },
        { &hf_mpa_ird,
          { "IRD", "mpa.ird", FT_UINT16, BASE_DEC, NULL, 0x0, "Inbound RDMA Read queue depth",
            HFILL } },
        { &hf_mpa_ord,
          { "ORD", "mpa.ord", FT_UINT16, BASE_DEC, NULL, 0x0, "Outbound RDMA Read queue depth",
            HFILL } },
        { &hf_mpa_ulpdu_length,
          { "ULPDU length", "mpa.ulpdu_length", FT_UINT16, BASE_DEC, NULL, 0x0,
            "The FPDU's ULPDU_Length field: octets of ULPDU, pad and markers not counted",
            HFILL } },
        { &hf_mpa_pad,
          { "Pad octets", "mpa.pad", FT_UINT8, BASE_DEC, NULL, 0x0,
            "Pad octets after the ULPDU (0 to 3, to a multiple of 4; RFC 5044 4.1)", HFILL } },
        { &hf_mpa_crc,
          { "CRC", "mpa.crc", FT_UINT32, BASE_HEX, NULL, 0x0, "CRC32c as received", HFILL } },
        { &hf_mpa_crc_computed,
          { "Computed CRC", "mpa.crc.computed", FT_UINT32, BASE_HEX, NULL, 0x0,
            "CRC32c the library computed over the FPDU as received", HFILL } },
        { &hf_mpa_crc_status,
          { "CRC status", "mpa.crc.status", FT_UINT8, BASE_DEC, VALS(mpa_crc_status_vals), 0x0,
            "Received CRC against computed: 0 bad, 1 good, 2 unchecked (CRC not negotiated)",
            HFILL } },
        { &hf_mpa_first_frame,
          { "FPDU begins in frame", "mpa.first_frame", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
            "The frame holding the FPDU's first octet, when an earlier one than this", HFILL } },
        { &hf_mpa_marker,
          { "Marker", "mpa.marker", FT_NONE, BASE_NONE, NULL, 0x0,
            "A marker, placed at fixed points of the TCP sequence space (RFC 5044 4.3)", HFILL } },
        { &hf_mpa_marker_fpduptr,
          { "FPDUPTR", "mpa.marker.fpduptr", FT_UINT16, BASE_DEC, NULL, 0x0,
            "Octets back from the marker to the ULPDU_Length field", HFILL } },
        { &hf_mpa_marker_reserved,
          { "Reserved", "mpa.marker.reserved", FT_UINT16, BASE_HEX, NULL, 0x0,
            "The marker's reserved half: sent as zero", HFILL } },
        { &hf_mpa_marker_points_to,
          { "Points to sequence number", "mpa.marker.points_to", FT_UINT32, BASE_DEC, NULL, 0x0,
            "The TCP sequence number the marker's FPDUPTR leads to", HFILL } },
        { &hf_mpa_ulpdu,
          { "ULPDU", "mpa.ulpdu", FT_BYTES, BASE_NONE, NULL, 0x0, "The ULPDU, markers removed",
            HFILL } },
        { &hf_mpa_message,
          { "RDMA message", "mpa.message", FT_STRING, BASE_NONE, NULL, 0x0,
            "The RDMA message this FPDU's DDP Segment ends (its Last flag), as the library "
            "assembled it from its DDP Segments (RFC 5041 5)",
            HFILL } },
        { &hf_mpa_message_opcode,
          { "Opcode", "mpa.message.opcode", FT_UINT8, BASE_HEX, VALS(rdmap_opcode_names), 0x0,
            "The RDMAP opcode of the message this FPDU ends (RFC 5040 4.2, RFC 7306)", HFILL } },
        { &hf_mpa_message_length,
          { "Length", "mpa.message.length", FT_UINT64, BASE_DEC, NULL, 0x0,
            "DDP payload octets of the whole message (its RDMAP header included)", HFILL } },
        { &hf_mpa_message_segments,
          { "DDP segments", "mpa.message.segments", FT_UINT32, BASE_DEC, NULL, 0x0,
            "The DDP Segments (FPDUs) the message took", HFILL } },
        { &hf_mpa_message_first_frame,
          { "Begins in frame", "mpa.message.first_frame", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
            "The frame that completed the message's first FPDU", HFILL } },
        { &hf_mpa_message_number,
          { "Number", "mpa.message.number", FT_UINT64, BASE_DEC, NULL, 0x0,
            "The message's number in its direction, from 0, in the order messages began "
            "(mpa-check --list-messages)",
            HFILL } },
    };
    static gint *ett[] = {
        &ett_mpa,      &ett_mpa_startup, &ett_mpa_flags,   &ett_mpa_enhanced,
        &ett_mpa_fpdu, &ett_mpa_marker,  &ett_mpa_finding, &ett_mpa_message,
    };
    static ei_register_info ei_internal[] = {
        { &ei_mpa_library_error,
          { "mpa.plugin.library-error", PI_MALFORMED, PI_ERROR,
            "The mpa library failed; this capture was analyzed only up to here", EXPFILL } },
        { &ei_mpa_single_pass,
          { "mpa.single_pass", PI_SEQUENCE, PI_NOTE,
            "Single pass: earlier frames were shown before the analysis of this one framed or "
            "judged them (tshark -2, or Wireshark once the file is loaded, shows them)",
            EXPFILL } },
    };
    ei_register_info *ei;
    gchar *rules;
    expert_module_t *expert_mpa;
    module_t *mpa_module;

    proto_mpa = proto_register_protocol("MPA (mpa-check)", "MPA", "mpa");
    proto_register_field_array(proto_mpa, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));

    /* The catalogue's entries, as they are: one expert item each, "mpa.<id>". */
    expert_mpa = expert_register_protocol(proto_mpa);
    ei_mpa_catalogue_size = mpa_catalogue_size();
    ei_mpa_catalogue = g_new0(expert_field, ei_mpa_catalogue_size);
    ei = g_new0(ei_register_info, ei_mpa_catalogue_size);
    for (size_t i = 0; i < ei_mpa_catalogue_size; i++) {
        const mpa_diag_info *d = mpa_catalogue_entry(i);
        ei_mpa_catalogue[i].ei = EI_INIT_EI;
        ei_mpa_catalogue[i].hf = EI_INIT_HF;
        ei[i].ids = &ei_mpa_catalogue[i];
        ei[i].eiinfo.name = g_strdup_printf("mpa.%s", d->name);
        ei[i].eiinfo.group = expert_group_of(d->category);
        ei[i].eiinfo.severity = mpa_expert_severities[d->severity];
        /* "... (RFC 5044 4.4, error code 2; rules 5044-4.4-r9, ...)": the rules are those of
         * mpa-check --list-rules and CONFORMANCE.md. */
        rules = d->rules[0] ? g_strdup_printf("; rules %s", d->rules) : g_strdup("");
        ei[i].eiinfo.summary = d->error_code
                                   ? g_strdup_printf("%s (%s, error code %u%s)", d->summary, d->rfc,
                                                     d->error_code, rules)
                                   : g_strdup_printf("%s (%s%s)", d->summary, d->rfc, rules);
        g_free(rules);
        ei[i].eiinfo.id = 0;
        ei[i].eiinfo.protocol = NULL;
        ei[i].eiinfo.orig_severity = 0;
        ei[i].eiinfo.hf_info.p_id = NULL;
        ei[i].eiinfo.hf_info.hfinfo =
            (header_field_info){ NULL, NULL, FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL };
    }
    expert_register_field_array(expert_mpa, ei, (int)ei_mpa_catalogue_size);
    expert_register_field_array(expert_mpa, ei_internal, array_length(ei_internal));
    describe_expert_fields();

    mpa_module = prefs_register_protocol(proto_mpa, mpa_prefs_applied);
    prefs_register_static_text_preference(
        mpa_module, "about",
        "MPA as mpa-check's library sees it. tshark needs two passes (-2) to show every FPDU and "
        "finding: a single pass notes where it could not (mpa.single_pass). Wireshark 4.0's "
        "RPCoRDMA dissector above DDP/RDMAP fails on valid iWARP traffic (\"Dissector bug\" in "
        "the Expert Information): untick \"Let RPC-over-RDMA try every RDMA Send\" below, or "
        "run tshark --disable-protocol rpcordma.",
        "What this dissector shows, and Wireshark dissectors above it that fail on iWARP");
    prefs_register_bool_preference(
        mpa_module, "disable_builtin", "Disable Wireshark's built-in iWARP MPA dissector",
        "While this dissector is enabled, turn off the built-in heuristic "
        "\"" BUILTIN_MPA_HEURISTIC "\" (protocol iwarp_mpa), so that MPA is shown once. "
        "Connections the analyzer recognises as MPA are claimed by this dissector either way.",
        &pref_disable_builtin);
    prefs_register_enum_preference(
        mpa_module, "markers", "Markers in captures without startup frames",
        "Whether FPDUs carry markers when the capture misses the MPA Request and Reply",
        &pref_markers, mpa_tristate_vals, FALSE);
    prefs_register_enum_preference(
        mpa_module, "crc", "CRCs in captures without startup frames",
        "Whether FPDUs carry CRC32c when the capture misses the MPA Request and Reply", &pref_crc,
        mpa_tristate_vals, FALSE);
    prefs_register_bool_preference(
        mpa_module, "infer_all", "Look for FPDUs in every connection without startup frames",
        "Also in connections whose SYN was captured (normally taken to carry another protocol)",
        &pref_infer_all);
    range_convert_str(wmem_epan_scope(), &pref_vxlan_ports, "", 65535);
    range_convert_str(wmem_epan_scope(), &pref_geneve_ports, "", 65535);
    prefs_register_range_preference(
        mpa_module, "vxlan_ports", "More VXLAN UDP ports",
        "UDP ports whose datagrams this dissector's own reassembly decodes as VXLAN, besides "
        "4789 (as mpa-check --vxlan-port); up to 64 ports",
        &pref_vxlan_ports, 65535);
    prefs_register_range_preference(
        mpa_module, "geneve_ports", "More Geneve UDP ports",
        "UDP ports whose datagrams this dissector's own reassembly decodes as Geneve, besides "
        "6081 (as mpa-check --geneve-port); up to 64 ports",
        &pref_geneve_ports, 65535);
    prefs_register_bool_preference(
        mpa_module, "rpcordma_heuristic", "Let RPC-over-RDMA try every RDMA Send",
        "Wireshark's RPCoRDMA heuristic under DDP/RDMAP (\"" RPCORDMA_HEURISTIC "\") takes many "
        "RDMA Sends for RPC-over-RDMA, and Wireshark 4.0's fails on valid iWARP traffic with a "
        "\"Dissector bug\" error of its own (-z expert counts it among the errors). Untick "
        "where the capture holds no NFS over RDMA (as --disable-protocol rpcordma)",
        &pref_rpcordma);

    mpa_tcp_handle = register_dissector("mpa_tcp", dissect_mpa_tcp, proto_mpa);
    mpa_tap = register_tap(MPA_TAP_NAME);

    send_message_of_frame =
        wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash, g_direct_equal);
    register_init_routine(mpa_init);
    register_cleanup_routine(mpa_cleanup);
    register_postseq_cleanup_routine(mpa_first_pass_done);

    register_mpa_stats();
}

void
proto_reg_handoff_mpa(void)
{
    register_postdissector(create_dissector_handle(dissect_mpa_frame, proto_mpa));
    heur_dissector_add("tcp", dissect_mpa_heur, "MPA (mpa-check) over TCP", "mpa_tcp", proto_mpa,
                       HEURISTIC_ENABLE);
    dissector_add_for_decode_as("tcp.port", mpa_tcp_handle);
    ddp_rdmap_handle = find_dissector_add_dependency("iwarp_ddp_rdmap", proto_mpa);
    proto_ddp_rdmap = proto_get_id_by_filter_name("iwarp_ddp_rdmap");
    build_link_type_map();
    apply_builtin_setting();
    apply_rpcordma_setting();
}
