/*
 * json.h - the one JSON writer of hookscope: the daemon's reports and the
 * TUI's --json both write through it.
 *
 * It places the commas, nests with a bounded depth (an invariant: opening
 * deeper than PROTO_JSON_DEPTH asserts), escapes strings and never passes
 * invalid UTF-8 through (each bad byte becomes U+FFFD), so the output is
 * always valid JSON.  A key is NULL for a value inside an array.
 */
#ifndef HOOKSCOPE_PROTOCOL_JSON_H
#define HOOKSCOPE_PROTOCOL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_JSON_DEPTH 16

/* A growing NUL-terminated text buffer. */
struct proto_buf {
	char  *p;
	size_t len, cap;
};

void proto_buf_add(struct proto_buf *b, const char *s, size_t n);

struct proto_json {
	struct proto_buf *b;
	unsigned depth;
	bool     more[PROTO_JSON_DEPTH];  /* a value was written at this depth */
	unsigned digits;                  /* significant digits of floats, 0: 6 */
};

/* Write key; the next value (written with key NULL) is its value. */
void proto_json_key(struct proto_json *j, const char *key);
void proto_json_obj(struct proto_json *j, const char *key);
void proto_json_arr(struct proto_json *j, const char *key);
void proto_json_end_obj(struct proto_json *j);
void proto_json_end_arr(struct proto_json *j);
void proto_json_str(struct proto_json *j, const char *key, const char *val);   /* NULL: "" */
void proto_json_u64(struct proto_json *j, const char *key, uint64_t val);
void proto_json_i64(struct proto_json *j, const char *key, int64_t val);
void proto_json_f64(struct proto_json *j, const char *key, double val);        /* NaN, inf: null */
void proto_json_bool(struct proto_json *j, const char *key, bool val);
void proto_json_null(struct proto_json *j, const char *key);
/* A value already formatted as a JSON number or literal by the caller. */
void proto_json_raw(struct proto_json *j, const char *key, const char *val);
/* Length of the valid UTF-8 sequence at s (1 for ASCII), 0 when invalid. */
size_t proto_utf8_len(const unsigned char *s);

#endif
