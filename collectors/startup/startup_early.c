/*
 * startup_early.c - the agent's first code and the library constructor
 * wrappers.
 *
 * A preloaded library's constructor runs after the constructors of the
 * libraries the program links (ld.so initialises dependencies first, and a
 * preload depends on none of them), so the agent's constructor is too late
 * to time them.  Its relocations are not: ld.so relocates every object of
 * the program before it runs any constructor, and it resolves an object's
 * IRELATIVE relocations after that object's other relocations.  The agent
 * has one (su_early_ref below), whose resolver is this file's early hook:
 * it stamps "loaded" (every library mapped and relocated but the program
 * and any preload before the agent) and, for each library relocated by
 * then (the agent and every object after it in the link map), replaces the
 * first and last entries of its DT_INIT_ARRAY with wrappers that stamp the
 * start and the end of the library's constructors.  Objects relocated after
 * the agent (the program itself) are timed as a whole by startup_main.c.
 * doc/startup.md has the decision and its limits.
 *
 * The resolver runs inside ld.so's relocation pass: libc is not
 * initialised and the agent's own PLT is not bound, so it calls no
 * function at all (raw system calls, no sanitizer instrumentation) and
 * reads only the link map (_r_debug), libc's environ and the initial stack
 * (__libc_stack_end: argc, argv, the environment, auxv).
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include "startup_int.h"

#define SU_EARLY __attribute__((noinline, no_sanitize("address", "undefined", "thread")))

struct su_lib su_libs[SU_MAX_LIBS];
uint32_t su_nlibs;
uint64_t su_libs_lost;
uint64_t su_loaded_ns;
bool     su_at_start;

extern void *__libc_stack_end;
extern char **environ;
extern ElfW(Dyn) _DYNAMIC[];

#if defined(__x86_64__)
/* A system call without libc (not initialised yet). */
SU_EARLY static long su_sys3(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile ("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}
#define SU_EARLY_OK 1
#elif defined(__aarch64__)
SU_EARLY static long su_sys3(long n, long a, long b, long c)
{
	register long x8 __asm__("x8") = n, x0 __asm__("x0") = a, x1 __asm__("x1") = b,
	    x2 __asm__("x2") = c;

	__asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
}
#define SU_EARLY_OK 1
#else
#define SU_EARLY_OK 0
#endif

/* CLOCK_MONOTONIC in ns through the system call. */
SU_EARLY static uint64_t su_early_now(void)
{
#if SU_EARLY_OK
	struct timespec ts = { 0, 0 };

	su_sys3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#else
	return 0;
#endif
}

/* Library k's first (or last) constructor entry, timed.  These run inside
 * ld.so's constructor pass, possibly before libc's or a sanitizer runtime's
 * own constructor: no instrumentation, no libc call. */
SU_EARLY static void su_ctor_run(uint32_t k, bool first, int argc, char **argv, char **env)
{
	struct su_lib *l = &su_libs[k];

	if (first) {
		__atomic_store_n(&l->start_ns, su_early_now(), __ATOMIC_RELAXED);
		l->first(argc, argv, env);
		if (l->funcs > 1)
			return;
	} else {
		l->last(argc, argv, env);
	}
	__atomic_store_n(&l->end_ns, su_early_now(), __ATOMIC_RELEASE);
}

/* Two wrappers per library slot: su_first_0x00 .. su_last_0x7f. */
#define SU_WRAP(n) \
	SU_EARLY static void su_first_##n(int c, char **v, char **e) { su_ctor_run(n, true, c, v, e); } \
	SU_EARLY static void su_last_##n(int c, char **v, char **e) { su_ctor_run(n, false, c, v, e); }
#define SU_FIRST_ROW(n) su_first_##n,
#define SU_LAST_ROW(n) su_last_##n,
#define SU_16(X, h) X(h##0) X(h##1) X(h##2) X(h##3) X(h##4) X(h##5) X(h##6) X(h##7) \
	X(h##8) X(h##9) X(h##a) X(h##b) X(h##c) X(h##d) X(h##e) X(h##f)
#define SU_128(X) SU_16(X, 0x0) SU_16(X, 0x1) SU_16(X, 0x2) SU_16(X, 0x3) SU_16(X, 0x4) \
	SU_16(X, 0x5) SU_16(X, 0x6) SU_16(X, 0x7)
SU_128(SU_WRAP)
static const su_init_fn su_firsts[] = { SU_128(SU_FIRST_ROW) };
static const su_init_fn su_lasts[] = { SU_128(SU_LAST_ROW) };
_Static_assert(sizeof su_firsts / sizeof su_firsts[0] == SU_MAX_LIBS, "a wrapper pair per slot");

/* A value of the initial stack's auxv, 0 when absent. */
SU_EARLY static uintptr_t su_auxv(uintptr_t *sp, uintptr_t type)
{
	uintptr_t argc = sp[0], *p = sp + 1 + argc + 1;

	while (*p != 0)                   /* environ */
		p++;
	for (p++; p[0] != AT_NULL; p += 2)
		if (p[0] == type)
			return p[1];
	return 0;
}

/* HOOKSCOPE_STARTUP=0 in the initial environment. */
SU_EARLY static bool su_early_off(uintptr_t *sp)
{
	static const char want[] = "HOOKSCOPE_STARTUP=0";
	char **env = (char **)(sp + 1 + sp[0] + 1);

	for (; *env != NULL; env++) {
		size_t i = 0;

		while (want[i] != '\0' && (*env)[i] == want[i])
			i++;
		if (want[i] == '\0' && (*env)[i] == '\0')
			return true;
	}
	return false;
}

/* The PT_GNU_RELRO range of the object at l_addr, or [0, 0). */
SU_EARLY static void su_relro(const struct link_map *l, uintptr_t *lo, uintptr_t *hi)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)l->l_addr;
	const ElfW(Phdr) *ph;

	*lo = *hi = 0;
	if (l->l_addr == 0 || eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3)
		return;
	ph = (const ElfW(Phdr) *)(l->l_addr + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_GNU_RELRO) {
			*lo = l->l_addr + ph[i].p_vaddr;
			*hi = *lo + ph[i].p_memsz;
		}
}

/* Wrap library l's DT_INIT_ARRAY (first and last entries) into the next
 * slot.  Its array may lie in RELRO (read-only once relocated): made
 * writable for the two stores, then read-only again up to RELRO's last
 * whole page (ld.so leaves the partial page after it writable). */
SU_EARLY static void su_wrap(const struct link_map *l, uintptr_t page)
{
	uintptr_t arr = 0, sz = 0, rlo, rhi, plo, phi, rend;
	su_init_fn *fn;
	struct su_lib *s;
	size_t n;

	for (const ElfW(Dyn) *d = l->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_INIT_ARRAY)
			arr = l->l_addr + d->d_un.d_ptr;
		else if (d->d_tag == DT_INIT_ARRAYSZ)
			sz = d->d_un.d_val;
	}
	n = sz / sizeof(su_init_fn);
	if (arr == 0 || n == 0)
		return;
	if (su_nlibs == SU_MAX_LIBS) {
		su_libs_lost++;
		return;
	}
	fn = (su_init_fn *)arr;
	su_relro(l, &rlo, &rhi);
	plo = arr & ~(page - 1);
	phi = (arr + sz + page - 1) & ~(page - 1);
	rend = rhi & ~(page - 1);
	if (arr < rhi && arr + sz > rlo &&
	    su_sys3(SYS_mprotect, (long)plo, (long)(phi - plo), PROT_READ | PROT_WRITE) != 0) {
		su_libs_lost++;
		return;
	}
	s = &su_libs[su_nlibs];
	s->name = l->l_name;
	s->funcs = (uint32_t)n;
	s->first = fn[0];
	s->last = fn[n - 1];
	fn[0] = su_firsts[su_nlibs];
	if (n > 1)
		fn[n - 1] = su_lasts[su_nlibs];
	su_nlibs++;
	if (arr < rhi && arr + sz > rlo && (phi < rend ? phi : rend) > plo)
		su_sys3(SYS_mprotect, (long)plo, (long)((phi < rend ? phi : rend) - plo), PROT_READ);
}

/* The early hook (see the top of the file).  The dynamic linker itself
 * (AT_BASE) is left alone: it write-protects its own RELRO only after
 * relocating every object, so re-protecting it here would fault ld.so's
 * later stores (arm64's ld.so keeps its init array on such a page).  At the start, ld.so is adding
 * the first objects (RT_ADD) and libc has not set environ; loaded into a
 * running process (attach, or a dlopen), ld.so says RT_CONSISTENT while it
 * relocates and environ is set: nothing to do. */
SU_EARLY static void su_early(void)
{
	uintptr_t *sp = __libc_stack_end, page, rtld;
	const struct link_map *l;

	if (!SU_EARLY_OK || environ != NULL || _r_debug.r_state != RT_ADD || sp == NULL)
		return;
	su_at_start = true;
	su_loaded_ns = su_early_now();
	if (su_early_off(sp))
		return;
	page = su_auxv(sp, AT_PAGESZ);
	if (page == 0 || (page & (page - 1)) != 0)
		return;
	rtld = su_auxv(sp, AT_BASE);
	for (l = _r_debug.r_map; l != NULL && l->l_ld != _DYNAMIC; l = l->l_next)
		;
	for (; l != NULL; l = l->l_next)
		if (l->l_addr != rtld)
			su_wrap(l, page);
}

static void su_early_target(void)
{
}

SU_EARLY static void (*su_early_resolve(void))(void)
{
	su_early();
	return su_early_target;
}

/* The IRELATIVE relocation whose resolution is the early hook. */
static void su_early_fn(void) __attribute__((ifunc("su_early_resolve")));
__attribute__((used)) static void (*volatile su_early_ref)(void) = su_early_fn;
