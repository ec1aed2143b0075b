/*
 * faulty.c - the target of the fault and stress tests (tests/e2e/fault-*.sh):
 * a program that misbehaves on purpose while hookscope watches it.
 *
 *   faulty tick [MS]        work, then print "tick N" (flushed) every MS ms
 *                           (default 20), forever: progress seen from outside
 *   faulty crash MS         tick for MS ms, then a SIGSEGV (null store)
 *   faulty forks N          N rounds of: fork a child that execs
 *                           /bin/true, fork one that works and _exits, fork
 *                           one that calls exit() from a second thread
 *                           while its main thread works; prints "forks: done"
 *   faulty stress N         N short-lived threads, a 1 kHz SIGALRM handler
 *                           calling instrumented code, deep recursion, and
 *                           dlopen/dlclose of $FAULTY_DLOPEN (tests/e2e/
 *                           data/dlmod.c) $FAULTY_DLOPEN_COUNT times
 *                           (default 200); prints only results
 *                           that must not depend on hookscope (diffed)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../apptime.h"

#include <errno.h>

static _Thread_local volatile unsigned long sink;   /* per thread: no races */
static unsigned in_handler_calls;         /* any thread may take the signal */

/* Some work the agent times. */
__attribute__((noinline)) static unsigned long work(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s = s * 31 + i;
	sink = s;
	return s;
}

/* Recursion through a hooked function: depth frames on the agent's stack. */
__attribute__((noinline)) static unsigned long recurse(unsigned depth)
{
	return depth == 0 ? 1 : (recurse(depth - 1) * 3 + depth) % 1000003;
}

/* Instrumented code inside a signal handler (re-enters the hooks at any
 * point of the interrupted thread's own hooked calls). */
__attribute__((noinline)) static void handler_work(void)
{
	sink += recurse(8);
}

static void on_alarm(int sig)
{
	int saved = errno;

	(void)sig;
	__atomic_add_fetch(&in_handler_calls, 1, __ATOMIC_RELAXED);
	handler_work();
	errno = saved;
}

static void *thread_main(void *arg)
{
	unsigned long *out = arg;

	*out = work(1000) + recurse(20);
	return NULL;
}

static void *exit_thread(void *arg)
{
	(void)arg;
	app_sleep_until(app_now_ns() + 2000000);
	exit(0);                /* while main is inside work(): mid-report */
}

/* tick MS: forever. */
static int mode_tick(long ms, long crash_ms)
{
	uint64_t start = app_now_ns(), next = start;

	for (unsigned long n = 1;; n++) {
		work(20000);
		printf("tick %lu\n", n);
		fflush(stdout);
		if (crash_ms > 0 && app_now_ns() - start >= (uint64_t)crash_ms * 1000000u)
			*(volatile int *)(uintptr_t)sink = 0;  /* SIGSEGV (sink is small) */
		next += (uint64_t)ms * 1000000u;
		app_sleep_until(next);
	}
	return 0;
}

/* forks N */
static int mode_forks(long rounds)
{
	for (long r = 0; r < rounds; r++) {
		pid_t kids[3];

		work(50000);
		if ((kids[0] = fork()) == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if ((kids[1] = fork()) == 0) {
			work(100000);
			_exit(0);
		}
		if ((kids[2] = fork()) == 0) {
			pthread_t t;

			pthread_create(&t, NULL, exit_thread, NULL);
			for (;;)
				work(100000);
		}
		for (int k = 0; k < 3; k++) {
			int st;

			if (kids[k] < 0 || waitpid(kids[k], &st, 0) != kids[k] ||
			    !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				printf("forks: child %d of round %ld failed\n", k, r);
				return 1;
			}
		}
	}
	printf("forks: done\n");
	return 0;
}

/* stress N */
static int mode_stress(long nthreads)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	const char *lib = getenv("FAULTY_DLOPEN"), *count = getenv("FAULTY_DLOPEN_COUNT");
	int dlopens = count ? atoi(count) : 200;
	unsigned long total = 0, dl = 0;
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < nthreads; i += 8) {
		pthread_t t[8];
		unsigned long r[8];
		int n = 0;

		for (; n < 8 && i + n < nthreads; n++)
			if (pthread_create(&t[n], NULL, thread_main, &r[n]) != 0) {
				printf("stress: pthread_create failed\n");
				return 1;
			}
		for (int k = 0; k < n; k++) {
			pthread_join(t[k], NULL);
			total += r[k];
		}
	}
	for (int i = 0; lib != NULL && i < dlopens; i++) {
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		void (*fn)(long);
		volatile long *v;

		if (h == NULL) {
			printf("stress: dlopen %s: %s\n", lib, dlerror());
			return 1;
		}
		fn = (void (*)(long))dlsym(h, "dl_many");
		v = dlsym(h, "dl_sink");
		if (fn == NULL || v == NULL) {
			printf("stress: %s lacks dl_many or dl_sink\n", lib);
			return 1;
		}
		fn(i);
		dl += (unsigned long)*v;
		dlclose(h);
	}
	setitimer(ITIMER_REAL, &(struct itimerval){ { 0, 0 }, { 0, 0 } }, NULL);
	printf("threads %ld sum %lu\n", nthreads, total);
	printf("recurse(5000) %lu\n", recurse(5000));
	printf("dlopen sum %lu\n", dl);
	printf("handler ran: %s\n", __atomic_load_n(&in_handler_calls, __ATOMIC_RELAXED) > 0 ? "yes" : "no");
	return 0;
}

int main(int argc, char **argv)
{
	long v = argc > 2 ? atol(argv[2]) : 0;

	if (argc >= 2 && strcmp(argv[1], "tick") == 0)
		return mode_tick(v > 0 ? v : 20, 0);
	if (argc >= 3 && strcmp(argv[1], "crash") == 0)
		return mode_tick(20, v);
	if (argc >= 3 && strcmp(argv[1], "forks") == 0)
		return mode_forks(v);
	if (argc >= 3 && strcmp(argv[1], "stress") == 0)
		return mode_stress(v);
	fprintf(stderr, "usage: faulty tick [MS] | crash MS | forks N | stress N\n");
	return 2;
}
