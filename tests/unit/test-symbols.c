/*
 * test-symbols.c - the agent's symbol tables (collectors/symbols/symbols.c), tested
 * on this test binary itself, on libc, and on broken files written here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"
#include "exe-base.h"

/* Two functions to look up: a static one (only in .symtab) and a global. */
__attribute__((noinline, used)) static int test_static_target(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int test_global_target(int x);
__attribute__((noinline)) int test_global_target(int x)
{
	return x * 5 + test_static_target(x);
}

__attribute__((noinline, visibility("hidden"))) int test_hidden_target(int x);
__attribute__((noinline, visibility("hidden"))) int test_hidden_target(int x)
{
	return x * 9 + test_global_target(x);
}

/* Load this binary's table once for the lookups. */
static int test_setup(void **state)
{
	struct symtab *t;
	char err[256];

	if (symtab_load("/proc/self/exe", &t, err, sizeof err) < 0) {
		print_error("symtab_load: %s\n", err);
		return -1;
	}
	*state = t;
	return 0;
}

static int test_teardown(void **state)
{
	symtab_free(*state);
	return 0;
}

/* The test binary is not stripped: its .symtab is used and is sorted. */
static void test_load_self(void **state)
{
	const struct symtab *t = *state;

	assert_non_null(t);
	assert_true(t->n > 10);
	assert_false(t->dynamic);
	for (size_t i = 1; i < t->n; i++)
		assert_true(t->syms[i - 1].offset < t->syms[i].offset);
}

/* Look up one function by its runtime address and check name and start. */
static void test_lookup_fn(const struct symtab *t, void *fn, const char *name)
{
	uint64_t off = (uintptr_t)fn - test_exe_base();
	const struct symtab_sym *s = symtab_lookup(t, off);

	assert_non_null(s);
	assert_string_equal(s->name, name);
	assert_int_equal(s->offset, off);
	assert_true(s->size > 0);
}

static void test_lookup_static(void **state)
{
	test_lookup_fn(*state, (void *)(uintptr_t)test_static_target, "test_static_target");
}

static void test_lookup_global(void **state)
{
	test_lookup_fn(*state, (void *)(uintptr_t)test_global_target, "test_global_target");
}

/* First and last byte of a function hit it; one past the end and one
 * before the start do not. */
static void test_lookup_bounds(void **state)
{
	const struct symtab *t = *state;
	uint64_t off = (uintptr_t)test_global_target - test_exe_base();
	const struct symtab_sym *s = symtab_lookup(t, off);

	assert_non_null(s);
	assert_ptr_equal(symtab_lookup(t, s->offset + s->size - 1), s);
	assert_ptr_not_equal(symtab_lookup(t, s->offset + s->size), s);
	assert_ptr_not_equal(symtab_lookup(t, s->offset - 1), s);
	assert_null(symtab_lookup(t, 0));
	assert_null(symtab_lookup(t, t->syms[0].offset - 1));
	assert_null(symtab_lookup(t, UINT64_MAX));
	assert_ptr_equal(symtab_lookup(t, t->syms[0].offset), &t->syms[0]);
	assert_null(symtab_lookup(NULL, off));
}

/* Write len bytes to a fresh temporary file; returns its path. */
static char *test_write_file(const void *data, size_t len)
{
	char *path = strdup("/tmp/hs-test-symbols-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

/* A file must be refused with a message naming it, and nothing returned. */
static void test_rejects(const char *path)
{
	struct symtab *t = (struct symtab *)1;
	char err[256] = "";

	assert_int_equal(symtab_load(path, &t, err, sizeof err), -1);
	assert_null(t);
	assert_non_null(strstr(err, path));
}

/* Missing, empty, not ELF, ELF header with garbage, truncated ELF. */
static void test_reject_corrupt(void **state)
{
	static const char garbage[] = "this is not an ELF file at all\n";
	unsigned char hdr[512];
	char *path;
	ssize_t n;
	int fd;

	(void)state;
	test_rejects("/nonexistent/hookscope/file");
	path = test_write_file("", 0);
	test_rejects(path);
	unlink(path);
	free(path);
	path = test_write_file(garbage, sizeof garbage);
	test_rejects(path);
	unlink(path);
	free(path);

	/* A real ELF header whose section table lies far beyond the file. */
	fd = open("/proc/self/exe", O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, hdr, sizeof hdr);
	close(fd);
	assert_int_equal(n, (ssize_t)sizeof hdr);
	path = test_write_file(hdr, sizeof hdr);
	test_rejects(path);
	unlink(path);
	free(path);

	/* The same header with random bytes after the identification. */
	for (size_t i = 16; i < sizeof hdr; i++)
		hdr[i] = (unsigned char)(i * 131 + 7);
	path = test_write_file(hdr, sizeof hdr);
	test_rejects(path);
	unlink(path);
	free(path);

	/* A directory is not a file. */
	test_rejects("/tmp");
}

/* sym_resolve: a function of this binary, a libc function (.dynsym only on
 * Debian: the alias without underscores wins), and an address in no module. */
static void test_resolve(void **state)
{
	struct sym_info si;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	int local = 0;

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(sym_resolve((uintptr_t)test_static_target, &si), 0);
	assert_string_equal(si.name, "test_static_target");
	assert_string_equal(si.module, self);
	assert_int_equal(si.offset, (uintptr_t)test_static_target - test_exe_base());
	assert_int_equal(si.start, si.offset);
	assert_int_equal(si.bind, SYM_BIND_LOCAL);
	assert_int_equal(si.src, SYM_SRC_SYMTAB);
	assert_int_equal(sym_resolve((uintptr_t)test_global_target + 1, &si), 0);
	assert_string_equal(si.name, "test_global_target");
	assert_int_equal(si.start + 1, si.offset);
	assert_int_equal(si.bind, SYM_BIND_GLOBAL);
	assert_int_equal(si.vis, SYM_VIS_DEFAULT);
	assert_int_equal(sym_resolve((uintptr_t)test_hidden_target, &si), 0);
	assert_string_equal(si.name, "test_hidden_target");
	assert_int_equal(si.vis, SYM_VIS_HIDDEN);

	/* getpid: in libc's .dynsym with the alias __getpid; no sanitizer
	 * intercepts it (fopen would resolve to ASan's interceptor). */
	assert_int_equal(sym_resolve((uintptr_t)getpid, &si), 0);
	assert_string_equal(si.name, "getpid");
	assert_non_null(strstr(si.module, "libc"));

	assert_int_equal(sym_resolve((uintptr_t)&local, &si), -1);
	assert_null(si.name);
	assert_string_equal(si.module, "");
	sym_cache_free();
}

/* One table per file: the executable by its path and as /proc/self/exe
 * (the catalogue's way) is loaded once, and lives until its last holder
 * lets go; the catalogue's lookups share it too. */
static void test_shared(void **state)
{
	struct symtab *a, *b, *c;
	struct sym_info si;
	char self[4096], err[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(symtab_load_module(self, &a, err, sizeof err), 0);
	assert_int_equal(symtab_load_module(self, &b, err, sizeof err), 0);
	assert_ptr_equal(a, b);
	symtab_release(b);
	a->nsrc[0] += 12345;            /* a mark no fresh load has */
	/* sym_resolve loads the executable as /proc/self/exe: the same table */
	assert_int_equal(sym_resolve((uintptr_t)test_global_target, &si), 0);
	assert_string_equal(si.name, "test_global_target");
	symtab_release(a);
	/* only the catalogue holds it now: still the same table */
	assert_int_equal(symtab_load_module(self, &c, err, sizeof err), 0);
	assert_true(c->nsrc[0] >= 12345);
	assert_non_null(symtab_lookup(c, (uintptr_t)test_static_target - test_exe_base()));
	sym_cache_free();               /* the catalogue lets go */
	assert_non_null(symtab_lookup(c, (uintptr_t)test_static_target - test_exe_base()));
	symtab_release(c);              /* the last: freed (a sanitizer build sees a leak or a double free) */
	assert_int_equal(symtab_load_module(self, &b, err, sizeof err), 0);
	assert_non_null(symtab_lookup(b, (uintptr_t)test_static_target - test_exe_base()));
	symtab_release(b);
	assert_int_equal(symtab_load_module("/nonexistent/lib.so", &b, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/lib.so"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_load_self, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_lookup_static, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_lookup_global, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_lookup_bounds, test_setup, test_teardown),
		cmocka_unit_test(test_reject_corrupt),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_shared),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
