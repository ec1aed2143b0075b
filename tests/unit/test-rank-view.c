/*
 * test-rank-view.c - rankings shared between views (daemon/rank_view.c):
 * clients with the same view get identical rows from one ranking, clients
 * with different views get their own, a change to the session (a record, a
 * reset, a rate-decaying tick) is in the next frame, and however many views
 * are asked for, each gets what daemon_rank gives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "session-util.h"
#include "rank.h"

#define NF 300

/* NF named functions whose figures order differently under each key. */
static struct daemon_session *
big_session(void)
{
	struct daemon_session *s = live_session(1 * S);
	struct proto_ag_func f[NF];
	char nm[32];

	for (size_t i = 0; i < NF; i++) {
		snprintf(nm, sizeof nm, "fn_%03zu%s", i, i % 7 == 0 ? "_hot" : "");
		name(s, 0x1000 + 16 * i, nm, "/bin/app");
		f[i] = (struct proto_ag_func){ .addr = 0x1000 + 16 * i,
			.calls = 1 + (i * 37) % 101, .total_ns = 1000 + (i * 7919) % 4093,
			.self_ns = 500 + (i * 104729) % 2039, .max_ns = (i * 31) % 97,
			.slow = i % 5 };
	}
	feed(s, 1 * S, NF, f);
	for (size_t i = 0; i < NF; i++)
		f[i].calls += (i * 13) % 50;
	feed(s, 2 * S, NF, f);           /* rates over one second */
	return s;
}

/* The frames of clients c[0..n) of one daemon over session s, decoded. */
static void
frames_for(struct daemon_session *s, struct daemon_client *c, size_t n,
    struct proto_server_msg *m)
{
	struct daemon_opts o = { .top = 50 };
	struct daemon_state d = { .opts = &o, .sessions = { .v = &s, .n = 1 } };
	char err[PROTO_ERR_LEN];

	for (size_t i = 0; i < n; i++) {
		msgpack_sbuffer sb;

		c[i].d = &d;
		msgpack_sbuffer_init(&sb);
		daemon_frame_encode(&d, &c[i], &sb);
		memset(&m[i], 0, sizeof m[i]);
		assert_int_equal(proto_decode_server(sb.data, sb.size, &m[i], err, sizeof err), 0);
		assert_int_equal(m[i].type, PROTO_MSG_FRAME);
		msgpack_sbuffer_destroy(&sb);
		c[i].d = NULL;
	}
}

/* Every row figure, name included. */
static bool
rows_equal(const struct proto_frame *a, const struct proto_frame *b)
{
	if (a->nfuncs != b->nfuncs || a->calls_total != b->calls_total ||
	    a->self_total_ns != b->self_total_ns)
		return false;
	for (size_t i = 0; i < a->nfuncs; i++) {
		const struct proto_func *x = &a->funcs[i], *y = &b->funcs[i];

		if (x->addr != y->addr || strcmp(x->name, y->name) != 0 ||
		    x->calls != y->calls || x->calls_per_s != y->calls_per_s ||
		    x->total_ns != y->total_ns || x->self_ns != y->self_ns ||
		    x->max_ns != y->max_ns || x->slow != y->slow || x->share != y->share)
			return false;
	}
	return true;
}

/* The frame's rows are daemon_rank's, computed afresh. */
static void
assert_rows_are_rank(struct daemon_session *s, const struct daemon_view *v,
    const struct proto_frame *f)
{
	struct daemon_func *rows[NF];
	struct daemon_totals tot;
	size_t n = daemon_rank(s, v->sort, v->filter, rows, v->top, &tot);

	assert_int_equal(f->nfuncs, n);
	assert_int_equal(f->calls_total, tot.calls);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(f->funcs[i].addr, rows[i]->addr);
		assert_int_equal(f->funcs[i].calls, rows[i]->calls);
	}
}

static void
frames_free(struct proto_server_msg *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		proto_server_msg_free(&m[i]);
}

/* Two clients with the same view: identical rows, from one ranking. */
static void
test_same_view_same_rows(void **state)
{
	struct daemon_session *s = big_session();
	struct daemon_client c[2] = {
		{ .view = { .sort = PROTO_RANK_SELF, .top = 20 } },
		{ .view = { .sort = PROTO_RANK_SELF, .top = 20 } },
	};
	struct proto_server_msg m[2];
	struct daemon_func *const *r1, *const *r2;
	struct daemon_totals t1, t2;
	size_t n1, n2;

	(void)state;
	frames_for(s, c, 2, m);
	assert_int_equal(m[0].frame.nfuncs, 20);
	assert_true(rows_equal(&m[0].frame, &m[1].frame));
	assert_rows_are_rank(s, &c[0].view, &m[0].frame);
	assert_int_equal(m[0].frame.seq, 1);      /* per-client fields stay per client */
	assert_int_equal(m[1].frame.seq, 1);
	frames_free(m, 2);
	/* Within one state of the session the second asker gets the first
	 * one's rows, not a ranking of its own. */
	n1 = daemon_rank_view(s, PROTO_RANK_SELF, NULL, 20, &r1, &t1);
	n2 = daemon_rank_view(s, PROTO_RANK_SELF, "", 20, &r2, &t2);
	assert_int_equal(n1, 20);
	assert_int_equal(n2, 20);
	assert_ptr_equal(r1, r2);
	assert_memory_equal(&t1, &t2, sizeof t1);
	/* A smaller top N of the same view is the first N of those rows. */
	n2 = daemon_rank_view(s, PROTO_RANK_SELF, NULL, 5, &r2, NULL);
	assert_int_equal(n2, 5);
	assert_ptr_equal(r1, r2);
	daemon_session_free(s);
}

/* Different sort keys, filters and tops: each its own rows. */
static void
test_different_views_differ(void **state)
{
	struct daemon_session *s = big_session();
	struct daemon_client c[4] = {
		{ .view = { .sort = PROTO_RANK_SELF, .top = 20 } },
		{ .view = { .sort = PROTO_RANK_CALLS, .top = 20 } },
		{ .view = { .sort = PROTO_RANK_SELF, .top = 20, .filter = (char *)"hot" } },
		{ .view = { .sort = PROTO_RANK_SELF, .top = 7 } },
	};
	struct proto_server_msg m[4];

	(void)state;
	frames_for(s, c, 4, m);
	for (size_t i = 0; i < 4; i++)
		assert_rows_are_rank(s, &c[i].view, &m[i].frame);
	assert_false(rows_equal(&m[0].frame, &m[1].frame));
	assert_false(rows_equal(&m[0].frame, &m[2].frame));
	for (size_t i = 0; i < m[2].frame.nfuncs; i++)
		assert_non_null(strstr(m[2].frame.funcs[i].name, "_hot"));
	assert_int_equal(m[3].frame.nfuncs, 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(m[3].frame.funcs[i].addr, m[0].frame.funcs[i].addr);
	assert_string_equal(m[1].frame.sort, "calls");
	frames_free(m, 4);
	daemon_session_free(s);
}

/* A record, a syms record, a reset and a rate-decaying tick are each seen
 * by the next frame of a view that was already ranked. */
static void
test_change_seen_next_frame(void **state)
{
	struct daemon_session *s = big_session();
	struct daemon_client c[2] = {
		{ .view = { .sort = PROTO_RANK_CALLS, .top = 10 } },
		{ .view = { .sort = PROTO_RANK_RATE, .top = 10 } },
	};
	struct proto_server_msg m[2];
	uint64_t last = 0x1000 + 16 * (NF - 1);
	struct daemon_func *const *rows;
	size_t n;

	(void)state;
	frames_for(s, c, 2, m);
	assert_int_not_equal(m[0].frame.funcs[0].addr, last);
	frames_free(m, 2);
	/* The last function jumps to the top. */
	feed1(s, 2 * S + 200 * MS, last, 1000000);
	frames_for(s, c, 2, m);
	assert_int_equal(m[0].frame.funcs[0].addr, last);
	assert_int_equal(m[0].frame.funcs[0].calls, 1000000);
	assert_int_equal(m[1].frame.funcs[0].addr, last);   /* and its rate */
	assert_rows_are_rank(s, &c[0].view, &m[0].frame);
	frames_free(m, 2);
	/* Renamed: a filter on the new name finds it. */
	n = daemon_rank_view(s, PROTO_RANK_CALLS, "renamed", 10, &rows, NULL);
	assert_int_equal(n, 0);
	name(s, last, "renamed_fn", "/bin/app");
	n = daemon_rank_view(s, PROTO_RANK_CALLS, "renamed", 10, &rows, NULL);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0]->addr, last);
	/* Rates decay once the agent stops reporting (ticks). */
	n = daemon_rank_view(s, PROTO_RANK_RATE, NULL, 1, &rows, NULL);
	assert_int_equal(n, 1);
	assert_true(rows[0]->rate > 0);
	daemon_session_detach(s, false);
	{
		/* frames tick on the real clock: go on from it */
		uint64_t t = proto_now_ns();

		daemon_session_tick(s, t + 2 * S);
		daemon_session_tick(s, t + 4 * S);
	}
	n = daemon_rank_view(s, PROTO_RANK_RATE, NULL, 1, &rows, NULL);
	assert_int_equal(n, 1);
	assert_true(rows[0]->rate == 0);
	/* All 0: later ticks change nothing, so the ranking is kept (4 clients
	 * of an exited target share it too). */
	{
		struct daemon_func *const *again;
		uint64_t gen = s->gen, t = proto_now_ns();

		daemon_session_tick(s, t + 6 * S);
		daemon_session_tick(s, t + 8 * S);
		assert_int_equal(s->gen, gen);
		assert_int_equal(daemon_rank_view(s, PROTO_RANK_RATE, NULL, 1, &again, NULL), 1);
		assert_ptr_equal(again, rows);
		assert_true(again[0]->rate == 0);
		/* a call after all: the rates move again */
		feed1(s, t + 9 * S, 0x1000, 99999999);
		assert_int_not_equal(s->gen, gen);
	}
	/* A reset empties the ranking. */
	daemon_session_reset(s, proto_now_ns() + 5 * S);
	n = daemon_rank_view(s, PROTO_RANK_CALLS, NULL, 10, &rows, NULL);
	assert_int_equal(n, 0);
	daemon_session_free(s);
}

/* Many more views than are kept: every one still gets daemon_rank's rows,
 * asked for in turn again and again. */
static void
test_many_views(void **state)
{
	static const char *const filters[] = { NULL, "hot", "fn_1", "fn_2", "0" };
	struct daemon_session *s = big_session();

	(void)state;
	for (int round = 0; round < 3; round++) {
		for (int k = 0; k < PROTO_RANK_COUNT; k++) {
			for (size_t fi = 0; fi < 5; fi++) {
				for (size_t top = 1; top <= 64; top *= 4) {
					struct daemon_func *want[NF];
					struct daemon_func *const *got;
					struct daemon_totals tw, tg;
					size_t nw = daemon_rank(s, k, filters[fi], want, top, &tw);
					size_t ng = daemon_rank_view(s, k, filters[fi], top, &got, &tg);

					assert_int_equal(ng, nw);
					assert_memory_equal(&tg, &tw, sizeof tw);
					for (size_t i = 0; i < nw; i++)
						assert_ptr_equal(got[i], want[i]);
				}
			}
		}
		feed1(s, 3 * S + (uint64_t)round * S, 0x1000 + 16 * (uint64_t)round, 5000);
	}
	daemon_session_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_view_same_rows),
		cmocka_unit_test(test_different_views_differ),
		cmocka_unit_test(test_change_seen_next_frame),
		cmocka_unit_test(test_many_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
