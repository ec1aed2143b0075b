/*
 * ipc-overhead.c - what the IPC wrappers cost per call (make bench): the
 * median over 7 runs of CPU ns per call of
 *   write(2) of 1 byte to /dev/null (an fd the agent classifies as not IPC:
 *     one load of the fd cache), and
 *   a 64-byte send+recv round trip over a socketpair to ourselves (an IPC
 *     fd: two clock reads and the thread's counters per call).
 * Run it without and with the agent preloaded (tests/bench/run.sh does).
 *   HS_BENCH_IPC_CALLS (default 200000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

/* CPU time of this thread in ns. */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	long n = getenv("HS_BENCH_IPC_CALLS") ? atol(getenv("HS_BENCH_IPC_CALLS")) : 200000;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), sv[2];
	double w[7], rt[7];
	char buf[64] = { 0 };

	if (n <= 0 || null < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		fprintf(stderr, "ipc-overhead: cannot set up\n");
		return 1;
	}
	for (int r = 0; r < 7; r++) {
		double t0 = cpu_ns();

		for (long i = 0; i < n; i++)
			if (write(null, buf, 1) != 1)
				return 1;
		w[r] = (cpu_ns() - t0) / (double)n;
		t0 = cpu_ns();
		for (long i = 0; i < n; i++)
			if (send(sv[0], buf, sizeof buf, 0) != (ssize_t)sizeof buf ||
			    recv(sv[1], buf, sizeof buf, 0) != (ssize_t)sizeof buf)
				return 1;
		rt[r] = (cpu_ns() - t0) / (double)n;
	}
	qsort(w, 7, sizeof w[0], cmp);
	qsort(rt, 7, sizeof rt[0], cmp);
	printf("  write to /dev/null (not IPC)        %8.1f ns per call\n", w[3]);
	printf("  send+recv over a socketpair (IPC)   %8.1f ns per round trip (2 calls)\n", rt[3]);
	return 0;
}
