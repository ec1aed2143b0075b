/*
 * block_wire.h - the UI-thread blocks part of the wire: blocks of the UI thread
 * and their sampled stacks ("blocks"); the stack shape is shared by ipc.h.
 * Its row in the parts table (parts.h) is defined in block.c.
 */
#ifndef HOOKSCOPE_PROTOCOL_BLOCK_WIRE_H
#define HOOKSCOPE_PROTOCOL_BLOCK_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_MAX_BLOCKS    16            /* blocks in one message: the most recent */
#define PROTO_BLOCK_STACKS  8             /* distinct stacks of one block, at most */
#define PROTO_BLOCK_FRAMES  32            /* frames of one stack, at most */

/* One frame of a symbolized stack. */
struct proto_block_frame {
	uint64_t addr;                    /* interrupted pc (first frame), else return address */
	char    *func;                    /* function name, "" when unknown */
	uint64_t off;                     /* addr - the function's first byte */
	char    *module;                  /* basename of the module, "" when none */
	char    *file;                    /* source file (debug info), "" when unknown: the daemon */
	uint32_t line;                    /* source line, 0 when unknown      fills both in */
	bool     pc;                      /* addr is an interrupted pc, not a return address */
};

/* One distinct stack of a block (same functions, innermost first). */
struct proto_block_stack {
	uint64_t samples;                 /* samples that had this stack */
	size_t   nframes;
	struct proto_block_frame *frames;
};

/* One message of the UI thread that ran longer than the threshold. */
struct proto_block {
	uint32_t id;                      /* agent-assigned, increasing */
	int32_t  tid;                     /* the UI thread */
	uint64_t start_ns;                /* message start, agent monotonic clock */
	uint64_t time_ms;                 /* the same as wall clock (frames only) */
	uint64_t dur_ns;                  /* the message's length (so far, while running) */
	bool     ended;                   /* false while the message still runs */
	uint64_t samples;                 /* stacks sampled */
	uint64_t lost;                    /* samples that could not be taken or kept */
	size_t   nstacks;                 /* most samples first */
	struct proto_block_stack *stacks;
};

/* Block detection state of a target and its most recent blocks. */
struct proto_blocks {
	uint64_t threshold_ns;            /* a message longer than this is a block */
	uint64_t sample_ns;               /* stack sampling interval during a block */
	int32_t  ui_tid;                  /* the UI thread now, 0 = not found */
	char    *ui;                      /* the selection: "main", a tid or a thread name */
	uint64_t count;                   /* blocks since start or reset */
	size_t   nblocks;                 /* newest first */
	struct proto_block *blocks;
};

/* Deep copy of one block into dst (dst's old contents are not freed). */
void proto_block_copy(struct proto_block *dst, const struct proto_block *src);
void proto_block_free(struct proto_block *b);
void proto_blocks_free(struct proto_blocks *b);

/* The field tables (block.c). */
struct proto_struct;
extern const struct proto_struct proto_blocks_desc, proto_block_desc, proto_block_stack_desc,
    proto_block_frame_desc;

#endif
