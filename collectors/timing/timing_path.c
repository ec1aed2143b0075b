/*
 * timing_path.c - the call paths of every thread merged into one
 * calling-context tree (reporter thread).  A node of the merged tree is a
 * path: a function reached through its parent's path; its id is its place
 * in the tree (append-only, a parent always before its children), which is
 * what the funcs record sends (protocol.h, struct proto_ag_path) and the
 * daemon keys its tree by.  Figures work as the functions' do
 * (timing_report.c): retired threads folded in once, live ones summed at
 * each report, a baseline at a reset, only changed nodes sent.
 */
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "timing_int.h"

#define LOAD(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define ACQUIRE(p)   __atomic_load_n((p), __ATOMIC_ACQUIRE)

struct tm_pfig {
	uint64_t calls, incl, self;
};

/* One path over all threads. */
struct tm_pagg {
	uintptr_t      fn;
	uint32_t       parent;         /* id + 1 of the parent path; 0: outermost */
	bool           told;           /* sent once: the daemon knows the node */
	struct tm_pfig retired, cur, base, sent;
};

static struct tm_pagg *tm_pa;
static size_t tm_npa, tm_pa_cap;
static uint32_t *tm_pa_index;     /* open addressing: id + 1, 0 = free */
static size_t tm_pa_slots;
static uint64_t tm_pdrop_retired, tm_pdrop_now, tm_pdrop_base;
static uint64_t tm_pdrop_merge;   /* thread paths the merged tree had no room for */
static uint32_t tm_pgen = 1;      /* the merged tree's generation (tm_block.pgen) */
static struct proto_ag_path *tm_path_buf;

/* The high half of the product: every bit of fn and parent reaches it (a
 * function called from many places must not make one long probe run). */
static size_t tm_pa_hash(uint32_t parent, uintptr_t fn)
{
	return (size_t)((((uint64_t)fn + (uint64_t)parent * 0x9E3779B97F4A7C15ull) *
	    0xC2B2AE3D27D4EB4Full) >> 32);
}

static void tm_pa_grow(void)
{
	size_t slots = tm_pa_slots ? tm_pa_slots * 2 : 4096;

	free(tm_pa_index);
	tm_pa_index = xcalloc(slots, sizeof *tm_pa_index);
	tm_pa_slots = slots;
	for (size_t k = 0; k < tm_npa; k++) {
		size_t i = tm_pa_hash(tm_pa[k].parent, tm_pa[k].fn) & (slots - 1);

		while (tm_pa_index[i] != 0)
			i = (i + 1) & (slots - 1);
		tm_pa_index[i] = (uint32_t)(k + 1);
	}
}

/* The id + 1 of path (parent, fn), added if new; 0 when the tree is full. */
static uint32_t tm_pa_get(uint32_t parent, uintptr_t fn)
{
	size_t i;

	if ((tm_npa + 1) * 2 > tm_pa_slots)
		tm_pa_grow();
	for (i = tm_pa_hash(parent, fn) & (tm_pa_slots - 1); tm_pa_index[i] != 0;
	    i = (i + 1) & (tm_pa_slots - 1)) {
		const struct tm_pagg *a = &tm_pa[tm_pa_index[i] - 1];

		if (a->fn == fn && a->parent == parent)
			return tm_pa_index[i];
	}
	if (tm_npa == TM_PATHS_MERGED)
		return 0;
	if (tm_npa == tm_pa_cap) {
		tm_pa_cap = tm_pa_cap ? tm_pa_cap * 2 : 1024;
		tm_pa = xrealloc(tm_pa, tm_pa_cap * sizeof *tm_pa);
	}
	memset(&tm_pa[tm_npa], 0, sizeof tm_pa[0]);
	tm_pa[tm_npa].fn = fn;
	tm_pa[tm_npa].parent = parent;
	tm_pa_index[i] = (uint32_t)++tm_npa;
	return tm_pa_index[i];
}

/* b's nodes' merged ids by slot, kept from walk to walk: a published node
 * never changes its parent or function, so it is looked up in the merged
 * tree once (the lookups' probes were most of a report's cost on a thread
 * with thousands of paths).  A new tree (tm_path_forget) starts them over. */
static uint32_t *tm_path_ids(struct tm_block *b)
{
	if (b->pgen != tm_pgen)
		memset(b->pids, 0, sizeof b->pids);
	b->pgen = tm_pgen;
	return b->pids;
}

/* Add b's nodes to the figure set at offset fig of each path.  A node
 * whose parent is not published yet waits for the next walk (so do its
 * children: their parent is then unknown too). */
static void tm_path_walk(struct tm_block *b, size_t fig)
{
	uint32_t n = tm_block_npaths(b), *ids = tm_path_ids(b);

	for (uint32_t k = 0; k < n; k++) {
		struct tm_node *x = tm_block_node(b, k);
		uint32_t *id, parent;
		struct tm_pfig *f;

		if (x == NULL)
			continue;
		id = &ids[x - b->nodes];
		if (*id == 0) {
			parent = LOAD(&x->parent);
			if (parent > TM_PSLOTS || (parent != 0 && ids[parent - 1] == 0))
				continue;
			*id = tm_pa_get(parent == 0 ? 0 : ids[parent - 1], ACQUIRE(&x->fn));
			if (*id == 0) {
				tm_pdrop_merge += LOAD(&x->calls);
				continue;
			}
		}
		f = (struct tm_pfig *)((char *)&tm_pa[*id - 1] + fig);
		f->calls += LOAD(&x->calls);
		f->incl += LOAD(&x->incl);
		f->self += LOAD(&x->self);
	}
}

/* See timing_int.h. */
void tm_path_fold(struct tm_block *b)
{
	tm_path_walk(b, offsetof(struct tm_pagg, retired));
	tm_pdrop_retired += LOAD(&b->paths_dropped);
}

/* Sum the retired and live figures of every path. */
static void tm_path_harvest(void)
{
	uint64_t dropped = tm_pdrop_retired;

	for (size_t k = 0; k < tm_npa; k++)
		tm_pa[k].cur = tm_pa[k].retired;
	tm_pdrop_merge = 0;
	/* A thread that died since the last retirement is still listed, and
	 * counted here until it is folded into the retired figures. */
	for (struct tm_block *b = ACQUIRE(&tm_head); b != NULL; b = b->next) {
		tm_path_walk(b, offsetof(struct tm_pagg, cur));
		dropped += LOAD(&b->paths_dropped);
	}
	tm_pdrop_now = dropped + tm_pdrop_merge;
}

/* See timing_int.h. */
void tm_path_reset(void)
{
	tm_path_harvest();
	for (size_t k = 0; k < tm_npa; k++) {
		tm_pa[k].base = tm_pa[k].cur;
		memset(&tm_pa[k].sent, 0, sizeof tm_pa[k].sent);
	}
	tm_pdrop_base = tm_pdrop_now;
}

/* The changed paths (all of them with all) from *next on, into rec, at
 * most max; *next moves past them.  Figures in ns, since the reset. */
static size_t tm_path_fill(struct proto_agent_rec *rec, size_t *next, size_t max, bool all)
{
	size_t k;

	rec->paths = tm_path_buf;
	rec->npaths = 0;
	for (k = *next; k < tm_npa && rec->npaths < max; k++) {
		struct tm_pagg *a = &tm_pa[k];
		struct tm_pfig now = {
			.calls = a->cur.calls - a->base.calls,
			.incl = a->cur.incl - a->base.incl,
			.self = a->cur.self - a->base.self,
		};

		/* A new node goes once even with nothing returned yet (a
		 * running main): its children name it as their parent. */
		if (!all && a->told && memcmp(&now, &a->sent, sizeof now) == 0)
			continue;
		tm_path_buf[rec->npaths++] = (struct proto_ag_path){
			.id = (uint32_t)k, .parent = a->parent, .addr = a->fn, .calls = now.calls,
			.incl_ns = (uint64_t)((double)now.incl * tm_ns_per_tick + 0.5),
			.self_ns = (uint64_t)((double)now.self * tm_ns_per_tick + 0.5),
		};
		a->sent = now;
		a->told = true;
	}
	*next = k;
	return rec->npaths;
}

/* See timing_int.h. */
void tm_path_encode(msgpack_sbuffer *sb, struct proto_agent_rec *last, bool all)
{
	size_t next = 0;

	if (tm_path_buf == NULL)
		tm_path_buf = xcalloc(TM_PATH_REC_ITEMS, sizeof *tm_path_buf);
	tm_path_harvest();
	last->paths_dropped = tm_pdrop_now - tm_pdrop_base;
	last->paths_off = !tm_paths_on();
	/* Every record but the last holds paths only. */
	for (;;) {
		tm_path_fill(last, &next, TM_PATH_REC_ITEMS, all);
		if (next >= tm_npa)
			return;
		if (last->npaths > 0) {
			struct proto_agent_rec r = *last;

			r.nfuncs = 0;
			proto_agent_encode(sb, &r);
		}
	}
}

/* See timing_int.h. */
void tm_path_forget(void)
{
	free(tm_pa);
	free(tm_pa_index);
	tm_pa = NULL;
	tm_pa_index = NULL;
	tm_npa = tm_pa_cap = tm_pa_slots = 0;
	tm_pgen++;
	tm_pdrop_retired = tm_pdrop_now = tm_pdrop_base = tm_pdrop_merge = 0;
}
