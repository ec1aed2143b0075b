/*
 * parts.h - one row per collector's wire part: the key its map has in a
 * frame and in its agent record, where it lives in struct proto_frame and
 * struct proto_agent_rec, and its codec.  The daemon's and the TUI's
 * collector tables refer to a row (proto_part_find("power")) instead of
 * naming the codec functions themselves.
 */
#ifndef HOOKSCOPE_PROTOCOL_PARTS_H
#define HOOKSCOPE_PROTOCOL_PARTS_H

#include <stddef.h>
#include "protocol.h"
#include "field.h"
#include "json.h"

struct proto_part {
	const char *name;                 /* collector: "fps", "threads", "blocks", "ipc", "power" */
	const char *key;                  /* its map's key in a frame and in its agent record */
	enum proto_agent_type ag_type;    /* the agent record that carries it */
	bool        ag_time;              /* that record carries time_ns beside the map */
	size_t      frame_off;            /* its member of struct proto_frame */
	size_t      rec_off;              /* its member of struct proto_agent_rec */
	const struct proto_struct *desc;  /* its field table (the map under key) */
	/* Each takes a pointer to the member (frame_off or rec_off). */
	void (*pack)(msgpack_packer *pk, const void *part);              /* key and map */
	int  (*decode)(const msgpack_object *root, void *part, char *err, size_t errlen);
	void (*copy)(void *dst, const void *src);                        /* deep; dst not freed */
	void (*free)(void *part);
	void (*json)(struct proto_json *j, const void *part);            /* key and object */
};

/* The rows, in frame order. */
extern const struct proto_part proto_parts[];
extern const size_t proto_nparts;

/* The row of collector name or of agent record type; NULL when none. */
const struct proto_part *proto_part_find(const char *name);
const struct proto_part *proto_part_of_record(enum proto_agent_type type);

/* The part's member inside a frame or an agent record. */
static inline void *proto_part_in_frame(const struct proto_part *p, struct proto_frame *f)
{
	return (char *)f + p->frame_off;
}
static inline const void *proto_part_in_frame_c(const struct proto_part *p, const struct proto_frame *f)
{
	return (const char *)f + p->frame_off;
}
static inline void *proto_part_in_rec(const struct proto_part *p, struct proto_agent_rec *r)
{
	return (char *)r + p->rec_off;
}

/* JSON of a part under its key (fps.c, threads.c, block.c, ipc.c, power.c). */
void proto_fps_json(struct proto_json *j, const struct proto_fps *f);
void proto_threads_json(struct proto_json *j, const struct proto_threads *t);
void proto_blocks_json(struct proto_json *j, const struct proto_blocks *b);
void proto_ipc_json(struct proto_json *j, const struct proto_ipc *p);
void proto_power_json(struct proto_json *j, const struct proto_power *p);

/* The field tables of the described wire structs. */
extern const struct proto_struct proto_power_desc, proto_pwr_res_desc, proto_pwr_cat_desc;
extern const struct proto_struct proto_fps_desc, proto_fps_stream_desc, proto_fps_worst_desc;
extern const struct proto_struct proto_threads_desc, proto_thr_thread_desc, proto_thr_site_desc,
    proto_thr_pool_desc, proto_thr_frame_desc;
extern const struct proto_struct proto_blocks_desc, proto_block_desc, proto_block_stack_desc,
    proto_block_frame_desc;
extern const struct proto_struct proto_ipc_desc, proto_ipc_ep_desc, proto_ipc_slow_desc;
extern const struct proto_struct proto_frame_desc, proto_func_desc, proto_target_desc;
extern const struct proto_struct proto_ag_sym_desc, proto_ag_func_desc;

#endif
