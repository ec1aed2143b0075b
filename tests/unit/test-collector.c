/*
 * test-collector.c - the daemon's collector table (collector.h): every row
 * gets a record of each type it consumes, then a reset; the test walks the
 * table and checks the reset rule on each row (accumulated state gone,
 * settings and absolute snapshots kept), and that a record stamped before
 * the reset changes nothing.  A row without a check here fails the test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "daemon_collector.h"
#include "session-util.h"
#include "memory_state.h"
#include "issue.h"
#include "daemon_startup.h"
#include "daemon_net.h"

/* Records of every type, stamped at agent time t. */
static void
feed_all(struct daemon_session *s, uint64_t t, uint64_t now)
{
	struct proto_ag_func g = { .addr = 0x10, .calls = 7, .total_ns = 70, .self_ns = 30,
		.max_ns = 20, .slow = 1 };
	struct proto_ag_sym y = { .addr = 0x10, .name = "f", .module = "/bin/a" };
	struct proto_sites site = { .backend = "patch", .active = 3 };
	struct proto_fps_stream st = { .id = 1, .api = "app", .name = "x", .frames = 9 };
	struct proto_block blk = { .id = 1, .tid = 5, .start_ns = t, .dur_ns = 300 * MS,
		.ended = true };
	struct proto_ipc_ep ep = { .id = 1, .kind = "unix", .name = "/run/x", .method = "",
		.peer_comm = "" };
	struct proto_pwr_res res = { .category = "wakelock", .name = "w", .api = "write",
		.item = "cpu.idle", .ma = -1, .held = true, .acquires = 1, .total_ns = 1 * S,
		.held_ns = 1 * S };
	struct proto_su_lib lib = { .name = "/lib/a.so", .start_ns = t - 2 * S, .dur_ns = MS, .funcs = 1 };
	struct proto_net_ep nep = { .id = 2, .proto = "tcp", .addr = "127.0.0.1:80", .connects = 1,
		.error = "" };
	struct proto_mem_site ms = { .id = 1, .bytes = 4096, .blocks = 1, .alloc_bytes = 8192,
		.allocs = 2, .frees = 1 };
	struct proto_agent_rec v[] = {
		{ .type = PROTO_AG_SYMS, .nsyms = 1, .syms = &y },
		{ .type = PROTO_AG_FUNCS, .time_ns = t, .nfuncs = 1, .funcs = &g },
		{ .type = PROTO_AG_SITES, .nsites = 1, .sites = &site },
		{ .type = PROTO_AG_FPS, .time_ns = t, .fps = { .budget_ns = 16 * MS,
		  .nstreams = 1, .streams = &st } },
		{ .type = PROTO_AG_THREADS, .thr = { .time_ns = t, .created = 4, .live = 3 } },
		{ .type = PROTO_AG_BLOCKS, .time_ns = t, .blocks = { .threshold_ns = 100 * MS,
		  .ui = "main", .count = 1, .nblocks = 1, .blocks = &blk } },
		{ .type = PROTO_AG_IPC, .time_ns = t, .ipc = { .threshold_ns = 50 * MS,
		  .neps = 1, .eps = &ep } },
		{ .type = PROTO_AG_POWER, .time_ns = t, .power = { .time_ns = t,
		  .hold_ns = 120 * S, .table = "t", .nres = 1, .res = &res } },
		{ .type = PROTO_AG_STARTUP, .startup = { .time_ns = t, .exec_from = "run",
		  .exec_ns = t - 2 * S, .main_ns = t - S, .nlibs = 1, .libs = &lib } },
		{ .type = PROTO_AG_NETWORK, .time_ns = t, .net = { .threshold_ns = 70 * MS,
		  .neps = 1, .eps = &nep } },
		{ .type = PROTO_AG_MEMORY, .time_ns = t, .memory = { .mode = "full",
		  .leak_window_ns = 30 * S, .heap_bytes = 4096, .heap_blocks = 1, .nsites = 1,
		  .sites = &ms } },
	};

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		assert_int_equal(daemon_session_record(s, &v[i], now), 0);
}

/* One check per row: was its state fed (before), is it reset (after). */
struct row_check {
	const char *name;
	void (*fed)(const struct daemon_session *s);
	void (*is_reset)(const struct daemon_session *s);
};

static void funcs_fed(const struct daemon_session *s)
{
	assert_int_equal(s->funcs.n, 1);
	assert_int_equal(s->funcs.v[0].calls, 7);
	assert_string_equal(s->funcs.v[0].name, "f");
}
static void funcs_reset(const struct daemon_session *s)
{
	const struct daemon_func *f = &s->funcs.v[0];

	assert_int_equal(f->calls + f->total_ns + f->self_ns + f->max_ns + f->slow, 0);
	assert_true(f->rate == 0);
	assert_string_equal(f->name, "f");        /* names are not figures */
}
static void sites_fed(const struct daemon_session *s)
{
	assert_int_equal(s->nsites, 1);
}
static void sites_reset(const struct daemon_session *s)
{
	assert_int_equal(s->nsites, 1);           /* hook state: kept */
	assert_int_equal(s->sites[0].active, 3);
}
static void fps_fed(const struct daemon_session *s)
{
	assert_int_equal(s->fps.nstreams, 1);
	assert_int_equal(s->fps.streams[0].frames, 9);
}
static void fps_reset(const struct daemon_session *s)
{
	assert_int_equal(s->fps.nstreams, 0);
	assert_null(s->fps_rings);
	assert_int_equal(s->fps.budget_ns, 16 * MS);   /* a setting: kept */
}
static void thr_fed(const struct daemon_session *s)
{
	assert_int_equal(s->thr.live, 3);
	assert_int_equal(s->thr_hist.n, 1);
}
static void thr_reset(const struct daemon_session *s)
{
	assert_int_equal(s->thr_hist.n, 0);
	assert_int_equal(s->thr.nhistory, 0);
	assert_int_equal(s->thr.live, 3);         /* the snapshot: kept */
}
static void blocks_fed(const struct daemon_session *s)
{
	assert_int_equal(s->blocks.nblocks, 1);
	assert_int_equal(s->blocks.count, 1);
}
static void blocks_reset(const struct daemon_session *s)
{
	assert_int_equal(s->blocks.nblocks, 0);
	assert_int_equal(s->blocks.count, 0);
	assert_int_equal(s->blocks.threshold_ns, 100 * MS);
}
static void ipc_fed(const struct daemon_session *s)
{
	assert_int_equal(s->ipc.neps, 1);
}
static void ipc_reset(const struct daemon_session *s)
{
	assert_int_equal(s->ipc.neps, 0);
	assert_int_equal(s->ipc.nslow, 0);
	assert_null(s->ipc_rate);
	assert_int_equal(s->ipc.threshold_ns, 50 * MS);
}
static void power_fed(const struct daemon_session *s)
{
	assert_int_equal(s->power.nres, 1);
	assert_non_null(s->power_hist);
}
static void power_reset(const struct daemon_session *s)
{
	assert_null(s->power_hist);
	assert_int_equal(s->power.nres, 1);       /* the snapshot: kept */
}

static void net_fed(const struct daemon_session *s)
{
	const struct proto_network *p = daemon_net_of((struct daemon_session *)s);

	assert_int_equal(p->neps, 1);
	assert_int_equal(p->eps[0].connects, 1);
}
static void net_reset(const struct daemon_session *s)
{
	const struct proto_network *p = daemon_net_of((struct daemon_session *)s);

	assert_int_equal(p->neps + p->nhttp + p->ndns + p->nevents, 0);
	assert_int_equal(p->threshold_ns, 70 * MS);   /* a setting: kept */
}

/* The site is kept; a tick sampled the heap.  Reset: the samples go (rates,
 * rings, sparkline), what is in use stays. */
static void memory_fed(const struct daemon_session *s)
{
	const struct mem_dstate *d = daemon_memory_of((struct daemon_session *)s);

	assert_int_equal(d->m.heap_bytes, 4096);
	assert_true(d->nsites >= 2 && d->sites[1].seen);
	assert_int_equal(d->sites[1].w.bytes, 4096);
}
static void memory_reset(const struct daemon_session *s)
{
	const struct mem_dstate *d = daemon_memory_of((struct daemon_session *)s);

	assert_int_equal(d->nhistory, 0);
	assert_int_equal(d->sites[1].nring, 0);
	assert_int_equal(d->m.heap_bytes, 4096);  /* the snapshot: kept */
}

/* The ended 300 ms block over its 100 ms threshold was raised as an issue. */
static void issues_fed(const struct daemon_session *s)
{
	const struct proto_issues *v = daemon_issues_of((struct daemon_session *)s);

	assert_int_equal(v->nlist, 1);
	assert_string_equal(v->list[0].type, "ui-block");
}
static void issues_reset(const struct daemon_session *s)
{
	assert_int_equal(daemon_issues_of((struct daemon_session *)s)->nlist, 0);
}

static void startup_fed(const struct daemon_session *s)
{
	const struct proto_startup *p = daemon_startup_of((struct daemon_session *)s);

	assert_int_equal(p->main_ns - p->exec_ns, S);
	assert_int_equal(p->nlibs, 1);
}

static void startup_reset(const struct daemon_session *s)
{
	startup_fed(s);                           /* it happened once: kept */
}

static const struct row_check checks[] = {
	{ "funcs", funcs_fed, funcs_reset },
	{ "sites", sites_fed, sites_reset },
	{ "fps", fps_fed, fps_reset },
	{ "threads", thr_fed, thr_reset },
	{ "blocks", blocks_fed, blocks_reset },
	{ "ipc", ipc_fed, ipc_reset },
	{ "power", power_fed, power_reset },
	{ "startup", startup_fed, startup_reset },
	{ "network", net_fed, net_reset },
	{ "memory", memory_fed, memory_reset },
	{ "issues", issues_fed, issues_reset },
};

static const struct row_check *
check_of(const char *name)
{
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
		if (strcmp(checks[i].name, name) == 0)
			return &checks[i];
	fail_msg("collector row %s has no reset check in test-collector.c", name);
	return NULL;
}

/* Fed, reset, fed again with records from before the reset: every row
 * reset, and still reset. */
static void
test_reset_every_row(void **state)
{
	struct daemon_session *s = live_session(1 * S);

	(void)state;
	setenv("HOOKSCOPE_POWER_PROFILE", "daemon/power_profile.sample.xml", 1);
	feed_all(s, 2 * S, 2 * S);
	for (size_t i = 0; i < daemon_ncollectors; i++)
		check_of(daemon_collectors[i]->name)->fed(s);
	daemon_session_reset(s, 3 * S);
	for (size_t i = 0; i < daemon_ncollectors; i++)
		check_of(daemon_collectors[i]->name)->is_reset(s);
	/* In flight when the agent got the reset: stamped before it.  Only
	 * records without a stamp (names, sites, threads) come through. */
	feed_all(s, 2900 * MS, 3100 * MS);
	for (size_t i = 0; i < daemon_ncollectors; i++)
		if (strcmp(daemon_collectors[i]->name, "threads") != 0)
			check_of(daemon_collectors[i]->name)->is_reset(s);
	daemon_session_free(s);
}

/* The table is consistent: one row per record type, named thresholds
 * found, a row for every record the agent sends but hello and bye. */
static void
test_table(void **state)
{
	static const enum proto_agent_type sent[] = { PROTO_AG_SYMS, PROTO_AG_FUNCS,
		PROTO_AG_SITES, PROTO_AG_FPS, PROTO_AG_THREADS, PROTO_AG_BLOCKS, PROTO_AG_IPC,
		PROTO_AG_POWER, PROTO_AG_MEMORY, PROTO_AG_NETWORK, PROTO_AG_STARTUP };
	size_t nthr = 0;

	(void)state;
	for (size_t i = 0; i < sizeof sent / sizeof sent[0]; i++)
		assert_non_null(daemon_collector_of(sent[i]));
	assert_null(daemon_collector_of(PROTO_AG_HELLO));
	assert_null(daemon_collector_of(PROTO_AG_BYE));
	/* Every wire part has a daemon row. */
	for (size_t i = 0; i < proto_nparts; i++)
		assert_ptr_equal(daemon_collector_of(proto_parts[i]->ag_type)->part, proto_parts[i]);
	for (size_t i = 0; i < daemon_ncollectors; i++) {
		const struct daemon_collector *c = daemon_collectors[i];

		assert_non_null(c->on_record);
		for (size_t k = 0; k < DAEMON_COLLECTOR_RECORDS && c->records[k] != 0; k++)
			assert_ptr_equal(daemon_collector_of(c->records[k]), c);
		if (c->part != NULL)
			assert_ptr_equal(daemon_collector_of(c->part->ag_type), c);
		for (size_t k = 0; k < c->nthresholds; k++, nthr++)
			assert_ptr_equal(daemon_threshold_find(c->thresholds[k].name),
			    &c->thresholds[k]);
	}
	assert_int_equal(nthr, 13);
	assert_null(daemon_threshold_find("bogus"));
}

/* A row outside the table, as a new collector's, with state of its own. */
struct counter_state {
	uint64_t records;
};
static void counter_record(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns);
static const struct daemon_collector counter_row = {
	.name = "counter",
	.on_record = counter_record,
	.state_size = sizeof(struct counter_state),
};
static void
counter_record(struct daemon_session *s, const struct proto_agent_rec *r, uint64_t now_ns)
{
	struct counter_state *st = daemon_session_state(s, &counter_row);

	(void)r;
	(void)now_ns;
	st->records++;
}

/* Zeroed on first use, the same block after, one per session, freed with
 * the session (ASan's leak check in the sanitizer build). */
static void
test_state(void **state)
{
	struct daemon_session *a = live_session(1 * S), *b = live_session(1 * S);
	struct proto_agent_rec r = { .type = PROTO_AG_FUNCS };
	struct counter_state *sa;

	(void)state;
	counter_row.on_record(a, &r, 0);
	counter_row.on_record(a, &r, 0);
	sa = daemon_session_state(a, &counter_row);
	assert_int_equal(sa->records, 2);
	assert_ptr_equal(daemon_session_state(a, &counter_row), sa);
	assert_int_equal(((struct counter_state *)daemon_session_state(b, &counter_row))->records, 0);
	daemon_session_free(a);
	daemon_session_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_every_row),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
