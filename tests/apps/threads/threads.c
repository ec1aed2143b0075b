/*
 * threads.c - a target whose threads are known in advance, for the threads
 * collector's tests (tests/e2e/threads-*.sh).
 *
 * Usage: threads [--tasks N] [--pool W] [--pool-tasks T] [--detached N]
 *                [--c11 N] [--leak] [--idle N] [--wait-file PATH]
 *   --tasks N       N short-lived threads, one per task (task_main), each
 *                   joined before the next starts
 *   --pool W        a hand-written pool: W workers (pool_worker) created from
 *                   one call site, fed --pool-tasks T tasks (default 100)
 *                   through a mutex and a condition variable, then joined
 *   --detached N    N detached threads (detached_main), created detached
 *   --c11 N         N C11 threads (c11_main, thrd_create), joined
 *   --leak          one thread (leaked_main) that ends and is never joined
 *   --idle N        N threads (idle_main) that wait until main releases them
 *   --wait-file P   after the work, print "threads: ready" and wait until P
 *                   exists (the test samples the live count meanwhile), then
 *                   release and join the idle threads
 * Workers name themselves: pool workers with pthread_setname_np ("pool-K"),
 * idle threads with prctl(PR_SET_NAME, "idle-K").
 * At the end it prints "threads: created N" (every thread it created).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static long q_tasks, q_done;
static int q_closed, idle_release;
static unsigned long sink;          /* shared by every worker: atomic adds */
static long created;

/* Some work a task does. */
__attribute__((noinline)) void task_work(long n)
{
	for (long i = 0; i < n; i++)
		__atomic_fetch_add(&sink, (unsigned long)i * 2654435761u, __ATOMIC_RELAXED);
}

/* A thread per task. */
__attribute__((noinline)) void *task_main(void *arg)
{
	task_work((long)(intptr_t)arg);
	return NULL;
}

/* A worker of the hand-written pool: takes tasks until the queue closes. */
__attribute__((noinline)) void *pool_worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof name, "pool-%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&q_lock);
	for (;;) {
		while (q_tasks == 0 && !q_closed)
			pthread_cond_wait(&q_cond, &q_lock);
		if (q_tasks == 0)
			break;
		q_tasks--;
		pthread_mutex_unlock(&q_lock);
		task_work(20000);
		pthread_mutex_lock(&q_lock);
		q_done++;
	}
	pthread_mutex_unlock(&q_lock);
	return NULL;
}

/* A detached thread. */
__attribute__((noinline)) void *detached_main(void *arg)
{
	(void)arg;
	task_work(1000);
	return NULL;
}

/* A thread nobody joins. */
__attribute__((noinline)) void *leaked_main(void *arg)
{
	(void)arg;
	return NULL;
}

/* A C11 thread. */
__attribute__((noinline)) int c11_main(void *arg)
{
	task_work((long)(intptr_t)arg);
	return 7;
}

/* Waits until main releases it. */
__attribute__((noinline)) void *idle_main(void *arg)
{
	char name[16];

	snprintf(name, sizeof name, "idle-%d", (int)(intptr_t)arg);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	pthread_mutex_lock(&q_lock);
	while (!idle_release)
		pthread_cond_wait(&q_cond, &q_lock);
	pthread_mutex_unlock(&q_lock);
	return NULL;
}

/* Create a thread or die. */
static void make(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	if (pthread_create(t, attr, fn, arg) != 0) {
		fprintf(stderr, "threads: pthread_create failed\n");
		exit(1);
	}
	created++;
}

/* The hand-written pool: W workers, T tasks. */
static void run_pool(int w, long t)
{
	pthread_t *ws = calloc((size_t)w, sizeof *ws);

	for (int i = 0; i < w; i++)
		make(&ws[i], NULL, pool_worker, (void *)(intptr_t)i);
	pthread_mutex_lock(&q_lock);
	q_tasks += t;
	q_closed = 1;
	pthread_cond_broadcast(&q_cond);
	pthread_mutex_unlock(&q_lock);
	for (int i = 0; i < w; i++)
		pthread_join(ws[i], NULL);
	free(ws);
}

/* The numeric argument of an option. */
static long arg_num(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "threads: %s needs a number\n", argv[*i]);
		exit(2);
	}
	return atol(argv[++*i]);
}

int main(int argc, char **argv)
{
	long tasks = 0, pool = 0, pool_tasks = 100, detached = 0, c11 = 0, idle = 0;
	int leak = 0;
	const char *wait_file = NULL;
	pthread_t t, *idles;
	pthread_attr_t det;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--tasks") == 0)
			tasks = arg_num(argc, argv, &i);
		else if (strcmp(argv[i], "--pool") == 0)
			pool = arg_num(argc, argv, &i);
		else if (strcmp(argv[i], "--pool-tasks") == 0)
			pool_tasks = arg_num(argc, argv, &i);
		else if (strcmp(argv[i], "--detached") == 0)
			detached = arg_num(argc, argv, &i);
		else if (strcmp(argv[i], "--c11") == 0)
			c11 = arg_num(argc, argv, &i);
		else if (strcmp(argv[i], "--idle") == 0)
			idle = arg_num(argc, argv, &i);
		else if (strcmp(argv[i], "--leak") == 0)
			leak = 1;
		else if (strcmp(argv[i], "--wait-file") == 0 && i + 1 < argc)
			wait_file = argv[++i];
		else {
			fprintf(stderr, "threads: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	idles = calloc((size_t)idle + 1, sizeof *idles);
	for (long i = 0; i < idle; i++)
		make(&idles[i], NULL, idle_main, (void *)(intptr_t)i);
	for (long i = 0; i < tasks; i++) {
		make(&t, NULL, task_main, (void *)(intptr_t)5000);
		pthread_join(t, NULL);
	}
	if (pool > 0)
		run_pool((int)pool, pool_tasks);
	pthread_attr_init(&det);
	pthread_attr_setdetachstate(&det, PTHREAD_CREATE_DETACHED);
	for (long i = 0; i < detached; i++)
		make(&t, &det, detached_main, NULL);
	for (long i = 0; i < c11; i++) {
		thrd_t c;
		int res = 0;

		if (thrd_create(&c, c11_main, (void *)(intptr_t)1000) != thrd_success)
			return 1;
		created++;
		thrd_join(c, &res);
	}
	if (leak)
		make(&t, NULL, leaked_main, NULL);
	if (wait_file != NULL) {
		printf("threads: ready\n");
		fflush(stdout);
		while (access(wait_file, F_OK) != 0)
			usleep(10000);
	}
	pthread_mutex_lock(&q_lock);
	idle_release = 1;
	pthread_cond_broadcast(&q_cond);
	pthread_mutex_unlock(&q_lock);
	for (long i = 0; i < idle; i++)
		pthread_join(idles[i], NULL);
	usleep(50000);                /* the detached ones finish */
	printf("threads: created %ld\n", created);
	free(idles);
	return 0;
}
