/*
 * ipc_wire.h - the IPC part of the wire: endpoints and slow calls ("ipc").
 * Its row in the parts table (parts.h) is defined in ipc.c.
 */
#ifndef HOOKSCOPE_PROTOCOL_IPC_WIRE_H
#define HOOKSCOPE_PROTOCOL_IPC_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "block_wire.h"

#define PROTO_MAX_IPC_EPS   256           /* endpoints of a target */
#define PROTO_MAX_IPC_SLOW  32            /* slow calls in one map: the most recent */

/* What calls talk to: a peer (and method) of one kind. */
struct proto_ipc_ep {
	uint32_t id;                      /* agent-assigned, stable */
	char    *kind;                    /* "unix", "unix-dgram", "pipe", "fifo", "mq", "dbus", "sd-bus", "binder" */
	char    *name;                    /* peer path, "@abstract", "<- local path", "pipe:[ino]", queue, destination */
	char    *method;                  /* "interface.member" (D-Bus), "" */
	int32_t  peer_pid;                /* 0 when unknown */
	char    *peer_comm;               /* "" when unknown */
	uint64_t sends, recvs, calls, connects;   /* operations by direction */
	uint64_t bytes_out, bytes_in;
	uint64_t total_ns, max_ns;        /* time blocked in those calls */
	uint64_t ui_calls, ui_ns;         /* of which on the UI thread */
	uint64_t slow;                    /* operations longer than the threshold */
	double   ops_per_s;               /* frames only: over the last second */
};

/* One operation longer than the threshold, with the calling stack. */
struct proto_ipc_slow {
	uint32_t id;                      /* agent-assigned, increasing */
	uint32_t ep;                      /* endpoint id */
	char    *op;                      /* "recv", "sd_bus_call", ... */
	int32_t  tid;
	bool     ui;                      /* on the UI thread */
	uint64_t start_ns;                /* agent monotonic clock */
	uint64_t time_ms;                 /* wall clock (frames only) */
	uint64_t dur_ns;
	struct proto_block_stack stack;   /* innermost first; samples = 1 */
};

/* The "ipc" map: threshold, endpoints, recent slow calls (newest first). */
struct proto_ipc {
	uint64_t threshold_ns;
	uint64_t slow_count;              /* slow calls since start or reset */
	size_t   neps;
	struct proto_ipc_ep *eps;
	size_t   nslow;
	struct proto_ipc_slow *slow;
};

void proto_ipc_ep_copy(struct proto_ipc_ep *dst, const struct proto_ipc_ep *src);
void proto_ipc_ep_free(struct proto_ipc_ep *e);
void proto_ipc_slow_copy(struct proto_ipc_slow *dst, const struct proto_ipc_slow *src);
void proto_ipc_slow_free(struct proto_ipc_slow *s);
void proto_ipc_free(struct proto_ipc *p);

/* The field tables (ipc.c). */
struct proto_struct;
extern const struct proto_struct proto_ipc_desc, proto_ipc_ep_desc, proto_ipc_slow_desc;

#endif
