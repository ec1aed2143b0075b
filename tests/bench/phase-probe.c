/*
 * phase-probe.c - how fast each CPU runs right now.  On the virtual machines
 * the benches run on, each vCPU switches between a fast speed and one 1.3-1.8x
 * slower, on its own, in stretches of a tenth of a second to tens of seconds
 * (presumably another guest on the host's sibling thread): a run's CPU time
 * then measures the host as much as the program.  tests/bench/quiet.sh runs
 * this before and after each measured run of the benches and keeps the runs
 * made while every CPU was fast.
 *   usage: phase-probe [MS]
 * One thread per CPU the process may run on, pinned to it, runs a fixed
 * dependent loop in chunks for MS ms of wall time (default 100); each chunk is
 * timed by the thread's own CPU clock, so time the CPU spent elsewhere does not
 * count.  Prints one line, "fast=F slow=S cpus=N": ns per iteration of the
 * tenth-percentile chunk of the fastest CPU and the ninetieth-percentile chunk
 * of the slowest; quiet.sh takes the CPUs for all fast over those MS ms when S
 * is within 1.15x of the median F of its probes so far.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define PROBE_ITERS 1000000  /* one chunk: about 0.4-0.8 ms */
#define PROBE_CHUNKS 4096
#define PROBE_MAX_CPUS 256

struct probe {
	pthread_t thread;
	int cpu;
	double stop_ns;     /* CLOCK_MONOTONIC */
	double chunk[PROBE_CHUNKS];   /* ns per iteration */
	size_t n;
};

static double probe_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *probe_run(void *arg)
{
	struct probe *p = arg;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	if ((err = pthread_setaffinity_np(pthread_self(), sizeof set, &set)) != 0) {
		fprintf(stderr, "phase-probe: cannot pin a thread to CPU %d: %s\n", p->cpu, strerror(err));
		exit(1);
	}
	while (probe_mono_ns() < p->stop_ns && p->n < PROBE_CHUNKS) {
		/* A chain of dependent adds through memory: the core's speed,
		 * not the memory system's. */
		volatile uint64_t s = 0;
		double t0 = bench_cpu_ns();

		for (uint64_t i = 0; i < PROBE_ITERS; i++)
			s += i * i;
		p->chunk[p->n++] = (bench_cpu_ns() - t0) / PROBE_ITERS;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct probe probes[PROBE_MAX_CPUS];
	double ms = 100, fast = 1e30, slow = 0, stop;
	cpu_set_t set;
	int n = 0, err;
	char *end;

	if (argc > 2 || (argc == 2 && ((ms = strtod(argv[1], &end)) <= 0 || *end != '\0' || ms > 60000))) {
		fprintf(stderr, "usage: phase-probe [MS] (MS: 1-60000 ms of probing, default 100)\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof set, &set) != 0) {
		fprintf(stderr, "phase-probe: sched_getaffinity: %s\n", strerror(errno));
		return 1;
	}
	stop = probe_mono_ns() + ms * 1e6;
	for (int cpu = 0; cpu < CPU_SETSIZE && n < PROBE_MAX_CPUS; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		probes[n] = (struct probe){ .cpu = cpu, .stop_ns = stop };
		if ((err = pthread_create(&probes[n].thread, NULL, probe_run, &probes[n])) != 0) {
			fprintf(stderr, "phase-probe: pthread_create: %s\n", strerror(err));
			return 1;
		}
		n++;
	}
	for (int i = 0; i < n; i++) {
		struct probe *p = &probes[i];

		pthread_join(p->thread, NULL);
		if (p->n == 0)
			continue;
		/* The tenth and ninetieth percentiles: a timer interrupt or a
		 * cold first chunk is not a phase. */
		qsort(p->chunk, p->n, sizeof p->chunk[0], bench_cmp_double);
		if (p->chunk[p->n / 10] < fast)
			fast = p->chunk[p->n / 10];
		if (p->chunk[p->n * 9 / 10] > slow)
			slow = p->chunk[p->n * 9 / 10];
	}
	printf("fast=%.4f slow=%.4f cpus=%d\n", fast, slow, n);
	return 0;
}
