/*
 * hook_wrap.c - the engine's own wrappers, exported by the agent
 * (engine/exports): dlopen patches the modules it loaded, dlclose makes the
 * engine forget the ones it unloaded.  hook_wrap_inflight counts the
 * threads inside either (maybe in the real call, outside the agent's code):
 * a detach waits for none.
 */
#include <dlfcn.h>
#include <stdint.h>

#include "agent.h"
#include "hook_int.h"
#include "startup.h"

uint32_t hook_wrap_inflight;

/* dlopen, exported by the agent (engine/exports): after a successful
 * dlopen, the new own modules are patched at the current level before the
 * caller can call into them.  The real dlopen sees the agent as its caller:
 * a library named without a '/' is searched without the calling module's
 * RPATH/RUNPATH (LD_LIBRARY_PATH, the cache and the system directories
 * still apply). */
__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	static void *slot;
	void *(*real)(const char *, int) = (void *(*)(const char *, int))AGENT_REAL(slot, "dlopen", false);
	uint64_t t0;
	void *h;

	if (real == NULL)
		return NULL;
	__atomic_add_fetch(&hook_wrap_inflight, 1, __ATOMIC_ACQ_REL);
	t0 = startup_dlopen_begin();
	h = real(file, mode);
	startup_dlopen_end(t0, file, mode, h);
	if (h != NULL && file != NULL && !(mode & RTLD_NOLOAD)) {
		agent_reals_resolve();
		hook_engine_loaded();
	}
	/* A load succeeded: no error is pending, whatever the agent looked up
	 * since (a failed dlopen's error stays the caller's). */
	if (h != NULL)
		(void)dlerror();
	__atomic_sub_fetch(&hook_wrap_inflight, 1, __ATOMIC_ACQ_REL);
	return h;
}

/* dlclose, exported by the agent (engine/exports): a module unloaded is
 * forgotten by the engine before a level change can write to its old
 * addresses (hook_engine_unloading serializes the two). */
__attribute__((visibility("default"))) int dlclose(void *h)
{
	static void *slot;
	int (*real)(void *) = (int (*)(void *))AGENT_REAL(slot, "dlclose", false);
	int r;

	if (real == NULL)
		return -1;
	__atomic_add_fetch(&hook_wrap_inflight, 1, __ATOMIC_ACQ_REL);
	r = hook_engine_unloading(real, h);
	__atomic_sub_fetch(&hook_wrap_inflight, 1, __ATOMIC_ACQ_REL);
	return r;
}
