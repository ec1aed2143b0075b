/*
 * floor-hooks.c - the floor of per-call timing for `make bench`: the
 * -finstrument-functions hooks that do the least a timer can do: read the
 * TSC on entry and on exit and add the difference and a count to
 * thread-local counters (no table, no stack beyond the last entry).
 * tests/bench/run.sh builds it as a shared object and preloads it into the
 * -finstrument-functions build of engine-loop.c (it replaces glibc's empty
 * stubs the same way the agent does).
 */
#include <stdint.h>
#include <x86intrin.h>

#define HOOK __attribute__((no_instrument_function, visibility("default")))
#define TLS  __thread __attribute__((tls_model("initial-exec")))

static TLS uint64_t floor_start, floor_total, floor_calls;

HOOK void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	floor_start = __rdtsc();
}

HOOK void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	floor_total += __rdtsc() - floor_start;
	floor_calls++;
}
