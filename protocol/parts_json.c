/*
 * parts_json.c - the JSON of the collectors' parts that have no field
 * table yet (parts.h): the same keys as their msgpack maps.
 */
#include "protocol.h"
#include "json.h"
#include "parts.h"

/* One frame stream (doc/protocol.md, fps). */
static void json_fps_stream(struct proto_json *j, const struct proto_fps_stream *s)
{
	static const char *const levels[PROTO_FPS_LEVELS] = { "normal", "middle", "high", "frozen" };

	proto_json_obj(j, NULL);
	proto_json_u64(j, "id", s->id);
	proto_json_i64(j, "tid", s->tid);
	proto_json_str(j, "api", s->api);
	proto_json_str(j, "name", s->name);
	proto_json_u64(j, "frames", s->frames);
	proto_json_u64(j, "jank", s->jank);
	proto_json_u64(j, "dropped", s->dropped);
	proto_json_u64(j, "lost", s->lost);
	proto_json_obj(j, "levels");
	for (int i = 0; i < PROTO_FPS_LEVELS; i++)
		proto_json_u64(j, levels[i], s->levels[i]);
	proto_json_end_obj(j);
	proto_json_f64(j, "fps", s->fps);
	proto_json_u64(j, "p50_ns", s->p50_ns);
	proto_json_u64(j, "p90_ns", s->p90_ns);
	proto_json_u64(j, "p99_ns", s->p99_ns);
	proto_json_u64(j, "max_ns", s->max_ns);
	proto_json_u64(j, "window", s->window);
	proto_json_arr(j, "worst");
	for (size_t i = 0; i < s->nworst; i++) {
		proto_json_obj(j, NULL);
		proto_json_u64(j, "ns", s->worst[i].ns);
		proto_json_u64(j, "at_ns", s->worst[i].at_ns);
		proto_json_u64(j, "time_ms", s->worst[i].time_ms);
		proto_json_end_obj(j);
	}
	proto_json_end_arr(j);
	proto_json_u64(j, "bin_ms", PROTO_FPS_BIN_NS / 1000000);
	proto_json_u64(j, "bins_end_ns", s->bins_end_ns);
	proto_json_arr(j, "bins");
	for (size_t i = 0; i < s->nbins; i++)
		proto_json_u64(j, NULL, s->bins[i]);
	proto_json_end_arr(j);
	proto_json_end_obj(j);
}

/* The "fps" object: thresholds and streams. */
void proto_fps_json(struct proto_json *j, const struct proto_fps *f)
{
	proto_json_obj(j, "fps");
	proto_json_u64(j, "budget_ns", f->budget_ns);
	proto_json_u64(j, "high_ns", f->high_ns);
	proto_json_u64(j, "frozen_ns", f->frozen_ns);
	proto_json_arr(j, "streams");
	for (size_t i = 0; i < f->nstreams; i++)
		json_fps_stream(j, &f->streams[i]);
	proto_json_end_arr(j);
	proto_json_end_obj(j);
}

/* A named code address (doc/protocol.md, threading). */
static void json_thr_frame(struct proto_json *j, const char *key, const struct proto_thr_frame *f)
{
	if (key != NULL)
		proto_json_obj(j, key);
	proto_json_u64(j, "addr", f->addr);
	proto_json_str(j, "name", f->name);
	proto_json_str(j, "module", f->module);
	proto_json_u64(j, "off", f->off);
	proto_json_end_obj(j);
}

/* One thread of the "threading" object. */
static void json_thr_thread(struct proto_json *j, const struct proto_thr_thread *t)
{
	proto_json_obj(j, NULL);
	proto_json_u64(j, "id", t->id);
	proto_json_i64(j, "tid", t->tid);
	proto_json_i64(j, "creator", t->creator);
	proto_json_u64(j, "site", t->site);
	proto_json_u64(j, "pool", t->pool);
	proto_json_str(j, "name", t->name);
	proto_json_str(j, "state", t->state);
	proto_json_u64(j, "start_ns", t->start_ns);
	proto_json_u64(j, "end_ns", t->end_ns);
	proto_json_u64(j, "cpu_ns", t->cpu_ns);
	proto_json_f64(j, "cpu_pct", t->cpu_pct);
	proto_json_end_obj(j);
}

/* One creation site. */
static void json_thr_site(struct proto_json *j, const struct proto_thr_site *s)
{
	proto_json_obj(j, NULL);
	proto_json_u64(j, "id", s->id);
	json_thr_frame(j, "start", &s->start);
	proto_json_u64(j, "created", s->created);
	proto_json_u64(j, "live", s->live);
	proto_json_arr(j, "stack");
	for (size_t i = 0; i < s->nstack; i++)
		json_thr_frame(j, NULL, &s->stack[i]);
	proto_json_end_arr(j);
	proto_json_end_obj(j);
}

/* One pool. */
static void json_thr_pool(struct proto_json *j, const struct proto_thr_pool *p)
{
	proto_json_obj(j, NULL);
	proto_json_u64(j, "id", p->id);
	proto_json_str(j, "kind", p->kind);
	json_thr_frame(j, "func", &p->func);
	proto_json_i64(j, "size", p->size);
	proto_json_u64(j, "workers", p->workers);
	proto_json_u64(j, "pushed", p->pushed);
	proto_json_u64(j, "done", p->done);
	proto_json_u64(j, "wait_ns", p->wait_ns);
	proto_json_u64(j, "wait_max_ns", p->wait_max_ns);
	proto_json_u64(j, "run_ns", p->run_ns);
	proto_json_u64(j, "run_max_ns", p->run_max_ns);
	proto_json_bool(j, "freed", p->freed);
	proto_json_end_obj(j);
}

/* The "threading" object: counts, history, threads, sites, pools. */
void proto_threads_json(struct proto_json *j, const struct proto_threads *t)
{
	proto_json_obj(j, "threading");
	proto_json_u64(j, "time_ns", t->time_ns);
	proto_json_u64(j, "created", t->created);
	proto_json_u64(j, "exited", t->exited);
	proto_json_u64(j, "live", t->live);
	proto_json_u64(j, "other_live", t->other_live);
	proto_json_u64(j, "agent_created", t->agent_created);
	proto_json_u64(j, "agent_live", t->agent_live);
	proto_json_u64(j, "agent_cpu_ns", t->agent_cpu_ns);
	proto_json_u64(j, "dropped", t->dropped);
	proto_json_f64(j, "created_per_s", t->created_per_s);
	proto_json_arr(j, "history");
	for (size_t i = 0; i < t->nhistory; i++)
		proto_json_u64(j, NULL, t->history[i]);
	proto_json_end_arr(j);
	proto_json_arr(j, "threads");
	for (size_t i = 0; i < t->nthreads; i++)
		json_thr_thread(j, &t->threads[i]);
	proto_json_end_arr(j);
	proto_json_arr(j, "sites");
	for (size_t i = 0; i < t->nsites; i++)
		json_thr_site(j, &t->sites[i]);
	proto_json_end_arr(j);
	proto_json_arr(j, "pools");
	for (size_t i = 0; i < t->npools; i++)
		json_thr_pool(j, &t->pools[i]);
	proto_json_end_arr(j);
	proto_json_end_obj(j);
}

