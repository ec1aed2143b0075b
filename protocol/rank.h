/*
 * rank.h - the sort keys of the functions table: their names, their values
 * and the one comparison the daemon's ranking and the TUI's local re-sort
 * both use, so a row keeps its place when the TUI re-sorts a frame.
 *
 * Numeric keys rank high values first, "name" alphabetically with unnamed
 * functions last; every tie goes to the lower address, which is unique in
 * a session, so the order is total and stable from frame to frame.
 */
#ifndef HOOKSCOPE_RANK_H
#define HOOKSCOPE_RANK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct proto_func;

/* In the order the keys are listed to people. */
enum proto_rank_key {
	PROTO_RANK_CALLS, PROTO_RANK_RATE, PROTO_RANK_TOTAL, PROTO_RANK_SELF,
	PROTO_RANK_AVG, PROTO_RANK_MAX, PROTO_RANK_SLOW, PROTO_RANK_NAME,
	PROTO_RANK_COUNT
};

/* What a comparison looks at: a daemon function or a frame row. */
struct proto_rank_row {
	const char *name;                 /* NULL: unnamed */
	uint64_t addr;
	uint64_t calls, total_ns, running_ns, self_ns, avg_ns, max_ns, slow;
	double   rate;                    /* calls/s */
};

int  proto_rank_parse(const char *name);          /* -1 if unknown */
const char *proto_rank_name(int key);             /* "?" if unknown */
const char *proto_rank_names(void);               /* "calls, rate, ..." */
/* Returned plus running time, saturated: what "total" ranks, so a function
 * stuck in a call rises while it is stuck. */
uint64_t proto_rank_total(const struct proto_rank_row *r);
/* < 0 when a ranks before b under key (an unknown key ranks as total). */
int  proto_rank_cmp(int key, const struct proto_rank_row *a, const struct proto_rank_row *b);
/* What a key reads of a row, taken once per row (proto_rank_val): the
 * comparison of a ranking over many rows (proto_rank_cmp is built on it).
 * A numeric key sets u or d (the other stays 0); name sets byname. */
struct proto_rank_val {
	uint64_t    u;
	double      d;
	bool        byname;
	const char *name;                 /* NULL = unnamed */
	uint64_t    addr;                 /* every tie */
};
void proto_rank_val(int key, const struct proto_rank_row *r, struct proto_rank_val *v);

/* < 0 when a ranks before b (both taken under the same key). */
static inline int
proto_rank_cmp_val(const struct proto_rank_val *a, const struct proto_rank_val *b)
{
	int c = (a->u < b->u) - (a->u > b->u);

	if (c == 0)
		c = (a->d < b->d) - (a->d > b->d);
	if (c == 0 && a->byname) {
		if (a->name == NULL || b->name == NULL)
			c = (a->name == NULL) - (b->name == NULL);
		else
			c = strcmp(a->name, b->name);
	}
	return c ? c : (a->addr > b->addr) - (a->addr < b->addr);
}

/* A frame row as the daemon ranked it: a name that is the row's address in
 * hex ("0x..."), which the daemon sends for an unnamed function, is unnamed. */
void proto_rank_row_of_func(struct proto_rank_row *r, const struct proto_func *f);

#endif
