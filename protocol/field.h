/*
 * field.h - a wire struct described once, as a table of its fields, and the
 * codecs derived from that table: msgpack pack (the map size counted from
 * the table), the validating decode, deep copy, free and JSON.
 *
 * A description lists every key of the map with the C member it lives in
 * (offsetof).  Decoding runs on a message proto_doc_parse() already checked
 * (check.c: every count and length against the bytes left), and each array
 * is refused past its field's max before anything is allocated.
 */
#ifndef HOOKSCOPE_PROTOCOL_FIELD_H
#define HOOKSCOPE_PROTOCOL_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>

#include "json.h"

enum proto_ftype {
	PF_U64,             /* uint64_t */
	PF_U32,             /* uint32_t, refused above UINT32_MAX */
	PF_U8,              /* uint8_t, refused above 255 */
	PF_I64,             /* int64_t */
	PF_I32,             /* int32_t, refused outside its range */
	PF_PID,             /* int32_t process or thread id: 0 .. INT32_MAX */
	PF_F64,             /* double; .dflt when absent */
	PF_BOOL,            /* bool */
	PF_STR,             /* char *, heap; NULL packs as "", absent decodes as "" */
	PF_STRS,            /* char ** with a size_t count at .cnt, at most .max */
	PF_U32S,            /* uint32_t * with a size_t count at .cnt, at most .max */
	PF_OBJ,             /* a struct .sub inside this one */
	PF_OBJS,            /* a heap array of struct .sub, size_t count at .cnt, at most .max */
	PF_CONST,           /* not stored: packs and writes .dflt as uint, never decoded */
	PF_CUSTOM,          /* a key of its own shape, coded by .codec */
};

#define PF_REQUIRED 0x1     /* decode refuses a map without the key */
#define PF_NOPACK   0x2     /* JSON only */
#define PF_NOJSON   0x4     /* msgpack only (agent -> daemon figures) */
#define PF_INLINE   0x8     /* PF_OBJS: the member is the array itself, not a pointer */
#define PF_IFSET    0x10    /* bool, number and struct fields: packed only when true, non-zero or
                             * not all zero bytes (older
                             * peers never see it, and the common case costs no bytes); absent
                             * decodes as 0 */

struct proto_struct;

/* The codec of a PF_CUSTOM field; each gets the whole struct. */
struct proto_fcodec {
	bool (*present)(const void *obj);             /* packed at all? NULL: always */
	void (*pack)(msgpack_packer *pk, const void *obj);   /* the value only */
	int  (*decode)(const msgpack_object *map, void *obj, char *err, size_t errlen);
	void (*copy)(void *dst, const void *src);     /* after dst = src */
	void (*release)(void *obj);
	void (*json)(struct proto_json *j, const char *key, const void *obj);   /* NULL: PF_NOJSON */
};

struct proto_field {
	const char *key;
	uint8_t     type;     /* enum proto_ftype */
	uint8_t     flags;
	size_t      off;      /* the member */
	size_t      cnt;      /* PF_STRS, PF_U32S, PF_OBJS: the size_t count member */
	uint32_t    max;      /* arrays: most entries accepted */
	double      dflt;     /* PF_F64: value when absent; PF_CONST: the value */
	const struct proto_struct *sub;   /* PF_OBJ, PF_OBJS */
	const struct proto_fcodec *codec; /* PF_CUSTOM */
};

struct proto_struct {
	const char *name;     /* for error messages: "a power resource", "field \"power\"" */
	size_t      size;     /* sizeof the C struct */
	const struct proto_field *fields;
	size_t      nfields;
	/* Checks across fields and defaults after a decode (NULL: none): 0,
	 * or -1 with err. */
	int       (*check)(void *obj, char *err, size_t errlen);
};

/* Table rows; S is the struct type, M its member. */
#define PF_ROW(k, t, S, M, fl) \
	{ .key = (k), .type = (t), .flags = (fl), .off = offsetof(S, M) }
#define PF_F64_ROW(k, S, M, d) \
	{ .key = (k), .type = PF_F64, .off = offsetof(S, M), .dflt = (d) }
#define PF_ARR_ROW(k, t, S, M, N, mx, sb) \
	{ .key = (k), .type = (t), .off = offsetof(S, M), .cnt = offsetof(S, N), .max = (mx), .sub = (sb) }
#define PF_OBJ_ROW(k, S, M, sb) \
	{ .key = (k), .type = PF_OBJ, .off = offsetof(S, M), .sub = (sb) }
#define PF_INLINE_ROW(k, S, M, N, sb) \
	{ .key = (k), .type = PF_OBJS, .flags = PF_INLINE, .off = offsetof(S, M), .cnt = offsetof(S, N), \
	  .max = sizeof(((S *)0)->M) / sizeof(((S *)0)->M[0]), .sub = (sb) }
#define PF_CUSTOM_ROW(k, cd, fl) \
	{ .key = (k), .type = PF_CUSTOM, .flags = (fl), .codec = (cd) }
#define PF_CONST_ROW(k, v, fl) \
	{ .key = (k), .type = PF_CONST, .flags = (fl), .dflt = (v) }
#define PF_STRUCT(nm, S, tab) PF_STRUCT_CHECK(nm, S, tab, NULL)
#define PF_STRUCT_CHECK(nm, S, tab, ck) \
	{ .name = (nm), .size = sizeof(S), .fields = (tab), .nfields = sizeof(tab) / sizeof((tab)[0]), \
	  .check = (ck) }

/* Keys the msgpack map of obj has (the derived map size). */
uint32_t proto_struct_npack(const struct proto_struct *d, const void *obj);
/* Pack obj as one map. */
void proto_struct_pack(msgpack_packer *pk, const struct proto_struct *d, const void *obj);
/* Pack obj's keys and values only, inside a map the caller opened with
 * room for proto_struct_npack() more. */
void proto_struct_pack_fields(msgpack_packer *pk, const struct proto_struct *d, const void *obj);
/* Set obj to the value of an empty map: the whole struct zeroed (members
 * the table does not name too), then the float defaults. */
void proto_struct_init(const struct proto_struct *d, void *obj);
/* Decode the map o into obj (initialised first).  0, or -1 with err naming
 * the field; on error obj holds what was decoded so far (free it). */
int  proto_struct_decode(const msgpack_object *o, const struct proto_struct *d, void *obj,
    char *err, size_t errlen);
/* raw.c: the fast path of proto_doc_parse + proto_struct_decode for a
 * message whose "v" and "t" (== type) come first, then the keys of d: 0
 * with obj decoded exactly as those would, or -1 (obj initialised) when
 * the message is not one it takes, and the caller decodes it that way. */
int  proto_raw_decode(const void *buf, size_t len, size_t cap, const char *type,
    const struct proto_struct *d, void *obj);
/* Deep copy (dst's old contents are not freed). */
void proto_struct_copy(const struct proto_struct *d, void *dst, const void *src);
/* Free what obj owns, leaving it untouched otherwise (for structs several
 * tables describe parts of). */
void proto_struct_release(const struct proto_struct *d, void *obj);
/* Free what obj owns and leave it as proto_struct_init() does. */
void proto_struct_free(const struct proto_struct *d, void *obj);
/* Call fn on every struct of want inside obj (obj itself when d is want),
 * through its struct members and arrays of structs, in table order. */
void proto_struct_visit(const struct proto_struct *d, void *obj, const struct proto_struct *want,
    void (*fn)(void *elem, void *arg), void *arg);
/* Write obj's keys and values into the JSON object the caller opened. */
void proto_struct_json_fields(struct proto_json *j, const struct proto_struct *d, const void *obj);
/* Write obj as one JSON object under key (NULL inside an array). */
void proto_struct_json(struct proto_json *j, const char *key, const struct proto_struct *d,
    const void *obj);

#endif
