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

#include <stdint.h>

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
/* A frame row as the daemon ranked it: a name that is the row's address in
 * hex ("0x..."), which the daemon sends for an unnamed function, is unnamed. */
void proto_rank_row_of_func(struct proto_rank_row *r, const struct proto_func *f);

#endif
