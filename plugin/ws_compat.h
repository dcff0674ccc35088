/* ws_compat.h
 * The Wireshark API differences between the releases the plugin builds against (4.0,
 * 4.2, 4.4, 4.6): one definition per difference, named after the release that made it.
 * Everything else in the plugin is the same source for every release.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef MPA_WS_COMPAT_H
#define MPA_WS_COMPAT_H

#include <wireshark.h>

#define MPA_WS_AT_LEAST(major, minor)     \
    (WIRESHARK_VERSION_MAJOR > (major) || \
     (WIRESHARK_VERSION_MAJOR == (major) && WIRESHARK_VERSION_MINOR >= (minor)))

/* Wireshark 4.4: boolean preferences (prefs_register_bool_preference) and heuristic
 * dissectors (heur_dissector_t) take and return C99 bool instead of gboolean. */
#if MPA_WS_AT_LEAST(4, 4)
typedef bool mpa_ws_bool;
#else
typedef gboolean mpa_ws_bool;
#endif

/* Wireshark 4.2: format_text() takes const char * (it took const guchar *). */
#if MPA_WS_AT_LEAST(4, 2)
#define MPA_FORMAT_TEXT_STRING(s) ((const char *)(s))
#else
#define MPA_FORMAT_TEXT_STRING(s) ((const guchar *)(s))
#endif

#endif /* MPA_WS_COMPAT_H */
