/*
 * fps.c - the frame-rate state of a session: the agent's "fps" records
 * replace streams by id (their figures are cumulative or absolute, like
 * every agent figure), frames carry them as they are, the report prints
 * them, and --refresh HZ gives every agent its frame budget on connect.
 *
 * A stream's worst frames come with the agent's monotonic time; the daemon
 * runs on the same machine, so it turns them into wall-clock ms on receipt.
 * Streams are kept sorted by current FPS (the busiest first: the TUI shows
 * the first one large), at most PROTO_MAX_STREAMS (the least recently
 * active one makes room).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "daemon_collector.h"
#include "report.h"
#include "issue.h"

/* Free one stream's heap parts. */
static void
fps_stream_free(struct proto_fps_stream *s)
{
	free(s->api);
	free(s->name);
	free(s->bins);
}

/* The slot for stream id: its old place, a free one, or the stalest. */
static struct proto_fps_stream *
fps_slot(struct proto_fps *f, uint32_t id)
{
	size_t old = 0;

	for (size_t i = 0; i < f->nstreams; i++)
		if (f->streams[i].id == id)
			return &f->streams[i];
	if (f->nstreams < PROTO_MAX_STREAMS) {
		f->streams = xrealloc(f->streams, (f->nstreams + 1) * sizeof *f->streams);
		memset(&f->streams[f->nstreams], 0, sizeof *f->streams);
		return &f->streams[f->nstreams++];
	}
	for (size_t i = 1; i < f->nstreams; i++)
		if (f->streams[i].bins_end_ns < f->streams[old].bins_end_ns)
			old = i;
	return &f->streams[old];
}

/* Busiest first; ties by id, so the order is stable. */
static int
fps_cmp(const void *a, const void *b)
{
	const struct proto_fps_stream *x = a, *y = b;

	if (x->fps != y->fps)
		return x->fps > y->fps ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* See daemon.h. */
void
daemon_session_fps(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns)
{
	struct proto_fps one = { .nstreams = 1 };
	uint64_t wall = proto_wall_ms();

	s->fps.budget_ns = r->fps.budget_ns;
	s->fps.high_ns = r->fps.high_ns;
	s->fps.frozen_ns = r->fps.frozen_ns;
	for (size_t i = 0; i < r->fps.nstreams; i++) {
		struct proto_fps_stream *d = fps_slot(&s->fps, r->fps.streams[i].id);
		struct proto_fps copy;

		fps_stream_free(d);
		one.streams = &r->fps.streams[i];
		proto_fps_copy(&copy, &one);
		*d = copy.streams[0];
		free(copy.streams);
		daemon_fps_ring_add(s, d);
		for (size_t k = 0; k < d->nworst; k++) {
			uint64_t ago = now_ns > d->worst[k].at_ns ? now_ns - d->worst[k].at_ns : 0;

			d->worst[k].time_ms = wall > ago / 1000000 ? wall - ago / 1000000 : 0;
		}
	}
	qsort(s->fps.streams, s->fps.nstreams, sizeof *s->fps.streams, fps_cmp);
}

/* See daemon.h: the agent sends its zeroed streams again. */
void
daemon_session_fps_reset(struct daemon_session *s)
{
	uint64_t budget = s->fps.budget_ns, high = s->fps.high_ns, frozen = s->fps.frozen_ns;

	proto_fps_free(&s->fps);
	daemon_fps_rings_free(s);
	s->fps.budget_ns = budget;
	s->fps.high_ns = high;
	s->fps.frozen_ns = frozen;
}

/* See daemon.h. */
void
daemon_fps_greet(struct daemon_agent *a, double refresh_hz)
{
	struct proto_agent_rec r = { .type = PROTO_AG_THRESHOLD, .name = "frame" };

	if (refresh_hz <= 0)
		return;
	r.value = (int64_t)(1e9 / refresh_hz + 0.5);
	if (daemon_agent_send(a, &r) < 0)
		daemon_log(DLOG_WARN, "could not send the frame budget of --refresh %g "
		    "to an agent", refresh_hz);
}

/* "16.67 ms" */
static const char *
fps_ms(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	return buf;
}

/* See daemon.h: local time of day with ms of a wall-clock ms value. */
const char *
daemon_clock_ms(char *buf, size_t len, uint64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char hms[24];

	if (localtime_r(&t, &tm) == NULL || strftime(hms, sizeof hms, "%H:%M:%S", &tm) == 0)
		snprintf(hms, sizeof hms, "%" PRIu64, ms / 1000);
	snprintf(buf, len, "%s.%03u", hms, (unsigned)(ms % 1000));
	return buf;
}

/* See daemon.h: the report's FPS section, one paragraph per stream. */
char *
daemon_fps_report(const struct daemon_session *s)
{
	const struct proto_fps *f = &s->fps;
	char *out = NULL, b[4][48];
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (m == NULL)
		return xstrdup("frame rate: (out of memory)\n");
	fprintf(m, "frame rate\n\n");
	if (f->nstreams == 0)
		fprintf(m, "(no frames presented)\n");
	else
		fprintf(m, "budget %s (%.2f Hz); levels: normal <= budget < middle <= %s "
		    "< high <= %s < frozen\n", fps_ms(b[0], sizeof b[0], f->budget_ns),
		    f->budget_ns ? 1e9 / (double)f->budget_ns : 0.0,
		    fps_ms(b[1], sizeof b[1], f->high_ns), fps_ms(b[2], sizeof b[2], f->frozen_ns));
	for (size_t i = 0; i < f->nstreams; i++) {
		const struct proto_fps_stream *t = &f->streams[i];

		fprintf(m, "\nstream %u: %s %s, thread %d\n", t->id, t->api, t->name, (int)t->tid);
		fprintf(m, "  fps (last second) %.0f   frames %" PRIu64 "   jank %" PRIu64
		    "   dropped (estimate) %" PRIu64 "   lost %" PRIu64 "\n", t->fps, t->frames,
		    t->jank, t->dropped, t->lost);
		fprintf(m, "  levels   normal %" PRIu64 "   middle %" PRIu64 "   high %" PRIu64
		    "   frozen %" PRIu64 "\n", t->levels[PROTO_FPS_NORMAL],
		    t->levels[PROTO_FPS_MIDDLE], t->levels[PROTO_FPS_HIGH],
		    t->levels[PROTO_FPS_FROZEN]);
		fprintf(m, "  frame time over the last %" PRIu64 " frames (5 s at most): "
		    "p50 %s  p90 %s  p99 %s  max %s\n", t->window,
		    fps_ms(b[0], sizeof b[0], t->p50_ns), fps_ms(b[1], sizeof b[1], t->p90_ns),
		    fps_ms(b[2], sizeof b[2], t->p99_ns), fps_ms(b[3], sizeof b[3], t->max_ns));
		for (size_t k = 0; k < t->nworst; k++)
			fprintf(m, "  worst %zu: %s at %s\n", k + 1,
			    fps_ms(b[0], sizeof b[0], t->worst[k].ns),
			    daemon_clock_ms(b[1], sizeof b[1], t->worst[k].time_ms));
	}
	fprintf(m, "\n");
	fclose(m);
	return out;
}

static void
fps_reset(struct daemon_session *s, uint64_t now_ns)
{
	(void)now_ns;
	daemon_session_fps_reset(s);
}

/* The longest kept frame of t in [lo, hi), else lo. */
static uint64_t
fps_worst_in(const struct proto_fps_stream *t, uint64_t lo, uint64_t hi)
{
	uint64_t v = lo;

	for (size_t k = 0; k < t->nworst; k++)
		if (t->worst[k].ns >= lo && (hi == 0 || t->worst[k].ns < hi) && t->worst[k].ns > v)
			v = t->worst[k].ns;
	return v;
}

/* A stream's frames past the high level are "janky-frames", past the
 * frozen level "frozen-frame"; the level's count is the occurrence count. */
static void
fps_detect(struct daemon_session *s, uint64_t now_ns)
{
	const struct proto_fps *f = &s->fps;

	for (size_t i = 0; i < f->nstreams; i++) {
		const struct proto_fps_stream *t = &f->streams[i];

		for (int frozen = 0; frozen < 2; frozen++) {
			uint64_t n = t->levels[frozen ? PROTO_FPS_FROZEN : PROTO_FPS_HIGH];
			uint64_t thr = frozen ? f->frozen_ns : f->high_ns;
			uint64_t v = fps_worst_in(t, thr, frozen ? 0 : f->frozen_ns);
			char where[256], title[512], thread[24];

			if (n == 0 || thr == 0)
				continue;
			snprintf(where, sizeof where, "%s %s", t->api, t->name);
			snprintf(title, sizeof title, "%s on %s: %" PRIu64 " frame%s longer than "
			    "%.0f ms (worst %.0f ms)", frozen ? "frozen frames" : "janky frames",
			    where, n, n == 1 ? "" : "s", (double)thr / 1e6, (double)v / 1e6);
			snprintf(thread, sizeof thread, "%d", (int)t->tid);
			const struct proto_issue_fig figs[] = {
				{ "frame", (double)v, "ns" },
				{ "frames_over", (double)n, "count" },
				{ "frames", (double)t->frames, "count" },
				{ "budget", (double)f->budget_ns, "ns" },
				{ "p99", (double)t->p99_ns, "ns" },
			};
			const struct daemon_issue_in in = {
				.type = frozen ? "frozen-frame" : "janky-frames", .where = where,
				.title = title, .value = v, .threshold = thr, .unit = "ns", .occ = n,
				.cumulative = true, .tid = t->tid, .figs = figs, .nfigs = 5,
			};
			daemon_issue_raise(s, &in, now_ns);
		}
	}
}

static void
fps_free(struct daemon_session *s)
{
	proto_fps_free(&s->fps);
	daemon_fps_rings_free(s);
}

static void
fps_frame(struct daemon_session *s, struct proto_frame *f)
{
	f->fps = s->fps;
}

static const struct daemon_threshold fps_thresholds[] = {
	{ .name = "frame", .unit = "ms", .ns_per_unit = 1e6, .min = 0.1, .max = 10e3,
	  .help = "frame budget: longer frames are jank" },
	{ .name = "frame_ms", .agent = "frame", .unit = "ms", .ns_per_unit = 1e6,
	  .min = 0.1, .max = 10e3, .help = "same as frame" },
	{ .name = "frame_high", .unit = "ms", .ns_per_unit = 1e6, .min = 0.1, .max = 3600e3,
	  .help = "frames longer are level high, not middle" },
	{ .name = "frame_frozen", .unit = "ms", .ns_per_unit = 1e6, .min = 0.1, .max = 3600e3,
	  .help = "frames longer are level frozen" },
};

extern const struct report_section report_section_fps;   /* report_fps.c */

const struct daemon_collector daemon_collector_fps = {
	.name = "fps",
	.part = &proto_part_fps,
	.on_record = daemon_session_fps,
	.reset = fps_reset,
	.detect = fps_detect,
	.free = fps_free,
	.fill_frame = fps_frame,
	.report = &report_section_fps,
	.thresholds = fps_thresholds,
	.nthresholds = sizeof fps_thresholds / sizeof fps_thresholds[0],
};
