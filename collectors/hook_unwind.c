/*
 * hook_unwind.c - keep unwinders working through timed calls.
 *
 * A timed call's return address is its site block's return point, which
 * has no unwind information, so an unwinder walking the stack stops there: a C++ exception
 * thrown through it would terminate the program, backtrace() would end
 * there.  These wrappers put the real return addresses back first
 * (tm_site_unhook, timing_hot.c):
 *   _Unwind_RaiseException, _Unwind_Resume_or_Rethrow (throw, rethrow): the
 *     frames are detached for good, since the walk does not come back; their
 *     calls are still counted, when they are seen to have returned;
 *   backtrace: the trampoline goes back in after the walk, and the wrapper's
 *     own frame is dropped from the result.
 * Not reachable this way: pthread_exit/pthread_cancel (glibc calls
 * _Unwind_ForcedUnwind through its own dlopen of libgcc_s): the unwinding
 * stops at the first timed frame and the thread ends there.
 * With no timed frame on the thread (the engine off) each wrapper only
 * forwards the call.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

#include "hook.h"
#include "timing.h"

#define API __attribute__((visibility("default")))
#define HOOK_BT_MAX 256

typedef _Unwind_Reason_Code (*hook_raise_fn)(struct _Unwind_Exception *);
typedef int (*hook_bt_fn)(void **, int);

/* The next definition of name (libgcc_s, libc), looked up once; a missing
 * one is fatal since the caller was linked against it. */
static void *hook_next(void **cache, const char *name)
{
	void *p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (p == NULL) {
		p = dlsym(RTLD_NEXT, name);
		if (p == NULL) {
			static const char msg[] = "hookscope: an unwinder function is missing\n";

			(void)!write(2, msg, sizeof msg - 1);
			abort();
		}
		__atomic_store_n(cache, p, __ATOMIC_RELEASE);
	}
	return p;
}

/* C++ throw (phase 1 and 2 walk the whole stack). */
API _Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	static void *next;
	hook_raise_fn f = (hook_raise_fn)hook_next(&next, "_Unwind_RaiseException");

	tm_site_unhook(true, NULL, 0);
	return f(e);
}

/* C++ rethrow (`throw;`). */
API _Unwind_Reason_Code _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	static void *next;
	hook_raise_fn f = (hook_raise_fn)hook_next(&next, "_Unwind_Resume_or_Rethrow");

	tm_site_unhook(true, NULL, 0);
	return f(e);
}

/* glibc backtrace(): walk with the real return addresses, then put the
 * trampolines back; drop this wrapper's frame from the result. */
API int backtrace(void **buf, int size)
{
	static void *next;
	hook_bt_fn f = (hook_bt_fn)hook_next(&next, "backtrace");
	uint32_t done[TM_STACK];
	void *tmp[HOOK_BT_MAX + 1];
	size_t n;
	int r;

	if (size <= 0)
		return 0;
	n = tm_site_unhook(false, done, TM_STACK);
	if (size <= HOOK_BT_MAX) {
		r = f(tmp, size + 1);
		r = r > 0 ? r - 1 : 0;
		memcpy(buf, tmp + 1, (size_t)r * sizeof *buf);
	} else {
		r = f(buf, size);
		if (r > 0)
			memmove(buf, buf + 1, (size_t)--r * sizeof *buf);
	}
	tm_site_rehook(done, n);
	return r;
}
