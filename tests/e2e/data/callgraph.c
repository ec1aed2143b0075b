/*
 * callgraph.c - a known calling-context tree for the call-path tests, built
 * with -finstrument-functions (or plain -O2): main runs ROUNDS rounds of
 * round(), which calls parse() and render(); both reach the shared
 * checksum() (so it has two callers, and each path its own figures), and
 * render() recurses three deep through draw().  Each function does a little
 * work of its own so inclusive times are well above the hooks' cost.
 *   callgraph [ROUNDS] [OUT]   (default 2000; OUT: the result, to keep it)
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

/* About n units of work. */
NOINLINE unsigned long spin(unsigned n)
{
	unsigned long x = n;

	for (unsigned i = 0; i < n * 800; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

NOINLINE unsigned long checksum(unsigned n)
{
	return spin(n) ^ n;
}

NOINLINE unsigned long parse(unsigned i)
{
	unsigned long x = spin(40);

	for (unsigned k = 0; k < 3; k++)
		x += checksum(20 + (i + k) % 4);
	return x;
}

NOINLINE unsigned long draw(unsigned depth)
{
	unsigned long x = spin(30);

	if (depth > 0)
		x += draw(depth - 1);
	else
		x += checksum(10);
	return x;
}

NOINLINE unsigned long render(unsigned i)
{
	return draw(2) + (i & 1 ? checksum(50) : 0);
}

NOINLINE void round_(unsigned i)
{
	sink += parse(i) + render(i);
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2000;

	for (unsigned i = 0; i < rounds; i++)
		round_(i);
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");

		if (f != NULL) {
			fprintf(f, "%lu\n", sink);
			fclose(f);
		}
	}
	return 0;
}
