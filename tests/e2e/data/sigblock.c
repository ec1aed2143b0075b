/*
 * sigblock.c SECONDS - worker threads that block every signal, as a program
 * that leaves its signals to one sigwait thread has them, calling twenty
 * small functions as fast as they can; main (every signal blocked too)
 * waits for SIGTERM or the time given with sigtimedwait, then prints "done"
 * and the workers' rounds.  noipa keeps gcc from inlining or cloning.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOIPA __attribute__((noipa))

volatile long sink;
static volatile int stop;
static long rounds[2];

#define F(n) NOIPA void f##n(long x) { sink += x * n; }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9)
F(10) F(11) F(12) F(13) F(14) F(15) F(16) F(17) F(18) F(19)
static void (*const fs[])(long) = { f0, f1, f2, f3, f4, f5, f6, f7, f8, f9,
	f10, f11, f12, f13, f14, f15, f16, f17, f18, f19 };

NOIPA void work(long i)
{
	for (int k = 0; k < 20; k++)
		fs[(i + k) % 20](i);
}

static void *run(void *arg)
{
	long *n = arg;

	while (!stop)
		work((*n)++);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t = { argc > 1 ? atoi(argv[1]) : 4, 0 };
	pthread_t th[2];
	sigset_t all, term;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);     /* the workers inherit it */
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, run, &rounds[i]);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigtimedwait(&term, NULL, &t);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("done %ld %ld\n", rounds[0], rounds[1]);
	return 0;
}
