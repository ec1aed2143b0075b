/*
 * fps.c - the frame-rate map, shared by the agent's "fps" record and the
 * daemon's frames: thresholds in force and one entry per frame stream
 * (thread + surface), with counts, histogram levels, percentiles, the worst
 * frames and the last minute of frames per 100 ms bin (doc/protocol.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* Wire names of the histogram levels, in enum proto_fps_level order. */
static const char *const fps_level_names[PROTO_FPS_LEVELS] = {
	"normal", "middle", "high", "frozen",
};

/* Pack one stream's map. */
static void fps_pack_stream(msgpack_packer *pk, const struct proto_fps_stream *s)
{
	msgpack_pack_map(pk, s->nrecent ? 20 : 19);
	proto_pack_kv_u64(pk, "id", s->id);
	proto_pack_kv_i64(pk, "tid", s->tid);
	proto_pack_kv_str(pk, "api", s->api ? s->api : "");
	proto_pack_kv_str(pk, "name", s->name ? s->name : "");
	proto_pack_kv_u64(pk, "frames", s->frames);
	proto_pack_kv_u64(pk, "jank", s->jank);
	proto_pack_kv_u64(pk, "dropped", s->dropped);
	proto_pack_kv_u64(pk, "lost", s->lost);
	proto_pack_str(pk, "levels");
	msgpack_pack_map(pk, PROTO_FPS_LEVELS);
	for (int i = 0; i < PROTO_FPS_LEVELS; i++)
		proto_pack_kv_u64(pk, fps_level_names[i], s->levels[i]);
	proto_pack_kv_f64(pk, "fps", s->fps);
	proto_pack_kv_u64(pk, "p50_ns", s->p50_ns);
	proto_pack_kv_u64(pk, "p90_ns", s->p90_ns);
	proto_pack_kv_u64(pk, "p99_ns", s->p99_ns);
	proto_pack_kv_u64(pk, "max_ns", s->max_ns);
	proto_pack_kv_u64(pk, "window", s->window);
	proto_pack_str(pk, "worst");
	msgpack_pack_array(pk, s->nworst);
	for (size_t i = 0; i < s->nworst; i++) {
		msgpack_pack_map(pk, 3);
		proto_pack_kv_u64(pk, "ns", s->worst[i].ns);
		proto_pack_kv_u64(pk, "at_ns", s->worst[i].at_ns);
		proto_pack_kv_u64(pk, "time_ms", s->worst[i].time_ms);
	}
	proto_pack_kv_u64(pk, "bin_ms", PROTO_FPS_BIN_NS / 1000000);
	proto_pack_kv_u64(pk, "bins_end_ns", s->bins_end_ns);
	proto_pack_str(pk, "bins");
	msgpack_pack_array(pk, s->nbins);
	for (size_t i = 0; i < s->nbins; i++)
		msgpack_pack_uint32(pk, s->bins[i]);
	if (s->nrecent == 0)
		return;
	/* [end, ns, end, ns, ...] */
	proto_pack_str(pk, "recent");
	msgpack_pack_array(pk, 2 * s->nrecent);
	for (size_t i = 0; i < s->nrecent; i++) {
		msgpack_pack_uint64(pk, s->recent_end_ns[i]);
		msgpack_pack_uint64(pk, s->recent_ns[i]);
	}
}

/* Decode the optional "recent" array of a stream: end, ns pairs. */
static int fps_decode_recent(const msgpack_object *o, struct proto_fps_stream *s,
    char *err, size_t errlen)
{
	const msgpack_object_array *a;

	if (proto_get_array_max(o, "recent", 2 * PROTO_FPS_RECENT, &a, err, errlen) < 0)
		return -1;
	if (a == NULL || a->size == 0)
		return 0;
	if (a->size % 2 != 0) {
		snprintf(err, errlen, "field \"recent\" must hold end, ns pairs");
		return -1;
	}
	s->recent_end_ns = xcalloc(a->size / 2, sizeof *s->recent_end_ns);
	s->recent_ns = xcalloc(a->size / 2, sizeof *s->recent_ns);
	for (uint32_t i = 0; i < a->size; i++) {
		if (a->ptr[i].type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
			snprintf(err, errlen, "field \"recent\" must hold unsigned integers");
			return -1;
		}
		(i % 2 ? s->recent_ns : s->recent_end_ns)[i / 2] = a->ptr[i].via.u64;
	}
	s->nrecent = a->size / 2;
	return 0;
}

/* See protocol.h. */
void proto_pack_fps(msgpack_packer *pk, const struct proto_fps *f)
{
	proto_pack_str(pk, "fps");
	msgpack_pack_map(pk, 4);
	proto_pack_kv_u64(pk, "budget_ns", f->budget_ns);
	proto_pack_kv_u64(pk, "high_ns", f->high_ns);
	proto_pack_kv_u64(pk, "frozen_ns", f->frozen_ns);
	proto_pack_str(pk, "streams");
	msgpack_pack_array(pk, f->nstreams);
	for (size_t i = 0; i < f->nstreams; i++)
		fps_pack_stream(pk, &f->streams[i]);
}

/* Decode the optional "levels" map of a stream. */
static int fps_decode_levels(const msgpack_object *o, struct proto_fps_stream *s,
    char *err, size_t errlen)
{
	const msgpack_object *m = proto_map_get(o, "levels");

	if (m == NULL)
		return 0;
	if (m->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "field \"levels\" must be a map");
		return -1;
	}
	for (int i = 0; i < PROTO_FPS_LEVELS; i++)
		if (proto_get_u64(m, fps_level_names[i], false, &s->levels[i], err, errlen) < 0)
			return -1;
	return 0;
}

/* Decode the optional "worst" array of a stream (at most PROTO_FPS_WORST). */
static int fps_decode_worst(const msgpack_object *o, struct proto_fps_stream *s,
    char *err, size_t errlen)
{
	const msgpack_object_array *a;

	if (proto_get_array_max(o, "worst", PROTO_FPS_WORST, &a, err, errlen) < 0)
		return -1;
	for (uint32_t i = 0; a != NULL && i < a->size; i++) {
		struct proto_fps_worst *w = &s->worst[i];

		if (a->ptr[i].type != MSGPACK_OBJECT_MAP) {
			snprintf(err, errlen, "worst frame %u must be a map", i);
			return -1;
		}
		if (proto_get_u64(&a->ptr[i], "ns", true, &w->ns, err, errlen) < 0 ||
		    proto_get_u64(&a->ptr[i], "at_ns", false, &w->at_ns, err, errlen) < 0 ||
		    proto_get_u64(&a->ptr[i], "time_ms", false, &w->time_ms, err, errlen) < 0)
			return -1;
		s->nworst = i + 1;
	}
	return 0;
}

/* Decode one stream map. */
static int fps_decode_stream(const msgpack_object *o, struct proto_fps_stream *s,
    char *err, size_t errlen)
{
	uint64_t id = 0;
	int64_t tid = 0;

	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "frame stream must be a map");
		return -1;
	}
	if (proto_get_u64(o, "id", true, &id, err, errlen) < 0 ||
	    proto_get_i64(o, "tid", false, &tid, err, errlen) < 0 ||
	    proto_get_str(o, "api", false, &s->api, err, errlen) < 0 ||
	    proto_get_str(o, "name", false, &s->name, err, errlen) < 0 ||
	    proto_get_u64(o, "frames", true, &s->frames, err, errlen) < 0 ||
	    proto_get_u64(o, "jank", false, &s->jank, err, errlen) < 0 ||
	    proto_get_u64(o, "dropped", false, &s->dropped, err, errlen) < 0 ||
	    proto_get_u64(o, "lost", false, &s->lost, err, errlen) < 0 ||
	    fps_decode_levels(o, s, err, errlen) < 0 ||
	    proto_get_f64(o, "fps", false, &s->fps, err, errlen) < 0 ||
	    proto_get_u64(o, "p50_ns", false, &s->p50_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "p90_ns", false, &s->p90_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "p99_ns", false, &s->p99_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "max_ns", false, &s->max_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "window", false, &s->window, err, errlen) < 0 ||
	    fps_decode_worst(o, s, err, errlen) < 0 ||
	    proto_get_u64(o, "bins_end_ns", false, &s->bins_end_ns, err, errlen) < 0 ||
	    proto_get_u32_array(o, "bins", PROTO_FPS_BINS, &s->bins, &s->nbins, err, errlen) < 0 ||
	    fps_decode_recent(o, s, err, errlen) < 0)
		return -1;
	if (id > UINT32_MAX || tid < 0 || tid > INT32_MAX || !(s->fps >= 0)) {
		snprintf(err, errlen, "frame stream has a bad id, tid or fps");
		return -1;
	}
	s->id = (uint32_t)id;
	s->tid = (int32_t)tid;
	if (s->api == NULL)
		s->api = xstrdup("");
	if (s->name == NULL)
		s->name = xstrdup("");
	return 0;
}

/* See protocol.h. */
int proto_decode_fps(const msgpack_object *root, struct proto_fps *f,
    char *err, size_t errlen)
{
	const msgpack_object *m = proto_map_get(root, "fps");
	const msgpack_object_array *a;

	memset(f, 0, sizeof *f);
	if (m == NULL)
		return 0;
	if (m->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "field \"fps\" must be a map");
		return -1;
	}
	if (proto_get_u64(m, "budget_ns", false, &f->budget_ns, err, errlen) < 0 ||
	    proto_get_u64(m, "high_ns", false, &f->high_ns, err, errlen) < 0 ||
	    proto_get_u64(m, "frozen_ns", false, &f->frozen_ns, err, errlen) < 0 ||
	    proto_get_array_max(m, "streams", PROTO_MAX_STREAMS, &a, err, errlen) < 0)
		return -1;
	if (a == NULL)
		return 0;
	f->streams = xcalloc(a->size ? a->size : 1, sizeof *f->streams);
	for (uint32_t i = 0; i < a->size; i++) {
		f->nstreams = i + 1;
		if (fps_decode_stream(&a->ptr[i], &f->streams[i], err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* See protocol.h. */
void proto_fps_copy(struct proto_fps *dst, const struct proto_fps *src)
{
	*dst = *src;
	dst->streams = xcalloc(src->nstreams ? src->nstreams : 1, sizeof *dst->streams);
	for (size_t i = 0; i < src->nstreams; i++) {
		const struct proto_fps_stream *s = &src->streams[i];
		struct proto_fps_stream *d = &dst->streams[i];

		*d = *s;
		d->api = xstrdup(s->api ? s->api : "");
		d->name = xstrdup(s->name ? s->name : "");
		d->bins = xcalloc(s->nbins ? s->nbins : 1, sizeof *d->bins);
		if (s->nbins)
			memcpy(d->bins, s->bins, s->nbins * sizeof *d->bins);
		d->recent_end_ns = d->recent_ns = NULL;
		if (s->nrecent) {
			d->recent_end_ns = xcalloc(s->nrecent, sizeof *d->recent_end_ns);
			d->recent_ns = xcalloc(s->nrecent, sizeof *d->recent_ns);
			memcpy(d->recent_end_ns, s->recent_end_ns, s->nrecent * sizeof *d->recent_ns);
			memcpy(d->recent_ns, s->recent_ns, s->nrecent * sizeof *d->recent_ns);
		}
	}
}

/* See protocol.h. */
void proto_fps_free(struct proto_fps *f)
{
	for (size_t i = 0; i < f->nstreams; i++) {
		free(f->streams[i].api);
		free(f->streams[i].name);
		free(f->streams[i].bins);
		free(f->streams[i].recent_end_ns);
		free(f->streams[i].recent_ns);
	}
	free(f->streams);
	memset(f, 0, sizeof *f);
}
