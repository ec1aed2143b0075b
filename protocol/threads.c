/*
 * threads.c - the "threading" map, shared by the agent's "threads" record
 * and the daemon's frames: thread counts, the target's threads (state, CPU,
 * creator, creation site, pool), creation sites with their start routine
 * and symbolized creation stack, and thread pools (doc/protocol.md).
 */
#include <stdio.h>

#include "protocol.h"
#include "field.h"
#include "parts.h"

#define F struct proto_thr_frame
static const struct proto_field thr_frame_fields[] = {
	PF_ROW("addr", PF_U64, F, addr, 0),
	PF_ROW("name", PF_STR, F, name, 0),
	PF_ROW("module", PF_STR, F, module, 0),
	PF_ROW("off", PF_U64, F, off, 0),
};
#undef F
const struct proto_struct proto_thr_frame_desc =
	PF_STRUCT("a code address", struct proto_thr_frame, thr_frame_fields);

#define T struct proto_thr_thread
static const struct proto_field thr_thread_fields[] = {
	PF_ROW("id", PF_U32, T, id, PF_REQUIRED),
	PF_ROW("tid", PF_PID, T, tid, 0),
	PF_ROW("creator", PF_PID, T, creator, 0),
	PF_ROW("site", PF_U32, T, site, 0),
	PF_ROW("pool", PF_U32, T, pool, 0),
	PF_ROW("name", PF_STR, T, name, 0),
	PF_ROW("state", PF_STR, T, state, 0),
	PF_ROW("start_ns", PF_U64, T, start_ns, 0),
	PF_ROW("end_ns", PF_U64, T, end_ns, 0),
	PF_ROW("cpu_ns", PF_U64, T, cpu_ns, 0),
	PF_F64_ROW("cpu_pct", T, cpu_pct, 0),
};
#undef T
const struct proto_struct proto_thr_thread_desc =
	PF_STRUCT("a thread", struct proto_thr_thread, thr_thread_fields);

#define S struct proto_thr_site
static const struct proto_field thr_site_fields[] = {
	PF_ROW("id", PF_U32, S, id, PF_REQUIRED),
	PF_OBJ_ROW("start", S, start, &proto_thr_frame_desc),
	PF_ROW("created", PF_U64, S, created, 0),
	PF_ROW("live", PF_U64, S, live, 0),
	PF_ARR_ROW("stack", PF_OBJS, S, stack, nstack, PROTO_MAX_STACK, &proto_thr_frame_desc),
};
#undef S
const struct proto_struct proto_thr_site_desc =
	PF_STRUCT("a creation site", struct proto_thr_site, thr_site_fields);

#define P struct proto_thr_pool
static const struct proto_field thr_pool_fields[] = {
	PF_ROW("id", PF_U32, P, id, PF_REQUIRED),
	PF_ROW("kind", PF_STR, P, kind, 0),
	PF_OBJ_ROW("func", P, func, &proto_thr_frame_desc),
	PF_ROW("size", PF_I64, P, size, 0),
	PF_ROW("workers", PF_U64, P, workers, 0),
	PF_ROW("pushed", PF_U64, P, pushed, 0),
	PF_ROW("done", PF_U64, P, done, 0),
	PF_ROW("wait_ns", PF_U64, P, wait_ns, 0),
	PF_ROW("wait_max_ns", PF_U64, P, wait_max_ns, 0),
	PF_ROW("run_ns", PF_U64, P, run_ns, 0),
	PF_ROW("run_max_ns", PF_U64, P, run_max_ns, 0),
	PF_ROW("freed", PF_BOOL, P, freed, 0),
};
#undef P
const struct proto_struct proto_thr_pool_desc =
	PF_STRUCT("a thread pool", struct proto_thr_pool, thr_pool_fields);

/* A rate is never negative (nor NaN). */
static int threads_check(void *obj, char *err, size_t errlen)
{
	const struct proto_threads *t = obj;

	if (!(t->created_per_s >= 0)) {
		snprintf(err, errlen, "field \"created_per_s\" must not be negative");
		return -1;
	}
	return 0;
}

#define M struct proto_threads
static const struct proto_field threads_fields[] = {
	PF_ROW("time_ns", PF_U64, M, time_ns, 0),
	PF_ROW("created", PF_U64, M, created, 0),
	PF_ROW("exited", PF_U64, M, exited, 0),
	PF_ROW("live", PF_U64, M, live, 0),
	PF_ROW("other_live", PF_U64, M, other_live, 0),
	PF_ROW("agent_created", PF_U64, M, agent_created, 0),
	PF_ROW("agent_live", PF_U64, M, agent_live, 0),
	PF_ROW("agent_cpu_ns", PF_U64, M, agent_cpu_ns, 0),
	PF_ROW("dropped", PF_U64, M, dropped, 0),
	PF_F64_ROW("created_per_s", M, created_per_s, 0),
	PF_ARR_ROW("history", PF_U32S, M, history, nhistory, PROTO_THR_HISTORY, NULL),
	PF_ARR_ROW("threads", PF_OBJS, M, threads, nthreads, PROTO_MAX_THREADS, &proto_thr_thread_desc),
	PF_ARR_ROW("sites", PF_OBJS, M, sites, nsites, PROTO_MAX_TSITES, &proto_thr_site_desc),
	PF_ARR_ROW("pools", PF_OBJS, M, pools, npools, PROTO_MAX_POOLS, &proto_thr_pool_desc),
};
#undef M
const struct proto_struct proto_threads_desc =
	PF_STRUCT_CHECK("field \"threading\"", struct proto_threads, threads_fields, threads_check);

/* See threads_wire.h. */
void proto_threads_copy(struct proto_threads *dst, const struct proto_threads *src)
{
	proto_struct_copy(&proto_threads_desc, dst, src);
}

/* See threads_wire.h. */
void proto_threads_free(struct proto_threads *t)
{
	proto_struct_free(&proto_threads_desc, t);
}

/* Its row in the parts table (parts.h). */
const struct proto_part proto_part_threads = {
	PROTO_PART_PLACE(threads), .key = "threading", .ag_time = false, .desc = &proto_threads_desc,
};
