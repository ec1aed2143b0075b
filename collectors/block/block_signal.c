/*
 * block_signal.c - the UI thread's stack, taken by the UI thread itself in
 * a handler of BLOCK_SIG (SIGRTMAX-4), sent by the watchdog with
 * rt_tgsigqueueinfo and a value only the agent knows.
 *
 * The handler is async-signal-safe as far as glibc allows: the unwinder
 * (agent_backtrace, libgcc_s's) ran once at the agent's start, so libgcc_s
 * is loaded then, not in the handler; the copy goes to a static slot, and
 * completion is one release store.  The frames above the interrupted pc
 * (the handler, the signal trampoline) are dropped using the pc of the
 * ucontext.
 *
 * Chaining: a BLOCK_SIG not sent by us goes to the handler the target
 * installed, before or after us: the agent exports sigaction and signal,
 * keeps the target's action for BLOCK_SIG as the target's (reporting it
 * back as the old action) and leaves ours in place; one installed behind
 * our back is found before the next request and treated the same way.  SIG_DFL is honoured by
 * putting it back and raising the signal again; SIG_IGN ignores it.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

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

	return (block_sigaction_fn)AGENT_REAL(slot, "sigaction", false);
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

/* Our request: take the stack into the slot. */
static void block_take(void *uc)
{
	void *bt[BLOCK_BT_MAX];
	int n = agent_backtrace(bt, BLOCK_BT_MAX), first = 0;
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
	block_sigaction_fn real = block_real_sigaction();

	if (__atomic_load_n(&block_installed, __ATOMIC_RELAXED))
		return 0;
	if (real == NULL)
		return -1;
	if (agent_stack_init() < 0)
		agent_warn("block: blocks get no stacks");
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
