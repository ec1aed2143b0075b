/*
 * rank.c - the sort keys (see rank.h): one table of names and the field
 * each ranks, read by one comparison.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "protocol.h"
#include "rank.h"

enum rank_kind { RANK_U64, RANK_F64, RANK_TOTAL, RANK_NAME };

static const struct rank_def {
	const char    *name;
	enum rank_kind kind;
	size_t         off;               /* of the field, RANK_U64 and RANK_F64 */
} rank_defs[PROTO_RANK_COUNT] = {
	[PROTO_RANK_CALLS] = { "calls", RANK_U64, offsetof(struct proto_rank_row, calls) },
	[PROTO_RANK_RATE]  = { "rate",  RANK_F64, offsetof(struct proto_rank_row, rate) },
	[PROTO_RANK_TOTAL] = { "total", RANK_TOTAL, 0 },
	[PROTO_RANK_SELF]  = { "self",  RANK_U64, offsetof(struct proto_rank_row, self_ns) },
	[PROTO_RANK_AVG]   = { "avg",   RANK_U64, offsetof(struct proto_rank_row, avg_ns) },
	[PROTO_RANK_MAX]   = { "max",   RANK_U64, offsetof(struct proto_rank_row, max_ns) },
	[PROTO_RANK_SLOW]  = { "slow",  RANK_U64, offsetof(struct proto_rank_row, slow) },
	[PROTO_RANK_NAME]  = { "name",  RANK_NAME, 0 },
};

/* See rank.h. */
int
proto_rank_parse(const char *name)
{
	for (int k = 0; k < PROTO_RANK_COUNT && name != NULL; k++)
		if (strcmp(rank_defs[k].name, name) == 0)
			return k;
	return -1;
}

/* See rank.h. */
const char *
proto_rank_name(int key)
{
	return key >= 0 && key < PROTO_RANK_COUNT ? rank_defs[key].name : "?";
}

/* See rank.h: built once from the table. */
const char *
proto_rank_names(void)
{
	static char buf[128];
	size_t off = 0;

	if (buf[0] != '\0')
		return buf;
	for (int k = 0; k < PROTO_RANK_COUNT; k++)
		off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s",
		    k ? ", " : "", rank_defs[k].name);
	return buf;
}

/* See rank.h. */
uint64_t
proto_rank_total(const struct proto_rank_row *r)
{
	uint64_t t = r->total_ns + r->running_ns;

	return t < r->total_ns ? UINT64_MAX : t;
}

/* The key's table row (an unknown key ranks as total). */
static const struct rank_def *
rank_def(int key)
{
	return &rank_defs[key >= 0 && key < PROTO_RANK_COUNT ? key : PROTO_RANK_TOTAL];
}

/* See rank.h. */
void
proto_rank_val(int key, const struct proto_rank_row *r, struct proto_rank_val *v)
{
	const struct rank_def *d = rank_def(key);

	*v = (struct proto_rank_val){ .addr = r->addr };
	switch (d->kind) {
	case RANK_U64:
		memcpy(&v->u, (const char *)r + d->off, sizeof v->u);
		break;
	case RANK_F64:
		memcpy(&v->d, (const char *)r + d->off, sizeof v->d);
		break;
	case RANK_TOTAL:
		v->u = proto_rank_total(r);
		break;
	case RANK_NAME:
		v->byname = true;
		v->name = r->name;
		break;
	}
}

/* See rank.h. */
int
proto_rank_cmp(int key, const struct proto_rank_row *a, const struct proto_rank_row *b)
{
	struct proto_rank_val va, vb;

	proto_rank_val(key, a, &va);
	proto_rank_val(key, b, &vb);
	return proto_rank_cmp_val(&va, &vb);
}

/* See rank.h. */
void
proto_rank_row_of_func(struct proto_rank_row *r, const struct proto_func *f)
{
	char hex[24];

	snprintf(hex, sizeof hex, "0x%" PRIx64, f->addr);
	*r = (struct proto_rank_row){
		.name = f->name != NULL && strcmp(f->name, hex) != 0 ? f->name : NULL,
		.addr = f->addr, .calls = f->calls, .total_ns = f->total_ns,
		.running_ns = f->running_ns, .self_ns = f->self_ns, .avg_ns = f->avg_ns,
		.max_ns = f->max_ns, .slow = f->slow, .rate = f->calls_per_s,
	};
}
