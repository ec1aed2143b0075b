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

