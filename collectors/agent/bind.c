/*
 * bind.c - the collectors' wrapper tables (bind.h) and the way out of a
 * blocking wrapper at detach.
 *
 * The tables are only kept here; the engine's GOT patcher installs them in
 * an attached agent (hook_got.c asks bind_find for each import of a module).
 *
 * Threads inside a blocking wrapper: each thread that ever made such a call
 * has a record (tid, depth) on a lock-free list, found again through an
 * initial-exec TLS pointer; a thread's exit frees its record (a pthread
 * key's destructor) for the next new thread, a fork child keeps only its
 * own (under its new tid).  bind_enter and bind_exit are
 * sequentially consistent against bind_let_out's flag: either the wrapper
 * sees the detach and calls the real function directly, or the detach sees
 * the depth and signals the thread (BIND_SIG, a handler without
 * SA_RESTART: the system call ends with EINTR and the wrapper makes it again
 * as a tail call).  One kick at a time per thread: the handler notes whether
 * the thread was still in the agent's code (before the system call: kicked
 * again at once) or outside it (in the call: left alone for BIND_REKICK_MS,
 * so a second kick cannot reach the call the wrapper makes again, outside
 * it, which would then end with EINTR in the program's hands).
 */
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "bind.h"
#include "engine.h"
#include "protocol.h"

#define BIND_SIG (SIGRTMAX - 6)        /* hook_stop -3, block -4, timing's ip sampler -5 */
#define BIND_REKICK_MS 100             /* a thread kicked in its system call is left that long */

/* A thread's last kick (bind_let_out): sent, or seen by its handler with
 * the thread inside the agent's code (it had not reached the system call:
 * kicked again) or outside it (in the call, which ends with EINTR: not
 * kicked again soon, so no kick can reach the call it makes again). */
enum { BIND_K_NONE, BIND_K_SENT, BIND_K_MISSED, BIND_K_HIT };

struct bind_thr {
	int32_t          tid;           /* 0: free */
	int32_t          depth;         /* blocking wrappers this thread is inside */
	int32_t          kick;          /* BIND_K_* */
	uint64_t         kick_ns;       /* when it was sent */
	struct bind_thr *next;
};

static const struct bind_table *bind_tables[BIND_MAX_TABLES];
static size_t bind_n;
static struct bind_thr *bind_thrs;      /* pushed, never popped */
static int bind_leaving;
static pthread_key_t bind_key;
static pthread_once_t bind_once = PTHREAD_ONCE_INIT;
static __thread struct bind_thr *bind_me __attribute__((tls_model("initial-exec")));
static uintptr_t bind_text_lo, bind_text_hi;   /* the agent's code, for the handler */

/* See bind.h. */
void bind_add(const struct bind_table *t)
{
	if (bind_n == BIND_MAX_TABLES) {
		agent_warn("bind: more than %d wrapper tables: %s's are not bound after an attach",
		    BIND_MAX_TABLES, t->who);
		return;
	}
	__atomic_store_n(&bind_tables[bind_n], t, __ATOMIC_RELEASE);
	__atomic_store_n(&bind_n, bind_n + 1, __ATOMIC_RELEASE);
}

/* See bind.h. */
size_t bind_ntables(void)
{
	return __atomic_load_n(&bind_n, __ATOMIC_ACQUIRE);
}

/* Is the file name of path one of the ':'-separated globs of libs? */
static bool bind_lib_match(const char *libs, const char *path)
{
	const char *base = strrchr(path, '/');
	char glob[128];

	base = base != NULL ? base + 1 : path;
	while (libs != NULL && *libs != '\0') {
		size_t len = strcspn(libs, ":");

		if (len > 0 && len < sizeof glob) {
			memcpy(glob, libs, len);
			glob[len] = '\0';
			if (fnmatch(glob, base, 0) == 0)
				return true;
		}
		libs += len + (libs[len] == ':');
	}
	return false;
}

/* See bind.h. */
const struct bind_fn *bind_find(size_t k, const char *name, const char *path, bool own)
{
	const struct bind_table *t = __atomic_load_n(&bind_tables[k], __ATOMIC_ACQUIRE);

	if (!own && !bind_lib_match(t->libs, path))
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->fns[i].name, name) == 0)
			return (t->fns[i].flags & BIND_NOATTACH) ? NULL : &t->fns[i];
	return NULL;
}

/* A thread ended: its record is free for the next one. */
static void bind_thr_free(void *p)
{
	struct bind_thr *t = p;

	__atomic_store_n(&t->depth, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->kick, BIND_K_NONE, __ATOMIC_RELAXED);
	__atomic_store_n(&t->tid, 0, __ATOMIC_RELEASE);
}

/* Fork child: only the forking thread survives, under a new tid. */
static void bind_atfork_child(void)
{
	for (struct bind_thr *t = bind_thrs; t != NULL; t = t->next)
		if (t != bind_me)
			bind_thr_free(t);
	if (bind_me != NULL)
		bind_me->tid = (int32_t)syscall(SYS_gettid);
}

static void bind_key_make(void)
{
	if (pthread_key_create(&bind_key, bind_thr_free) != 0)
		agent_warn("bind: no pthread key: records of exited threads are not reused");
	pthread_atfork(NULL, NULL, bind_atfork_child);
}

/* This thread's record: a free one taken over, else a new one pushed. */
static struct bind_thr *bind_thr_get(void)
{
	int32_t tid = (int32_t)syscall(SYS_gettid), zero;
	struct bind_thr *t;

	pthread_once(&bind_once, bind_key_make);
	for (t = __atomic_load_n(&bind_thrs, __ATOMIC_ACQUIRE); t != NULL; t = t->next) {
		zero = 0;
		if (__atomic_load_n(&t->tid, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&t->tid, &zero, tid, false, __ATOMIC_ACQ_REL,
		    __ATOMIC_RELAXED))
			break;
	}
	if (t == NULL) {
		t = xcalloc(1, sizeof *t);
		t->tid = tid;
		t->next = __atomic_load_n(&bind_thrs, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&bind_thrs, &t->next, t, true, __ATOMIC_RELEASE,
		    __ATOMIC_RELAXED))
			;
	}
	bind_me = t;            /* first: pthread_setspecific may calloc, through a bound wrapper */
	pthread_setspecific(bind_key, t);
	return t;
}

/* See bind.h. */
bool bind_enter(void)
{
	struct bind_thr *t = bind_me;

	if (t == NULL)
		t = bind_thr_get();
	__atomic_store_n(&t->depth, t->depth + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&bind_leaving, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&t->depth, t->depth - 1, __ATOMIC_RELEASE);
		return false;
	}
	return true;
}

/* See bind.h. */
bool bind_exit(void)
{
	struct bind_thr *t = bind_me;

	__atomic_store_n(&t->depth, t->depth - 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&bind_leaving, __ATOMIC_SEQ_CST) != 0;
}

/* The signal ends the system call the thread sleeps in; the handler only
 * notes where the thread was. */
static void bind_kick(int sig, siginfo_t *si, void *uc)
{
	struct bind_thr *t = bind_me;
	uintptr_t pc = hook_engine_uc_pc(uc);

	(void)sig;
	(void)si;
	if (t != NULL)
		__atomic_store_n(&t->kick, pc >= bind_text_lo && pc < bind_text_hi ? BIND_K_MISSED :
		    BIND_K_HIT, __ATOMIC_RELEASE);
}

/* Kick t unless its last kick is on its way, or hit less than
 * BIND_REKICK_MS ago.  Is it still inside? */
static bool bind_kick_one(struct bind_thr *t, uint64_t now)
{
	int32_t tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE);
	int32_t k = __atomic_load_n(&t->kick, __ATOMIC_ACQUIRE);

	if (tid == 0 || __atomic_load_n(&t->depth, __ATOMIC_SEQ_CST) <= 0)
		return false;
	if (k == BIND_K_SENT || (k == BIND_K_HIT && now - t->kick_ns < BIND_REKICK_MS * 1000000ull))
		return true;
	t->kick_ns = now;
	__atomic_store_n(&t->kick, BIND_K_SENT, __ATOMIC_RELEASE);
	return syscall(SYS_tgkill, getpid(), tid, BIND_SIG) == 0;
}

/* See bind.h.  Runs on the reporter (every signal blocked). */
int bind_let_out(unsigned timeout_ms, char *err, size_t errlen)
{
	struct timespec nap = { 0, 1000000 };
	struct sigaction sa, old;
	unsigned waited = 0;
	int left;

	__atomic_store_n(&bind_leaving, 1, __ATOMIC_SEQ_CST);
	agent_text(&bind_text_lo, &bind_text_hi);
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = bind_kick;
	sa.sa_flags = SA_SIGINFO;               /* no SA_RESTART */
	if (sigaction(BIND_SIG, &sa, &old) != 0) {
		snprintf(err, errlen, "sigaction(SIGRTMAX-6): %s", strerror(errno));
		return -1;
	}
	for (;;) {
		uint64_t now = proto_now_ns();

		left = 0;
		for (struct bind_thr *t = __atomic_load_n(&bind_thrs, __ATOMIC_ACQUIRE); t;
		    t = t->next)
			left += bind_kick_one(t, now);
		if (left == 0 || waited >= timeout_ms)
			break;
		nanosleep(&nap, NULL);
		waited++;
	}
	/* Pending instances are discarded before the old action returns. */
	sa.sa_handler = SIG_IGN;
	sigaction(BIND_SIG, &sa, NULL);
	sigaction(BIND_SIG, &old, NULL);
	if (left > 0) {
		snprintf(err, errlen, "%d thread(s) stayed inside a wrapper for %u ms", left,
		    timeout_ms);
		return -1;
	}
	if (waited > 0)
		agent_log("bind: threads inside wrappers let out in %u ms", waited);
	return 0;
}
