/*
 * test-fps-stats.c - the frame-time math of collectors/fps/fps_stats.c with
 * made-up presentation times: dropped-frame estimate (frames over budget
 * rounded down), histogram levels and their boundaries, nearest-rank
 * percentiles, the worst frames, the 100 ms bins and the FPS of the last
 * complete second, lost frames, reset; and the "fps" map through the
 * protocol encoder and decoder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fps_int.h"

#define MS 1000000ull

static const struct fps_cfg cfg60 = {
	.budget_ns = FPS_BUDGET_NS, .high_ns = FPS_HIGH_NS, .frozen_ns = FPS_FROZEN_NS,
};

/* A zeroed statistics block (big: on the heap). */
static struct fps_stats *stats_new(void)
{
	return calloc(1, sizeof(struct fps_stats));
}

/* Dropped = floor((t - budget) / budget) for t over budget, else 0. */
static void test_dropped(void **state)
{
	(void)state;
	assert_int_equal(fps_dropped(0, FPS_BUDGET_NS), 0);
	assert_int_equal(fps_dropped(FPS_BUDGET_NS, FPS_BUDGET_NS), 0);
	assert_int_equal(fps_dropped(FPS_BUDGET_NS + 1, FPS_BUDGET_NS), 0);
	assert_int_equal(fps_dropped(2 * FPS_BUDGET_NS - 1, FPS_BUDGET_NS), 0);
	assert_int_equal(fps_dropped(2 * FPS_BUDGET_NS, FPS_BUDGET_NS), 1);
	assert_int_equal(fps_dropped(50 * MS, FPS_BUDGET_NS), 1);  /* 2.99999994 budgets */
	assert_int_equal(fps_dropped(60 * MS, FPS_BUDGET_NS), 2);
	assert_int_equal(fps_dropped(75 * MS, FPS_BUDGET_NS), 3);
	assert_int_equal(fps_dropped(1000 * MS, FPS_BUDGET_NS), 58);
	assert_int_equal(fps_dropped(10 * MS, 0), 0);              /* no budget: none */
}

/* Levels: normal <= budget < middle <= high < high level <= frozen < frozen. */
static void test_levels(void **state)
{
	(void)state;
	assert_int_equal(fps_level(&cfg60, 1), PROTO_FPS_NORMAL);
	assert_int_equal(fps_level(&cfg60, FPS_BUDGET_NS), PROTO_FPS_NORMAL);
	assert_int_equal(fps_level(&cfg60, FPS_BUDGET_NS + 1), PROTO_FPS_MIDDLE);
	assert_int_equal(fps_level(&cfg60, FPS_HIGH_NS), PROTO_FPS_MIDDLE);
	assert_int_equal(fps_level(&cfg60, FPS_HIGH_NS + 1), PROTO_FPS_HIGH);
	assert_int_equal(fps_level(&cfg60, FPS_FROZEN_NS), PROTO_FPS_HIGH);
	assert_int_equal(fps_level(&cfg60, FPS_FROZEN_NS + 1), PROTO_FPS_FROZEN);
}

/* Nearest rank: the smallest value with at least p% of values <= it. */
static void test_percentile(void **state)
{
	uint64_t v[100];

	(void)state;
	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)i + 1;           /* 1..100 */
	assert_int_equal(fps_percentile(v, 100, 50), 50);
	assert_int_equal(fps_percentile(v, 100, 90), 90);
	assert_int_equal(fps_percentile(v, 100, 99), 99);
	assert_int_equal(fps_percentile(v, 100, 100), 100);
	assert_int_equal(fps_percentile(v, 1, 50), 1);
	assert_int_equal(fps_percentile(v, 3, 50), 2);  /* ceil(1.5) = 2nd */
	assert_int_equal(fps_percentile(v, 3, 99), 3);
	assert_int_equal(fps_percentile(v, 10, 90), 9);
	assert_int_equal(fps_percentile(v, 10, 99), 10);
	assert_int_equal(fps_percentile(v, 0, 50), 0);
}

/* The pattern: 60 per second, every 30th frame 50 ms.  Frame
 * times of exactly 1000/60 ms are at the budget (not over it). */
static void test_pattern(void **state)
{
	struct fps_stats *s = stats_new();
	struct proto_fps_stream out;
	uint32_t bins[PROTO_FPS_BINS];
	uint64_t t = 1000 * 1000 * MS, start = t;   /* t = 1000 s, a bin boundary */

	(void)state;
	for (int i = 0; i < 151; i++) {
		if (i > 0)
			t += i % 30 == 0 ? 50 * MS + 100000 : FPS_BUDGET_NS;
		fps_stats_frame(s, &cfg60, t);
	}
	assert_int_equal(s->frames, 151);
	assert_int_equal(s->jank, 5);
	assert_int_equal(s->dropped, 10);           /* floor(33.43 / 16.67) = 2 each */
	assert_int_equal(s->levels[PROTO_FPS_NORMAL], 145);
	assert_int_equal(s->levels[PROTO_FPS_MIDDLE], 0);
	assert_int_equal(s->levels[PROTO_FPS_HIGH], 5);
	assert_int_equal(s->nworst, PROTO_FPS_WORST);
	assert_int_equal(s->worst[0].ns, 50 * MS + 100000);
	memset(&out, 0, sizeof out);
	fps_stats_export(s, t + 2000 * MS, &out, bins);
	assert_int_equal(out.nbins, PROTO_FPS_BINS);
	{
		uint64_t sum = 0;

		for (size_t i = 0; i < out.nbins; i++)
			sum += bins[i];
		assert_int_equal(sum, 151);
	}
	/* 2 s after the last frame the last second is empty; the window
	 * (5 s) still holds the 150 frame times (2.67 s of them). */
	assert_true(out.fps == 0);
	assert_int_equal(out.window, 150);
	assert_int_equal(out.p50_ns, FPS_BUDGET_NS);
	assert_int_equal(out.p90_ns, FPS_BUDGET_NS);
	assert_int_equal(out.p99_ns, 50 * MS + 100000);   /* 5 of 150 are slow */
	assert_int_equal(out.max_ns, 50 * MS + 100000);
	assert_int_equal(out.bins_end_ns, (t + 2000 * MS) / PROTO_FPS_BIN_NS * PROTO_FPS_BIN_NS);
	/* Equal times keep their order: the 5th is the last slow frame. */
	assert_int_equal(out.worst[4].at_ns, start + 145 * FPS_BUDGET_NS + 5 * (50 * MS + 100000));
	assert_int_equal(out.worst[0].at_ns, start + 29 * FPS_BUDGET_NS + 50 * MS + 100000);
	free(s);
}

/* Bins: frames per 100 ms; the last complete second gives the FPS. */
static void test_bins_fps(void **state)
{
	struct fps_stats *s = stats_new();
	struct proto_fps_stream out;
	uint32_t bins[PROTO_FPS_BINS];
	uint64_t t0 = 500 * 1000 * MS;               /* a bin boundary */

	(void)state;
	/* 10 ms apart for 3 s, starting 5 ms into a bin: 10 per bin. */
	for (int i = 0; i < 300; i++)
		fps_stats_frame(s, &cfg60, t0 + 5 * MS + (uint64_t)i * 10 * MS);
	memset(&out, 0, sizeof out);
	fps_stats_export(s, t0 + 2000 * MS + 50 * MS, &out, bins);
	assert_true(out.fps == 100);                  /* bins 1.0 .. 2.0 s */
	assert_int_equal(bins[PROTO_FPS_BINS - 1], 10);
	assert_int_equal(bins[PROTO_FPS_BINS - 21], 0);   /* before t0 */
	assert_int_equal(bins[PROTO_FPS_BINS - 20], 10);  /* [t0, t0 + 100 ms) */
	/* A minute later the history is empty. */
	fps_stats_export(s, t0 + 70000 * MS, &out, bins);
	assert_true(out.fps == 0);
	for (size_t i = 0; i < PROTO_FPS_BINS; i++)
		assert_int_equal(bins[i], 0);
	assert_int_equal(out.window, 0);
	free(s);
}

/* Window: at most FPS_WIN frame times, none older than FPS_WIN_NS. */
static void test_window(void **state)
{
	struct fps_stats *s = stats_new();
	struct proto_fps_stream out;
	uint32_t bins[PROTO_FPS_BINS];
	uint64_t t = 100 * 1000 * MS;

	(void)state;
	fps_stats_frame(s, &cfg60, t);
	for (int i = 0; i < FPS_WIN + 100; i++)
		fps_stats_frame(s, &cfg60, t += i == 0 ? 40 * MS : 1 * MS);
	memset(&out, 0, sizeof out);
	fps_stats_export(s, t, &out, bins);
	assert_int_equal(out.window, FPS_WIN);        /* capped by count */
	assert_int_equal(out.max_ns, 1 * MS);         /* the 40 ms ones fell out */
	assert_int_equal(s->worst[0].ns, 40 * MS);    /* worst frames are cumulative */
	fps_stats_export(s, t + FPS_WIN_NS - 1000 * MS, &out, bins);
	assert_int_equal(out.window, 1001);           /* capped by age: the last second */
	free(s);
}

/* Lost frames count but do not make a frame time; reset keeps the interval. */
static void test_lost_reset(void **state)
{
	struct fps_stats *s = stats_new();
	uint64_t t = 10 * 1000 * MS;

	(void)state;
	fps_stats_frame(s, &cfg60, t);
	fps_stats_lost(s, 50, t + 500 * MS);
	fps_stats_frame(s, &cfg60, t + 500 * MS);
	fps_stats_frame(s, &cfg60, t + 510 * MS);
	assert_int_equal(s->frames, 53);
	assert_int_equal(s->lost, 50);
	assert_int_equal(s->jank, 0);                 /* the 500 ms gap is not a frame time */
	assert_int_equal(s->levels[PROTO_FPS_NORMAL], 1);
	fps_stats_reset(s);
	assert_int_equal(s->frames, 0);
	fps_stats_frame(s, &cfg60, t + 540 * MS);
	assert_int_equal(s->jank, 1);                 /* 30 ms since the last frame */
	assert_int_equal(s->levels[PROTO_FPS_MIDDLE], 1);
	free(s);
}

/* The "fps" map survives the wire: agent record encode and decode. */
static void test_wire(void **state)
{
	uint32_t bins[3] = { 1, 0, 70000 };
	struct proto_fps_stream st = {
		.id = 7, .tid = 1234, .api = "glx", .name = "0x400001", .frames = 99,
		.jank = 3, .dropped = 5, .lost = 1, .levels = { 90, 1, 2, 3 }, .fps = 59,
		.p50_ns = 16, .p90_ns = 17, .p99_ns = 18, .max_ns = 19, .window = 98,
		.nworst = 1, .worst = { { .ns = 800 * MS, .at_ns = 42 } },
		.bins_end_ns = 12300000000ull, .nbins = 3, .bins = bins,
	};
	struct proto_agent_rec in = { .type = PROTO_AG_FPS, .time_ns = 5,
		.fps = { .budget_ns = 1, .high_ns = 2, .frozen_ns = 3, .nstreams = 1,
		.streams = &st } }, out;
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN];

	(void)state;
	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, &in);
	assert_int_equal(proto_agent_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR,
	    &out, err, sizeof err), 0);
	assert_int_equal(out.type, PROTO_AG_FPS);
	assert_int_equal(out.fps.frozen_ns, 3);
	assert_int_equal(out.fps.nstreams, 1);
	assert_string_equal(out.fps.streams[0].api, "glx");
	assert_int_equal(out.fps.streams[0].tid, 1234);
	assert_int_equal(out.fps.streams[0].levels[PROTO_FPS_FROZEN], 3);
	assert_int_equal(out.fps.streams[0].worst[0].ns, 800 * MS);
	assert_int_equal(out.fps.streams[0].nbins, 3);
	assert_int_equal(out.fps.streams[0].bins[2], 70000);
	assert_true(out.fps.streams[0].fps == 59);
	proto_agent_rec_free(&out);
	msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_bins_fps),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_lost_reset),
		cmocka_unit_test(test_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
