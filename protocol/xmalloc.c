/* xmalloc.c - allocation that never returns NULL, and the clocks all parts share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "protocol.h"

/* Out of memory is not recoverable in any hookscope program: say so and abort. */
static void xmalloc_fail(size_t n)
{
	fprintf(stderr, "hookscope: out of memory allocating %zu bytes\n", n);
	abort();
}

/* malloc that aborts on failure; a zero size still gives a unique pointer. */
void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		xmalloc_fail(n);
	return p;
}

/* calloc that aborts on failure or on an overflowing product. */
void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		xmalloc_fail(n * size);
	return p;
}

/* realloc that aborts on failure. */
void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		xmalloc_fail(n);
	return q;
}

/* strdup that aborts on failure. */
char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* strndup that aborts on failure. */
char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* Monotonic time in ns: for rates and ages, never for display. */
uint64_t proto_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wall-clock time in ms since the epoch: for timestamps users read. */
uint64_t proto_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
