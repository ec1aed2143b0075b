/*
 * test-startup.c - the startup part's pure code: the phases derived from
 * the points (protocol/startup.c) and the comparison of two starts
 * (daemon/startup_cmp.c): the noise rule (both the absolute and the
 * relative bound), libraries by path, dlopen calls by name and rank, new
 * entries from 0, the agent's constructors out of the phases, the order,
 * the cap.  (The part's codecs: test-wire.c.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "daemon_startup.h"
#include "field.h"

#define MS 1000000ull

static void free_changes(struct proto_su_change *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].kind);
		free(v[i].name);
	}
	free(v);
}

/* Every phase from its two points; unknown when one is missing or out of order. */
static void test_phases(void **state)
{
	struct proto_startup s = { .exec_ns = 1000 * MS, .loaded_ns = 1010 * MS,
		.agent_ns = 1200 * MS, .ctors_ns = 1300 * MS, .main_ns = 1301 * MS,
		.wait_ns = 1500 * MS };
	struct proto_su_phase p[PROTO_SU_NPHASES];

	(void)state;
	proto_startup_phases(&s, p);
	assert_string_equal(p[PROTO_SU_LOAD].name, "load");
	assert_int_equal(p[PROTO_SU_LOAD].end_ns - p[PROTO_SU_LOAD].start_ns, 10 * MS);
	assert_int_equal(p[PROTO_SU_CTORS].end_ns - p[PROTO_SU_CTORS].start_ns, 290 * MS);
	assert_int_equal(p[PROTO_SU_PROG_CTORS].end_ns - p[PROTO_SU_PROG_CTORS].start_ns, 1 * MS);
	assert_int_equal(p[PROTO_SU_TO_MAIN].end_ns - p[PROTO_SU_TO_MAIN].start_ns, 301 * MS);
	assert_int_equal(p[PROTO_SU_TO_WAIT].end_ns - p[PROTO_SU_TO_WAIT].start_ns, 500 * MS);
	assert_int_equal(p[PROTO_SU_TO_FRAME].start_ns, 0);      /* no frame */
	assert_int_equal(p[PROTO_SU_TO_FRAME].end_ns, 0);
	assert_int_equal(proto_startup_origin(&s), 1000 * MS);
	/* No early hook: constructors from the agent's; no exec: no "to" phase. */
	s.loaded_ns = 0;
	s.exec_ns = 0;
	proto_startup_phases(&s, p);
	assert_int_equal(p[PROTO_SU_CTORS].end_ns - p[PROTO_SU_CTORS].start_ns, 100 * MS);
	assert_int_equal(p[PROTO_SU_TO_MAIN].end_ns, 0);
	assert_int_equal(p[PROTO_SU_LOAD].end_ns, 0);
	assert_int_equal(proto_startup_origin(&s), 1200 * MS);
	/* Out of order (a point of another process): unknown, not a wrap. */
	s.main_ns = 1 * MS;
	proto_startup_phases(&s, p);
	assert_int_equal(p[PROTO_SU_PROG_CTORS].end_ns, 0);
}

/* What is slower beyond the noise, largest first. */
static void test_compare(void **state)
{
	struct proto_su_lib lb[] = {
		{ .name = "/lib/a.so", .dur_ns = 100 * MS },
		{ .name = "/lib/b.so", .dur_ns = 2 * MS },
		{ .name = "/lib/c.so", .dur_ns = 100 * MS },
	};
	struct proto_su_lib ln[] = {
		{ .name = "/lib/a.so", .dur_ns = 300 * MS },    /* +200 ms: slower */
		{ .name = "/lib/b.so", .dur_ns = 6 * MS },      /* +4 ms, +200%: under 5 ms */
		{ .name = "/lib/c.so", .dur_ns = 108 * MS },    /* +8 ms, +8%: under 10% */
		{ .name = "/lib/new.so", .dur_ns = 40 * MS },   /* new: from 0 */
	};
	struct proto_su_dlopen db[] = {
		{ .name = "p.so", .dur_ns = 10 * MS }, { .name = "p.so", .dur_ns = 100 * MS },
	};
	struct proto_su_dlopen dn[] = {
		{ .name = "p.so", .dur_ns = 100 * MS },        /* the first against the first */
		{ .name = "p.so", .dur_ns = 100 * MS },        /* the second: the same */
	};
	struct proto_startup b = { .exec_ns = 1, .main_ns = 1 + 400 * MS, .nlibs = 3, .libs = lb,
		.ndlopens = 2, .dlopens = db };
	struct proto_startup n = { .exec_ns = 1, .main_ns = 1 + 650 * MS, .nlibs = 4, .libs = ln,
		.ndlopens = 2, .dlopens = dn };
	struct proto_su_change *v;
	size_t k;

	(void)state;
	k = daemon_startup_compare(&b, &n, DAEMON_SU_NOISE_NS, DAEMON_SU_NOISE_PCT, &v);
	assert_int_equal(k, 4);
	assert_string_equal(v[0].kind, "phase");
	assert_string_equal(v[0].name, "to main");
	assert_int_equal(v[0].before_ns, 400 * MS);
	assert_int_equal(v[0].now_ns, 650 * MS);
	assert_string_equal(v[1].name, "/lib/a.so");
	assert_string_equal(v[1].kind, "constructors");
	assert_string_equal(v[2].kind, "dlopen");
	assert_int_equal(v[2].before_ns, 10 * MS);
	assert_string_equal(v[3].name, "/lib/new.so");
	assert_int_equal(v[3].before_ns, 0);
	free_changes(v, k);
	/* The same start: nothing. */
	k = daemon_startup_compare(&n, &n, DAEMON_SU_NOISE_NS, DAEMON_SU_NOISE_PCT, &v);
	assert_int_equal(k, 0);
	assert_null(v);
	/* Faster: nothing either. */
	k = daemon_startup_compare(&n, &b, DAEMON_SU_NOISE_NS, DAEMON_SU_NOISE_PCT, &v);
	assert_int_equal(k, 0);
}

/* The agent's own constructors are taken out of the phases that hold them:
 * the program got 100 ms slower to main while the agent got 200 ms faster. */
static void test_compare_agent(void **state)
{
	struct proto_su_lib ab = { .name = "/x/libhookscope.so", .start_ns = 50 * MS, .dur_ns = 300 * MS };
	struct proto_su_lib an = { .name = "/x/libhookscope.so", .start_ns = 50 * MS, .dur_ns = 100 * MS };
	struct proto_startup b = { .exec_ns = 1, .agent_ns = 60 * MS, .main_ns = 1 + 400 * MS,
		.nlibs = 1, .libs = &ab };
	struct proto_startup n = { .exec_ns = 1, .agent_ns = 60 * MS, .main_ns = 1 + 300 * MS,
		.nlibs = 1, .libs = &an };
	struct proto_su_change *v;
	size_t k;

	(void)state;
	k = daemon_startup_compare(&b, &n, DAEMON_SU_NOISE_NS, DAEMON_SU_NOISE_PCT, &v);
	assert_int_equal(k, 1);
	assert_string_equal(v[0].name, "to main");
	assert_int_equal(v[0].before_ns, 100 * MS);
	assert_int_equal(v[0].now_ns, 200 * MS);
	free_changes(v, k);
}

/* More slower entries than a frame carries: the largest kept. */
static void test_compare_cap(void **state)
{
	enum { N = PROTO_MAX_SU_DLOPENS };
	static struct proto_su_dlopen dn[N];
	static char names[N][16];
	struct proto_startup b = { 0 }, n = { .ndlopens = N, .dlopens = dn };
	struct proto_su_change *v;
	size_t k;

	(void)state;
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "l%d.so", i);
		dn[i] = (struct proto_su_dlopen){ .name = names[i], .dur_ns = (uint64_t)(i + 10) * MS };
	}
	k = daemon_startup_compare(&b, &n, DAEMON_SU_NOISE_NS, DAEMON_SU_NOISE_PCT, &v);
	assert_int_equal(k, PROTO_MAX_SU_CHANGES);
	assert_string_equal(v[0].name, "l127.so");
	assert_int_equal(v[k - 1].now_ns, (uint64_t)(N - PROTO_MAX_SU_CHANGES + 10) * MS);
	free_changes(v, k);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_compare_agent),
		cmocka_unit_test(test_compare_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
