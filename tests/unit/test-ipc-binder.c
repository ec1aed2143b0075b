/*
 * test-ipc-binder.c - the Binder buffer decoder (collectors/ipc/ipc_binder.c) on
 * buffers built byte by byte from the 64-bit kernel UAPI layout
 * (linux/android/binder.h): write buffers with BC_TRANSACTION(_SG), read
 * buffers with BR_REPLY, the three Parcel interface-token layouts
 * (Android 9, 10, 11+), and truncated or corrupt buffers, which are refused
 * with a reason.  The Parcel and offsets live in a test arena at a fake
 * address, read through the decoder's read callback.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/android/binder.h>

#include "ipc.h"
#include "ipc_int.h"

#include "binder-build.h"

/* A Parcel with an interface token in the layout of Android API level api
 * (28: policy; 29: policy + work source; 30+: + 'SYST'), then one int32 arg. */
static void parcel_iface(struct bytes *o, int api, const char *iface, uint32_t arg)
{
	put32(o, 0x40000000u);             /* strict mode policy */
	if (api >= 29) put32(o, 0xffffffffu); /* work source uid: none */
	if (api >= 30) put32(o, 0x53595354u); /* 'SYST' */
	put_string16(o, iface);
	put32(o, arg);
}

/* Append a binder_transaction_data (64 bytes) command cmd to w. */
static void put_txn(struct bytes *w, uint32_t cmd, uint32_t handle, uint32_t code, uint32_t flags,
    uint64_t data, uint64_t data_size, uint64_t offs, uint64_t offs_size)
{
	put32(w, cmd);
	put64(w, handle);          /* target: handle in the low 32 bits of the union */
	put64(w, 0);               /* cookie */
	put32(w, code);
	put32(w, flags);
	put32(w, 0);               /* sender_pid */
	put32(w, 0);               /* sender_euid */
	put64(w, data_size);
	put64(w, offs_size);
	put64(w, data);            /* data.ptr.buffer */
	put64(w, offs);            /* data.ptr.offsets */
}

#define MAXT 8
struct seen {
	int n;
	struct ipc_binder_txn t[MAXT];
	uint32_t arg0[MAXT];   /* the first int32 argument, read at args_off */
};

static void collect(const struct ipc_binder_txn *t, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < MAXT);
	s->t[s->n] = *t;
	s->t[s->n].data = NULL;   /* decoder-owned: valid only during the call */
	s->arg0[s->n] = 0;
	if (t->args_off && t->args_off + 4 <= t->data_size)
		memcpy(&s->arg0[s->n], t->data + t->args_off, 4);
	s->n++;
}

/* Our hand layout agrees with the UAPI header's structs. */
static void test_binder_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct binder_transaction_data), 64);
	assert_int_equal(offsetof(struct binder_transaction_data, code), 16);
	assert_int_equal(offsetof(struct binder_transaction_data, data_size), 32);
	assert_int_equal(offsetof(struct binder_transaction_data, data), 48);
	assert_int_equal(sizeof(struct binder_transaction_data_sg), 72);
	assert_int_equal(sizeof(struct flat_binder_object), 24);
	assert_int_equal(_IOC_SIZE(BC_TRANSACTION), 64);
	assert_int_equal(_IOC_SIZE(BC_TRANSACTION_SG), 72);
}

/* Every interface-token layout names the interface and the first argument. */
static void test_binder_iface_layouts(void **state)
{
	static const int apis[] = { 28, 29, 30, 34 };

	(void)state;
	for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++) {
		struct arena a = { .len = 0 };
		struct bytes p = { .len = 0 }, w = { .len = 0 };
		struct seen s = { .n = 0 };
		char err[128] = "";
		uint64_t d;

		parcel_iface(&p, apis[i], "android.os.IServiceManager", 0x1234);
		d = arena_add(&a, p.b, p.len);
		put_txn(&w, BC_TRANSACTION, 0, 2, TF_ACCEPT_FDS, d, p.len, 0, 0);
		assert_int_equal(ipc_binder_decode(w.b, w.len, false, arena_read, &a, collect, &s, err,
		    sizeof err), 0);
		assert_int_equal(s.n, 1);
		assert_int_equal(s.t[0].cmd, BC_TRANSACTION);
		assert_int_equal(s.t[0].handle, 0);
		assert_int_equal(s.t[0].code, 2);
		assert_int_equal(s.t[0].flags, TF_ACCEPT_FDS);
		assert_string_equal(s.t[0].iface, "android.os.IServiceManager");
		assert_int_equal(s.t[0].data_size, p.len);
		assert_int_equal(s.t[0].args_off, p.len - 4);
		assert_int_equal(s.arg0[0], 0x1234);
	}
}

/* A write buffer mixing commands: only the transactions reach fn, with the
 * SG variant, the one-way flag and a handle; a Parcel with a binder object. */
static void test_binder_write_mixed(void **state)
{
	struct arena a = { .len = 0 };
	struct bytes p1 = { .len = 0 }, p2 = { .len = 0 }, o = { .len = 0 }, w = { .len = 0 };
	struct seen s = { .n = 0 };
	char err[128] = "";
	uint64_t d1, d2, offs;

	(void)state;
	parcel_iface(&p1, 30, "android.hardware.ISensorService", 7);
	d1 = arena_add(&a, p1.b, p1.len);
	/* p2: header, then a flat_binder_object (handle 5) at a known offset */
	parcel_iface(&p2, 30, "android.os.IPowerManager", 1);
	size_t obj_off = p2.len;
	put32(&p2, BINDER_TYPE_HANDLE); put32(&p2, 0); put64(&p2, 5); put64(&p2, 0);
	d2 = arena_add(&a, p2.b, p2.len);
	put64(&o, obj_off);
	offs = arena_add(&a, o.b, o.len);

	put32(&w, BC_FREE_BUFFER); put64(&w, 0x1000);
	put32(&w, BC_INCREFS); put32(&w, 3);
	put_txn(&w, BC_TRANSACTION, 9, 0x10, TF_ONE_WAY, d1, p1.len, 0, 0);
	put32(&w, BC_ENTER_LOOPER);
	put_txn(&w, BC_TRANSACTION_SG, 4, 0x5f, 0, d2, p2.len, offs, 8);
	put64(&w, 0);              /* buffers_size */
	assert_int_equal(ipc_binder_decode(w.b, w.len, false, arena_read, &a, collect, &s, err,
	    sizeof err), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.t[0].handle, 9);
	assert_int_equal(s.t[0].code, 0x10);
	assert_true(s.t[0].flags & TF_ONE_WAY);
	assert_string_equal(s.t[0].iface, "android.hardware.ISensorService");
	assert_int_equal(s.t[1].cmd, BC_TRANSACTION_SG);
	assert_int_equal(s.t[1].handle, 4);
	assert_int_equal(s.t[1].code, 0x5f);
	assert_string_equal(s.t[1].iface, "android.os.IPowerManager");
	assert_int_equal(s.t[1].nobjects, 1);
	assert_string_equal(ipc_binder_cmd_name(s.t[1].cmd), "BC_TRANSACTION_SG");
}

/* A read buffer: BR_NOOP, BR_TRANSACTION_COMPLETE, BR_REPLY (no interface). */
static void test_binder_read_reply(void **state)
{
	struct arena a = { .len = 0 };
	struct bytes p = { .len = 0 }, r = { .len = 0 };
	struct seen s = { .n = 0 };
	char err[128] = "";
	uint64_t d;

	(void)state;
	put32(&p, 0); put32(&p, 42);     /* status OK, one int32 result */
	d = arena_add(&a, p.b, p.len);
	put32(&r, BR_NOOP);
	put32(&r, BR_TRANSACTION_COMPLETE);
	put_txn(&r, BR_REPLY, 0, 0, 0, d, p.len, 0, 0);
	assert_int_equal(ipc_binder_decode(r.b, r.len, true, arena_read, &a, collect, &s, err,
	    sizeof err), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.t[0].cmd, BR_REPLY);
	assert_string_equal(s.t[0].iface, "");
	assert_int_equal(s.t[0].data_size, 8);
	/* a dead reply ends a call too: reported with its command only */
	{
		struct bytes d = { .len = 0 };
		struct seen s2 = { .n = 0 };

		put32(&d, BR_NOOP);
		put32(&d, BR_DEAD_REPLY);
		assert_int_equal(ipc_binder_decode(d.b, d.len, true, arena_read, &a, collect, &s2,
		    err, sizeof err), 0);
		assert_int_equal(s2.n, 1);
		assert_int_equal(s2.t[0].cmd, BR_DEAD_REPLY);
		assert_int_equal(s2.t[0].data_size, 0);
	}
	/* the same bytes as a write buffer: BR_ codes are not write commands */
	assert_int_equal(ipc_binder_decode(r.b, r.len, false, arena_read, &a, collect, &s, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "unknown write command"));
}

/* Every cut of a valid write buffer inside a command is refused; cuts at a
 * command boundary decode. */
static void test_binder_truncated(void **state)
{
	struct arena a = { .len = 0 };
	struct bytes p = { .len = 0 }, w = { .len = 0 };
	uint64_t d;
	size_t bounds[] = { 0, 4, 4 + 4 + 64, 4 + 4 + 64 + 4 };

	(void)state;
	parcel_iface(&p, 30, "a.b.IFoo", 1);
	d = arena_add(&a, p.b, p.len);
	put32(&w, BC_ENTER_LOOPER);
	put_txn(&w, BC_TRANSACTION, 1, 1, 0, d, p.len, 0, 0);
	put32(&w, BC_EXIT_LOOPER);
	assert_int_equal(w.len, bounds[3]);
	for (size_t len = 0; len <= w.len; len++) {
		struct seen s = { .n = 0 };
		char err[128] = "";
		bool boundary = false;
		int rc;

		for (size_t k = 0; k < 4; k++)
			boundary |= bounds[k] == len;
		rc = ipc_binder_decode(w.b, len, false, arena_read, &a, collect, &s, err, sizeof err);
		if (boundary) {
			assert_int_equal(rc, 0);
		} else {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(err, "truncated"));
			assert_int_equal(s.n, 0);
		}
	}
}

/* Corrupt transactions: each refused with a reason naming the problem. */
static void test_binder_corrupt(void **state)
{
	struct arena a = { .len = 0 };
	struct bytes p = { .len = 0 }, o = { .len = 0 }, bad = { .len = 0 };
	uint64_t d, offs_ok, offs_bad;
	struct bad_case { uint64_t data, size, offs, offs_size; const char *why; } cases[5];
	int nc = 0;

	(void)state;
	parcel_iface(&p, 30, "a.b.IFoo", 1);
	put32(&p, 0x12345678); put32(&p, 0); put64(&p, 0); put64(&p, 0); /* not a binder type */
	d = arena_add(&a, p.b, p.len);
	put64(&o, p.len - 24);
	offs_ok = arena_add(&a, o.b, o.len);
	put64(&bad, p.len - 8);                          /* object would run past the data */
	offs_bad = arena_add(&a, bad.b, bad.len);
	cases[nc++] = (struct bad_case){ d, IPC_BINDER_MAX_DATA + 1ull, 0, 0, "over" };
	cases[nc++] = (struct bad_case){ 0xdead0000ull, 16, 0, 0, "cannot read" };
	cases[nc++] = (struct bad_case){ d, p.len, offs_ok, 7, "multiple" };
	cases[nc++] = (struct bad_case){ d, p.len, offs_ok, 8, "type 0x12345678" };
	cases[nc++] = (struct bad_case){ d, p.len, offs_bad, 8, "corrupt Parcel" };
	for (int i = 0; i < nc; i++) {
		struct bytes w = { .len = 0 };
		struct seen s = { .n = 0 };
		char err[128] = "";

		put_txn(&w, BC_TRANSACTION, 1, 1, 0, cases[i].data, cases[i].size, cases[i].offs,
		    cases[i].offs_size);
		assert_int_equal(ipc_binder_decode(w.b, w.len, false, arena_read, &a, collect, &s, err,
		    sizeof err), -1);
		assert_non_null(strstr(err, cases[i].why));
		assert_int_equal(s.n, 0);
	}
	/* an unknown command code */
	{
		struct bytes w = { .len = 0 };
		char err[128] = "";

		put32(&w, 0x40046399u);
		assert_int_equal(ipc_binder_decode(w.b, w.len, false, arena_read, &a, collect, NULL,
		    err, sizeof err), -1);
		assert_non_null(strstr(err, "unknown"));
	}
}

/* A Parcel whose descriptor is garbage decodes with no interface rather
 * than inventing one. */
static void test_binder_bad_descriptor(void **state)
{
	struct arena a = { .len = 0 };
	struct bytes p = { .len = 0 }, w = { .len = 0 };
	struct seen s = { .n = 0 };
	char err[128] = "";
	uint64_t d;

	(void)state;
	put32(&p, 0); put32(&p, 0); put32(&p, 0x53595354u);
	put32(&p, 1000);            /* length far past the data */
	put32(&p, 0x00410041u);
	d = arena_add(&a, p.b, p.len);
	put_txn(&w, BC_TRANSACTION, 1, 3, 0, d, p.len, 0, 0);
	assert_int_equal(ipc_binder_decode(w.b, w.len, false, arena_read, &a, collect, &s, err,
	    sizeof err), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.t[0].iface, "");
	assert_int_equal(s.t[0].args_off, 0);
}

static int observed;
static void observer(const struct ipc_binder_txn *t, void *arg)
{
	(void)t;
	observed += *(int *)arg;
}

/* Registered observers see notified transactions. */
static void test_binder_observe(void **state)
{
	static int one = 1;
	struct ipc_binder_txn t = { .cmd = BC_TRANSACTION };

	(void)state;
	ipc_binder_observe(observer, &one);
	ipc_binder_notify(&t);
	ipc_binder_notify(&t);
	assert_int_equal(observed, 2);
}

static struct ipc_binder_txn hook_seen;
static int hook_nseen;
static void hook_observer(const struct ipc_binder_txn *t, void *arg)
{
	(void)arg;
	hook_seen = *t;
	hook_seen.data = NULL;
	hook_nseen++;
}

/* The agent's ioctl (collectors/ipc/ipc_binder_hook.c: ipc_binder_ioctl, its
 * body, called directly: under a sanitizer the runtime's ioctl would be
 * linked instead of the archive's) around the real ioctl on a non-binder
 * fd: it fails with its own errno, which the caller gets, and as the
 * driver took nothing the observers see nothing; other requests pass
 * straight through. */
static void test_binder_hook(void **state)
{
	struct bytes p = { .len = 0 }, w = { .len = 0 };
	struct binder_write_read bwr;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), rc, want;

	(void)state;
	assert_true(fd >= 0);
	parcel_iface(&p, 30, "android.os.IServiceManager", 5);
	put_txn(&w, BC_TRANSACTION, 0, 3, 0, (uint64_t)(uintptr_t)p.b, p.len, 0, 0);
	memset(&bwr, 0, sizeof bwr);
	bwr.write_size = w.len;
	bwr.write_buffer = (uint64_t)(uintptr_t)w.b;
	/* the oracle: the real ioctl's errno (ENOTTY from a kernel; ENOSYS
	 * under qemu user mode, which passes no unknown ioctl on) */
	errno = 0;
	assert_int_equal(syscall(SYS_ioctl, fd, BINDER_WRITE_READ, &bwr), -1);
	want = errno;
	assert_true(want == ENOTTY || want == ENOSYS);
	ipc_binder_observe(hook_observer, NULL);
	errno = 0;
	rc = ipc_binder_ioctl(fd, BINDER_WRITE_READ, &bwr);
	assert_int_equal(rc, -1);
	assert_int_equal(errno, want);
	assert_int_equal(hook_nseen, 0);
	assert_int_equal(ipc_binder_ioctl(fd, FIONREAD, &rc), -1);
	assert_int_equal(hook_nseen, 0);
	close(fd);
}

/* A stand-in for the binder driver: consumes the write buffer and, after
 * 30 ms (the remote side's work), returns BR_NOOP, BR_TRANSACTION_COMPLETE
 * and a BR_REPLY whose Parcel lives in reply_parcel. */
static struct bytes reply_parcel;
static struct bytes reply_read;
static int fake_driver(int fd, unsigned long req, void *arg)
{
	struct binder_write_read *bwr = arg;
	struct timespec ts = { 0, 30000000 };

	(void)fd;
	if (req != BINDER_WRITE_READ)
		return -1;
	bwr->write_consumed = bwr->write_size;
	nanosleep(&ts, NULL);
	reply_read.len = 0;
	put32(&reply_read, BR_NOOP);
	put32(&reply_read, BR_TRANSACTION_COMPLETE);
	put_txn(&reply_read, BR_REPLY, 0, 0, 0, (uint64_t)(uintptr_t)reply_parcel.b,
	    reply_parcel.len, 0, 0);
	assert_true(reply_read.len <= bwr->read_size);
	memcpy((void *)(uintptr_t)bwr->read_buffer, reply_read.b, reply_read.len);
	bwr->read_consumed = reply_read.len;
	return 0;
}

/* A synchronous and a one-way transaction through the hook and a
 * stand-in driver that takes both: the observers see both, once each, with
 * interface and code; one call on the endpoint "handle 7", "IFACE code 9",
 * timed from the BC_TRANSACTION to the BR_REPLY (at least the driver's
 * 30 ms); the one-way transaction is not timed. */
static void test_binder_hook_latency(void **state)
{
	struct bytes p = { .len = 0 }, w = { .len = 0 };
	uint8_t rbuf[256];
	struct binder_write_read bwr;
	uint64_t calls = 0, total = 0, bytes = 0;
	int found = -1;

	(void)state;
	ipc_hot_init();
	parcel_iface(&p, 30, "android.hardware.ILights", 1);
	reply_parcel.len = 0;
	put32(&reply_parcel, 0);
	put_txn(&w, BC_TRANSACTION, 7, 9, 0, (uint64_t)(uintptr_t)p.b, p.len, 0, 0);
	put_txn(&w, BC_TRANSACTION, 7, 10, TF_ONE_WAY, (uint64_t)(uintptr_t)p.b, p.len, 0, 0);
	memset(&bwr, 0, sizeof bwr);
	bwr.write_size = w.len;
	bwr.write_buffer = (uint64_t)(uintptr_t)w.b;
	bwr.read_size = sizeof rbuf;
	bwr.read_buffer = (uint64_t)(uintptr_t)rbuf;
	hook_nseen = 0;
	assert_int_equal(ipc_binder_ioctl_via(fake_driver, 3, BINDER_WRITE_READ, &bwr), 0);
	assert_int_equal(hook_nseen, 2);
	assert_int_equal(hook_seen.code, 10);
	assert_true(hook_seen.flags & TF_ONE_WAY);
	assert_string_equal(hook_seen.iface, "android.hardware.ILights");
	for (uint32_t i = 0; i < ipc_ep_count(); i++) {
		const struct ipc_ep *e = ipc_ep_at(i);

		if (e->kind == IPC_K_BINDER && strcmp(e->name, "handle 7") == 0) {
			assert_string_equal(e->method, "android.hardware.ILights code 9");
			found = (int)i;
		}
	}
	assert_true(found >= 0);
	for (struct ipc_thread *t = ipc_threads(); t; t = t->next) {
		calls += t->st[found].calls;
		total += t->st[found].total_ns;
		bytes += t->st[found].bytes_in;
	}
	assert_int_equal(calls, 1);
	assert_true(total >= 30000000);
	assert_int_equal(bytes, 0);   /* transactions count calls, not bytes */
	for (uint32_t i = 0; i < ipc_ep_count(); i++)   /* the one-way call is not timed */
		assert_null(strstr(ipc_ep_at(i)->method, "code 10"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binder_layout),
		cmocka_unit_test(test_binder_iface_layouts),
		cmocka_unit_test(test_binder_write_mixed),
		cmocka_unit_test(test_binder_read_reply),
		cmocka_unit_test(test_binder_truncated),
		cmocka_unit_test(test_binder_corrupt),
		cmocka_unit_test(test_binder_bad_descriptor),
		cmocka_unit_test(test_binder_observe),
		cmocka_unit_test(test_binder_hook),
		cmocka_unit_test(test_binder_hook_latency),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
