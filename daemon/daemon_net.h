/*
 * daemon_net.h - the network row's state, for its report section (report_net.c).
 */
#ifndef HOOKSCOPE_DAEMON_DAEMON_NET_H
#define HOOKSCOPE_DAEMON_DAEMON_NET_H

#include "daemon.h"

/* The session's "network" map (the row's state). */
struct proto_network *daemon_net_of(struct daemon_session *s);

#endif
