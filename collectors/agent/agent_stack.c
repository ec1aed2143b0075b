/*
 * agent_stack.c - the calling thread's return addresses, for every
 * collector that captures a stack (threads, ipc, net, power, block's
 * handler; memory's fallback on an agent thread: memory_stack.c).
 *
 * The walk is libgcc_s's _Unwind_Backtrace, looked up in libgcc_s by name,
 * never through the agent's own symbol references:
 * - `backtrace` binds to libunwind's when the program links libunwind
 *   (perf does), and the agent's own libunwind dependency defines the same
 *   _Unwind_* names.  libunwind's local unwinder checks addresses by
 *   writing them to a pipe it opens once in the process, and its numbers are
 *   only right in the descriptor table it was opened in: on an agent thread
 *   (a table of its own: collector.h) they name the agent's daemon socket,
 *   so the read that drains the pipe blocked for good, and after the program
 *   closed and reused them they are the program's files.  libgcc_s opens
 *   nothing, finds unwind tables with the loader's lock-free
 *   _dl_find_object and takes no lock a signal handler could hold.
 * - the engine patches libgcc_s's entry point so that the walk goes
 *   through timed calls (hook_unwind.c); a walk through libgcc_s gets that.
 * The result is glibc's backtrace()'s: innermost first, starting at the
 * caller's frame, ended when a frame makes no progress.
 *
 * A thread inside the dynamic loader's lazy-binding entry point has a frame
 * libgcc cannot step over on arm64: glibc describes its CFA as the sp at
 * its entry, 16 bytes short of its caller's (the PLT header pushed x16 and
 * x30 first), so the caller's pc comes out right but everything above it is
 * read from the wrong slots, and libgcc, handed a garbage return address,
 * reads the instruction there to look for a signal frame, which faults.  So
 * the walk ends at the resolver's caller.
 *
 * agent_stack_init loads libgcc_s (glibc would at the first backtrace())
 * and walks once, so that a signal handler's walk loads nothing; a walk
 * before it looks the unwinder up itself (pthread_once).
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <unwind.h>

#include "agent.h"

#define AGENT_RESOLVERS 4

static struct {
	_Unwind_Reason_Code (*walk)(_Unwind_Trace_Fn, void *);
	_Unwind_Ptr         (*ip)(struct _Unwind_Context *);
	_Unwind_Ptr         (*region)(struct _Unwind_Context *);
	_Unwind_Word        (*cfa)(struct _Unwind_Context *);
} agent_uw;
static int agent_uw_state;                /* 0 not looked up, 1 ready, -1 absent */
static pthread_once_t agent_uw_once = PTHREAD_ONCE_INIT;

/* The loader's lazy-binding entry points (see the top), 0 = none; written
 * before agent_uw_state is published. */
static uintptr_t agent_resolver[AGENT_RESOLVERS];

struct agent_walk {
	void   **bt;
	int      n, max;
	bool     skipped;                 /* the walker's own frame */
	bool     last;                    /* the previous frame was the resolver */
	uintptr_t cfa;
};

#if defined(__aarch64__)
/* dl_iterate_phdr: GOT[2] of a module bound lazily, when it is in the loader. */
static int agent_resolver_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t base = getauxval(AT_BASE), lo = UINTPTR_MAX, hi = 0, got = 0;
	const ElfW(Dyn) *dyn = NULL;

	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
		if (ph->p_type == PT_LOAD && info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	for (; dyn != NULL && dyn->d_tag != DT_NULL; dyn++)
		if (dyn->d_tag == DT_PLTGOT)   /* glibc relocates it in place, not every loader */
			got = dyn->d_un.d_ptr >= lo && dyn->d_un.d_ptr < hi ? dyn->d_un.d_ptr :
			    info->dlpi_addr + dyn->d_un.d_ptr;
	if (got == 0 || got + 3 * sizeof(uintptr_t) > hi || base == 0)
		return 0;
	uintptr_t r = ((const uintptr_t *)got)[2];
	Dl_info di;

	if (r == 0 || dladdr((void *)r, &di) == 0 || (uintptr_t)di.dli_fbase != base)
		return 0;
	for (int k = 0; k < AGENT_RESOLVERS; k++)
		if (agent_resolver[k] == r || agent_resolver[k] == 0) {
			agent_resolver[k] = r;
			break;
		}
	return 0;
}
#endif

/* _Unwind_Backtrace's callback: one frame. */
static _Unwind_Reason_Code agent_walk_cb(struct _Unwind_Context *c, void *p)
{
	struct agent_walk *w = p;
	uintptr_t ip = agent_uw.ip(c), cfa = agent_uw.cfa(c), fn;

	if (!w->skipped) {                /* agent_backtrace's own frame */
		w->skipped = true;
		return _URC_NO_REASON;
	}
	if (ip == 0 || w->n >= w->max)
		return _URC_END_OF_STACK;
	if (w->n > 0 && (uintptr_t)w->bt[w->n - 1] == ip && cfa == w->cfa)
		return _URC_END_OF_STACK;     /* no progress */
	w->bt[w->n++] = (void *)ip;
	w->cfa = cfa;
	if (w->last)
		return _URC_END_OF_STACK;
	fn = agent_uw.region(c);
	for (int k = 0; k < AGENT_RESOLVERS && agent_resolver[k] != 0 && !w->last; k++)
		w->last = fn == agent_resolver[k];
	return _URC_NO_REASON;
}

/* pthread_once: look libgcc_s's unwinder up (loading it). */
static void agent_uw_load(void)
{
	void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NODELETE);
	int st;

	if (h != NULL) {
		agent_uw.ip = (_Unwind_Ptr (*)(struct _Unwind_Context *))dlsym(h, "_Unwind_GetIP");
		agent_uw.region = (_Unwind_Ptr (*)(struct _Unwind_Context *))dlsym(h,
		    "_Unwind_GetRegionStart");
		agent_uw.cfa = (_Unwind_Word (*)(struct _Unwind_Context *))dlsym(h, "_Unwind_GetCFA");
		agent_uw.walk = (_Unwind_Reason_Code (*)(_Unwind_Trace_Fn, void *))dlsym(h,
		    "_Unwind_Backtrace");
	}
	st = h != NULL && agent_uw.ip != NULL && agent_uw.region != NULL && agent_uw.cfa != NULL &&
	    agent_uw.walk != NULL ? 1 : -1;
	if (st < 0)
		agent_warn("cannot load libgcc_s.so.1's unwinder (%s): no stacks are taken",
		    h == NULL ? dlerror() : "a function is missing");
#if defined(__aarch64__)
	if (st > 0)
		dl_iterate_phdr(agent_resolver_cb, NULL);
#endif
	__atomic_store_n(&agent_uw_state, st, __ATOMIC_RELEASE);   /* the figures above with it */
}

/* See agent.h. */
int agent_stack_init(void)
{
	void *warm[4];

	pthread_once(&agent_uw_once, agent_uw_load);
	if (__atomic_load_n(&agent_uw_state, __ATOMIC_ACQUIRE) < 0)
		return -1;
	agent_backtrace(warm, 4);         /* libgcc's first walk sets up its own state */
	return 0;
}

/* See agent.h. */
int agent_backtrace(void **bt, int max)
{
	struct agent_walk w = { .bt = bt, .max = max };

	if (__atomic_load_n(&agent_uw_state, __ATOMIC_ACQUIRE) == 0)
		pthread_once(&agent_uw_once, agent_uw_load);
	if (max <= 0 || __atomic_load_n(&agent_uw_state, __ATOMIC_ACQUIRE) < 0)
		return 0;
	agent_uw.walk(agent_walk_cb, &w);
	return w.n;
}
