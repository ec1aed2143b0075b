/*
 * raw.c - the fast path of the field-table decoder (field.h): a message
 * decoded straight from its bytes in one pass, with no msgpack object tree
 * and no separate validation walk.  An agent's funcs record is thousands
 * of small maps of integers, and building and walking their tree was most
 * of the daemon's work.
 *
 * It is not a second codec.  It takes a message only when the tree
 * decoder (proto_doc_parse + proto_struct_decode) would take it with the
 * same result: unsigned, boolean and double fields and arrays of structs
 * of them, each key once, everything else well-formed within the same limits.  Anything
 * else (another field type, another encoding, a duplicated key, a bad
 * byte) is refused without a message, and the caller runs the tree
 * decoder, which decodes it or names the error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "field.h"

#define RAW_MAX_FIELDS 64           /* keys seen are a bit mask */

struct raw {
	const uint8_t *p, *end;
	size_t objects;                 /* as proto_check counts them */
};

/* n more bytes are there. */
static bool raw_has(const struct raw *r, uint64_t n)
{
	return n <= (uint64_t)(r->end - r->p);
}

/* The next object's first byte, counted as proto_check counts. */
static bool raw_head(struct raw *r, uint8_t *b)
{
	if (!raw_has(r, 1) || ++r->objects > PROTO_CHECK_MAX_OBJECTS)
		return false;
	*b = *r->p++;
	return true;
}

/* An n-byte big-endian unsigned integer. */
static bool raw_be(struct raw *r, size_t n, uint64_t *v)
{
	if (!raw_has(r, n))
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = *v << 8 | *r->p++;
	return true;
}

/* An unsigned integer, in the encodings a packer chooses for one. */
static bool raw_uint(struct raw *r, uint64_t *v)
{
	uint8_t b;

	if (!raw_head(r, &b))
		return false;
	if (b <= 0x7f) {
		*v = b;
		return true;
	}
	return b >= 0xcc && b <= 0xcf && raw_be(r, (size_t)1 << (b - 0xcc), v);
}

/* A string's bytes (borrowed). */
static bool raw_str(struct raw *r, const char **s, uint32_t *n)
{
	uint64_t len;
	uint8_t b;

	if (!raw_head(r, &b))
		return false;
	if (b >= 0xa0 && b <= 0xbf)
		len = b & 0x1f;
	else if (b < 0xd9 || b > 0xdb || !raw_be(r, (size_t)1 << (b - 0xd9), &len))
		return false;
	if (!raw_has(r, len))
		return false;
	*s = (const char *)r->p;
	*n = (uint32_t)len;
	r->p += len;
	return true;
}

/* A container header: *n elements (a map's pairs), each at least a byte. */
static bool raw_container(struct raw *r, bool map, uint64_t *n)
{
	uint8_t b;

	if (!raw_head(r, &b))
		return false;
	if (map && b >= 0x80 && b <= 0x8f)
		*n = b & 0x0f;
	else if (!map && b >= 0x90 && b <= 0x9f)
		*n = b & 0x0f;
	else if (b == (map ? 0xde : 0xdc))
		return raw_be(r, 2, n) && raw_has(r, *n * (map ? 2 : 1));
	else if (b == (map ? 0xdf : 0xdd))
		return raw_be(r, 4, n) && raw_has(r, *n * (map ? 2 : 1));
	else
		return false;
	return raw_has(r, *n * (map ? 2 : 1));
}

/* Skip one well-formed object whose children would sit at depth + 1. */
static bool raw_skip(struct raw *r, int depth)
{
	uint64_t n = 0, kids = 0;
	uint8_t b;

	if (!raw_head(r, &b))
		return false;
	if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
		return true;
	if (b >= 0xa0 && b <= 0xbf)
		n = b & 0x1f;
	else if (b >= 0x80 && b <= 0x8f)
		kids = 2u * (b & 0x0f);
	else if (b >= 0x90 && b <= 0x9f)
		kids = b & 0x0f;
	else if (b == 0xc4 || b == 0xd9 || b == 0xc5 || b == 0xda || b == 0xc6 || b == 0xdb) {
		size_t w = b == 0xc4 || b == 0xd9 ? 1 : b == 0xc5 || b == 0xda ? 2 : 4;

		if (!raw_be(r, w, &n))
			return false;
	} else if (b == 0xca || b == 0xce || b == 0xd2)
		n = 4;
	else if (b == 0xcb || b == 0xcf || b == 0xd3)
		n = 8;
	else if (b == 0xcc || b == 0xd0)
		n = 1;
	else if (b == 0xcd || b == 0xd1)
		n = 2;
	else if (b == 0xdc || b == 0xdd || b == 0xde || b == 0xdf) {
		if (!raw_be(r, b == 0xdc || b == 0xde ? 2 : 4, &kids))
			return false;
		if (b >= 0xde)
			kids *= 2;
	} else
		return false;                     /* extensions, 0xc1 */
	if (kids == 0) {
		if (!raw_has(r, n))
			return false;
		r->p += n;
		return true;
	}
	if (!raw_has(r, kids) || depth + 1 > PROTO_MAX_DEPTH)
		return false;
	while (kids-- > 0)
		if (!raw_skip(r, depth + 1))
			return false;
	return true;
}

/* Can d be decoded here?  Unsigned, boolean and double fields and arrays
 * of such structs. */
static bool raw_able(const struct proto_struct *d)
{
	if (d->nfields > RAW_MAX_FIELDS)
		return false;
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];

		if (f->flags & PF_NOPACK)
			continue;
		if (f->type == PF_OBJS) {
			if ((f->flags & PF_INLINE) || !raw_able(f->sub))
				return false;
		} else if (f->type != PF_U64 && f->type != PF_U32 && f->type != PF_U8 &&
		    f->type != PF_BOOL && f->type != PF_F64) {
			return false;
		}
	}
	return true;
}

/* Is the key s[0..n) the string key?  key is read no further than its NUL. */
static inline bool raw_key_is(const char *key, const char *s, uint32_t n)
{
	for (uint32_t j = 0; j < n; j++)
		if (key[j] == '\0' || key[j] != s[j])
			return false;
	return key[n] == '\0';
}

/* The field of d named by the key s[0..n), looked up first at *hint. */
static const struct proto_field *raw_field(const struct proto_struct *d, const char *s,
    uint32_t n, size_t *hint)
{
	for (size_t k = 0; k < d->nfields; k++) {
		size_t i = (*hint + k) % d->nfields;
		const struct proto_field *f = &d->fields[i];

		if (!(f->flags & PF_NOPACK) && raw_key_is(f->key, s, n)) {
			*hint = i + 1;
			return f;
		}
	}
	return NULL;
}

static bool raw_struct(struct raw *r, const struct proto_struct *d, void *obj, int depth,
    const char *type);

/* An array of maps of f->sub into a fresh vector (as field.c's). */
static bool raw_objs(struct raw *r, const struct proto_field *f, void *obj, int depth)
{
	size_t *cnt = (size_t *)((char *)obj + f->cnt);
	uint64_t n;
	char *v;

	if (!raw_container(r, false, &n) || n > f->max || (n > 0 && depth + 1 > PROTO_MAX_DEPTH))
		return false;
	v = *(char **)((char *)obj + f->off) = xcalloc(n ? n : 1, f->sub->size);
	for (uint64_t i = 0; i < n; i++) {
		*cnt = (size_t)i + 1;
		if (!raw_struct(r, f->sub, v + i * f->sub->size, depth + 1, NULL))
			return false;
	}
	return true;
}

/* One value of field f. */
static bool raw_value(struct raw *r, const struct proto_field *f, void *obj, int depth)
{
	char *m = (char *)obj + f->off;
	uint64_t u;

	if (f->type == PF_OBJS)
		return raw_objs(r, f, obj, depth);
	if (f->type == PF_BOOL || f->type == PF_F64) {
		uint8_t b;

		if (!raw_head(r, &b))
			return false;
		if (f->type == PF_BOOL) {
			*(bool *)m = b == 0xc3;
			return b == 0xc2 || b == 0xc3;
		}
		if (b == 0xcb && raw_be(r, 8, &u)) {    /* a double; floats, ints: the tree's */
			double d;

			memcpy(&d, &u, sizeof d);
			memcpy(m, &d, sizeof d);
			return isfinite(d);
		}
		return false;
	}
	if (!raw_uint(r, &u))
		return false;
	switch (f->type) {
	case PF_U64:
		memcpy(m, &u, sizeof u);
		return true;
	case PF_U32: {
		uint32_t w = (uint32_t)u;

		memcpy(m, &w, sizeof w);
		return u <= UINT32_MAX;
	}
	case PF_U8:
		*(uint8_t *)m = (uint8_t)u;
		return u <= UINT8_MAX;
	default:
		return false;
	}
}

/*
 * A map of d into obj, its children at depth + 1.  With type, it is a
 * message: "v" must be PROTO_VERSION and "t" type, both before d's keys.
 */
static bool raw_struct(struct raw *r, const struct proto_struct *d, void *obj, int depth,
    const char *type)
{
	uint64_t seen = 0, n;
	size_t hint = 0;

	proto_struct_init(d, obj);
	if (!raw_container(r, true, &n) || (n > 0 && depth + 1 > PROTO_MAX_DEPTH))
		return false;
	if (type != NULL) {
		const char *s;
		uint32_t len;
		uint64_t v;

		if (n < 2 || !raw_str(r, &s, &len) || len != 1 || *s != 'v' ||
		    !raw_uint(r, &v) || v != PROTO_VERSION ||
		    !raw_str(r, &s, &len) || len != 1 || *s != 't' ||
		    !raw_str(r, &s, &len) || strlen(type) != len || memcmp(s, type, len) != 0)
			return false;
		n -= 2;
	}
	for (uint64_t i = 0; i < n; i++) {
		const struct proto_field *f;
		const char *s;
		uint32_t len;

		if (!raw_str(r, &s, &len))
			return false;
		/* "v" and "t" again, or any key no field has: skipped, as the
		 * tree decoder never looks at them -- but a second "v" or "t"
		 * would be read there, so those are left to it. */
		if (type != NULL && len == 1 && (*s == 'v' || *s == 't'))
			return false;
		if ((f = raw_field(d, s, len, &hint)) == NULL) {
			if (!raw_skip(r, depth + 1))
				return false;
			continue;
		}
		if (seen & (1ull << (f - d->fields)))
			return false;             /* a duplicate: the first one counts */
		seen |= 1ull << (f - d->fields);
		if (!raw_value(r, f, obj, depth + 1))
			return false;
	}
	for (size_t k = 0; k < d->nfields; k++)
		if ((d->fields[k].flags & (PF_REQUIRED | PF_NOPACK)) == PF_REQUIRED &&
		    !(seen & (1ull << k)))
			return false;
	return d->check == NULL || d->check(obj, NULL, 0) == 0;
}

/* See field.h. */
int proto_raw_decode(const void *buf, size_t len, size_t cap, const char *type,
    const struct proto_struct *d, void *obj)
{
	struct raw r = { .p = buf, .end = (const uint8_t *)buf + len };

	if (len == 0 || len > cap || !raw_able(d)) {
		proto_struct_init(d, obj);
		return -1;
	}
	if (raw_struct(&r, d, obj, 0, type) && r.p == r.end)
		return 0;
	proto_struct_free(d, obj);
	return -1;
}
