/*
 * block.c - the block collector, reporter side: resolves the UI thread
 * selection (HOOKSCOPE_UI_THREAD, the daemon's ui_thread record), keeps the
 * watchdog running, drains its events into the last BLOCK_KEEP blocks
 * (stacks aggregated by function, symbolized here, off the hot path) and
 * sends a "blocks" record with the blocks that changed.  Thresholds:
 * "block" (a message longer is a block) and "block_sample" (the sampling
 * interval during a block), in ns.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "block_int.h"
#include "symbols.h"
#include "collector.h"

#define BLOCK_RESOLVE_NS 1000000000ull    /* a named UI thread is looked for this often */

/* One block as the reporter knows it. */
struct block_rep {
	uint32_t id;
	int32_t  tid;
	uint64_t start_ns, end_ns;
	bool     ended, dirty;
	uint64_t samples, lost;
	struct block_stacks st;
};

static struct block_rep block_reps[BLOCK_KEEP];   /* newest first */
static size_t block_nreps;
static uint64_t block_count, block_dropped_seen, block_resolved_ns;
static struct block_cfg block_cfg = { BLOCK_THRESHOLD_NS, BLOCK_SAMPLE_NS };
static char block_sel[BLOCK_UI_MAX] = "main";
static bool block_cfg_changed = true;

/* Does /proc/self/task/tid exist? */
static bool block_task_exists(long tid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/task/%ld", tid);
	return access(path, F_OK) == 0;
}

/* The name (comm) of thread tid, "" if unreadable. */
static void block_task_name(long tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof path, "/proc/self/task/%ld/comm", tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* See block.h. */
int32_t block_ui_resolve(const char *sel)
{
	char *end, name[32];
	long tid, best = 0;
	struct dirent *d;
	DIR *dir;

	if (sel[0] == '\0' || strcmp(sel, "main") == 0)
		return (int32_t)getpid();
	tid = strtol(sel, &end, 10);
	if (*end == '\0' && isdigit((unsigned char)sel[0]))
		return tid > 0 && tid <= INT32_MAX && block_task_exists(tid) ? (int32_t)tid : 0;
	if ((dir = opendir("/proc/self/task")) == NULL)
		return 0;
	while ((d = readdir(dir)) != NULL) {
		tid = strtol(d->d_name, &end, 10);
		if (*end != '\0' || tid <= 0 || tid == block_watchdog_tid())
			continue;
		block_task_name(tid, name, sizeof name);
		if (strcmp(name, sel) == 0 && (best == 0 || tid < best))
			best = tid;       /* the oldest thread of that name */
	}
	closedir(dir);
	return (int32_t)best;
}

/* See block.h. */
void block_ui_select(const char *sel)
{
	snprintf(block_sel, sizeof block_sel, "%s", sel);
	block_wait_set_tid(block_ui_resolve(block_sel));
	block_resolved_ns = proto_now_ns();
	block_cfg_changed = true;
}

/* Collector init: signal, own text range, the UI thread.  The watchdog
 * starts at the first harvest (the reporter's first cycle), so the agent's
 * first patch, between the collectors' init and the reporter's start, runs
 * while the process has no other thread: no stop of the world, and no TLB
 * shootdown for each text page it writes. */
static int block_init(void)
{
	const char *sel = getenv("HOOKSCOPE_UI_THREAD");

	block_wait_init();
	if (block_signal_init() < 0)
		agent_warn("block: cannot install the handler of signal %d: stacks of a running "
		    "UI thread will be missing", BLOCK_SIG);
	block_ui_select(sel != NULL ? sel : "main");
	block_watchdog_config(&block_cfg);
	return 0;
}

/* The block with this id, or NULL. */
static struct block_rep *block_rep_find(uint32_t id)
{
	for (size_t i = 0; i < block_nreps; i++)
		if (block_reps[i].id == id)
			return &block_reps[i];
	return NULL;
}

/* A new block: first place; the oldest falls off when full. */
static void block_rep_begin(const struct block_ev *e)
{
	size_t n = block_nreps < BLOCK_KEEP ? block_nreps + 1 : BLOCK_KEEP;

	memmove(&block_reps[1], &block_reps[0], (n - 1) * sizeof block_reps[0]);
	memset(&block_reps[0], 0, sizeof block_reps[0]);
	block_reps[0].id = e->id;
	block_reps[0].tid = e->tid;
	block_reps[0].start_ns = e->t_ns;
	block_reps[0].dirty = true;
	block_nreps = n;
	block_count++;
}

/* One sample into its block's stacks, keyed by function. */
static void block_rep_sample(struct block_rep *r, const struct block_sample *s)
{
	uintptr_t key[BLOCK_FRAMES];

	for (uint32_t i = 0; i < s->n; i++)
		key[i] = sym_frame_key(s->pc[i], i > 0);
	block_stacks_add(&r->st, s->pc, key, s->n);
	r->samples++;
}

/* Apply the watchdog's events. */
static void block_harvest(void)
{
	struct block_ev ev[32];
	uint64_t dropped = 0, now = proto_now_ns();
	size_t n;

	if (!block_watchdog_running() && block_watchdog_start() < 0)
		agent_log("block: cannot start the watchdog thread: no block detection");
	if (now - block_resolved_ns > BLOCK_RESOLVE_NS) {
		int32_t tid = block_ui_resolve(block_sel);

		block_resolved_ns = now;
		if (tid != block_wait_tid()) {
			block_wait_set_tid(tid);
			block_cfg_changed = true;
		}
	}
	while ((n = block_watchdog_drain(ev, 32, &dropped)) > 0) {
		for (size_t i = 0; i < n; i++) {
			struct block_rep *r;

			if (ev[i].type == BLOCK_EV_BEGIN) {
				block_rep_begin(&ev[i]);
				continue;
			}
			if ((r = block_rep_find(ev[i].id)) == NULL)
				continue;
			r->dirty = true;
			r->lost += ev[i].lost;
			if (ev[i].type == BLOCK_EV_SAMPLE)
				block_rep_sample(r, &ev[i].smp);
			else
				r->ended = true, r->end_ns = ev[i].t_ns;
		}
	}
	if (dropped > block_dropped_seen && block_nreps > 0) {
		block_reps[0].lost += dropped - block_dropped_seen;
		block_reps[0].dirty = true;
	}
	block_dropped_seen = dropped;
}

/* The protocol form of one block (heap parts: proto_block_free). */
static void block_rep_export(const struct block_rep *r, uint64_t now, struct proto_block *b)
{
	uint32_t idx[BLOCK_STACKS];

	memset(b, 0, sizeof *b);
	b->id = r->id;
	b->tid = r->tid;
	b->start_ns = r->start_ns;
	b->ended = r->ended;
	b->dur_ns = (r->ended ? r->end_ns : now) - r->start_ns;
	b->samples = r->samples;
	b->lost = r->lost;
	block_stacks_order(&r->st, idx);
	b->nstacks = r->st.n;
	b->stacks = xcalloc(r->st.n ? r->st.n : 1, sizeof *b->stacks);
	for (uint32_t i = 0; i < r->st.n; i++) {
		const struct block_stack *s = &r->st.s[idx[i]];

		b->stacks[i].samples = s->samples;
		b->stacks[i].nframes = s->n;
		b->stacks[i].frames = xcalloc(s->n ? s->n : 1, sizeof *b->stacks[i].frames);
		for (uint32_t k = 0; k < s->n; k++)
			sym_frame_fill(s->pc[k], k > 0, &b->stacks[i].frames[k]);
	}
}

/* One "blocks" record with the blocks that changed (all on a new
 * connection); running blocks change all the time. */
static void block_encode(msgpack_sbuffer *sb, bool resend_all)
{
	struct proto_block v[BLOCK_KEEP];
	uint64_t now = proto_now_ns();
	size_t n = 0;

	for (size_t i = 0; i < block_nreps; i++) {
		struct block_rep *r = &block_reps[i];

		if (!resend_all && !r->dirty && r->ended)
			continue;
		block_rep_export(r, now, &v[n++]);
		r->dirty = false;
	}
	if (n == 0 && !resend_all && !block_cfg_changed)
		return;
	block_cfg_changed = false;
	proto_agent_encode(sb, &(struct proto_agent_rec){
	    .type = PROTO_AG_BLOCKS, .time_ns = now,
	    .blocks = { .threshold_ns = block_cfg.threshold_ns, .sample_ns = block_cfg.sample_ns,
	    .ui_tid = block_wait_tid(), .ui = block_sel, .count = block_count,
	    .nblocks = n, .blocks = v } });
	for (size_t i = 0; i < n; i++)
		proto_block_free(&v[i]);
}

/* "block" (threshold) and "block_sample" (interval), in ns. */
static int block_set_threshold(const char *name, int64_t value)
{
	if (strcmp(name, "block") == 0) {
		if (value < 1000000 || value > 3600000000000ll)        /* 1 ms .. 1 h */
			return -1;
		block_cfg.threshold_ns = (uint64_t)value;
	} else if (strcmp(name, "block_sample") == 0) {
		if (value < 1000000 || value > 10000000000ll)          /* 1 ms .. 10 s */
			return -1;
		block_cfg.sample_ns = (uint64_t)value;
	} else {
		return 1;
	}
	block_watchdog_config(&block_cfg);
	block_cfg_changed = true;
	return 0;
}

/* Forget the blocks (the daemon's reset; fork child). */
static void block_reset(void)
{
	memset(block_reps, 0, sizeof block_reps);
	block_nreps = 0;
	block_count = 0;
	block_cfg_changed = true;
}

/* Fork child: a new session, whose main thread is the forking one. */
static void block_atfork_child(void)
{
	block_wait_atfork_child();
	block_watchdog_atfork_child();
	block_reset();
	block_dropped_seen = 0;
	block_wait_set_tid(block_ui_resolve(block_sel));
}

/* Exit: the watchdog ends, caches go. */
static void block_fini(void)
{
	block_watchdog_stop();
	sym_frame_forget();
}

const struct collector_ops block_collector = {
	.name          = "block",
	.init          = block_init,
	.set_threshold = block_set_threshold,
	.reset         = block_reset,
	.harvest       = block_harvest,
	.encode        = block_encode,
	.atfork_child  = block_atfork_child,
	.fini          = block_fini,
};
