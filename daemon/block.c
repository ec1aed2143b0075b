/*
 * block.c - the UI-thread blocks of a session: the agent's "blocks" records
 * replace blocks by id (a running block is sent again as it grows), the
 * newest PROTO_MAX_BLOCKS are kept, frames carry them, the report lists
 * them with their stacks.  A block's start comes in the agent's monotonic
 * clock; the daemon runs on the same machine and turns it into wall-clock
 * ms on receipt.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon_collector.h"
#include "report.h"
#include "issue.h"

/* Newest first (ids grow with time). */
static int
block_cmp(const void *a, const void *b)
{
	const struct proto_block *x = a, *y = b;

	return x->id > y->id ? -1 : x->id < y->id;
}

/* The slot for block id: its old place, a new one, or the oldest. */
static struct proto_block *
block_slot(struct proto_blocks *l, uint32_t id)
{
	for (size_t i = 0; i < l->nblocks; i++)
		if (l->blocks[i].id == id)
			return &l->blocks[i];
	if (l->nblocks < PROTO_MAX_BLOCKS) {
		l->blocks = xrealloc(l->blocks, (l->nblocks + 1) * sizeof *l->blocks);
		memset(&l->blocks[l->nblocks], 0, sizeof *l->blocks);
		return &l->blocks[l->nblocks++];
	}
	return &l->blocks[l->nblocks - 1];        /* sorted: the oldest */
}

/* See daemon.h. */
void
daemon_session_blocks(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns)
{
	const struct proto_blocks *in = &r->blocks;
	uint64_t wall = proto_wall_ms();

	(void)now_ns;
	s->blocks.threshold_ns = in->threshold_ns;
	s->blocks.sample_ns = in->sample_ns;
	s->blocks.ui_tid = in->ui_tid;
	s->blocks.count = in->count;
	free(s->blocks.ui);
	s->blocks.ui = xstrdup(in->ui ? in->ui : "");
	for (size_t i = 0; i < in->nblocks; i++) {
		const struct proto_block *b = &in->blocks[i];
		struct proto_block *d;
		uint64_t ago;

		if (s->blocks.nblocks == PROTO_MAX_BLOCKS &&
		    b->id < s->blocks.blocks[s->blocks.nblocks - 1].id)
			continue;         /* older than all we keep */
		d = block_slot(&s->blocks, b->id);
		proto_block_free(d);
		proto_block_copy(d, b);
		ago = r->time_ns > b->start_ns ? r->time_ns - b->start_ns : 0;
		d->time_ms = wall > ago / 1000000 ? wall - ago / 1000000 : 0;
		qsort(s->blocks.blocks, s->blocks.nblocks, sizeof *s->blocks.blocks, block_cmp);
		s->block_seen_ms = wall;
	}
}

/* The agent sends its state again after its reset. */
static void
block_reset(struct daemon_session *s, uint64_t now_ns)
{
	(void)now_ns;
	for (size_t i = 0; i < s->blocks.nblocks; i++)
		proto_block_free(&s->blocks.blocks[i]);
	free(s->blocks.blocks);
	s->blocks.blocks = NULL;
	s->blocks.nblocks = 0;
	s->blocks.count = 0;
}

/* See daemon.h: one stack, a frame per line. */
void
daemon_report_stack(FILE *m, const struct proto_block_stack *st)
{
	for (size_t k = 0; k < st->nframes; k++) {
		const struct proto_block_frame *f = &st->frames[k];

		fprintf(m, "      #%-2zu 0x%" PRIx64 " %s+0x%" PRIx64 " (%s)", k, f->addr,
		    f->func[0] ? f->func : "??", f->off, f->module[0] ? f->module : "?");
		if (f->file[0])
			fprintf(m, " %s:%u", f->file, f->line);
		fputc('\n', m);
	}
}

/* See daemon.h: one paragraph per block, its stacks most samples first. */
char *
daemon_blocks_report(const struct daemon_session *s)
{
	const struct proto_blocks *l = &s->blocks;
	char *out = NULL, clk[48];
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (m == NULL)
		return xstrdup("UI-thread blocks: (out of memory)\n");
	fprintf(m, "UI-thread blocks\n\n");
	fprintf(m, "ui thread %s (tid %d); threshold %.1f ms, sampling every %.1f ms; "
	    "%" PRIu64 " blocks since start or reset, the last %zu listed\n",
	    l->ui && l->ui[0] ? l->ui : "main", (int)l->ui_tid, (double)l->threshold_ns / 1e6,
	    (double)l->sample_ns / 1e6, l->count, l->nblocks);
	for (size_t i = 0; i < l->nblocks; i++) {
		const struct proto_block *b = &l->blocks[i];

		fprintf(m, "\nblock %u at %s: %.1f ms%s, thread %d, %" PRIu64 " samples, %"
		    PRIu64 " lost\n", b->id, daemon_clock_ms(clk, sizeof clk, b->time_ms),
		    (double)b->dur_ns / 1e6, b->ended ? "" : " (still running)", (int)b->tid,
		    b->samples, b->lost);
		for (size_t k = 0; k < b->nstacks; k++) {
			fprintf(m, "  stack %zu: %" PRIu64 " of %" PRIu64 " samples\n", k + 1,
			    b->stacks[k].samples, b->samples);
			daemon_report_stack(m, &b->stacks[k]);
		}
	}
	fprintf(m, "\n");
	fclose(m);
	return out;
}

/* Each ended block is a "ui-block" issue; the same top frame is the same
 * issue, its block ids the occurrences. */
static void
block_detect(struct daemon_session *s, uint64_t now_ns)
{
	const struct proto_blocks *l = &s->blocks;
	const char *ui = l->ui && l->ui[0] ? l->ui : "main";

	for (size_t i = l->nblocks; i-- > 0;) {       /* oldest first */
		const struct proto_block *b = &l->blocks[i];
		const struct proto_block_stack *st = b->nstacks ? &b->stacks[0] : NULL;
		char where[256], title[512];

		if (!b->ended || l->threshold_ns == 0)
			continue;
		daemon_issue_where(where, sizeof where, st);
		snprintf(title, sizeof title, "UI thread %s blocked %.0f ms in %s", ui,
		    (double)b->dur_ns / 1e6, where);
		const struct proto_issue_fig figs[] = {
			{ "dur", (double)b->dur_ns, "ns" },
			{ "threshold", (double)l->threshold_ns, "ns" },
			{ "samples", (double)b->samples, "count" },
		};
		const struct daemon_issue_in in = {
			.type = "ui-block", .where = where, .title = title, .value = b->dur_ns,
			.threshold = l->threshold_ns, .unit = "ns", .occ = b->id, .tid = b->tid,
			.thread = ui, .figs = figs, .nfigs = 3, .stack = st,
		};
		daemon_issue_raise(s, &in, now_ns);
	}
}

static void
block_free(struct daemon_session *s)
{
	proto_blocks_free(&s->blocks);
}

static void
block_frame(struct daemon_session *s, struct proto_frame *f)
{
	f->blocks = s->blocks;
}

static const struct daemon_threshold block_thresholds[] = {
	{ .name = "block", .unit = "ms", .ns_per_unit = 1e6, .min = 1, .max = 3600e3,
	  .help = "UI-thread messages longer are blocks" },
	{ .name = "block_sample", .unit = "ms", .ns_per_unit = 1e6, .min = 1, .max = 10e3,
	  .help = "stack sampling interval during a block" },
};

extern const struct report_section report_section_blocks;   /* report_blocks.c */

const struct daemon_collector daemon_collector_blocks = {
	.name = "blocks",
	.part = &proto_part_blocks,
	.on_record = daemon_session_blocks,
	.reset = block_reset,
	.detect = block_detect,
	.free = block_free,
	.fill_frame = block_frame,
	.report = &report_section_blocks,
	.thresholds = block_thresholds,
	.nthresholds = sizeof block_thresholds / sizeof block_thresholds[0],
};
