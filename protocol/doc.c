/*
 * doc.c - a validated message as a msgpack object tree, typed getters over
 * its maps, and packing helpers for building maps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* See protocol.h. */
int proto_doc_parse(struct proto_doc *doc, const void *buf, size_t len,
    size_t cap, char *err, size_t errlen)
{
	size_t off = 0;
	uint64_t v;

	memset(doc, 0, sizeof *doc);
	if (proto_check(buf, len, cap, err, errlen) < 0)
		return -1;
	/* The tree takes a few times the bytes it comes from: a chunk that
	 * size, not thousands of small mallocs for a large record. */
	msgpack_zone_init(&doc->zone, len < 512 ? 2048 : len * 4);
	doc->zone_live = true;
	if (msgpack_unpack(buf, len, &off, &doc->zone, &doc->root) != MSGPACK_UNPACK_SUCCESS ||
	    off != len) {
		snprintf(err, errlen, "malformed msgpack: cannot decode");
		goto fail;
	}
	if (doc->root.type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "message is not a map");
		goto fail;
	}
	if (proto_get_u64(&doc->root, "v", true, &v, err, errlen) < 0)
		goto fail;
	if (v != PROTO_VERSION) {
		snprintf(err, errlen, "protocol version %llu is not supported (this side speaks %d)",
		    (unsigned long long)v, PROTO_VERSION);
		goto fail;
	}
	return 0;
fail:
	proto_doc_free(doc);
	return -1;
}

/* See protocol.h. */
void proto_doc_free(struct proto_doc *doc)
{
	if (doc->zone_live)
		msgpack_zone_destroy(&doc->zone);
	doc->zone_live = false;
}

/* See protocol.h.  Maps in this protocol are small: a linear scan is right. */
const msgpack_object *proto_map_get(const msgpack_object *map, const char *key)
{
	size_t klen = strlen(key);

	if (map == NULL || map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (uint32_t i = 0; i < map->via.map.size; i++) {
		const msgpack_object_kv *kv = &map->via.map.ptr[i];

		if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == klen &&
		    memcmp(kv->key.via.str.ptr, key, klen) == 0)
			return &kv->val;
	}
	return NULL;
}

/* See protocol.h. */
const msgpack_object *proto_map_get_next(const msgpack_object *map, const char *key,
    uint32_t *hint)
{
	size_t klen = strlen(key);

	if (map == NULL || map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	if (*hint < map->via.map.size) {
		const msgpack_object_kv *kv = &map->via.map.ptr[*hint];

		if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == klen &&
		    memcmp(kv->key.via.str.ptr, key, klen) == 0) {
			++*hint;
			return &kv->val;
		}
	}
	for (uint32_t i = 0; i < map->via.map.size; i++) {
		const msgpack_object_kv *kv = &map->via.map.ptr[i];

		if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == klen &&
		    memcmp(kv->key.via.str.ptr, key, klen) == 0) {
			/* Out of order: a key skipped here may come again later,
			 * and only a scan finds its first occurrence. */
			*hint = UINT32_MAX;
			return &kv->val;
		}
	}
	return NULL;
}

/* Look up key; 1 if found, 0 if absent and optional, -1 if absent and required. */
static int doc_lookup(const msgpack_object *map, const char *key, bool required,
    const msgpack_object **o, char *err, size_t errlen)
{
	*o = proto_map_get(map, key);
	if (*o != NULL)
		return 1;
	if (!required)
		return 0;
	snprintf(err, errlen, "missing field \"%s\"", key);
	return -1;
}

/* Shared wrong-type error. */
static int doc_type_error(const char *key, const char *want, char *err, size_t errlen)
{
	snprintf(err, errlen, "field \"%s\" must be %s", key, want);
	return -1;
}

/* See protocol.h. */
int proto_get_u64(const msgpack_object *map, const char *key, bool required,
    uint64_t *out, char *err, size_t errlen)
{
	const msgpack_object *o;
	int r = doc_lookup(map, key, required, &o, err, errlen);

	return r <= 0 ? r : proto_val_u64(o, key, out, err, errlen);
}

/* See protocol.h. */
int proto_val_u64(const msgpack_object *o, const char *key, uint64_t *out, char *err,
    size_t errlen)
{
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return doc_type_error(key, "a non-negative integer", err, errlen);
	*out = o->via.u64;
	return 0;
}

/* See protocol.h. */
int proto_get_i64(const msgpack_object *map, const char *key, bool required,
    int64_t *out, char *err, size_t errlen)
{
	const msgpack_object *o;
	int r = doc_lookup(map, key, required, &o, err, errlen);

	return r <= 0 ? r : proto_val_i64(o, key, out, err, errlen);
}

/* See protocol.h. */
int proto_val_i64(const msgpack_object *o, const char *key, int64_t *out, char *err,
    size_t errlen)
{
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		*out = o->via.i64;
	else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		*out = (int64_t)o->via.u64;
	else
		return doc_type_error(key, "an integer", err, errlen);
	return 0;
}

/* See protocol.h.  Integers are accepted where a float is expected. */
int proto_get_f64(const msgpack_object *map, const char *key, bool required,
    double *out, char *err, size_t errlen)
{
	const msgpack_object *o;
	int r = doc_lookup(map, key, required, &o, err, errlen);

	return r <= 0 ? r : proto_val_f64(o, key, out, err, errlen);
}

/* See protocol.h. */
int proto_val_f64(const msgpack_object *o, const char *key, double *out, char *err,
    size_t errlen)
{
	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		if (!isfinite(o->via.f64))
			return doc_type_error(key, "a finite number", err, errlen);
		*out = o->via.f64;
		return 0;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		*out = (double)o->via.u64;
		return 0;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		*out = (double)o->via.i64;
		return 0;
	default:
		return doc_type_error(key, "a number", err, errlen);
	}
}

/* See protocol.h. */
int proto_get_bool(const msgpack_object *map, const char *key, bool required,
    bool *out, char *err, size_t errlen)
{
	const msgpack_object *o;
	int r = doc_lookup(map, key, required, &o, err, errlen);

	return r <= 0 ? r : proto_val_bool(o, key, out, err, errlen);
}

/* See protocol.h. */
int proto_val_bool(const msgpack_object *o, const char *key, bool *out, char *err,
    size_t errlen)
{
	if (o->type != MSGPACK_OBJECT_BOOLEAN)
		return doc_type_error(key, "a boolean", err, errlen);
	*out = o->via.boolean;
	return 0;
}

/* See protocol.h.  Strings are copied: decoded ones point into the input. */
int proto_get_str(const msgpack_object *map, const char *key, bool required,
    char **out, char *err, size_t errlen)
{
	const msgpack_object *o;
	int r = doc_lookup(map, key, required, &o, err, errlen);

	return r <= 0 ? r : proto_val_str(o, key, out, err, errlen);
}

/* See protocol.h. */
int proto_val_str(const msgpack_object *o, const char *key, char **out, char *err,
    size_t errlen)
{
	if (o->type != MSGPACK_OBJECT_STR)
		return doc_type_error(key, "a string", err, errlen);
	if (memchr(o->via.str.ptr, '\0', o->via.str.size) != NULL)
		return doc_type_error(key, "a string without NUL bytes", err, errlen);
	*out = xstrndup(o->via.str.ptr, o->via.str.size);
	return 0;
}

/* See protocol.h. */
int proto_get_array(const msgpack_object *map, const char *key, bool required,
    const msgpack_object_array **out, char *err, size_t errlen)
{
	const msgpack_object *o;
	int r = doc_lookup(map, key, required, &o, err, errlen);

	if (r <= 0)
		return r;
	if (o->type != MSGPACK_OBJECT_ARRAY)
		return doc_type_error(key, "an array", err, errlen);
	*out = &o->via.array;
	return 0;
}

/* See protocol.h. */
int proto_get_array_max(const msgpack_object *map, const char *key, uint32_t max,
    const msgpack_object_array **out, char *err, size_t errlen)
{
	*out = NULL;
	if (proto_get_array(map, key, false, out, err, errlen) < 0)
		return -1;
	if (*out != NULL && (*out)->size > max) {
		snprintf(err, errlen, "field \"%s\" holds more than %u entries", key, max);
		return -1;
	}
	return 0;
}

/* See protocol.h. */
int proto_get_u32_array(const msgpack_object *map, const char *key, uint32_t max,
    uint32_t **out, size_t *n, char *err, size_t errlen)
{
	const msgpack_object_array *a;

	if (proto_get_array_max(map, key, max, &a, err, errlen) < 0)
		return -1;
	if (a == NULL)
		return 0;
	*out = xcalloc(a->size ? a->size : 1, sizeof **out);
	for (uint32_t i = 0; i < a->size; i++) {
		if (a->ptr[i].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
		    a->ptr[i].via.u64 > UINT32_MAX) {
			snprintf(err, errlen, "entry %u of \"%s\" must be a count of at most %u", i,
			    key, UINT32_MAX);
			return -1;
		}
		(*out)[i] = (uint32_t)a->ptr[i].via.u64;
		*n = i + 1;
	}
	return 0;
}

/* See protocol.h. */
void proto_pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s ? s : "", n);
}

/* See protocol.h. */
void proto_pack_kv_str(msgpack_packer *pk, const char *key, const char *val)
{
	proto_pack_str(pk, key);
	proto_pack_str(pk, val);
}

/* See protocol.h. */
void proto_pack_kv_u64(msgpack_packer *pk, const char *key, uint64_t val)
{
	proto_pack_str(pk, key);
	msgpack_pack_uint64(pk, val);
}

/* See protocol.h. */
void proto_pack_kv_i64(msgpack_packer *pk, const char *key, int64_t val)
{
	proto_pack_str(pk, key);
	msgpack_pack_int64(pk, val);
}

/* See protocol.h. */
void proto_pack_kv_f64(msgpack_packer *pk, const char *key, double val)
{
	proto_pack_str(pk, key);
	msgpack_pack_double(pk, val);
}

/* See protocol.h. */
void proto_pack_kv_bool(msgpack_packer *pk, const char *key, bool val)
{
	proto_pack_str(pk, key);
	if (val)
		msgpack_pack_true(pk);
	else
		msgpack_pack_false(pk);
}

/* See protocol.h. */
int proto_get_str_or_empty(const msgpack_object *map, const char *key, char **out,
    char *err, size_t errlen)
{
	if (proto_get_str(map, key, false, out, err, errlen) < 0)
		return -1;
	if (*out == NULL)
		*out = xstrdup("");
	return 0;
}

/* See protocol.h. */
int proto_get_u32(const msgpack_object *map, const char *key, bool required, uint32_t *out,
    char *err, size_t errlen)
{
	const msgpack_object *o;
	int r = doc_lookup(map, key, required, &o, err, errlen);

	if (r == 0)
		*out = 0;             /* absent: 0 */
	return r <= 0 ? r : proto_val_u32(o, key, out, err, errlen);
}

/* See protocol.h. */
int proto_val_u32(const msgpack_object *o, const char *key, uint32_t *out, char *err,
    size_t errlen)
{
	uint64_t v;

	if (proto_val_u64(o, key, &v, err, errlen) < 0)
		return -1;
	if (v > UINT32_MAX) {
		snprintf(err, errlen, "field \"%s\" must be at most %u", key, UINT32_MAX);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* See protocol.h. */
int proto_get_pid(const msgpack_object *map, const char *key, int32_t *out, char *err,
    size_t errlen)
{
	int64_t v = 0;

	if (proto_get_i64(map, key, false, &v, err, errlen) < 0)
		return -1;
	if (v < 0 || v > INT32_MAX) {
		snprintf(err, errlen, "field \"%s\" must be a process or thread id", key);
		return -1;
	}
	*out = (int32_t)v;
	return 0;
}
