/*
 * test-symbols-map.c - GNU ld map files in the symbol catalogue
 * (collectors/symbols/symbols_map.c, symbols.c): a fixture map written here, in PIE
 * and non-PIE form, broken maps (file:line errors, never a crash), and a
 * stripped copy of this test binary named only by a map (objcopy, binutils).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"
#include "exe-base.h"

/* A map as GNU ld 2.40 prints it (trimmed): discarded sections, .init, a
 * cold part, a wrapped -ffunction-sections name, plain .text input sections
 * with several globals listed out of order, a static function in its own
 * section, a fill, assignments, .fini and .data (both ignored). */
static const char test_map_pie[] =
"Archive member included to satisfy reference by file (symbol)\n\n"
"Discarded input sections\n\n"
" .text          0x0000000000000000        0x0 /tmp/gone.o\n\n"
"Memory Configuration\n\n"
"Name             Origin             Length             Attributes\n"
"*default*        0x0000000000000000 0xffffffffffffffff\n\n"
"Linker script and memory map\n\n"
"LOAD /tmp/x.o\n"
"                [!provide]                        PROVIDE (__executable_start = SEGMENT_START (\"text-segment\", 0x0))\n"
"                0x0000000000000318                . = (SEGMENT_START (\"text-segment\", 0x0) + SIZEOF_HEADERS)\n\n"
".init           0x0000000000001000       0x17\n"
" *(SORT_NONE(.init))\n"
" .init          0x0000000000001000       0x12 /usr/lib/x86_64-linux-gnu/crti.o\n"
"                0x0000000000001000                _init\n\n"
".text           0x0000000000001050      0x160\n"
" *(.text.unlikely .text.*_unlikely .text.unlikely.*)\n"
" .text.unlikely.work\n"
"                0x0000000000001050        0x6 /tmp/x.o\n"
" *(.text.startup .text.startup.*)\n"
" .text.startup.main\n"
"                0x0000000000001060       0x20 /tmp/x.o\n"
"                0x0000000000001060                main\n"
" *(.text .stub .text.* .gnu.linkonce.t.*)\n"
" .text          0x0000000000001080       0x22 /usr/lib/x86_64-linux-gnu/Scrt1.o\n"
"                0x0000000000001080                _start\n"
" *fill*         0x00000000000010a2        0xe \n"
" .text          0x00000000000010b0       0x50 /tmp/y.o\n"
"                0x00000000000010c0                alpha\n"
"                0x00000000000010b0                first_in_y\n"
"                0x00000000000010e0                beta\n"
" .text.helper_static\n"
"                0x0000000000001100       0x15 /tmp/x.o\n"
" .text.work     0x0000000000001120       0x30 /tmp/x.o\n"
"                0x0000000000001120                work\n"
" .text.empty    0x0000000000001150        0x0 /tmp/x.o\n"
"                0x0000000000001190                PROVIDE (__etext = .)\n"
"                0x0000000000001190                etext = .\n\n"
".fini           0x00000000000011b0        0x9\n"
" .fini          0x00000000000011b0        0x4 /usr/lib/x86_64-linux-gnu/crti.o\n"
"                0x00000000000011b0                _fini\n\n"
".data           0x0000000000004000       0x10\n"
" .data          0x0000000000004000        0x4 /tmp/x.o\n"
"                0x0000000000004000                some_var\n"
"OUTPUT(a.out elf64-x86-64)\n";

/* The functions the map above names (link addresses of the PIE form). */
static const struct {
	const char *name;
	uint64_t    addr, size;
	int         bind;
} test_map_want[] = {
	{ "work.cold", 0x1050, 0x6, SYM_BIND_LOCAL },
	{ "main", 0x1060, 0x20, SYM_BIND_GLOBAL },
	{ "_start", 0x1080, 0x22, SYM_BIND_GLOBAL },
	{ "first_in_y", 0x10b0, 0x10, SYM_BIND_GLOBAL },
	{ "alpha", 0x10c0, 0x20, SYM_BIND_GLOBAL },
	{ "beta", 0x10e0, 0x20, SYM_BIND_GLOBAL },
	{ "helper_static", 0x1100, 0x15, SYM_BIND_LOCAL },
	{ "work", 0x1120, 0x30, SYM_BIND_GLOBAL },
};
#define TEST_NWANT (sizeof test_map_want / sizeof test_map_want[0])

/* Link-time PT_LOADs of a PIE (first p_vaddr 0) and of a non-PIE
 * executable (first p_vaddr 0x400000) with the same layout. */
static const struct sym_segment test_segs_pie[] = {
	{ 0x0, 0x700, false }, { 0x1000, 0x1c0, true }, { 0x3df8, 0x228, false },
};
static const struct sym_segment test_segs_nopie[] = {
	{ 0x400000, 0x700, false }, { 0x401000, 0x1c0, true }, { 0x403df8, 0x228, false },
};

/* Write text to a fresh temporary file; returns its path (free it). */
static char *test_write(const char *text, size_t len)
{
	char *path = strdup("/tmp/hs-test-map-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* The PIE fixture turned into the non-PIE one: 0x1xxx -> 0x401xxx. */
static char *test_map_nopie_text(void)
{
	const char *from = "0x0000000000001", *to = "0x0000000000401";
	char *s = strdup(test_map_pie), *p = s;

	assert_non_null(s);
	while ((p = strstr(p, from)) != NULL) {
		memcpy(p, to, strlen(to));
		p += strlen(to);
	}
	return s;
}

/* Every wanted function at link address + shift, nothing else. */
static void test_map_check(const struct symtab *t, uint64_t shift)
{
	assert_int_equal(t->n, TEST_NWANT);
	assert_int_equal(t->nsrc[SYM_SRC_MAP], TEST_NWANT);
	for (size_t i = 0; i < TEST_NWANT; i++) {
		const struct symtab_sym *s = symtab_lookup(t, test_map_want[i].addr + shift);

		assert_non_null(s);
		assert_string_equal(s->name, test_map_want[i].name);
		assert_int_equal(s->offset, test_map_want[i].addr + shift);
		assert_int_equal(s->size, test_map_want[i].size);
		assert_int_equal(s->bind, test_map_want[i].bind);
		assert_int_equal(s->src, SYM_SRC_MAP);
		/* The last byte belongs to it, the next byte not. */
		assert_ptr_equal(symtab_lookup(t, s->offset + s->size - 1), s);
		assert_ptr_not_equal(symtab_lookup(t, s->offset + s->size), s);
	}
}

/* PIE: offset = printed address (first PT_LOAD p_vaddr is 0, bias = base). */
static void test_map_pie_form(void **state)
{
	char *path = test_write(test_map_pie, strlen(test_map_pie));
	struct symtab *t;
	char err[512];

	(void)state;
	assert_int_equal(symtab_load_map(path, test_segs_pie, 3, &t, err, sizeof err), 0);
	test_map_check(t, 0);
	symtab_free(t);
	/* The PIE map does not fit a module linked at 0x400000. */
	assert_int_equal(symtab_load_map(path, test_segs_nopie, 3, &t, err, sizeof err), -1);
	assert_null(t);
	assert_non_null(strstr(err, "outside the module's code segments"));
	assert_non_null(strstr(err, path));
	unlink(path);
	free(path);
}

/* Non-PIE: bias 0, offset = printed address (0x401xxx), not address minus
 * the first p_vaddr. */
static void test_map_nopie(void **state)
{
	char *text = test_map_nopie_text(), *path = test_write(text, strlen(text));
	struct symtab *t;
	char err[512];

	(void)state;
	assert_int_equal(symtab_load_map(path, test_segs_nopie, 3, &t, err, sizeof err), 0);
	test_map_check(t, 0x400000);
	symtab_free(t);
	assert_int_equal(symtab_load_map(path, test_segs_pie, 3, &t, err, sizeof err), -1);
	assert_null(t);
	unlink(path);
	free(path);
	free(text);
}

/* A broken map is refused with "FILE:LINE: what" (or a file-level reason). */
static void test_map_bad_one(const char *text, size_t len, int line, const char *what)
{
	char *path = test_write(text, len);
	struct symtab *t = (struct symtab *)1;
	char err[512] = "", want[512];

	assert_int_equal(symtab_load_map(path, NULL, 0, &t, err, sizeof err), -1);
	assert_null(t);
	if (line > 0)
		snprintf(want, sizeof want, "%s:%d: ", path, line);
	else
		snprintf(want, sizeof want, "%s", path);
	if (strstr(err, want) == NULL || strstr(err, what) == NULL)
		fail_msg("map %s: error \"%s\" lacks \"%s\" and \"%s\"", text, err, want, what);
	unlink(path);
	free(path);
}

#define HDR "Linker script and memory map\n\n.text 0x1000 0x100\n"
#define SEC " .text          0x0000000000001000       0x40 a.o\n"

static void test_map_malformed(void **state)
{
	static const char nul[] = HDR SEC "   0x1000 fo\0o\n";
	char *big;

	(void)state;
	test_map_bad_one(HDR SEC "                0x10zz                foo\n",
	    strlen(HDR SEC "                0x10zz                foo\n"), 5, "bad address");
	test_map_bad_one(HDR SEC "                0x2000                foo\n",
	    strlen(HDR SEC "                0x2000                foo\n"), 5, "outside its input section");
	test_map_bad_one(HDR " .text          0x0000000000001000       0xq a.o\n",
	    strlen(HDR " .text          0x0000000000001000       0xq a.o\n"), 4, "valid address and size");
	test_map_bad_one(HDR " .text.long_name\n garbage\n",
	    strlen(HDR " .text.long_name\n garbage\n"), 5, "wrapped input section");
	test_map_bad_one(HDR " .text.long_name\n", strlen(HDR " .text.long_name\n"), 4,
	    "file ends inside");
	test_map_bad_one(HDR "                0x1000                foo\n",
	    strlen(HDR "                0x1000                foo\n"), 4, "outside any input section");
	test_map_bad_one(HDR " .text 0xffffffffffffff00 0x200 a.o\n",
	    strlen(HDR " .text 0xffffffffffffff00 0x200 a.o\n"), 4, "wraps around");
	test_map_bad_one(nul, sizeof nul - 1, 5, "binary data");
	test_map_bad_one("", 0, 0, "not a GNU ld map file");
	test_map_bad_one("hello\nworld\n", 12, 0, "not a GNU ld map file");
	test_map_bad_one(HDR SEC, strlen(HDR SEC), 0, "no function symbols");
	big = malloc(100000);
	assert_non_null(big);
	memset(big, 'x', 99999);
	big[99999] = '\n';
	test_map_bad_one(big, 100000, 1, "line too long");
	free(big);
	/* Random bytes after the header: an error or nothing, never a crash. */
	for (unsigned seed = 1; seed <= 50; seed++) {
		char buf[2048], err[256], *path;
		struct symtab *t;
		size_t n = strlen(test_map_pie) < sizeof buf ? strlen(test_map_pie) : sizeof buf;

		memcpy(buf, test_map_pie, n);
		srand(seed);
		for (int k = 0; k < 20; k++)
			buf[600 + (size_t)rand() % (n - 600)] = (char)(rand() % 96 + 32);
		path = test_write(buf, n);
		if (symtab_load_map(path, NULL, 0, &t, err, sizeof err) == 0)
			symtab_free(t);
		unlink(path);
		free(path);
	}
	{
		struct symtab *t = (struct symtab *)1;
		char err[512];

		assert_int_equal(symtab_load_map("/nonexistent/x.map", NULL, 0, &t, err, sizeof err), -1);
		assert_non_null(strstr(err, "cannot open map file /nonexistent/x.map"));
	}
}

__attribute__((noinline, used)) static int test_map_static(int x)
{
	return x * 7 + 3;
}

__attribute__((noinline)) int test_map_global(int x);
__attribute__((noinline)) int test_map_global(int x)
{
	return x * 11 + test_map_static(x);
}

/* A map of this binary for its two test functions (as ld would print them:
 * the global in a plain .text section, the static in its own section). */
static char *test_self_map(const struct symtab *self, uint64_t *gap)
{
	uint64_t base = test_exe_base();
	const struct symtab_sym *g = symtab_lookup(self, (uintptr_t)test_map_global - base);
	const struct symtab_sym *s = symtab_lookup(self, (uintptr_t)test_map_static - base);
	char text[2048];
	int n;

	assert_non_null(g);
	assert_non_null(s);
	n = snprintf(text, sizeof text, "Linker script and memory map\n\n"
	    ".text           0x%016llx      0x1000\n"
	    " .text          0x%016llx       0x%llx /tmp/t.o\n"
	    "                0x%016llx                test_map_global\n"
	    " .text.test_map_static\n"
	    "                0x%016llx       0x%llx /tmp/t.o\n",
	    (unsigned long long)g->offset, (unsigned long long)g->offset,
	    (unsigned long long)g->size, (unsigned long long)g->offset,
	    (unsigned long long)s->offset, (unsigned long long)s->size);
	/* Optionally a function in a gap between two symbols of the table. */
	if (gap != NULL) {
		*gap = 0;
		for (size_t i = 0; i + 1 < self->n && *gap == 0; i++) {
			const struct symtab_sym *a = &self->syms[i];

			if (a->size > 0 && a->offset + a->size + 4 <= self->syms[i + 1].offset &&
			    a->src == SYM_SRC_SYMTAB && a->offset > g->offset)
				*gap = a->offset + a->size;
		}
		assert_true(*gap != 0);
		n += snprintf(text + n, sizeof text - (size_t)n,
		    " .text          0x%016llx        0x4 /tmp/u.o\n"
		    "                0x%016llx                map_hole_fn\n",
		    (unsigned long long)*gap, (unsigned long long)*gap);
	}
	return test_write(text, (size_t)n);
}

/* objcopy --strip-all of this binary into a temporary file. */
static char *test_stripped_self(void)
{
	char *path = strdup("/tmp/hs-test-stripped-XXXXXX"), cmd[1024], self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	int fd;

	assert_true(n > 0);
	self[n] = '\0';
	if (system("command -v objcopy >/dev/null 2>&1") != 0)
		fail_msg("objcopy not found: install binutils (mk/deps.sh TEST_PKGS)");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "objcopy --strip-all '%s' '%s'", self, path);
	assert_int_equal(system(cmd), 0);
	return path;
}

/* A stripped executable (PIE): names come from the map only, and
 * runtime address = load bias + offset. */
static void test_map_stripped(void **state)
{
	struct symtab *self, *t;
	char err[512], *map, *bin = test_stripped_self();
	struct symtab_opts opts = { .debug_root = "/nonexistent" };
	uint64_t base = test_exe_base();
	const struct symtab_sym *s;

	(void)state;
	assert_int_equal(symtab_load("/proc/self/exe", &self, err, sizeof err), 0);
	map = test_self_map(self, NULL);
	/* Without the map, the static function has no name. */
	if (symtab_load_opts(bin, &opts, &t, err, sizeof err) == 0) {
		s = symtab_lookup(t, (uintptr_t)test_map_static - base);
		assert_true(s == NULL || strcmp(s->name, "test_map_static") != 0);
		symtab_free(t);
	}
	opts.map_path = map;
	assert_int_equal(symtab_load_opts(bin, &opts, &t, err, sizeof err), 0);
	assert_null(t->notes);
	s = symtab_lookup(t, (uintptr_t)test_map_global - base);
	assert_non_null(s);
	assert_string_equal(s->name, "test_map_global");
	assert_int_equal(s->offset, (uintptr_t)test_map_global - base);
	assert_int_equal(s->src, SYM_SRC_MAP);
	assert_int_equal(s->bind, SYM_BIND_GLOBAL);
	s = symtab_lookup(t, (uintptr_t)test_map_static - base + 1);
	assert_non_null(s);
	assert_string_equal(s->name, "test_map_static");
	assert_int_equal(s->offset, (uintptr_t)test_map_static - base);
	assert_int_equal(s->bind, SYM_BIND_LOCAL);
	assert_int_equal(s->size, symtab_lookup(self, s->offset)->size);
	symtab_free(t);
	symtab_free(self);
	unlink(map);
	unlink(bin);
	free(map);
	free(bin);
}

/* With a .symtab, map symbols only fill holes; a bad map is a note. */
static void test_map_fills_holes(void **state)
{
	struct symtab *self, *t;
	struct symtab_opts opts = { 0 };
	char err[512], *map, *bad;
	uint64_t gap, base = test_exe_base();
	const struct symtab_sym *s;

	(void)state;
	assert_int_equal(symtab_load("/proc/self/exe", &self, err, sizeof err), 0);
	map = test_self_map(self, &gap);
	opts.map_path = map;
	assert_int_equal(symtab_load_opts("/proc/self/exe", &opts, &t, err, sizeof err), 0);
	assert_int_equal(t->n, self->n + 1);
	assert_int_equal(t->nsrc[SYM_SRC_MAP], 1);
	s = symtab_lookup(t, (uintptr_t)test_map_global - base);
	assert_string_equal(s->name, "test_map_global");
	assert_int_equal(s->src, SYM_SRC_SYMTAB);
	s = symtab_lookup(t, gap + 3);
	assert_non_null(s);
	assert_string_equal(s->name, "map_hole_fn");
	assert_int_equal(s->src, SYM_SRC_MAP);
	assert_int_equal(s->offset, gap);
	symtab_free(t);

	/* The same through HOOKSCOPE_MAP in this process: a malformed entry is
	 * skipped, the glob matches the executable's base name. */
	{
		char env[700];
		struct sym_info si;

		snprintf(env, sizeof env, "junk:libnothing.so*=/x.map:test-symbols-m?p=%s", map);
		setenv("HOOKSCOPE_MAP", env, 1);
		sym_cache_free();
		assert_int_equal(sym_resolve(base + gap + 1, &si), 0);
		assert_string_equal(si.name, "map_hole_fn");
		assert_int_equal(si.src, SYM_SRC_MAP);
		assert_int_equal(si.start, gap);
		assert_int_equal(sym_resolve((uintptr_t)test_map_global, &si), 0);
		assert_int_equal(si.src, SYM_SRC_SYMTAB);
		unsetenv("HOOKSCOPE_MAP");
		sym_cache_free();
	}

	bad = test_write(HDR SEC "   0xnothex  foo\n", strlen(HDR SEC "   0xnothex  foo\n"));
	opts.map_path = bad;
	assert_int_equal(symtab_load_opts("/proc/self/exe", &opts, &t, err, sizeof err), 0);
	assert_int_equal(t->n, self->n);
	assert_non_null(t->notes);
	snprintf(err, sizeof err, "%s:5: bad address", bad);
	assert_non_null(strstr(t->notes, err));
	symtab_free(t);
	symtab_free(self);
	unlink(map);
	unlink(bad);
	free(map);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_pie_form),
		cmocka_unit_test(test_map_nopie),
		cmocka_unit_test(test_map_malformed),
		cmocka_unit_test(test_map_stripped),
		cmocka_unit_test(test_map_fills_holes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
