/*
 * json.c - a frame as one JSON object, for scripts (--once --json), written
 * with the protocol's JSON writer.  Keys are the wire keys (doc/protocol.md);
 * a collector part with a field table writes itself (parts.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "json.h"
#include "parts.h"

/* One target object. */
static void json_target(struct proto_json *j, const struct proto_target *t)
{
	proto_json_obj(j, NULL);
	proto_json_i64(j, "pid", t->pid);
	proto_json_str(j, "name", t->name);
	proto_json_str(j, "exe", t->exe);
	proto_json_str(j, "state", proto_target_state_name(t->state));
	proto_json_u64(j, "level", t->level);
	proto_json_u64(j, "started_ms", t->started_ms);
	proto_json_u64(j, "ended_ms", t->ended_ms);
	proto_json_end_obj(j);
}

/* One function row. */
static void json_func(struct proto_json *j, const struct proto_func *f)
{
	proto_json_obj(j, NULL);
	proto_json_str(j, "name", f->name);
	proto_json_str(j, "module", f->module);
	proto_json_u64(j, "addr", f->addr);
	proto_json_u64(j, "calls", f->calls);
	proto_json_f64(j, "calls_per_s", f->calls_per_s);
	proto_json_u64(j, "total_ns", f->total_ns);
	proto_json_u64(j, "self_ns", f->self_ns);
	proto_json_u64(j, "avg_ns", f->avg_ns);
	proto_json_u64(j, "max_ns", f->max_ns);
	proto_json_u64(j, "slow", f->slow);
	proto_json_f64(j, "share", f->share);
	proto_json_u64(j, "running_ns", f->running_ns);
	proto_json_end_obj(j);
}

/* The "sites" object: {backend: {active, disabled, skipped, reasons}}. */
static void json_sites(struct proto_json *j, const struct proto_sites *s, size_t n)
{
	proto_json_obj(j, "sites");
	for (size_t i = 0; i < n; i++) {
		proto_json_obj(j, s[i].backend);
		proto_json_u64(j, "active", s[i].active);
		proto_json_u64(j, "disabled", s[i].disabled);
		proto_json_u64(j, "skipped", s[i].skipped);
		proto_json_obj(j, "reasons");
		for (size_t k = 0; k < s[i].nreasons; k++)
			proto_json_u64(j, s[i].reasons[k].key, s[i].reasons[k].count);
		proto_json_end_obj(j);
		proto_json_end_obj(j);
	}
	proto_json_end_obj(j);
}

/* See tui.h. */
char *tui_json_frame(const struct proto_frame *f, size_t *len)
{
	struct proto_buf b = { 0 };
	struct proto_json j = { .b = &b, .digits = 10 };

	proto_json_obj(&j, NULL);
	proto_json_u64(&j, "v", PROTO_VERSION);
	proto_json_str(&j, "t", "frame");
	proto_json_u64(&j, "seq", f->seq);
	proto_json_u64(&j, "time_ms", f->time_ms);
	proto_json_i64(&j, "pid", f->pid);
	proto_json_str(&j, "sort", f->sort);
	proto_json_u64(&j, "agent_age_ms", f->agent_age_ms);
	proto_json_u64(&j, "nfuncs_seen", f->nfuncs_seen);
	proto_json_u64(&j, "calls_total", f->calls_total);
	proto_json_u64(&j, "self_total_ns", f->self_total_ns);
	proto_json_u64(&j, "dropped", f->dropped);
	proto_json_u64(&j, "overhead_ps", f->overhead_ps);
	proto_json_u64(&j, "threads", f->threads);
	proto_json_arr(&j, "targets");
	for (size_t i = 0; i < f->ntargets; i++)
		json_target(&j, &f->targets[i]);
	proto_json_end_arr(&j);
	proto_json_arr(&j, "funcs");
	for (size_t i = 0; i < f->nfuncs; i++)
		json_func(&j, &f->funcs[i]);
	proto_json_end_arr(&j);
	json_sites(&j, f->sites, f->nsites);
	for (size_t i = 0; i < proto_nparts; i++)
		proto_parts[i].json(&j, proto_part_in_frame_c(&proto_parts[i], f));
	proto_json_end_obj(&j);
	if (len != NULL)
		*len = b.len;
	return b.p;
}
