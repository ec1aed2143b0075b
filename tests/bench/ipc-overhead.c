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
#include <fcntl.h>
#include <unistd.h>

#include "bench.h"

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
		double t0 = bench_cpu_ns();

		for (long i = 0; i < n; i++)
			if (write(null, buf, 1) != 1)
				return 1;
		w[r] = (bench_cpu_ns() - t0) / (double)n;
		t0 = bench_cpu_ns();
		for (long i = 0; i < n; i++)
			if (send(sv[0], buf, sizeof buf, 0) != (ssize_t)sizeof buf ||
			    recv(sv[1], buf, sizeof buf, 0) != (ssize_t)sizeof buf)
				return 1;
		rt[r] = (bench_cpu_ns() - t0) / (double)n;
	}
	printf("  write to /dev/null (not IPC)        %8.1f ns per call\n", bench_median(w, 7));
	printf("  send+recv over a socketpair (IPC)   %8.1f ns per round trip (2 calls)\n", bench_median(rt, 7));
	return 0;
}
