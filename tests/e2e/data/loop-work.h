/*
 * loop-work.h - the work the block tests' event loops do (loop-epoll.c,
 * loop-glib.c, loop-uv.c): a list of actions from the command line, one per
 * timer callback, 1 s apart:
 *   sleep:MS     one callback that sleeps MS (usleep)
 *   spin:MS      one callback that burns the CPU for MS
 *   short:MSxN   N spinning callbacks of MS each, 150 ms apart
 *   sigown:N     install the program's own handler of SIGRTMAX-4 (the
 *                agent's stack signal) and raise it N times: the handler
 *                must run N times
 * then the loop stays idle until killed.  Each action prints a line.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Monotonic ms. */
static double loop_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The sleeping callback: the name the block's stack must show. */
__attribute__((noinline)) void loop_sleep_callback(int ms)
{
	usleep((useconds_t)ms * 1000);
	__asm__ volatile("" ::: "memory");
}

/* The spinning callback. */
__attribute__((noinline)) void loop_spin_callback(int ms)
{
	double end = loop_now_ms() + ms;
	volatile unsigned long n = 0;

	while (loop_now_ms() < end)
		n++;
}

static volatile sig_atomic_t loop_own_calls;

/* The program's own handler of the agent's signal. */
static void loop_own_handler(int sig)
{
	(void)sig;
	loop_own_calls++;
}

/* Install it (sigaction, after the agent did) and raise the signal n times. */
static void loop_sigown(int n)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = loop_own_handler;
	sigaction(SIGRTMAX - 4, &sa, NULL);
	for (int i = 0; i < n; i++)
		raise(SIGRTMAX - 4);
	printf("loop: own handler called %d times\n", (int)loop_own_calls);
}

struct loop_plan {
	char **act;
	int    nact, next, repeat_left;
};

/* Run the next action; returns the delay in ms before the one after it,
 * or -1 when all are done. */
static int loop_step(struct loop_plan *p)
{
	int ms = 0, n = 1;

	if (p->next >= p->nact)
		return -1;
	if (sscanf(p->act[p->next], "sleep:%d", &ms) == 1) {
		loop_sleep_callback(ms);
	} else if (sscanf(p->act[p->next], "spin:%d", &ms) == 1) {
		loop_spin_callback(ms);
	} else if (sscanf(p->act[p->next], "sigown:%d", &n) == 1) {
		loop_sigown(n);
	} else if (sscanf(p->act[p->next], "short:%dx%d", &ms, &n) == 2) {
		if (p->repeat_left == 0)
			p->repeat_left = n;
		loop_spin_callback(ms);
		if (--p->repeat_left > 0)
			return 150;
	}
	printf("loop: done %s\n", p->act[p->next]);
	fflush(stdout);
	p->next++;
	return p->next < p->nact ? 1000 : -1;
}
