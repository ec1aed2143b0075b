/*
 * phases.c - a CPU-bound target that changes phase, for the overhead
 * budget's tests (tests/e2e/budget-phase.sh, budget-restart.sh).  PHASES
 * times: a quiet spell (one call of quiet(), QUIET ms of the process's CPU
 * in its own loop) and then a hot one (HOT ms of CPU in group G's ten
 * tiny functions: millions of calls a second, far over any budget while
 * they are timed).  Each hot spell has a group of its own, new to the
 * budget when the spell starts, and says so on stderr: "phases: group G
 * hot at CPU_MS" (the process's CPU time in ms, the clock the agent's
 * debug log uses).  With WARM_MS, each hot spell starts warming up: for
 * its first WARM_MS of CPU the group calls its last tiny function 200
 * times per call instead of 100 (a cache filling), and says so when that
 * ends: "phases: group G warm until CPU_MS, N calls" (N: of group_G in it).
 *   phases [PHASES [QUIET_MS [HOT_MS [WARM_MS]]]]   (default 4 600 200 0; PHASES <= 4)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GROUPS 4

static volatile unsigned sink;
static volatile int last_calls = 1;      /* calls of tiny_G_9 per round */

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A tiny function: a few dependent multiplies, a few ns. */
#define TINY(g, j) __attribute__((noinline)) unsigned tiny_##g##_##j(unsigned x) \
	{ x = x * (2 * 1##j + 3 + g) + 1; x ^= x >> 7; return x * 40503 + 1##j; }
#define GROUP(g) TINY(g, 0) TINY(g, 1) TINY(g, 2) TINY(g, 3) TINY(g, 4) \
	TINY(g, 5) TINY(g, 6) TINY(g, 7) TINY(g, 8) TINY(g, 9)                   \
	__attribute__((noinline)) static unsigned group_##g(unsigned a)          \
	{                                                                        \
		for (int r = 0; r < 100; r++) {                                  \
			a = tiny_##g##_0(a); a = tiny_##g##_1(a); a = tiny_##g##_2(a); \
			a = tiny_##g##_3(a); a = tiny_##g##_4(a); a = tiny_##g##_5(a); \
			a = tiny_##g##_6(a); a = tiny_##g##_7(a); a = tiny_##g##_8(a); \
			for (int k = 0; k < last_calls; k++)                     \
				a = tiny_##g##_9(a);                             \
		}                                                                \
		return a;                                                        \
	}
GROUP(0) GROUP(1) GROUP(2) GROUP(3)
static unsigned (*const groups[GROUPS])(unsigned) = { group_0, group_1, group_2, group_3 };

/* The quiet spell: no call but this one. */
__attribute__((noinline)) void quiet(double ms)
{
	double end = cpu_ms() + ms;
	unsigned s = sink;

	while (cpu_ms() < end)
		for (int k = 0; k < 200000; k++)
			s = s * 1103515245u + 12345u;
	sink = s;
}

int main(int argc, char **argv)
{
	int phases = argc > 1 ? atoi(argv[1]) : 4;
	double q = argc > 2 ? atof(argv[2]) : 600, h = argc > 3 ? atof(argv[3]) : 200;
	double w = argc > 4 ? atof(argv[4]) : 0;

	if (phases < 1 || phases > GROUPS || q <= 0 || h <= 0 || w < 0 || w >= h) {
		fprintf(stderr, "usage: phases [PHASES 1-%d [QUIET_MS [HOT_MS [WARM_MS < HOT_MS]]]]\n",
		    GROUPS);
		return 2;
	}
	for (int g = 0; g < phases; g++) {
		unsigned a = sink;
		unsigned long warm_calls = 0;
		double now, end, t;

		quiet(q);
		now = cpu_ms();
		fprintf(stderr, "phases: group %d hot at %.1f\n", g, now);
		last_calls = w > 0 ? 2 : 1;
		for (end = now + h; (t = cpu_ms()) < end;) {
			if (last_calls > 1 && t >= now + w) {
				last_calls = 1;
				fprintf(stderr, "phases: group %d warm until %.1f, %lu calls\n", g, t,
				    warm_calls);
			}
			a = groups[g](a);
			warm_calls += last_calls > 1;
		}
		sink = a;
	}
	printf("phases: %d phases, %u\n", phases, sink);
	return 0;
}
