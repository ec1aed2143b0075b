/*
 * ipc.c - the "ipc" map, shared by the agent's "ipc" record and the
 * daemon's frames: the slow-call threshold, the endpoints a target talks to
 * (kind, peer, method, peer process, operations, bytes, time blocked, UI
 * thread share) and its most recent slow calls with their calling stacks
 * (doc/protocol.md, "IPC").
 */
#include <stdio.h>

#include "protocol.h"
#include "field.h"
#include "parts.h"

/* A rate is a count over time: never negative (nor NaN). */
static int ipc_ep_check(void *obj, char *err, size_t errlen)
{
	const struct proto_ipc_ep *e = obj;

	if (!(e->ops_per_s >= 0)) {
		snprintf(err, errlen, "field \"ops_per_s\" must not be negative");
		return -1;
	}
	return 0;
}

#define E struct proto_ipc_ep
static const struct proto_field ipc_ep_fields[] = {
	PF_ROW("id", PF_U32, E, id, PF_REQUIRED),
	PF_ROW("kind", PF_STR, E, kind, 0),
	PF_ROW("name", PF_STR, E, name, 0),
	PF_ROW("method", PF_STR, E, method, 0),
	PF_ROW("peer_pid", PF_PID, E, peer_pid, 0),
	PF_ROW("peer_comm", PF_STR, E, peer_comm, 0),
	PF_ROW("sends", PF_U64, E, sends, 0),
	PF_ROW("recvs", PF_U64, E, recvs, 0),
	PF_ROW("calls", PF_U64, E, calls, 0),
	PF_ROW("connects", PF_U64, E, connects, 0),
	PF_ROW("bytes_out", PF_U64, E, bytes_out, 0),
	PF_ROW("bytes_in", PF_U64, E, bytes_in, 0),
	PF_ROW("total_ns", PF_U64, E, total_ns, 0),
	PF_ROW("max_ns", PF_U64, E, max_ns, 0),
	PF_ROW("ui_calls", PF_U64, E, ui_calls, 0),
	PF_ROW("ui_ns", PF_U64, E, ui_ns, 0),
	PF_ROW("slow", PF_U64, E, slow, 0),
	PF_F64_ROW("ops_per_s", E, ops_per_s, 0),
};
#undef E
const struct proto_struct proto_ipc_ep_desc =
	PF_STRUCT_CHECK("an IPC endpoint", struct proto_ipc_ep, ipc_ep_fields, ipc_ep_check);

#define S struct proto_ipc_slow
static const struct proto_field ipc_slow_fields[] = {
	PF_ROW("id", PF_U32, S, id, PF_REQUIRED),
	PF_ROW("ep", PF_U32, S, ep, PF_REQUIRED),
	PF_ROW("op", PF_STR, S, op, 0),
	PF_ROW("tid", PF_PID, S, tid, 0),
	PF_ROW("ui", PF_BOOL, S, ui, 0),
	PF_ROW("start_ns", PF_U64, S, start_ns, 0),
	PF_ROW("time_ms", PF_U64, S, time_ms, 0),
	PF_ROW("dur_ns", PF_U64, S, dur_ns, 0),
	PF_OBJ_ROW("stack", S, stack, &proto_block_stack_desc),
};
#undef S
const struct proto_struct proto_ipc_slow_desc =
	PF_STRUCT("a slow IPC call", struct proto_ipc_slow, ipc_slow_fields);

#define P struct proto_ipc
static const struct proto_field ipc_fields[] = {
	PF_ROW("threshold_ns", PF_U64, P, threshold_ns, 0),
	PF_ROW("slow_count", PF_U64, P, slow_count, 0),
	PF_ARR_ROW("endpoints", PF_OBJS, P, eps, neps, PROTO_MAX_IPC_EPS, &proto_ipc_ep_desc),
	PF_ARR_ROW("slow", PF_OBJS, P, slow, nslow, PROTO_MAX_IPC_SLOW, &proto_ipc_slow_desc),
};
#undef P
const struct proto_struct proto_ipc_desc = PF_STRUCT("field \"ipc\"", struct proto_ipc, ipc_fields);

/* See ipc_wire.h. */
void proto_ipc_ep_copy(struct proto_ipc_ep *d, const struct proto_ipc_ep *s)
{
	proto_struct_copy(&proto_ipc_ep_desc, d, s);
}

/* See ipc_wire.h. */
void proto_ipc_ep_free(struct proto_ipc_ep *e)
{
	proto_struct_free(&proto_ipc_ep_desc, e);
}

/* See ipc_wire.h. */
void proto_ipc_slow_copy(struct proto_ipc_slow *d, const struct proto_ipc_slow *s)
{
	proto_struct_copy(&proto_ipc_slow_desc, d, s);
}

/* See ipc_wire.h. */
void proto_ipc_slow_free(struct proto_ipc_slow *s)
{
	proto_struct_free(&proto_ipc_slow_desc, s);
}

/* See ipc_wire.h. */
void proto_ipc_free(struct proto_ipc *p)
{
	proto_struct_free(&proto_ipc_desc, p);
}

/* Its row in the parts table (parts.h). */
const struct proto_part proto_part_ipc = {
	PROTO_PART_PLACE(ipc), .key = "ipc", .ag_time = true, .desc = &proto_ipc_desc,
};
