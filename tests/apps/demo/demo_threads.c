/*
 * demo_threads.c - the demo's threads scenario (--threads): a dispatcher
 * thread that every 100 ms starts one short-lived thread per task (two
 * tasks, each joined) and hands four tasks to a hand-written pool of two
 * workers (a mutex and a condition variable), so the threads panel shows a
 * creator with short-lived threads, an inferred pool and its workers.  A
 * GThreadPool is not part of the demo (GLib would become a build
 * dependency): tests/e2e/data/gpool.c covers it at test time.
 */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "hookscope.h"

#define DT_WORKERS 2

static pthread_mutex_t dt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dt_cond = PTHREAD_COND_INITIALIZER;
static long dt_queue;
static uint64_t dt_sink;                 /* shared by the threads: atomic adds */

/* A task's work: some arithmetic. */
__attribute__((noinline)) uint64_t dt_task(long n)
{
	uint64_t x = (uint64_t)n;

	for (int k = 0; k < 20000; k++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* A short-lived thread: one task, then it ends. */
__attribute__((noinline)) void *dt_task_thread(void *arg)
{
	__atomic_fetch_add(&dt_sink, dt_task((long)(intptr_t)arg), __ATOMIC_RELAXED);
	return NULL;
}

/* A worker of the hand-written pool. */
__attribute__((noinline)) void *dt_pool_worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "demo-pool");
	for (;;) {
		pthread_mutex_lock(&dt_lock);
		while (dt_queue == 0)
			pthread_cond_wait(&dt_cond, &dt_lock);
		dt_queue--;
		pthread_mutex_unlock(&dt_lock);
		__atomic_fetch_add(&dt_sink, dt_task(7), __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The dispatcher: every 100 ms two task threads and four pool tasks. */
__attribute__((noinline)) void *dt_dispatcher(void *arg)
{
	pthread_t w[DT_WORKERS], t;

	(void)arg;
	pthread_setname_np(pthread_self(), "demo-dispatch");
	for (int i = 0; i < DT_WORKERS; i++)
		pthread_create(&w[i], NULL, dt_pool_worker, NULL);
	for (long n = 0;; n++) {
		for (int k = 0; k < 2; k++)
			if (pthread_create(&t, NULL, dt_task_thread, (void *)(intptr_t)n) == 0)
				pthread_join(t, NULL);
		pthread_mutex_lock(&dt_lock);
		dt_queue += 4;
		pthread_cond_broadcast(&dt_cond);
		pthread_mutex_unlock(&dt_lock);
		usleep(100000);
	}
	return NULL;
}

/* Start the scenario (main calls it with --threads). */
HOOKSCOPE_NO_INSTRUMENT int demo_threads_start(void)
{
	pthread_t d;

	return pthread_create(&d, NULL, dt_dispatcher, NULL);
}
