/*
 * host-costs.c - what this machine charges for the operations the agent's
 * start and its code writes are made of, printed at the top of `make bench`
 * so that figures from different hosts can be read side by side: the first
 * touch of an anonymous page (a page fault), an mprotect, and a clock read.
 * On the virtual machines the benches run on, a page fault has cost 10-15 us
 * of CPU (doc/performance.md, "Quiet runs: this machine's two speeds").
 *   usage: host-costs
 * Prints one line: "page_fault_us=F mprotect_us=M clock_ns=C", each the
 * median of 5 runs of the thread's CPU time per operation.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define HC_RUNS   5
#define HC_PAGES  1024
#define HC_PROTS  500
#define HC_CLOCKS 100000

int main(int argc, char **argv)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	double fault[HC_RUNS], prot[HC_RUNS], clk[HC_RUNS];

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: host-costs\n");
		return 2;
	}
	for (int r = 0; r < HC_RUNS; r++) {
		char *p = mmap(NULL, HC_PAGES * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		volatile long sink = 0;
		struct timespec ts;
		double t0;

		if (p == MAP_FAILED) {
			perror("host-costs: mmap");
			return 1;
		}
		t0 = bench_cpu_ns();
		for (size_t i = 0; i < HC_PAGES; i++)
			p[i * pg] = 1;
		fault[r] = (bench_cpu_ns() - t0) / HC_PAGES;
		t0 = bench_cpu_ns();
		for (int i = 0; i < HC_PROTS; i++) {
			if (mprotect(p, pg, PROT_READ) != 0 || mprotect(p, pg, PROT_READ | PROT_WRITE) != 0) {
				perror("host-costs: mprotect");
				return 1;
			}
		}
		prot[r] = (bench_cpu_ns() - t0) / (2 * HC_PROTS);
		t0 = bench_cpu_ns();
		for (int i = 0; i < HC_CLOCKS; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += ts.tv_nsec;
		}
		clk[r] = (bench_cpu_ns() - t0) / HC_CLOCKS;
		munmap(p, HC_PAGES * pg);
	}
	printf("page_fault_us=%.2f mprotect_us=%.2f clock_ns=%.1f\n", bench_median(fault, HC_RUNS) / 1e3,
	    bench_median(prot, HC_RUNS) / 1e3, bench_median(clk, HC_RUNS));
	return 0;
}
