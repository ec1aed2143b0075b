/*
 * agent.c - agent <-> daemon records: a 4-byte big-endian length, then one
 * msgpack map.  Both directions share one encoder and one decoder.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "field.h"
#include "parts.h"

#define R struct proto_agent_rec

/* A monitoring level is 0-4. */
static int agent_level_check(uint8_t level, char *err, size_t errlen)
{
	if (level > 4) {
		snprintf(err, errlen, "level %u out of range 0-4", level);
		return -1;
	}
	return 0;
}

/* A budget is a share of the target's CPU: at most all of it. */
static int agent_budget_check(uint32_t ppm, char *err, size_t errlen)
{
	if (ppm > 1000000) {
		snprintf(err, errlen, "budget %u ppm is over 1000000 (100%%)", ppm);
		return -1;
	}
	return 0;
}

/* A hello names a real process. */
static int agent_hello_check(void *obj, char *err, size_t errlen)
{
	const struct proto_agent_rec *r = obj;

	if (r->hello.pid <= 0) {
		snprintf(err, errlen, "hello has a bad pid");
		return -1;
	}
	if (agent_level_check(r->hello.level, err, errlen) != 0)
		return -1;
	return agent_budget_check(r->hello.budget_ppm, err, errlen);
}

static int agent_level_rec_check(void *obj, char *err, size_t errlen)
{
	return agent_level_check(((const struct proto_agent_rec *)obj)->level, err, errlen);
}

static int agent_budget_rec_check(void *obj, char *err, size_t errlen)
{
	return agent_budget_check(((const struct proto_agent_rec *)obj)->budget_ppm, err, errlen);
}

static const char *const agent_fmode_names[PROTO_FMODE_N] = {
	[PROTO_FMODE_TIMED] = "timed", [PROTO_FMODE_COUNTED] = "counted",
	[PROTO_FMODE_SAMPLED] = "sampled", [PROTO_FMODE_OFF] = "off",
};

/* See protocol.h. */
const char *proto_fmode_name(unsigned mode)
{
	return mode < PROTO_FMODE_N ? agent_fmode_names[mode] : NULL;
}

static int agent_func_check(void *obj, char *err, size_t errlen)
{
	const struct proto_ag_func *f = obj;

	if (f->mode >= PROTO_FMODE_N) {
		snprintf(err, errlen, "function mode %u out of range 0-%d", f->mode, PROTO_FMODE_N - 1);
		return -1;
	}
	return 0;
}

static const struct proto_field agent_hello_fields[] = {
	PF_ROW("pid", PF_PID, R, hello.pid, PF_REQUIRED),
	PF_ROW("exe", PF_STR, R, hello.exe, PF_REQUIRED),
	PF_ROW("build_id", PF_STR, R, hello.build_id, 0),
	PF_ROW("cmdline", PF_STR, R, hello.cmdline, 0),
	PF_ROW("level", PF_U8, R, hello.level, PF_REQUIRED),
	PF_ROW("overhead_ps", PF_U64, R, hello.overhead_ps, 0),
	PF_ROW("attached", PF_BOOL, R, hello.attached, PF_IFSET),
	PF_ROW("budget_ppm", PF_U32, R, hello.budget_ppm, 0),
};
static const struct proto_struct agent_hello_desc =
	PF_STRUCT_CHECK("a hello record", R, agent_hello_fields, agent_hello_check);

#define Y struct proto_ag_sym
static const struct proto_field agent_sym_fields[] = {
	PF_ROW("addr", PF_U64, Y, addr, PF_REQUIRED),
	PF_ROW("name", PF_STR, Y, name, PF_REQUIRED),
	PF_ROW("module", PF_STR, Y, module, 0),
	PF_ROW("offset", PF_U64, Y, offset, 0),
	PF_ROW("size", PF_U64, Y, size, 0),
};
#undef Y
const struct proto_struct proto_ag_sym_desc = PF_STRUCT("a symbol", struct proto_ag_sym, agent_sym_fields);

static const struct proto_field agent_syms_fields[] = {
	PF_ARR_ROW("syms", PF_OBJS, R, syms, nsyms, UINT32_MAX, &proto_ag_sym_desc),
};
static const struct proto_struct agent_syms_desc = PF_STRUCT("a syms record", R, agent_syms_fields);

#define G struct proto_ag_func
static const struct proto_field agent_func_fields[] = {
	PF_ROW("addr", PF_U64, G, addr, PF_REQUIRED),
	PF_ROW("calls", PF_U64, G, calls, PF_REQUIRED),
	PF_ROW("total_ns", PF_U64, G, total_ns, PF_REQUIRED),
	PF_ROW("self_ns", PF_U64, G, self_ns, PF_REQUIRED),
	PF_ROW("max_ns", PF_U64, G, max_ns, 0),
	PF_ROW("slow", PF_U64, G, slow, 0),
	PF_ROW("running_ns", PF_U64, G, running_ns, 0),
	PF_ROW("mode", PF_U8, G, mode, PF_IFSET),
	PF_ROW("calls_est", PF_BOOL, G, calls_est, PF_IFSET),
	PF_ROW("time_est", PF_BOOL, G, time_est, PF_IFSET),
	PF_ROW("mode_since_ns", PF_U64, G, mode_since_ns, PF_IFSET),
	PF_ROW("hook_ppm", PF_U32, G, hook_ppm, PF_IFSET),
};
#undef G
const struct proto_struct proto_ag_func_desc =
	PF_STRUCT_CHECK("a function", struct proto_ag_func, agent_func_fields, agent_func_check);

#define P struct proto_ag_path
static const struct proto_field agent_path_fields[] = {
	PF_ROW("id", PF_U32, P, id, PF_REQUIRED),
	PF_ROW("parent", PF_U32, P, parent, PF_REQUIRED),
	PF_ROW("addr", PF_U64, P, addr, PF_REQUIRED),
	PF_ROW("calls", PF_U64, P, calls, PF_REQUIRED),
	PF_ROW("incl_ns", PF_U64, P, incl_ns, PF_REQUIRED),
	PF_ROW("self_ns", PF_U64, P, self_ns, PF_REQUIRED),
};
#undef P
const struct proto_struct proto_ag_path_desc =
	PF_STRUCT("a call path", struct proto_ag_path, agent_path_fields);

static const struct proto_field agent_funcs_fields[] = {
	PF_ROW("time_ns", PF_U64, R, time_ns, 0),
	PF_ROW("threads", PF_U32, R, threads, 0),
	PF_ROW("dropped", PF_U64, R, dropped, 0),
	PF_ROW("cost_ppm", PF_U32, R, cost_ppm, PF_IFSET),
	PF_ROW("budget_ppm", PF_U32, R, budget_ppm, PF_IFSET),
	PF_ROW("ip_samples", PF_U32, R, ip_samples, PF_IFSET),
	PF_ROW("ip_agent", PF_U32, R, ip_agent, PF_IFSET),
	PF_ARR_ROW("funcs", PF_OBJS, R, funcs, nfuncs, UINT32_MAX, &proto_ag_func_desc),
	PF_ARR_ROW("paths", PF_OBJS, R, paths, npaths, UINT32_MAX, &proto_ag_path_desc),
	PF_ROW("paths_dropped", PF_U64, R, paths_dropped, PF_IFSET),
	PF_ROW("paths_off", PF_BOOL, R, paths_off, PF_IFSET),
};
static const struct proto_struct agent_funcs_desc = PF_STRUCT("a funcs record", R, agent_funcs_fields);

static const struct proto_field agent_level_fields[] = {
	PF_ROW("level", PF_U8, R, level, PF_REQUIRED),
};
static const struct proto_struct agent_level_desc =
	PF_STRUCT_CHECK("a level record", R, agent_level_fields, agent_level_rec_check);

static const struct proto_field agent_budget_fields[] = {
	PF_ROW("budget_ppm", PF_U32, R, budget_ppm, PF_REQUIRED),
};
static const struct proto_struct agent_budget_desc =
	PF_STRUCT_CHECK("a budget record", R, agent_budget_fields, agent_budget_rec_check);

static const struct proto_field agent_threshold_fields[] = {
	PF_ROW("name", PF_STR, R, name, PF_REQUIRED),
	PF_ROW("value", PF_I64, R, value, PF_REQUIRED),
};
static const struct proto_struct agent_threshold_desc =
	PF_STRUCT("a threshold record", R, agent_threshold_fields);

static const struct proto_field agent_ui_thread_fields[] = {
	PF_ROW("name", PF_STR, R, name, PF_REQUIRED),
};
static const struct proto_struct agent_ui_thread_desc =
	PF_STRUCT("a ui_thread record", R, agent_ui_thread_fields);

static const struct proto_field agent_request_fields[] = {
	PF_ROW("name", PF_STR, R, name, PF_REQUIRED),
};
static const struct proto_struct agent_request_desc =
	PF_STRUCT("a request record", R, agent_request_fields);

static const struct proto_struct agent_empty_desc = { .name = "a record", .size = sizeof(R) };
#undef R

/* Each record type: its wire name and, unless a collector part (parts.h) or
 * "sites" carries it, the fields of its map besides v and t.  A part's
 * record is named after the part; two types of one value do not compile
 * (-Woverride-init). */
#define AGENT_PART_TYPE(nm, NM, wire, T, mem) [PROTO_AG_##NM] = { #nm, NULL },
static const struct {
	const char *name;
	const struct proto_struct *desc;
} agent_types[] = {
	[PROTO_AG_HELLO]     = { "hello", &agent_hello_desc },
	[PROTO_AG_SYMS]      = { "syms", &agent_syms_desc },
	[PROTO_AG_FUNCS]     = { "funcs", &agent_funcs_desc },
	[PROTO_AG_BYE]       = { "bye", &agent_empty_desc },
	[PROTO_AG_SITES]     = { "sites", NULL },
	[PROTO_AG_LEVEL]     = { "level", &agent_level_desc },
	[PROTO_AG_RESET]     = { "reset", &agent_empty_desc },
	[PROTO_AG_THRESHOLD] = { "threshold", &agent_threshold_desc },
	[PROTO_AG_DETACH]    = { "detach", &agent_empty_desc },
	[PROTO_AG_UI_THREAD] = { "ui_thread", &agent_ui_thread_desc },
	[PROTO_AG_BUDGET]    = { "budget", &agent_budget_desc },
	[PROTO_AG_REQUEST]   = { "request", &agent_request_desc },
	PROTO_PARTS(AGENT_PART_TYPE)
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
	const struct proto_part *part = proto_part_of_record(r->type);
	const struct proto_struct *d = agent_types[r->type].desc;

	if (part != NULL) {
		agent_pack_head(pk, 1 + part->ag_time, r->type);
		if (part->ag_time)
			proto_pack_kv_u64(pk, "time_ns", r->time_ns);
		proto_part_pack(part, pk, proto_part_in_rec_c(part, r));
	} else if (r->type == PROTO_AG_SITES) {
		agent_pack_head(pk, 1, r->type);
		proto_pack_sites(pk, r->sites, r->nsites);
	} else {
		agent_pack_head(pk, proto_struct_npack(d, r), r->type);
		proto_struct_pack_fields(pk, d, r);
	}
}

/* See protocol.h. */
void proto_agent_encode(msgpack_sbuffer *sb, const struct proto_agent_rec *r)
{
	static const char zero[PROTO_AGENT_HDR];
	msgpack_packer pk;
	size_t start;
	uint32_t n;

	assert((size_t)r->type > 0 && (size_t)r->type < AGENT_NTYPES &&
	    agent_types[r->type].name != NULL);
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

/* Decode the fields of record type r->type. */
static int agent_decode_body(const msgpack_object *root, struct proto_agent_rec *r,
    char *err, size_t errlen)
{
	const struct proto_part *part = proto_part_of_record(r->type);
	const char *key = part != NULL ? part->key : r->type == PROTO_AG_SITES ? "sites" : NULL;
	enum proto_agent_type type = r->type;
	int ret;

	if (key != NULL && proto_map_get(root, key) == NULL) {
		snprintf(err, errlen, "missing field \"%s\"", key);
		return -1;
	}
	if (part != NULL)
		return (part->ag_time &&
		    proto_get_u64(root, "time_ns", false, &r->time_ns, err, errlen) < 0) ||
		    proto_part_decode(part, root, proto_part_in_rec(part, r), err, errlen) < 0 ? -1 : 0;
	if (r->type == PROTO_AG_SITES)
		return proto_decode_sites(root, &r->sites, &r->nsites, err, errlen);
	/* The description covers the whole record: keep the type it decodes over. */
	ret = proto_struct_decode(root, agent_types[type].desc, r, err, errlen);
	r->type = type;
	return ret;
}

/* See protocol.h. */
int proto_agent_decode(const void *buf, size_t len, struct proto_agent_rec *r,
    char *err, size_t errlen)
{
	struct proto_doc doc;
	char *t = NULL;
	int ret = -1;

	memset(r, 0, sizeof *r);
	/* The large and frequent record, straight from its bytes. */
	if (proto_raw_decode(buf, len, PROTO_MAX_MSG, agent_types[PROTO_AG_FUNCS].name,
	    agent_types[PROTO_AG_FUNCS].desc, r) == 0) {
		r->type = PROTO_AG_FUNCS;
		return 0;
	}
	if (proto_doc_parse(&doc, buf, len, PROTO_MAX_MSG, err, errlen) < 0)
		return -1;
	if (proto_get_str(&doc.root, "t", true, &t, err, errlen) < 0)
		goto out;
	for (size_t i = 1; i < AGENT_NTYPES; i++)
		if (agent_types[i].name != NULL && strcmp(t, agent_types[i].name) == 0)
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
	/* threshold and ui_thread share name: release it once. */
	proto_struct_release(&agent_hello_desc, r);
	proto_struct_release(&agent_syms_desc, r);
	proto_struct_release(&agent_funcs_desc, r);
	proto_struct_release(&agent_threshold_desc, r);
	proto_sites_free(r->sites, r->nsites);
	for (size_t i = 0; i < proto_nparts; i++)
		proto_part_free(proto_parts[i], proto_part_in_rec(proto_parts[i], r));
	memset(r, 0, sizeof *r);
}
