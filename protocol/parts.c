/*
 * parts.c - the collectors' wire parts (parts.h): the table of rows and
 * the codecs every part shares, derived from its field table.
 */
#include <string.h>

#include "protocol.h"
#include "field.h"
#include "parts.h"

#define PARTS_ROW(nm, NM, wire, T, mem) &proto_part_##nm,
const struct proto_part *const proto_parts[] = { PROTO_PARTS(PARTS_ROW) };
#undef PARTS_ROW
const size_t proto_nparts = sizeof proto_parts / sizeof proto_parts[0];

/* See parts.h. */
const struct proto_part *proto_part_find(const char *name)
{
	for (size_t i = 0; i < proto_nparts; i++)
		if (strcmp(proto_parts[i]->name, name) == 0)
			return proto_parts[i];
	return NULL;
}

/* See parts.h. */
const struct proto_part *proto_part_of_record(int type)
{
	for (size_t i = 0; i < proto_nparts; i++)
		if (proto_parts[i]->ag_type == type)
			return proto_parts[i];
	return NULL;
}

/* See parts.h. */
void proto_part_pack(const struct proto_part *p, msgpack_packer *pk, const void *part)
{
	proto_pack_str(pk, p->key);
	proto_struct_pack(pk, p->desc, part);
}

/* See parts.h. */
int proto_part_decode(const struct proto_part *p, const msgpack_object *root, void *part,
    char *err, size_t errlen)
{
	const msgpack_object *m = proto_map_get(root, p->key);

	proto_struct_init(p->desc, part);
	return m == NULL ? 0 : proto_struct_decode(m, p->desc, part, err, errlen);
}

/* See parts.h. */
void proto_part_copy(const struct proto_part *p, void *dst, const void *src)
{
	proto_struct_copy(p->desc, dst, src);
}

/* See parts.h. */
void proto_part_free(const struct proto_part *p, void *part)
{
	proto_struct_free(p->desc, part);
}

/* See parts.h. */
void proto_part_json(const struct proto_part *p, struct proto_json *j, const void *part)
{
	proto_struct_json(j, p->key, p->desc, part);
}
