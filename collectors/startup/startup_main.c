/*
 * startup_main.c - the points of a start after the constructors: libc's
 * start (every library constructor done), main's first instruction (the
 * agent exports __libc_start_main and hands libc its own main, which
 * stamps and jumps to the program's: a sibling call, so no agent frame
 * stays on the stack), the first frame presented (fps tells), the main
 * thread's first wait call (block's wait wrappers tell; GLib's main loop
 * and libuv wait in poll and epoll_wait), and every dlopen (the engine's
 * wrapper tells).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HOOKSCOPE_BUILDING_AGENT
#include "agent.h"
#include "startup.h"
#include "startup_int.h"

#define API __attribute__((visibility("default")))

int startup_want_frame, startup_want_wait;
uint64_t su_ctors_ns, su_main_ns, su_frame_ns, su_wait_ns;
const char *su_wait_call;
struct su_dlopen su_dlopens[SU_MAX_DLOPENS];
uint64_t su_dlopens_total;

static int (*su_real_main)(int, char **, char **);
static pthread_t su_main_thread;
static void *su_self_base;                   /* the agent's load address */

/* Is code at pc the agent's (its own calls are not the program's)? */
static bool su_is_self(const void *pc)
{
	Dl_info di;

	return pc != NULL && dladdr(pc, &di) != 0 && di.dli_fbase == su_self_base;
}

/* See startup_int.h.  Attached (or loaded by a dlopen), the start is over:
 * nothing is armed. */
void su_main_arm(bool at_start)
{
	Dl_info di;

	if (!at_start)
		return;
	su_main_thread = pthread_self();
	if (dladdr((void *)su_main_arm, &di) != 0)
		su_self_base = di.dli_fbase;
	__atomic_store_n(&startup_want_frame, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&startup_want_wait, 1, __ATOMIC_RELAXED);
}

/* main as libc sees it: stamp, then the program's main (tail call). */
static int su_main(int argc, char **argv, char **env)
{
	__atomic_store_n(&su_main_ns, proto_now_ns(), __ATOMIC_RELEASE);
	return su_real_main(argc, argv, env);
}

/* Exported: the program's _start calls it (glibc's signature). */
API int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
    void (*init)(void), void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	static void *slot;
	int (*real)(int (*)(int, char **, char **), int, char **, void (*)(void),
	    void (*)(void), void (*)(void), void *) =
	    (int (*)(int (*)(int, char **, char **), int, char **, void (*)(void),
	    void (*)(void), void (*)(void), void *))AGENT_REAL(slot, "__libc_start_main", false);

	if (real == NULL) {
		fprintf(stderr, "hookscope: libc's __libc_start_main not found\n");
		_exit(127);
	}
	__atomic_store_n(&su_ctors_ns, proto_now_ns(), __ATOMIC_RELEASE);
	su_real_main = main;
	return real(su_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* See startup.h: the first frame, whichever thread presents it. */
void startup_frame_first(void)
{
	uint64_t zero = 0;

	__atomic_store_n(&startup_want_frame, 0, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&su_frame_ns, &zero, proto_now_ns(), false,
	    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* See startup.h: the main thread's first wait that is the program's (the
 * agent's own calls do not count). */
void startup_wait_first(const char *call, const void *ra)
{
	uint64_t now;

	if (!pthread_equal(pthread_self(), su_main_thread) || su_is_self(ra))
		return;
	now = proto_now_ns();
	__atomic_store_n(&startup_want_wait, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&su_wait_call, call, __ATOMIC_RELAXED);   /* a string literal of the wrapper */
	__atomic_store_n(&su_wait_ns, now, __ATOMIC_RELEASE);
}

/* See startup.h. */
uint64_t startup_dlopen_begin(void)
{
	return proto_now_ns();
}

/* See startup.h: the first SU_MAX_DLOPENS calls are kept, all counted.
 * RTLD_NOLOAD asks, it does not load: not a load. */
void startup_dlopen_end(uint64_t start_ns, const char *file, int mode, const void *h)
{
	uint64_t i, end = proto_now_ns();
	struct su_dlopen *d;

	if (file == NULL || (mode & RTLD_NOLOAD))
		return;
	i = __atomic_fetch_add(&su_dlopens_total, 1, __ATOMIC_RELAXED);
	if (i >= SU_MAX_DLOPENS)
		return;
	d = &su_dlopens[i];
	snprintf(d->name, sizeof d->name, "%s", file);
	d->start_ns = start_ns;
	d->dur_ns = end - start_ns;
	d->tid = (int32_t)gettid();
	d->ok = h != NULL;
	__atomic_store_n(&d->done, true, __ATOMIC_RELEASE);
}
