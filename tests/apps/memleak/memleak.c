/*
 * memleak - known allocations from known functions, for the memory
 * collector's tests (valgrind memcheck is their oracle).
 *
 *   memleak exit          allocate, free some, leak some, exit:
 *                           freed_blocks      10 x 100 B malloc'd, all freed
 *                           leak_direct        5 x 200 B malloc'd, pointers dropped
 *                           keep_global        3 x 300 B calloc'd, held by a global
 *                           leak_via_freed     4 x 400 B held only by a block then freed
 *                           leak_list          a lost list head (64 B) and 2 nodes it
 *                                              points to (valgrind: 1 direct, 2 indirect)
 *                           grow_realloc       one block realloc'd 16 -> 4096 B, kept
 *                           aligned_kept       posix_memalign 256 B + aligned_alloc 512 B, kept
 *                           map_kept           one anonymous 64 KiB mmap (not heap)
 *   memleak hold FILE      exit's allocations, then wait until FILE exists (a leak scan
 *                          meanwhile), then exit: the same blocks are lost as for exit
 *   memleak release FILE   keep_global's 3 blocks, then wait until FILE exists, free them
 *                          (blocks allocated before an attach, freed after it)
 *   memleak grow SECS      leak 4 KiB every 50 ms from leak_steady for SECS seconds,
 *                          while cycle_buffers allocates and frees as much
 *   memleak growshrink SECS  for SECS seconds, cycles of 2 s: grow_then_shrink's 20
 *                          blocks of 4 KiB taken in the first second, freed in the next
 *   memleak many N         N blocks of 1..4096 bytes (sizes from a fixed LCG), a third
 *                          freed (sampled mode's estimate against the exact figure)
 * Each mode ends with "done" on stdout (written with write(2): no stdio buffer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

void *keep[3];                            /* keep_global's blocks stay reachable */
void *keep_grow, *keep_aligned[2], *keep_map;
static volatile uintptr_t sink;

static void say(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

NOINLINE static void freed_blocks(void)
{
	void *p[10];

	for (int i = 0; i < 10; i++)
		p[i] = malloc(100);
	for (int i = 0; i < 10; i++)
		free(p[i]);
}

NOINLINE static void leak_direct(void)
{
	for (int i = 0; i < 5; i++) {
		char *p = malloc(200);

		memset(p, i, 200);
		sink ^= (uintptr_t)p[0];        /* the pointer itself is dropped */
	}
}

NOINLINE static void keep_global(void)
{
	for (int i = 0; i < 3; i++)
		keep[i] = calloc(3, 100);
}

/* Written over: a fresh block may hold stale pointers left by earlier
 * users of its memory, which any conservative scan follows (valgrind's
 * allocator hands out other memory, so its figures would differ). */
NOINLINE static void *leak_via_freed_one(void)
{
	void *p = malloc(400);

	memset(p, 0x5a, 400);
	return p;
}

NOINLINE static void leak_via_freed(void)
{
	void **holder = malloc(4 * sizeof *holder);

	for (int i = 0; i < 4; i++)
		holder[i] = leak_via_freed_one();
	free(holder);                         /* the only pointers go with it */
}

struct node {
	struct node *next;
	char pad[56];
};

NOINLINE static struct node *leak_list_node(void)
{
	struct node *n = malloc(sizeof *n);

	memset(n, 0, sizeof *n);
	return n;
}

NOINLINE static void leak_list(void)
{
	struct node *head = leak_list_node();

	head->next = leak_list_node();
	head->next->next = leak_list_node();
	/* the list is written to memory (the stores are not dead): then lost */
	__asm__ volatile("" : : "r"(head) : "memory");
	sink ^= (uintptr_t)head->pad[0];
}

/* Written over once grown: each realloc hands out memory whose new part
 * may hold stale pointers (a free chunk's links, a lost block's address),
 * which a conservative scan follows (seen: one of leak_direct's blocks
 * "reachable" through this one). */
NOINLINE static void grow_realloc(void)
{
	char *p = malloc(16);

	for (size_t n = 32; n <= 4096; n *= 2)
		p = realloc(p, n);
	memset(p, 0x5a, 4096);
	keep_grow = p;
}

/* Written over too, as leak_via_freed_one's blocks are: fresh aligned
 * blocks can hold stale pointers (glibc's own, or a freed block's) into the
 * blocks leak_direct lost, which would make those look reachable. */
NOINLINE static void aligned_kept(void)
{
	if (posix_memalign(&keep_aligned[0], 64, 256) != 0)
		keep_aligned[0] = NULL;
	else
		memset(keep_aligned[0], 0, 256);
	keep_aligned[1] = aligned_alloc(128, 512);
	if (keep_aligned[1] != NULL)
		memset(keep_aligned[1], 0, 512);
}

NOINLINE static void map_kept(void)
{
	keep_map = mmap(NULL, 64 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

NOINLINE static void leak_steady(void)
{
	char *p = malloc(4096);

	memset(p, 1, 4096);
	sink ^= (uintptr_t)p;
}

NOINLINE static void cycle_buffers(void)
{
	char *p = malloc(4096);

	memset(p, 2, 4096);
	sink ^= (uintptr_t)p;                 /* no malloc/free pair for the compiler to drop */
	free(p);
}

/* Grow then shrink: a site that is not a leak. */
NOINLINE static void *grow_then_shrink(void)
{
	return malloc(4096);
}

/* Cycles of 2 s: 20 blocks taken 50 ms apart, then freed 50 ms apart. */
NOINLINE static void run_growshrink(int secs)
{
	void *held[20];

	for (int c = 0; c < secs / 2; c++) {
		for (int i = 0; i < 20; i++) {
			held[i] = grow_then_shrink();
			memset(held[i], 3, 4096);
			sink ^= (uintptr_t)held[i];
			nap_ms(50);
		}
		for (int i = 0; i < 20; i++) {
			free(held[i]);
			nap_ms(50);
		}
	}
}

/* Clear the stack the allocating functions used: a leak scan of the
 * running program reads the live stack, where a dead frame's pointer could
 * otherwise stay in a slot a later call reserves but never writes
 * (valgrind's check, at exit, sees no stack left of them either). */
NOINLINE static void scrub_stack(void)
{
	volatile char pad[16384];

	memset((char *)pad, 0, sizeof pad);
}

/* A fixed LCG: the same sizes on every run. */
NOINLINE static void run_many(long n)
{
	uint32_t x = 12345;
	void **p = malloc((size_t)n * sizeof *p);

	for (long i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = malloc(1 + (x >> 8) % 4096);
	}
	for (long i = 0; i < n; i += 3)
		free(p[i]);
	keep_grow = p;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit";
	int secs = argc > 2 ? atoi(argv[2]) : 4;

	if (strcmp(mode, "exit") == 0 || strcmp(mode, "hold") == 0) {
		freed_blocks();
		leak_direct();
		keep_global();
		leak_via_freed();
		leak_list();
		grow_realloc();
		aligned_kept();
		map_kept();
		if (strcmp(mode, "hold") == 0) {
			scrub_stack();
			say("held\n");
			while (argc > 2 && access(argv[2], F_OK) != 0)
				nap_ms(20);
		}
	} else if (strcmp(mode, "release") == 0 && argc > 2) {
		keep_global();
		say("held\n");
		while (access(argv[2], F_OK) != 0)
			nap_ms(20);
		for (int i = 0; i < 3; i++)
			free(keep[i]);
	} else if (strcmp(mode, "grow") == 0) {
		for (int i = 0; i < secs * 20; i++) {
			leak_steady();
			cycle_buffers();
			nap_ms(50);
		}
	} else if (strcmp(mode, "growshrink") == 0) {
		run_growshrink(secs);
	} else if (strcmp(mode, "many") == 0) {
		run_many(argc > 2 ? atol(argv[2]) : 100000);
	} else {
		say("usage: memleak exit|hold FILE|release FILE|grow SECS|growshrink SECS|many N\n");
		return 2;
	}
	say("done\n");
	return 0;
}
