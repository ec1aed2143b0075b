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
#include <time.h>
#include <unistd.h>

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	double w[5], o[5];
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0 || n <= 0)
		return 1;
	for (int r = 0; r < 5; r++) {
		double t0 = cpu_ns();

		for (long i = 0; i < n; i++)
			if (write(fd, "x", 1) != 1)
				return 1;
		w[r] = (cpu_ns() - t0) / (double)n;
		t0 = cpu_ns();
		for (long i = 0; i < n / 10; i++)
			close(open("/dev/null", O_RDONLY));
		o[r] = (cpu_ns() - t0) / (double)(n / 10);
	}
	qsort(w, 5, sizeof *w, cmp);
	qsort(o, 5, sizeof *o, cmp);
	printf("write %.1f ns/call, open+close %.1f ns/pair\n", w[2], o[2]);
	return 0;
}
