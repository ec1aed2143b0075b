/*
 * startup.c - the daemon's startup row: the agent's "startup" record
 * replaces the session's start (it only grows), which is compared with
 * the previous run of the same program (startup_base.c, loaded on the
 * first record; startup_cmp.c) and saved as that program's last start for
 * the next run.  A start slower than the previous one to main, to the
 * first wait or to the first frame is a "slow-startup" issue.
 * doc/startup.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "daemon_collector.h"
#include "issue.h"
#include "daemon_startup.h"

struct su_state {
	struct proto_startup cur;         /* the frame's part */
	struct proto_startup base;        /* the previous run's */
	bool     base_tried, has_base;
	int32_t  base_pid;
	uint64_t base_wall_ms;
};

extern const struct daemon_collector daemon_collector_startup;

static struct su_state *
su_state(struct daemon_session *s)
{
	return daemon_session_state(s, &daemon_collector_startup);
}

/* See daemon_startup.h. */
const struct proto_startup *
daemon_startup_of(struct daemon_session *s)
{
	return &su_state(s)->cur;
}

/* Keep the record, compare, save. */
static void
su_on_record(struct daemon_session *s, const struct proto_agent_rec *r, uint64_t now_ns)
{
	struct su_state *st = su_state(s);
	struct proto_startup *p = &st->cur;
	char when[32] = "?", base[96];
	time_t t;
	struct tm tm;

	(void)now_ns;
	if (!st->base_tried && !r->startup.attached) {
		st->base_tried = true;
		st->has_base = daemon_startup_load(s, &st->base, &st->base_pid,
		    &st->base_wall_ms) == 0;
	}
	proto_struct_free(&proto_startup_desc, p);
	proto_struct_copy(&proto_startup_desc, p, &r->startup);
	/* What the agent leaves empty is the daemon's. */
	proto_struct_release(&proto_startup_desc, &(struct proto_startup){
	    .baseline = p->baseline, .nslower = p->nslower, .slower = p->slower });
	p->baseline = NULL;
	p->slower = NULL;
	p->nslower = 0;
	if (!p->attached)
		daemon_startup_save(s, p);
	p->noise_ns = DAEMON_SU_NOISE_NS;
	p->noise_pct = DAEMON_SU_NOISE_PCT;
	if (st->has_base) {
		t = (time_t)(st->base_wall_ms / 1000);
		if (localtime_r(&t, &tm) != NULL)
			strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(base, sizeof base, "pid %d, %s", (int)st->base_pid, when);
		p->baseline = xstrdup(base);
		p->nslower = daemon_startup_compare(&st->base, p, p->noise_ns, p->noise_pct,
		    &p->slower);
	} else {
		p->baseline = xstrdup("");
	}
}

/* Each of the three "to" phases slower than in the previous run is a
 * "slow-startup" issue; the run (its start's wall clock) is the occurrence. */
static void
su_detect(struct daemon_session *s, uint64_t now_ns)
{
	struct su_state *st = su_state(s);
	const struct proto_startup *p = &st->cur;

	for (size_t i = 0; i < p->nslower; i++) {
		const struct proto_su_change *c = &p->slower[i];
		char title[512];

		if (strcmp(c->kind, "phase") != 0 || strncmp(c->name, "to ", 3) != 0)
			continue;
		snprintf(title, sizeof title, "start %s %.1f ms, %.1f ms in the previous run (%s)",
		    c->name, (double)c->now_ns / 1e6, (double)c->before_ns / 1e6, p->baseline);
		const struct proto_issue_fig figs[] = {
			{ "now", (double)c->now_ns, "ns" },
			{ "before", (double)c->before_ns, "ns" },
		};
		const struct daemon_issue_in in = {
			.type = "slow-startup", .where = c->name, .title = title,
			.value = c->now_ns, .threshold = c->before_ns, .unit = "ns",
			.occ = s->started_ms, .tid = s->pid, .thread = "main",
			.figs = figs, .nfigs = 2,
		};
		daemon_issue_raise(s, &in, now_ns);
	}
}

static void
su_free(struct daemon_session *s)
{
	struct su_state *st = su_state(s);

	proto_struct_free(&proto_startup_desc, &st->cur);
	proto_struct_free(&proto_startup_desc, &st->base);
}

static void
su_frame(struct daemon_session *s, struct proto_frame *f)
{
	f->startup = su_state(s)->cur;
}

extern const struct report_section report_section_startup;   /* report_startup.c */

/* No reset op: a start happens once; the record is an absolute snapshot
 * the agent sends again after its reset. */
const struct daemon_collector daemon_collector_startup = {
	.name = "startup",
	.part = &proto_part_startup,
	.on_record = su_on_record,
	.detect = su_detect,
	.free = su_free,
	.fill_frame = su_frame,
	.report = &report_section_startup,
	.state_size = sizeof(struct su_state),
};
