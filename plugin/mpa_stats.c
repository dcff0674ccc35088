/* mpa_stats.c
 * Per-connection MPA statistics: one row per MPA connection with its negotiated parameters,
 * FPDU and CRC failure counts and findings by severity, from the library's connection
 * summaries (the "mpa" tap, see packet-mpa.h). Shown as Statistics > MPA Connections in
 * Wireshark and by tshark -z mpa,stat (use -2 so that connections still open at the end of
 * the capture are summarized too).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <wireshark.h>

#include <epan/packet.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "mpa_bridge.h"
#include "packet-mpa.h"

enum {
    COL_CONNECTION,
    COL_INITIATOR,
    COL_RESPONDER,
    COL_REVISION,
    COL_MARKERS,
    COL_CRC,
    COL_FPDUS_I2R,
    COL_FPDUS_R2I,
    COL_ULPDU_BYTES,
    COL_CRC_FAILURES,
    COL_ERRORS,
    COL_WARNINGS,
    COL_NOTES,
    COL_FRAMES,
    MPA_STAT_COLUMNS
};

static stat_tap_table_item mpa_stat_fields[MPA_STAT_COLUMNS] = {
    { TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Connection", "%u" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Initiator", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Responder", "%s" },
    { TABLE_ITEM_INT, TAP_ALIGN_RIGHT, "Rev", "%d" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Markers I>R/R>I", "%s" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "CRC I>R/R>I", "%s" },
    { TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "FPDUs I>R", "%u" },
    { TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "FPDUs R>I", "%u" },
    { TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "ULPDU octets", "%u" },
    { TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "CRC failures", "%u" },
    { TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Errors", "%u" },
    { TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Warnings", "%u" },
    { TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Notes", "%u" },
    { TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Frames", "%s" },
};

static const char mpa_stat_table_name[] = "MPA Connections";

static char *
on_off_pair(const mpa_direction_view *i2r, const mpa_direction_view *r2i, int markers)
{
    int a = markers ? i2r->markers : i2r->crc;
    int b = markers ? r2i->markers : r2i->crc;
    return g_strdup_printf("%s/%s%s", a ? "on" : "off", b ? "on" : "off",
                           (i2r->inferred || r2i->inferred) ? " (inferred)" : "");
}

static void
mpa_stat_init(stat_tap_table_ui *new_stat)
{
    stat_tap_table *table = stat_tap_find_table(new_stat, mpa_stat_table_name);

    if (table != NULL) {
        if (new_stat->stat_tap_reset_table_cb)
            new_stat->stat_tap_reset_table_cb(table);
        return;
    }
    table = stat_tap_init_table(mpa_stat_table_name, MPA_STAT_COLUMNS, 0, NULL);
    stat_tap_add_table(new_stat, table);
}

static tap_packet_status
mpa_stat_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_, const void *data,
                tap_flags_t flags _U_)
{
    stat_data_t *stat_data = (stat_data_t *)tapdata;
    const mpa_connection_view *c = (const mpa_connection_view *)data;
    const mpa_direction_view *i2r = &c->directions[MPA_INITIATOR];
    const mpa_direction_view *r2i = &c->directions[MPA_RESPONDER];
    stat_tap_table *table = g_array_index(stat_data->stat_tap_data->tables, stat_tap_table *, 0);
    stat_tap_table_item_type items[MPA_STAT_COLUMNS];

    memset(items, 0, sizeof items);
    for (int i = 0; i < MPA_STAT_COLUMNS; i++)
        items[i].type = mpa_stat_fields[i].type;
    items[COL_CONNECTION].value.uint_value = c->id;
    items[COL_INITIATOR].value.string_value = g_strdup(c->initiator);
    items[COL_RESPONDER].value.string_value = g_strdup(c->responder);
    items[COL_REVISION].value.int_value = c->revision;
    items[COL_MARKERS].value.string_value = on_off_pair(i2r, r2i, TRUE);
    items[COL_CRC].value.string_value = on_off_pair(i2r, r2i, FALSE);
    items[COL_FPDUS_I2R].value.uint_value = (guint)i2r->fpdus;
    items[COL_FPDUS_R2I].value.uint_value = (guint)r2i->fpdus;
    items[COL_ULPDU_BYTES].value.uint_value = (guint)(i2r->ulpdu_bytes + r2i->ulpdu_bytes);
    items[COL_CRC_FAILURES].value.uint_value = (guint)(i2r->crc_failures + r2i->crc_failures);
    items[COL_ERRORS].value.uint_value = (guint)c->findings[MPA_SEVERITY_ERROR];
    items[COL_WARNINGS].value.uint_value = (guint)c->findings[MPA_SEVERITY_WARNING];
    items[COL_NOTES].value.uint_value = (guint)c->findings[MPA_SEVERITY_NOTE];
    items[COL_FRAMES].value.string_value =
        g_strdup_printf("%" PRIu64 "-%" PRIu64, c->first_frame, c->last_frame);
    stat_tap_init_table_row(table, table->num_elements, MPA_STAT_COLUMNS, items);
    return TAP_PACKET_REDRAW;
}

static void
mpa_stat_free_item(stat_tap_table *table _U_, guint row _U_, guint column _U_,
                   stat_tap_table_item_type *field)
{
    if (field->type == TABLE_ITEM_STRING) {
        g_free((char *)field->value.string_value);
        field->value.string_value = NULL;
    }
}

/* Rows are per connection, so a reset empties the table. */
static void
mpa_stat_reset(stat_tap_table *table)
{
    for (guint row = 0; row < table->num_elements; row++) {
        for (guint column = 0; column < table->num_fields; column++)
            mpa_stat_free_item(table, row, column, &table->elements[row][column]);
        g_free(table->elements[row]);
    }
    g_free(table->elements);
    table->elements = NULL;
    table->num_elements = 0;
}

static stat_tap_table_ui mpa_stat_table = {
    REGISTER_PACKET_STAT_GROUP_UNSORTED,
    "MPA Connections",
    MPA_TAP_NAME,
    "mpa,stat",
    mpa_stat_init,
    mpa_stat_packet,
    mpa_stat_reset,
    mpa_stat_free_item,
    NULL,
    G_N_ELEMENTS(mpa_stat_fields),
    mpa_stat_fields,
    0,
    NULL,
    NULL,
    0,
};

void
register_mpa_stats(void)
{
    register_stat_tap_table_ui(&mpa_stat_table);
}
