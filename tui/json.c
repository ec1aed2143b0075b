/*
 * json.c - a frame as one JSON object, for scripts (--once --json).
 *
 * A tiny writer: it places the commas, escapes strings (quotes, backslash,
 * control characters) and replaces invalid UTF-8 by U+FFFD so the output
 * is always valid JSON.  Keys are the wire keys (doc/protocol.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

#define JSON_MAX_DEPTH 8

struct json {
	char  *buf;
	size_t len, cap;
	int    depth;
	int    count[JSON_MAX_DEPTH];     /* values written at each depth */
	bool   after_key;
};

/* Append n raw bytes. */
static void json_raw(struct json *j, const char *s, size_t n)
{
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 4096;

		while (cap < j->len + n + 1)
			cap *= 2;
		j->buf = xrealloc(j->buf, cap);
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

/* Separator before a value: a comma unless first or right after a key. */
static void json_pre(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0 && j->count[j->depth - 1]++ > 0)
		json_raw(j, ",", 1);
}

/* Length of the valid UTF-8 sequence at s, or 0 if invalid. */
static size_t json_utf8_len(const unsigned char *s)
{
	size_t need;
	unsigned cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

/* A JSON string literal. */
static void json_str_raw(struct json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];

	json_raw(j, "\"", 1);
	while (*p) {
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			json_raw(j, esc, 2);
			p++;
		} else if (*p < 0x20) {
			const char *sh = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" :
			    *p == '\r' ? "\\r" : *p == '\b' ? "\\b" : *p == '\f' ? "\\f" : NULL;

			if (sh != NULL) {
				json_raw(j, sh, 2);
			} else {
				snprintf(esc, sizeof esc, "\\u%04x", *p);
				json_raw(j, esc, 6);
			}
			p++;
		} else if (*p < 0x80) {
			json_raw(j, (const char *)p, 1);
			p++;
		} else {
			size_t n = json_utf8_len(p);

			if (n == 0) {
				json_raw(j, "\\ufffd", 6);
				p++;
			} else {
				json_raw(j, (const char *)p, n);
				p += n;
			}
		}
	}
	json_raw(j, "\"", 1);
}

/* Object key. */
static void json_key(struct json *j, const char *k)
{
	json_pre(j);
	json_str_raw(j, k);
	json_raw(j, ":", 1);
	j->after_key = true;
}

/* Open an object or array. */
static void json_open(struct json *j, char c)
{
	json_pre(j);
	json_raw(j, &c, 1);
	if (j->depth < JSON_MAX_DEPTH)
		j->count[j->depth] = 0;
	j->depth++;
}

/* Close an object or array. */
static void json_close(struct json *j, char c)
{
	j->depth--;
	json_raw(j, &c, 1);
}

/* key: string value. */
static void json_kv_str(struct json *j, const char *k, const char *v)
{
	json_key(j, k);
	json_pre(j);
	json_str_raw(j, v ? v : "");
}

/* An unsigned value (an array element, or after its key). */
static void json_u64(struct json *j, uint64_t v)
{
	char b[32];

	json_pre(j);
	json_raw(j, b, (size_t)snprintf(b, sizeof b, "%llu", (unsigned long long)v));
}

/* "key": unsigned integer. */
static void json_kv_u64(struct json *j, const char *k, uint64_t v)
{
	json_key(j, k);
	json_u64(j, v);
}

/* key: signed value. */
static void json_kv_i64(struct json *j, const char *k, int64_t v)
{
	char b[32];

	json_key(j, k);
	json_pre(j);
	json_raw(j, b, (size_t)snprintf(b, sizeof b, "%lld", (long long)v));
}

/* A float; JSON has no NaN or infinity: those become null. */
static void json_kv_f64(struct json *j, const char *k, double v)
{
	char b[64];

	json_key(j, k);
	json_pre(j);
	if (!isfinite(v))
		json_raw(j, "null", 4);
	else
		json_raw(j, b, (size_t)snprintf(b, sizeof b, "%.10g", v));
}

/* One target object. */
static void json_target(struct json *j, const struct proto_target *t)
{
	json_open(j, '{');
	json_kv_i64(j, "pid", t->pid);
	json_kv_str(j, "name", t->name);
	json_kv_str(j, "exe", t->exe);
	json_kv_str(j, "state", proto_target_state_name(t->state));
	json_kv_u64(j, "level", t->level);
	json_kv_u64(j, "started_ms", t->started_ms);
	json_kv_u64(j, "ended_ms", t->ended_ms);
	json_close(j, '}');
}

/* One function row. */
static void json_func(struct json *j, const struct proto_func *f)
{
	json_open(j, '{');
	json_kv_str(j, "name", f->name);
	json_kv_str(j, "module", f->module);
	json_kv_u64(j, "addr", f->addr);
	json_kv_u64(j, "calls", f->calls);
	json_kv_f64(j, "calls_per_s", f->calls_per_s);
	json_kv_u64(j, "total_ns", f->total_ns);
	json_kv_u64(j, "self_ns", f->self_ns);
	json_kv_u64(j, "avg_ns", f->avg_ns);
	json_kv_u64(j, "max_ns", f->max_ns);
	json_kv_u64(j, "slow", f->slow);
	json_kv_f64(j, "share", f->share);
	json_kv_u64(j, "running_ns", f->running_ns);
	json_close(j, '}');
}

/* The "sites" object: {backend: {active, disabled, skipped, reasons}}. */
static void json_sites(struct json *j, const struct proto_sites *s, size_t n)
{
	json_key(j, "sites");
	json_open(j, '{');
	for (size_t i = 0; i < n; i++) {
		json_key(j, s[i].backend);
		json_open(j, '{');
		json_kv_u64(j, "active", s[i].active);
		json_kv_u64(j, "disabled", s[i].disabled);
		json_kv_u64(j, "skipped", s[i].skipped);
		json_key(j, "reasons");
		json_open(j, '{');
		for (size_t k = 0; k < s[i].nreasons; k++)
			json_kv_u64(j, s[i].reasons[k].key, s[i].reasons[k].count);
		json_close(j, '}');
		json_close(j, '}');
	}
	json_close(j, '}');
}

/* One frame stream (doc/protocol.md, fps). */
static void json_fps_stream(struct json *j, const struct proto_fps_stream *s)
{
	static const char *const levels[PROTO_FPS_LEVELS] = { "normal", "middle", "high", "frozen" };

	json_open(j, '{');
	json_kv_u64(j, "id", s->id);
	json_kv_i64(j, "tid", s->tid);
	json_kv_str(j, "api", s->api);
	json_kv_str(j, "name", s->name);
	json_kv_u64(j, "frames", s->frames);
	json_kv_u64(j, "jank", s->jank);
	json_kv_u64(j, "dropped", s->dropped);
	json_kv_u64(j, "lost", s->lost);
	json_key(j, "levels");
	json_open(j, '{');
	for (int i = 0; i < PROTO_FPS_LEVELS; i++)
		json_kv_u64(j, levels[i], s->levels[i]);
	json_close(j, '}');
	json_kv_f64(j, "fps", s->fps);
	json_kv_u64(j, "p50_ns", s->p50_ns);
	json_kv_u64(j, "p90_ns", s->p90_ns);
	json_kv_u64(j, "p99_ns", s->p99_ns);
	json_kv_u64(j, "max_ns", s->max_ns);
	json_kv_u64(j, "window", s->window);
	json_key(j, "worst");
	json_open(j, '[');
	for (size_t i = 0; i < s->nworst; i++) {
		json_open(j, '{');
		json_kv_u64(j, "ns", s->worst[i].ns);
		json_kv_u64(j, "at_ns", s->worst[i].at_ns);
		json_kv_u64(j, "time_ms", s->worst[i].time_ms);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_kv_u64(j, "bin_ms", PROTO_FPS_BIN_NS / 1000000);
	json_kv_u64(j, "bins_end_ns", s->bins_end_ns);
	json_key(j, "bins");
	json_open(j, '[');
	for (size_t i = 0; i < s->nbins; i++)
		json_u64(j, s->bins[i]);
	json_close(j, ']');
	json_close(j, '}');
}

/* The "fps" object: thresholds and streams. */
static void json_fps(struct json *j, const struct proto_fps *f)
{
	json_key(j, "fps");
	json_open(j, '{');
	json_kv_u64(j, "budget_ns", f->budget_ns);
	json_kv_u64(j, "high_ns", f->high_ns);
	json_kv_u64(j, "frozen_ns", f->frozen_ns);
	json_key(j, "streams");
	json_open(j, '[');
	for (size_t i = 0; i < f->nstreams; i++)
		json_fps_stream(j, &f->streams[i]);
	json_close(j, ']');
	json_close(j, '}');
}

/* A named code address (doc/protocol.md, threading). */
static void json_thr_frame(struct json *j, const char *key, const struct proto_thr_frame *f)
{
	if (key != NULL)
		json_key(j, key);
	json_open(j, '{');
	json_kv_u64(j, "addr", f->addr);
	json_kv_str(j, "name", f->name);
	json_kv_str(j, "module", f->module);
	json_kv_u64(j, "off", f->off);
	json_close(j, '}');
}

/* One thread of the "threading" object. */
static void json_thr_thread(struct json *j, const struct proto_thr_thread *t)
{
	json_open(j, '{');
	json_kv_u64(j, "id", t->id);
	json_kv_i64(j, "tid", t->tid);
	json_kv_i64(j, "creator", t->creator);
	json_kv_u64(j, "site", t->site);
	json_kv_u64(j, "pool", t->pool);
	json_kv_str(j, "name", t->name);
	json_kv_str(j, "state", t->state);
	json_kv_u64(j, "start_ns", t->start_ns);
	json_kv_u64(j, "end_ns", t->end_ns);
	json_kv_u64(j, "cpu_ns", t->cpu_ns);
	json_kv_f64(j, "cpu_pct", t->cpu_pct);
	json_close(j, '}');
}

/* One creation site. */
static void json_thr_site(struct json *j, const struct proto_thr_site *s)
{
	json_open(j, '{');
	json_kv_u64(j, "id", s->id);
	json_thr_frame(j, "start", &s->start);
	json_kv_u64(j, "created", s->created);
	json_kv_u64(j, "live", s->live);
	json_key(j, "stack");
	json_open(j, '[');
	for (size_t i = 0; i < s->nstack; i++)
		json_thr_frame(j, NULL, &s->stack[i]);
	json_close(j, ']');
	json_close(j, '}');
}

/* One pool. */
static void json_thr_pool(struct json *j, const struct proto_thr_pool *p)
{
	json_open(j, '{');
	json_kv_u64(j, "id", p->id);
	json_kv_str(j, "kind", p->kind);
	json_thr_frame(j, "func", &p->func);
	json_kv_i64(j, "size", p->size);
	json_kv_u64(j, "workers", p->workers);
	json_kv_u64(j, "pushed", p->pushed);
	json_kv_u64(j, "done", p->done);
	json_kv_u64(j, "wait_ns", p->wait_ns);
	json_kv_u64(j, "wait_max_ns", p->wait_max_ns);
	json_kv_u64(j, "run_ns", p->run_ns);
	json_kv_u64(j, "run_max_ns", p->run_max_ns);
	json_key(j, "freed");
	json_pre(j);
	json_raw(j, p->freed ? "true" : "false", p->freed ? 4 : 5);
	json_close(j, '}');
}

/* The "threading" object: counts, history, threads, sites, pools. */
static void json_threads(struct json *j, const struct proto_threads *t)
{
	json_key(j, "threading");
	json_open(j, '{');
	json_kv_u64(j, "time_ns", t->time_ns);
	json_kv_u64(j, "created", t->created);
	json_kv_u64(j, "exited", t->exited);
	json_kv_u64(j, "live", t->live);
	json_kv_u64(j, "other_live", t->other_live);
	json_kv_u64(j, "agent_created", t->agent_created);
	json_kv_u64(j, "agent_live", t->agent_live);
	json_kv_u64(j, "agent_cpu_ns", t->agent_cpu_ns);
	json_kv_u64(j, "dropped", t->dropped);
	json_kv_f64(j, "created_per_s", t->created_per_s);
	json_key(j, "history");
	json_open(j, '[');
	for (size_t i = 0; i < t->nhistory; i++)
		json_u64(j, t->history[i]);
	json_close(j, ']');
	json_key(j, "threads");
	json_open(j, '[');
	for (size_t i = 0; i < t->nthreads; i++)
		json_thr_thread(j, &t->threads[i]);
	json_close(j, ']');
	json_key(j, "sites");
	json_open(j, '[');
	for (size_t i = 0; i < t->nsites; i++)
		json_thr_site(j, &t->sites[i]);
	json_close(j, ']');
	json_key(j, "pools");
	json_open(j, '[');
	for (size_t i = 0; i < t->npools; i++)
		json_thr_pool(j, &t->pools[i]);
	json_close(j, ']');
	json_close(j, '}');
}

/* One stack {samples, frames} (blocks, slow IPC calls). */
static void json_stack(struct json *j, const struct proto_block_stack *s)
{
	json_open(j, '{');
	json_kv_u64(j, "samples", s->samples);
	json_key(j, "frames");
	json_open(j, '[');
	for (size_t k = 0; k < s->nframes; k++) {
		const struct proto_block_frame *f = &s->frames[k];

		json_open(j, '{');
		json_kv_u64(j, "addr", f->addr);
		json_kv_str(j, "func", f->func);
		json_kv_u64(j, "off", f->off);
		json_kv_str(j, "module", f->module);
		json_kv_str(j, "file", f->file);
		json_kv_u64(j, "line", f->line);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_close(j, '}');
}

/* One block with its stacks (doc/protocol.md, blocks). */
static void json_block(struct json *j, const struct proto_block *b)
{
	json_open(j, '{');
	json_kv_u64(j, "id", b->id);
	json_kv_i64(j, "tid", b->tid);
	json_kv_u64(j, "start_ns", b->start_ns);
	json_kv_u64(j, "time_ms", b->time_ms);
	json_kv_u64(j, "dur_ns", b->dur_ns);
	json_key(j, "ended");
	json_pre(j);
	json_raw(j, b->ended ? "true" : "false", b->ended ? 4 : 5);
	json_kv_u64(j, "samples", b->samples);
	json_kv_u64(j, "lost", b->lost);
	json_key(j, "stacks");
	json_open(j, '[');
	for (size_t i = 0; i < b->nstacks; i++)
		json_stack(j, &b->stacks[i]);
	json_close(j, ']');
	json_close(j, '}');
}

/* The "blocks" object: settings, count and the most recent blocks. */
static void json_blocks(struct json *j, const struct proto_blocks *b)
{
	json_key(j, "blocks");
	json_open(j, '{');
	json_kv_u64(j, "threshold_ns", b->threshold_ns);
	json_kv_u64(j, "sample_ns", b->sample_ns);
	json_kv_i64(j, "ui_tid", b->ui_tid);
	json_kv_str(j, "ui", b->ui ? b->ui : "");
	json_kv_u64(j, "count", b->count);
	json_key(j, "list");
	json_open(j, '[');
	for (size_t i = 0; i < b->nblocks; i++)
		json_block(j, &b->blocks[i]);
	json_close(j, ']');
	json_close(j, '}');
}

/* The "ipc" object: threshold, endpoints, recent slow calls (doc/protocol.md, IPC). */
static void json_ipc(struct json *j, const struct proto_ipc *p)
{
	json_key(j, "ipc");
	json_open(j, '{');
	json_kv_u64(j, "threshold_ns", p->threshold_ns);
	json_kv_u64(j, "slow_count", p->slow_count);
	json_key(j, "endpoints");
	json_open(j, '[');
	for (size_t i = 0; i < p->neps; i++) {
		const struct proto_ipc_ep *e = &p->eps[i];

		json_open(j, '{');
		json_kv_u64(j, "id", e->id);
		json_kv_str(j, "kind", e->kind);
		json_kv_str(j, "name", e->name);
		json_kv_str(j, "method", e->method);
		json_kv_i64(j, "peer_pid", e->peer_pid);
		json_kv_str(j, "peer_comm", e->peer_comm);
		json_kv_u64(j, "sends", e->sends);
		json_kv_u64(j, "recvs", e->recvs);
		json_kv_u64(j, "calls", e->calls);
		json_kv_u64(j, "connects", e->connects);
		json_kv_u64(j, "bytes_out", e->bytes_out);
		json_kv_u64(j, "bytes_in", e->bytes_in);
		json_kv_u64(j, "total_ns", e->total_ns);
		json_kv_u64(j, "max_ns", e->max_ns);
		json_kv_u64(j, "ui_calls", e->ui_calls);
		json_kv_u64(j, "ui_ns", e->ui_ns);
		json_kv_u64(j, "slow", e->slow);
		json_kv_f64(j, "ops_per_s", e->ops_per_s);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_key(j, "slow");
	json_open(j, '[');
	for (size_t i = 0; i < p->nslow; i++) {
		const struct proto_ipc_slow *s = &p->slow[i];

		json_open(j, '{');
		json_kv_u64(j, "id", s->id);
		json_kv_u64(j, "ep", s->ep);
		json_kv_str(j, "op", s->op);
		json_kv_i64(j, "tid", s->tid);
		json_key(j, "ui");
		json_pre(j);
		json_raw(j, s->ui ? "true" : "false", s->ui ? 4 : 5);
		json_kv_u64(j, "start_ns", s->start_ns);
		json_kv_u64(j, "time_ms", s->time_ms);
		json_kv_u64(j, "dur_ns", s->dur_ns);
		json_key(j, "stack");
		json_stack(j, &s->stack);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_close(j, '}');
}

/* The "power" object: the ledger priced by the daemon. */
static void json_power(struct json *j, const struct proto_power *p)
{
	json_key(j, "power");
	json_open(j, '{');
	json_kv_u64(j, "time_ns", p->time_ns);
	json_kv_u64(j, "hold_ns", p->hold_ns);
	json_kv_u64(j, "exited", p->exited);
	json_kv_str(j, "table", p->table ? p->table : "");
	json_kv_u64(j, "rows", p->rows);
	json_kv_u64(j, "errors", p->errors);
	json_kv_str(j, "profile", p->profile ? p->profile : "");
	json_kv_str(j, "warning", p->warning ? p->warning : "");
	json_key(j, "resources");
	json_open(j, '[');
	for (size_t i = 0; i < p->nres; i++) {
		const struct proto_pwr_res *r = &p->res[i];

		json_open(j, '{');
		json_kv_str(j, "category", r->category);
		json_kv_str(j, "name", r->name);
		json_kv_str(j, "api", r->api);
		json_kv_str(j, "item", r->item);
		json_kv_u64(j, "refcount", r->refcount);
		json_kv_u64(j, "held", r->held);
		json_kv_u64(j, "leaked", r->leaked);
		json_kv_i64(j, "refs", r->refs);
		json_kv_u64(j, "held_ns", r->held_ns);
		json_kv_u64(j, "total_ns", r->total_ns);
		json_kv_u64(j, "longest_ns", r->longest_ns);
		json_kv_u64(j, "acquires", r->acquires);
		json_kv_u64(j, "releases", r->releases);
		json_kv_u64(j, "timeouts", r->timeouts);
		json_kv_u64(j, "unmatched", r->unmatched);
		json_kv_u64(j, "oneshots", r->oneshots);
		json_kv_f64(j, "ma", r->ma);
		json_kv_f64(j, "price_ma", r->price_ma);
		json_kv_str(j, "price_from", r->price_from ? r->price_from : "");
		json_kv_f64(j, "mah", r->mah);
		json_key(j, "holder");
		json_open(j, '[');
		for (size_t k = 0; k < r->nholder; k++) {
			json_pre(j);
			json_str_raw(j, r->holder[k]);
		}
		json_close(j, ']');
		json_key(j, "releaser");
		json_open(j, '[');
		for (size_t k = 0; k < r->nreleaser; k++) {
			json_pre(j);
			json_str_raw(j, r->releaser[k]);
		}
		json_close(j, ']');
		json_close(j, '}');
	}
	json_close(j, ']');
	json_key(j, "categories");
	json_open(j, '[');
	for (size_t i = 0; i < p->ncats; i++) {
		json_open(j, '{');
		json_kv_str(j, "category", p->cats[i].category);
		json_kv_f64(j, "mah", p->cats[i].mah);
		json_kv_u64(j, "total_ns", p->cats[i].total_ns);
		json_kv_u64(j, "held", p->cats[i].held);
		json_kv_u64(j, "leaks", p->cats[i].leaks);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_close(j, '}');
}

/* See tui.h. */
char *tui_json_frame(const struct proto_frame *f, size_t *len)
{
	struct json j;

	memset(&j, 0, sizeof j);
	json_open(&j, '{');
	json_kv_u64(&j, "v", PROTO_VERSION);
	json_kv_str(&j, "t", "frame");
	json_kv_u64(&j, "seq", f->seq);
	json_kv_u64(&j, "time_ms", f->time_ms);
	json_kv_i64(&j, "pid", f->pid);
	json_kv_str(&j, "sort", f->sort);
	json_kv_u64(&j, "agent_age_ms", f->agent_age_ms);
	json_kv_u64(&j, "nfuncs_seen", f->nfuncs_seen);
	json_kv_u64(&j, "calls_total", f->calls_total);
	json_kv_u64(&j, "self_total_ns", f->self_total_ns);
	json_kv_u64(&j, "dropped", f->dropped);
	json_kv_u64(&j, "overhead_ps", f->overhead_ps);
	json_kv_u64(&j, "threads", f->threads);
	json_key(&j, "targets");
	json_open(&j, '[');
	for (size_t i = 0; i < f->ntargets; i++)
		json_target(&j, &f->targets[i]);
	json_close(&j, ']');
	json_key(&j, "funcs");
	json_open(&j, '[');
	for (size_t i = 0; i < f->nfuncs; i++)
		json_func(&j, &f->funcs[i]);
	json_close(&j, ']');
	json_sites(&j, f->sites, f->nsites);
	json_fps(&j, &f->fps);
	json_threads(&j, &f->thr);
	json_blocks(&j, &f->blocks);
	json_ipc(&j, &f->ipc);
	json_power(&j, &f->power);
	json_close(&j, '}');
	if (len != NULL)
		*len = j.len;
	return j.buf;
}
