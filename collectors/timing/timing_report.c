/*
 * timing_report.c - the reporter side of the timing collector: sums every
 * thread's per-function figures, keeps the figures of dead threads, applies
 * resets as baselines, and encodes syms and funcs records.
 *
 * Figures are cumulative ticks; a reset does not touch the threads' counters
 * (the hot path owns them) but records a baseline subtracted before sending.
 * Only max is zeroed in place (a relaxed store racing with the owner can at
 * worst keep one call that ended during the reset).
 *
 * Running time is not cumulative: at each harvest it is the sum, over live
 * threads, of the time since the outermost activation of the function began,
 * for functions with an activation on the stack.  It is not baselined by a
 * reset (it is the time so far of calls that will land in total when they
 * return), and threads that exited have none.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "protocol.h"
#include "symbols.h"
#include "timing_int.h"

#define LOAD(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define ACQUIRE(p)   __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELAXED)

#define TM_REC_ITEMS 4096         /* functions or symbols per record */
#define TM_REC_BYTES (256u << 10) /* symbol bytes per record, well under PROTO_MAX_MSG */

/* One function over all threads. */
struct tm_agg {
	uintptr_t     fn;
	struct tm_fig retired;        /* from threads that exited */
	struct tm_fig cur;            /* retired + live threads, last harvest */
	struct tm_fig base;           /* cur at the last reset */
	struct tm_fig sent;           /* cur - base (ticks) in the last record */
	struct tm_fig sent_ns;        /* what the last record said (ns) */
	char         *name;           /* resolved once */
	const char   *module;         /* owned by the symbol cache */
	uint64_t      offset, size;
	bool          resolved;
	bool          sym_sent;       /* on the current connection */
};

static struct tm_agg *tm_aggs;
static size_t tm_naggs, tm_aggs_cap;
static uint32_t tm_agg_gen;       /* moves when the aggregates are forgotten */
static uint32_t *tm_index;        /* open addressing: agg index + 1, 0 = free */
static size_t tm_index_slots;
static uint64_t tm_dropped_retired, tm_dropped_now, tm_dropped_base;
static bool tm_force;             /* send every function in the next record */
static struct proto_ag_sym *tm_sym_buf;   /* one record's worth, kept */
static struct proto_ag_func *tm_func_buf;

/* Slot hash of a function address. */
static size_t tm_agg_hash(uintptr_t fn)
{
	return (size_t)(((uint64_t)fn * 0x9E3779B97F4A7C15ull) >> 20);
}

/* Double the index and re-insert every aggregate. */
static void tm_index_grow(void)
{
	size_t slots = tm_index_slots ? tm_index_slots * 2 : 1024;

	free(tm_index);
	tm_index = xcalloc(slots, sizeof *tm_index);
	tm_index_slots = slots;
	for (size_t k = 0; k < tm_naggs; k++) {
		size_t i = tm_agg_hash(tm_aggs[k].fn) & (slots - 1);

		while (tm_index[i] != 0)
			i = (i + 1) & (slots - 1);
		tm_index[i] = (uint32_t)(k + 1);
	}
}

/* The aggregate of fn, created if new.  The pointer is valid until the next
 * call (the array may move). */
static struct tm_agg *tm_agg_get(uintptr_t fn)
{
	size_t i;

	if ((tm_naggs + 1) * 2 > tm_index_slots)
		tm_index_grow();
	i = tm_agg_hash(fn) & (tm_index_slots - 1);
	while (tm_index[i] != 0) {
		struct tm_agg *a = &tm_aggs[tm_index[i] - 1];

		if (a->fn == fn)
			return a;
		i = (i + 1) & (tm_index_slots - 1);
	}
	if (tm_naggs == tm_aggs_cap) {
		tm_aggs_cap = tm_aggs_cap ? tm_aggs_cap * 2 : 256;
		tm_aggs = xrealloc(tm_aggs, tm_aggs_cap * sizeof *tm_aggs);
	}
	memset(&tm_aggs[tm_naggs], 0, sizeof tm_aggs[0]);
	tm_aggs[tm_naggs].fn = fn;
	tm_index[i] = (uint32_t)++tm_naggs;
	return &tm_aggs[tm_naggs - 1];
}

/* The aggregate of entry k of b's insertion order (e), found by its hash
 * once and then by the index b keeps: a harvest reads every entry of
 * every thread, thousands on a program with many functions.  Valid until
 * the next tm_agg_get. */
static struct tm_agg *tm_agg_of(struct tm_block *b, uint32_t k, const struct tm_entry *e)
{
	if (b->agg_gen != tm_agg_gen) {         /* the indexes are of forgotten aggregates */
		memset(b->aggs, 0, sizeof b->aggs);
		b->agg_gen = tm_agg_gen;
	}
	if (b->aggs[k] == 0)
		b->aggs[k] = (uint32_t)(tm_agg_get(ACQUIRE(&e->fn)) - tm_aggs) + 1;
	return &tm_aggs[b->aggs[k] - 1];
}

/* Add one thread's entry to a figure set.  self is read first (acquire),
 * pairing with the owner's total-then-self stores (see tm_pop). */
static void tm_fig_add(struct tm_fig *f, const struct tm_block *b, const struct tm_entry *e)
{
	uint64_t self = ACQUIRE(&e->self);
	uint64_t max = LOAD(&e->max);

	f->counts += LOAD(&b->counts[e - b->table]);
	f->self += self;
	f->calls += LOAD(&e->calls);
	f->total += LOAD(&e->total);
	f->slow += LOAD(&e->slow);
	if (max > f->max)
		f->max = max;
}

/* Ticks so far of e's outermost activation in a live block at now, or 0.
 * active and start are read without a lock while the owner runs: active
 * (acquire) first, so start is at least as new as the activation seen (see
 * timing.h); a start from a call that has just begun may lie after now, and
 * none can lie before the block existed, so both ends are clamped. */
static uint64_t tm_running(const struct tm_block *b, const struct tm_entry *e,
    uint64_t now)
{
	uint64_t start;

	if (ACQUIRE(&e->active) == 0)
		return 0;
	start = LOAD(&e->start);
	if (start < b->born)
		start = b->born;
	return now > start ? now - start : 0;
}

/* Add a thread's counts of fn from its counted sites' blocks (timing_count.c)
 * to the retired figures (arg non-NULL) or the current ones. */
static void tm_sc_add(uintptr_t fn, uint64_t n, void *retired)
{
	struct tm_agg *a = tm_agg_get(fn);

	(retired != NULL ? &a->retired : &a->cur)->counts += n;
}

/* Fold a dead thread's block into the retired figures. */
static void tm_fold(struct tm_block *b)
{
	uint32_t n = tm_block_count(b);

	for (uint32_t k = 0; k < n; k++) {
		const struct tm_entry *e = tm_block_entry(b, k);

		if (e != NULL)
			tm_fig_add(&tm_agg_of(b, k, e)->retired, b, e);
	}
	tm_sc_each(b, tm_sc_add, b);
	tm_dropped_retired += LOAD(&b->dropped);
}

/* Retire the blocks of threads that exited: fold, unlink, unmap.  Threads
 * only ever push at the head, so only unlinking the head needs a CAS. */
static void tm_retire_dead(void)
{
	struct tm_block *prev = NULL, *b = ACQUIRE(&tm_head);

	while (b != NULL) {
		struct tm_block *next = b->next;

		if (ACQUIRE(&b->state) != TM_DEAD) {
			prev = b;
			b = next;
			continue;
		}
		tm_fold(b);
		tm_cost_retire(b);
		tm_path_fold(b);
		tm_ip_block_gone(b);
		if (prev != NULL) {
			__atomic_store_n(&prev->next, next, __ATOMIC_RELEASE);
		} else {
			struct tm_block *head = b;

			if (!__atomic_compare_exchange_n(&tm_head, &head, next, false,
			    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				/* New threads were pushed in front of b. */
				for (prev = head; prev->next != b; prev = prev->next)
					;
				__atomic_store_n(&prev->next, next, __ATOMIC_RELEASE);
			}
		}
		tm_shadow_retire(b);
		b = next;
	}
	tm_shadow_retire(NULL);   /* those an outside walk kept before */
}

/* Collector harvest: sum the retired and live figures of every function. */
void tm_report_harvest(void)
{
	uint64_t dropped;

	tm_clock_update();
	tm_retire_dead();
	for (size_t k = 0; k < tm_naggs; k++)
		tm_aggs[k].cur = tm_aggs[k].retired;
	dropped = tm_dropped_retired + LOAD(&tm_failed);
	for (struct tm_block *b = ACQUIRE(&tm_head); b != NULL; b = b->next) {
		uint32_t n = tm_block_count(b);
		/* A thread that died since tm_retire_dead runs nothing: frames
		 * it left behind (pthread_exit) never return. */
		bool live = ACQUIRE(&b->state) != TM_DEAD;
		uint64_t now = tm_ticks();

		for (uint32_t k = 0; k < n; k++) {
			const struct tm_entry *e = tm_block_entry(b, k);
			struct tm_agg *a;

			if (e == NULL)
				continue;
			a = tm_agg_of(b, k, e);

			/* active before the figures: see tm_pop. */
			if (live)
				a->cur.running += tm_running(b, e, now);
			tm_fig_add(&a->cur, b, e);
		}
		tm_sc_each(b, tm_sc_add, NULL);
		dropped += LOAD(&b->dropped);
	}
	tm_dropped_now = dropped;
}

/* Collector reset: what is counted now becomes the baseline; max restarts. */
void tm_report_reset(void)
{
	tm_report_harvest();
	for (size_t k = 0; k < tm_naggs; k++) {
		struct tm_agg *a = &tm_aggs[k];

		a->base = a->cur;
		a->retired.max = 0;
		a->cur.max = 0;
		memset(&a->sent, 0, sizeof a->sent);
		memset(&a->sent_ns, 0, sizeof a->sent_ns);
	}
	for (struct tm_block *b = ACQUIRE(&tm_head); b != NULL; b = b->next) {
		uint32_t n = tm_block_count(b);

		for (uint32_t k = 0; k < n; k++)
			if (tm_block_entry(b, k) != NULL)
				STORE(&tm_block_entry(b, k)->max, 0);
	}
	tm_dropped_base = tm_dropped_now;
	tm_path_reset();
	tm_force = true;
	tm_budget_reset();
}

/* Name, module and offset of a function, looked up once.  A site whose
 * module was unloaded is named by the engine, which named it while it was
 * loaded: another module may be mapped at its address since. */
static void tm_agg_resolve(struct tm_agg *a)
{
	const char *gone;
	struct sym_info si;

	if (a->resolved)
		return;
	if ((gone = hook_engine_gone_name(a->fn)) != NULL) {
		a->name = xstrdup(gone);
		si = (struct sym_info){ .module = "" };
	} else if (sym_resolve(a->fn, &si) == 0) {
		a->name = xstrdup(si.name);
	} else if (hook_engine_name(a->fn) != NULL) {
		/* Not in the catalogue: the engine's name of its site. */
		a->name = xstrdup(hook_engine_name(a->fn));
	} else {
		char hex[2 + 2 * sizeof(uintptr_t) + 1];

		snprintf(hex, sizeof hex, "0x%" PRIxPTR, a->fn);
		a->name = xstrdup(hex);
	}
	a->module = si.module;
	a->offset = si.offset;
	a->size = si.size;
	a->resolved = true;
}

/* Append a syms record for every function not yet named on this connection. */
static void tm_encode_syms(msgpack_sbuffer *sb)
{
	struct proto_agent_rec rec = { .type = PROTO_AG_SYMS };
	struct proto_ag_sym *v;
	size_t bytes = 0;

	if (tm_sym_buf == NULL)
		tm_sym_buf = xcalloc(TM_REC_ITEMS, sizeof *tm_sym_buf);
	rec.syms = v = tm_sym_buf;
	for (size_t k = 0; k < tm_naggs; k++) {
		struct tm_agg *a = &tm_aggs[k];

		if (a->sym_sent)
			continue;
		tm_agg_resolve(a);
		v[rec.nsyms++] = (struct proto_ag_sym){
			.addr = a->fn, .name = a->name, .module = (char *)a->module,
			.offset = a->offset, .size = a->size,
		};
		a->sym_sent = true;
		bytes += strlen(a->name) + strlen(a->module) + 64;
		if (rec.nsyms == TM_REC_ITEMS || bytes >= TM_REC_BYTES) {
			proto_agent_encode(sb, &rec);
			rec.nsyms = 0;
			bytes = 0;
		}
	}
	if (rec.nsyms > 0)
		proto_agent_encode(sb, &rec);
}

/* ns for a tick figure; monotonic against what was sent unless the ticks
 * went down (a reset), so refining the clock ratio never shrinks a figure. */
static uint64_t tm_fig_ns(uint64_t ticks, uint64_t sent_ticks, uint64_t sent_ns)
{
	uint64_t ns = (uint64_t)((double)ticks * tm_ns_per_tick + 0.5);

	return ticks >= sent_ticks && ns < sent_ns ? sent_ns : ns;
}

/* Append funcs records: functions whose figures changed (running time
 * included, so a call in flight is sent each time and its return, running
 * back to 0, too), or all of them.  At least one record goes out: it is
 * also the agent's heartbeat. */
static void tm_encode_funcs(msgpack_sbuffer *sb, bool all)
{
	struct proto_agent_rec rec = { .type = PROTO_AG_FUNCS };
	struct proto_ag_func *v;
	bool sent_one = false;

	if (tm_func_buf == NULL)
		tm_func_buf = xcalloc(TM_REC_ITEMS, sizeof *tm_func_buf);
	rec.funcs = v = tm_func_buf;
	rec.time_ns = proto_now_ns();
	rec.threads = LOAD(&tm_threads);
	rec.dropped = tm_dropped_now - tm_dropped_base;
	tm_budget_rec(&rec);
	for (size_t k = 0; k < tm_naggs; k++) {
		struct tm_agg *a = &tm_aggs[k];
		struct proto_ag_func mode = { .mode = 0 };
		struct tm_fig now = {
			.calls = a->cur.calls + a->cur.counts - a->base.calls - a->base.counts,
			.total = a->cur.total - a->base.total,
			.self = a->cur.self - a->base.self,
			.max = a->cur.max,
			.slow = a->cur.slow - a->base.slow,
			.running = a->cur.running,     /* not cumulative: no baseline */
		};
		/* The budget's figures where it estimates, and its mode. */
		tm_budget_fig(k, &now, &mode);
		struct tm_fig ns = {
			.calls = now.calls, .slow = now.slow,
			.total = tm_fig_ns(now.total, a->sent.total, a->sent_ns.total),
			.self = tm_fig_ns(now.self, a->sent.self, a->sent_ns.self),
			.max = tm_fig_ns(now.max, a->sent.max, a->sent_ns.max),
			.running = (uint64_t)((double)now.running * tm_ns_per_tick + 0.5),
		};

		if (!all && memcmp(&now, &a->sent, sizeof now) == 0)
			continue;
		v[rec.nfuncs++] = (struct proto_ag_func){
			.addr = a->fn, .calls = ns.calls, .total_ns = ns.total,
			.self_ns = ns.self, .max_ns = ns.max, .slow = ns.slow,
			.running_ns = ns.running, .mode = mode.mode, .calls_est = mode.calls_est,
			.time_est = mode.time_est, .mode_since_ns = mode.mode_since_ns,
			.hook_ppm = mode.hook_ppm,
		};
		a->sent = now;
		a->sent_ns = ns;
		if (rec.nfuncs == TM_REC_ITEMS) {
			proto_agent_encode(sb, &rec);
			rec.nfuncs = 0;
			sent_one = true;
		}
	}
	tm_path_encode(sb, &rec, all);
	if (rec.nfuncs > 0 || rec.npaths > 0 || !sent_one)
		proto_agent_encode(sb, &rec);
}

/* Collector encode: names first, then the figures that refer to them. */
void tm_report_encode(msgpack_sbuffer *sb, bool resend_all)
{
	bool all = resend_all || tm_force;

	tm_force = false;
	if (resend_all)
		for (size_t k = 0; k < tm_naggs; k++)
			tm_aggs[k].sym_sent = false;
	tm_encode_syms(sb);
	tm_encode_funcs(sb, all);
}

/* See timing_int.h. */
const struct tm_fig *tm_report_cur(size_t k)
{
	return &tm_aggs[k].cur;
}

/* See timing_int.h. */
size_t tm_report_find(uintptr_t fn)
{
	size_t i;

	if (tm_index_slots == 0)
		return SIZE_MAX;
	for (i = tm_agg_hash(fn) & (tm_index_slots - 1); tm_index[i] != 0; i = (i + 1) & (tm_index_slots - 1))
		if (tm_aggs[tm_index[i] - 1].fn == fn)
			return tm_index[i] - 1;
	return SIZE_MAX;
}

/* See timing_int.h. */
const char *tm_report_name(size_t k)
{
	tm_agg_resolve(&tm_aggs[k]);
	return tm_aggs[k].name;
}

/* See timing.h: the functions seen so far, in the order first seen
 * (append-only until tm_report_forget). */
size_t tm_report_count(void)
{
	return tm_naggs;
}

/* See timing.h. */
uintptr_t tm_report_fn(size_t k)
{
	return k < tm_naggs ? tm_aggs[k].fn : 0;
}

/* Fork child: drop every aggregate (the figures were the parent's). */
void tm_report_forget(void)
{
	for (size_t k = 0; k < tm_naggs; k++)
		free(tm_aggs[k].name);
	free(tm_aggs);
	free(tm_index);
	tm_aggs = NULL;
	tm_index = NULL;
	tm_naggs = tm_aggs_cap = tm_index_slots = 0;
	tm_dropped_retired = tm_dropped_now = tm_dropped_base = 0;
	tm_force = false;
	tm_agg_gen++;
	tm_path_forget();
}
