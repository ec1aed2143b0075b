/*
 * idle-thread.c - what any in-process agent costs a program before it
 * does anything: a preloaded library whose constructor starts one thread
 * that never runs again.  The program is multi-threaded from then on, so
 * glibc's malloc and mutexes take their atomic paths (single-threaded,
 * they skip them).  tests/bench/memory.sh builds it as a shared object and
 * preloads it into sqlite3 beside the agent's rows.
 */
#include <pthread.h>
#include <unistd.h>

static void *idle_wait(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((constructor)) static void idle_start(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, idle_wait, NULL) == 0)
		pthread_detach(t);
}
