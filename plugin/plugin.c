/* plugin.c
 * Registers the MPA dissector with Wireshark's plugin loader. Wireshark 4.0 to 4.6 all load
 * plugins through plugin_version, plugin_want_major/minor and plugin_register; from the
 * release whose <wsutil/plugins.h> defines WS_PLUGIN_DESC_DISSECTOR, plugin_describe tells
 * the loader what kind of plugin this is (optional). Other API differences: ws_compat.h.
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

/* Wireshark 4.0 to 4.6 all load plugins through these symbols. */

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

#ifdef WS_PLUGIN_DESC_DISSECTOR /* <wsutil/plugins.h> (installed from Wireshark 4.4) */
WS_DLL_PUBLIC uint32_t plugin_describe(void);

uint32_t
plugin_describe(void)
{
    return WS_PLUGIN_DESC_DISSECTOR;
}
#endif
