/*
 * fps_stats.c - frame-time statistics of one stream, fed one presentation
 * timestamp at a time by the reporter thread (no I/O, no clocks: the unit
 * tests drive it with made-up times).
 *
 * A frame time is the interval between two presentations of the stream, so
 * N frames give N-1 frame times.  Definitions (doc/protocol.md):
 *   jank     a frame time over the budget;
 *   dropped  per jank, the frames over budget rounded down:
 *            floor((t - budget) / budget);
 *   levels   normal <= budget < middle <= high_ns < high <= frozen_ns < frozen;
 *   pN       nearest rank over the window: the smallest frame time such that
 *            at least N% of the window's frame times are <= it;
 *   bins     frames per 100 ms of the monotonic clock.
 */
#include <stdlib.h>
#include <string.h>

#include "fps_int.h"

/* See fps.h. */
uint64_t fps_dropped(uint64_t ns, uint64_t budget_ns)
{
	if (budget_ns == 0 || ns <= budget_ns)
		return 0;
	return (ns - budget_ns) / budget_ns;
}

/* See fps.h. */
int fps_level(const struct fps_cfg *c, uint64_t ns)
{
	if (ns <= c->budget_ns)
		return PROTO_FPS_NORMAL;
	if (ns <= c->high_ns)
		return PROTO_FPS_MIDDLE;
	if (ns <= c->frozen_ns)
		return PROTO_FPS_HIGH;
	return PROTO_FPS_FROZEN;
}

/* See fps.h. */
uint64_t fps_percentile(const uint64_t *sorted, size_t n, unsigned p)
{
	size_t rank;

	if (n == 0)
		return 0;
	rank = ((size_t)p * n + 99) / 100;        /* ceil(p/100 * n) */
	return sorted[rank > 0 ? rank - 1 : 0];
}

/* Count a frame in its 100 ms bin, clearing bins skipped since the last. */
static void stats_bin(struct fps_stats *s, uint64_t t_ns, uint64_t n)
{
	uint64_t b = t_ns / PROTO_FPS_BIN_NS;

	if (b > s->bin_last) {
		uint64_t from = b - s->bin_last > FPS_RING_BINS ? b - FPS_RING_BINS : s->bin_last;

		for (uint64_t i = from + 1; i <= b; i++)
			s->bins[i % FPS_RING_BINS] = 0;
		s->bin_last = b;
	}
	if (s->bin_last - b >= FPS_RING_BINS)     /* older than the ring: not kept */
		return;
	s->bins[b % FPS_RING_BINS] += (uint32_t)n;
}

/* Keep the PROTO_FPS_WORST longest frame times, longest first. */
static void stats_worst(struct fps_stats *s, uint64_t ns, uint64_t at_ns)
{
	size_t i = s->nworst;

	if (i == PROTO_FPS_WORST) {
		if (ns <= s->worst[i - 1].ns)
			return;
		i--;
	} else {
		s->nworst++;
	}
	for (; i > 0 && s->worst[i - 1].ns < ns; i--)
		s->worst[i] = s->worst[i - 1];
	s->worst[i] = (struct proto_fps_worst){ .ns = ns, .at_ns = at_ns };
}

/* See fps.h. */
void fps_stats_frame(struct fps_stats *s, const struct fps_cfg *c, uint64_t t_ns)
{
	uint64_t ns;

	s->frames++;
	stats_bin(s, t_ns, 1);
	if (s->last_ns == 0 || t_ns < s->last_ns) {
		s->last_ns = t_ns;
		return;
	}
	ns = t_ns - s->last_ns;
	s->last_ns = t_ns;
	if (ns > c->budget_ns) {
		s->jank++;
		s->dropped += fps_dropped(ns, c->budget_ns);
	}
	s->levels[fps_level(c, ns)]++;
	stats_worst(s, ns, t_ns);
	s->win_at[s->win_head] = t_ns;
	s->win_ns[s->win_head] = ns;
	s->win_head = (s->win_head + 1) % FPS_WIN;
	if (s->win_n < FPS_WIN)
		s->win_n++;
}

/* See fps.h. */
void fps_stats_lost(struct fps_stats *s, uint64_t n, uint64_t t_ns)
{
	s->frames += n;
	s->lost += n;
	stats_bin(s, t_ns, n);
	s->last_ns = 0;
}

/* See fps.h: figures and history go; the interval in progress stays. */
void fps_stats_reset(struct fps_stats *s)
{
	uint64_t last = s->last_ns;

	memset(s, 0, sizeof *s);
	s->last_ns = last;
}

/* qsort order of frame times. */
static int stats_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentiles over the frame times of the last FPS_WIN_NS (at most FPS_WIN). */
static void stats_percentiles(const struct fps_stats *s, uint64_t now_ns,
    struct proto_fps_stream *out)
{
	uint64_t v[FPS_WIN];
	size_t n = 0;

	for (size_t k = 0; k < s->win_n; k++) {
		size_t i = (s->win_head + FPS_WIN - 1 - k) % FPS_WIN;

		if (s->win_at[i] + FPS_WIN_NS < now_ns)
			break;
		v[n++] = s->win_ns[i];
	}
	qsort(v, n, sizeof v[0], stats_cmp);
	out->window = n;
	out->p50_ns = fps_percentile(v, n, 50);
	out->p90_ns = fps_percentile(v, n, 90);
	out->p99_ns = fps_percentile(v, n, 99);
	out->max_ns = n ? v[n - 1] : 0;
}

/* See fps.h. */
void fps_stats_export(const struct fps_stats *s, uint64_t now_ns,
    struct proto_fps_stream *out, uint32_t *bins)
{
	uint64_t end = now_ns / PROTO_FPS_BIN_NS;         /* first incomplete bin */
	uint64_t sec = 0;

	out->frames = s->frames;
	out->jank = s->jank;
	out->dropped = s->dropped;
	out->lost = s->lost;
	memcpy(out->levels, s->levels, sizeof out->levels);
	out->nworst = s->nworst;
	memcpy(out->worst, s->worst, sizeof out->worst);
	stats_percentiles(s, now_ns, out);
	for (size_t k = 0; k < PROTO_FPS_BINS; k++) {
		uint64_t b = end - PROTO_FPS_BINS + k;     /* absolute bin index */
		bool kept = end >= PROTO_FPS_BINS - k && b <= s->bin_last &&
		    s->bin_last - b < FPS_RING_BINS;

		bins[k] = kept ? s->bins[b % FPS_RING_BINS] : 0;
		if (k >= PROTO_FPS_BINS - 1000000000ull / PROTO_FPS_BIN_NS)
			sec += bins[k];
	}
	out->fps = (double)sec;
	out->bins = bins;
	out->nbins = PROTO_FPS_BINS;
	out->bins_end_ns = end * PROTO_FPS_BIN_NS;
}
