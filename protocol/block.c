/*
 * block.c - the "blocks" map, shared by the agent's "blocks" record and the
 * daemon's frames: the block detection settings in force, a count, and the
 * most recent blocks of the UI thread, each with its distinct symbolized
 * stacks and how many samples each had (doc/protocol.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* Pack one frame of a stack. */
static void block_pack_frame(msgpack_packer *pk, const struct proto_block_frame *f)
{
	msgpack_pack_map(pk, 6);
	proto_pack_kv_u64(pk, "addr", f->addr);
	proto_pack_kv_str(pk, "func", f->func ? f->func : "");
	proto_pack_kv_u64(pk, "off", f->off);
	proto_pack_kv_str(pk, "module", f->module ? f->module : "");
	proto_pack_kv_str(pk, "file", f->file ? f->file : "");
	proto_pack_kv_u64(pk, "line", f->line);
}

/* Pack one block with its stacks. */
static void block_pack_one(msgpack_packer *pk, const struct proto_block *b)
{
	msgpack_pack_map(pk, 9);
	proto_pack_kv_u64(pk, "id", b->id);
	proto_pack_kv_i64(pk, "tid", b->tid);
	proto_pack_kv_u64(pk, "start_ns", b->start_ns);
	proto_pack_kv_u64(pk, "time_ms", b->time_ms);
	proto_pack_kv_u64(pk, "dur_ns", b->dur_ns);
	proto_pack_kv_bool(pk, "ended", b->ended);
	proto_pack_kv_u64(pk, "samples", b->samples);
	proto_pack_kv_u64(pk, "lost", b->lost);
	proto_pack_str(pk, "stacks");
	msgpack_pack_array(pk, b->nstacks);
	for (size_t i = 0; i < b->nstacks; i++)
		proto_block_stack_pack(pk, &b->stacks[i]);
}

/* See protocol.h. */
void proto_block_stack_pack(msgpack_packer *pk, const struct proto_block_stack *s)
{
	msgpack_pack_map(pk, 2);
	proto_pack_kv_u64(pk, "samples", s->samples);
	proto_pack_str(pk, "frames");
	msgpack_pack_array(pk, s->nframes);
	for (size_t k = 0; k < s->nframes; k++)
		block_pack_frame(pk, &s->frames[k]);
}

/* See protocol.h. */
void proto_pack_blocks(msgpack_packer *pk, const struct proto_blocks *b)
{
	proto_pack_str(pk, "blocks");
	msgpack_pack_map(pk, 6);
	proto_pack_kv_u64(pk, "threshold_ns", b->threshold_ns);
	proto_pack_kv_u64(pk, "sample_ns", b->sample_ns);
	proto_pack_kv_i64(pk, "ui_tid", b->ui_tid);
	proto_pack_kv_str(pk, "ui", b->ui ? b->ui : "");
	proto_pack_kv_u64(pk, "count", b->count);
	proto_pack_str(pk, "list");
	msgpack_pack_array(pk, b->nblocks);
	for (size_t i = 0; i < b->nblocks; i++)
		block_pack_one(pk, &b->blocks[i]);
}

/* Decode one frame map. */
static int block_decode_frame(const msgpack_object *o, struct proto_block_frame *f,
    char *err, size_t errlen)
{
	uint64_t line = 0;

	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "stack frame must be a map");
		return -1;
	}
	if (proto_get_u64(o, "addr", true, &f->addr, err, errlen) < 0 ||
	    proto_get_str(o, "func", false, &f->func, err, errlen) < 0 ||
	    proto_get_u64(o, "off", false, &f->off, err, errlen) < 0 ||
	    proto_get_str(o, "module", false, &f->module, err, errlen) < 0 ||
	    proto_get_str(o, "file", false, &f->file, err, errlen) < 0 ||
	    proto_get_u64(o, "line", false, &line, err, errlen) < 0)
		return -1;
	if (line > UINT32_MAX) {
		snprintf(err, errlen, "stack frame has a bad line number");
		return -1;
	}
	f->line = (uint32_t)line;
	if (f->func == NULL)
		f->func = xstrdup("");
	if (f->module == NULL)
		f->module = xstrdup("");
	if (f->file == NULL)
		f->file = xstrdup("");
	return 0;
}

/* See protocol.h. */
int proto_block_stack_decode(const msgpack_object *o, struct proto_block_stack *s,
    char *err, size_t errlen)
{
	const msgpack_object_array *a;

	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "stack must be a map");
		return -1;
	}
	if (proto_get_u64(o, "samples", false, &s->samples, err, errlen) < 0 ||
	    proto_get_array_max(o, "frames", PROTO_BLOCK_FRAMES, &a, err, errlen) < 0)
		return -1;
	if (a == NULL)
		return 0;
	s->frames = xcalloc(a->size ? a->size : 1, sizeof *s->frames);
	for (uint32_t i = 0; i < a->size; i++) {
		s->nframes = i + 1;
		if (block_decode_frame(&a->ptr[i], &s->frames[i], err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* Decode one block map. */
static int block_decode_one(const msgpack_object *o, struct proto_block *b,
    char *err, size_t errlen)
{
	const msgpack_object_array *a;
	uint64_t id = 0;
	int64_t tid = 0;

	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "block must be a map");
		return -1;
	}
	if (proto_get_u64(o, "id", true, &id, err, errlen) < 0 ||
	    proto_get_i64(o, "tid", false, &tid, err, errlen) < 0 ||
	    proto_get_u64(o, "start_ns", true, &b->start_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "time_ms", false, &b->time_ms, err, errlen) < 0 ||
	    proto_get_u64(o, "dur_ns", true, &b->dur_ns, err, errlen) < 0 ||
	    proto_get_bool(o, "ended", false, &b->ended, err, errlen) < 0 ||
	    proto_get_u64(o, "samples", false, &b->samples, err, errlen) < 0 ||
	    proto_get_u64(o, "lost", false, &b->lost, err, errlen) < 0 ||
	    proto_get_array_max(o, "stacks", PROTO_BLOCK_STACKS, &a, err, errlen) < 0)
		return -1;
	if (id > UINT32_MAX || tid < 0 || tid > INT32_MAX) {
		snprintf(err, errlen, "block has a bad id or tid");
		return -1;
	}
	b->id = (uint32_t)id;
	b->tid = (int32_t)tid;
	if (a == NULL)
		return 0;
	b->stacks = xcalloc(a->size ? a->size : 1, sizeof *b->stacks);
	for (uint32_t i = 0; i < a->size; i++) {
		b->nstacks = i + 1;
		if (proto_block_stack_decode(&a->ptr[i], &b->stacks[i], err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* See protocol.h. */
int proto_decode_blocks(const msgpack_object *root, struct proto_blocks *b,
    char *err, size_t errlen)
{
	const msgpack_object *m = proto_map_get(root, "blocks");
	const msgpack_object_array *a;
	int64_t tid = 0;

	memset(b, 0, sizeof *b);
	if (m == NULL)
		return 0;
	if (m->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "field \"blocks\" must be a map");
		return -1;
	}
	if (proto_get_u64(m, "threshold_ns", false, &b->threshold_ns, err, errlen) < 0 ||
	    proto_get_u64(m, "sample_ns", false, &b->sample_ns, err, errlen) < 0 ||
	    proto_get_i64(m, "ui_tid", false, &tid, err, errlen) < 0 ||
	    proto_get_str(m, "ui", false, &b->ui, err, errlen) < 0 ||
	    proto_get_u64(m, "count", false, &b->count, err, errlen) < 0 ||
	    proto_get_array_max(m, "list", PROTO_MAX_BLOCKS, &a, err, errlen) < 0)
		return -1;
	if (tid < 0 || tid > INT32_MAX) {
		snprintf(err, errlen, "field \"ui_tid\" is not a thread id");
		return -1;
	}
	b->ui_tid = (int32_t)tid;
	if (b->ui == NULL)
		b->ui = xstrdup("");
	if (a == NULL)
		return 0;
	b->blocks = xcalloc(a->size ? a->size : 1, sizeof *b->blocks);
	for (uint32_t i = 0; i < a->size; i++) {
		b->nblocks = i + 1;
		if (block_decode_one(&a->ptr[i], &b->blocks[i], err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* See protocol.h. */
void proto_block_copy(struct proto_block *dst, const struct proto_block *src)
{
	*dst = *src;
	dst->stacks = xcalloc(src->nstacks ? src->nstacks : 1, sizeof *dst->stacks);
	for (size_t i = 0; i < src->nstacks; i++)
		proto_block_stack_copy(&dst->stacks[i], &src->stacks[i]);
}

/* See protocol.h. */
void proto_block_stack_copy(struct proto_block_stack *d, const struct proto_block_stack *s)
{
	*d = *s;
	d->frames = xcalloc(s->nframes ? s->nframes : 1, sizeof *d->frames);
	for (size_t k = 0; k < s->nframes; k++) {
		d->frames[k] = s->frames[k];
		d->frames[k].func = xstrdup(s->frames[k].func ? s->frames[k].func : "");
		d->frames[k].module = xstrdup(s->frames[k].module ? s->frames[k].module : "");
		d->frames[k].file = xstrdup(s->frames[k].file ? s->frames[k].file : "");
	}
}

/* See protocol.h. */
void proto_block_stack_free(struct proto_block_stack *s)
{
	for (size_t k = 0; k < s->nframes; k++) {
		free(s->frames[k].func);
		free(s->frames[k].module);
		free(s->frames[k].file);
	}
	free(s->frames);
	memset(s, 0, sizeof *s);
}

/* See protocol.h. */
void proto_block_free(struct proto_block *b)
{
	for (size_t i = 0; i < b->nstacks; i++)
		proto_block_stack_free(&b->stacks[i]);
	free(b->stacks);
	memset(b, 0, sizeof *b);
}

/* See protocol.h. */
void proto_blocks_free(struct proto_blocks *b)
{
	for (size_t i = 0; i < b->nblocks; i++)
		proto_block_free(&b->blocks[i]);
	free(b->blocks);
	free(b->ui);
	memset(b, 0, sizeof *b);
}
