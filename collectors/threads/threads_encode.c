/*
 * threads_encode.c - the threads collector's "threads" record: counts, the
 * target's threads (the live ones first, then the most recently ended, at
 * most PROTO_MAX_THREADS), creation sites with their start routine and
 * creation stack named by the symbol catalogue (once per site, here on the
 * reporter thread), and pools.  Sent when something changed, at least once
 * a second while there is more than the main thread, and after a connect.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "collector.h"
#include "hookscope.h"
#include "symbols.h"
#include "threads_rep.h"

#define THR_RESEND_NS  1000000000ull   /* ages move: send at least this often */
#define THR_LEAK_NS    1000000000ull   /* ended, unjoined this long: leaked */

static struct proto_thr_thread thr_out[PROTO_MAX_THREADS];
static struct proto_thr_site   thr_out_sites[PROTO_MAX_TSITES];
static struct proto_thr_pool   thr_out_pools[PROTO_MAX_POOLS];
static struct proto_thr_frame  thr_pool_func[THR_MAX_POOLS];
static bool     thr_pool_named[THR_MAX_POOLS];
static uint64_t thr_sig_sent, thr_sent_ns;

/* Name a code address: function, offset into it, module base name.  A
 * return address is looked up one byte back (a call at a function's end
 * returns past it). */
static void thr_frame_name(struct proto_thr_frame *f, uintptr_t addr, bool ret)
{
	struct sym_info si = { .module = "" };
	uintptr_t look = ret && addr > 0 ? addr - 1 : addr;
	const char *base;

	f->addr = addr;
	if (sym_resolve(look, &si) == 0 && si.name != NULL) {
		f->name = xstrdup(si.name);
		f->off = si.offset - si.start + (look != addr);
	} else {
		f->name = xstrdup("");
		f->off = 0;
	}
	base = si.module != NULL ? strrchr(si.module, '/') : NULL;
	f->module = xstrdup(base != NULL ? base + 1 : si.module != NULL ? si.module : "");
}

/* Free a named address's strings. */
static void thr_frame_drop(struct proto_thr_frame *f)
{
	free(f->name);
	free(f->module);
	memset(f, 0, sizeof *f);
}

/* The state word of a thread (doc/protocol.md).  In the report made as the
 * process exits, a thread still running that nobody detached is leaked:
 * it was never going to be joined.  Not the main thread (record 0): it is
 * the one exiting, and nobody joins it. */
static const char *thr_state_name(uint32_t f, uint64_t end_ns, uint64_t now, bool main)
{
	bool exiting = !hookscope_active() && !agent_detach_unloading() && !main;

	if (!(f & THR_F_ENDED) && (f & THR_F_BEFORE))
		return "pre-attach";
	if (!(f & THR_F_ENDED))
		return (f & THR_F_DETACHED) ? "detached" : exiting ? "leaked" : "running";
	if (f & THR_F_JOINED)
		return "joined";
	if (f & THR_F_DETACHED)
		return "exited";
	return now > end_ns + THR_LEAK_NS ? "leaked" : "ended";
}

/* One thread's entry from its record and the reporter's view. */
static void thr_fill_thread(struct proto_thr_thread *o, uint32_t i, const struct thr_rec *r,
    uint64_t now)
{
	struct thr_seen *v = &thr_st.seen[i];
	uint32_t f = __atomic_load_n(&r->flags, __ATOMIC_ACQUIRE);
	uint64_t w[2] = { __atomic_load_n(&r->name[0], __ATOMIC_RELAXED),
	    __atomic_load_n(&r->name[1], __ATOMIC_RELAXED) };

	if (((f & THR_F_ENDED) || v->comm[0] == '\0') && (w[0] & 0xff) != 0) {
		memcpy(v->comm, w, sizeof v->comm);
		v->comm[sizeof v->comm - 1] = '\0';
	}
	o->id = i;
	o->tid = __atomic_load_n(&r->tid, __ATOMIC_RELAXED);
	o->creator = r->creator;
	o->site = v->site;
	o->pool = __atomic_load_n(&r->pool, __ATOMIC_RELAXED);
	o->name = v->comm;
	o->state = (char *)thr_state_name(f, __atomic_load_n(&r->end_ns, __ATOMIC_RELAXED), now, i == 0);
	o->start_ns = __atomic_load_n(&r->start_ns, __ATOMIC_RELAXED);
	if (o->start_ns == 0)
		o->start_ns = r->create_ns;
	o->end_ns = (f & THR_F_ENDED) ? __atomic_load_n(&r->end_ns, __ATOMIC_RELAXED) : 0;
	o->cpu_ns = v->cpu_ns;
	o->cpu_pct = (f & THR_F_ENDED) ? 0 : v->pct;
}

/* Is record r a thread of the target that ran or runs? ended selects
 * ended ones, else live ones. */
static bool thr_pick(const struct thr_rec *r, uint32_t i, bool ended)
{
	uint32_t f;

	if (r == NULL)
		return false;
	f = __atomic_load_n(&r->flags, __ATOMIC_ACQUIRE);
	if (f & (THR_F_FAILED | THR_F_AGENT))
		return false;
	if (i != 0 && thr_st.seen[i].site == 0)
		return false;                 /* not confirmed yet */
	return ended == !!(f & THR_F_ENDED);
}

/* The threads to send: live ones (newest first), then ended ones. */
static size_t thr_fill_threads(uint64_t now, uint64_t *sig)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = thr_st.nrecs, lo = pass ? thr_st.reset_rec : thr_st.low;
		    i-- > lo && n < PROTO_MAX_THREADS;) {
			struct thr_rec *r = threads_rec(i);

			if (!thr_pick(r, i, pass == 1))
				continue;
			thr_fill_thread(&thr_out[n], i, r, now);
			*sig = *sig * 31 + thr_out[n].cpu_ns + thr_out[n].state[0] + thr_out[n].pool +
			    (uint64_t)thr_out[n].tid + (unsigned char)thr_out[n].name[0];
			n++;
		}
	return n;
}

/* The sites, most threads first, named on first use. */
static size_t thr_fill_sites(uint64_t *sig)
{
	struct thr_site **order = xcalloc(thr_st.nsites ? thr_st.nsites : 1, sizeof *order);
	size_t n = 0;

	for (size_t i = 0; i < thr_st.nsites; i++)
		order[i] = &thr_st.sites[i];
	for (size_t i = 1; i < thr_st.nsites; i++)      /* insertion sort: few sites */
		for (size_t k = i; k > 0 && order[k]->created > order[k - 1]->created; k--) {
			struct thr_site *t = order[k];

			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (; n < thr_st.nsites && n < PROTO_MAX_TSITES; n++) {
		struct thr_site *s = order[n];

		if (!s->named) {
			thr_frame_name(&s->fstart, s->start, false);
			for (uint32_t k = 0; k < s->nstack; k++)
				thr_frame_name(&s->fstack[k], s->stack[k], true);
			s->named = true;
		}
		thr_out_sites[n] = (struct proto_thr_site){ .id = s->id, .start = s->fstart,
		    .created = s->created, .live = s->live, .nstack = s->nstack,
		    .stack = s->fstack };
		*sig = *sig * 31 + s->created * 7 + s->live;
	}
	free(order);
	return n;
}

/* Live workers of pool id among the unsettled records. */
static uint64_t thr_pool_workers(uint32_t id)
{
	uint64_t w = 0;

	for (uint32_t i = thr_st.low; i < thr_st.nrecs; i++) {
		struct thr_rec *r = threads_rec(i);

		if (thr_pick(r, i, false) && __atomic_load_n(&r->pool, __ATOMIC_RELAXED) == id)
			w++;
	}
	return w;
}

/* The pools with their figures. */
static size_t thr_fill_pools(uint64_t *sig)
{
	uint32_t n = __atomic_load_n(&thr_npools, __ATOMIC_RELAXED), k = 0;

	for (uint32_t i = 0; i < n && i < THR_MAX_POOLS && k < PROTO_MAX_POOLS; i++) {
		struct thr_pool *p = __atomic_load_n(&thr_pools[i], __ATOMIC_ACQUIRE);
		struct proto_thr_pool *o = &thr_out_pools[k];

		if (p == NULL)
			continue;
		/* The pool is listed before its creator sets func (atomic). */
		if (!thr_pool_named[i]) {
			uintptr_t func = __atomic_load_n(&p->func, __ATOMIC_ACQUIRE);

			if (func != 0)
				thr_frame_name(&thr_pool_func[i], func, false);
			thr_pool_named[i] = func != 0 || p->kind == NULL ||
			    strcmp(p->kind, "gthreadpool") != 0;
		}
		*o = (struct proto_thr_pool){
			.id = p->id, .kind = (char *)p->kind, .func = thr_pool_func[i],
			.size = __atomic_load_n(&p->size, __ATOMIC_RELAXED),
			.workers = thr_pool_workers(p->id),
			.done = __atomic_load_n(&p->done, __ATOMIC_ACQUIRE),
			.pushed = __atomic_load_n(&p->pushed, __ATOMIC_RELAXED),
			.wait_ns = __atomic_load_n(&p->wait_ns, __ATOMIC_RELAXED),
			.wait_max_ns = __atomic_load_n(&p->wait_max_ns, __ATOMIC_RELAXED),
			.run_ns = __atomic_load_n(&p->run_ns, __ATOMIC_RELAXED),
			.run_max_ns = __atomic_load_n(&p->run_max_ns, __ATOMIC_RELAXED),
			.freed = __atomic_load_n(&p->freed, __ATOMIC_RELAXED) != 0,
		};
		if (o->pushed < o->done)      /* pushed is read after done */
			o->pushed = o->done;
		*sig = *sig * 31 + o->pushed * 3 + o->done + o->workers + o->freed;
		k++;
	}
	return k;
}

/* See threads_rep.h. */
void threads_encode(msgpack_sbuffer *sb, bool resend_all)
{
	struct proto_agent_rec rec = { .type = PROTO_AG_THREADS };
	struct proto_threads *t = &rec.thr;
	uint64_t now = thr_st.now_ns, sig = 0, exited, dropped;

	t->time_ns = now;
	t->created = __atomic_load_n(&thr_created, __ATOMIC_RELAXED);
	exited = __atomic_load_n(&thr_exited, __ATOMIC_RELAXED);
	dropped = __atomic_load_n(&thr_dropped, __ATOMIC_RELAXED);
	t->exited = exited - thr_st.base_exited;
	t->dropped = dropped;
	t->live = 1 + t->created - dropped > exited ? 1 + t->created - dropped - exited : 1;
	t->created -= thr_st.base_created;
	t->other_live = thr_st.other_live;
	t->agent_created = __atomic_load_n(&thr_agent_created, __ATOMIC_RELAXED);
	t->agent_live = t->agent_created - __atomic_load_n(&thr_agent_exited, __ATOMIC_RELAXED);
	t->agent_cpu_ns = thr_st.agent_cpu_live + thr_st.agent_cpu_done;
	t->nthreads = thr_fill_threads(now, &sig);
	t->threads = thr_out;
	t->nsites = thr_fill_sites(&sig);
	t->sites = thr_out_sites;
	t->npools = thr_fill_pools(&sig);
	t->pools = thr_out_pools;
	sig = sig * 31 + t->created * 5 + exited * 3 + t->other_live + t->agent_live;
	if (!resend_all && sig == thr_sig_sent &&
	    (now < thr_sent_ns + THR_RESEND_NS || t->live + t->other_live <= 1))
		return;
	thr_sig_sent = sig;
	thr_sent_ns = now;
	proto_agent_encode(sb, &rec);
}

/* See threads_rep.h. */
void threads_encode_forget(void)
{
	for (size_t i = 0; i < thr_st.nsites; i++) {
		struct thr_site *s = &thr_st.sites[i];

		if (!s->named)
			continue;
		thr_frame_drop(&s->fstart);
		for (uint32_t k = 0; k < s->nstack; k++)
			thr_frame_drop(&s->fstack[k]);
	}
	free(thr_st.sites);
	for (size_t i = 0; i < THR_MAX_POOLS; i++)
		if (thr_pool_named[i])
			thr_frame_drop(&thr_pool_func[i]);
	memset(thr_pool_named, 0, sizeof thr_pool_named);
	thr_sig_sent = thr_sent_ns = 0;
}
