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
	PF_ROW("pc", PF_BOOL, F, pc, PF_IFSET | PF_NOJSON),
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

/* See block_wire.h. */
void proto_block_copy(struct proto_block *dst, const struct proto_block *src)
{
	proto_struct_copy(&proto_block_desc, dst, src);
}

/* See block_wire.h. */
void proto_block_free(struct proto_block *b)
{
	proto_struct_free(&proto_block_desc, b);
}

/* See block_wire.h. */
void proto_blocks_free(struct proto_blocks *b)
{
	proto_struct_free(&proto_blocks_desc, b);
}

/* Its row in the parts table (parts.h). */
const struct proto_part proto_part_blocks = {
	PROTO_PART_PLACE(blocks), .key = "blocks", .ag_time = true, .desc = &proto_blocks_desc,
};
