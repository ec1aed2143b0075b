/*
 * test-hook-pages.c - a batch of live-code writes (hook_pages.c) on a
 * private, read+exec mapping of a real file, as a module's text is mapped:
 * the bytes written land, the mapping's other bytes and the file do not
 * change, and the pages have their own protection after the batch.  Both
 * ways: through /proc/self/mem (no protection changes during the batch
 * either) where the back-end allows it, and, with no file descriptor left
 * to open /proc/self/mem, by making the pages writable for the batch.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backend.h"
#include "hook.h"
#include "hook_int.h"

#define TEST_PAGES 8

static size_t test_pg;

/* The protection /proc/self/maps shows for the mapping holding a: "r-xp". */
static void test_perms(const void *a, char out[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	strcpy(out, "????");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL) {
		unsigned long lo, hi;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
		    (uintptr_t)a >= lo && (uintptr_t)a < hi) {
			memcpy(out, perms, 5);
			break;
		}
	}
	fclose(f);
}

/* TEST_PAGES pages of a file of known bytes, mapped private read+exec, and
 * a module describing them as one executable segment. */
static uint8_t *test_map(struct hook_mod *m, char *path, size_t pathlen)
{
	int fd;
	uint8_t *buf = malloc(TEST_PAGES * test_pg), *p;

	snprintf(path, pathlen, "/tmp/test-hook-pages.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	for (size_t i = 0; i < TEST_PAGES * test_pg; i++)
		buf[i] = (uint8_t)(i * 7);
	assert_int_equal(write(fd, buf, TEST_PAGES * test_pg), (ssize_t)(TEST_PAGES * test_pg));
	free(buf);
	p = mmap(NULL, TEST_PAGES * test_pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	memset(m, 0, sizeof *m);
	snprintf(m->path, sizeof m->path, "%s", path);
	m->segs[0].start = (uintptr_t)p;
	m->segs[0].end = (uintptr_t)p + TEST_PAGES * test_pg;
	m->segs[0].prot = PROT_READ | PROT_EXEC;
	m->nsegs = 1;
	return p;
}

/* Write 5 bytes on pages 0, 3 and 4 (across the page boundary) in one
 * batch; no_fd: the batch opens with no descriptor left, so not through
 * /proc/self/mem. */
static void test_batch(bool no_fd)
{
	struct hook_mod m;
	struct hook_pages ps = { 0 };
	struct rlimit old, none;
	char path[64], perms[5];
	static const uint8_t five[] = { 0xe9, 0x11, 0x22, 0x33, 0x44 };
	size_t at[] = { 16, 3 * test_pg + 100, 5 * test_pg - 2 };
	uint8_t *p = test_map(&m, path, sizeof path);
	/* The back-ends whose live writes are single stores never use it. */
	bool mem = !no_fd && hook_backend.code_swap == NULL;
	int fd;

	for (size_t i = 0; i < 3; i++)
		hook_pages_add(&ps, &m, (uintptr_t)p + at[i], sizeof five);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	if (no_fd) {
		fd = dup(0);
		assert_true(fd >= 0);
		none = old;
		none.rlim_cur = (rlim_t)fd;
		close(fd);
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
	}
	assert_int_equal(hook_pages_open(&ps), 0);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(ps.mem != 0, mem);
	test_perms(p + 3 * test_pg, perms);
	assert_string_equal(perms, mem ? "r-xp" : "rwxp");
	for (size_t i = 0; i < 3; i++)
		hook_code_write(p + at[i], five, sizeof five);
	hook_code_put1(p + 1, 0xcc);
	hook_pages_close(&ps);
	for (size_t i = 0; i < 3; i++)
		assert_memory_equal(p + at[i], five, sizeof five);
	assert_int_equal(p[1], 0xcc);
	/* Everything else as in the file, and the file as it was. */
	for (size_t i = 0; i < TEST_PAGES * test_pg; i++) {
		bool written = i == 1;

		for (size_t k = 0; k < 3; k++)
			written |= i >= at[k] && i < at[k] + sizeof five;
		if (!written && p[i] != (uint8_t)(i * 7))
			fail_msg("byte %zu changed: %#x", i, p[i]);
	}
	for (size_t i = 0; i < TEST_PAGES; i++) {
		test_perms(p + i * test_pg, perms);
		assert_string_equal(perms, "r-xp");
	}
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	for (size_t i = 0; i < 3; i++) {
		uint8_t b;

		assert_int_equal(pread(fd, &b, 1, (off_t)at[i]), 1);
		assert_int_equal(b, (uint8_t)(at[i] * 7));
	}
	close(fd);
	munmap(p, TEST_PAGES * test_pg);
	unlink(path);
}

static void test_by_mem(void **state)
{
	(void)state;
	test_batch(false);
}

static void test_by_mprotect(void **state)
{
	(void)state;
	test_batch(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_mem),
		cmocka_unit_test(test_by_mprotect),
	};

	test_pg = (size_t)sysconf(_SC_PAGESIZE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
