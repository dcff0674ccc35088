/* mpa_bridge.h: the C interface between the Wireshark dissector (packet-mpa.c) and the mpa
 * library (C++), in the shape of Wireshark's falco_bridge: an opaque per-capture-file handle,
 * plain C views of what the library reported, owned by the handle. No epan or glib type
 * crosses this line, no C++ exception crosses it, and no epan exception (longjmp) ever
 * unwinds through it: callers read tvbs first and pass plain buffers in.
 */
#ifndef MPA_BRIDGE_H
#define MPA_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The diagnostics catalogue (mpa::catalogue()), for registering expert items. */

enum mpa_severity { MPA_SEVERITY_NOTE = 0, MPA_SEVERITY_WARNING = 1, MPA_SEVERITY_ERROR = 2 };
/* mpa::DiagCategory: what kind of fault (Wireshark's expert groups follow it). */
enum mpa_category {
    MPA_CATEGORY_PROTOCOL = 0,
    MPA_CATEGORY_MALFORMED = 1,
    MPA_CATEGORY_CHECKSUM = 2,
    MPA_CATEGORY_SEQUENCE = 3
};

/* mpa::DiagField: the field a finding is about (see lib/include/mpa/diagnostics.h). */
enum mpa_field {
    MPA_FIELD_NONE = 0,
    MPA_FIELD_FPDU,
    MPA_FIELD_ULPDU_LENGTH,
    MPA_FIELD_ULPDU,
    MPA_FIELD_PAD,
    MPA_FIELD_CRC,
    MPA_FIELD_MARKER,
    MPA_FIELD_STARTUP_FRAME,
    MPA_FIELD_STARTUP_KEY,
    MPA_FIELD_STARTUP_FLAGS,
    MPA_FIELD_STARTUP_REVISION,
    MPA_FIELD_STARTUP_PD_LENGTH,
    MPA_FIELD_STARTUP_PRIVATE_DATA,
    MPA_FIELD_STARTUP_ENHANCED
};

typedef struct mpa_diag_info {
    const char *name;    /* permanent id, e.g. "fpdu.crc-mismatch" */
    int severity;        /* enum mpa_severity */
    const char *rfc;     /* e.g. "RFC 5044 4.4" */
    unsigned error_code; /* RFC 5044 / RFC 6581 section 8 code, 0 for none */
    const char *summary; /* one line */
    int category;        /* enum mpa_category */
    const char *rules;   /* the RFC 5044 / RFC 6581 rules it checks ("5044-4.4-r9, ..."; mpa-check
                            --list-rules), or "" for one beyond them */
    int field;           /* enum mpa_field: the field its findings are about */
} mpa_diag_info;

size_t mpa_catalogue_size(void);
/* NULL when index >= mpa_catalogue_size(). Strings live as long as the process. */
const mpa_diag_info *mpa_catalogue_entry(size_t index);

/* Link types (tcpdump.org LINKTYPE_*) the library's frame decoder understands. */
int mpa_link_type_supported(uint32_t link_type);

/* Bits of a startup frame's flags octet (RFC 5044 7.1.1, RFC 6581 6), for Wireshark's
 * bitfield display; mpa_bridge.cpp checks them against the library's at compile time. */
#define MPA_FLAG_M   0x80
#define MPA_FLAG_C   0x40
#define MPA_FLAG_R   0x20
#define MPA_FLAG_S   0x10
#define MPA_FLAG_RES 0x0F

/* True when data starts like an MPA Request/Reply key (exact or slightly damaged). */
int mpa_looks_like_startup_key(const uint8_t *data, size_t length);

/* ---- One capture file. */

enum mpa_tristate { MPA_AUTO = -1, MPA_OFF = 0, MPA_ON = 1 };

typedef struct mpa_bridge_options {
    int markers;   /* enum mpa_tristate: captures without startup frames */
    int crc;       /* enum mpa_tristate: captures without startup frames */
    int infer_all; /* look for FPDUs also in connections that sent no startup frame */
    /* UDP ports decoded as VXLAN and Geneve besides 4789 and 6081 (labs that move them) */
    const uint16_t *vxlan_ports;
    uint32_t vxlan_port_count;
    const uint16_t *geneve_ports;
    uint32_t geneve_port_count;
} mpa_bridge_options;

typedef struct mpa_bridge mpa_bridge;

/* NULL only when out of memory. */
mpa_bridge *mpa_bridge_new(const mpa_bridge_options *options);
void mpa_bridge_free(mpa_bridge *bridge);

/* First pass: every captured record, in capture order, exactly once. Records at or before
 * the last one fed are ignored. `data` holds `captured_length` octets of the record (link
 * layer included), `original_length` its length on the wire. */
void mpa_bridge_feed(mpa_bridge *bridge, uint64_t frame, uint32_t link_type, const uint8_t *data,
                     uint32_t captured_length, uint32_t original_length, uint64_t timestamp_ns);
uint64_t mpa_bridge_last_frame(const mpa_bridge *bridge);
/* End of the first pass: the library finishes every open connection. Idempotent. */
void mpa_bridge_finish(mpa_bridge *bridge);
int mpa_bridge_finished(const mpa_bridge *bridge);
/* First pass: how many earlier frames the library filed FPDUs, revisions or findings under
 * while `frame` (the frame fed last) was fed, the first `max` of them, in order, in `frames`:
 * frames Wireshark's first pass has dissected already, so that a single pass (tshark without
 * -2) showed them without (an FPDU whose framing the library decided only now, a finding
 * confirmed only now). */
size_t mpa_bridge_filed_earlier(const mpa_bridge *bridge, uint64_t frame, uint64_t *frames,
                                size_t max);
/* Non-NULL once the library failed (an internal error); the bridge then stops feeding. */
const char *mpa_bridge_error(const mpa_bridge *bridge);
uint64_t mpa_bridge_error_frame(const mpa_bridge *bridge);

/* ---- What one frame shows. Byte ranges are offsets into the frame's captured bytes;
 * length 0 means "not in this frame" (the item is shown without bytes). */

typedef struct mpa_range {
    uint32_t offset;
    uint32_t length;
} mpa_range;

enum mpa_direction { MPA_INITIATOR = 0, MPA_RESPONDER = 1 };
enum mpa_frame_kind { MPA_REQUEST = 0, MPA_REPLY = 1, MPA_UNKNOWN_FRAME = 2 };
enum mpa_crc_status { MPA_CRC_BAD = 0, MPA_CRC_GOOD = 1, MPA_CRC_UNCHECKED = 2 };

/* What a finding of a frame is about, among what the frame shows. */
enum mpa_subject {
    MPA_SUBJECT_NONE = 0, /* an event, a direction, the capture; or not shown in this frame */
    MPA_SUBJECT_FPDU,     /* the frame view's fpdus[subject_index] */
    MPA_SUBJECT_STARTUP   /* the frame view's startups[subject_index] */
};

typedef struct mpa_finding_view {
    uint32_t diag; /* index into the catalogue */
    uint32_t connection;
    int direction; /* enum mpa_direction: whose data it is about */
    uint32_t tcp_seq;
    const char *message;
    int field; /* enum mpa_field (the catalogue's): the field it is about */
    /* Filled when a frame is rendered: the FPDU or startup frame holding the field, when this
     * frame shows it (marker_index: the marker of a marker finding among that FPDU's markers,
     * -1 when none); else shown_in, the later frame that shows it (0: none). */
    int subject;
    uint32_t subject_index;
    int32_t marker_index;
    uint64_t shown_in;
} mpa_finding_view;

typedef struct mpa_startup_view {
    uint32_t connection;
    int direction;
    int kind;                /* enum mpa_frame_kind */
    const char *description; /* mpa::describe() */
    uint32_t tcp_seq;
    const uint8_t *key; /* the key octets as sent */
    uint32_t key_length;
    uint8_t flags; /* the whole flags octet (M C R S Res) */
    uint8_t revision;
    uint16_t pd_length;
    int has_vendor_extension;
    const uint8_t *vendor_extension;
    uint32_t vendor_extension_length;
    const uint8_t *private_data; /* as received (may be shorter than pd_length) */
    uint32_t private_data_length;
    int has_enhanced; /* RFC 6581 IRD/ORD block present */
    int peer_to_peer, send_rtr, write_rtr, read_rtr;
    uint16_t ird, ord;
    /* Where the parts are in this frame. */
    mpa_range whole, key_range, flags_range, revision_range, pd_length_range,
        vendor_extension_range, private_data_range, enhanced_range;
} mpa_startup_view;

typedef struct mpa_marker_view {
    uint32_t tcp_seq;
    uint16_t reserved;
    uint16_t fpdu_ptr; /* as received */
    uint16_t expected_fpdu_ptr;
    uint32_t points_to; /* sequence number FPDUPTR (as received) points to */
    mpa_range range;
} mpa_marker_view;

typedef struct mpa_fpdu_view {
    uint32_t connection;
    int direction;
    uint32_t start_seq;
    uint32_t header_seq;
    uint16_t ulpdu_length;
    uint32_t ulpdu_size; /* ULPDU octets as the sender framed them (ulpdu_length
                                  * unless its ULPDU_Length counts other octets) */
    uint8_t pad_length;
    uint32_t wire_length;
    int crc_field;  /* 0: the sender sends no CRC field (crc_range is empty) */
    int crc_status; /* enum mpa_crc_status */
    uint32_t crc_received;
    uint32_t crc_computed;
    int judged;
    uint64_t first_frame;
    const mpa_marker_view *markers;
    uint32_t marker_count;
    /* The ULPDU (markers removed): either pieces of this frame that, concatenated, are
     * the ULPDU (ulpdu_piece_count != 0), or a copy (ulpdu != NULL) when it began in an
     * earlier frame, or neither when the library did not keep it. */
    const mpa_range *ulpdu_pieces;
    uint32_t ulpdu_piece_count;
    const uint8_t *ulpdu;
    uint32_t ulpdu_kept;
    mpa_range range, header_range, pad_range, crc_range;
} mpa_fpdu_view;

typedef struct mpa_direction_view {
    int full_operation, markers, crc, inferred;
    uint64_t fpdus, ulpdu_bytes, crc_failures, bytes;
    uint32_t max_ulpdu;
} mpa_direction_view;

typedef struct mpa_connection_view {
    uint32_t id;
    const char *initiator; /* "10.0.0.1:4000" */
    const char *responder;
    int startup_seen;
    int revision;        /* -1: no Request seen */
    const char *request; /* describe(), or NULL */
    const char *reply;
    mpa_direction_view directions[2]; /* indexed by enum mpa_direction (the sender) */
    uint64_t findings[3];             /* by enum mpa_severity */
    uint64_t first_frame, last_frame;
    uint64_t reported_frame; /* frame at which the connection ended */
} mpa_connection_view;

typedef struct mpa_frame_view {
    int mpa_payload; /* startup frames or FPDUs completed here */
    const mpa_finding_view *findings;
    uint32_t finding_count;
    const mpa_startup_view *startups;
    uint32_t startup_count;
    const mpa_fpdu_view *fpdus;
    uint32_t fpdu_count;
    const mpa_connection_view **ended; /* connections that ended at this frame */
    uint32_t ended_count;
    mpa_range payload; /* this frame's TCP payload */
} mpa_frame_view;

/* NULL when the library reported nothing at this frame. Valid until the next call into
 * the bridge. */
const mpa_frame_view *mpa_bridge_frame(mpa_bridge *bridge, uint64_t frame);

/* An RDMA message (the library's mpa/rdma_messages.h) whose last DDP Segment, the one with the
 * Last flag, is the FPDU of a frame view with the same connection, direction and tcp_seq. */
typedef struct mpa_message_view {
    uint32_t connection;
    int direction;    /* enum mpa_direction */
    uint32_t tcp_seq; /* its last FPDU's ULPDU_Length field (mpa_fpdu_view.header_seq) */
    uint64_t number;  /* of its direction, from 0 */
    uint32_t opcode;  /* RDMAP opcode */
    uint64_t octets;  /* DDP payload octets */
    uint32_t segments;
    uint64_t first_frame;    /* the frame that completed its first FPDU */
    const char *description; /* "Send queue 0 MSN 3: 4096 octets in 3 DDP segments" */
} mpa_message_view;

/* The RDMA messages that end at frame `frame` (their views in *messages). Valid until the
 * next call into the bridge. */
size_t mpa_bridge_messages(mpa_bridge *bridge, uint64_t frame, const mpa_message_view **messages);

/* Every MPA connection that has ended so far (all of them after mpa_bridge_finish). */
size_t mpa_bridge_connection_count(const mpa_bridge *bridge);
const mpa_connection_view *mpa_bridge_connection(const mpa_bridge *bridge, size_t index);

#ifdef __cplusplus
}
#endif

#endif /* MPA_BRIDGE_H */
