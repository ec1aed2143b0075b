/*
 * report_fps.c - the frame-rate section of reports and metrics.
 *
 * Trace: each frame the daemon still has a time for is a slice "frame" on
 * its presenting thread, from the previous presentation to this one: the
 * recent frames of the stream (struct daemon_fps_ring, fps_ring.c) and its
 * worst frames; FPS is a counter from the 100 ms bins (frames in the bin
 * x 10, one value per bin).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "parts.h"

static void
fps_text(struct report_buf *b, const struct report_ctx *c)
{
	report_add_free(b, daemon_fps_report(c->s));
}

static void
fps_json(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_fps *f = &c->s->fps;
	static const char *const levels[PROTO_FPS_LEVELS] = {
		"normal", "middle", "high", "frozen",
	};

	rj_obj(j, NULL);
	rj_u64(j, "budget_ns", f->budget_ns);
	rj_u64(j, "high_ns", f->high_ns);
	rj_u64(j, "frozen_ns", f->frozen_ns);
	rj_arr(j, "streams");
	for (size_t i = 0; i < f->nstreams; i++) {
		const struct proto_fps_stream *t = &f->streams[i];

		rj_obj(j, NULL);
		rj_u64(j, "id", t->id);
		rj_i64(j, "tid", t->tid);
		rj_str(j, "api", t->api);
		rj_str(j, "name", t->name);
		rj_f64(j, "fps", t->fps);
		rj_u64(j, "frames", t->frames);
		rj_u64(j, "jank", t->jank);
		rj_u64(j, "dropped", t->dropped);
		rj_u64(j, "lost", t->lost);
		rj_obj(j, "levels");
		for (int k = 0; k < PROTO_FPS_LEVELS; k++)
			rj_u64(j, levels[k], t->levels[k]);
		rj_end_obj(j);
		rj_u64(j, "window", t->window);
		rj_u64(j, "p50_ns", t->p50_ns);
		rj_u64(j, "p90_ns", t->p90_ns);
		rj_u64(j, "p99_ns", t->p99_ns);
		rj_u64(j, "max_ns", t->max_ns);
		rj_arr(j, "worst");
		for (size_t k = 0; k < t->nworst; k++)
			proto_struct_json(j, NULL, &proto_fps_worst_desc, &t->worst[k]);
		rj_end_arr(j);
		rj_u64(j, "bin_ns", PROTO_FPS_BIN_NS);
		rj_u64(j, "bins_end_ns", t->bins_end_ns);
		rj_arr(j, "bins");
		for (size_t k = 0; k < t->nbins; k++)
			rj_u64(j, NULL, t->bins[k]);
		rj_end_arr(j);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_end_obj(j);
}

/* One frame slice: it ended at end_ns after ns. */
static void
fps_trace_frame(struct report_json *j, const struct report_ctx *c,
    const struct proto_fps_stream *t, uint64_t end_ns, uint64_t ns, bool jank)
{
	if (ns > end_ns)
		return;
	report_trace_event(j, "X", jank ? "frame (jank)" : "frame", "fps", c->s->pid,
	    t->tid, end_ns - ns);
	rj_us(j, "dur", ns);
	rj_obj(j, "args");
	rj_str(j, "stream", t->name);
	rj_f64(j, "ms", (double)ns / 1e6);
	rj_end_obj(j);
	rj_end_obj(j);
}

/* Frames as slices, FPS as a counter per stream. */
static void
fps_trace(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_fps *f = &c->s->fps;
	const struct daemon_fps_ring *ring;
	char counter[96];

	for (size_t i = 0; i < f->nstreams; i++) {
		const struct proto_fps_stream *t = &f->streams[i];
		uint64_t oldest = UINT64_MAX;

		if ((ring = daemon_fps_ring_of(c->s, t->id)) != NULL) {
			for (size_t k = 0; k < ring->n; k++) {
				size_t at = (ring->head + DAEMON_FPS_RING - ring->n + k) % DAEMON_FPS_RING;

				fps_trace_frame(j, c, t, ring->end_ns[at], ring->ns[at],
				    ring->ns[at] > f->budget_ns);
				if (ring->end_ns[at] < oldest)
					oldest = ring->end_ns[at];
			}
		}
		/* Worst frames older than the ring's. */
		for (size_t k = 0; k < t->nworst; k++)
			if (t->worst[k].at_ns < oldest)
				fps_trace_frame(j, c, t, t->worst[k].at_ns, t->worst[k].ns, true);
		snprintf(counter, sizeof counter, "FPS %s", t->name);
		for (size_t k = 0; k < t->nbins; k++) {
			uint64_t back = (uint64_t)(t->nbins - k) * PROTO_FPS_BIN_NS;

			if (t->bins_end_ns < back)
				continue;
			report_trace_event(j, "C", counter, "fps", c->s->pid, t->tid,
			    t->bins_end_ns - back);
			rj_obj(j, "args");
			rj_u64(j, "fps", (uint64_t)t->bins[k] * (1000000000ull / PROTO_FPS_BIN_NS));
			rj_end_obj(j);
			rj_end_obj(j);
		}
	}
}

/* Labels stream and api, then the value of one stream figure. */
static void
fps_metric_each(struct report_metrics *m, const struct report_ctx *c, int what)
{
	const struct proto_fps *f = &c->s->fps;

	for (size_t i = 0; i < f->nstreams; i++) {
		const struct proto_fps_stream *t = &f->streams[i];
		static const char *const pct[] = { "50", "90", "99", "100" };
		const uint64_t pv[] = { t->p50_ns, t->p90_ns, t->p99_ns, t->max_ns };
		double v = what == 0 ? t->fps : what == 1 ? (double)t->frames :
		    what == 2 ? (double)t->jank : (double)t->dropped;

		if (what == 4) {
			for (int k = 0; k < 4; k++)
				report_metric(m, (double)pv[k] / 1e9, "stream", t->name,
				    "api", t->api, "percentile", pct[k], NULL);
			continue;
		}
		report_metric(m, v, "stream", t->name, "api", t->api, NULL);
	}
}

static void fps_m_fps(struct report_metrics *m, const struct report_ctx *c) { fps_metric_each(m, c, 0); }
static void fps_m_frames(struct report_metrics *m, const struct report_ctx *c) { fps_metric_each(m, c, 1); }
static void fps_m_jank(struct report_metrics *m, const struct report_ctx *c) { fps_metric_each(m, c, 2); }
static void fps_m_dropped(struct report_metrics *m, const struct report_ctx *c) { fps_metric_each(m, c, 3); }
static void fps_m_time(struct report_metrics *m, const struct report_ctx *c) { fps_metric_each(m, c, 4); }

static const struct report_metric_family fps_metrics[] = {
	{ "hookscope_fps", "gauge",
	  "Frames presented in the last complete second, per stream.", fps_m_fps },
	{ "hookscope_frames_total", "counter",
	  "Frames presented since start or reset.", fps_m_frames },
	{ "hookscope_jank_frames_total", "counter",
	  "Frame times over the frame budget.", fps_m_jank },
	{ "hookscope_dropped_frames_total", "counter",
	  "Estimated frames dropped (floor((t - budget) / budget) per jank).", fps_m_dropped },
	{ "hookscope_frame_time_seconds", "gauge",
	  "Frame time percentile over the last 5 s (100 = the longest).", fps_m_time },
};

const struct report_section report_section_fps = {
	.name = "fps",
	.text = fps_text,
	.json = fps_json,
	.trace = fps_trace,
	.metrics = fps_metrics,
	.nmetrics = sizeof fps_metrics / sizeof fps_metrics[0],
};
