/*
 * block.c - the "blocks" map, shared by the agent's "blocks" record and the
 * daemon's frames: the block detection settings in force, a count, and the
 * most recent blocks of the UI thread, each with its distinct symbolized
 * stacks and how many samples each had (doc/protocol.md).
 */
#include "protocol.h"
#include "field.h"
#include "parts.h"

#define F struct proto_block_frame
static const struct proto_field block_frame_fields[] = {
	PF_ROW("addr", PF_U64, F, addr, PF_REQUIRED),
	PF_ROW("func", PF_STR, F, func, 0),
	PF_ROW("off", PF_U64, F, off, 0),
	PF_ROW("module", PF_STR, F, module, 0),
	PF_ROW("file", PF_STR, F, file, 0),
	PF_ROW("line", PF_U32, F, line, 0),
};
#undef F
const struct proto_struct proto_block_frame_desc =
	PF_STRUCT("a stack frame", struct proto_block_frame, block_frame_fields);

#define S struct proto_block_stack
static const struct proto_field block_stack_fields[] = {
	PF_ROW("samples", PF_U64, S, samples, 0),
	PF_ARR_ROW("frames", PF_OBJS, S, frames, nframes, PROTO_BLOCK_FRAMES, &proto_block_frame_desc),
};
#undef S
const struct proto_struct proto_block_stack_desc =
	PF_STRUCT("a stack", struct proto_block_stack, block_stack_fields);

#define B struct proto_block
static const struct proto_field block_fields[] = {
	PF_ROW("id", PF_U32, B, id, PF_REQUIRED),
	PF_ROW("tid", PF_PID, B, tid, 0),
	PF_ROW("start_ns", PF_U64, B, start_ns, PF_REQUIRED),
	PF_ROW("time_ms", PF_U64, B, time_ms, 0),
	PF_ROW("dur_ns", PF_U64, B, dur_ns, PF_REQUIRED),
	PF_ROW("ended", PF_BOOL, B, ended, 0),
	PF_ROW("samples", PF_U64, B, samples, 0),
	PF_ROW("lost", PF_U64, B, lost, 0),
	PF_ARR_ROW("stacks", PF_OBJS, B, stacks, nstacks, PROTO_BLOCK_STACKS, &proto_block_stack_desc),
};
#undef B
const struct proto_struct proto_block_desc = PF_STRUCT("a block", struct proto_block, block_fields);

#define L struct proto_blocks
static const struct proto_field blocks_fields[] = {
	PF_ROW("threshold_ns", PF_U64, L, threshold_ns, 0),
	PF_ROW("sample_ns", PF_U64, L, sample_ns, 0),
	PF_ROW("ui_tid", PF_PID, L, ui_tid, 0),
	PF_ROW("ui", PF_STR, L, ui, 0),
	PF_ROW("count", PF_U64, L, count, 0),
	PF_ARR_ROW("list", PF_OBJS, L, blocks, nblocks, PROTO_MAX_BLOCKS, &proto_block_desc),
};
#undef L
const struct proto_struct proto_blocks_desc =
	PF_STRUCT("field \"blocks\"", struct proto_blocks, blocks_fields);

/* See protocol.h. */
void proto_block_stack_pack(msgpack_packer *pk, const struct proto_block_stack *s)
{
	proto_struct_pack(pk, &proto_block_stack_desc, s);
}

/* See protocol.h. */
void proto_pack_blocks(msgpack_packer *pk, const struct proto_blocks *b)
{
	proto_pack_str(pk, "blocks");
	proto_struct_pack(pk, &proto_blocks_desc, b);
}

/* See protocol.h. */
int proto_block_stack_decode(const msgpack_object *o, struct proto_block_stack *s,
    char *err, size_t errlen)
{
	return proto_struct_decode(o, &proto_block_stack_desc, s, err, errlen);
}

/* See protocol.h. */
int proto_decode_blocks(const msgpack_object *root, struct proto_blocks *b,
    char *err, size_t errlen)
{
	const msgpack_object *m = proto_map_get(root, "blocks");

	proto_struct_init(&proto_blocks_desc, b);
	return m == NULL ? 0 : proto_struct_decode(m, &proto_blocks_desc, b, err, errlen);
}

/* See protocol.h. */
void proto_block_copy(struct proto_block *dst, const struct proto_block *src)
{
	proto_struct_copy(&proto_block_desc, dst, src);
}

/* See protocol.h. */
void proto_block_stack_copy(struct proto_block_stack *d, const struct proto_block_stack *s)
{
	proto_struct_copy(&proto_block_stack_desc, d, s);
}

/* See protocol.h. */
void proto_block_stack_free(struct proto_block_stack *s)
{
	proto_struct_free(&proto_block_stack_desc, s);
}

/* See protocol.h. */
void proto_block_free(struct proto_block *b)
{
	proto_struct_free(&proto_block_desc, b);
}

/* See protocol.h. */
void proto_blocks_free(struct proto_blocks *b)
{
	proto_struct_free(&proto_blocks_desc, b);
}

/* See parts.h. */
void proto_blocks_json(struct proto_json *j, const struct proto_blocks *b)
{
	proto_struct_json(j, "blocks", &proto_blocks_desc, b);
}
