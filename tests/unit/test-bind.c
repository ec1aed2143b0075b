/*
 * test-bind.c - the wrapper tables (collectors/agent/bind.c): which modules
 * a table's scope holds, what is never bound after an attach, and the way
 * out of a blocking wrapper: a thread asleep in read() inside a wrapper is
 * let out (bind_let_out returns while it still waits) and its read still
 * returns the byte written afterwards.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bind.h"

static int fake_recv, fake_lookup;
static void *real_recv, *real_lookup;
static const struct bind_fn fake_fns[] = {
	{ "recv", &fake_recv, &real_recv, 0 },
	{ "glXGetProcAddress", &fake_lookup, &real_lookup, BIND_NOATTACH },
};
static const struct bind_table fake_table = {
	.who = "test", .libs = "libdbus-1.so*:libglib-2.0.so*", .fns = fake_fns, .n = 2,
};

/* Own modules always, system libraries by the globs; NOATTACH never. */
static void test_bind_scope(void **state)
{
	size_t k = bind_ntables();

	(void)state;
	bind_add(&fake_table);
	assert_int_equal(bind_ntables(), k + 1);
	assert_ptr_equal(bind_find(k, "recv", "/usr/bin/socat", true), &fake_fns[0]);
	assert_ptr_equal(bind_find(k, "recv", "/lib/x86_64-linux-gnu/libdbus-1.so.3", false),
	    &fake_fns[0]);
	assert_ptr_equal(bind_find(k, "recv", "/lib/x86_64-linux-gnu/libglib-2.0.so.0", false),
	    &fake_fns[0]);
	assert_null(bind_find(k, "recv", "/lib/x86_64-linux-gnu/libz.so.1", false));
	assert_null(bind_find(k, "send", "/usr/bin/socat", true));
	assert_null(bind_find(k, "glXGetProcAddress", "/usr/bin/glxgears", true));
}

/* A wrapper of read, as the collectors write them. */
static ssize_t wrapped_read(int fd, void *buf, size_t n)
{
	ssize_t r;

	BIND_BLOCKING(r, read(fd, buf, n));
	return r;
}

struct reader {
	int     fd;
	int32_t tid;
	ssize_t r;
	char    c;
};

static void *reader_run(void *arg)
{
	struct reader *rd = arg;

	__atomic_store_n(&rd->tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	rd->r = wrapped_read(rd->fd, &rd->c, 1);
	return NULL;
}

/* Is thread tid asleep in read (system call 0 on x86-64, 63 on arm64)?
 * Under qemu user mode /proc shows the host's system call: an arm64
 * thread asleep in read shows x86-64's 0 (io_setup on arm64, which no
 * thread here makes). */
static bool in_read(int32_t tid)
{
	char path[64], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	if (fgets(buf, sizeof buf, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	return strncmp(buf, "0 ", 2) == 0 || (SYS_read == 63 && strncmp(buf, "63 ", 3) == 0);
}

static void test_bind_let_out(void **state)
{
	struct reader rd = { .r = -2 };
	struct timespec nap = { 0, 1000000 };
	char err[128] = "";
	int p[2], i;
	pthread_t t;

	(void)state;
	assert_int_equal(pipe(p), 0);
	rd.fd = p[0];
	assert_int_equal(pthread_create(&t, NULL, reader_run, &rd), 0);
	for (i = 0; i < 5000 && !(__atomic_load_n(&rd.tid, __ATOMIC_ACQUIRE) && in_read(rd.tid)); i++)
		nanosleep(&nap, NULL);
	assert_true(i < 5000);
	assert_int_equal(bind_let_out(1000, err, sizeof err), 0);
	assert_int_equal(rd.r, -2);             /* still waiting: nothing written yet */
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(rd.r, 1);
	assert_int_equal(rd.c, 'x');
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bind_scope),
		cmocka_unit_test(test_bind_let_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
