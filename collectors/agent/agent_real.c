/*
 * agent_real.c - the wrappers' real functions looked up ahead of their
 * calls (agent.h: AGENT_REAL lists each slot in the hookscope_reals
 * section).  Run at the agent's start and by the dlopen wrapper after a
 * successful load, on the loading thread: a dlsym then cannot end a
 * dlerror state the target still means to read.  An attached agent
 * interposes nothing: its wrappers are bound into GOTs, whose replaced
 * entries give them their real functions (hook_got.c), so it looks up
 * nothing here.
 */
#include <dlfcn.h>
#include <link.h>

#include "agent.h"

extern const struct agent_real_ref __start_hookscope_reals[] __attribute__((weak, visibility("hidden")));
extern const struct agent_real_ref __stop_hookscope_reals[] __attribute__((weak, visibility("hidden")));

static unsigned long long agent_reals_adds;   /* objects loaded when last resolved */

/* dl_iterate_phdr's callback: the loader's count of objects ever loaded. */
static int agent_reals_adds_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

/* See agent.h. */
void agent_reals_resolve(void)
{
	unsigned long long adds = 0;
	bool looked = false;

	if (agent_attached())
		return;
	dl_iterate_phdr(agent_reals_adds_cb, &adds);
	if (adds != 0 && __atomic_exchange_n(&agent_reals_adds, adds, __ATOMIC_RELAXED) == adds)
		return;                    /* nothing loaded since the last time */
	/* The next definition only: RTLD_DEFAULT would find the agent's own
	 * wrapper of a function whose library is not loaded yet (anywhere is
	 * for the call, when the library is there). */
	for (const struct agent_real_ref *r = __start_hookscope_reals; r < __stop_hookscope_reals; r++)
		for (unsigned i = 0; i < r->n; i++) {
			void *p;

			if (__atomic_load_n(&r->slot[i], __ATOMIC_ACQUIRE) != NULL)
				continue;
			p = dlsym(RTLD_NEXT, r->name != NULL ? r->name : r->names[i]);
			looked = true;
			if (p != NULL)
				__atomic_store_n(&r->slot[i], p, __ATOMIC_RELEASE);
		}
	if (looked)
		(void)dlerror();           /* the failed look-ups' error is ours: drop it */
}
