/*
 * power-write.c - what the power rows cost a program's write(), open() and
 * close() (the calls the shipped table's sysfs rows wrap in every module):
 * CPU ns per call of write(fd, "x", 1) to /dev/null, and of an
 * open("/dev/null") + close() pair, median of 5 runs, in this process.
 * tests/bench/run.sh runs it without the agent, with the agent and no
 * table, and with the agent and the shipped table.
 *   usage: power-write [CALLS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	double w[5], o[5];
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0 || n <= 0)
		return 1;
	for (int r = 0; r < 5; r++) {
		double t0 = bench_cpu_ns();

		for (long i = 0; i < n; i++)
			if (write(fd, "x", 1) != 1)
				return 1;
		w[r] = (bench_cpu_ns() - t0) / (double)n;
		t0 = bench_cpu_ns();
		for (long i = 0; i < n / 10; i++)
			close(open("/dev/null", O_RDONLY));
		o[r] = (bench_cpu_ns() - t0) / (double)(n / 10);
	}
	printf("write %.1f ns/call, open+close %.1f ns/pair\n", bench_median(w, 5), bench_median(o, 5));
	return 0;
}
