/*
 * check.c - validate raw msgpack bytes before msgpack-c sees them.
 *
 * msgpack-c trusts container counts (a 5-byte message can ask for a huge
 * allocation) and does not report trailing bytes, so every message that
 * crosses a process boundary is walked here first: one object, nesting and
 * object count bounded, every count and length no larger than the bytes left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

struct check_state {
	const uint8_t *p;
	size_t         left;
	size_t         objects;
	char          *err;
	size_t         errlen;
};

/* Fill the error string and fail. */
static int check_fail(struct check_state *s, const char *what)
{
	snprintf(s->err, s->errlen, "malformed msgpack: %s", what);
	return -1;
}

/* Read an n-byte big-endian unsigned integer from the input. */
static int check_take_uint(struct check_state *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (s->left < n)
		return check_fail(s, "truncated length field");
	for (size_t i = 0; i < n; i++)
		v = (v << 8) | s->p[i];
	s->p += n;
	s->left -= n;
	*out = v;
	return 0;
}

/* Skip n payload bytes that must all be present. */
static int check_skip(struct check_state *s, uint64_t n)
{
	if (n > s->left)
		return check_fail(s, "length larger than the bytes left");
	s->p += n;
	s->left -= n;
	return 0;
}

/* Each element takes at least one byte, so a count above the bytes left lies. */
static int check_count(struct check_state *s, uint64_t n, uint64_t *pending)
{
	if (n > s->left)
		return check_fail(s, "container count larger than the bytes left");
	*pending += n;
	return 0;
}

/*
 * Consume one object header.  Scalars and strings are consumed whole;
 * containers add their element count to *children for the caller's stack.
 */
static int check_one(struct check_state *s, uint64_t *children)
{
	uint64_t n;
	uint8_t b;

	if (s->left == 0)
		return check_fail(s, "truncated message");
	if (++s->objects > PROTO_CHECK_MAX_OBJECTS)
		return check_fail(s, "too many objects");
	b = *s->p++;
	s->left--;
	*children = 0;

	if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
		return 0;
	if (b >= 0x80 && b <= 0x8f)
		return check_count(s, 2u * (b & 0x0f), children);
	if (b >= 0x90 && b <= 0x9f)
		return check_count(s, b & 0x0f, children);
	if (b >= 0xa0 && b <= 0xbf)
		return check_skip(s, b & 0x1f);

	switch (b) {
	case 0xc4: case 0xd9:                       /* bin8, str8 */
		return check_take_uint(s, 1, &n) ?: check_skip(s, n);
	case 0xc5: case 0xda:                       /* bin16, str16 */
		return check_take_uint(s, 2, &n) ?: check_skip(s, n);
	case 0xc6: case 0xdb:                       /* bin32, str32 */
		return check_take_uint(s, 4, &n) ?: check_skip(s, n);
	case 0xca: return check_skip(s, 4);         /* float32 */
	case 0xcb: return check_skip(s, 8);         /* float64 */
	case 0xcc: case 0xd0: return check_skip(s, 1);
	case 0xcd: case 0xd1: return check_skip(s, 2);
	case 0xce: case 0xd2: return check_skip(s, 4);
	case 0xcf: case 0xd3: return check_skip(s, 8);
	case 0xdc:                                  /* array16 */
		return check_take_uint(s, 2, &n) ?: check_count(s, n, children);
	case 0xdd:                                  /* array32 */
		return check_take_uint(s, 4, &n) ?: check_count(s, n, children);
	case 0xde:                                  /* map16 */
		return check_take_uint(s, 2, &n) ?: check_count(s, 2 * n, children);
	case 0xdf:                                  /* map32 */
		return check_take_uint(s, 4, &n) ?: check_count(s, 2 * n, children);
	case 0xc7: case 0xc8: case 0xc9:
	case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
		return check_fail(s, "extension types are not part of the protocol");
	default:
		return check_fail(s, "reserved type byte 0xc1");
	}
}

/* See protocol.h.  Iterative, with an explicit stack of pending counts. */
int proto_check(const void *buf, size_t len, size_t cap, char *err, size_t errlen)
{
	struct check_state s = { .p = buf, .left = len, .err = err, .errlen = errlen };
	uint64_t pending[PROTO_MAX_DEPTH + 1];
	int depth = 0;

	if (len == 0)
		return check_fail(&s, "empty message");
	if (len > cap) {
		snprintf(err, errlen, "message of %zu bytes is over the %zu-byte limit", len, cap);
		return -1;
	}
	pending[0] = 1;
	while (depth >= 0) {
		uint64_t children;

		if (pending[depth] == 0) {
			depth--;
			continue;
		}
		pending[depth]--;
		if (check_one(&s, &children) < 0)
			return -1;
		if (children > 0) {
			if (depth + 1 > PROTO_MAX_DEPTH)
				return check_fail(&s, "nested deeper than the limit");
			pending[++depth] = children;
		}
	}
	if (s.left != 0) {
		snprintf(err, errlen, "malformed msgpack: %zu trailing bytes after the message", s.left);
		return -1;
	}
	return 0;
}
