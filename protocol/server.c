/* server.c - daemon -> client messages: hello, frame, reply, error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "parts.h"

static const char *const server_state_names[] = {
	[PROTO_TARGET_LIVE]   = "live",
	[PROTO_TARGET_LOST]   = "lost",
	[PROTO_TARGET_EXITED] = "exited",
	[PROTO_TARGET_DETACHED] = "detached",
};

/* See protocol.h. */
const char *proto_target_state_name(int state)
{
	if (state < 0 || state >= PROTO_TARGET_NSTATES)
		return "unknown";
	return server_state_names[state];
}

/* Start a map of n entries whose first two are v and t. */
static void server_pack_head(msgpack_packer *pk, size_t n, const char *type)
{
	msgpack_pack_map(pk, n);
	proto_pack_kv_u64(pk, "v", PROTO_VERSION);
	proto_pack_kv_str(pk, "t", type);
}

/* Pack the target list under key "targets". */
static void server_pack_targets(msgpack_packer *pk, const struct proto_target *t, size_t n)
{
	proto_pack_str(pk, "targets");
	msgpack_pack_array(pk, n);
	for (size_t i = 0; i < n; i++) {
		msgpack_pack_map(pk, 7);
		proto_pack_kv_i64(pk, "pid", t[i].pid);
		proto_pack_kv_str(pk, "name", t[i].name);
		proto_pack_kv_str(pk, "exe", t[i].exe);
		proto_pack_kv_str(pk, "state", proto_target_state_name(t[i].state));
		proto_pack_kv_u64(pk, "level", t[i].level);
		proto_pack_kv_u64(pk, "started_ms", t[i].started_ms);
		proto_pack_kv_u64(pk, "ended_ms", t[i].ended_ms);
	}
}

/* See protocol.h. */
void proto_encode_hello(msgpack_sbuffer *sb, const char *version,
    const struct proto_target *t, size_t n)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	server_pack_head(&pk, 4, "hello");
	proto_pack_kv_str(&pk, "version", version);
	server_pack_targets(&pk, t, n);
}

/* See protocol.h. */
void proto_encode_frame(msgpack_sbuffer *sb, const struct proto_frame *f)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	/* v, t, 11 scalars, targets, funcs, sites, then the collectors' parts. */
	server_pack_head(&pk, 16 + proto_nparts, "frame");
	proto_pack_kv_u64(&pk, "seq", f->seq);
	proto_pack_kv_u64(&pk, "time_ms", f->time_ms);
	proto_pack_kv_i64(&pk, "pid", f->pid);
	proto_pack_kv_str(&pk, "sort", f->sort);
	proto_pack_kv_u64(&pk, "agent_age_ms", f->agent_age_ms);
	proto_pack_kv_u64(&pk, "nfuncs_seen", f->nfuncs_seen);
	proto_pack_kv_u64(&pk, "calls_total", f->calls_total);
	proto_pack_kv_u64(&pk, "self_total_ns", f->self_total_ns);
	proto_pack_kv_u64(&pk, "dropped", f->dropped);
	proto_pack_kv_u64(&pk, "overhead_ps", f->overhead_ps);
	proto_pack_kv_u64(&pk, "threads", f->threads);
	server_pack_targets(&pk, f->targets, f->ntargets);
	proto_pack_str(&pk, "funcs");
	msgpack_pack_array(&pk, f->nfuncs);
	for (size_t i = 0; i < f->nfuncs; i++) {
		const struct proto_func *fn = &f->funcs[i];

		msgpack_pack_map(&pk, 12);
		proto_pack_kv_str(&pk, "name", fn->name);
		proto_pack_kv_str(&pk, "module", fn->module);
		proto_pack_kv_u64(&pk, "addr", fn->addr);
		proto_pack_kv_u64(&pk, "calls", fn->calls);
		proto_pack_kv_f64(&pk, "calls_per_s", fn->calls_per_s);
		proto_pack_kv_u64(&pk, "total_ns", fn->total_ns);
		proto_pack_kv_u64(&pk, "self_ns", fn->self_ns);
		proto_pack_kv_u64(&pk, "avg_ns", fn->avg_ns);
		proto_pack_kv_u64(&pk, "max_ns", fn->max_ns);
		proto_pack_kv_u64(&pk, "slow", fn->slow);
		proto_pack_kv_f64(&pk, "share", fn->share);
		proto_pack_kv_u64(&pk, "running_ns", fn->running_ns);
	}
	proto_pack_sites(&pk, f->sites, f->nsites);
	for (size_t i = 0; i < proto_nparts; i++)
		proto_parts[i].pack(&pk, proto_part_in_frame_c(&proto_parts[i], f));
}

/* See protocol.h. */
void proto_encode_reply(msgpack_sbuffer *sb, const struct proto_reply *r)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	server_pack_head(&pk, r->data ? 6 : 5, "reply");
	proto_pack_kv_u64(&pk, "id", r->id);
	proto_pack_kv_bool(&pk, "ok", r->ok);
	proto_pack_kv_str(&pk, "msg", r->msg);
	if (r->data) {
		proto_pack_str(&pk, "data");
		msgpack_pack_bin(&pk, r->data_len);
		msgpack_pack_bin_body(&pk, r->data, r->data_len);
	}
}

/* See protocol.h. */
void proto_encode_error(msgpack_sbuffer *sb, const char *msg)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	server_pack_head(&pk, 3, "error");
	proto_pack_kv_str(&pk, "msg", msg);
}

/* Parse a state name back to its enum value. */
static int server_state_parse(const char *s)
{
	for (int i = 0; i < PROTO_TARGET_NSTATES; i++)
		if (strcmp(s, server_state_names[i]) == 0)
			return i;
	return -1;
}

/* Decode one target map. */
static int server_decode_target(const msgpack_object *o, struct proto_target *t,
    char *err, size_t errlen)
{
	int64_t pid = 0;
	uint64_t level = 0;
	char *state = NULL;
	int st;

	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "target must be a map");
		return -1;
	}
	if (proto_get_i64(o, "pid", true, &pid, err, errlen) < 0 ||
	    proto_get_str(o, "name", true, &t->name, err, errlen) < 0 ||
	    proto_get_str(o, "exe", false, &t->exe, err, errlen) < 0 ||
	    proto_get_str(o, "state", true, &state, err, errlen) < 0 ||
	    proto_get_u64(o, "level", false, &level, err, errlen) < 0 ||
	    proto_get_u64(o, "started_ms", false, &t->started_ms, err, errlen) < 0 ||
	    proto_get_u64(o, "ended_ms", false, &t->ended_ms, err, errlen) < 0)
		goto fail;
	st = server_state_parse(state);
	if (st < 0 || pid <= 0 || pid > INT32_MAX || level > 4) {
		snprintf(err, errlen, "target has a bad pid, state or level");
		goto fail;
	}
	free(state);
	t->pid = (int32_t)pid;
	t->state = (uint8_t)st;
	t->level = (uint8_t)level;
	if (t->exe == NULL)
		t->exe = xstrdup("");
	return 0;
fail:
	free(state);
	return -1;
}

/* Decode the "targets" array into a fresh vector. */
static int server_decode_targets(const msgpack_object *root, struct proto_target **out,
    size_t *n, char *err, size_t errlen)
{
	const msgpack_object_array *a = NULL;

	*out = NULL;
	*n = 0;
	if (proto_get_array(root, "targets", false, &a, err, errlen) < 0)
		return -1;
	if (a == NULL)
		return 0;
	*out = xcalloc(a->size, sizeof **out);
	for (uint32_t i = 0; i < a->size; i++) {
		*n = i + 1;
		if (server_decode_target(&a->ptr[i], &(*out)[i], err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* Decode one function row. */
static int server_decode_func(const msgpack_object *o, struct proto_func *f,
    char *err, size_t errlen)
{
	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "function row must be a map");
		return -1;
	}
	if (proto_get_str(o, "name", true, &f->name, err, errlen) < 0 ||
	    proto_get_str(o, "module", false, &f->module, err, errlen) < 0 ||
	    proto_get_u64(o, "addr", false, &f->addr, err, errlen) < 0 ||
	    proto_get_u64(o, "calls", true, &f->calls, err, errlen) < 0 ||
	    proto_get_f64(o, "calls_per_s", false, &f->calls_per_s, err, errlen) < 0 ||
	    proto_get_u64(o, "total_ns", true, &f->total_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "self_ns", true, &f->self_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "avg_ns", false, &f->avg_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "max_ns", false, &f->max_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "slow", false, &f->slow, err, errlen) < 0 ||
	    proto_get_f64(o, "share", false, &f->share, err, errlen) < 0 ||
	    proto_get_u64(o, "running_ns", false, &f->running_ns, err, errlen) < 0)
		return -1;
	if (f->module == NULL)
		f->module = xstrdup("");
	return 0;
}

/* Decode a frame's fields into m->frame. */
static int server_decode_frame(const msgpack_object *root, struct proto_frame *f,
    char *err, size_t errlen)
{
	const msgpack_object_array *a = NULL;
	int64_t pid = 0;
	uint64_t threads = 0;

	if (proto_get_u64(root, "seq", true, &f->seq, err, errlen) < 0 ||
	    proto_get_u64(root, "time_ms", false, &f->time_ms, err, errlen) < 0 ||
	    proto_get_i64(root, "pid", true, &pid, err, errlen) < 0 ||
	    proto_get_str(root, "sort", false, &f->sort, err, errlen) < 0 ||
	    proto_get_u64(root, "agent_age_ms", false, &f->agent_age_ms, err, errlen) < 0 ||
	    proto_get_u64(root, "nfuncs_seen", false, &f->nfuncs_seen, err, errlen) < 0 ||
	    proto_get_u64(root, "calls_total", false, &f->calls_total, err, errlen) < 0 ||
	    proto_get_u64(root, "self_total_ns", false, &f->self_total_ns, err, errlen) < 0 ||
	    proto_get_u64(root, "dropped", false, &f->dropped, err, errlen) < 0 ||
	    proto_get_u64(root, "overhead_ps", false, &f->overhead_ps, err, errlen) < 0 ||
	    proto_get_u64(root, "threads", false, &threads, err, errlen) < 0 ||
	    server_decode_targets(root, &f->targets, &f->ntargets, err, errlen) < 0 ||
	    proto_get_array(root, "funcs", true, &a, err, errlen) < 0 ||
	    proto_decode_sites(root, &f->sites, &f->nsites, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < proto_nparts; i++)
		if (proto_parts[i].decode(root, proto_part_in_frame(&proto_parts[i], f), err, errlen) < 0)
			return -1;
	if (pid < 0 || pid > INT32_MAX || threads > UINT32_MAX) {
		snprintf(err, errlen, "frame has a bad pid or thread count");
		return -1;
	}
	f->pid = (int32_t)pid;
	f->threads = (uint32_t)threads;
	if (f->sort == NULL)
		f->sort = xstrdup("total");
	f->funcs = xcalloc(a->size, sizeof *f->funcs);
	for (uint32_t i = 0; i < a->size; i++) {
		f->nfuncs = i + 1;
		if (server_decode_func(&a->ptr[i], &f->funcs[i], err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* Decode a reply's fields into r. */
static int server_decode_reply(const msgpack_object *root, struct proto_reply *r,
    char *err, size_t errlen)
{
	const msgpack_object *d;

	if (proto_get_u64(root, "id", true, &r->id, err, errlen) < 0 ||
	    proto_get_bool(root, "ok", true, &r->ok, err, errlen) < 0 ||
	    proto_get_str(root, "msg", false, &r->msg, err, errlen) < 0)
		return -1;
	if (r->msg == NULL)
		r->msg = xstrdup("");
	d = proto_map_get(root, "data");
	if (d != NULL) {
		if (d->type != MSGPACK_OBJECT_BIN && d->type != MSGPACK_OBJECT_STR) {
			snprintf(err, errlen, "field \"data\" must be binary");
			return -1;
		}
		/* bin and str share the same layout in msgpack_object. */
		r->data_len = d->via.bin.size;
		r->data = xmalloc(r->data_len + 1);
		memcpy(r->data, d->via.bin.ptr, r->data_len);
		r->data[r->data_len] = '\0';
	}
	return 0;
}

/* See protocol.h. */
int proto_decode_server(const void *buf, size_t len, struct proto_server_msg *m,
    char *err, size_t errlen)
{
	struct proto_doc doc;
	char *t = NULL;
	int r = -1;

	memset(m, 0, sizeof *m);
	if (proto_doc_parse(&doc, buf, len, PROTO_MAX_FRAME, err, errlen) < 0)
		return -1;
	if (proto_get_str(&doc.root, "t", true, &t, err, errlen) < 0)
		goto out;
	if (strcmp(t, "hello") == 0) {
		m->type = PROTO_MSG_HELLO;
		r = proto_get_str(&doc.root, "version", true, &m->version, err, errlen);
		if (r == 0)
			r = server_decode_targets(&doc.root, &m->targets, &m->ntargets, err, errlen);
	} else if (strcmp(t, "frame") == 0) {
		m->type = PROTO_MSG_FRAME;
		r = server_decode_frame(&doc.root, &m->frame, err, errlen);
	} else if (strcmp(t, "reply") == 0) {
		m->type = PROTO_MSG_REPLY;
		r = server_decode_reply(&doc.root, &m->reply, err, errlen);
	} else if (strcmp(t, "error") == 0) {
		m->type = PROTO_MSG_ERROR;
		r = proto_get_str(&doc.root, "msg", true, &m->error, err, errlen);
	} else {
		snprintf(err, errlen, "unknown message type \"%s\"", t);
	}
out:
	free(t);
	proto_doc_free(&doc);
	if (r < 0)
		proto_server_msg_free(m);
	return r;
}

/* Free a target vector. */
static void server_targets_free(struct proto_target *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(t[i].name);
		free(t[i].exe);
	}
	free(t);
}

/* See protocol.h. */
void proto_server_msg_free(struct proto_server_msg *m)
{
	free(m->version);
	server_targets_free(m->targets, m->ntargets);
	server_targets_free(m->frame.targets, m->frame.ntargets);
	for (size_t i = 0; i < m->frame.nfuncs; i++) {
		free(m->frame.funcs[i].name);
		free(m->frame.funcs[i].module);
	}
	free(m->frame.funcs);
	proto_sites_free(m->frame.sites, m->frame.nsites);
	for (size_t i = 0; i < proto_nparts; i++)
		proto_parts[i].free(proto_part_in_frame(&proto_parts[i], &m->frame));
	free(m->frame.sort);
	free(m->reply.msg);
	free(m->reply.data);
	free(m->error);
	memset(m, 0, sizeof *m);
}
