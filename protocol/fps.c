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
#include "field.h"
#include "parts.h"

/* The histogram levels: a map of fixed keys over uint64_t levels[]. */
#define LEVEL_ROW(k, i) { .key = (k), .type = PF_U64, .off = (i) * sizeof(uint64_t) }
static const struct proto_field fps_level_fields[PROTO_FPS_LEVELS] = {
	LEVEL_ROW("normal", PROTO_FPS_NORMAL),
	LEVEL_ROW("middle", PROTO_FPS_MIDDLE),
	LEVEL_ROW("high", PROTO_FPS_HIGH),
	LEVEL_ROW("frozen", PROTO_FPS_FROZEN),
};
#undef LEVEL_ROW
static const struct proto_struct fps_levels_desc = {
	.name = "field \"levels\"", .size = PROTO_FPS_LEVELS * sizeof(uint64_t),
	.fields = fps_level_fields, .nfields = PROTO_FPS_LEVELS,
};

#define W struct proto_fps_worst
static const struct proto_field fps_worst_fields[] = {
	PF_ROW("ns", PF_U64, W, ns, PF_REQUIRED),
	PF_ROW("at_ns", PF_U64, W, at_ns, 0),
	PF_ROW("time_ms", PF_U64, W, time_ms, 0),
};
#undef W
const struct proto_struct proto_fps_worst_desc =
	PF_STRUCT("a worst frame", struct proto_fps_worst, fps_worst_fields);

/* "recent": [end, ns, end, ns, ...], only in agent records that have some. */
static bool fps_recent_present(const void *obj)
{
	return ((const struct proto_fps_stream *)obj)->nrecent > 0;
}

static void fps_recent_pack(msgpack_packer *pk, const void *obj)
{
	const struct proto_fps_stream *s = obj;

	msgpack_pack_array(pk, 2 * s->nrecent);
	for (size_t i = 0; i < s->nrecent; i++) {
		msgpack_pack_uint64(pk, s->recent_end_ns[i]);
		msgpack_pack_uint64(pk, s->recent_ns[i]);
	}
}

static int fps_recent_decode(const msgpack_object *o, void *obj, char *err, size_t errlen)
{
	struct proto_fps_stream *s = obj;
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

static void fps_recent_copy(void *dst, const void *src)
{
	struct proto_fps_stream *d = dst;
	const struct proto_fps_stream *s = src;

	d->recent_end_ns = d->recent_ns = NULL;
	if (s->nrecent == 0)
		return;
	d->recent_end_ns = xcalloc(s->nrecent, sizeof *d->recent_end_ns);
	d->recent_ns = xcalloc(s->nrecent, sizeof *d->recent_ns);
	memcpy(d->recent_end_ns, s->recent_end_ns, s->nrecent * sizeof *d->recent_end_ns);
	memcpy(d->recent_ns, s->recent_ns, s->nrecent * sizeof *d->recent_ns);
}

static void fps_recent_release(void *obj)
{
	struct proto_fps_stream *s = obj;

	free(s->recent_end_ns);
	free(s->recent_ns);
}

static const struct proto_fcodec fps_recent_codec = {
	fps_recent_present, fps_recent_pack, fps_recent_decode, fps_recent_copy, fps_recent_release,
	NULL,
};

/* A rate is never negative (nor NaN). */
static int fps_stream_check(void *obj, char *err, size_t errlen)
{
	if (!(((const struct proto_fps_stream *)obj)->fps >= 0)) {
		snprintf(err, errlen, "field \"fps\" of a frame stream must not be negative");
		return -1;
	}
	return 0;
}

#define S struct proto_fps_stream
static const struct proto_field fps_stream_fields[] = {
	PF_ROW("id", PF_U32, S, id, PF_REQUIRED),
	PF_ROW("tid", PF_PID, S, tid, 0),
	PF_ROW("api", PF_STR, S, api, 0),
	PF_ROW("name", PF_STR, S, name, 0),
	PF_ROW("frames", PF_U64, S, frames, PF_REQUIRED),
	PF_ROW("jank", PF_U64, S, jank, 0),
	PF_ROW("dropped", PF_U64, S, dropped, 0),
	PF_ROW("lost", PF_U64, S, lost, 0),
	PF_OBJ_ROW("levels", S, levels, &fps_levels_desc),
	PF_F64_ROW("fps", S, fps, 0),
	PF_ROW("p50_ns", PF_U64, S, p50_ns, 0),
	PF_ROW("p90_ns", PF_U64, S, p90_ns, 0),
	PF_ROW("p99_ns", PF_U64, S, p99_ns, 0),
	PF_ROW("max_ns", PF_U64, S, max_ns, 0),
	PF_ROW("window", PF_U64, S, window, 0),
	PF_INLINE_ROW("worst", S, worst, nworst, &proto_fps_worst_desc),
	PF_CONST_ROW("bin_ms", PROTO_FPS_BIN_NS / 1000000, 0),
	PF_ROW("bins_end_ns", PF_U64, S, bins_end_ns, 0),
	PF_ARR_ROW("bins", PF_U32S, S, bins, nbins, PROTO_FPS_BINS, NULL),
	PF_CUSTOM_ROW("recent", &fps_recent_codec, PF_NOJSON),
};
#undef S
const struct proto_struct proto_fps_stream_desc =
	PF_STRUCT_CHECK("a frame stream", struct proto_fps_stream, fps_stream_fields, fps_stream_check);

#define F struct proto_fps
static const struct proto_field fps_fields[] = {
	PF_ROW("budget_ns", PF_U64, F, budget_ns, 0),
	PF_ROW("high_ns", PF_U64, F, high_ns, 0),
	PF_ROW("frozen_ns", PF_U64, F, frozen_ns, 0),
	PF_ARR_ROW("streams", PF_OBJS, F, streams, nstreams, PROTO_MAX_STREAMS, &proto_fps_stream_desc),
};
#undef F
const struct proto_struct proto_fps_desc = PF_STRUCT("field \"fps\"", struct proto_fps, fps_fields);

/* See fps_wire.h. */
void proto_fps_copy(struct proto_fps *dst, const struct proto_fps *src)
{
	proto_struct_copy(&proto_fps_desc, dst, src);
}

/* See fps_wire.h. */
void proto_fps_free(struct proto_fps *f)
{
	proto_struct_free(&proto_fps_desc, f);
}

/* Its row in the parts table (parts.h). */
const struct proto_part proto_part_fps = {
	PROTO_PART_PLACE(fps), .key = "fps", .ag_time = true, .desc = &proto_fps_desc,
};
