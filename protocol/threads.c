/*
 * threads.c - the "threading" map, shared by the agent's "threads" record
 * and the daemon's frames: thread counts, the target's threads (state, CPU,
 * creator, creation site, pool), creation sites with their start routine
 * and symbolized creation stack, and thread pools (doc/protocol.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* Pack one named address as {addr, name, module, off}. */
static void thr_pack_frame(msgpack_packer *pk, const struct proto_thr_frame *f)
{
	msgpack_pack_map(pk, 4);
	proto_pack_kv_u64(pk, "addr", f->addr);
	proto_pack_kv_str(pk, "name", f->name ? f->name : "");
	proto_pack_kv_str(pk, "module", f->module ? f->module : "");
	proto_pack_kv_u64(pk, "off", f->off);
}

/* Pack one thread's map. */
static void thr_pack_thread(msgpack_packer *pk, const struct proto_thr_thread *t)
{
	msgpack_pack_map(pk, 11);
	proto_pack_kv_u64(pk, "id", t->id);
	proto_pack_kv_i64(pk, "tid", t->tid);
	proto_pack_kv_i64(pk, "creator", t->creator);
	proto_pack_kv_u64(pk, "site", t->site);
	proto_pack_kv_u64(pk, "pool", t->pool);
	proto_pack_kv_str(pk, "name", t->name ? t->name : "");
	proto_pack_kv_str(pk, "state", t->state ? t->state : "");
	proto_pack_kv_u64(pk, "start_ns", t->start_ns);
	proto_pack_kv_u64(pk, "end_ns", t->end_ns);
	proto_pack_kv_u64(pk, "cpu_ns", t->cpu_ns);
	proto_pack_kv_f64(pk, "cpu_pct", t->cpu_pct);
}

/* Pack one creation site's map. */
static void thr_pack_site(msgpack_packer *pk, const struct proto_thr_site *s)
{
	msgpack_pack_map(pk, 5);
	proto_pack_kv_u64(pk, "id", s->id);
	proto_pack_str(pk, "start");
	thr_pack_frame(pk, &s->start);
	proto_pack_kv_u64(pk, "created", s->created);
	proto_pack_kv_u64(pk, "live", s->live);
	proto_pack_str(pk, "stack");
	msgpack_pack_array(pk, s->nstack);
	for (size_t i = 0; i < s->nstack; i++)
		thr_pack_frame(pk, &s->stack[i]);
}

/* Pack one pool's map. */
static void thr_pack_pool(msgpack_packer *pk, const struct proto_thr_pool *p)
{
	msgpack_pack_map(pk, 12);
	proto_pack_kv_u64(pk, "id", p->id);
	proto_pack_kv_str(pk, "kind", p->kind ? p->kind : "");
	proto_pack_str(pk, "func");
	thr_pack_frame(pk, &p->func);
	proto_pack_kv_i64(pk, "size", p->size);
	proto_pack_kv_u64(pk, "workers", p->workers);
	proto_pack_kv_u64(pk, "pushed", p->pushed);
	proto_pack_kv_u64(pk, "done", p->done);
	proto_pack_kv_u64(pk, "wait_ns", p->wait_ns);
	proto_pack_kv_u64(pk, "wait_max_ns", p->wait_max_ns);
	proto_pack_kv_u64(pk, "run_ns", p->run_ns);
	proto_pack_kv_u64(pk, "run_max_ns", p->run_max_ns);
	proto_pack_kv_bool(pk, "freed", p->freed);
}

/* See protocol.h. */
void proto_pack_threads(msgpack_packer *pk, const struct proto_threads *t)
{
	proto_pack_str(pk, "threading");
	msgpack_pack_map(pk, 14);
	proto_pack_kv_u64(pk, "time_ns", t->time_ns);
	proto_pack_kv_u64(pk, "created", t->created);
	proto_pack_kv_u64(pk, "exited", t->exited);
	proto_pack_kv_u64(pk, "live", t->live);
	proto_pack_kv_u64(pk, "other_live", t->other_live);
	proto_pack_kv_u64(pk, "agent_created", t->agent_created);
	proto_pack_kv_u64(pk, "agent_live", t->agent_live);
	proto_pack_kv_u64(pk, "agent_cpu_ns", t->agent_cpu_ns);
	proto_pack_kv_u64(pk, "dropped", t->dropped);
	proto_pack_kv_f64(pk, "created_per_s", t->created_per_s);
	proto_pack_str(pk, "history");
	msgpack_pack_array(pk, t->nhistory);
	for (size_t i = 0; i < t->nhistory; i++)
		msgpack_pack_uint32(pk, t->history[i]);
	proto_pack_str(pk, "threads");
	msgpack_pack_array(pk, t->nthreads);
	for (size_t i = 0; i < t->nthreads; i++)
		thr_pack_thread(pk, &t->threads[i]);
	proto_pack_str(pk, "sites");
	msgpack_pack_array(pk, t->nsites);
	for (size_t i = 0; i < t->nsites; i++)
		thr_pack_site(pk, &t->sites[i]);
	proto_pack_str(pk, "pools");
	msgpack_pack_array(pk, t->npools);
	for (size_t i = 0; i < t->npools; i++)
		thr_pack_pool(pk, &t->pools[i]);
}

/* Is o a map?  Else an error naming what. */
static int thr_need_map(const msgpack_object *o, const char *what, char *err, size_t errlen)
{
	if (o != NULL && o->type == MSGPACK_OBJECT_MAP)
		return 0;
	snprintf(err, errlen, "%s must be a map", what);
	return -1;
}

/* A 32-bit id field (required or not). */
static int thr_get_u32(const msgpack_object *o, const char *key, bool required,
    uint32_t *out, char *err, size_t errlen)
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

/* Decode one named address (o may be NULL: all zero). */
static int thr_decode_frame(const msgpack_object *o, struct proto_thr_frame *f,
    char *err, size_t errlen)
{
	if (o == NULL) {
		f->name = xstrdup("");
		f->module = xstrdup("");
		return 0;
	}
	if (thr_need_map(o, "a code address", err, errlen) < 0 ||
	    proto_get_u64(o, "addr", false, &f->addr, err, errlen) < 0 ||
	    proto_get_str_def(o, "name", &f->name, err, errlen) < 0 ||
	    proto_get_str_def(o, "module", &f->module, err, errlen) < 0 ||
	    proto_get_u64(o, "off", false, &f->off, err, errlen) < 0)
		return -1;
	return 0;
}

/* Decode one thread map. */
static int thr_decode_thread(const msgpack_object *o, void *out, char *err, size_t errlen)
{
	struct proto_thr_thread *t = out;
	if (thr_need_map(o, "a thread", err, errlen) < 0 ||
	    thr_get_u32(o, "id", true, &t->id, err, errlen) < 0 ||
	    proto_get_tid(o, "tid", &t->tid, err, errlen) < 0 ||
	    proto_get_tid(o, "creator", &t->creator, err, errlen) < 0 ||
	    thr_get_u32(o, "site", false, &t->site, err, errlen) < 0 ||
	    thr_get_u32(o, "pool", false, &t->pool, err, errlen) < 0 ||
	    proto_get_str_def(o, "name", &t->name, err, errlen) < 0 ||
	    proto_get_str_def(o, "state", &t->state, err, errlen) < 0 ||
	    proto_get_u64(o, "start_ns", false, &t->start_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "end_ns", false, &t->end_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "cpu_ns", false, &t->cpu_ns, err, errlen) < 0 ||
	    proto_get_f64(o, "cpu_pct", false, &t->cpu_pct, err, errlen) < 0)
		return -1;
	return 0;
}

/* Decode one creation site map. */
static int thr_decode_site(const msgpack_object *o, void *out, char *err, size_t errlen)
{
	struct proto_thr_site *s = out;
	const msgpack_object_array *a;

	if (thr_need_map(o, "a creation site", err, errlen) < 0 ||
	    thr_get_u32(o, "id", true, &s->id, err, errlen) < 0 ||
	    thr_decode_frame(proto_map_get(o, "start"), &s->start, err, errlen) < 0 ||
	    proto_get_u64(o, "created", false, &s->created, err, errlen) < 0 ||
	    proto_get_u64(o, "live", false, &s->live, err, errlen) < 0 ||
	    proto_get_array_max(o, "stack", PROTO_MAX_STACK, &a, err, errlen) < 0)
		return -1;
	if (a == NULL)
		return 0;
	s->stack = xcalloc(a->size ? a->size : 1, sizeof *s->stack);
	for (uint32_t i = 0; i < a->size; i++) {
		s->nstack = i + 1;
		if (thr_decode_frame(&a->ptr[i], &s->stack[i], err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* Decode one pool map. */
static int thr_decode_pool(const msgpack_object *o, void *out, char *err, size_t errlen)
{
	struct proto_thr_pool *p = out;
	if (thr_need_map(o, "a thread pool", err, errlen) < 0 ||
	    thr_get_u32(o, "id", true, &p->id, err, errlen) < 0 ||
	    proto_get_str_def(o, "kind", &p->kind, err, errlen) < 0 ||
	    thr_decode_frame(proto_map_get(o, "func"), &p->func, err, errlen) < 0 ||
	    proto_get_i64(o, "size", false, &p->size, err, errlen) < 0 ||
	    proto_get_u64(o, "workers", false, &p->workers, err, errlen) < 0 ||
	    proto_get_u64(o, "pushed", false, &p->pushed, err, errlen) < 0 ||
	    proto_get_u64(o, "done", false, &p->done, err, errlen) < 0 ||
	    proto_get_u64(o, "wait_ns", false, &p->wait_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "wait_max_ns", false, &p->wait_max_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "run_ns", false, &p->run_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "run_max_ns", false, &p->run_max_ns, err, errlen) < 0 ||
	    proto_get_bool(o, "freed", false, &p->freed, err, errlen) < 0)
		return -1;
	return 0;
}

/* Decode the array key of m into *v (n entries of size sz) with dec. */
static int thr_decode_list(const msgpack_object *m, const char *key, uint32_t max,
    void **v, size_t *n, size_t sz,
    int (*dec)(const msgpack_object *, void *, char *, size_t), char *err, size_t errlen)
{
	const msgpack_object_array *a;

	if (proto_get_array_max(m, key, max, &a, err, errlen) < 0)
		return -1;
	if (a == NULL)
		return 0;
	*v = xcalloc(a->size ? a->size : 1, sz);
	for (uint32_t i = 0; i < a->size; i++) {
		*n = i + 1;
		if (dec(&a->ptr[i], (char *)*v + i * sz, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* See protocol.h. */
int proto_decode_threads(const msgpack_object *root, struct proto_threads *t,
    char *err, size_t errlen)
{
	const msgpack_object *m = proto_map_get(root, "threading");

	memset(t, 0, sizeof *t);
	if (m == NULL)
		return 0;
	if (thr_need_map(m, "field \"threading\"", err, errlen) < 0 ||
	    proto_get_u64(m, "time_ns", false, &t->time_ns, err, errlen) < 0 ||
	    proto_get_u64(m, "created", false, &t->created, err, errlen) < 0 ||
	    proto_get_u64(m, "exited", false, &t->exited, err, errlen) < 0 ||
	    proto_get_u64(m, "live", false, &t->live, err, errlen) < 0 ||
	    proto_get_u64(m, "other_live", false, &t->other_live, err, errlen) < 0 ||
	    proto_get_u64(m, "agent_created", false, &t->agent_created, err, errlen) < 0 ||
	    proto_get_u64(m, "agent_live", false, &t->agent_live, err, errlen) < 0 ||
	    proto_get_u64(m, "agent_cpu_ns", false, &t->agent_cpu_ns, err, errlen) < 0 ||
	    proto_get_u64(m, "dropped", false, &t->dropped, err, errlen) < 0 ||
	    proto_get_f64(m, "created_per_s", false, &t->created_per_s, err, errlen) < 0 ||
	    proto_get_u32_array(m, "history", PROTO_THR_HISTORY, &t->history, &t->nhistory, err,
	    errlen) < 0 ||
	    thr_decode_list(m, "threads", PROTO_MAX_THREADS, (void **)&t->threads, &t->nthreads,
	    sizeof *t->threads, thr_decode_thread, err, errlen) < 0 ||
	    thr_decode_list(m, "sites", PROTO_MAX_TSITES, (void **)&t->sites, &t->nsites,
	    sizeof *t->sites, thr_decode_site, err, errlen) < 0 ||
	    thr_decode_list(m, "pools", PROTO_MAX_POOLS, (void **)&t->pools, &t->npools,
	    sizeof *t->pools, thr_decode_pool, err, errlen) < 0)
		return -1;
	if (!(t->created_per_s >= 0)) {
		snprintf(err, errlen, "field \"created_per_s\" must not be negative");
		return -1;
	}
	return 0;
}

/* Deep copy of a named address. */
static void thr_frame_copy(struct proto_thr_frame *d, const struct proto_thr_frame *s)
{
	*d = *s;
	d->name = xstrdup(s->name ? s->name : "");
	d->module = xstrdup(s->module ? s->module : "");
}

/* See protocol.h. */
void proto_threads_copy(struct proto_threads *dst, const struct proto_threads *src)
{
	*dst = *src;
	dst->history = xcalloc(src->nhistory ? src->nhistory : 1, sizeof *dst->history);
	if (src->nhistory)
		memcpy(dst->history, src->history, src->nhistory * sizeof *dst->history);
	dst->threads = xcalloc(src->nthreads ? src->nthreads : 1, sizeof *dst->threads);
	for (size_t i = 0; i < src->nthreads; i++) {
		dst->threads[i] = src->threads[i];
		dst->threads[i].name = xstrdup(src->threads[i].name ? src->threads[i].name : "");
		dst->threads[i].state = xstrdup(src->threads[i].state ? src->threads[i].state : "");
	}
	dst->sites = xcalloc(src->nsites ? src->nsites : 1, sizeof *dst->sites);
	for (size_t i = 0; i < src->nsites; i++) {
		const struct proto_thr_site *s = &src->sites[i];
		struct proto_thr_site *d = &dst->sites[i];

		*d = *s;
		thr_frame_copy(&d->start, &s->start);
		d->stack = xcalloc(s->nstack ? s->nstack : 1, sizeof *d->stack);
		for (size_t k = 0; k < s->nstack; k++)
			thr_frame_copy(&d->stack[k], &s->stack[k]);
	}
	dst->pools = xcalloc(src->npools ? src->npools : 1, sizeof *dst->pools);
	for (size_t i = 0; i < src->npools; i++) {
		dst->pools[i] = src->pools[i];
		dst->pools[i].kind = xstrdup(src->pools[i].kind ? src->pools[i].kind : "");
		thr_frame_copy(&dst->pools[i].func, &src->pools[i].func);
	}
}

/* Free a named address's strings. */
static void thr_frame_free(struct proto_thr_frame *f)
{
	free(f->name);
	free(f->module);
}

/* See protocol.h. */
void proto_threads_free(struct proto_threads *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		free(t->threads[i].name);
		free(t->threads[i].state);
	}
	for (size_t i = 0; i < t->nsites; i++) {
		thr_frame_free(&t->sites[i].start);
		for (size_t k = 0; k < t->sites[i].nstack; k++)
			thr_frame_free(&t->sites[i].stack[k]);
		free(t->sites[i].stack);
	}
	for (size_t i = 0; i < t->npools; i++) {
		free(t->pools[i].kind);
		thr_frame_free(&t->pools[i].func);
	}
	free(t->history);
	free(t->threads);
	free(t->sites);
	free(t->pools);
	memset(t, 0, sizeof *t);
}
