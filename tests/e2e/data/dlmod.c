/*
 * dlmod.c - the library tests/e2e/data/dlmain.c dlopens after start (built
 * at test time with plain `cc -O2 -shared -fPIC`): the hook engine must
 * patch it when it is loaded, at the current level.
 * noipa keeps gcc from inlining, cloning or dropping the functions.
 */
#define NOIPA  __attribute__((noipa))

volatile long dl_sink;

NOIPA static void dl_static(long x) { dl_sink ^= x * 5; }

/* Called 3 times. */
NOIPA void dl_once(long x) { dl_sink += x; }

/* Called 1000 times; calls dl_static once each (level 4). */
NOIPA void dl_many(long x)
{
	dl_sink += x * 3;
	dl_static(x);
}

/* Called by the ticker, so a test sees the module live. */
NOIPA void dl_tick(long x) { dl_sink -= x; }
