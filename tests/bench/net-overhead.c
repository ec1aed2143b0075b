/*
 * net-overhead.c - what the network collector costs per call (make bench):
 * the median over 7 runs of CPU ns per call of
 *   write(2) of 1 byte to /dev/null (not a socket: the wrapper's one load of
 *     the fd cache, the same as the IPC row's; the network collector adds
 *     nothing there),
 *   getsockopt(SO_TYPE) on a TCP socket (the getsockopt wrapper passes any
 *     ask but SO_ERROR straight through), and
 *   a 64-byte send+recv round trip over a loopback TCP connection to
 *     ourselves (a network fd: two clock reads and the endpoint's counters
 *     per call).
 * Run it without and with the agent preloaded (tests/bench/run.sh does).
 *   HS_BENCH_NET_CALLS (default 200000).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"

/* A connected pair of loopback TCP sockets in c[0] (client) and c[1]. */
static int tcp_pair(int c[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0)
		return -1;
	c[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (c[0] < 0 || connect(c[0], (struct sockaddr *)&a, sizeof a) < 0 ||
	    (c[1] = accept(l, NULL, NULL)) < 0)
		return -1;
	setsockopt(c[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(c[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	close(l);
	return 0;
}

int main(void)
{
	long n = getenv("HS_BENCH_NET_CALLS") ? atol(getenv("HS_BENCH_NET_CALLS")) : 200000;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), c[2], type;
	double w[7], g[7], rt[7];
	char buf[64] = { 0 };
	socklen_t tl;

	if (n <= 0 || null < 0 || tcp_pair(c) < 0) {
		fprintf(stderr, "net-overhead: cannot set up\n");
		return 1;
	}
	for (int r = 0; r < 7; r++) {
		double t0 = bench_cpu_ns();

		for (long i = 0; i < n; i++)
			if (write(null, buf, 1) != 1)
				return 1;
		w[r] = (bench_cpu_ns() - t0) / (double)n;
		t0 = bench_cpu_ns();
		for (long i = 0; i < n; i++) {
			tl = sizeof type;
			if (getsockopt(c[0], SOL_SOCKET, SO_TYPE, &type, &tl) != 0)
				return 1;
		}
		g[r] = (bench_cpu_ns() - t0) / (double)n;
		t0 = bench_cpu_ns();
		for (long i = 0; i < n / 4; i++)
			if (send(c[0], buf, sizeof buf, 0) != (ssize_t)sizeof buf ||
			    recv(c[1], buf, sizeof buf, MSG_WAITALL) != (ssize_t)sizeof buf)
				return 1;
		rt[r] = (bench_cpu_ns() - t0) / (double)(n / 4);
	}
	printf("  write to /dev/null (not a socket)      %8.1f ns per call\n", bench_median(w, 7));
	printf("  getsockopt(SO_TYPE) on a TCP socket     %8.1f ns per call\n", bench_median(g, 7));
	printf("  send+recv over loopback TCP (network)   %8.1f ns per round trip (2 calls)\n", bench_median(rt, 7));
	return 0;
}
