/*
 * hotpaths.c - a CPU-bound program with known hot call paths for the
 * folded-stack test: each round burns a fixed amount of work in each of six
 * paths, the heaviest first, about 1.6 times apart:
 *   main;serve;parse;tokenize;crunch  64    main;serve;parse;crunch  15
 *   main;serve;render;layout;crunch   40    main;flush;crunch         9
 *   main;serve;render;paint           25    main;serve;checksum       3
 * Every function but the leaves only calls; nothing calls a library in
 * the loop.  A compiler barrier after each call keeps it a real call.
 *   hotpaths [ROUNDS]   (default 2000)
 */
#include <stdint.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")
#define UNIT 4000                 /* loop iterations per unit of work */

static volatile uint64_t sink;

static inline uint64_t burn(unsigned units, uint64_t x)
{
	for (unsigned i = 0; i < units * UNIT; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

NOINLINE uint64_t crunch(unsigned units)
{
	return burn(units, units);
}

NOINLINE uint64_t paint(unsigned units)
{
	return burn(units, 7);
}

NOINLINE uint64_t checksum(unsigned units)
{
	return burn(units, 11);
}

NOINLINE uint64_t tokenize(void)
{
	uint64_t x = crunch(64);

	KEEP();
	return x;
}

NOINLINE uint64_t layout(void)
{
	uint64_t x = crunch(40);

	KEEP();
	return x;
}

NOINLINE uint64_t parse(void)
{
	uint64_t x = tokenize() + crunch(15);

	KEEP();
	return x;
}

NOINLINE uint64_t render(void)
{
	uint64_t x = layout() + paint(25);

	KEEP();
	return x;
}

NOINLINE uint64_t serve(void)
{
	uint64_t x = parse() + render() + checksum(3);

	KEEP();
	return x;
}

NOINLINE uint64_t flush(void)
{
	uint64_t x = crunch(9);

	KEEP();
	return x;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2000;

	for (unsigned i = 0; i < rounds; i++) {
		sink += serve();
		sink += flush();
		KEEP();
	}
	return 0;
}
