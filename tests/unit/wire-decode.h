/*
 * wire-decode.h - the unit tests' decode of one packed struct, as the daemon
 * and the TUI decode a message: checked first (check.c), then through the
 * struct's field table.
 */
#ifndef HS_TEST_WIRE_DECODE_H
#define HS_TEST_WIRE_DECODE_H

#include <string.h>
#include "field.h"

/* Unpack sb (checked first, as every message is) and decode it with d. */
static int wire_decode(const msgpack_sbuffer *sb, const struct proto_struct *d, void *obj,
    char *err, size_t errlen)
{
	msgpack_zone zone;
	msgpack_object o;
	size_t off = 0;
	int rc;

	memset(obj, 0, d->size);
	if (proto_check(sb->data, sb->size, PROTO_MAX_FRAME, err, errlen) < 0)
		return -1;
	msgpack_zone_init(&zone, 4096);
	assert_int_equal(msgpack_unpack(sb->data, sb->size, &off, &zone, &o), MSGPACK_UNPACK_SUCCESS);
	rc = proto_struct_decode(&o, d, obj, err, errlen);
	msgpack_zone_destroy(&zone);
	return rc;
}

#endif
