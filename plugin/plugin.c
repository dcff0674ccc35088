/* plugin.c
 * Registers the MPA dissector with Wireshark's plugin loader. One source for the plugin ABI
 * of Wireshark 4.0 (plugin_version, plugin_want_major/minor, plugin_register), 4.2
 * (plus plugin_describe) and 4.4 and later (WIRESHARK_PLUGIN_REGISTER_EPAN).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <wireshark.h>

#if defined(__has_include)
#if __has_include(<wsutil/plugins.h>)
#include <wsutil/plugins.h>
#endif
#endif
#include <epan/proto.h>

#include "packet-mpa.h"

#ifndef PLUGIN_VERSION
#define PLUGIN_VERSION "0.0.0"
#endif

#ifdef WIRESHARK_PLUGIN_REGISTER_EPAN /* Wireshark 4.4 and later */

static void
plugin_register(void)
{
    static proto_plugin plug;

    plug.register_protoinfo = proto_register_mpa;
    plug.register_handoff = proto_reg_handoff_mpa;
    proto_register_plugin(&plug);
}

static struct ws_module module = {
    .flags = WS_PLUGIN_DESC_DISSECTOR,
    .version = PLUGIN_VERSION,
    .spdx_id = "GPL-2.0-or-later",
    .home_url = "",
    .blurb = "MPA (RFC 5044 / RFC 6581) framing and conformance findings from mpa-check",
    .register_cb = &plugin_register,
};

WIRESHARK_PLUGIN_REGISTER_EPAN(&module, 0)

#else /* Wireshark 4.0 and 4.2 */

WS_DLL_PUBLIC_DEF const char plugin_version[] = PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void
plugin_register(void)
{
    static proto_plugin plug;

    plug.register_protoinfo = proto_register_mpa;
    plug.register_handoff = proto_reg_handoff_mpa;
    proto_register_plugin(&plug);
}

#ifdef WS_PLUGIN_DESC_DISSECTOR /* Wireshark 4.2 */
WS_DLL_PUBLIC uint32_t plugin_describe(void);

uint32_t
plugin_describe(void)
{
    return WS_PLUGIN_DESC_DISSECTOR;
}
#endif

#endif
