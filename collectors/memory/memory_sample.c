/*
 * memory_sample.c - sampling by bytes (heapprofd's scheme): each thread
 * draws the distance to its next sample point from an exponential
 * distribution of mean I bytes (a Poisson process over the bytes it
 * allocates); an allocation that contains a sample point is kept.  One of
 * s bytes contains at least one with probability p = 1 - exp(-s/I), so it
 * weighs s/p bytes and 1/p blocks: unbiased estimates of both.  The
 * thread's state is two words of TLS; no libm (the agent does not link it).
 */
#include <stdint.h>
#include <time.h>

#include "memory_int.h"

__thread struct mem_sampler mem_smp __attribute__((tls_model("initial-exec")));

/* A uniform draw in (0, 1]. */
static double mem_uniform(struct mem_sampler *s)
{
	if (s->rng == 0) {           /* seeded once per thread: the clock (vDSO, no allocation) */
		struct timespec ts;
		uint64_t t;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;

		s->rng = (t ^ (uintptr_t)s * 0x9e3779b97f4a7c15ull) | 1;
	}
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return ((s->rng * 0x2545f4914f6cdd1dull >> 11) + 1) * 0x1.0p-53;
}

/* ln(x) for x in (0, 1]: x = m * 2^e, m in [1, 2); ln m by the atanh series. */
static double mem_ln(double x)
{
	union { double d; uint64_t u; } v = { .d = x };
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	double m, t, t2, sum = 0, term;

	v.u = (v.u & ~(0x7ffull << 52)) | (1023ull << 52);
	m = v.d;
	t = (m - 1) / (m + 1);
	t2 = t * t;
	term = t;
	for (int k = 1; k < 40; k += 2) {
		sum += term / k;
		term *= t2;
	}
	return 2 * sum + e * 0.69314718055994530942;
}

/* exp(-x) for x >= 0: halve until small, Taylor, square back. */
static double mem_exp_neg(double x)
{
	int h = 0;
	double y;

	if (x > 700)
		return 0;
	while (x > 1.0 / 1024) {
		x /= 2;
		h++;
	}
	y = 1 - x + x * x / 2 - x * x * x / 6 + x * x * x * x / 24;
	while (h-- > 0)
		y *= y;
	return y;
}

/* See memory_int.h. */
bool mem_sample(size_t size, uint64_t *wbytes, uint64_t *wmblocks)
{
	struct mem_sampler *s = &mem_smp;
	double I = (double)__atomic_load_n(&mem.sample_bytes, __ATOMIC_RELAXED), p;

	if (s->left == 0 && s->rng == 0)
		s->left = (int64_t)(-I * mem_ln(mem_uniform(s))) + 1;
	s->left -= (int64_t)size;
	if (s->left > 0)
		return false;
	while (s->left <= 0)
		s->left += (int64_t)(-I * mem_ln(mem_uniform(s))) + 1;
	p = 1 - mem_exp_neg((double)size / I);
	if (!(p > 0))
		p = 1e-12;
	*wbytes = (uint64_t)((double)size / p + 0.5);
	*wmblocks = (uint64_t)(1000 / p + 0.5);
	if (*wbytes > UINT32_MAX || *wmblocks > UINT32_MAX) {
		*wbytes = *wbytes > UINT32_MAX ? size : *wbytes;  /* huge: p is 1 */
		*wmblocks = *wmblocks > UINT32_MAX ? UINT32_MAX : *wmblocks;
	}
	return true;
}

/* See memory_int.h. */
uint64_t mem_sample_adapt(uint64_t cur, uint64_t base, double cost_ppm, double share_ppm)
{
	uint64_t next = cur;

	if (cost_ppm > share_ppm) {
		while (next < MEM_SAMPLE_MAX && cost_ppm * (double)cur / (double)next > share_ppm)
			next *= 2;
		return next < MEM_SAMPLE_MAX ? next : (cur > MEM_SAMPLE_MAX ? cur : MEM_SAMPLE_MAX);
	}
	if (cost_ppm < share_ppm / 4 && cur > base)
		next = cur / 2 > base ? cur / 2 : base;
	return next;
}
