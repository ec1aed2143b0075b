/*
 * json.c - the JSON writer (json.h).
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "protocol.h"
#include "json.h"

/* See json.h. */
void proto_buf_add(struct proto_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* See json.h. */
size_t proto_utf8_len(const unsigned char *s)
{
	size_t need;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	/* A NUL ends the string before a continuation byte is read past it. */
	for (size_t i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

/* A string literal: quotes, backslash and control characters escaped,
 * each byte of invalid UTF-8 replaced by U+FFFD. */
static void json_quote(struct proto_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char esc[8];

	proto_buf_add(b, "\"", 1);
	while (*p) {
		size_t n;

		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p++;
			proto_buf_add(b, esc, 2);
		} else if (*p < 0x20) {
			const char *sh = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" :
			    *p == '\r' ? "\\r" : *p == '\b' ? "\\b" : *p == '\f' ? "\\f" : NULL;

			if (sh != NULL) {
				proto_buf_add(b, sh, 2);
			} else {
				snprintf(esc, sizeof esc, "\\u%04x", *p);
				proto_buf_add(b, esc, 6);
			}
			p++;
		} else if ((n = proto_utf8_len(p)) == 0) {
			proto_buf_add(b, "\\ufffd", 6);
			p++;
		} else {
			proto_buf_add(b, (const char *)p, n);
			p += n;
		}
	}
	proto_buf_add(b, "\"", 1);
}

/* The comma before a value and its key, if any. */
static void json_sep(struct proto_json *j, const char *key)
{
	if (j->more[j->depth])
		proto_buf_add(j->b, ",", 1);
	j->more[j->depth] = true;
	if (key != NULL) {
		json_quote(j->b, key);
		proto_buf_add(j->b, ":", 1);
	}
}

static void json_open(struct proto_json *j, const char *key, const char *c)
{
	json_sep(j, key);
	proto_buf_add(j->b, c, 1);
	assert(j->depth + 1 < PROTO_JSON_DEPTH);
	j->more[++j->depth] = false;
}

static void json_close(struct proto_json *j, const char *c)
{
	assert(j->depth > 0);
	j->depth--;
	proto_buf_add(j->b, c, 1);
}

/* See json.h: the value written next belongs to key. */
void proto_json_key(struct proto_json *j, const char *key)
{
	json_sep(j, key);
	j->more[j->depth] = false;
}

void proto_json_obj(struct proto_json *j, const char *key) { json_open(j, key, "{"); }
void proto_json_arr(struct proto_json *j, const char *key) { json_open(j, key, "["); }
void proto_json_end_obj(struct proto_json *j) { json_close(j, "}"); }
void proto_json_end_arr(struct proto_json *j) { json_close(j, "]"); }

void proto_json_str(struct proto_json *j, const char *key, const char *val)
{
	json_sep(j, key);
	json_quote(j->b, val);
}

void proto_json_raw(struct proto_json *j, const char *key, const char *val)
{
	json_sep(j, key);
	proto_buf_add(j->b, val, strlen(val));
}

void proto_json_u64(struct proto_json *j, const char *key, uint64_t val)
{
	char s[32];

	snprintf(s, sizeof s, "%" PRIu64, val);
	proto_json_raw(j, key, s);
}

void proto_json_i64(struct proto_json *j, const char *key, int64_t val)
{
	char s[32];

	snprintf(s, sizeof s, "%" PRId64, val);
	proto_json_raw(j, key, s);
}

/* JSON has no NaN or infinity: null. */
void proto_json_f64(struct proto_json *j, const char *key, double val)
{
	char s[64];

	if (!isfinite(val)) {
		proto_json_raw(j, key, "null");
		return;
	}
	snprintf(s, sizeof s, "%.*g", j->digits ? (int)j->digits : 6, val);
	proto_json_raw(j, key, s);
}

void proto_json_bool(struct proto_json *j, const char *key, bool val)
{
	proto_json_raw(j, key, val ? "true" : "false");
}

void proto_json_null(struct proto_json *j, const char *key)
{
	proto_json_raw(j, key, "null");
}
