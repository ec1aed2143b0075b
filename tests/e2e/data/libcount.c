/*
 * libcount.c - a counting LD_PRELOAD shim for engine-libcalls.sh: counts the
 * calls the main program makes (not the library's calls to itself) to a few
 * sqlite3 functions and writes "name count" lines to $LIBCOUNT_OUT at exit:
 * an independent count of the run the hook engine's GOT stubs time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long n_prepare, n_step, n_finalize;
static uintptr_t main_lo, main_hi;

/* dl_iterate_phdr callback: the first module is the main program. */
static int main_range(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	main_lo = UINTPTR_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (s < main_lo)
			main_lo = s;
		if (s + ph->p_memsz > main_hi)
			main_hi = s + ph->p_memsz;
	}
	return 1;
}

/* Was the call made by the main program? */
static int from_main(const void *ret)
{
	if (main_hi == 0)
		dl_iterate_phdr(main_range, NULL);
	return (uintptr_t)ret >= main_lo && (uintptr_t)ret < main_hi;
}

/* The next definition of name (the real library's). */
static void *next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (p == NULL)
		abort();
	return p;
}

int sqlite3_prepare_v2(void *db, const char *sql, int n, void **stmt, const char **tail)
{
	static int (*real)(void *, const char *, int, void **, const char **);

	if (real == NULL)
		real = (int (*)(void *, const char *, int, void **, const char **))next("sqlite3_prepare_v2");
	n_prepare += from_main(__builtin_return_address(0));
	return real(db, sql, n, stmt, tail);
}

int sqlite3_step(void *stmt)
{
	static int (*real)(void *);

	if (real == NULL)
		real = (int (*)(void *))next("sqlite3_step");
	n_step += from_main(__builtin_return_address(0));
	return real(stmt);
}

int sqlite3_finalize(void *stmt)
{
	static int (*real)(void *);

	if (real == NULL)
		real = (int (*)(void *))next("sqlite3_finalize");
	n_finalize += from_main(__builtin_return_address(0));
	return real(stmt);
}

/* Write the counts at exit. */
__attribute__((destructor)) static void count_write(void)
{
	const char *path = getenv("LIBCOUNT_OUT");
	FILE *f = path != NULL ? fopen(path, "w") : NULL;

	if (f == NULL)
		return;
	fprintf(f, "sqlite3_prepare_v2 %lu\nsqlite3_step %lu\nsqlite3_finalize %lu\n",
	    n_prepare, n_step, n_finalize);
	fclose(f);
}
