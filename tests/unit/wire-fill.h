/*
 * wire-fill.h - test-wire's helpers driven by the field tables: set every
 * field of a struct to a value no default has, and compare two structs
 * member by member.
 */
#ifndef HS_TEST_WIRE_FILL_H
#define HS_TEST_WIRE_FILL_H

#include <stdio.h>
#include "field.h"

#define WIRE_AT(obj, off, T) ((T *)((char *)(obj) + (off)))

static unsigned wire_seq;

static char *wire_str(void)
{
	char b[48];

	snprintf(b, sizeof b, "s%u \"q\" \\ é\t%u", wire_seq, wire_seq * 7);
	wire_seq++;
	return xstrdup(b);
}

/* Set every field of obj to a value no default has; arrays get two entries
 * (or their max).  Custom fields stay empty. */
static void wire_fill(const struct proto_struct *d, void *obj)
{
	proto_struct_init(d, obj);
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];
		size_t n = f->max < 2 ? f->max : 2;
		unsigned v = ++wire_seq;

		switch (f->type) {
		case PF_U64: *WIRE_AT(obj, f->off, uint64_t) = (uint64_t)v << 33 | v; break;
		case PF_U32: *WIRE_AT(obj, f->off, uint32_t) = v + 100000; break;
		case PF_U8: *WIRE_AT(obj, f->off, uint8_t) = 1 + v % 3; break;   /* valid for every u8 field: levels 0-4, function modes 0-3 */
		case PF_I64: *WIRE_AT(obj, f->off, int64_t) = -(int64_t)v * 1000; break;
		case PF_I32: *WIRE_AT(obj, f->off, int32_t) = -(int32_t)v; break;
		case PF_PID: *WIRE_AT(obj, f->off, int32_t) = (int32_t)v + 1000; break;
		case PF_F64: *WIRE_AT(obj, f->off, double) = v + 0.25; break;
		case PF_BOOL: *WIRE_AT(obj, f->off, bool) = true; break;
		case PF_STR: *WIRE_AT(obj, f->off, char *) = wire_str(); break;
		case PF_STRS: {
			char **a = xcalloc(n, sizeof *a);

			for (size_t k = 0; k < n; k++)
				a[k] = wire_str();
			*WIRE_AT(obj, f->off, char **) = a;
			*WIRE_AT(obj, f->cnt, size_t) = n;
			break;
		}
		case PF_U32S: {
			uint32_t *a = xcalloc(n, sizeof *a);

			for (size_t k = 0; k < n; k++)
				a[k] = v * 3 + (uint32_t)k;
			*WIRE_AT(obj, f->off, uint32_t *) = a;
			*WIRE_AT(obj, f->cnt, size_t) = n;
			break;
		}
		case PF_OBJ: wire_fill(f->sub, WIRE_AT(obj, f->off, char)); break;
		case PF_OBJS: {
			char *a = f->flags & PF_INLINE ? WIRE_AT(obj, f->off, char) : xcalloc(n, f->sub->size);

			for (size_t k = 0; k < n; k++)
				wire_fill(f->sub, a + k * f->sub->size);
			if (!(f->flags & PF_INLINE))
				*WIRE_AT(obj, f->off, char *) = a;
			*WIRE_AT(obj, f->cnt, size_t) = n;
			break;
		}
		default:
			break;
		}
	}
}

/* Member by member; json: the fields JSON carries only. */
static void wire_compare(const struct proto_struct *d, const void *a, const void *b, bool json)
{
	for (size_t i = 0; i < d->nfields; i++) {
		const struct proto_field *f = &d->fields[i];
		size_t n;

		if (json && (f->flags & PF_NOJSON))
			continue;
		switch (f->type) {
		case PF_U64: case PF_I64:
			assert_true(*WIRE_AT(a, f->off, uint64_t) == *WIRE_AT(b, f->off, uint64_t));
			break;
		case PF_U32: case PF_I32: case PF_PID:
			assert_true(*WIRE_AT(a, f->off, uint32_t) == *WIRE_AT(b, f->off, uint32_t));
			break;
		case PF_U8: assert_int_equal(*WIRE_AT(a, f->off, uint8_t), *WIRE_AT(b, f->off, uint8_t)); break;
		case PF_BOOL: assert_int_equal(*WIRE_AT(a, f->off, bool), *WIRE_AT(b, f->off, bool)); break;
		case PF_F64: assert_true(*WIRE_AT(a, f->off, double) == *WIRE_AT(b, f->off, double)); break;
		case PF_STR:
			assert_string_equal(*WIRE_AT(a, f->off, char *), *WIRE_AT(b, f->off, char *));
			break;
		case PF_STRS:
			n = *WIRE_AT(a, f->cnt, size_t);
			assert_int_equal(n, *WIRE_AT(b, f->cnt, size_t));
			for (size_t k = 0; k < n; k++)
				assert_string_equal((*WIRE_AT(a, f->off, char **))[k], (*WIRE_AT(b, f->off, char **))[k]);
			break;
		case PF_U32S:
			n = *WIRE_AT(a, f->cnt, size_t);
			assert_int_equal(n, *WIRE_AT(b, f->cnt, size_t));
			assert_memory_equal(*WIRE_AT(a, f->off, uint32_t *), *WIRE_AT(b, f->off, uint32_t *),
			    n * sizeof(uint32_t));
			break;
		case PF_OBJ:
			wire_compare(f->sub, WIRE_AT(a, f->off, char), WIRE_AT(b, f->off, char), json);
			break;
		case PF_OBJS: {
			const char *va = f->flags & PF_INLINE ? WIRE_AT(a, f->off, char) : *WIRE_AT(a, f->off, char *);
			const char *vb = f->flags & PF_INLINE ? WIRE_AT(b, f->off, char) : *WIRE_AT(b, f->off, char *);

			n = *WIRE_AT(a, f->cnt, size_t);
			assert_int_equal(n, *WIRE_AT(b, f->cnt, size_t));
			for (size_t k = 0; k < n; k++)
				wire_compare(f->sub, va + k * f->sub->size, vb + k * f->sub->size, json);
			break;
		}
		default:
			break;
		}
	}
}

#endif
