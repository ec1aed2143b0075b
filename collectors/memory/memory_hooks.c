/*
 * memory_hooks.c - the allocator wrappers (exported through
 * memory/exports): the malloc family and anonymous mmap/munmap.  Each
 * calls the next definition (dlsym(RTLD_NEXT)) and then, unless agent code
 * is running on this thread (timing's guard: the agent's own allocations
 * never count) or tracking is off, records the block with its stack under
 * the guard, so whatever the recording calls (the unwinder, dlsym) reaches
 * the real allocator directly.
 *
 * dlsym itself may call calloc or malloc before the real ones are known:
 * those few requests are served from a static bootstrap arena, whose
 * blocks free ignores and realloc copies out of.  A free removes its block
 * from the table before the real free, so the address cannot be handed
 * out again (and recorded by another thread) while still listed.
 *
 * Preloaded, the exported wrappers interpose; attached, the binder puts
 * them into GOTs (the table at the end) and each brackets its work with
 * BIND_CALL so a detach can wait for it.
 *
 * A sanitizer build exports none of them: its runtime must stay the
 * allocator (a wrapper linked into a test program would run before the
 * runtime is initialised), so the agent finds malloc replaced and says so,
 * as for any program that brings its own allocator.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bind.h"
#include "protocol.h"
#include "timing.h"
#include "memory_int.h"

#define API __attribute__((visibility("default"), noinline))
#define BODY static inline __attribute__((always_inline))
#define LOAD(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define ADD(p, v)    __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define UNLIKELY(x)  __builtin_expect(!!(x), 0)

struct mem_real {
	void *(*malloc)(size_t);
	void  (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	int   (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int   (*munmap)(void *, size_t);
};
/* malloc and free first: with the flags at the head of mem, the lines
 * their fast paths read. */
static struct mem_real real __attribute__((aligned(64)));
static int mem_resolving;

static _Alignas(64) char mem_boot[64 << 10];
static size_t mem_boot_used;

/* A bootstrap block (dlsym's own needs while we resolve). */
static void *mem_boot_alloc(size_t n)
{
	size_t at = ADD(&mem_boot_used, (n + 15) & ~(size_t)15);

	if (at + n > sizeof mem_boot)
		return NULL;
	return mem_boot + at;
}

static inline bool mem_is_boot(const void *p)
{
	return (const char *)p >= mem_boot && (const char *)p < mem_boot + sizeof mem_boot;
}

/* Find the real functions once (every thread that races here finds the
 * same ones). */
static void mem_resolve(void)
{
	__atomic_store_n(&mem_resolving, 1, __ATOMIC_RELAXED);
#define R(f) *(void **)&real.f = dlsym(RTLD_NEXT, #f)
	R(calloc); R(realloc); R(free); R(posix_memalign); R(aligned_alloc); R(memalign);
	R(valloc); R(pvalloc); R(mmap); R(munmap);
	__atomic_store_n((void **)&real.malloc, dlsym(RTLD_NEXT, "malloc"), __ATOMIC_RELEASE);
#undef R
	__atomic_store_n(&mem_resolving, 0, __ATOMIC_RELAXED);
}

/* Are the real functions known (every one: malloc is stored last)? */
static inline bool mem_resolved(void)
{
	return __atomic_load_n((void **)&real.malloc, __ATOMIC_ACQUIRE) != NULL;
}

/* Ready to call the real functions?  False while resolving (bootstrap). */
static inline bool mem_ready(void)
{
	if (__builtin_expect(mem_resolved(), 1))
		return true;
	if (__atomic_load_n(&mem_resolving, __ATOMIC_RELAXED))
		return false;
	mem_resolve();
	return real.malloc != NULL;
}

/* Is an allocation of size bytes surely not kept?  Tracking is off, or in
 * sampled mode it holds no sample point (most do not).  Known before the
 * real call, which is then the wrapper's last (a tail call: no frame).  The
 * agent's own bytes move the thread's next sample point too: the process
 * is memoryless, the estimate stays unbiased. */
static inline bool mem_skip(size_t size)
{
	int mode = LOAD(&mem.mode);

	return mode == MEM_OFF || (mode == MEM_SAMPLED && mem_sample_skip(size));
}

/* Record block p of size bytes (a mapping: never sampled) allocated by the
 * caller of the wrapper whose frame is frame. */
static __attribute__((noinline)) void mem_note(void *p, size_t size, void *frame, bool mapped)
{
	struct tm_block *g;
	uintptr_t pc[MEM_FRAMES];
	uint64_t wb = size, wm = 1000, t0 = 0;
	uint32_t n, id;
	int e;
	bool sampled = LOAD(&mem.mode) == MEM_SAMPLED;

	if (p == NULL)
		return;
	if (!mapped && sampled && !mem_sample(size, &wb, &wm))
		return;
	if (sampled)                    /* what sampling costs, for the budget */
		t0 = proto_now_ns();
	e = errno;                      /* the allocation succeeded: errno is the caller's */
	g = timing_guard_enter();
	n = mem_stack_capture(frame, pc, MEM_FRAMES);
	id = mem_stack_id(pc, n);
	mem_block_add(p, size, mapped ? id | MEM_MAPPED : id, wb, wm);
	timing_guard_leave(g);
	if (sampled)
		ADD(&mem.sample_ns, proto_now_ns() - t0);
	errno = e;
}

/* malloc's whole path (its exported wrapper takes the common case
 * itself); frame is the wrapper's. */
BODY void *mem_malloc(size_t n, void *frame)
{
	void *p;

	if (UNLIKELY(!mem_ready()))
		return mem_boot_alloc(n);
	if (UNLIKELY(LOAD(&mem.probing)))
		ADD(&mem.probe_hits, 1);
	if (mem_skip(n))
		return real.malloc(n);
	p = real.malloc(n);
	if (!timing_guarded())
		mem_note(p, n, frame, false);
	return p;
}

BODY void *mem_calloc(size_t k, size_t n)
{
	void *p;

	if (UNLIKELY(!mem_ready()))
		return mem_boot_alloc(k * n);   /* static: already zero */
	if (mem_skip(k * n))
		return real.calloc(k, n);
	p = real.calloc(k, n);
	if (!timing_guarded())
		mem_note(p, k * n, __builtin_frame_address(0), false);
	return p;
}

/* May block p be in the tables (then a free looks it up)? */
static inline bool mem_maybe_listed(const void *p)
{
	return LOAD(&mem.live) && (mem_maybe_kept(p) || LOAD(&mem.mode) == MEM_FULL);
}

BODY void mem_free(void *p)
{
	if (p == NULL || mem_is_boot(p) || UNLIKELY(!mem_ready()))
		return;
	if (mem_maybe_listed(p) && !timing_guarded()) {
		int e = errno;          /* free keeps errno (POSIX.1-2024) */

		mem_block_del(p);
		errno = e;
	}
	real.free(p);
}

BODY void *mem_realloc(void *old, size_t n)
{
	size_t osz = 0;
	void *p;

	if (UNLIKELY(!mem_ready()) || mem_is_boot(old)) {
		if ((p = mem_ready() ? real.malloc(n) : mem_boot_alloc(n)) != NULL && old != NULL)
			memcpy(p, old, n < (size_t)(mem_boot + sizeof mem_boot - (char *)old) ? n :
			    (size_t)(mem_boot + sizeof mem_boot - (char *)old));
		return p;
	}
	if (timing_guarded())
		return real.realloc(old, n);
	if (old != NULL && mem_maybe_listed(old))
		osz = mem_block_del(old);
	p = real.realloc(old, n);
	if (p == NULL && n != 0 && osz != 0)
		mem_block_add(old, osz, 0, osz, 1000);   /* still live: its stack is lost */
	if (p != NULL && !mem_skip(n))
		mem_note(p, n, __builtin_frame_address(0), false);
	return p;
}

BODY int mem_posix_memalign(void **out, size_t align, size_t n)
{
	int r;

	if (UNLIKELY(!mem_ready()))
		return ENOMEM;
	if (mem_skip(n))
		return real.posix_memalign(out, align, n);
	r = real.posix_memalign(out, align, n);
	if (r == 0 && !timing_guarded())
		mem_note(*out, n, __builtin_frame_address(0), false);
	return r;
}

/* The aligned ones share a shape: (alignment, size) or (size). */
#define MEM_ALIGNED(fn, args, call, size)                                       \
	BODY void *mem_##fn args                                                \
	{                                                                       \
		void *p;                                                        \
		if (UNLIKELY(!mem_ready()) || real.fn == NULL)                  \
			return NULL;                                            \
		if (mem_skip(size))                                             \
			return real.fn call;                                    \
		p = real.fn call;                                               \
		if (!timing_guarded())                                          \
			mem_note(p, size, __builtin_frame_address(0), false);   \
		return p;                                                       \
	}
MEM_ALIGNED(aligned_alloc, (size_t a, size_t n), (a, n), n)
MEM_ALIGNED(memalign, (size_t a, size_t n), (a, n), n)
MEM_ALIGNED(valloc, (size_t n), (n), n)
MEM_ALIGNED(pvalloc, (size_t n), (n), n)

BODY void *mem_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if (UNLIKELY(!mem_ready())) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	p = real.mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && LOAD(&mem.mode) != MEM_OFF &&
	    !timing_guarded()) {
		ADD(&mem.mmap_bytes, len);
		ADD(&mem.mmaps, 1);
		mem_note(p, len, __builtin_frame_address(0), true);
	}
	return p;
}

/* A mapping unmapped from its start: forgotten, or its rest kept (the
 * rest's stack is lost: id 0). */
BODY int mem_munmap(void *addr, size_t len)
{
	if (UNLIKELY(!mem_ready())) {
		errno = ENOMEM;
		return -1;
	}
	if (LOAD(&mem.live) && !timing_guarded() && mem_block_size(addr) != 0) {
		size_t size = mem_block_del(addr), gone = len < size ? len : size;

		ADD(&mem.munmap_bytes, gone);
		ADD(&mem.munmaps, 1);
		if (len < size)
			mem_block_add((char *)addr + len, size - len, MEM_MAPPED, size - len, 1000);
	}
	return real.munmap(addr, len);
}

#ifndef HS_SAN_RUNTIME
/* The exported wrappers.  Bound by the binder after an attach (mem.bound),
 * each marks the thread as inside a wrapper while it runs (BIND_CALL), so a
 * detach waits for it to leave before the agent is unloaded. */
#define MEM_WRAP(ret, name, params, args)                                       \
	API ret name params                                                     \
	{                                                                       \
		ret r_;                                                         \
		if (__builtin_expect(!LOAD(&mem.bound), 1))                     \
			return mem_##name args;                                 \
		BIND_CALL(r_ = mem_##name args);                                \
		return r_;                                                      \
	}
MEM_WRAP(void *, calloc, (size_t k, size_t n), (k, n))
MEM_WRAP(void *, realloc, (void *old, size_t n), (old, n))
MEM_WRAP(int, posix_memalign, (void **out, size_t align, size_t n), (out, align, n))
MEM_WRAP(void *, aligned_alloc, (size_t a, size_t n), (a, n))
MEM_WRAP(void *, memalign, (size_t a, size_t n), (a, n))
MEM_WRAP(void *, valloc, (size_t n), (n))
MEM_WRAP(void *, pvalloc, (size_t n), (n))
MEM_WRAP(void *, mmap, (void *addr, size_t len, int prot, int flags, int fd, off_t off),
    (addr, len, prot, flags, fd, off))
MEM_WRAP(int, munmap, (void *addr, size_t len), (addr, len))

/* malloc and free, the calls a program makes millions of times a second:
 * the common case (not attached, nothing to record or forget) is a few
 * loads and tests and a tail call, with no register saved; the rest goes
 * out of line (measured: tests/bench/alloc-loop.c, doc/performance.md). */
static __attribute__((noinline)) void *mem_malloc_rest(size_t n, void *frame)
{
	void *r;

	if (__builtin_expect(!LOAD(&mem.bound), 1))
		return mem_malloc(n, frame);
	BIND_CALL(r = mem_malloc(n, frame));
	return r;
}

API void *malloc(size_t n)
{
	if (__builtin_expect(!LOAD(&mem.bound) && mem_resolved() && !LOAD(&mem.probing) && mem_skip(n), 1))
		return real.malloc(n);
	/* A sample point: mem_skip left the thread's sampler as it was, and
	 * the rest finds it again. */
	return mem_malloc_rest(n, __builtin_frame_address(0));
}

static __attribute__((noinline)) void mem_free_rest(void *p)
{
	if (__builtin_expect(!LOAD(&mem.bound), 1)) {
		mem_free(p);
		return;
	}
	BIND_CALL(mem_free(p));
}

API void free(void *p)
{
	if (__builtin_expect(!LOAD(&mem.bound) && p != NULL && !mem_is_boot(p) && mem_resolved() &&
	    !mem_maybe_listed(p), 1)) {
		real.free(p);
		return;
	}
	mem_free_rest(p);
}

/* The wrappers, for the binder (bind.h): after an attach, the calls of the
 * program's own modules, of libc (its own calls to malloc go through its
 * PLT: strdup's blocks, stdio's buffers) and of libstdc++ (operator new).
 * Not every library's: bound into Mesa's too, glxgears' detach faulted
 * (doc/memory.md, "Attached agents"). */
#define MEM_HOOKS(X) X(malloc) X(calloc) X(realloc) X(free) X(posix_memalign) X(aligned_alloc) \
	X(memalign) X(valloc) X(pvalloc) X(mmap) X(munmap)
MEM_HOOKS(BIND_LOCAL)
#define MEM_BIND(name) { #name, BIND_WRAPPER(name), (void **)&real.name, 0 },
static const struct bind_fn mem_bind_fns[] = { MEM_HOOKS(MEM_BIND) };
#define MEM_NBIND (sizeof mem_bind_fns / sizeof mem_bind_fns[0])
#else
static const struct bind_fn *const mem_bind_fns = NULL;
#define MEM_NBIND 0
#endif
const struct bind_table mem_bind = {
	.who = "memory", .libs = "libc.so*:libstdc++.so*",
	.fns = mem_bind_fns, .n = MEM_NBIND,
};
