/*
 * memory.c - the memory state of a session: each agent "memory" record
 * carries the heap's totals and the sites whose figures moved (cumulative:
 * they replace the last ones; a site's stack comes with its first figures
 * and is kept).  Once a second the daemon samples the heap in use (the
 * sparkline), each site's allocation rate, and each site's bytes in use
 * into a ring spanning the leak window: a site whose bytes in use never
 * fell and rose at least every other step over the whole window is a
 * suspected leak ("memory-leak" issue); one that grew and shrank is not.
 * Frames carry the totals and a view of the sites: the top ones by bytes
 * in use, by allocation rate and by growth, and every suspected leak.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon_collector.h"
#include "report.h"
#include "issue.h"
#include "memory_state.h"

#define SEC_NS 1000000000ull

extern const struct daemon_collector daemon_collector_memory;

/* See memory.h. */
struct mem_dstate *daemon_memory_of(struct daemon_session *s)
{
	return daemon_session_state(s, &daemon_collector_memory);
}

/* The ring's step: the window in MEM_RING - 1 steps, at least a second. */
static uint64_t mem_step_ns(const struct mem_dstate *d)
{
	uint64_t w = d->m.leak_window_ns ? d->m.leak_window_ns : 30 * SEC_NS;
	uint64_t step = w / (MEM_RING - 1);

	return step < SEC_NS ? SEC_NS : step;
}

/* Samples that span the window. */
static uint32_t mem_ring_need(const struct mem_dstate *d)
{
	uint64_t w = d->m.leak_window_ns ? d->m.leak_window_ns : 30 * SEC_NS;
	uint64_t n = w / mem_step_ns(d) + 1;

	return n > MEM_RING ? MEM_RING : (uint32_t)n;
}

/* See memory.h. */
bool daemon_memory_leaking(const struct mem_dstate *d, const struct mem_dsite *x)
{
	uint32_t need = mem_ring_need(d), rises = 0;
	uint64_t prev = 0;

	if (x->nring < need)
		return false;
	for (uint32_t k = 0; k < need; k++) {
		uint64_t v = x->ring[(x->nring - need + k) % MEM_RING];

		if (k > 0 && v < prev)
			return false;             /* it shrank: freed, not leaked */
		if (k > 0 && v > prev)
			rises++;
		prev = v;
	}
	return rises * 2 >= need - 1 && prev > x->ring[(x->nring - need) % MEM_RING];
}

/* Bytes in use gained per second over the ring's span. */
static double mem_growth(const struct mem_dstate *d, const struct mem_dsite *x)
{
	uint32_t need = mem_ring_need(d), have = x->nring < need ? x->nring : need;
	uint64_t first, last;

	if (have < 2)
		return 0;
	first = x->ring[(x->nring - have) % MEM_RING];
	last = x->ring[(x->nring - 1) % MEM_RING];
	return ((double)last - (double)first) / ((double)(have - 1) * (double)d->step_len_ns / 1e9);
}

/* Keep a record. */
static void mem_record(struct daemon_session *s, const struct proto_agent_rec *r, uint64_t now_ns)
{
	struct mem_dstate *d = daemon_memory_of(s);
	const struct proto_memory *in = &r->memory;
	struct proto_memory *m = &d->m;

	(void)now_ns;
	free(m->mode);
	m->mode = xstrdup(in->mode ? in->mode : "");
	m->sample_bytes = in->sample_bytes;
	m->leak_window_ns = in->leak_window_ns;
	m->heap_bytes = in->heap_bytes;
	m->heap_blocks = in->heap_blocks;
	m->alloc_bytes = in->alloc_bytes;
	m->allocs = in->allocs;
	m->frees = in->frees;
	m->mmap_bytes = in->mmap_bytes;
	m->mmap_regions = in->mmap_regions;
	m->untracked = in->untracked;
	m->unknown_frees = in->unknown_frees;
	if (in->leaks.seq != 0) {                 /* a new scan: its groups get their sites' stacks */
		proto_struct_free(&proto_mem_leaks_desc, &m->leaks);
		proto_struct_copy(&proto_mem_leaks_desc, &m->leaks, &in->leaks);
		d->leaks_stacks = false;
	}
	if (in->nbig > 0 || in->heap_blocks == 0) {
		free(m->big);
		m->nbig = in->nbig;
		m->big = xcalloc(in->nbig ? in->nbig : 1, sizeof *m->big);
		memcpy(m->big, in->big, in->nbig * sizeof *m->big);
	}
	for (size_t i = 0; i < in->nsites; i++) {
		const struct proto_mem_site *x = &in->sites[i];
		struct mem_dsite *o;

		if (x->id >= PROTO_MAX_MEM_SITES * 4)
			continue;
		if (x->id >= d->nsites) {
			size_t n = x->id + 1 > d->nsites * 2 ? x->id + 1 : d->nsites * 2;

			d->sites = xrealloc(d->sites, n * sizeof *d->sites);
			memset(d->sites + d->nsites, 0, (n - d->nsites) * sizeof *d->sites);
			d->nsites = n;
		}
		o = &d->sites[x->id];
		if (!o->seen || x->stack.nframes > 0) {
			proto_mem_site_free(&o->w);
			proto_mem_site_copy(&o->w, x);
			for (size_t k = 0; k < o->w.stack.nframes; k++) {
				char *plain = daemon_demangle(o->w.stack.frames[k].func);

				if (plain != NULL) {
					free(o->w.stack.frames[k].func);
					o->w.stack.frames[k].func = plain;
				}
			}
		} else {
			o->w.bytes = x->bytes;
			o->w.blocks = x->blocks;
			o->w.alloc_bytes = x->alloc_bytes;
			o->w.allocs = x->allocs;
			o->w.frees = x->frees;
		}
		o->seen = true;
	}
}

/* The lost groups' stacks, from their sites (the record has none). */
static void mem_leaks_stacks(struct mem_dstate *d)
{
	bool all = true;

	if (d->leaks_stacks)
		return;
	for (size_t i = 0; i < d->m.leaks.nlost; i++) {
		struct proto_mem_lost *l = &d->m.leaks.lost[i];

		if (l->stack.nframes > 0)
			continue;
		if (l->site < d->nsites && d->sites[l->site].seen)
			proto_struct_copy(&proto_block_stack_desc, &l->stack, &d->sites[l->site].w.stack);
		else
			all = false;              /* its site comes with a later record */
	}
	d->leaks_stacks = all;
}

/* Once a second: the heap's sparkline, rates; each step: the rings. */
static void mem_tick(struct daemon_session *s, uint64_t now_ns)
{
	struct mem_dstate *d = daemon_memory_of(s);
	double dt;

	if (d->m.mode == NULL)
		return;                           /* no record yet */
	d->m.exited = s->state == PROTO_TARGET_EXITED;
	mem_leaks_stacks(d);
	if (d->hist_ns == 0 || now_ns >= d->hist_ns + SEC_NS) {
		uint64_t kib = d->m.heap_bytes >> 10;

		if (d->nhistory == MEM_HISTORY)
			memmove(d->history, d->history + 1, (MEM_HISTORY - 1) * sizeof *d->history);
		else
			d->nhistory++;
		d->history[d->nhistory - 1] = kib > UINT32_MAX ? UINT32_MAX : (uint32_t)kib;
		dt = d->hist_ns ? (double)(now_ns - d->hist_ns) / 1e9 : 0;
		d->m.allocs_per_s = dt > 0 && d->m.allocs >= d->rate_allocs ?
		    (double)(d->m.allocs - d->rate_allocs) / dt : 0;
		for (size_t i = 0; i < d->nsites; i++) {
			struct mem_dsite *x = &d->sites[i];

			if (!x->seen)
				continue;
			x->w.alloc_rate = dt > 0 && x->w.alloc_bytes >= x->rate_bytes ?
			    (double)(x->w.alloc_bytes - x->rate_bytes) / dt : 0;
			x->rate_bytes = x->w.alloc_bytes;
		}
		d->rate_allocs = d->m.allocs;
		d->hist_ns = now_ns;
	}
	if (d->step_len_ns != mem_step_ns(d)) {   /* a new window: start over */
		d->step_len_ns = mem_step_ns(d);
		for (size_t i = 0; i < d->nsites; i++)
			d->sites[i].nring = 0;
		d->step_ns = 0;
	}
	if (d->step_ns != 0 && now_ns < d->step_ns + d->step_len_ns)
		return;
	d->step_ns = now_ns;
	for (size_t i = 0; i < d->nsites; i++) {
		struct mem_dsite *x = &d->sites[i];

		if (!x->seen)
			continue;
		x->ring[x->nring % MEM_RING] = x->w.bytes;
		x->nring++;
		x->w.growth = mem_growth(d, x);
		x->w.leak = daemon_memory_leaking(d, x);
	}
}

/* A suspected leak is a "memory-leak" issue; a site is one place. */
static void mem_detect(struct daemon_session *s, uint64_t now_ns)
{
	struct mem_dstate *d = daemon_memory_of(s);

	for (size_t i = 0; i < d->nsites; i++) {
		struct mem_dsite *x = &d->sites[i];
		char where[300], title[512];

		if (!x->seen || !x->w.leak || x->leak_raised)
			continue;
		x->leak_raised = true;
		daemon_issue_where(where, sizeof where, &x->w.stack);
		snprintf(title, sizeof title, "suspected leak: %s holds %" PRIu64 " bytes in %" PRIu64
		    " blocks, growing %.0f bytes/s over %.0f s", where, x->w.bytes, x->w.blocks,
		    x->w.growth, (double)d->m.leak_window_ns / 1e9);
		const struct proto_issue_fig figs[] = {
			{ "bytes", (double)x->w.bytes, "bytes" },
			{ "blocks", (double)x->w.blocks, "count" },
			{ "growth", x->w.growth, "bytes/s" },
			{ "window", (double)d->m.leak_window_ns, "ns" },
		};
		const struct daemon_issue_in in = {
			.type = "memory-leak", .where = where, .title = title,
			.value = (uint64_t)x->w.growth, .threshold = 0, .unit = "bytes/s",
			.occ = 1, .figs = figs, .nfigs = 4, .stack = &x->w.stack,
		};
		daemon_issue_raise(s, &in, now_ns);
	}
}

static int mem_cmp_bytes(const void *a, const void *b)
{
	const struct proto_mem_site *x = a, *y = b;

	return x->bytes > y->bytes ? -1 : x->bytes < y->bytes ? 1 : (x->id > y->id) - (x->id < y->id);
}

/* A site's figure by key: 0 bytes in use, 1 allocation rate, 2 growth. */
static double mem_key(const struct mem_dsite *x, int key)
{
	return key == 0 ? (double)x->w.bytes : key == 1 ? x->w.alloc_rate : x->w.growth;
}

static int mem_cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x > y ? -1 : x < y;
}

/* The n-th largest positive figure of the live sites by key (ties with it
 * are in the top too), or +inf when none is positive. */
static double mem_top_floor(const struct mem_dstate *d, int key, size_t n, double *v)
{
	size_t k = 0;

	for (size_t i = 0; i < d->nsites; i++)
		if (d->sites[i].seen && mem_key(&d->sites[i], key) > 0)
			v[k++] = mem_key(&d->sites[i], key);
	if (k == 0)
		return HUGE_VAL;
	qsort(v, k, sizeof *v, mem_cmp_desc);
	return v[(k < n ? k : n) - 1];
}

/* The frame: totals and the view of the sites (borrowed). */
static void mem_frame(struct daemon_session *s, struct proto_frame *f)
{
	struct mem_dstate *d = daemon_memory_of(s);
	size_t n = 0;
	double *v, floor[3];

	if (d->m.mode == NULL)
		return;
	v = xcalloc(d->nsites ? d->nsites : 1, sizeof *v);
	floor[0] = mem_top_floor(d, 0, MEM_VIEW_TOP, v);
	floor[1] = mem_top_floor(d, 1, MEM_VIEW_TOP / 2, v);
	floor[2] = mem_top_floor(d, 2, MEM_VIEW_TOP / 2, v);
	free(v);
	free(d->view);
	d->view = xcalloc(d->nsites ? d->nsites : 1, sizeof *d->view);
	for (size_t i = 0; i < d->nsites; i++) {
		const struct mem_dsite *x = &d->sites[i];

		if (x->seen && (x->w.leak || mem_key(x, 0) >= floor[0] || mem_key(x, 1) >= floor[1] ||
		    mem_key(x, 2) >= floor[2]))
			d->view[n++] = x->w;
	}
	qsort(d->view, n, sizeof *d->view, mem_cmp_bytes);
	f->memory = d->m;
	f->memory.sites = d->view;
	f->memory.nsites = n;
	f->memory.history = d->history;
	f->memory.nhistory = d->nhistory;
}

/* The agent sends everything again; what is in use stays in use. */
static void mem_reset(struct daemon_session *s, uint64_t now_ns)
{
	struct mem_dstate *d = daemon_memory_of(s);

	(void)now_ns;
	for (size_t i = 0; i < d->nsites; i++) {
		d->sites[i].nring = 0;
		d->sites[i].rate_bytes = 0;
		d->sites[i].leak_raised = false;
	}
	d->nhistory = 0;
	d->hist_ns = d->step_ns = 0;
	d->rate_allocs = 0;
}

static void mem_free(struct daemon_session *s)
{
	struct mem_dstate *d = daemon_memory_of(s);

	for (size_t i = 0; i < d->nsites; i++)
		proto_mem_site_free(&d->sites[i].w);
	free(d->sites);
	free(d->view);
	free(d->m.mode);
	free(d->m.big);
	proto_struct_free(&proto_mem_leaks_desc, &d->m.leaks);
	memset(d, 0, sizeof *d);
}

static const struct daemon_threshold mem_thresholds[] = {
	{ .name = "memory", .unit = "bytes", .ns_per_unit = 1, .min = 0, .max = 4294967296.0,
	  .help = "0 tracks every allocation; N samples one allocation per N bytes on average" },
	{ .name = "leak", .unit = "s", .ns_per_unit = 1e9, .min = 1, .max = 86400,
	  .help = "a site growing steadily this long is a suspected leak" },
};

extern const struct report_section report_section_memory;   /* report_memory.c */

const struct daemon_collector daemon_collector_memory = {
	.name = "memory",
	.part = &proto_part_memory,
	.on_record = mem_record,
	.tick = mem_tick,
	.reset = mem_reset,
	.detect = mem_detect,
	.free = mem_free,
	.fill_frame = mem_frame,
	.report = &report_section_memory,
	.thresholds = mem_thresholds,
	.nthresholds = sizeof mem_thresholds / sizeof mem_thresholds[0],
	.state_size = sizeof(struct mem_dstate),
};
