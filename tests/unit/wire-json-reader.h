/*
 * wire-json-reader.h - test-wire's JSON reader: JSON text (as the protocol's
 * writer writes it) back into msgpack, so a JSON round trip can end in the
 * same validating decoder as a msgpack one.
 */
#ifndef HS_TEST_WIRE_JSON_READER_H
#define HS_TEST_WIRE_JSON_READER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <msgpack.h>

struct jr {
	const char *p;
	msgpack_packer *pk;
};

static void jr_ws(struct jr *r)
{
	while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')
		r->p++;
}

/* A string literal into buf (UTF-8; \u escapes of the BMP). */
static size_t jr_string(struct jr *r, char *buf, size_t cap)
{
	size_t n = 0;

	assert_int_equal(*r->p++, '"');
	while (*r->p != '"') {
		unsigned c = (unsigned char)*r->p++;

		assert_true(c >= 0x20);
		if (c == '\\') {
			c = (unsigned char)*r->p++;
			if (c == 'u') {
				unsigned cp;

				assert_int_equal(sscanf(r->p, "%4x", &cp), 1);
				r->p += 4;
				assert_true(cp < 0xd800 || cp > 0xdfff);
				if (cp < 0x80) {
					buf[n++] = (char)cp;
				} else if (cp < 0x800) {
					buf[n++] = (char)(0xc0 | cp >> 6);
					buf[n++] = (char)(0x80 | (cp & 0x3f));
				} else {
					buf[n++] = (char)(0xe0 | cp >> 12);
					buf[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
					buf[n++] = (char)(0x80 | (cp & 0x3f));
				}
				continue;
			}
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' :
			    c == 'f' ? '\f' : c;
		}
		buf[n++] = (char)c;
		assert_true(n + 4 < cap);
	}
	r->p++;
	return n;
}

static void jr_value(struct jr *r, int depth)
{
	char buf[4096];
	size_t n;

	assert_true(depth < PROTO_MAX_DEPTH + 2);
	jr_ws(r);
	if (*r->p == '{' || *r->p == '[') {
		bool obj = *r->p++ == '{';
		char close = obj ? '}' : ']';
		int count = 0, level = 0;
		bool in_str = false;
		const char *q = r->p;

		/* Count the entries first: msgpack wants the size up front. */
		while (*q == ' ' || *q == '\n')
			q++;
		if (*q != close)
			count = 1;
		for (; *q != '\0' && !(level == 0 && !in_str && *q == close); q++) {
			if (in_str) {
				if (*q == '\\')
					q++;
				else if (*q == '"')
					in_str = false;
			} else if (*q == '"') {
				in_str = true;
			} else if (*q == '{' || *q == '[') {
				level++;
			} else if (*q == '}' || *q == ']') {
				level--;
			} else if (*q == ',' && level == 0) {
				count++;
			}
		}
		assert_int_equal(*q, close);
		if (obj)
			msgpack_pack_map(r->pk, count);
		else
			msgpack_pack_array(r->pk, count);
		jr_ws(r);
		while (*r->p != (obj ? '}' : ']')) {
			if (obj) {
				jr_ws(r);
				n = jr_string(r, buf, sizeof buf);
				msgpack_pack_str(r->pk, n);
				msgpack_pack_str_body(r->pk, buf, n);
				jr_ws(r);
				assert_int_equal(*r->p++, ':');
			}
			jr_value(r, depth + 1);
			jr_ws(r);
			if (*r->p == ',')
				r->p++;
			jr_ws(r);
		}
		r->p++;
	} else if (*r->p == '"') {
		n = jr_string(r, buf, sizeof buf);
		msgpack_pack_str(r->pk, n);
		msgpack_pack_str_body(r->pk, buf, n);
	} else if (strncmp(r->p, "true", 4) == 0) {
		msgpack_pack_true(r->pk);
		r->p += 4;
	} else if (strncmp(r->p, "false", 5) == 0) {
		msgpack_pack_false(r->pk);
		r->p += 5;
	} else if (strncmp(r->p, "null", 4) == 0) {
		msgpack_pack_nil(r->pk);
		r->p += 4;
	} else {
		size_t len = strspn(r->p, "-+0123456789.eE");
		char *end;

		assert_true(len > 0);
		if (strcspn(r->p, ".eE") < len) {
			msgpack_pack_double(r->pk, strtod(r->p, &end));
		} else if (*r->p == '-') {
			msgpack_pack_int64(r->pk, strtoll(r->p, &end, 10));
		} else {
			msgpack_pack_uint64(r->pk, strtoull(r->p, &end, 10));
		}
		assert_ptr_equal(end, r->p + len);
		r->p += len;
	}
}

#endif
