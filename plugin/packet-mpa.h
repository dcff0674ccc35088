/* packet-mpa.h: what the MPA dissector (packet-mpa.c) shares with the plugin's other files:
 * its registration entry points, and the "mpa" tap, which carries one
 * const mpa_connection_view* (mpa_bridge.h) per MPA connection, at the frame where the
 * connection ended (or, for connections still open, the capture's last frame).
 */
#ifndef PACKET_MPA_H
#define PACKET_MPA_H

#define MPA_TAP_NAME "mpa"

void proto_register_mpa(void);
void proto_reg_handoff_mpa(void);

/* mpa_stats.c: "Statistics > MPA Connections" and tshark -z mpa,stat. */
void register_mpa_stats(void);

#endif /* PACKET_MPA_H */
