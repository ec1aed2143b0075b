/* server.c - daemon -> client messages: hello, frame, reply, error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "field.h"
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

/* Parse a state name back to its enum value. */
static int server_state_parse(const char *s)
{
	for (int i = 0; i < PROTO_TARGET_NSTATES; i++)
		if (strcmp(s, server_state_names[i]) == 0)
			return i;
	return -1;
}

/* A target's "state": its name on the wire, the enum in memory. */
static void target_state_pack(msgpack_packer *pk, const void *obj)
{
	proto_pack_str(pk, proto_target_state_name(((const struct proto_target *)obj)->state));
}

/* An enum that travels by name: key's string through parse into *out
 * (left alone when the key is absent and not required); what names the
 * thing in the error ("target has an unknown state ..."). */
static int server_name_decode(const msgpack_object *o, const char *key, bool required,
    int (*parse)(const char *), uint8_t *out, const char *what, char *err, size_t errlen)
{
	char *name = NULL;
	int v;

	if (!required && proto_map_get(o, key) == NULL)
		return 0;
	if (proto_get_str(o, key, true, &name, err, errlen) < 0)
		return -1;
	if ((v = parse(name)) < 0) {
		snprintf(err, errlen, "%s has an unknown %s \"%.40s\"", what, key, name);
		free(name);
		return -1;
	}
	free(name);
	*out = (uint8_t)v;
	return 0;
}

/* Such an enum owns nothing: copy and release have nothing to do. */
static void server_name_copy(void *dst, const void *src) { (void)dst; (void)src; }
static void server_name_release(void *obj) { (void)obj; }

static int target_state_decode(const msgpack_object *o, void *obj, char *err, size_t errlen)
{
	return server_name_decode(o, "state", true, server_state_parse,
	    &((struct proto_target *)obj)->state, "target", err, errlen);
}

static void target_state_json(struct proto_json *j, const char *key, const void *obj)
{
	proto_json_str(j, key, proto_target_state_name(((const struct proto_target *)obj)->state));
}

static const struct proto_fcodec target_state_codec = {
	NULL, target_state_pack, target_state_decode, server_name_copy, server_name_release,
	target_state_json,
};

/* A listed target is a real process at a level 0-4. */
static int target_check(void *obj, char *err, size_t errlen)
{
	const struct proto_target *t = obj;

	if (t->pid <= 0 || t->level > 4) {
		snprintf(err, errlen, "target has a bad pid, state or level");
		return -1;
	}
	return 0;
}

#define T struct proto_target
static const struct proto_field target_fields[] = {
	PF_ROW("pid", PF_PID, T, pid, PF_REQUIRED),
	PF_ROW("name", PF_STR, T, name, PF_REQUIRED),
	PF_ROW("exe", PF_STR, T, exe, 0),
	PF_CUSTOM_ROW("state", &target_state_codec, PF_REQUIRED),
	PF_ROW("level", PF_U8, T, level, 0),
	PF_ROW("started_ms", PF_U64, T, started_ms, 0),
	PF_ROW("ended_ms", PF_U64, T, ended_ms, 0),
};
#undef T
const struct proto_struct proto_target_desc =
	PF_STRUCT_CHECK("a target", struct proto_target, target_fields, target_check);

/* A row's "mode": its name on the wire, the enum in memory; a frame
 * without it (an older daemon) is timed. */
static void func_mode_pack(msgpack_packer *pk, const void *obj)
{
	const char *name = proto_fmode_name(((const struct proto_func *)obj)->mode);

	proto_pack_str(pk, name ? name : "timed");
}

static int func_mode_decode(const msgpack_object *o, void *obj, char *err, size_t errlen)
{
	return server_name_decode(o, "mode", false, proto_fmode_parse,
	    &((struct proto_func *)obj)->mode, "function", err, errlen);
}

static void func_mode_json(struct proto_json *j, const char *key, const void *obj)
{
	const char *name = proto_fmode_name(((const struct proto_func *)obj)->mode);

	proto_json_str(j, key, name ? name : "timed");
}

static const struct proto_fcodec func_mode_codec = {
	NULL, func_mode_pack, func_mode_decode, server_name_copy, server_name_release, func_mode_json,
};

#define F struct proto_func
static const struct proto_field func_fields[] = {
	PF_ROW("name", PF_STR, F, name, PF_REQUIRED),
	PF_ROW("module", PF_STR, F, module, 0),
	PF_ROW("addr", PF_U64, F, addr, 0),
	PF_ROW("calls", PF_U64, F, calls, PF_REQUIRED),
	PF_F64_ROW("calls_per_s", F, calls_per_s, 0),
	PF_ROW("total_ns", PF_U64, F, total_ns, PF_REQUIRED),
	PF_ROW("self_ns", PF_U64, F, self_ns, PF_REQUIRED),
	PF_ROW("avg_ns", PF_U64, F, avg_ns, 0),
	PF_ROW("max_ns", PF_U64, F, max_ns, 0),
	PF_ROW("slow", PF_U64, F, slow, 0),
	PF_F64_ROW("share", F, share, 0),
	PF_ROW("running_ns", PF_U64, F, running_ns, 0),
	PF_CUSTOM_ROW("mode", &func_mode_codec, 0),
	PF_ROW("calls_est", PF_BOOL, F, calls_est, PF_IFSET),
	PF_ROW("time_est", PF_BOOL, F, time_est, PF_IFSET),
	PF_ROW("mode_age_ms", PF_U64, F, mode_age_ms, 0),
	PF_ROW("hook_ppm", PF_U32, F, hook_ppm, 0),
};
#undef F
const struct proto_struct proto_func_desc = PF_STRUCT("a function row", struct proto_func, func_fields);

#define P struct proto_path
static const struct proto_field path_fields[] = {
	PF_ROW("id", PF_U32, P, id, PF_REQUIRED),
	PF_ROW("parent", PF_U32, P, parent, PF_REQUIRED),
	PF_ROW("func", PF_STR, P, func, PF_REQUIRED),
	PF_ROW("calls", PF_U64, P, calls, PF_REQUIRED),
	PF_ROW("incl_ns", PF_U64, P, incl_ns, PF_REQUIRED),
	PF_ROW("self_ns", PF_U64, P, self_ns, PF_REQUIRED),
};
#undef P
static const struct proto_struct proto_path_desc = PF_STRUCT("a call path", struct proto_path, path_fields);

/* A frame's "sites": a map keyed by back-end (sites.c). */
static void frame_sites_pack(msgpack_packer *pk, const void *obj)
{
	const struct proto_frame *f = obj;

	proto_pack_sites_value(pk, f->sites, f->nsites);
}

static int frame_sites_decode(const msgpack_object *o, void *obj, char *err, size_t errlen)
{
	struct proto_frame *f = obj;

	return proto_decode_sites(o, &f->sites, &f->nsites, err, errlen);
}

static void frame_sites_copy(void *dst, const void *src)
{
	const struct proto_frame *s = src;

	((struct proto_frame *)dst)->sites = proto_sites_dup(s->sites, s->nsites);
}

static void frame_sites_release(void *obj)
{
	struct proto_frame *f = obj;

	proto_sites_free(f->sites, f->nsites);
}

static void frame_sites_json(struct proto_json *j, const char *key, const void *obj)
{
	const struct proto_frame *f = obj;

	proto_sites_json(j, key, f->sites, f->nsites);
}

static const struct proto_fcodec frame_sites_codec = {
	NULL, frame_sites_pack, frame_sites_decode, frame_sites_copy, frame_sites_release,
	frame_sites_json,
};

/* The rows are sorted by a key; an older daemon did not say which. */
static int frame_check(void *obj, char *err, size_t errlen)
{
	struct proto_frame *f = obj;

	(void)err;
	(void)errlen;
	if (f->sort == NULL || f->sort[0] == '\0') {
		free(f->sort);
		f->sort = xstrdup("total");
	}
	return 0;
}

/* The frame's own keys; the collectors' parts follow (parts.h). */
#define M struct proto_frame
static const struct proto_field frame_fields[] = {
	PF_ROW("seq", PF_U64, M, seq, PF_REQUIRED),
	PF_ROW("time_ms", PF_U64, M, time_ms, 0),
	PF_ROW("pid", PF_PID, M, pid, PF_REQUIRED),
	PF_ROW("sort", PF_STR, M, sort, 0),
	PF_ROW("agent_age_ms", PF_U64, M, agent_age_ms, 0),
	PF_ROW("nfuncs_seen", PF_U64, M, nfuncs_seen, 0),
	PF_ROW("calls_total", PF_U64, M, calls_total, 0),
	PF_ROW("self_total_ns", PF_U64, M, self_total_ns, 0),
	PF_ROW("dropped", PF_U64, M, dropped, 0),
	PF_ROW("overhead_ps", PF_U64, M, overhead_ps, 0),
	PF_ROW("threads", PF_U32, M, threads, 0),
	PF_ROW("cost_ppm", PF_U32, M, cost_ppm, 0),
	PF_ROW("cost_sampled_ppm", PF_U32, M, cost_sampled_ppm, PF_IFSET),
	PF_ROW("cost_samples", PF_U32, M, cost_samples, PF_IFSET),
	PF_ROW("budget_ppm", PF_U32, M, budget_ppm, 0),
	PF_ROW("demoted", PF_U64, M, demoted, 0),
	PF_ARR_ROW("targets", PF_OBJS, M, targets, ntargets, UINT32_MAX, &proto_target_desc),
	{ .key = "funcs", .type = PF_OBJS, .flags = PF_REQUIRED, .off = offsetof(M, funcs),
	  .cnt = offsetof(M, nfuncs), .max = UINT32_MAX, .sub = &proto_func_desc },
	PF_CUSTOM_ROW("sites", &frame_sites_codec, 0),
	PF_ARR_ROW("paths", PF_OBJS, M, paths, npaths, UINT32_MAX, &proto_path_desc),
	PF_ROW("paths_dropped", PF_U64, M, paths_dropped, PF_IFSET),
};
#undef M
const struct proto_struct proto_frame_desc =
	PF_STRUCT_CHECK("a frame", struct proto_frame, frame_fields, frame_check);

/* A reply's optional "data": a report, as bin (str accepted too). */
static bool reply_data_present(const void *obj)
{
	return ((const struct proto_reply *)obj)->data != NULL;
}

static void reply_data_pack(msgpack_packer *pk, const void *obj)
{
	const struct proto_reply *r = obj;

	msgpack_pack_bin(pk, r->data_len);
	msgpack_pack_bin_body(pk, r->data, r->data_len);
}

static int reply_data_decode(const msgpack_object *o, void *obj, char *err, size_t errlen)
{
	struct proto_reply *r = obj;
	const msgpack_object *d = proto_map_get(o, "data");

	if (d == NULL)
		return 0;
	if (d->type != MSGPACK_OBJECT_BIN && d->type != MSGPACK_OBJECT_STR) {
		snprintf(err, errlen, "field \"data\" must be binary");
		return -1;
	}
	/* bin and str share the same layout in msgpack_object. */
	r->data_len = d->via.bin.size;
	r->data = xmalloc(r->data_len + 1);
	memcpy(r->data, d->via.bin.ptr, r->data_len);
	r->data[r->data_len] = '\0';
	return 0;
}

static void reply_data_copy(void *dst, const void *src)
{
	struct proto_reply *d = dst;
	const struct proto_reply *s = src;

	if (s->data == NULL)
		return;
	d->data = xmalloc(s->data_len + 1);
	memcpy(d->data, s->data, s->data_len);
	d->data[s->data_len] = '\0';
}

static void reply_data_release(void *obj)
{
	free(((struct proto_reply *)obj)->data);
}

static const struct proto_fcodec reply_data_codec = {
	reply_data_present, reply_data_pack, reply_data_decode, reply_data_copy, reply_data_release,
	NULL,
};

#define P struct proto_reply
static const struct proto_field reply_fields[] = {
	PF_ROW("id", PF_U64, P, id, PF_REQUIRED),
	PF_ROW("ok", PF_BOOL, P, ok, PF_REQUIRED),
	PF_ROW("msg", PF_STR, P, msg, 0),
	PF_CUSTOM_ROW("data", &reply_data_codec, PF_NOJSON),
};
#undef P
static const struct proto_struct reply_desc = PF_STRUCT("a reply", struct proto_reply, reply_fields);

/* The hello's keys besides v and t. */
struct server_hello {
	char   *version;
	size_t  ntargets;
	struct proto_target *targets;
};
#define H struct server_hello
static const struct proto_field hello_fields[] = {
	PF_ROW("version", PF_STR, H, version, PF_REQUIRED),
	PF_ARR_ROW("targets", PF_OBJS, H, targets, ntargets, UINT32_MAX, &proto_target_desc),
};
#undef H
static const struct proto_struct hello_desc = PF_STRUCT("a hello", struct server_hello, hello_fields);

/* See protocol.h. */
void proto_encode_hello(msgpack_sbuffer *sb, const char *version,
    const struct proto_target *t, size_t n)
{
	struct server_hello h = { .version = (char *)version, .ntargets = n,
	    .targets = (struct proto_target *)t };
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	server_pack_head(&pk, 2 + proto_struct_npack(&hello_desc, &h), "hello");
	proto_struct_pack_fields(&pk, &hello_desc, &h);
}

/* See protocol.h. */
void proto_encode_frame(msgpack_sbuffer *sb, const struct proto_frame *f)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	server_pack_head(&pk, 2 + proto_struct_npack(&proto_frame_desc, f) + proto_nparts, "frame");
	proto_struct_pack_fields(&pk, &proto_frame_desc, f);
	for (size_t i = 0; i < proto_nparts; i++)
		proto_part_pack(proto_parts[i], &pk, proto_part_in_frame_c(proto_parts[i], f));
}

/* See protocol.h. */
void proto_encode_reply(msgpack_sbuffer *sb, const struct proto_reply *r)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	server_pack_head(&pk, 2 + proto_struct_npack(&reply_desc, r), "reply");
	proto_struct_pack_fields(&pk, &reply_desc, r);
}

/* See protocol.h. */
void proto_encode_error(msgpack_sbuffer *sb, const char *msg)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	server_pack_head(&pk, 3, "error");
	proto_pack_kv_str(&pk, "msg", msg);
}

/* Decode a frame's fields into f. */
static int server_decode_frame(const msgpack_object *root, struct proto_frame *f,
    char *err, size_t errlen)
{
	if (proto_struct_decode(root, &proto_frame_desc, f, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < proto_nparts; i++)
		if (proto_part_decode(proto_parts[i], root, proto_part_in_frame(proto_parts[i], f),
		    err, errlen) < 0)
			return -1;
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
		struct server_hello h;

		m->type = PROTO_MSG_HELLO;
		r = proto_struct_decode(&doc.root, &hello_desc, &h, err, errlen);
		m->version = h.version;
		m->targets = h.targets;
		m->ntargets = h.ntargets;
	} else if (strcmp(t, "frame") == 0) {
		m->type = PROTO_MSG_FRAME;
		r = server_decode_frame(&doc.root, &m->frame, err, errlen);
	} else if (strcmp(t, "reply") == 0) {
		m->type = PROTO_MSG_REPLY;
		r = proto_struct_decode(&doc.root, &reply_desc, &m->reply, err, errlen);
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

/* See protocol.h. */
void proto_server_msg_free(struct proto_server_msg *m)
{
	struct server_hello h = { m->version, m->ntargets, m->targets };

	proto_struct_free(&hello_desc, &h);
	/* The parts first: re-initialising the frame zeroes all of it. */
	for (size_t i = 0; i < proto_nparts; i++)
		proto_part_free(proto_parts[i], proto_part_in_frame(proto_parts[i], &m->frame));
	proto_struct_free(&proto_frame_desc, &m->frame);
	proto_struct_free(&reply_desc, &m->reply);
	free(m->error);
	memset(m, 0, sizeof *m);
}
