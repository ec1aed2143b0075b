/*
 * report_memory.c - the memory section of reports and metrics.  Text: the
 * totals, the sites by bytes in use (with their stacks), the biggest
 * blocks, the last leak scan's lost blocks; once the target has exited the
 * sites' bytes are what it never freed.  JSON: the wire form.  Folded:
 * one line per site holding memory, its stack root first, bytes in use as
 * the count, under the root frame "[heap]" (grep '^\[heap\];' for a heap
 * flame graph alone).  Trace: the heap in use as a counter, once a second
 * over the kept history.  Metrics: gauges of the totals and of the
 * REPORT_METRICS_MEM_TOP sites by bytes in use (the rest as site="other").
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "parts.h"
#include "memory_state.h"

#define REPORT_METRICS_MEM_TOP 10
#define MEM_TEXT_SITES 50

/* A frame's name: the function, else module+offset. */
static const char *mem_frame_name(char *buf, size_t len, const struct proto_block_frame *fr)
{
	if (fr->func[0])
		return fr->func;
	snprintf(buf, len, "%s+0x%" PRIx64, fr->module[0] ? fr->module : "?", fr->off);
	return buf;
}

/* The live sites sorted by bytes in use (heap array of pointers). */
static const struct mem_dsite **mem_sorted(const struct mem_dstate *d, size_t *n)
{
	const struct mem_dsite **v = xcalloc(d->nsites ? d->nsites : 1, sizeof *v);

	*n = 0;
	for (size_t i = 0; i < d->nsites; i++)
		if (d->sites[i].seen)
			v[(*n)++] = &d->sites[i];
	for (size_t i = 1; i < *n; i++)               /* insertion: few sites move */
		for (size_t k = i; k > 0 && v[k - 1]->w.bytes < v[k]->w.bytes; k--) {
			const struct mem_dsite *t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	return v;
}

/* The last leak scan: totals, then each group of lost blocks with its stack. */
static void mem_text_leaks(struct report_buf *b, const struct proto_mem_leaks *l)
{
	if (l->seq == 0)
		return;
	if (l->error != NULL && l->error[0]) {
		report_add(b, "\nleak scan %u: %s\n", l->seq, l->error);
		return;
	}
	report_add(b, "\nleak scan %u (%u threads stopped %.1f ms; %" PRIu64 " bytes of roots, %" PRIu64
	    " of heap read)\ndefinitely lost %" PRIu64 " bytes in %" PRIu64 " blocks; indirectly %"
	    PRIu64 " in %" PRIu64 "; possibly %" PRIu64 " in %" PRIu64 "; reachable %" PRIu64 " in %"
	    PRIu64 "\n", l->seq, l->threads, (double)l->stopped_ns / 1e6, l->root_bytes, l->heap_bytes,
	    l->lost_bytes, l->lost_blocks, l->indirect_bytes, l->indirect_blocks, l->possible_bytes,
	    l->possible_blocks, l->reachable_bytes, l->reachable_blocks);
	if (l->note != NULL && l->note[0])
		report_add(b, "note: %s\n", l->note);
	for (size_t i = 0; i < l->nlost; i++) {
		const struct proto_mem_lost *x = &l->lost[i];
		FILE *f;
		char *s = NULL;
		size_t len = 0;

		if ((f = open_memstream(&s, &len)) == NULL)
			break;
		fprintf(f, "\n%" PRIu64 " bytes in %" PRIu64 " blocks definitely lost (+%" PRIu64
		    " bytes in %" PRIu64 " blocks indirectly), site %u\n", x->bytes, x->blocks,
		    x->indirect_bytes, x->indirect_blocks, x->site);
		daemon_report_stack(f, &x->stack);
		fclose(f);
		report_add_free(b, s);
	}
}

static void mem_text(struct report_buf *b, const struct report_ctx *c)
{
	struct mem_dstate *d = daemon_memory_of(c->s);
	const struct proto_memory *m = &d->m;
	const struct mem_dsite **v;
	size_t n;

	if (m->mode == NULL)
		return;
	report_add(b, "Memory\n\nmode %s%s; heap in use %" PRIu64 " bytes in %" PRIu64 " blocks%s; "
	    "%" PRIu64 " allocations, %" PRIu64 " frees, %" PRIu64 " bytes allocated; anonymous "
	    "mappings %" PRIu64 " bytes in %" PRIu64 "\n", m->mode, strcmp(m->mode, "sampled") == 0 ?
	    " (estimates)" : "", m->heap_bytes, m->heap_blocks,
	    m->exited ? " at exit (never freed)" : "", m->allocs, m->frees, m->alloc_bytes,
	    m->mmap_bytes, m->mmap_regions);
	if (m->untracked || m->unknown_frees)
		report_add(b, "untracked blocks %" PRIu64 "; frees of blocks from before tracking %"
		    PRIu64 "\n", m->untracked, m->unknown_frees);
	v = mem_sorted(d, &n);
	report_add(b, "\n%12s %10s %12s %10s %12s %12s %5s  %s\n", "bytes", "blocks", "allocated",
	    "allocs", "rate B/s", "growth B/s", "leak", "site");
	for (size_t i = 0; i < n && i < MEM_TEXT_SITES; i++) {
		const struct proto_mem_site *x = &v[i]->w;
		char buf[160];

		if (x->bytes == 0 && !m->exited && i >= 10)
			break;
		if (x->bytes == 0 && m->exited)
			break;
		report_add(b, "%12" PRIu64 " %10" PRIu64 " %12" PRIu64 " %10" PRIu64 " %12.0f %12.0f %5s  %s\n",
		    x->bytes, x->blocks, x->alloc_bytes, x->allocs, x->alloc_rate, x->growth,
		    x->leak ? "yes" : "", x->stack.nframes ?
		    mem_frame_name(buf, sizeof buf, &x->stack.frames[0]) : "?");
	}
	for (size_t i = 0; i < n && i < MEM_TEXT_SITES; i++) {
		const struct proto_mem_site *x = &v[i]->w;
		FILE *f;
		char *s = NULL;
		size_t len = 0;

		if (x->bytes == 0)
			break;
		if ((f = open_memstream(&s, &len)) == NULL)
			break;
		fprintf(f, "\nsite %u: %" PRIu64 " bytes in %" PRIu64 " blocks\n", x->id, x->bytes, x->blocks);
		daemon_report_stack(f, &x->stack);
		fclose(f);
		report_add_free(b, s);
	}
	free(v);
	if (m->nbig > 0) {
		report_add(b, "\nbiggest blocks\n");
		for (size_t i = 0; i < m->nbig; i++)
			report_add(b, "%12" PRIu64 " bytes at 0x%" PRIx64 " (site %u)\n", m->big[i].size,
			    m->big[i].addr, m->big[i].site);
	}
	mem_text_leaks(b, &m->leaks);
	report_add(b, "\n");
}

static void mem_json(struct report_json *j, const struct report_ctx *c)
{
	struct mem_dstate *d = daemon_memory_of(c->s);
	struct proto_memory m;
	const struct mem_dsite **v;
	size_t n;

	if (d->m.mode == NULL) {
		rj_null(j, NULL);
		return;
	}
	v = mem_sorted(d, &n);
	m = d->m;
	m.sites = xcalloc(n ? n : 1, sizeof *m.sites);
	for (size_t i = 0; i < n; i++)
		m.sites[i] = v[i]->w;
	m.nsites = n;
	m.history = d->history;
	m.nhistory = d->nhistory;
	proto_struct_json(j, NULL, &proto_memory_desc, &m);
	free(m.sites);
	free(v);
}

/* One line per site holding memory: [heap];root;...;allocating function bytes. */
static void mem_folded(struct report_folded *f, const struct report_ctx *c)
{
	struct mem_dstate *d = daemon_memory_of(c->s);
	const char *frames[PROTO_BLOCK_FRAMES + 1];
	char names[PROTO_BLOCK_FRAMES][160];

	for (size_t i = 0; i < d->nsites; i++) {
		const struct proto_mem_site *x = &d->sites[i].w;
		size_t n = x->stack.nframes < PROTO_BLOCK_FRAMES ? x->stack.nframes : PROTO_BLOCK_FRAMES;

		if (!d->sites[i].seen || x->bytes == 0)
			continue;
		frames[0] = "[heap]";
		for (size_t k = 0; k < n; k++)
			frames[k + 1] = mem_frame_name(names[k], sizeof names[k],
			    &x->stack.frames[n - 1 - k]);
		report_folded_line(f, frames, n + 1, x->bytes);
	}
}

/* The heap in use as a counter, one event per kept second. */
static void mem_trace(struct report_json *j, const struct report_ctx *c)
{
	struct mem_dstate *d = daemon_memory_of(c->s);

	for (size_t k = 0; k < d->nhistory; k++) {
		uint64_t back = (uint64_t)(d->nhistory - 1 - k) * 1000000000ull;

		if (d->hist_ns < back)
			continue;
		report_trace_event(j, "C", "heap in use", "memory", c->s->pid, c->s->pid,
		    d->hist_ns - back);
		rj_obj(j, "args");
		rj_u64(j, "bytes", (uint64_t)d->history[k] << 10);
		rj_end_obj(j);
		rj_end_obj(j);
	}
}

static void mem_m_total(struct report_metrics *m, const struct report_ctx *c, int what)
{
	struct mem_dstate *d = daemon_memory_of(c->s);

	if (d->m.mode == NULL)
		return;
	report_metric(m, (double)(what == 0 ? d->m.heap_bytes : what == 1 ? d->m.heap_blocks :
	    d->m.mmap_bytes), NULL);
}
static void mem_m_bytes(struct report_metrics *m, const struct report_ctx *c) { mem_m_total(m, c, 0); }
static void mem_m_blocks(struct report_metrics *m, const struct report_ctx *c) { mem_m_total(m, c, 1); }
static void mem_m_mmap(struct report_metrics *m, const struct report_ctx *c) { mem_m_total(m, c, 2); }

/* Bytes in use per site: the top ones by their allocating function, the
 * rest summed as "other" (bounded labels). */
static void mem_m_sites(struct report_metrics *m, const struct report_ctx *c)
{
	struct mem_dstate *d = daemon_memory_of(c->s);
	const struct mem_dsite **v;
	uint64_t rest = 0;
	size_t n;
	char id[16], buf[160];

	if (d->m.mode == NULL)
		return;
	v = mem_sorted(d, &n);
	for (size_t i = 0; i < n; i++) {
		const struct proto_mem_site *x = &v[i]->w;

		if (i >= REPORT_METRICS_MEM_TOP) {
			rest += x->bytes;
			continue;
		}
		snprintf(id, sizeof id, "%u", x->id);
		report_metric(m, (double)x->bytes, "site", id, "function", x->stack.nframes ?
		    mem_frame_name(buf, sizeof buf, &x->stack.frames[0]) : "?", NULL);
	}
	if (n > REPORT_METRICS_MEM_TOP)
		report_metric(m, (double)rest, "site", "other", "function", "other", NULL);
	free(v);
}

static const struct report_metric_family mem_metrics[] = {
	{ "hookscope_memory_heap_bytes", "gauge",
	  "Heap bytes in use (malloc family; estimates in sampled mode).", mem_m_bytes },
	{ "hookscope_memory_heap_blocks", "gauge", "Heap blocks in use.", mem_m_blocks },
	{ "hookscope_memory_mmap_bytes", "gauge", "Anonymous mappings' bytes in use.", mem_m_mmap },
	{ "hookscope_memory_site_bytes", "gauge",
	  "Heap bytes in use per allocating site: the biggest ones, the rest as site=\"other\".",
	  mem_m_sites },
};

const struct report_section report_section_memory = {
	.name = "memory",
	.text = mem_text,
	.json = mem_json,
	.trace = mem_trace,
	.folded = mem_folded,
	.metrics = mem_metrics,
	.nmetrics = sizeof mem_metrics / sizeof mem_metrics[0],
};
