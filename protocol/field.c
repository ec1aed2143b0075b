/*
 * field.c - the codecs every described wire struct shares (field.h).
 */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "field.h"

#define AT(obj, off, T)  ((T *)((char *)(obj) + (off)))
#define CAT(obj, off, T) ((const T *)((const char *)(obj) + (off)))

typedef char **field_strv;   /* so CAT() keeps the pointer types */

/* Is the bool or number field f of obj false or zero? */
static bool field_zero(const struct proto_field *f, const void *obj)
{
	switch (f->type) {
	case PF_U64: return *CAT(obj, f->off, uint64_t) == 0;
	case PF_I64: return *CAT(obj, f->off, int64_t) == 0;
	case PF_U32: return *CAT(obj, f->off, uint32_t) == 0;
	case PF_I32:
	case PF_PID: return *CAT(obj, f->off, int32_t) == 0;
	case PF_U8:  return *CAT(obj, f->off, uint8_t) == 0;
	case PF_BOOL: return !*CAT(obj, f->off, bool);
	case PF_F64: return *CAT(obj, f->off, double) == 0;
	case PF_OBJ: {
		const unsigned char *b = CAT(obj, f->off, unsigned char);

		for (size_t i = 0; i < f->sub->size; i++)
			if (b[i])
				return false;
		return true;
	}
	default: assert(!"PF_IFSET on a field that is not a bool, a number or a struct"); return false;
	}
}

/* Does the map of obj carry field f? */
static bool field_packed(const struct proto_field *f, const void *obj)
{
	if (f->flags & PF_NOPACK)
		return false;
	if ((f->flags & PF_IFSET) && field_zero(f, obj))
		return false;
	return f->type != PF_CUSTOM || f->codec->present == NULL || f->codec->present(obj);
}

/* Is f an array with a count member? */
static bool field_counted(const struct proto_field *f)
{
	return f->type == PF_STRS || f->type == PF_U32S || f->type == PF_OBJS;
}

/* The first element of an array field: inline, or behind the pointer. */
static char *field_elems(const struct proto_field *f, const void *obj)
{
	if (f->flags & PF_INLINE)
		return (char *)obj + f->off;
	return *(char *const *)((const char *)obj + f->off);
}

/* See field.h. */
uint32_t proto_struct_npack(const struct proto_struct *d, const void *obj)
{
	uint32_t n = 0;

	for (size_t i = 0; i < d->nfields; i++)
		n += field_packed(&d->fields[i], obj);
	return n;
}

/* See field.h. */
void proto_struct_pack(msgpack_packer *pk, const struct proto_struct *d, const void *obj)
{
	msgpack_pack_map(pk, proto_struct_npack(d, obj));
	proto_struct_pack_fields(pk, d, obj);
}

/* See field.h. */
void proto_struct_pack_fields(msgpack_packer *pk, const struct proto_struct *d, const void *obj)
{
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];
		size_t n;

		if (!field_packed(f, obj))
			continue;
		proto_pack_str(pk, f->key);
		switch (f->type) {
		case PF_U64: msgpack_pack_uint64(pk, *CAT(obj, f->off, uint64_t)); break;
		case PF_U32: msgpack_pack_uint32(pk, *CAT(obj, f->off, uint32_t)); break;
		case PF_U8: msgpack_pack_uint8(pk, *CAT(obj, f->off, uint8_t)); break;
		case PF_I64: msgpack_pack_int64(pk, *CAT(obj, f->off, int64_t)); break;
		case PF_I32: case PF_PID: msgpack_pack_int32(pk, *CAT(obj, f->off, int32_t)); break;
		case PF_F64: msgpack_pack_double(pk, *CAT(obj, f->off, double)); break;
		case PF_BOOL:
			if (*CAT(obj, f->off, bool))
				msgpack_pack_true(pk);
			else
				msgpack_pack_false(pk);
			break;
		case PF_STR: {
			const char *s = *CAT(obj, f->off, char *);

			proto_pack_str(pk, s ? s : "");
			break;
		}
		case PF_STRS: {
			char *const *v = *CAT(obj, f->off, field_strv);

			n = *CAT(obj, f->cnt, size_t);
			msgpack_pack_array(pk, n);
			for (size_t k = 0; k < n; k++)
				proto_pack_str(pk, v[k] ? v[k] : "");
			break;
		}
		case PF_U32S: {
			const uint32_t *v = *CAT(obj, f->off, uint32_t *);

			n = *CAT(obj, f->cnt, size_t);
			msgpack_pack_array(pk, n);
			for (size_t k = 0; k < n; k++)
				msgpack_pack_uint32(pk, v[k]);
			break;
		}
		case PF_OBJ:
			proto_struct_pack(pk, f->sub, CAT(obj, f->off, char));
			break;
		case PF_OBJS: {
			const char *v = field_elems(f, obj);

			n = *CAT(obj, f->cnt, size_t);
			msgpack_pack_array(pk, n);
			for (size_t k = 0; k < n; k++)
				proto_struct_pack(pk, f->sub, v + k * f->sub->size);
			break;
		}
		case PF_CONST: msgpack_pack_uint64(pk, (uint64_t)f->dflt); break;
		case PF_CUSTOM: f->codec->pack(pk, obj); break;
		}
	}
}

/* See field.h. */
void proto_struct_init(const struct proto_struct *d, void *obj)
{
	memset(obj, 0, d->size);
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];

		if (f->type == PF_F64)
			*AT(obj, f->off, double) = f->dflt;
		else if (f->type == PF_OBJ)
			proto_struct_init(f->sub, AT(obj, f->off, char));
	}
}

/* An array of at most max strings into a fresh vector. */
static int field_strs(const msgpack_object *o, const struct proto_field *f, void *obj,
    char *err, size_t errlen)
{
	const msgpack_object_array *a;
	char ***out = AT(obj, f->off, char **);
	size_t *n = AT(obj, f->cnt, size_t);

	if (proto_get_array_max(o, f->key, f->max, &a, err, errlen) < 0)
		return -1;
	if (a == NULL)
		return 0;
	*out = xcalloc(a->size ? a->size : 1, sizeof **out);
	for (uint32_t i = 0; i < a->size; i++) {
		const msgpack_object *s = &a->ptr[i];

		if (s->type != MSGPACK_OBJECT_STR) {
			snprintf(err, errlen, "entry %u of \"%s\" must be a string", i, f->key);
			return -1;
		}
		if (memchr(s->via.str.ptr, '\0', s->via.str.size)) {
			snprintf(err, errlen, "entry %u of \"%s\" contains a NUL byte", i, f->key);
			return -1;
		}
		(*out)[i] = xstrndup(s->via.str.ptr, s->via.str.size);
		*n = i + 1;
	}
	return 0;
}

/* An array of at most max maps of f->sub. */
static int field_objs(const msgpack_object *o, const struct proto_field *f, void *obj,
    char *err, size_t errlen)
{
	const msgpack_object_array *a;
	size_t *n = AT(obj, f->cnt, size_t);
	char *v;

	if (proto_get_array_max(o, f->key, f->max, &a, err, errlen) < 0)
		return -1;
	if (a == NULL)
		return 0;
	if (f->flags & PF_INLINE)
		v = AT(obj, f->off, char);
	else
		v = *AT(obj, f->off, char *) = xcalloc(a->size ? a->size : 1, f->sub->size);
	for (uint32_t i = 0; i < a->size; i++) {
		*n = i + 1;
		if (proto_struct_decode(&a->ptr[i], f->sub, v + i * f->sub->size, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* A signed value into an int32_t of lo .. INT32_MAX. */
static int field_i32(const msgpack_object *val, const struct proto_field *f, int64_t lo,
    void *obj, char *err, size_t errlen)
{
	int64_t v;

	if (proto_val_i64(val, f->key, &v, err, errlen) < 0)
		return -1;
	if (v < lo || v > INT32_MAX) {
		snprintf(err, errlen, "field \"%s\" out of range", f->key);
		return -1;
	}
	*AT(obj, f->off, int32_t) = (int32_t)v;
	return 0;
}

/* An absent field: refused if required, else what an empty map decodes
 * to (the struct was initialised; strings and a nested map's strings are
 * ""). */
static int field_absent(const msgpack_object *o, const struct proto_field *f, void *obj,
    char *err, size_t errlen)
{
	static const msgpack_object empty = { .type = MSGPACK_OBJECT_MAP };

	if (f->flags & PF_REQUIRED) {
		snprintf(err, errlen, "missing required field \"%s\"", f->key);
		return -1;
	}
	switch (f->type) {
	case PF_STR:
		*AT(obj, f->off, char *) = xstrdup("");
		return 0;
	case PF_OBJ:
		return proto_struct_decode(&empty, f->sub, AT(obj, f->off, char), err, errlen);
	case PF_CUSTOM:
		return f->codec->decode(o, obj, err, errlen);
	default:
		return 0;
	}
}

/* Decode one field of the map o, whose value val was found in it (NULL:
 * absent). */
static int field_decode(const msgpack_object *o, const msgpack_object *val,
    const struct proto_field *f, void *obj, char *err, size_t errlen)
{
	uint64_t u;

	if (val == NULL)
		return field_absent(o, f, obj, err, errlen);
	switch (f->type) {
	case PF_U64: return proto_val_u64(val, f->key, AT(obj, f->off, uint64_t), err, errlen);
	case PF_U32: return proto_val_u32(val, f->key, AT(obj, f->off, uint32_t), err, errlen);
	case PF_U8:
		if (proto_val_u64(val, f->key, &u, err, errlen) < 0)
			return -1;
		if (u > UINT8_MAX) {
			snprintf(err, errlen, "field \"%s\" out of range", f->key);
			return -1;
		}
		*AT(obj, f->off, uint8_t) = (uint8_t)u;
		return 0;
	case PF_I64: return proto_val_i64(val, f->key, AT(obj, f->off, int64_t), err, errlen);
	case PF_I32: return field_i32(val, f, INT32_MIN, obj, err, errlen);
	case PF_PID: return field_i32(val, f, 0, obj, err, errlen);
	case PF_F64: return proto_val_f64(val, f->key, AT(obj, f->off, double), err, errlen);
	case PF_BOOL: return proto_val_bool(val, f->key, AT(obj, f->off, bool), err, errlen);
	case PF_STR: return proto_val_str(val, f->key, AT(obj, f->off, char *), err, errlen);
	case PF_STRS: return field_strs(o, f, obj, err, errlen);
	case PF_U32S:
		return proto_get_u32_array(o, f->key, f->max, AT(obj, f->off, uint32_t *),
		    AT(obj, f->cnt, size_t), err, errlen);
	case PF_OBJ: return proto_struct_decode(val, f->sub, AT(obj, f->off, char), err, errlen);
	case PF_OBJS: return field_objs(o, f, obj, err, errlen);
	case PF_CONST: return 0;
	case PF_CUSTOM: return f->codec->decode(o, obj, err, errlen);
	}
	return 0;
}

/* See field.h. */
int proto_struct_decode(const msgpack_object *o, const struct proto_struct *d, void *obj,
    char *err, size_t errlen)
{
	uint32_t hint = 0;

	proto_struct_init(d, obj);
	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "%s must be a map", d->name);
		return -1;
	}
	/* One pass over the keys when they come in the table's order. */
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];

		if (f->flags & PF_NOPACK)
			continue;
		if (field_decode(o, proto_map_get_next(o, f->key, &hint), f, obj, err, errlen) < 0)
			return -1;
	}
	return d->check != NULL ? d->check(obj, err, errlen) : 0;
}

/* See field.h. */
void proto_struct_copy(const struct proto_struct *d, void *dst, const void *src)
{
	memcpy(dst, src, d->size);
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];
		size_t n = field_counted(f) ? *CAT(src, f->cnt, size_t) : 0;

		switch (f->type) {
		case PF_STR: {
			const char *s = *CAT(src, f->off, char *);

			*AT(dst, f->off, char *) = xstrdup(s ? s : "");
			break;
		}
		case PF_STRS: {
			char *const *s = *CAT(src, f->off, field_strv);
			char **v = xcalloc(n ? n : 1, sizeof *v);

			for (size_t k = 0; k < n; k++)
				v[k] = xstrdup(s[k] ? s[k] : "");
			*AT(dst, f->off, char **) = v;
			break;
		}
		case PF_U32S: {
			uint32_t *v = xcalloc(n ? n : 1, sizeof *v);

			if (n)
				memcpy(v, *CAT(src, f->off, uint32_t *), n * sizeof *v);
			*AT(dst, f->off, uint32_t *) = v;
			break;
		}
		case PF_OBJ:
			proto_struct_copy(f->sub, AT(dst, f->off, char), CAT(src, f->off, char));
			break;
		case PF_OBJS: {
			const char *s = field_elems(f, src);
			char *v = f->flags & PF_INLINE ? AT(dst, f->off, char) : xcalloc(n ? n : 1, f->sub->size);

			for (size_t k = 0; k < n; k++)
				proto_struct_copy(f->sub, v + k * f->sub->size, s + k * f->sub->size);
			if (!(f->flags & PF_INLINE))
				*AT(dst, f->off, char *) = v;
			break;
		}
		case PF_CUSTOM:
			f->codec->copy(dst, src);
			break;
		default:
			break;
		}
	}
}

/* Does a struct of d own heap memory (so each one must be released)? */
static bool field_owns(const struct proto_struct *d)
{
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];

		if (f->type == PF_STR || f->type == PF_STRS || f->type == PF_U32S ||
		    f->type == PF_OBJS || f->type == PF_CUSTOM ||
		    (f->type == PF_OBJ && field_owns(f->sub)))
			return true;
	}
	return false;
}

/* See field.h. */
void proto_struct_release(const struct proto_struct *d, void *obj)
{
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];
		size_t n = field_counted(f) ? *AT(obj, f->cnt, size_t) : 0;

		switch (f->type) {
		case PF_STR: free(*AT(obj, f->off, char *)); break;
		case PF_STRS: {
			char **v = *AT(obj, f->off, char **);

			for (size_t k = 0; k < n && v != NULL; k++)
				free(v[k]);
			free(v);
			break;
		}
		case PF_U32S: free(*AT(obj, f->off, uint32_t *)); break;
		case PF_OBJ: proto_struct_release(f->sub, AT(obj, f->off, char)); break;
		case PF_OBJS: {
			char *v = field_elems(f, obj);

			/* thousands of flat figures: nothing to walk */
			if (v != NULL && field_owns(f->sub))
				for (size_t k = 0; k < n; k++)
					proto_struct_release(f->sub, v + k * f->sub->size);
			if (!(f->flags & PF_INLINE))
				free(v);
			break;
		}
		case PF_CUSTOM:
			f->codec->release(obj);
			break;
		default:
			break;
		}
	}
}

/* Can a struct of d hold a struct of want (itself, or inside a member)? */
static bool field_holds(const struct proto_struct *d, const struct proto_struct *want)
{
	if (d == want)
		return true;
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];

		if ((f->type == PF_OBJ || f->type == PF_OBJS) && field_holds(f->sub, want))
			return true;
	}
	return false;
}

/* See field.h. */
void proto_struct_visit(const struct proto_struct *d, void *obj, const struct proto_struct *want,
    void (*fn)(void *elem, void *arg), void *arg)
{
	if (d == want) {
		fn(obj, arg);
		return;
	}
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];

		/* arrays of flat figures are not walked */
		if ((f->type != PF_OBJ && f->type != PF_OBJS) || !field_holds(f->sub, want))
			continue;
		if (f->type == PF_OBJ) {
			proto_struct_visit(f->sub, AT(obj, f->off, char), want, fn, arg);
			continue;
		}
		char *v = field_elems(f, obj);
		size_t n = *AT(obj, f->cnt, size_t);

		for (size_t k = 0; v != NULL && k < n; k++)
			proto_struct_visit(f->sub, v + k * f->sub->size, want, fn, arg);
	}
}

/* See field.h. */
void proto_struct_free(const struct proto_struct *d, void *obj)
{
	proto_struct_release(d, obj);
	proto_struct_init(d, obj);
}

/* See field.h. */
void proto_struct_json(struct proto_json *j, const char *key, const struct proto_struct *d,
    const void *obj)
{
	proto_json_obj(j, key);
	proto_struct_json_fields(j, d, obj);
	proto_json_end_obj(j);
}

/* See field.h. */
void proto_struct_json_fields(struct proto_json *j, const struct proto_struct *d, const void *obj)
{
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];
		size_t n = field_counted(f) ? *CAT(obj, f->cnt, size_t) : 0;

		if (f->flags & PF_NOJSON)
			continue;
		switch (f->type) {
		case PF_U64: proto_json_u64(j, f->key, *CAT(obj, f->off, uint64_t)); break;
		case PF_U32: proto_json_u64(j, f->key, *CAT(obj, f->off, uint32_t)); break;
		case PF_U8: proto_json_u64(j, f->key, *CAT(obj, f->off, uint8_t)); break;
		case PF_I64: proto_json_i64(j, f->key, *CAT(obj, f->off, int64_t)); break;
		case PF_I32: case PF_PID: proto_json_i64(j, f->key, *CAT(obj, f->off, int32_t)); break;
		case PF_F64: proto_json_f64(j, f->key, *CAT(obj, f->off, double)); break;
		case PF_BOOL: proto_json_bool(j, f->key, *CAT(obj, f->off, bool)); break;
		case PF_STR: proto_json_str(j, f->key, *CAT(obj, f->off, char *)); break;
		case PF_STRS: {
			char *const *v = *CAT(obj, f->off, field_strv);

			proto_json_arr(j, f->key);
			for (size_t k = 0; k < n; k++)
				proto_json_str(j, NULL, v[k]);
			proto_json_end_arr(j);
			break;
		}
		case PF_U32S: {
			const uint32_t *v = *CAT(obj, f->off, uint32_t *);

			proto_json_arr(j, f->key);
			for (size_t k = 0; k < n; k++)
				proto_json_u64(j, NULL, v[k]);
			proto_json_end_arr(j);
			break;
		}
		case PF_OBJ: proto_struct_json(j, f->key, f->sub, CAT(obj, f->off, char)); break;
		case PF_OBJS: {
			const char *v = field_elems(f, obj);

			proto_json_arr(j, f->key);
			for (size_t k = 0; k < n; k++)
				proto_struct_json(j, NULL, f->sub, v + k * f->sub->size);
			proto_json_end_arr(j);
			break;
		}
		case PF_CONST: proto_json_u64(j, f->key, (uint64_t)f->dflt); break;
		case PF_CUSTOM:
			assert(f->codec->json != NULL);
			f->codec->json(j, f->key, obj);
			break;
		}
	}
}
