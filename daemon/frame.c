/*
 * frame.c - what a client receives: the hello on connect and, --rate times
 * a second, a frame of its target's top functions under its own view (sort
 * key, top N, filter), ranked once for all the clients sharing that view.  Strings are borrowed from the sessions; nothing here
 * outlives one encode.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"

/* Borrowed wire views of all sessions; caller frees the array. */
static struct proto_target *
frame_targets(struct daemon_state *d, size_t *n)
{
	struct proto_target *t = xcalloc(d->sessions.n ? d->sessions.n : 1, sizeof *t);

	*n = daemon_sessions_targets(&d->sessions, t);
	return t;
}

/* Encode the hello (version and every target) into sb. */
void
daemon_hello_encode(struct daemon_state *d, msgpack_sbuffer *sb)
{
	size_t n;
	struct proto_target *t = frame_targets(d, &n);

	msgpack_sbuffer_clear(sb);
	proto_encode_hello(sb, HS_VERSION, t, n);
	free(t);
}

/* Fill f->funcs from ranked rows; hex holds names of unnamed functions. */
static void
frame_rows(struct proto_frame *f, struct daemon_func *const *rows, size_t n,
    uint64_t self_total, char (*hex)[24], uint64_t now_ns)
{
	for (size_t i = 0; i < n; i++) {
		const struct daemon_func *r = rows[i];
		struct proto_func *p = &f->funcs[i];

		if (r->name == NULL)
			snprintf(hex[i], sizeof hex[i], "0x%" PRIx64, r->addr);
		*p = (struct proto_func){
			.name = r->name ? r->name : hex[i],
			.module = r->module ? r->module : "",
			.addr = r->addr,
			.calls = r->calls,
			.calls_per_s = r->rate,
			.total_ns = r->total_ns,
			.self_ns = r->self_ns,
			.avg_ns = daemon_func_avg(r),
			.max_ns = r->max_ns,
			.slow = r->slow,
			.share = self_total ? (double)r->self_ns / (double)self_total : 0.0,
			.running_ns = r->running_ns,
			.mode = r->mode,
			.calls_est = r->calls_est,
			.time_est = r->time_est,
			.mode_age_ms = daemon_func_mode_age_ms(r, now_ns),
			.hook_ppm = r->hook_ppm,
		};
	}
	f->nfuncs = n;
}

/* Encode the client's next frame into sb (see daemon.h). */
void
daemon_frame_encode(struct daemon_state *d, struct daemon_client *c,
    msgpack_sbuffer *sb)
{
	struct daemon_view *v = &c->view;
	struct proto_frame f = { 0 };
	struct daemon_session *s;
	struct daemon_func *const *rows = NULL;
	struct daemon_totals tot = { 0 };
	char (*hex)[24] = NULL, (*phex)[24] = NULL;
	size_t n = 0;
	uint64_t now = proto_now_ns();

	/* A target that was forgotten (or evicted) falls back to auto. */
	if (v->target != 0 && daemon_sessions_find(&d->sessions, v->target) == NULL)
		v->target = 0;
	s = daemon_sessions_pick(&d->sessions, v->target);
	f.seq = ++c->seq;
	f.time_ms = proto_wall_ms();
	f.sort = (char *)proto_rank_name(v->sort);
	f.targets = frame_targets(d, &f.ntargets);
	if (s != NULL) {
		daemon_session_tick(s, now);
		/* Shared by the clients with the same view (rank_view.c). */
		n = daemon_rank_view(s, v->sort, v->filter, v->top, &rows, &tot);
		hex = xcalloc(n ? n : 1, sizeof *hex);
		f.funcs = xcalloc(n ? n : 1, sizeof *f.funcs);
		frame_rows(&f, rows, n, tot.self_ns, hex, now);
		f.pid = s->pid;
		f.agent_age_ms = s->last_report_ns && now > s->last_report_ns ?
		    (now - s->last_report_ns) / 1000000 : 0;
		f.nfuncs_seen = s->funcs.n;
		f.calls_total = tot.calls;
		f.self_total_ns = tot.self_ns;
		f.dropped = s->dropped;
		f.overhead_ps = s->overhead_ps;
		f.threads = s->threads;
		f.cost_ppm = s->cost_ppm;
		if (daemon_session_cost_sampled(s, &f.cost_sampled_ppm))
			f.cost_samples = s->ip_samples;
		f.budget_ppm = s->budget_ppm;
		f.demoted = daemon_session_demoted(s);
		f.paths = daemon_paths_frame(s, DAEMON_FRAME_PATHS, &f.npaths, &phex);
		f.paths_dropped = s->paths.dropped;
		daemon_session_frame(s, &f);   /* each collector's part, borrowed */
	}
	/* Huge symbol names could push a frame past the cap: send fewer rows. */
	for (;;) {
		msgpack_sbuffer_clear(sb);
		proto_encode_frame(sb, &f);
		if (sb->size <= PROTO_MAX_FRAME || (f.nfuncs == 0 && f.npaths == 0))
			break;
		f.nfuncs /= 2;
		f.npaths = 0;     /* the rows first; the tree is whole or absent */
	}
	free(f.targets);
	free(f.funcs);
	free(f.paths);
	free(hex);
	free(phex);
}
