/*
 * parts.h - the collectors' wire parts: one line each in PROTO_PARTS, from
 * which protocol.h derives the agent record type, the member of struct
 * proto_frame and of struct proto_agent_rec, and the table proto_parts[].
 * Each part's wire structs live in its own header, NAME_wire.h (included here), and its
 * row (name, key, field table) in its own .c file.
 *
 * A part's codecs are its field table's (field.h): a part is the map under
 * its key, in a frame and in its agent record alike.  The daemon's and the
 * TUI's collector tables refer to a row (proto_part_find("power")).
 */
#ifndef HOOKSCOPE_PROTOCOL_PARTS_H
#define HOOKSCOPE_PROTOCOL_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>

#include "field.h"
#include "json.h"

#include "fps_wire.h"
#include "threads_wire.h"
#include "block_wire.h"
#include "ipc_wire.h"
#include "power_wire.h"
#include "issue_wire.h"
#include "memory_wire.h"
#include "network_wire.h"
#include "startup_wire.h"

/*
 * X(name, NAME, wire, type, member), in frame order: the collector's name
 * (its row is proto_part_NAME, in its own file), PROTO_AG_NAME and the
 * wire value of its agent record (never reuse or change one), the struct
 * its map decodes into, and that struct's member in frames and records.
 */
#define PROTO_PARTS(X) \
	X(fps,     FPS,     9,  struct proto_fps,     fps) \
	X(threads, THREADS, 11, struct proto_threads, thr) \
	X(blocks,  BLOCKS,  12, struct proto_blocks,  blocks) \
	X(ipc,     IPC,     14, struct proto_ipc,     ipc) \
	X(power,   POWER,   15, struct proto_power,   power) \
	X(issues,  ISSUES,  20, struct proto_issues,  issues) \
	X(memory,  MEMORY,  21, struct proto_memory,  memory) \
	X(network, NETWORK, 22, struct proto_network, net) \
	X(startup, STARTUP, 23, struct proto_startup, startup)

struct proto_frame;
struct proto_agent_rec;

struct proto_part {
	const char *name;                 /* collector, and its agent record's "t" */
	const char *key;                  /* its map's key in a frame and in its agent record */
	uint8_t     ag_type;              /* enum proto_agent_type: the record that carries it */
	bool        ag_time;              /* that record carries time_ns beside the map */
	size_t      frame_off;            /* its member of struct proto_frame */
	size_t      rec_off;              /* its member of struct proto_agent_rec */
	const struct proto_struct *desc;  /* its field table (the map under key) */
};

/* The start of a part's row in its own file: what its PROTO_PARTS line says. */
#define PROTO_PART_PLACE(nm) \
	.name = #nm, .ag_type = PROTO_PART_AG_##nm, \
	.frame_off = PROTO_PART_FRAME_##nm, .rec_off = PROTO_PART_REC_##nm

#define PROTO_PART_DECL(nm, NM, wire, T, mem) extern const struct proto_part proto_part_##nm;
PROTO_PARTS(PROTO_PART_DECL)
#undef PROTO_PART_DECL

/* The rows, in frame order. */
extern const struct proto_part *const proto_parts[];
extern const size_t proto_nparts;

/* The row of collector name or of agent record type; NULL when none. */
const struct proto_part *proto_part_find(const char *name);
const struct proto_part *proto_part_of_record(int type);

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
static inline const void *proto_part_in_rec_c(const struct proto_part *p,
    const struct proto_agent_rec *r)
{
	return (const char *)r + p->rec_off;
}

/* Its codecs; part points at the member (proto_part_in_frame/_in_rec). */
/* Pack the key and the map. */
void proto_part_pack(const struct proto_part *p, msgpack_packer *pk, const void *part);
/* Decode the optional map under the key of root into part (initialised
 * first; left empty when absent).  0, or -1 with err; on error part holds
 * what was decoded so far (free it). */
int  proto_part_decode(const struct proto_part *p, const msgpack_object *root, void *part,
    char *err, size_t errlen);
/* Deep copy (dst's old contents are not freed). */
void proto_part_copy(const struct proto_part *p, void *dst, const void *src);
void proto_part_free(const struct proto_part *p, void *part);
/* JSON: the key and the object. */
void proto_part_json(const struct proto_part *p, struct proto_json *j, const void *part);

#endif
