/*
 * agent_detach.c - leaving a process the agent was injected into, so that
 * it runs on as if nothing had happened and /proc/PID/maps shows no agent.
 *
 * The reporter thread does it (agent_reporter.c), asked by the daemon's
 * detach record, by hookscope_detach() (hookscoped detach injects that
 * call), or by itself when its daemon has been gone longer than the grace
 * period.  In order:
 *   1. agent_detach_begin: level 0, then hook_engine_detach() (the engine
 *      puts back every patched byte and GOT entry and every hijacked return
 *      address; no thread is left in a trampoline or hook).  If it fails
 *      the agent stays loaded at level 0: nothing is unloaded under a
 *      thread that might still need it.
 *   2. the reporter sends the final figures and bye, closes the link.
 *   3. agent_detach_finish: collectors finish; every pthread key agent code
 *      created is deleted (their destructors are agent code; the link is
 *      made with -Wl,--wrap=pthread_key_create to record them); every
 *      signal whose handler is agent code gets its default action back
 *      (pending ones discarded first); the timing blocks are unmapped; then
 *      a detached thread is started whose start routine is dlclose itself
 *      (libc code), with the agent's handle.  The reporter returns.
 *   4. dlclose runs our destructor (agent_fini), which joins the reporter,
 *      so no thread is in agent code when ld.so unmaps it; __cxa_finalize
 *      drops the pthread_atfork handlers registered with our __dso_handle.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "collector.h"
#include "engine.h"
#include "timing.h"

#define DETACH_MAX_KEYS 16

static pthread_mutex_t detach_keys_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t detach_keys[DETACH_MAX_KEYS];
static int detach_nkeys;
static int detach_unloading;              /* relaxed atomic: step 3 done */

/* The real pthread_key_create, reached through the --wrap of the link
 * (weak: the unit tests link agent objects without --wrap). */
extern int __real_pthread_key_create(pthread_key_t *key, void (*dtor)(void *))
    __attribute__((weak));

/* Every pthread_key_create of agent code: create, and remember the key so
 * a detach can delete it before the code of its destructor goes away. */
int __wrap_pthread_key_create(pthread_key_t *key, void (*dtor)(void *))
{
	int r;

	if (__real_pthread_key_create == NULL)
		return ENOSYS;
	r = __real_pthread_key_create(key, dtor);
	if (r != 0)
		return r;
	pthread_mutex_lock(&detach_keys_lock);
	if (detach_nkeys < DETACH_MAX_KEYS)
		detach_keys[detach_nkeys++] = *key;
	else
		agent_warn("more than %d pthread keys: a detach would leave one behind",
		    DETACH_MAX_KEYS);
	pthread_mutex_unlock(&detach_keys_lock);
	return 0;
}

/* See agent.h: step 1.  0, or -1 with err (the agent stays, at level 0). */
int agent_detach_begin(char *err, size_t errlen)
{
	if (!agent_attached() || agent_attach_handle() == NULL) {
		snprintf(err, errlen, "this agent was preloaded at start, not attached: it cannot "
		    "be unloaded (use level 0 to stop timing)");
		return -1;
	}
	agent_set_level(0);
	return hook_engine_detach(err, errlen);
}

/* Delete every key agent code created. */
static void detach_keys_delete(void)
{
	pthread_mutex_lock(&detach_keys_lock);
	for (int i = 0; i < detach_nkeys; i++)
		pthread_key_delete(detach_keys[i]);
	detach_nkeys = 0;
	pthread_mutex_unlock(&detach_keys_lock);
}

/* Is p code of this library? */
static bool detach_is_ours(const void *p)
{
	Dl_info mine, it;

	return p != NULL && dladdr((void *)detach_is_ours, &mine) != 0 &&
	    dladdr(p, &it) != 0 && it.dli_fbase == mine.dli_fbase;
}

/* Give every signal handled by agent code its default action back; an
 * instance still pending is discarded first (SIG_IGN), so no late signal
 * reaches unmapped code or kills the process. */
static void detach_signals_reset(void)
{
	for (int sig = 1; sig <= SIGRTMAX; sig++) {
		struct sigaction cur, sa;
		const void *h;

		if (sigaction(sig, NULL, &cur) != 0)
			continue;
		h = (cur.sa_flags & SA_SIGINFO) ? (const void *)cur.sa_sigaction :
		    (const void *)cur.sa_handler;
		if (h == (const void *)SIG_DFL || h == (const void *)SIG_IGN || !detach_is_ours(h))
			continue;
		memset(&sa, 0, sizeof sa);
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = SIG_IGN;
		sigaction(sig, &sa, NULL);
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
		agent_log("detach: signal %d back to its default action", sig);
	}
}

/* See agent.h: step 3, on the reporter thread after its final report.
 * Returns -1 (agent stays loaded) only if the unload thread cannot start. */
int agent_detach_finish(void)
{
	void *(*start)(void *) = (void *(*)(void *))(void (*)(void))dlclose;
	pthread_attr_t attr;
	pthread_t t;
	int err;

	collector_fini_all();
	detach_keys_delete();
	detach_signals_reset();
	tm_blocks_free_all();
	__atomic_store_n(&detach_unloading, 1, __ATOMIC_RELEASE);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	/* The reporter blocks every signal; the new thread inherits that. */
	err = pthread_create(&t, &attr, start, agent_attach_handle());
	pthread_attr_destroy(&attr);
	if (err != 0) {
		agent_warn("detach: cannot start the thread that unloads the agent: %s; "
		    "hooks are removed, the library stays mapped", strerror(err));
		return -1;
	}
	return 0;
}

/* See agent.h: true once step 3 ran (the destructor only joins then). */
bool agent_detach_unloading(void)
{
	return __atomic_load_n(&detach_unloading, __ATOMIC_ACQUIRE) != 0;
}
