/*
 * threads.c - the threads collector, reporter side: walks the thread
 * records the wrappers write (threads_hooks.c), samples each live thread's
 * CPU time and name, groups threads into creation sites (same start
 * routine, same calling address: a site that made two or more threads is
 * an inferred pool), tells the level selection about new start routines,
 * and sends a "threads" record (threads_encode.c).
 *
 * Every cycle lists /proc/self/task and reads each task's CPU clock (one
 * clock_gettime, in ns; /proc's stat counts 10 ms ticks and costs an open,
 * a read and a close per thread: 0.6% of a core for a hundred threads at
 * ten cycles a second).  Names come from /proc's comm: for a
 * task first seen within the last THR_YOUNG_NS (a thread names itself as
 * it starts) at every cycle, for the others every THR_NAME_EVERY cycles.
 *
 * Records below thr_low are settled (failed, or ended and joined or
 * detached): they are not walked again, so a program that made a million
 * short threads costs the walk of its unsettled ones only.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "collector.h"
#include "select.h"
#include "symbols.h"
#include "threads_int.h"
#include "threads_rep.h"

#define THR_MAX_RECS  ((uint32_t)THR_CHUNK * THR_MAX_CHUNKS)
#define THR_MAX_TASKS 4096             /* /proc/self/task entries read per cycle */
#define THR_YOUNG_NS  1000000000ull    /* names read every cycle this long */
#define THR_NAME_EVERY 10              /* then every this many cycles */

extern uint32_t thr_low;               /* threads_hooks.c */

struct thr_state thr_st;

/* One entry of /proc/self/task. */
struct thr_task {
	int32_t  tid;
	bool     matched;
	uint64_t cpu_ns;
	uint64_t first_ns;             /* when the task was first listed */
	char     comm[16];
};
/* This cycle's tasks and the last one's, each sorted by tid. */
static struct thr_task thr_lists[2][THR_MAX_TASKS];
static struct thr_task *thr_tasks = thr_lists[0], *thr_prev = thr_lists[1];
static size_t thr_ntasks, thr_nprev;
static unsigned thr_cycle;

/* Collector init: the wrappers' state. */
static int thr_init(void)
{
	if (threads_hooks_init() < 0)
		return -1;
	if (agent_attached())
		threads_hooks_adopt();
	return 0;
}

/* Read task tid's name (comm) into t. */
static int thr_read_comm(int32_t tid, struct thr_task *t)
{
	char buf[32];
	ssize_t n = agent_task_read(tid, "comm", buf, sizeof buf);

	if (n <= 0)
		return -1;
	if (buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	snprintf(t->comm, sizeof t->comm, "%.15s", buf);
	return 0;
}

static int thr_tid_cmp(const void *a, const void *b)
{
	const struct thr_task *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Last cycle's entry of tid, or NULL. */
static const struct thr_task *thr_prev_of(int32_t tid)
{
	struct thr_task key = { .tid = tid };

	return thr_nprev ? bsearch(&key, thr_prev, thr_nprev, sizeof key, thr_tid_cmp) : NULL;
}

/* Read task tid: CPU time always, the name when it is due (see the top). */
static int thr_read_task(int32_t tid, uint64_t now, bool names, struct thr_task *t)
{
	const struct thr_task *p = thr_prev_of(tid);
	struct timespec ts;

	if (clock_gettime(agent_tid_clock(tid), &ts) < 0)
		return -1;                /* gone */
	t->tid = tid;
	t->matched = false;
	t->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	t->first_ns = p != NULL ? p->first_ns : now;
	if (p != NULL && !names && now - p->first_ns >= THR_YOUNG_NS) {
		memcpy(t->comm, p->comm, sizeof t->comm);
		return 0;
	}
	if (thr_read_comm(tid, t) < 0) {
		if (p == NULL)
			return -1;        /* gone */
		memcpy(t->comm, p->comm, sizeof t->comm);
	}
	return 0;
}

/* Read every task of this process. */
static void thr_read_tasks(uint64_t now)
{
	DIR *d = opendir("/proc/self/task");
	struct thr_task *swap = thr_prev;
	bool names = thr_cycle++ % THR_NAME_EVERY == 0;
	struct dirent *e;

	thr_prev = thr_tasks;
	thr_nprev = thr_ntasks;
	thr_tasks = swap;
	thr_ntasks = 0;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && thr_ntasks < THR_MAX_TASKS) {
		int tid = atoi(e->d_name);

		if (tid > 0 && thr_read_task(tid, now, names, &thr_tasks[thr_ntasks]) == 0)
			thr_ntasks++;
	}
	closedir(d);
	qsort(thr_tasks, thr_ntasks, sizeof *thr_tasks, thr_tid_cmp);
}

/* The task entry of tid, marked as belonging to a known thread. */
static struct thr_task *thr_task_of(int32_t tid)
{
	struct thr_task key = { .tid = tid }, *t;

	t = thr_ntasks ? bsearch(&key, thr_tasks, thr_ntasks, sizeof key, thr_tid_cmp) : NULL;
	if (t != NULL)
		t->matched = true;
	return t;
}

/* The function a return address lies in (its first byte), or the address
 * itself when no symbol covers it: a loop the compiler unrolled has several
 * call instructions but is one creation site. */
static uintptr_t thr_caller_fn(uintptr_t ret)
{
	struct sym_info si;

	if (ret == 0 || sym_resolve(ret - 1, &si) != 0)
		return ret;
	return ret - 1 - (uintptr_t)(si.offset - si.start);
}

/* The site of a record's start routine and calling function, made on
 * first sight. */
static struct thr_site *thr_site_of(const struct thr_rec *r)
{
	uintptr_t caller = thr_caller_fn(r->caller);
	struct thr_site *s;

	for (size_t i = 0; i < thr_st.nsites; i++)
		if (thr_st.sites[i].start == (uintptr_t)r->start && thr_st.sites[i].caller == caller)
			return &thr_st.sites[i];
	if (thr_st.nsites == thr_st.capsites) {
		thr_st.capsites = thr_st.capsites ? 2 * thr_st.capsites : 16;
		thr_st.sites = xrealloc(thr_st.sites, thr_st.capsites * sizeof *thr_st.sites);
	}
	s = &thr_st.sites[thr_st.nsites++];
	memset(s, 0, sizeof *s);
	s->id = (uint32_t)thr_st.nsites;
	s->start = (uintptr_t)r->start;
	s->caller = caller;
	s->nstack = r->nstack;
	memcpy(s->stack, r->stack, r->nstack * sizeof *s->stack);
	return s;
}

/* Make room for the reporter's view of n records. */
static void thr_seen_grow(uint32_t n)
{
	size_t cap = thr_st.capseen;

	if (n <= cap)
		return;
	while (cap < n)
		cap = cap ? 2 * cap : 256;
	thr_st.seen = xrealloc(thr_st.seen, cap * sizeof *thr_st.seen);
	memset(thr_st.seen + thr_st.capseen, 0, (cap - thr_st.capseen) * sizeof *thr_st.seen);
	thr_st.capseen = cap;
}

/* A live thread's CPU time and CPU share since the last sample. */
static void thr_sample(struct thr_seen *v, const struct thr_task *t, uint64_t now)
{
	if (t == NULL)
		return;
	if (v->prev_ns != 0 && now > v->prev_ns && t->cpu_ns >= v->cpu_ns)
		v->pct = 100.0 * (double)(t->cpu_ns - v->cpu_ns) / (double)(now - v->prev_ns);
	v->cpu_ns = t->cpu_ns;
	v->prev_ns = now;
	memcpy(v->comm, t->comm, sizeof v->comm);
}

/* Walk one unsettled record: site, liveness, CPU. */
static void thr_visit(uint32_t i, struct thr_rec *r, uint64_t now)
{
	uint32_t f = __atomic_load_n(&r->flags, __ATOMIC_ACQUIRE);
	struct thr_seen *v = &thr_st.seen[i];
	bool confirmed = i == 0 || (f & THR_F_STARTED) ||
	    __atomic_load_n(&r->handle, __ATOMIC_RELAXED) != 0;
	bool alive = confirmed && !(f & THR_F_ENDED);

	if (f & THR_F_FAILED)
		return;
	if (!(f & THR_F_AGENT) && i != 0 && confirmed && v->site == 0) {
		struct thr_site *s = thr_site_of(r);

		s->created++;
		v->site = s->id;
	}
	/* A thread from before the attach has no wrapper to see it end:
	 * gone from /proc, it exited. */
	if (alive && (f & THR_F_BEFORE) &&
	    thr_task_of(__atomic_load_n(&r->tid, __ATOMIC_RELAXED)) == NULL) {
		__atomic_store_n(&r->end_ns, now, __ATOMIC_RELAXED);
		__atomic_store_n(&r->flags, f | THR_F_ENDED | THR_F_DETACHED, __ATOMIC_RELEASE);
		return;
	}
	if (alive) {
		thr_sample(v, (f & THR_F_STARTED) ?
		    thr_task_of(__atomic_load_n(&r->tid, __ATOMIC_RELAXED)) : NULL, now);
		if (f & THR_F_AGENT)
			thr_st.agent_cpu_live += v->cpu_ns;
		else if (v->site != 0)
			thr_st.sites[v->site - 1].live++;
	} else if (f & THR_F_ENDED) {
		v->cpu_ns = __atomic_load_n(&r->cpu_ns, __ATOMIC_RELAXED);
		v->pct = 0;
	}
}

/* Is record r settled: never to change again? */
static bool thr_settled(const struct thr_rec *r)
{
	uint32_t f = __atomic_load_n(&r->flags, __ATOMIC_ACQUIRE);

	return (f & THR_F_FAILED) ||
	    ((f & THR_F_ENDED) && (f & (THR_F_JOINED | THR_F_DETACHED)));
}

/* Name new sites' start routines; a new one re-applies levels 1-3. */
static void thr_note_starts(void)
{
	bool changed = false;
	int level;

	for (size_t i = 0; i < thr_st.nsites; i++) {
		struct thr_site *s = &thr_st.sites[i];
		struct sym_info si;

		if (s->noted)
			continue;
		s->noted = true;
		if (sym_resolve(s->start, &si) == 0 && select_start_add(si.name))
			changed = true;
	}
	level = agent_level();
	if (changed && level >= 1 && level <= 3) {
		agent_log("threads: new thread start routines: level %d applied again", level);
		agent_set_level(level);
	}
}

/* Harvest: sample the tasks, walk the unsettled records, advance thr_low. */
static void thr_harvest(void)
{
	uint32_t n = __atomic_load_n(&thr_next, __ATOMIC_RELAXED);
	uint64_t now = proto_now_ns();

	if (n > THR_MAX_RECS)
		n = THR_MAX_RECS;
	thr_seen_grow(n);
	thr_read_tasks(now);
	for (size_t i = 0; i < thr_st.nsites; i++)
		thr_st.sites[i].live = 0;
	thr_st.agent_cpu_live = 0;
	for (uint32_t i = thr_st.low; i < n; i++) {
		struct thr_rec *r = threads_rec(i);

		if (r != NULL)
			thr_visit(i, r, now);
	}
	while (thr_st.low < n) {
		struct thr_rec *r = threads_rec(thr_st.low);

		if (r == NULL || thr_st.low == 0 || !thr_settled(r))
			break;
		if (__atomic_load_n(&r->flags, __ATOMIC_RELAXED) & THR_F_AGENT)
			thr_st.agent_cpu_done += thr_st.seen[thr_st.low].cpu_ns;
		thr_st.low++;
	}
	__atomic_store_n(&thr_low, thr_st.low, __ATOMIC_RELAXED);
	thr_st.other_live = 0;
	for (size_t i = 0; i < thr_ntasks; i++)
		thr_st.other_live += !thr_tasks[i].matched;
	thr_st.nrecs = n;
	thr_st.now_ns = now;
	thr_note_starts();
}

/* Fork child: the parent's threads are forgotten. */
static void thr_atfork_child(void)
{
	threads_encode_forget();
	free(thr_st.seen);
	memset(&thr_st, 0, sizeof thr_st);
	thr_ntasks = thr_nprev = 0;       /* the parent's tids */
	threads_hooks_atfork_child();
	threads_pools_atfork_child();
}

/* The daemon's reset: counts start again from zero (threads alive now stay
 * listed, ended ones go), sites count anew, pools' figures restart (a task
 * in flight may land on either side). */
static void thr_reset(void)
{
	thr_st.base_created = __atomic_load_n(&thr_created, __ATOMIC_RELAXED);
	thr_st.base_exited = __atomic_load_n(&thr_exited, __ATOMIC_RELAXED);
	thr_st.reset_rec = thr_st.nrecs;
	for (size_t i = 0; i < thr_st.nsites; i++)
		thr_st.sites[i].created = 0;
	for (uint32_t i = 0; i < THR_MAX_POOLS; i++) {
		struct thr_pool *p = __atomic_load_n(&thr_pools[i], __ATOMIC_ACQUIRE);

		if (p == NULL)
			continue;
		__atomic_store_n(&p->pushed, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p->done, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p->wait_ns, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p->wait_max_ns, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p->run_ns, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p->run_max_ns, 0, __ATOMIC_RELAXED);
	}
}

const struct collector_ops threads_collector = {
	.name         = "threads",
	.init         = thr_init,
	.reset        = thr_reset,
	.harvest      = thr_harvest,
	.encode       = threads_encode,
	.atfork_child = thr_atfork_child,
};
