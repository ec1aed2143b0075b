/*
 * agent.c - agent <-> daemon records: a 4-byte big-endian length, then one
 * msgpack map.  Both directions share one encoder and one decoder.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "parts.h"

/* Wire name of each record type (HELLO..BYE travel agent -> daemon). */
static const struct {
	const char *name;
} agent_types[] = {
	[PROTO_AG_HELLO]     = { "hello" },
	[PROTO_AG_SYMS]      = { "syms" },
	[PROTO_AG_FUNCS]     = { "funcs" },
	[PROTO_AG_BYE]       = { "bye" },
	[PROTO_AG_SITES]     = { "sites" },
	[PROTO_AG_LEVEL]     = { "level" },
	[PROTO_AG_RESET]     = { "reset" },
	[PROTO_AG_THRESHOLD] = { "threshold" },
	[PROTO_AG_FPS]       = { "fps" },
	[PROTO_AG_DETACH]    = { "detach" },
	[PROTO_AG_THREADS]   = { "threads" },
	[PROTO_AG_BLOCKS]    = { "blocks" },
	[PROTO_AG_UI_THREAD] = { "ui_thread" },
	[PROTO_AG_IPC]       = { "ipc" },
	[PROTO_AG_POWER]     = { "power" },
};
#define AGENT_NTYPES (sizeof agent_types / sizeof agent_types[0])

/* See protocol.h. */
uint32_t proto_agent_len(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Pack the map head: n fields besides v and t. */
static void agent_pack_head(msgpack_packer *pk, size_t n, enum proto_agent_type type)
{
	msgpack_pack_map(pk, n + 2);
	proto_pack_kv_u64(pk, "v", PROTO_VERSION);
	proto_pack_kv_str(pk, "t", agent_types[type].name);
}

/* Pack a record's body (without the length prefix). */
static void agent_pack_body(msgpack_packer *pk, const struct proto_agent_rec *r)
{
	switch (r->type) {
	case PROTO_AG_HELLO:
		agent_pack_head(pk, 6 + r->hello.attached, r->type);
		proto_pack_kv_i64(pk, "pid", r->hello.pid);
		proto_pack_kv_str(pk, "exe", r->hello.exe);
		proto_pack_kv_str(pk, "build_id", r->hello.build_id);
		proto_pack_kv_str(pk, "cmdline", r->hello.cmdline);
		proto_pack_kv_u64(pk, "level", r->hello.level);
		proto_pack_kv_u64(pk, "overhead_ps", r->hello.overhead_ps);
		if (r->hello.attached)   /* only when true: older daemons never see it */
			proto_pack_kv_bool(pk, "attached", true);
		break;
	case PROTO_AG_SYMS:
		agent_pack_head(pk, 1, r->type);
		proto_pack_str(pk, "syms");
		msgpack_pack_array(pk, r->nsyms);
		for (size_t i = 0; i < r->nsyms; i++) {
			msgpack_pack_map(pk, 5);
			proto_pack_kv_u64(pk, "addr", r->syms[i].addr);
			proto_pack_kv_str(pk, "name", r->syms[i].name);
			proto_pack_kv_str(pk, "module", r->syms[i].module);
			proto_pack_kv_u64(pk, "offset", r->syms[i].offset);
			proto_pack_kv_u64(pk, "size", r->syms[i].size);
		}
		break;
	case PROTO_AG_FUNCS:
		agent_pack_head(pk, 4, r->type);
		proto_pack_kv_u64(pk, "time_ns", r->time_ns);
		proto_pack_kv_u64(pk, "threads", r->threads);
		proto_pack_kv_u64(pk, "dropped", r->dropped);
		proto_pack_str(pk, "funcs");
		msgpack_pack_array(pk, r->nfuncs);
		for (size_t i = 0; i < r->nfuncs; i++) {
			const struct proto_ag_func *f = &r->funcs[i];

			msgpack_pack_map(pk, 7);
			proto_pack_kv_u64(pk, "addr", f->addr);
			proto_pack_kv_u64(pk, "calls", f->calls);
			proto_pack_kv_u64(pk, "total_ns", f->total_ns);
			proto_pack_kv_u64(pk, "self_ns", f->self_ns);
			proto_pack_kv_u64(pk, "max_ns", f->max_ns);
			proto_pack_kv_u64(pk, "slow", f->slow);
			proto_pack_kv_u64(pk, "running_ns", f->running_ns);
		}
		break;
	case PROTO_AG_LEVEL:
		agent_pack_head(pk, 1, r->type);
		proto_pack_kv_u64(pk, "level", r->level);
		break;
	case PROTO_AG_SITES:
		agent_pack_head(pk, 1, r->type);
		proto_pack_sites(pk, r->sites, r->nsites);
		break;
	case PROTO_AG_THRESHOLD:
		agent_pack_head(pk, 2, r->type);
		proto_pack_kv_str(pk, "name", r->name);
		proto_pack_kv_i64(pk, "value", r->value);
		break;
	case PROTO_AG_FPS:
		agent_pack_head(pk, 2, r->type);
		proto_pack_kv_u64(pk, "time_ns", r->time_ns);
		proto_pack_fps(pk, &r->fps);
		break;
	case PROTO_AG_THREADS:
		agent_pack_head(pk, 1, r->type);
		proto_pack_threads(pk, &r->thr);
		break;
	case PROTO_AG_BLOCKS:
		agent_pack_head(pk, 2, r->type);
		proto_pack_kv_u64(pk, "time_ns", r->time_ns);
		proto_pack_blocks(pk, &r->blocks);
		break;
	case PROTO_AG_IPC:
		agent_pack_head(pk, 2, r->type);
		proto_pack_kv_u64(pk, "time_ns", r->time_ns);
		proto_pack_ipc(pk, &r->ipc);
		break;
	case PROTO_AG_POWER:
		agent_pack_head(pk, 1, r->type);
		proto_pack_power(pk, &r->power);
		break;
	case PROTO_AG_UI_THREAD:
		agent_pack_head(pk, 1, r->type);
		proto_pack_kv_str(pk, "name", r->name);
		break;
	case PROTO_AG_BYE:
	case PROTO_AG_RESET:
	case PROTO_AG_DETACH:
		agent_pack_head(pk, 0, r->type);
		break;
	}
}

/* See protocol.h. */
void proto_agent_encode(msgpack_sbuffer *sb, const struct proto_agent_rec *r)
{
	static const char zero[PROTO_AGENT_HDR];
	msgpack_packer pk;
	size_t start;
	uint32_t n;

	assert((size_t)r->type > 0 && (size_t)r->type < AGENT_NTYPES);
	msgpack_sbuffer_write(sb, zero, sizeof zero);
	start = sb->size;
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	agent_pack_body(&pk, r);
	n = (uint32_t)(sb->size - start);
	sb->data[start - 4] = (char)(n >> 24);
	sb->data[start - 3] = (char)(n >> 16);
	sb->data[start - 2] = (char)(n >> 8);
	sb->data[start - 1] = (char)n;
}

/* Decode the hello fields. */
static int agent_decode_hello(const msgpack_object *root, struct proto_ag_hello *h,
    char *err, size_t errlen)
{
	int64_t pid = 0;
	uint64_t level = 0;

	if (proto_get_i64(root, "pid", true, &pid, err, errlen) < 0 ||
	    proto_get_str(root, "exe", true, &h->exe, err, errlen) < 0 ||
	    proto_get_str(root, "build_id", false, &h->build_id, err, errlen) < 0 ||
	    proto_get_str(root, "cmdline", false, &h->cmdline, err, errlen) < 0 ||
	    proto_get_u64(root, "level", true, &level, err, errlen) < 0 ||
	    proto_get_u64(root, "overhead_ps", false, &h->overhead_ps, err, errlen) < 0 ||
	    proto_get_bool(root, "attached", false, &h->attached, err, errlen) < 0)
		return -1;
	if (pid <= 0 || pid > INT32_MAX || level > 4) {
		snprintf(err, errlen, "hello has a bad pid or level");
		return -1;
	}
	h->pid = (int32_t)pid;
	h->level = (uint8_t)level;
	if (h->build_id == NULL)
		h->build_id = xstrdup("");
	if (h->cmdline == NULL)
		h->cmdline = xstrdup("");
	return 0;
}

/* Decode the syms array. */
static int agent_decode_syms(const msgpack_object *root, struct proto_agent_rec *r,
    char *err, size_t errlen)
{
	const msgpack_object_array *a;

	if (proto_get_array(root, "syms", true, &a, err, errlen) < 0)
		return -1;
	r->syms = xcalloc(a->size, sizeof *r->syms);
	for (uint32_t i = 0; i < a->size; i++) {
		const msgpack_object *o = &a->ptr[i];
		struct proto_ag_sym *s = &r->syms[i];

		r->nsyms = i + 1;
		if (o->type != MSGPACK_OBJECT_MAP) {
			snprintf(err, errlen, "symbol %u must be a map", i);
			return -1;
		}
		if (proto_get_u64(o, "addr", true, &s->addr, err, errlen) < 0 ||
		    proto_get_str(o, "name", true, &s->name, err, errlen) < 0 ||
		    proto_get_str(o, "module", false, &s->module, err, errlen) < 0 ||
		    proto_get_u64(o, "offset", false, &s->offset, err, errlen) < 0 ||
		    proto_get_u64(o, "size", false, &s->size, err, errlen) < 0)
			return -1;
		if (s->module == NULL)
			s->module = xstrdup("");
	}
	return 0;
}

/* Decode the funcs record. */
static int agent_decode_funcs(const msgpack_object *root, struct proto_agent_rec *r,
    char *err, size_t errlen)
{
	const msgpack_object_array *a;
	uint64_t threads = 0;

	if (proto_get_u64(root, "time_ns", false, &r->time_ns, err, errlen) < 0 ||
	    proto_get_u64(root, "threads", false, &threads, err, errlen) < 0 ||
	    proto_get_u64(root, "dropped", false, &r->dropped, err, errlen) < 0 ||
	    proto_get_array(root, "funcs", true, &a, err, errlen) < 0)
		return -1;
	if (threads > UINT32_MAX) {
		snprintf(err, errlen, "thread count out of range");
		return -1;
	}
	r->threads = (uint32_t)threads;
	r->funcs = xcalloc(a->size, sizeof *r->funcs);
	for (uint32_t i = 0; i < a->size; i++) {
		const msgpack_object *o = &a->ptr[i];
		struct proto_ag_func *f = &r->funcs[i];

		r->nfuncs = i + 1;
		if (o->type != MSGPACK_OBJECT_MAP) {
			snprintf(err, errlen, "function %u must be a map", i);
			return -1;
		}
		if (proto_get_u64(o, "addr", true, &f->addr, err, errlen) < 0 ||
		    proto_get_u64(o, "calls", true, &f->calls, err, errlen) < 0 ||
		    proto_get_u64(o, "total_ns", true, &f->total_ns, err, errlen) < 0 ||
		    proto_get_u64(o, "self_ns", true, &f->self_ns, err, errlen) < 0 ||
		    proto_get_u64(o, "max_ns", false, &f->max_ns, err, errlen) < 0 ||
		    proto_get_u64(o, "slow", false, &f->slow, err, errlen) < 0 ||
		    proto_get_u64(o, "running_ns", false, &f->running_ns, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* Decode the fields of record type r->type. */
static int agent_decode_body(const msgpack_object *root, struct proto_agent_rec *r,
    char *err, size_t errlen)
{
	uint64_t level;

	switch (r->type) {
	case PROTO_AG_HELLO:
		return agent_decode_hello(root, &r->hello, err, errlen);
	case PROTO_AG_SYMS:
		return agent_decode_syms(root, r, err, errlen);
	case PROTO_AG_FUNCS:
		return agent_decode_funcs(root, r, err, errlen);
	case PROTO_AG_LEVEL:
		if (proto_get_u64(root, "level", true, &level, err, errlen) < 0)
			return -1;
		if (level > 4) {
			snprintf(err, errlen, "level %llu out of range 0-4", (unsigned long long)level);
			return -1;
		}
		r->level = (uint8_t)level;
		return 0;
	case PROTO_AG_SITES:
		if (proto_map_get(root, "sites") == NULL) {
			snprintf(err, errlen, "missing field \"sites\"");
			return -1;
		}
		return proto_decode_sites(root, &r->sites, &r->nsites, err, errlen);
	case PROTO_AG_THRESHOLD:
		return proto_get_str(root, "name", true, &r->name, err, errlen) < 0 ||
		    proto_get_i64(root, "value", true, &r->value, err, errlen) < 0 ? -1 : 0;
	case PROTO_AG_FPS:
		if (proto_map_get(root, "fps") == NULL) {
			snprintf(err, errlen, "missing field \"fps\"");
			return -1;
		}
		return proto_get_u64(root, "time_ns", false, &r->time_ns, err, errlen) < 0 ||
		    proto_decode_fps(root, &r->fps, err, errlen) < 0 ? -1 : 0;
	case PROTO_AG_THREADS:
		if (proto_map_get(root, "threading") == NULL) {
			snprintf(err, errlen, "missing field \"threading\"");
			return -1;
		}
		return proto_decode_threads(root, &r->thr, err, errlen);
	case PROTO_AG_BLOCKS:
		if (proto_map_get(root, "blocks") == NULL) {
			snprintf(err, errlen, "missing field \"blocks\"");
			return -1;
		}
		return proto_get_u64(root, "time_ns", false, &r->time_ns, err, errlen) < 0 ||
		    proto_decode_blocks(root, &r->blocks, err, errlen) < 0 ? -1 : 0;
	case PROTO_AG_IPC:
		if (proto_map_get(root, "ipc") == NULL) {
			snprintf(err, errlen, "missing field \"ipc\"");
			return -1;
		}
		return proto_get_u64(root, "time_ns", false, &r->time_ns, err, errlen) < 0 ||
		    proto_decode_ipc(root, &r->ipc, err, errlen) < 0 ? -1 : 0;
	case PROTO_AG_UI_THREAD:
		return proto_get_str(root, "name", true, &r->name, err, errlen);
	case PROTO_AG_POWER:
		if (proto_map_get(root, "power") == NULL) {
			snprintf(err, errlen, "missing field \"power\"");
			return -1;
		}
		return proto_decode_power(root, &r->power, err, errlen);
	case PROTO_AG_BYE:
	case PROTO_AG_RESET:
	case PROTO_AG_DETACH:
		return 0;
	}
	return -1;
}

/* See protocol.h. */
int proto_agent_decode(const void *buf, size_t len, struct proto_agent_rec *r,
    char *err, size_t errlen)
{
	struct proto_doc doc;
	char *t = NULL;
	int ret = -1;

	memset(r, 0, sizeof *r);
	if (proto_doc_parse(&doc, buf, len, PROTO_MAX_MSG, err, errlen) < 0)
		return -1;
	if (proto_get_str(&doc.root, "t", true, &t, err, errlen) < 0)
		goto out;
	for (size_t i = 1; i < AGENT_NTYPES; i++)
		if (strcmp(t, agent_types[i].name) == 0)
			r->type = (enum proto_agent_type)i;
	if (r->type == 0) {
		snprintf(err, errlen, "unknown record type \"%s\"", t);
		goto out;
	}
	ret = agent_decode_body(&doc.root, r, err, errlen);
out:
	free(t);
	proto_doc_free(&doc);
	if (ret < 0)
		proto_agent_rec_free(r);
	return ret;
}

/* See protocol.h. */
void proto_agent_rec_free(struct proto_agent_rec *r)
{
	free(r->hello.exe);
	free(r->hello.build_id);
	free(r->hello.cmdline);
	for (size_t i = 0; i < r->nsyms; i++) {
		free(r->syms[i].name);
		free(r->syms[i].module);
	}
	free(r->syms);
	free(r->funcs);
	proto_sites_free(r->sites, r->nsites);
	for (size_t i = 0; i < proto_nparts; i++)
		proto_parts[i].free(proto_part_in_rec(&proto_parts[i], r));
	free(r->name);
	memset(r, 0, sizeof *r);
}
