/*
 * ipc.c - the "ipc" map, shared by the agent's "ipc" record and the
 * daemon's frames: the slow-call threshold, the endpoints a target talks to
 * (kind, peer, method, peer process, operations, bytes, time blocked, UI
 * thread share) and its most recent slow calls with their calling stacks
 * (doc/protocol.md, "IPC").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* Pack one endpoint's map. */
static void ipc_pack_ep(msgpack_packer *pk, const struct proto_ipc_ep *e)
{
	msgpack_pack_map(pk, 18);
	proto_pack_kv_u64(pk, "id", e->id);
	proto_pack_kv_str(pk, "kind", e->kind ? e->kind : "");
	proto_pack_kv_str(pk, "name", e->name ? e->name : "");
	proto_pack_kv_str(pk, "method", e->method ? e->method : "");
	proto_pack_kv_i64(pk, "peer_pid", e->peer_pid);
	proto_pack_kv_str(pk, "peer_comm", e->peer_comm ? e->peer_comm : "");
	proto_pack_kv_u64(pk, "sends", e->sends);
	proto_pack_kv_u64(pk, "recvs", e->recvs);
	proto_pack_kv_u64(pk, "calls", e->calls);
	proto_pack_kv_u64(pk, "connects", e->connects);
	proto_pack_kv_u64(pk, "bytes_out", e->bytes_out);
	proto_pack_kv_u64(pk, "bytes_in", e->bytes_in);
	proto_pack_kv_u64(pk, "total_ns", e->total_ns);
	proto_pack_kv_u64(pk, "max_ns", e->max_ns);
	proto_pack_kv_u64(pk, "ui_calls", e->ui_calls);
	proto_pack_kv_u64(pk, "ui_ns", e->ui_ns);
	proto_pack_kv_u64(pk, "slow", e->slow);
	proto_pack_kv_f64(pk, "ops_per_s", e->ops_per_s);
}

/* Pack one slow call's map. */
static void ipc_pack_slow(msgpack_packer *pk, const struct proto_ipc_slow *s)
{
	msgpack_pack_map(pk, 9);
	proto_pack_kv_u64(pk, "id", s->id);
	proto_pack_kv_u64(pk, "ep", s->ep);
	proto_pack_kv_str(pk, "op", s->op ? s->op : "");
	proto_pack_kv_i64(pk, "tid", s->tid);
	proto_pack_kv_bool(pk, "ui", s->ui);
	proto_pack_kv_u64(pk, "start_ns", s->start_ns);
	proto_pack_kv_u64(pk, "time_ms", s->time_ms);
	proto_pack_kv_u64(pk, "dur_ns", s->dur_ns);
	proto_pack_str(pk, "stack");
	proto_block_stack_pack(pk, &s->stack);
}

/* See protocol.h. */
void proto_pack_ipc(msgpack_packer *pk, const struct proto_ipc *p)
{
	proto_pack_str(pk, "ipc");
	msgpack_pack_map(pk, 4);
	proto_pack_kv_u64(pk, "threshold_ns", p->threshold_ns);
	proto_pack_kv_u64(pk, "slow_count", p->slow_count);
	proto_pack_str(pk, "endpoints");
	msgpack_pack_array(pk, p->neps);
	for (size_t i = 0; i < p->neps; i++)
		ipc_pack_ep(pk, &p->eps[i]);
	proto_pack_str(pk, "slow");
	msgpack_pack_array(pk, p->nslow);
	for (size_t i = 0; i < p->nslow; i++)
		ipc_pack_slow(pk, &p->slow[i]);
}

/* A string field that is "" when absent. */
static int ipc_get_str(const msgpack_object *o, const char *key, char **out, char *err,
    size_t errlen)
{
	if (proto_get_str(o, key, false, out, err, errlen) < 0)
		return -1;
	if (*out == NULL)
		*out = xstrdup("");
	return 0;
}

/* An id field: 0 .. UINT32_MAX. */
static int ipc_get_u32(const msgpack_object *o, const char *key, bool required, uint32_t *out,
    char *err, size_t errlen)
{
	uint64_t v = 0;

	if (proto_get_u64(o, key, required, &v, err, errlen) < 0)
		return -1;
	if (v > UINT32_MAX) {
		snprintf(err, errlen, "field \"%s\" must be at most %u", key, UINT32_MAX);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* A pid or tid field: 0 .. INT32_MAX. */
static int ipc_get_pid(const msgpack_object *o, const char *key, int32_t *out, char *err,
    size_t errlen)
{
	int64_t v = 0;

	if (proto_get_i64(o, key, false, &v, err, errlen) < 0)
		return -1;
	if (v < 0 || v > INT32_MAX) {
		snprintf(err, errlen, "field \"%s\" must be a process or thread id", key);
		return -1;
	}
	*out = (int32_t)v;
	return 0;
}

/* Decode one endpoint map. */
static int ipc_decode_ep(const msgpack_object *o, struct proto_ipc_ep *e, char *err, size_t errlen)
{
	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "an IPC endpoint must be a map");
		return -1;
	}
	if (ipc_get_u32(o, "id", true, &e->id, err, errlen) < 0 ||
	    ipc_get_str(o, "kind", &e->kind, err, errlen) < 0 ||
	    ipc_get_str(o, "name", &e->name, err, errlen) < 0 ||
	    ipc_get_str(o, "method", &e->method, err, errlen) < 0 ||
	    ipc_get_pid(o, "peer_pid", &e->peer_pid, err, errlen) < 0 ||
	    ipc_get_str(o, "peer_comm", &e->peer_comm, err, errlen) < 0 ||
	    proto_get_u64(o, "sends", false, &e->sends, err, errlen) < 0 ||
	    proto_get_u64(o, "recvs", false, &e->recvs, err, errlen) < 0 ||
	    proto_get_u64(o, "calls", false, &e->calls, err, errlen) < 0 ||
	    proto_get_u64(o, "connects", false, &e->connects, err, errlen) < 0 ||
	    proto_get_u64(o, "bytes_out", false, &e->bytes_out, err, errlen) < 0 ||
	    proto_get_u64(o, "bytes_in", false, &e->bytes_in, err, errlen) < 0 ||
	    proto_get_u64(o, "total_ns", false, &e->total_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "max_ns", false, &e->max_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "ui_calls", false, &e->ui_calls, err, errlen) < 0 ||
	    proto_get_u64(o, "ui_ns", false, &e->ui_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "slow", false, &e->slow, err, errlen) < 0 ||
	    proto_get_f64(o, "ops_per_s", false, &e->ops_per_s, err, errlen) < 0)
		return -1;
	if (!(e->ops_per_s >= 0)) {
		snprintf(err, errlen, "field \"ops_per_s\" must not be negative");
		return -1;
	}
	return 0;
}

/* Decode one slow-call map. */
static int ipc_decode_slow(const msgpack_object *o, struct proto_ipc_slow *s, char *err,
    size_t errlen)
{
	const msgpack_object *st;

	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "a slow IPC call must be a map");
		return -1;
	}
	if (ipc_get_u32(o, "id", true, &s->id, err, errlen) < 0 ||
	    ipc_get_u32(o, "ep", true, &s->ep, err, errlen) < 0 ||
	    ipc_get_str(o, "op", &s->op, err, errlen) < 0 ||
	    ipc_get_pid(o, "tid", &s->tid, err, errlen) < 0 ||
	    proto_get_bool(o, "ui", false, &s->ui, err, errlen) < 0 ||
	    proto_get_u64(o, "start_ns", false, &s->start_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "time_ms", false, &s->time_ms, err, errlen) < 0 ||
	    proto_get_u64(o, "dur_ns", false, &s->dur_ns, err, errlen) < 0)
		return -1;
	if ((st = proto_map_get(o, "stack")) == NULL)
		return 0;
	return proto_block_stack_decode(st, &s->stack, err, errlen);
}

/* See protocol.h. */
int proto_decode_ipc(const msgpack_object *root, struct proto_ipc *p, char *err, size_t errlen)
{
	const msgpack_object *m = proto_map_get(root, "ipc");
	const msgpack_object_array *a;

	memset(p, 0, sizeof *p);
	if (m == NULL)
		return 0;
	if (m->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "field \"ipc\" must be a map");
		return -1;
	}
	if (proto_get_u64(m, "threshold_ns", false, &p->threshold_ns, err, errlen) < 0 ||
	    proto_get_u64(m, "slow_count", false, &p->slow_count, err, errlen) < 0 ||
	    proto_get_array_max(m, "endpoints", PROTO_MAX_IPC_EPS, &a, err, errlen) < 0)
		return -1;
	if (a != NULL) {
		p->eps = xcalloc(a->size ? a->size : 1, sizeof *p->eps);
		for (uint32_t i = 0; i < a->size; i++) {
			p->neps = i + 1;
			if (ipc_decode_ep(&a->ptr[i], &p->eps[i], err, errlen) < 0)
				return -1;
		}
	}
	if (proto_get_array_max(m, "slow", PROTO_MAX_IPC_SLOW, &a, err, errlen) < 0)
		return -1;
	if (a != NULL) {
		p->slow = xcalloc(a->size ? a->size : 1, sizeof *p->slow);
		for (uint32_t i = 0; i < a->size; i++) {
			p->nslow = i + 1;
			if (ipc_decode_slow(&a->ptr[i], &p->slow[i], err, errlen) < 0)
				return -1;
		}
	}
	return 0;
}

/* See protocol.h. */
void proto_ipc_ep_copy(struct proto_ipc_ep *d, const struct proto_ipc_ep *s)
{
	*d = *s;
	d->kind = xstrdup(s->kind ? s->kind : "");
	d->name = xstrdup(s->name ? s->name : "");
	d->method = xstrdup(s->method ? s->method : "");
	d->peer_comm = xstrdup(s->peer_comm ? s->peer_comm : "");
}

/* See protocol.h. */
void proto_ipc_ep_free(struct proto_ipc_ep *e)
{
	free(e->kind);
	free(e->name);
	free(e->method);
	free(e->peer_comm);
	memset(e, 0, sizeof *e);
}

/* See protocol.h. */
void proto_ipc_slow_copy(struct proto_ipc_slow *d, const struct proto_ipc_slow *s)
{
	*d = *s;
	d->op = xstrdup(s->op ? s->op : "");
	proto_block_stack_copy(&d->stack, &s->stack);
}

/* See protocol.h. */
void proto_ipc_slow_free(struct proto_ipc_slow *s)
{
	free(s->op);
	proto_block_stack_free(&s->stack);
	memset(s, 0, sizeof *s);
}

/* See protocol.h. */
void proto_ipc_free(struct proto_ipc *p)
{
	for (size_t i = 0; i < p->neps; i++)
		proto_ipc_ep_free(&p->eps[i]);
	for (size_t i = 0; i < p->nslow; i++)
		proto_ipc_slow_free(&p->slow[i]);
	free(p->eps);
	free(p->slow);
	memset(p, 0, sizeof *p);
}
