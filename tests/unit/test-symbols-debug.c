/*
 * test-symbols-debug.c - separate debug files and modules loaded later
 * (collectors/symbols/symbols_debug.c, symbols_proc.c): libc's static functions
 * through its build-id debug file (libc6-dbg), a .gnu_debuglink fixture made
 * with objcopy in its three places and with a wrong CRC, and a library
 * dlopened and dlclosed while the catalogue is in use.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols.h"

__attribute__((noinline, used)) static int test_dbg_static(int x)
{
	return x * 13 + 5;
}

/* Query of the dl_iterate_phdr callback below. */
struct test_mod {
	const char *part;
	char        path[512];
	uintptr_t   bias;
};

static int test_mod_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct test_mod *m = arg;

	(void)size;
	if (info->dlpi_name == NULL || strstr(info->dlpi_name, m->part) == NULL)
		return 0;
	snprintf(m->path, sizeof m->path, "%s", info->dlpi_name);
	m->bias = info->dlpi_addr;
	return 1;
}

/* libc has no .symtab on Debian; libc6-dbg's build-id file has one, with
 * the static functions.  Resolving a runtime address of one names it. */
static void test_libc_debug(void **state)
{
	struct test_mod m = { .part = "libc.so" };
	struct symtab_opts none = { .debug_root = "/nonexistent" };
	struct symtab *t, *dyn;
	const struct symtab_sym *local = NULL;
	size_t nlocal = 0;
	struct sym_info si;
	char err[512];

	(void)state;
	dl_iterate_phdr(test_mod_cb, &m);
	assert_true(m.path[0] != '\0');
	if (access("/usr/lib/debug/.build-id", F_OK) != 0)
		fail_msg("no /usr/lib/debug/.build-id: install libc6-dbg (mk/deps.sh TEST_PKGS)");
	assert_int_equal(symtab_load(m.path, &t, err, sizeof err), 0);
	if (t->debug_file == NULL)
		fail_msg("libc's debug file was not found (libc6-dbg matching libc6?): %s",
		    t->notes ? t->notes : "no note");
	assert_non_null(strstr(t->debug_file, "/.build-id/"));
	assert_false(t->dynamic);
	assert_int_equal(t->nsrc[SYM_SRC_DEBUG], t->n);
	for (size_t i = 0; i < t->n; i++) {
		/* versioned names ("f@@GLIBC_2.17") are cut to the function */
		assert_null(strchr(t->syms[i].name, '@'));
		if (t->syms[i].bind != SYM_BIND_LOCAL)
			continue;
		nlocal++;
		if (strcmp(t->syms[i].name, "check_one_fd") == 0 || (local == NULL && t->syms[i].size > 0))
			local = &t->syms[i];
	}
	printf("libc: %zu functions from %s, %zu local\n", t->n, t->debug_file, nlocal);
	assert_true(nlocal > 500);
	assert_non_null(local);

	/* Without debug files: only the exports, no static function. */
	assert_int_equal(symtab_load_opts(m.path, &none, &dyn, err, sizeof err), 0);
	assert_true(dyn->dynamic);
	assert_true(dyn->n < t->n);
	assert_int_equal(dyn->nsrc[SYM_SRC_DYNSYM], dyn->n);
	assert_true(symtab_lookup(dyn, local->offset) == NULL ||
	    strcmp(symtab_lookup(dyn, local->offset)->name, local->name) != 0);
	symtab_free(dyn);

	/* In the process: the static function is named at its runtime address. */
	assert_int_equal(sym_resolve(m.bias + local->offset, &si), 0);
	assert_string_equal(si.name, local->name);
	assert_int_equal(si.src, SYM_SRC_DEBUG);
	assert_int_equal(si.bind, SYM_BIND_LOCAL);
	assert_int_equal(si.start, local->offset);
	symtab_free(t);
	sym_cache_free();
}

/* Run a shell command, failing the test if it fails. */
static void test_sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

/* Load bin with debug root root: want_dbg must be the debug file used and
 * name test_dbg_static; NULL: the debug file must be refused for its CRC. */
static void test_link_expect(const char *bin, const char *root, const char *want_dbg)
{
	struct symtab_opts opts = { .debug_root = root };
	struct symtab *t;
	char err[512], self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	struct symtab *me;
	const struct symtab_sym *s;
	uintptr_t fn = (uintptr_t)test_dbg_static;

	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(symtab_load(self, &me, err, sizeof err), 0);
	/* The offset of test_dbg_static, from our own symtab. */
	for (size_t i = 0; i < me->n; i++)
		if (strcmp(me->syms[i].name, "test_dbg_static") == 0)
			fn = me->syms[i].offset;
	if (symtab_load_opts(bin, &opts, &t, err, sizeof err) < 0) {
		assert_null(want_dbg);
		symtab_free(me);
		return;
	}
	if (want_dbg == NULL) {
		assert_null(t->debug_file);
		assert_non_null(t->notes);
		assert_non_null(strstr(t->notes, "CRC"));
	} else {
		assert_non_null(t->debug_file);
		assert_string_equal(t->debug_file, want_dbg);
		s = symtab_lookup(t, fn);
		assert_non_null(s);
		assert_string_equal(s->name, "test_dbg_static");
		assert_int_equal(s->src, SYM_SRC_DEBUG);
	}
	symtab_free(t);
	symtab_free(me);
}

/* .gnu_debuglink: next to the file, in .debug/, under ROOT/DIR/; a file
 * with another CRC is refused. */
static void test_debuglink(void **state)
{
	char dir[] = "/tmp/hs-test-dbg-XXXXXX", self[512], bin[600], dbg[600], root[600];
	char where[1200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	if (system("command -v objcopy >/dev/null 2>&1") != 0)
		fail_msg("objcopy not found: install binutils (mk/deps.sh TEST_PKGS)");
	assert_non_null(mkdtemp(dir));
	snprintf(bin, sizeof bin, "%s/prog", dir);
	snprintf(dbg, sizeof dbg, "%s/prog.debug", dir);
	snprintf(root, sizeof root, "%s/root", dir);
	test_sh("objcopy --only-keep-debug '%s' '%s'", self, dbg);
	test_sh("cd '%s' && objcopy --strip-all --add-gnu-debuglink=prog.debug '%s' prog", dir, self);

	test_link_expect(bin, root, dbg);
	snprintf(where, sizeof where, "%s/.debug/prog.debug", dir);
	test_sh("mkdir '%s/.debug' && mv '%s' '%s'", dir, dbg, where);
	test_link_expect(bin, root, where);
	snprintf(where, sizeof where, "%s%s/prog.debug", root, dir);
	test_sh("mkdir -p '%s%s' && mv '%s/.debug/prog.debug' '%s'", root, dir, dir, where);
	test_link_expect(bin, root, where);
	/* The same file with one byte more: the CRC no longer matches. */
	test_sh("mv '%s' '%s' && printf x >> '%s'", where, dbg, dbg);
	test_link_expect(bin, root, NULL);
	test_sh("rm -rf '%s'", dir);
}

/* A library this process has not loaded yet (sanitizer runtimes pull in
 * libm), and one of its functions. */
static void *test_fresh_lib(const char **fname)
{
	static const struct { const char *lib, *fn; } libs[] = {
		{ "libm.so.6", "frexp" }, { "libresolv.so.2", "__b64_ntop" },
		{ "libanl.so.1", "getaddrinfo_a" },
	};

	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
		void *h = dlopen(libs[i].lib, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);

		if (h != NULL) {
			dlclose(h);
			continue;
		}
		h = dlopen(libs[i].lib, RTLD_NOW | RTLD_LOCAL);
		if (h != NULL) {
			*fname = libs[i].fn;
			return h;
		}
	}
	fail_msg("no library left to dlopen (libm, libresolv, libanl all loaded?)");
	return NULL;
}

/* The function at fn is named, by a name that leads back to fn. */
static void test_named(void *h, void *fn, struct sym_info *si)
{
	assert_int_equal(sym_resolve((uintptr_t)fn, si), 0);
	assert_non_null(si->name);
	assert_ptr_equal(dlsym(h, si->name), fn);
}

/* A library dlopened after the first lookups is found; once dlclosed it is
 * forgotten, and the module string handed out earlier stays valid. */
static void test_dlopen(void **state)
{
	struct sym_info si;
	size_t before;
	void *h, *fn;
	const char *mod, *fname = NULL;
	char path[512];

	(void)state;
	assert_int_equal(sym_resolve((uintptr_t)test_dbg_static, &si), 0);
	before = sym_modules_count();
	assert_true(before >= 2);
	h = test_fresh_lib(&fname);
	fn = dlsym(h, fname);
	assert_non_null(fn);
	test_named(h, fn, &si);
	assert_int_equal(sym_modules_count(), before + 1);
	mod = si.module;
	snprintf(path, sizeof path, "%s", mod);
	assert_int_equal(dlclose(h), 0);
	sym_modules_sync();
	assert_int_equal(sym_modules_count(), before);
	assert_string_equal(mod, path);
	assert_int_equal(sym_resolve((uintptr_t)fn, &si), -1);
	assert_string_equal(si.module, "");
	/* Loaded again (perhaps elsewhere): found again. */
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	fn = dlsym(h, fname);
	test_named(h, fn, &si);
	assert_ptr_equal(si.module, mod);
	dlclose(h);
	sym_cache_free();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_debug),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_dlopen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
