/*
 * block_signal.c - the UI thread's stack, taken by the UI thread itself in
 * a handler of BLOCK_SIG (SIGRTMAX-4), sent by the watchdog with
 * rt_tgsigqueueinfo and a value only the agent knows.
 *
 * The handler is async-signal-safe as far as glibc allows: the unwinder
 * (libgcc_s's _Unwind_Backtrace, what backtrace() uses) ran once at start,
 * so libgcc_s is loaded then, not in the handler; the copy goes to a static
 * slot, and completion is one release store.  The frames above the
 * interrupted pc (the handler, the signal trampoline) are dropped using the
 * pc of the ucontext.
 *
 * A thread interrupted while the dynamic loader binds a symbol lazily has
 * the loader's resolver on its stack (the PLT header's target, every lazy
 * module's GOT[2]).  On arm64 glibc describes that frame's CFA as the sp
 * at its entry, 16 bytes short of its caller's (the PLT header pushed x16
 * and x30 first): the caller's pc comes out right, but everything above it
 * is read from the wrong slots, and libgcc, handed a garbage return
 * address, reads the instruction there to look for a signal frame, which
 * faults.  So the walk ends at the resolver's caller.
 *
 * Chaining: a BLOCK_SIG not sent by us goes to the handler the target
 * installed, before or after us: the agent exports sigaction and signal,
 * keeps the target's action for BLOCK_SIG as the target's (reporting it
 * back as the old action) and leaves ours in place; one installed behind
 * our back is found before the next request and treated the same way.  SIG_DFL is honoured by
 * putting it back and raising the signal again; SIG_IGN ignores it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/auxv.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>

#include "agent.h"
#include "block_int.h"

#define API __attribute__((visibility("default")))
/* ThreadSanitizer's runtime, preloaded first, calls our sigaction while it
 * initializes (its REAL(sigaction) is the next definition: ours): that path
 * must not run its instrumentation yet. */
#define NO_TSAN __attribute__((no_sanitize("thread")))
#define BLOCK_BT_MAX 96

typedef int (*block_sigaction_fn)(int, const struct sigaction *, struct sigaction *);

/* The handler writes smp, then done (release); the watchdog reads done
 * (acquire), then smp.  smp's words are relaxed atomics as well: the
 * handler is installed past ThreadSanitizer's sigaction (its deferred
 * delivery would sample the runtime's stack, not the target's), so it may
 * run inside the runtime, whose bookkeeping then misses the release; with
 * atomic words that cannot become a race report, and the protocol itself
 * is unchanged. */
static struct {
	uint64_t req;                     /* the request being answered */
	uint64_t done;                    /* release: the answered request */
	struct block_sample smp;
} block_slot;
static uint64_t block_req;                /* watchdog: last request sent */
static struct sigaction block_app;        /* the target's action for BLOCK_SIG */
static struct sigaction block_ours;       /* our action */
static int block_installed;               /* relaxed atomic */
static int block_sig_no;                  /* BLOCK_SIG (not a constant) */

/* The real sigaction (libc's, or the next interposer's). */
static NO_TSAN block_sigaction_fn block_real_sigaction(void)
{
	static void *slot;

	return (block_sigaction_fn)agent_real(&slot, "sigaction", false);
}

/* The interrupted pc of a signal's ucontext. */
static uintptr_t block_uc_pc(const void *uc)
{
	const ucontext_t *u = uc;

#if defined(__x86_64__)
	return (uintptr_t)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)u->uc_mcontext.pc;
#else
	(void)u;
	return 0;
#endif
}

#define BLOCK_RESOLVERS 4
/* The loader's lazy-binding entry points (see the top), 0 = none; written
 * before the handler is installed. */
static uintptr_t block_resolver[BLOCK_RESOLVERS];

#if defined(__aarch64__)
/* dl_iterate_phdr: GOT[2] of a module bound lazily, when it is in the loader. */
static int block_resolver_cb(struct dl_phdr_info *info, size_t size, void *arg)
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
	for (int k = 0; k < BLOCK_RESOLVERS; k++)
		if (block_resolver[k] == r || block_resolver[k] == 0) {
			block_resolver[k] = r;
			break;
		}
	return 0;
}
#endif

/* libgcc_s's unwinder, looked up in it by name: the agent's own libunwind
 * dependency defines the same _Unwind_* names (its implementation calls
 * dl_iterate_phdr, which a handler must not: the loader may be in the
 * middle of a dlclose).  libgcc_s finds unwind tables with the loader's
 * lock-free _dl_find_object. */
static struct {
	_Unwind_Reason_Code (*backtrace)(_Unwind_Trace_Fn, void *);
	_Unwind_Ptr         (*ip)(struct _Unwind_Context *);
	_Unwind_Ptr         (*region)(struct _Unwind_Context *);
} block_uw;

struct block_walk {
	void **bt;
	int    n, max;
	bool   last;                      /* the previous frame was the resolver */
};

/* _Unwind_Backtrace's callback: one frame. */
static _Unwind_Reason_Code block_walk_cb(struct _Unwind_Context *c, void *p)
{
	struct block_walk *w = p;
	uintptr_t ip = block_uw.ip(c), fn;

	if (ip == 0 || w->n >= w->max)
		return _URC_END_OF_STACK;
	w->bt[w->n++] = (void *)ip;
	if (w->last)
		return _URC_END_OF_STACK;
	fn = block_uw.region(c);
	for (int k = 0; k < BLOCK_RESOLVERS && block_resolver[k] != 0 && !w->last; k++)
		w->last = fn == block_resolver[k];
	return _URC_NO_REASON;
}

/* The return addresses of this thread's stack into bt, innermost first
 * (this function's own frame included, as backtrace() would). */
static int block_backtrace(void **bt, int max)
{
	struct block_walk w = { .bt = bt, .max = max };

	if (block_uw.backtrace == NULL)
		return 0;
	block_uw.backtrace(block_walk_cb, &w);
	return w.n;
}

/* Look libgcc_s's unwinder up (loading it); -1 when it is not there. */
static int block_uw_load(void)
{
	void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NODELETE);

	if (h == NULL)
		return -1;
	block_uw.ip = (_Unwind_Ptr (*)(struct _Unwind_Context *))dlsym(h, "_Unwind_GetIP");
	block_uw.region = (_Unwind_Ptr (*)(struct _Unwind_Context *))dlsym(h, "_Unwind_GetRegionStart");
	block_uw.backtrace = (_Unwind_Reason_Code (*)(_Unwind_Trace_Fn, void *))dlsym(h,
	    "_Unwind_Backtrace");
	if (block_uw.ip == NULL || block_uw.region == NULL || block_uw.backtrace == NULL) {
		block_uw.backtrace = NULL;
		return -1;
	}
	return 0;
}

/* Our request: take the stack into the slot. */
static void block_take(void *uc)
{
	void *bt[BLOCK_BT_MAX];
	int n = block_backtrace(bt, BLOCK_BT_MAX), first = 0;
	uintptr_t pc = block_uc_pc(uc);
	uint64_t req = __atomic_load_n(&block_req, __ATOMIC_ACQUIRE);
	struct block_sample *s = &block_slot.smp;
	uint32_t k = 0;

	for (int i = 0; i < n; i++)
		if ((uintptr_t)bt[i] == pc) {
			first = i;
			break;
		}
	if (pc != 0 && (first == 0 && (n == 0 || (uintptr_t)bt[0] != pc)))
		__atomic_store_n(&s->pc[k++], pc, __ATOMIC_RELAXED);   /* the walk missed it */
	for (int i = first; i < n && k < BLOCK_FRAMES; i++)
		__atomic_store_n(&s->pc[k++], (uintptr_t)bt[i], __ATOMIC_RELAXED);
	__atomic_store_n(&s->n, k, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, block_wait_seq(), __ATOMIC_RELAXED);
	__atomic_store_n(&block_slot.done, req, __ATOMIC_RELEASE);
}

/* The answered sample (watchdog, after done's acquire). */
static void block_slot_read(struct block_sample *out)
{
	const struct block_sample *s = &block_slot.smp;

	out->seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	out->n = __atomic_load_n(&s->n, __ATOMIC_RELAXED);
	if (out->n > BLOCK_FRAMES)
		out->n = BLOCK_FRAMES;
	for (uint32_t i = 0; i < out->n; i++)
		out->pc[i] = __atomic_load_n(&s->pc[i], __ATOMIC_RELAXED);
}

/* A BLOCK_SIG that is not ours: what the target asked for. */
static void block_chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = block_app;

	if (a.sa_flags & SA_SIGINFO) {
		if (a.sa_sigaction != NULL)
			a.sa_sigaction(sig, si, uc);
		return;
	}
	if (a.sa_handler == SIG_IGN)
		return;
	if (a.sa_handler == SIG_DFL) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		block_real_sigaction()(sig, &dfl, NULL);
		raise(sig);       /* delivered when the handler returns: the default */
		return;
	}
	a.sa_handler(sig);
}

/* The handler of BLOCK_SIG. */
static void block_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (si != NULL && si->si_code == SI_QUEUE && si->si_value.sival_ptr == (void *)&block_slot)
		block_take(uc);
	else
		block_chain(sig, si, uc);
	errno = saved;
}

/* See block.h. */
int block_signal_init(void)
{
	struct sigaction sa;
	void *warm[4];
	block_sigaction_fn real = block_real_sigaction();

	if (__atomic_load_n(&block_installed, __ATOMIC_RELAXED))
		return 0;
	if (real == NULL)
		return -1;
	if (block_uw_load() < 0)
		agent_warn("block: cannot load libgcc_s.so.1's unwinder (%s): blocks get no stacks",
		    dlerror());
	block_backtrace(warm, 4);         /* its first walk, not in the handler */
#if defined(__aarch64__)
	dl_iterate_phdr(block_resolver_cb, NULL);
#endif
	block_sig_no = BLOCK_SIG;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = block_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	block_ours = sa;
	if (real(block_sig_no, &sa, &block_app) < 0)
		return -1;
	__atomic_store_n(&block_installed, 1, __ATOMIC_RELEASE);
	return 0;
}

/* A handler installed behind our back (the raw system call, or a
 * sanitizer runtime that looks sigaction up by version and so skips ours)
 * becomes the target's action, chained to; ours goes back in place. */
static void block_signal_reclaim(void)
{
	struct sigaction cur;
	block_sigaction_fn real = block_real_sigaction();

	if (real(block_sig_no, NULL, &cur) < 0 || ((cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == block_handler))
		return;
	block_app = cur;
	real(block_sig_no, &block_ours, NULL);
}

/* See block.h (watchdog thread). */
int block_signal_capture(int32_t tid, struct block_sample *out, unsigned timeout_ms)
{
	siginfo_t si;
	struct timespec nap = { 0, 200000 };
	uint64_t req;

	if (!__atomic_load_n(&block_installed, __ATOMIC_ACQUIRE)) {
		errno = EBUSY;
		return -1;
	}
	/* A request not answered yet: the slot is still promised to it. */
	if (__atomic_load_n(&block_slot.done, __ATOMIC_ACQUIRE) != block_req) {
		errno = ETIMEDOUT;
		return -1;
	}
	block_signal_reclaim();
	req = block_req + 1;
	__atomic_store_n(&block_req, req, __ATOMIC_RELEASE);
	memset(&si, 0, sizeof si);
	si.si_signo = block_sig_no;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_ptr = (void *)&block_slot;
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, block_sig_no, &si) < 0) {
		int e = errno;

		__atomic_store_n(&block_req, req - 1, __ATOMIC_RELEASE);
		errno = e;
		return -1;
	}
	for (unsigned i = 0; i < timeout_ms * 5; i++) {
		if (__atomic_load_n(&block_slot.done, __ATOMIC_ACQUIRE) == req) {
			block_slot_read(out);
			return 0;
		}
		nanosleep(&nap, NULL);
	}
	errno = ETIMEDOUT;
	return -1;
}

/* The target's sigaction: BLOCK_SIG stays ours, the target's action is
 * kept for chaining and reported back as the old one. */
API NO_TSAN int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	block_sigaction_fn real = block_real_sigaction();

	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (sig != block_sig_no || !__atomic_load_n(&block_installed, __ATOMIC_ACQUIRE))
		return real(sig, act, old);
	if (old != NULL)
		*old = block_app;
	if (act != NULL)
		block_app = *act;
	return 0;
}

/* The target's signal(): the same rule as sigaction. */
API NO_TSAN sighandler_t signal(int sig, sighandler_t fn)
{
	struct sigaction a, old;

	memset(&a, 0, sizeof a);
	a.sa_handler = fn;
	a.sa_flags = SA_RESTART;
	if (sigaction(sig, &a, &old) < 0)
		return SIG_ERR;
	return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)old.sa_sigaction : old.sa_handler;
}
