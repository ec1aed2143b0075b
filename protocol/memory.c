/*
 * memory.c - the "memory" map, shared by the agent's "memory" record and
 * the daemon's frames: the heap in use and its counters, the allocating
 * stacks (sites) with what each holds and the biggest live blocks
 * (doc/protocol.md, "Memory").
 */
#include <stdio.h>

#include "protocol.h"
#include "field.h"
#include "parts.h"

/* Rates are counts over time: never negative (nor NaN). */
static int mem_site_check(void *obj, char *err, size_t errlen)
{
	const struct proto_mem_site *s = obj;

	if (!(s->alloc_rate >= 0)) {
		snprintf(err, errlen, "field \"alloc_rate\" must not be negative");
		return -1;
	}
	return 0;
}

#define S struct proto_mem_site
static const struct proto_field mem_site_fields[] = {
	PF_ROW("id", PF_U32, S, id, PF_REQUIRED),
	PF_ROW("bytes", PF_U64, S, bytes, 0),
	PF_ROW("blocks", PF_U64, S, blocks, 0),
	PF_ROW("alloc_bytes", PF_U64, S, alloc_bytes, 0),
	PF_ROW("allocs", PF_U64, S, allocs, 0),
	PF_ROW("frees", PF_U64, S, frees, 0),
	PF_F64_ROW("alloc_rate", S, alloc_rate, 0),
	PF_F64_ROW("growth", S, growth, 0),
	PF_ROW("leak", PF_BOOL, S, leak, PF_IFSET),
	PF_OBJ_ROW("stack", S, stack, &proto_block_stack_desc),
};
#undef S
const struct proto_struct proto_mem_site_desc =
	PF_STRUCT_CHECK("an allocating site", struct proto_mem_site, mem_site_fields, mem_site_check);

#define B struct proto_mem_block
static const struct proto_field mem_block_fields[] = {
	PF_ROW("addr", PF_U64, B, addr, 0),
	PF_ROW("size", PF_U64, B, size, 0),
	PF_ROW("site", PF_U32, B, site, 0),
};
#undef B
const struct proto_struct proto_mem_block_desc =
	PF_STRUCT("a heap block", struct proto_mem_block, mem_block_fields);

#define L struct proto_mem_lost
static const struct proto_field mem_lost_fields[] = {
	PF_ROW("site", PF_U32, L, site, 0),
	PF_ROW("bytes", PF_U64, L, bytes, 0),
	PF_ROW("blocks", PF_U64, L, blocks, 0),
	PF_ROW("indirect_bytes", PF_U64, L, indirect_bytes, 0),
	PF_ROW("indirect_blocks", PF_U64, L, indirect_blocks, 0),
	PF_OBJ_ROW("stack", L, stack, &proto_block_stack_desc),
};
#undef L
static const struct proto_struct proto_mem_lost_desc =
	PF_STRUCT("a group of lost blocks", struct proto_mem_lost, mem_lost_fields);

#define L struct proto_mem_leaks
static const struct proto_field mem_leaks_fields[] = {
	PF_ROW("seq", PF_U32, L, seq, 0),
	PF_ROW("error", PF_STR, L, error, 0),
	PF_ROW("note", PF_STR, L, note, 0),
	PF_ROW("time_ns", PF_U64, L, time_ns, 0),
	PF_ROW("stopped_ns", PF_U64, L, stopped_ns, 0),
	PF_ROW("threads", PF_U32, L, threads, 0),
	PF_ROW("root_bytes", PF_U64, L, root_bytes, 0),
	PF_ROW("heap_bytes", PF_U64, L, heap_bytes, 0),
	PF_ROW("lost_bytes", PF_U64, L, lost_bytes, 0),
	PF_ROW("lost_blocks", PF_U64, L, lost_blocks, 0),
	PF_ROW("indirect_bytes", PF_U64, L, indirect_bytes, 0),
	PF_ROW("indirect_blocks", PF_U64, L, indirect_blocks, 0),
	PF_ROW("possible_bytes", PF_U64, L, possible_bytes, 0),
	PF_ROW("possible_blocks", PF_U64, L, possible_blocks, 0),
	PF_ROW("reachable_bytes", PF_U64, L, reachable_bytes, 0),
	PF_ROW("reachable_blocks", PF_U64, L, reachable_blocks, 0),
	PF_ARR_ROW("lost", PF_OBJS, L, lost, nlost, PROTO_MAX_MEM_LOST, &proto_mem_lost_desc),
};
#undef L
const struct proto_struct proto_mem_leaks_desc =
	PF_STRUCT("field \"leaks\"", struct proto_mem_leaks, mem_leaks_fields);

#define M struct proto_memory
static const struct proto_field memory_fields[] = {
	PF_ROW("mode", PF_STR, M, mode, 0),
	PF_ROW("sample_bytes", PF_U64, M, sample_bytes, 0),
	PF_ROW("leak_window_ns", PF_U64, M, leak_window_ns, 0),
	PF_ROW("heap_bytes", PF_U64, M, heap_bytes, 0),
	PF_ROW("heap_blocks", PF_U64, M, heap_blocks, 0),
	PF_ROW("alloc_bytes", PF_U64, M, alloc_bytes, 0),
	PF_ROW("allocs", PF_U64, M, allocs, 0),
	PF_ROW("frees", PF_U64, M, frees, 0),
	PF_ROW("mmap_bytes", PF_U64, M, mmap_bytes, 0),
	PF_ROW("mmap_regions", PF_U64, M, mmap_regions, 0),
	PF_ROW("untracked", PF_U64, M, untracked, 0),
	PF_ROW("unknown_frees", PF_U64, M, unknown_frees, 0),
	PF_ROW("exited", PF_BOOL, M, exited, PF_IFSET),
	PF_F64_ROW("allocs_per_s", M, allocs_per_s, 0),
	PF_ARR_ROW("sites", PF_OBJS, M, sites, nsites, PROTO_MAX_MEM_SITES, &proto_mem_site_desc),
	PF_ARR_ROW("big", PF_OBJS, M, big, nbig, PROTO_MAX_MEM_BLOCKS, &proto_mem_block_desc),
	PF_ARR_ROW("history_kib", PF_U32S, M, history, nhistory, PROTO_MAX_MEM_HISTORY, NULL),
	{ .key = "leaks", .type = PF_OBJ, .flags = PF_IFSET, .off = offsetof(M, leaks),
	  .sub = &proto_mem_leaks_desc },
};
#undef M
const struct proto_struct proto_memory_desc =
	PF_STRUCT("field \"memory\"", struct proto_memory, memory_fields);

/* See memory_wire.h. */
void proto_mem_site_copy(struct proto_mem_site *d, const struct proto_mem_site *s)
{
	proto_struct_copy(&proto_mem_site_desc, d, s);
}

/* See memory_wire.h. */
void proto_mem_site_free(struct proto_mem_site *s)
{
	proto_struct_free(&proto_mem_site_desc, s);
}

/* See memory_wire.h. */
void proto_memory_free(struct proto_memory *m)
{
	proto_struct_free(&proto_memory_desc, m);
}

/* Its row in the parts table (parts.h). */
const struct proto_part proto_part_memory = {
	PROTO_PART_PLACE(memory), .key = "memory", .ag_time = true, .desc = &proto_memory_desc,
};
