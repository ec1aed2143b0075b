/*
 * parts.c - the collectors' wire parts (parts.h).
 */
#include <string.h>

#include "parts.h"

/* Adapters from the typed codecs to the row's void-pointer signature. */
#define PART_CODEC(nm, T) \
	static void nm##_pack(msgpack_packer *pk, const void *p) { proto_pack_##nm(pk, p); } \
	static int nm##_decode(const msgpack_object *root, void *p, char *err, size_t errlen) \
	{ return proto_decode_##nm(root, p, err, errlen); } \
	static void nm##_free(void *p) { proto_##nm##_free(p); } \
	static void nm##_json(struct proto_json *j, const void *p) { proto_##nm##_json(j, p); }

PART_CODEC(fps, struct proto_fps)
PART_CODEC(threads, struct proto_threads)
PART_CODEC(blocks, struct proto_blocks)
PART_CODEC(ipc, struct proto_ipc)
PART_CODEC(power, struct proto_power)

static void fps_copy(void *d, const void *s) { proto_fps_copy(d, s); }
static void threads_copy(void *d, const void *s) { proto_threads_copy(d, s); }
static void power_copy(void *d, const void *s) { proto_power_copy(d, s); }
static void blocks_copy(void *d, const void *s) { proto_struct_copy(&proto_blocks_desc, d, s); }
static void ipc_copy(void *d, const void *s) { proto_struct_copy(&proto_ipc_desc, d, s); }

#define PART_AT(S, M) offsetof(S, M)

const struct proto_part proto_parts[] = {
	{ "fps", "fps", PROTO_AG_FPS, true,
	  PART_AT(struct proto_frame, fps), PART_AT(struct proto_agent_rec, fps), &proto_fps_desc,
	  fps_pack, fps_decode, fps_copy, fps_free, fps_json },
	{ "threads", "threading", PROTO_AG_THREADS, false,
	  PART_AT(struct proto_frame, thr), PART_AT(struct proto_agent_rec, thr), &proto_threads_desc,
	  threads_pack, threads_decode, threads_copy, threads_free, threads_json },
	{ "blocks", "blocks", PROTO_AG_BLOCKS, true,
	  PART_AT(struct proto_frame, blocks), PART_AT(struct proto_agent_rec, blocks), &proto_blocks_desc,
	  blocks_pack, blocks_decode, blocks_copy, blocks_free, blocks_json },
	{ "ipc", "ipc", PROTO_AG_IPC, true,
	  PART_AT(struct proto_frame, ipc), PART_AT(struct proto_agent_rec, ipc), &proto_ipc_desc,
	  ipc_pack, ipc_decode, ipc_copy, ipc_free, ipc_json },
	{ "power", "power", PROTO_AG_POWER, false,
	  PART_AT(struct proto_frame, power), PART_AT(struct proto_agent_rec, power), &proto_power_desc,
	  power_pack, power_decode, power_copy, power_free, power_json },
};
const size_t proto_nparts = sizeof proto_parts / sizeof proto_parts[0];

/* See parts.h. */
const struct proto_part *proto_part_find(const char *name)
{
	for (size_t i = 0; i < proto_nparts; i++)
		if (strcmp(proto_parts[i].name, name) == 0)
			return &proto_parts[i];
	return NULL;
}

/* See parts.h. */
const struct proto_part *proto_part_of_record(enum proto_agent_type type)
{
	for (size_t i = 0; i < proto_nparts; i++)
		if (proto_parts[i].ag_type == type)
			return &proto_parts[i];
	return NULL;
}
