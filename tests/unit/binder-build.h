/*
 * binder-build.h - the unit tests' Binder buffers, built byte by byte from
 * the kernel UAPI layout (linux/android/binder.h), and a fake target memory
 * (an arena at ARENA_BASE) that the decoder reads through its callback.
 */
#ifndef HS_TEST_BINDER_BUILD_H
#define HS_TEST_BINDER_BUILD_H

#include <stdint.h>
#include <string.h>

#define ARENA_BASE 0x7f0000100000ull

/* A fake target memory: bytes at ARENA_BASE .. ARENA_BASE + len. */
struct arena { uint8_t b[8192]; size_t len; };
/* A byte buffer built little-endian by hand. */
struct bytes { uint8_t b[1024]; size_t len; };

static inline void put8(struct bytes *o, uint8_t v) { assert_true(o->len < sizeof o->b); o->b[o->len++] = v; }
static inline void put32(struct bytes *o, uint32_t v) { for (int i = 0; i < 4; i++) put8(o, (uint8_t)(v >> (8 * i))); }
static inline void put64(struct bytes *o, uint64_t v) { for (int i = 0; i < 8; i++) put8(o, (uint8_t)(v >> (8 * i))); }

/* Append raw bytes to the arena; returns their fake address. */
static inline uint64_t arena_add(struct arena *a, const void *p, size_t n)
{
	uint64_t addr = ARENA_BASE + a->len;

	assert_true(a->len + n <= sizeof a->b);
	memcpy(a->b + a->len, p, n);
	a->len += (n + 7) & ~(size_t)7;
	return addr;
}

/* The decoder's read callback over an arena: bounded, never trusts addr. */
static inline int arena_read(void *ctx, uint64_t addr, void *dst, size_t size)
{
	struct arena *a = ctx;

	if (addr < ARENA_BASE || addr - ARENA_BASE > a->len || size > a->len - (addr - ARENA_BASE))
		return -1;
	memcpy(dst, a->b + (addr - ARENA_BASE), size);
	return 0;
}

/* Append a String16 (length, UTF-16LE units, NUL unit, pad to 4). */
static inline void put_string16(struct bytes *o, const char *s)
{
	size_t n = strlen(s);

	put32(o, (uint32_t)n);
	for (size_t i = 0; i < n; i++) { put8(o, (uint8_t)s[i]); put8(o, 0); }
	put8(o, 0); put8(o, 0);
	while (o->len % 4) put8(o, 0);
}

#endif
