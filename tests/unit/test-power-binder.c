/*
 * test-power-binder.c - the shipped table's Binder rows (collectors/
 * power_binder.c) on BINDER_WRITE_READ buffers built here by hand and run
 * through the IPC collector's real decoder (ipc_binder_decode, observers
 * notified as the agent's ioctl hook does): IPowerManager acquireWakeLock
 * / releaseWakeLock keyed by the lock token (a binder object), a release of
 * a token never acquired, SensorEventConnection enable/disable by handle,
 * ILocationManager by listener; counts exact, held time between the
 * tightest and the loosest bracket of the known hold; a reply or another
 * interface changes nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/android/binder.h>

#include "ipc.h"
#include "power_int.h"
#include "protocol.h"

#include "binder-build.h"

/* The decoder's callback: what the agent's ioctl hook does. */
static void notify(const struct ipc_binder_txn *t, void *arg)
{
	(void)arg;
	ipc_binder_notify(t);
}

/* One BC_TRANSACTION (or BC_REPLY) to iface/code: Android 11 header, then
 * a binder object with pointer token when token != 0, then the int32s. */
static void send_txn(uint32_t cmd, const char *iface, uint32_t code, uint64_t token,
    const uint32_t *ints, int nints)
{
	struct arena a = { .len = 0 };
	struct bytes p = { .len = 0 }, w = { .len = 0 };
	uint64_t offs[1], data, offp = 0;
	char err[256];

	put32(&p, 0x40000000u);
	put32(&p, 0xffffffffu);
	put32(&p, 0x53595354u);
	put_string16(&p, iface);
	if (token != 0) {
		offs[0] = p.len;
		put32(&p, BINDER_TYPE_BINDER);
		put32(&p, 0);
		put64(&p, token);
		put64(&p, token + 8);          /* cookie */
	}
	for (int i = 0; i < nints; i++)
		put32(&p, ints[i]);
	put_string16(&p, "tag-is-ignored");
	data = arena_add(&a, p.b, p.len);
	if (token != 0)
		offp = arena_add(&a, offs, sizeof offs);
	put32(&w, cmd);
	put64(&w, 7);
	put64(&w, 0);
	put32(&w, code);
	put32(&w, 0);
	put32(&w, 0);
	put32(&w, 0);
	put64(&w, p.len);
	put64(&w, token != 0 ? 8 : 0);
	put64(&w, data);
	put64(&w, offp);
	if (ipc_binder_decode(w.b, w.len, false, arena_read, &a, notify, NULL, err, sizeof err) != 0)
		fail_msg("decoder refused the buffer: %s", err);
}

/* The ledger entry of (category, name), or NULL (res: the snapshot). */
static const struct power_res *find(struct power_res *res, size_t n, const char *cat, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(res[i].category, cat) == 0 && strcmp(res[i].name, name) == 0)
			return &res[i];
	return NULL;
}

static uint64_t now_ns(void) { return proto_now_ns(); }

static void nap_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void row_error(const char *file, int line, const char *msg, void *arg)
{
	(void)arg;
	fail_msg("%s:%d: %s", file, line, msg);
}

static void test_power_binder_rows(void **state)
{
	static struct power_table t;
	const uint32_t flags[] = { 1 }, en[] = { 17, 1 }, dis[] = { 17, 0 };
	FILE *f = fopen("collectors/power-apis.table", "r");
	static char text[65536];
	struct power_res *res;
	const struct power_res *r;
	uint64_t a0, a1, s1, s2, s3, r0, r1;
	size_t len, n;

	(void)state;
	assert_non_null(f);
	len = fread(text, 1, sizeof text, f);
	fclose(f);
	power_table_parse(&t, text, len, "power-apis.table", row_error, NULL);
	assert_int_equal(t.errors, 0);
	power_binder_init(&t);

	/* Each hold is bracketed: at least from the acquire's return to the
	 * release's start, at most from the acquire's start to the release's
	 * return (the ledger stamps inside the calls). */
	a0 = now_ns();
	send_txn(BC_TRANSACTION, "android.os.IPowerManager", 1, 0x5000, flags, 1);
	a1 = now_ns();
	send_txn(BC_TRANSACTION, "android.gui.SensorEventConnection", 2, 0, en, 2);
	s1 = now_ns();
	nap_ms(80);
	send_txn(BC_REPLY, "android.os.IPowerManager", 3, 0x5000, flags, 1);    /* a reply: ignored */
	send_txn(BC_TRANSACTION, "android.os.IOther", 3, 0x5000, flags, 1);      /* another interface */
	s2 = now_ns();
	send_txn(BC_TRANSACTION, "android.gui.SensorEventConnection", 2, 0, dis, 2);
	s3 = now_ns();
	nap_ms(40);
	r0 = now_ns();
	send_txn(BC_TRANSACTION, "android.os.IPowerManager", 3, 0x5000, flags, 1);
	r1 = now_ns();
	send_txn(BC_TRANSACTION, "android.os.IPowerManager", 3, 0x6000, flags, 1); /* never acquired */
	send_txn(BC_TRANSACTION, "android.location.ILocationManager", 1, 0x7000, NULL, 0);

	power_ledger_snapshot(&res, &n, now_ns());
	r = find(res, n, "wakelock", "binder 0x5000");
	assert_non_null(r);
	assert_int_equal(r->acquires, 1);
	assert_int_equal(r->releases, 1);
	assert_false(r->held);
	printf("binder wakelock: held %llu ns, between %llu and %llu ns\n",
	    (unsigned long long)r->total_ns, (unsigned long long)(r0 - a1), (unsigned long long)(r1 - a0));
	assert_true(r->total_ns >= r0 - a1 && r->total_ns <= r1 - a0);
	r = find(res, n, "wakelock", "binder 0x6000");
	assert_non_null(r);
	assert_int_equal(r->unmatched, 1);
	assert_int_equal(r->acquires, 0);
	r = find(res, n, "sensor", "17");
	assert_non_null(r);
	assert_int_equal(r->acquires, 1);
	assert_int_equal(r->releases, 1);
	assert_true(r->total_ns >= s2 - s1 && r->total_ns <= s3 - a1);
	r = find(res, n, "location", "binder 0x7000");
	assert_non_null(r);
	assert_true(r->held);
	assert_int_equal(r->acquires, 1);
	free(res);
	power_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_binder_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
