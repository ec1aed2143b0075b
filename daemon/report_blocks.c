/*
 * report_blocks.c - the UI-thread blocks section of reports and metrics.
 * Trace: each block is a slice on the UI thread.  Folded: each distinct
 * stack of each block under a "[ui blocks]" root, weighted in microseconds
 * like the call paths beside them (its samples x the sampling interval);
 * samples beyond the PROTO_BLOCK_STACKS stacks kept are one "[other
 * stacks]" line, so the weights add up to the samples taken.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "report.h"

static void
blk_text(struct report_buf *b, const struct report_ctx *c)
{
	report_add_free(b, daemon_blocks_report(c->s));
}

/* The name of a block: its innermost known function. */
static const char *
blk_top(const struct proto_block *b)
{
	if (b->nstacks == 0)
		return "";
	for (size_t k = 0; k < b->stacks[0].nframes; k++)
		if (b->stacks[0].frames[k].func[0])
			return b->stacks[0].frames[k].func;
	return "";
}

static void
blk_json(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_blocks *l = &c->s->blocks;

	rj_obj(j, NULL);
	rj_u64(j, "threshold_ns", l->threshold_ns);
	rj_u64(j, "sample_ns", l->sample_ns);
	rj_i64(j, "ui_tid", l->ui_tid);
	rj_str(j, "ui", l->ui && l->ui[0] ? l->ui : "main");
	rj_u64(j, "count", l->count);
	rj_arr(j, "list");
	for (size_t i = 0; i < l->nblocks; i++) {
		const struct proto_block *b = &l->blocks[i];

		rj_obj(j, NULL);
		rj_u64(j, "id", b->id);
		rj_i64(j, "tid", b->tid);
		rj_u64(j, "start_ns", b->start_ns);
		rj_u64(j, "time_ms", b->time_ms);
		rj_u64(j, "dur_ns", b->dur_ns);
		rj_bool(j, "ended", b->ended);
		rj_u64(j, "samples", b->samples);
		rj_u64(j, "lost", b->lost);
		rj_arr(j, "stacks");
		for (size_t k = 0; k < b->nstacks; k++) {
			rj_obj(j, NULL);
			rj_u64(j, "samples", b->stacks[k].samples);
			rj_stack(j, "frames", &b->stacks[k]);
			rj_end_obj(j);
		}
		rj_end_arr(j);
		rj_end_obj(j);
	}
	rj_end_arr(j);
	rj_end_obj(j);
}

/* Each block a slice "block" on its thread, named after its top function. */
static void
blk_trace(struct report_json *j, const struct report_ctx *c)
{
	const struct proto_blocks *l = &c->s->blocks;

	for (size_t i = 0; i < l->nblocks; i++) {
		const struct proto_block *b = &l->blocks[i];

		report_trace_event(j, "X", "block", "blocks", c->s->pid, b->tid, b->start_ns);
		rj_us(j, "dur", b->dur_ns);
		rj_obj(j, "args");
		rj_u64(j, "id", b->id);
		rj_str(j, "top", blk_top(b));
		rj_u64(j, "samples", b->samples);
		rj_bool(j, "ended", b->ended);
		if (b->nstacks > 0) {
			/* The stack most samples had, innermost first. */
			rj_arr(j, "stack");
			for (size_t f = 0; f < b->stacks[0].nframes; f++)
				rj_str(j, NULL, b->stacks[0].frames[f].func[0] ?
				    b->stacks[0].frames[f].func : "??");
			rj_end_arr(j);
		}
		rj_end_obj(j);
		rj_end_obj(j);
	}
}

/* One line per stack, root first ("func", else "module+0xoff"). */
static void
blk_folded(struct report_folded *f, const struct report_ctx *c)
{
	const struct proto_blocks *l = &c->s->blocks;
	const char *frames[PROTO_BLOCK_FRAMES + 1];
	char names[PROTO_BLOCK_FRAMES][160];
	uint64_t us = l->sample_ns / 1000;    /* one sample's weight */

	frames[0] = "[ui blocks]";

	for (size_t i = 0; i < l->nblocks; i++) {
		const struct proto_block *b = &l->blocks[i];
		uint64_t counted = 0;

		for (size_t k = 0; k < b->nstacks; k++) {
			const struct proto_block_stack *st = &b->stacks[k];
			size_t n = st->nframes < PROTO_BLOCK_FRAMES ? st->nframes : PROTO_BLOCK_FRAMES;

			for (size_t m = 0; m < n; m++) {
				const struct proto_block_frame *fr = &st->frames[n - 1 - m];

				if (fr->func[0])
					snprintf(names[m], sizeof names[m], "%s", fr->func);
				else
					snprintf(names[m], sizeof names[m], "%s+0x%" PRIx64,
					    fr->module[0] ? fr->module : "?", fr->off);
				frames[m + 1] = names[m];
			}
			report_folded_line(f, frames, n + 1, st->samples * us);
			counted += st->samples;
		}
		if (b->samples > counted) {
			frames[1] = "[other stacks]";
			report_folded_line(f, frames, 2, (b->samples - counted) * us);
		}
	}
}

static void
blk_m_count(struct report_metrics *m, const struct report_ctx *c)
{
	report_metric(m, (double)c->s->blocks.count, NULL);
}

/* 1 while the newest block still runs. */
static void
blk_m_blocked(struct report_metrics *m, const struct report_ctx *c)
{
	const struct proto_blocks *l = &c->s->blocks;

	report_metric(m, l->nblocks > 0 && !l->blocks[0].ended &&
	    c->s->state == PROTO_TARGET_LIVE ? 1.0 : 0.0, NULL);
}

static const struct report_metric_family blk_metrics[] = {
	{ "hookscope_blocks_total", "counter",
	  "UI-thread blocks (messages longer than the threshold) since start or reset.",
	  blk_m_count },
	{ "hookscope_ui_blocked", "gauge",
	  "1 while the UI thread is in a block.", blk_m_blocked },
};

const struct report_section report_section_blocks = {
	.name = "blocks",
	.text = blk_text,
	.json = blk_json,
	.trace = blk_trace,
	.folded = blk_folded,
	.metrics = blk_metrics,
	.nmetrics = sizeof blk_metrics / sizeof blk_metrics[0],
};
