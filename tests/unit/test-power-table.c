/*
 * test-power-table.c - the power API table parser (collectors/
 * power_table.c): every field of a full row; each kind of malformed row is
 * refused with its line and a reason while the rows around it still load;
 * the shipped table parses clean.  The ledger (power_ledger.c): a
 * reference-counted resource is held until its last release, a plain one
 * until its first; a timed hold ends at its deadline, counted as a timeout;
 * a release without acquire is counted.  The "power" record round-trips.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "power_int.h"
#include "protocol.h"

struct errs { int n; int line[16]; char msg[16][128]; };

static void collect(const char *file, int line, const char *msg, void *arg)
{
	struct errs *e = arg;

	(void)file;
	if (e->n < 16) {
		e->line[e->n] = line;
		snprintf(e->msg[e->n], sizeof e->msg[0], "%s", msg);
	}
	e->n++;
}

static void test_table_full_row(void **state)
{
	static const char text[] =
	    "# comment\n\n"
	    "write acquire-timeout arg1:buf wakelock noref cpu.idle when=arg0@/sys/power/wake_lock "
	    "when=ret>=0 timeout=word1:ns  # trailing comment\n"
	    "gps_stream acquire const:gpsd location noref gps.on when=arg1&0x1\n"
	    "ASensorEventQueue_enableSensor acquire arg1:ptr sensor noref - power=ASensor_getPower\n"
	    "lock_get acquire arg0:str wakelock ref cpu.idle timeout=arg2:ms\r\n";
	struct power_table t = { 0 };
	struct errs e = { 0 };
	const struct power_row *r;

	(void)state;
	power_table_parse(&t, text, sizeof text - 1, "t", collect, &e);
	assert_int_equal(e.n, 1);      /* lock_get: a timeout on a plain acquire */
	assert_int_equal(e.line[0], 6);
	assert_int_equal(t.nrows, 3);
	r = &t.rows[0];
	assert_int_equal(r->line, 3);
	assert_string_equal(r->symbol, "write");
	assert_int_equal(r->role, POWER_ACQUIRE_TIMEOUT);
	assert_int_equal(r->res.src, POWER_SRC_ARG);
	assert_int_equal(r->res.kind, POWER_K_BUF);
	assert_int_equal(r->res.arg, 1);
	assert_string_equal(r->category, "wakelock");
	assert_false(r->refcount);
	assert_string_equal(r->item, "cpu.idle");
	assert_int_equal(r->ncond, 2);
	assert_int_equal(r->cond[0].op, POWER_OP_FD);
	assert_string_equal(r->cond[0].text, "/sys/power/wake_lock");
	assert_int_equal(r->cond[1].src, POWER_SRC_RET);
	assert_int_equal(r->cond[1].op, POWER_OP_GE);
	assert_int_equal(r->timeout.src, POWER_SRC_WORD);
	assert_int_equal(r->timeout.arg, 1);
	assert_int_equal(r->timeout_unit_ns, 1);
	r = &t.rows[1];
	assert_int_equal(r->res.src, POWER_SRC_CONST);
	assert_string_equal(r->res.text, "gpsd");
	assert_int_equal(r->cond[0].op, POWER_OP_AND);
	assert_int_equal(r->cond[0].num, 1);
	assert_string_equal(t.rows[2].power_fn, "ASensor_getPower");
	power_table_free(&t);
}

static void test_table_malformed(void **state)
{
	static const char *const bad[] = {
		"sym acquire arg0:str wakelock noref",                    /* too few fields */
		"sym grab arg0:str wakelock noref -",                     /* role */
		"sym acquire arg9:str wakelock noref -",                  /* arg index */
		"sym acquire arg0:float wakelock noref -",                /* kind */
		"sym acquire arg0:str wake/lock noref -",                 /* category */
		"sym acquire arg0:str wakelock maybe -",                  /* refcount */
		"sym acquire arg0:str wakelock noref - when=arg0<3",      /* operator */
		"sym acquire arg0:str wakelock noref - when=arg0==x",     /* number */
		"sym acquire arg0:str wakelock noref - colour=red",       /* option */
		"sym acquire-timeout arg0:str wakelock noref -",          /* no timeout= */
		"sym acquire-timeout arg0:str wakelock noref - timeout=arg1:hours",
		"sym acquire arg0:binder wakelock noref -",               /* binder kind, not a Binder row */
		"binder:IFoo:x acquire arg0:binder wakelock noref -",     /* code */
		"s\xff acquire arg0:str wakelock noref -",                /* symbol bytes */
		"sym acquire const: wakelock noref -",                    /* empty const */
	};
	char text[4096] = "";
	struct power_table t = { 0 };
	struct errs e = { 0 };

	(void)state;
	strcat(text, "good1 acquire arg0:str wakelock noref cpu.idle\n");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		strcat(text, bad[i]);
		strcat(text, "\n");
	}
	strcat(text, "good2 release arg0:str wakelock noref cpu.idle");   /* no final newline */
	power_table_parse(&t, text, strlen(text), "t", collect, &e);
	assert_int_equal(e.n, (int)(sizeof bad / sizeof bad[0]));
	for (int i = 0; i < 15 && i < e.n; i++) {
		assert_int_equal(e.line[i], i + 2);
		assert_true(strlen(e.msg[i]) > 10);
	}
	assert_int_equal(t.errors, e.n);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(t.rows[1].symbol, "good2");
	power_table_free(&t);
}

static void test_table_shipped(void **state)
{
	static char text[65536];
	FILE *f = fopen("collectors/power-apis.table", "r");
	struct power_table t = { 0 };
	struct errs e = { 0 };
	size_t len;

	(void)state;
	assert_non_null(f);
	len = fread(text, 1, sizeof text, f);
	fclose(f);
	power_table_parse(&t, text, len, "power-apis.table", collect, &e);
	assert_int_equal(e.n, 0);
	assert_true(t.nrows >= 20);
	power_table_free(&t);
}

static void test_ledger(void **state)
{
	struct power_row ref = { .category = "wakelock", .refcount = true, .symbol = "get" };
	struct power_row plain = { .category = "wakelock", .symbol = "acq" };
	struct power_stack st = { .n = 1, .pc = { 0x1234 } };
	struct power_res *res;
	size_t n;

	(void)state;
	power_ledger_clear();
	power_ledger_acquire(&ref, "r", -1, 0, &st, 1000);
	power_ledger_acquire(&ref, "r", -1, 0, &st, 2000);
	power_ledger_release(&ref, "r", &st, 3000);
	power_ledger_acquire(&plain, "p", -1, 0, &st, 1000);
	power_ledger_acquire(&plain, "p", -1, 0, &st, 1500);
	power_ledger_release(&plain, "p", &st, 4000);
	power_ledger_release(&plain, "p", &st, 4500);           /* not held: unmatched */
	power_ledger_acquire(&plain, "t", -1, 500, &st, 10000); /* 500 ns timed hold */
	power_ledger_snapshot(&res, &n, 5000);
	assert_int_equal(n, 3);
	assert_true(res[0].held);                               /* one ref left */
	assert_int_equal(res[0].refs, 1);
	assert_false(res[1].held);
	assert_int_equal(res[1].total_ns, 3000);
	assert_int_equal(res[1].acquires, 2);
	assert_int_equal(res[1].releases, 1);
	assert_int_equal(res[1].unmatched, 1);
	assert_true(res[2].held);
	free(res);
	power_ledger_release(&ref, "r", &st, 6000);
	power_ledger_snapshot(&res, &n, 20000);                 /* the deadline passed */
	assert_false(res[0].held);
	assert_int_equal(res[0].total_ns, 5000);
	assert_false(res[2].held);
	assert_int_equal(res[2].timeouts, 1);
	assert_int_equal(res[2].total_ns, 500);                 /* ended at its deadline */
	free(res);
	power_ledger_clear();
}

static void test_record_roundtrip(void **state)
{
	char *holder[] = { "main+0x10 (app)", "__libc_start_main+0x80 (libc.so.6)" };
	struct proto_pwr_res r = { .category = "sensor", .name = "17", .api = "x", .item = "-",
		.ma = 5, .held = true, .leaked = true, .refs = 1, .held_ns = 7, .total_ns = 9,
		.acquires = 2, .releases = 1, .timeouts = 3, .unmatched = 4, .holder_tid = 42,
		.nholder = 2, .holder = holder, .mah = -1, .price_ma = -1 };
	struct proto_agent_rec in = { .type = PROTO_AG_POWER, .power = { .time_ns = 5,
		.hold_ns = 120000000000ull, .exited = true, .table = "t", .rows = 3, .nres = 1,
		.res = &r } }, out;
	msgpack_sbuffer sb;
	char err[256];

	(void)state;
	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, &in);
	assert_int_equal(proto_agent_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR,
	    &out, err, sizeof err), 0);
	assert_int_equal(out.type, PROTO_AG_POWER);
	assert_true(out.power.exited);
	assert_int_equal(out.power.hold_ns, 120000000000ull);
	assert_int_equal(out.power.nres, 1);
	assert_string_equal(out.power.res[0].category, "sensor");
	assert_true(out.power.res[0].ma == 5);
	assert_true(out.power.res[0].leaked);
	assert_int_equal(out.power.res[0].unmatched, 4);
	assert_int_equal(out.power.res[0].nholder, 2);
	assert_string_equal(out.power.res[0].holder[1], "__libc_start_main+0x80 (libc.so.6)");
	proto_agent_rec_free(&out);
	/* a truncated record is refused with a reason */
	assert_int_equal(proto_agent_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR - 3,
	    &out, err, sizeof err), -1);
	assert_true(err[0] != '\0');
	proto_agent_rec_free(&out);
	msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_full_row),
		cmocka_unit_test(test_table_malformed),
		cmocka_unit_test(test_table_shipped),
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_record_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
