/*
 * memory.c - the memory collector (reporter thread): reads the stack
 * table's counters (memory_int.h), sends one "memory" record when they
 * changed: the heap's totals and every site whose figures moved, its
 * stack symbolized the first time it is sent (here, never on the
 * allocating thread), and the biggest live blocks (of those of
 * MEM_BIG_MIN bytes or more, which the hot path lists apart).
 *
 * Mode: HOOKSCOPE_MEMORY=full|sampled|off, else by level (0 off, 1-2
 * sampled, 3-4 full while the overhead budget is off, else sampled); threshold "memory" switches live (bytes: 0 every
 * allocation, else sampled with that mean interval; HOOKSCOPE_MEMORY_SAMPLE
 * at start).  Threshold "leak": the daemon's leak window, echoed back.
 * A program whose malloc is not ours (its own allocator, a sanitizer's)
 * is said so and the mode is "replaced".  Attached, the binder puts the
 * wrappers into the GOTs memory_hooks.c's table names; blocks from before
 * the attach are unknown.  Request "leaks": the
 * reachability scan (memory_leaks.c), its result sent once.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "agent.h"
#include "bind.h"
#include "symbols.h"
#include "timing.h"
#include "collector.h"
#include "memory_int.h"

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define LEAK_WINDOW_DEFAULT_NS (30ull * 1000000000)

/* What the last record said of a site, and the reset baseline. */
struct mem_sent {
	uint64_t ab, fb, am, fm, allocs, frees;
	uint64_t base_ab, base_allocs, base_frees;
	bool stack;
};
static struct mem_sent *mem_sent;
static bool mem_explicit;                 /* the mode came from the user, not the level */
static bool mem_interval_user;            /* so did the sampling interval: the budget keeps it */
static uint64_t mem_adapt_cpu, mem_adapt_ns;   /* process CPU and sample_ns at the last look */
static bool mem_replaced;
static bool mem_cfg_changed = true;
static uint64_t mem_leak_ns = LEAK_WINDOW_DEFAULT_NS;
static struct proto_mem_block mem_big[MEM_BIG];
static size_t mem_nbig;
static struct proto_mem_leaks mem_leaks;  /* the last leak scan's result */
static bool mem_leaks_new;                /* not sent yet */
static uint64_t mem_sent_untracked, mem_sent_unknown;   /* as last sent */

static const char *const mem_mode_names[] = { "off", "full", "sampled" };

/* Is the malloc the program calls ours?  (Another allocator linked into
 * the program or preloaded first, or a sanitizer's runtime, comes before
 * us in the lookup order.)  Called through the global lookup, as the
 * program calls it: an executable that takes malloc's address answers
 * with its own PLT entry, which leads to the first definition. */
static bool mem_malloc_is_ours(void)
{
	void *(*m)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
	void (*f)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "free");
	uint64_t before;

	if (m == NULL || f == NULL)
		return false;
	__atomic_store_n(&mem.probing, 1, __ATOMIC_RELAXED);
	before = __atomic_load_n(&mem.probe_hits, __ATOMIC_RELAXED);
	f(m(1));
	__atomic_store_n(&mem.probing, 0, __ATOMIC_RELAXED);
	return __atomic_load_n(&mem.probe_hits, __ATOMIC_RELAXED) != before;
}

/* Attached (the agent loaded RTLD_LOCAL: its wrappers interpose nothing),
 * the binder can put them in front of libc's allocator only: is the
 * malloc the program calls libc's? */
static bool mem_malloc_is_libc(void)
{
	Dl_info di;
	const char *base;
	void *m = dlsym(RTLD_DEFAULT, "malloc");

	if (m == NULL || dladdr(m, &di) == 0 || di.dli_fname == NULL)
		return false;
	base = strrchr(di.dli_fname, '/');
	base = base ? base + 1 : di.dli_fname;
	return strncmp(base, "libc.so", 7) == 0;
}

static int mem_init(void)
{
	const char *m = getenv("HOOKSCOPE_MEMORY"), *smp = getenv("HOOKSCOPE_MEMORY_SAMPLE");
	char *end;

	mem.sample_bytes = MEM_SAMPLE_DEFAULT;
	if (smp != NULL && *smp) {
		unsigned long long v = strtoull(smp, &end, 10);

		if (*end || v == 0 || v > (1ull << 32))
			agent_warn("HOOKSCOPE_MEMORY_SAMPLE=%s: expected bytes, 1 to 4294967296; "
			    "using %u", smp, MEM_SAMPLE_DEFAULT);
		else {
			mem.sample_bytes = v;
			mem_interval_user = true;
		}
	}
	if (m != NULL && *m) {
		mem_explicit = true;
		if (strcmp(m, "full") == 0)
			mem.mode = MEM_FULL;
		else if (strcmp(m, "sampled") == 0)
			mem.mode = MEM_SAMPLED;
		else if (strcmp(m, "off") != 0)
			agent_warn("HOOKSCOPE_MEMORY=%s: expected full, sampled or off; memory "
			    "tracking off", m);
	}
	if (agent_attached() ? !mem_malloc_is_libc() : !mem_malloc_is_ours()) {
		mem_replaced = true;
		agent_log("memory: malloc is not the agent's (the program or a sanitizer "
		    "replaces the allocator): no memory figures");
		mem.mode = MEM_OFF;
		return 0;
	}
	mem_sent = xcalloc(MEM_STACKS, sizeof *mem_sent);
	if (mem_table_init() < 0) {
		agent_warn("memory: cannot map the allocation tables; memory tracking off");
		return -1;
	}
	if (agent_attached()) {
		/* Blocks from before the attach are unknown: their frees are
		 * counted as such, and a leak scan is told it may err. */
		__atomic_store_n(&mem.partial, true, __ATOMIC_RELAXED);
		__atomic_store_n(&mem.bound, true, __ATOMIC_RELEASE);
		bind_add(&mem_bind);
	}
	return 0;
}

static void mem_set_mode(int mode)
{
	if (mode != MEM_FULL)
		__atomic_store_n(&mem.partial, true, __ATOMIC_RELAXED);   /* untracked blocks from now */
	if (mode != LOAD(&mem.mode))
		mem_cfg_changed = true;
	__atomic_store_n(&mem.mode, mode, __ATOMIC_RELAXED);
}

/* The mode a level asks for.  Levels 3-4 track every allocation only while
 * the overhead budget is off: full tracking costs an allocation-heavy
 * program 2-3 times its CPU (doc/performance.md), which no budget holds;
 * sampling costs it nothing measurable. */
static int mem_level_mode(int level)
{
	if (level == 0)
		return MEM_OFF;
	return level >= 3 && timing_budget_ppm() == 0 ? MEM_FULL : MEM_SAMPLED;
}

static void mem_set_level(int level)
{
	if (mem_explicit || mem_replaced)
		return;
	mem_set_mode(mem_level_mode(level));
}

/* "memory": bytes, 0 tracks every allocation, else the sampling interval;
 * "leak": the leak window (ns, 1 s .. 1 day). */
static int mem_set_threshold(const char *name, int64_t value)
{
	if (strcmp(name, "leak") == 0) {
		if (value < 1000000000ll || value > 86400ll * 1000000000)
			return -1;
		mem_leak_ns = (uint64_t)value;
		mem_cfg_changed = true;
		return 0;
	}
	if (strcmp(name, "memory") != 0)
		return 1;
	if (value < 0 || value > (1ll << 32))
		return -1;
	if (mem_replaced)
		return 0;
	if (value > 0) {
		__atomic_store_n(&mem.sample_bytes, (uint64_t)value, __ATOMIC_RELAXED);
		mem_interval_user = true;
	}
	mem_explicit = true;
	mem_set_mode(value == 0 ? MEM_FULL : MEM_SAMPLED);
	mem_cfg_changed = true;
	return 0;
}

/* "leaks": the reachability scan, now (memory_leaks.c); its result goes
 * with the next record. */
static int mem_request(const char *name)
{
	uint32_t seq = mem_leaks.seq;

	if (strcmp(name, "leaks") != 0)
		return 1;
	proto_struct_free(&proto_mem_leaks_desc, &mem_leaks);
	if (mem_replaced)
		mem_leaks.error = xstrdup("the program's malloc is not the agent's (its own allocator "
		    "or a sanitizer's): no live blocks are known");
	else
		mem_leaks_scan(&mem_leaks);
	mem_leaks.seq = seq + 1;
	mem_leaks_new = true;
	agent_log("memory: leak scan %u: %s%llu bytes in %llu blocks definitely lost, %.1f ms stopped",
	    mem_leaks.seq, mem_leaks.error && mem_leaks.error[0] ? "failed; " : "",
	    (unsigned long long)mem_leaks.lost_bytes, (unsigned long long)mem_leaks.lost_blocks,
	    (double)mem_leaks.stopped_ns / 1e6);
	return 0;
}

/* Keep block (addr, size, id) if it is among the biggest. */
static void mem_big_take(uintptr_t addr, size_t size, uint32_t id, void *arg)
{
	size_t i;

	(void)arg;
	if (mem_nbig == MEM_BIG && size <= mem_big[MEM_BIG - 1].size)
		return;
	if (mem_nbig < MEM_BIG)
		mem_nbig++;
	for (i = mem_nbig - 1; i > 0 && mem_big[i - 1].size < size; i--)
		mem_big[i] = mem_big[i - 1];
	mem_big[i] = (struct proto_mem_block){ .addr = addr, .size = size, .site = id };
}

/* Sampled mode under the overhead budget: what recording the kept blocks
 * cost the process since the last look, against a fifth of the budget,
 * widens or narrows the interval (mem_sample_adapt).  A look widens once
 * MEM_ADAPT_CPU_NS of the process's CPU went by, and may narrow only after
 * MEM_ADAPT_SLOW_NS: a wide interval records few blocks in a short window,
 * each new stack dearer than a known one, and the cost read off a few of
 * them swings by several times.  An interval the user set is kept; with
 * the budget off the default comes back. */
#define MEM_ADAPT_CPU_NS  20000000ull
#define MEM_ADAPT_SLOW_NS 1000000000ull
static void mem_adapt(void)
{
	uint64_t ns = LOAD(&mem.sample_ns), cpu, cur = LOAD(&mem.sample_bytes), next = cur;
	uint32_t ppm = timing_budget_ppm();
	double cost = 0, share = (double)ppm / MEM_BUDGET_SHARE;
	struct timespec ts;

	if (mem_interval_user || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return;
	cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (mem_adapt_cpu == 0 || cpu < mem_adapt_cpu || ns < mem_adapt_ns) {
		mem_adapt_cpu = cpu;          /* the first look, or a fork child's */
		mem_adapt_ns = ns;
		return;
	}
	if (ppm == 0) {
		next = MEM_SAMPLE_DEFAULT;
	} else {
		if (cpu - mem_adapt_cpu < MEM_ADAPT_CPU_NS)
			return;
		cost = (double)(ns - mem_adapt_ns) / (double)(cpu - mem_adapt_cpu) * 1e6;
		if (cost <= share && cpu - mem_adapt_cpu < MEM_ADAPT_SLOW_NS)
			return;               /* the window grows */
		if (LOAD(&mem.mode) == MEM_SAMPLED)
			next = mem_sample_adapt(cur, MEM_SAMPLE_DEFAULT, cost, share);
	}
	if (next != cur) {
		agent_log("memory: sampling every %llu bytes (recording samples cost %.2f%% of the CPU, "
		    "its share of the budget %.2f%%)", (unsigned long long)next, cost / 1e4, share / 1e4);
		__atomic_store_n(&mem.sample_bytes, next, __ATOMIC_RELAXED);
		mem_cfg_changed = true;
	}
	mem_adapt_cpu = cpu;
	mem_adapt_ns = ns;
}

static void mem_harvest(void)
{
	struct proto_mem_block was[MEM_BIG];
	size_t n = mem_nbig;

	if (!mem.live)
		return;
	mem_set_level(agent_level());             /* the budget may have changed */
	mem_adapt();
	memcpy(was, mem_big, sizeof was);
	mem_nbig = 0;
	mem_big_each(mem_big_take, NULL);
	if (n != mem_nbig || memcmp(was, mem_big, n * sizeof *was) != 0)
		mem_cfg_changed = true;           /* the biggest blocks changed: send */
}

/* A site's symbolized stack (heap frames). */
static void mem_site_stack(const struct mem_stack *st, struct proto_block_stack *out)
{
	out->samples = 1;
	out->nframes = st->depth;
	out->frames = xcalloc(st->depth ? st->depth : 1, sizeof *out->frames);
	for (uint32_t k = 0; k < st->depth; k++)
		sym_frame_fill(st->pc[k], true, &out->frames[k]);
}

static void mem_encode(msgpack_sbuffer *sb, bool resend_all)
{
	struct proto_memory r = { .mode = (char *)(mem_replaced ? "replaced" :
	    mem_mode_names[LOAD(&mem.mode)]), .sample_bytes = LOAD(&mem.sample_bytes),
	    .leak_window_ns = mem_leak_ns };
	uint32_t n = mem.live ? LOAD(&mem.nstacks) : 0;
	uint64_t am = 0, fm = 0, mm, mu;
	bool changed = resend_all || mem_cfg_changed || mem_leaks_new;

	if (n > MEM_STACKS)
		n = MEM_STACKS;
	r.sites = xcalloc(n ? n : 1, sizeof *r.sites);
	for (uint32_t id = 0; id < n; id++) {
		const struct mem_stack *st = &mem.stacks[id];
		struct mem_sent *s = &mem_sent[id];
		struct mem_sent now = { .ab = LOAD(&st->alloc_bytes), .fb = LOAD(&st->free_bytes),
		    .am = LOAD(&st->alloc_mblocks), .fm = LOAD(&st->free_mblocks),
		    .allocs = LOAD(&st->allocs), .frees = LOAD(&st->frees) };
		struct proto_mem_site *x;

		r.heap_bytes += now.ab - now.fb;
		am += now.am;
		fm += now.fm;
		r.alloc_bytes += now.ab - s->base_ab;
		r.allocs += now.allocs - s->base_allocs;
		r.frees += now.frees - s->base_frees;
		if (!resend_all && now.ab == s->ab && now.fb == s->fb && now.allocs == s->allocs &&
		    now.frees == s->frees)
			continue;
		if (now.allocs == 0 && now.frees == 0)
			continue;
		if (r.nsites == PROTO_MAX_MEM_SITES)
			continue;                 /* the rest next time */
		x = &r.sites[r.nsites++];
		*x = (struct proto_mem_site){ .id = id, .bytes = now.ab - now.fb,
		    .blocks = (now.am - now.fm + 500) / 1000, .alloc_bytes = now.ab - s->base_ab,
		    .allocs = now.allocs - s->base_allocs, .frees = now.frees - s->base_frees };
		if (resend_all || !s->stack)
			mem_site_stack(st, &x->stack);
		s->ab = now.ab;
		s->fb = now.fb;
		s->am = now.am;
		s->fm = now.fm;
		s->allocs = now.allocs;
		s->frees = now.frees;
		s->stack = true;
		changed = true;
	}
	mm = LOAD(&mem.mmap_bytes) - LOAD(&mem.munmap_bytes);
	mu = LOAD(&mem.mmaps) - LOAD(&mem.munmaps);
	r.mmap_bytes = mm;
	r.mmap_regions = mu;
	/* (sampled estimates and exact mappings: never below zero) */
	r.heap_bytes = r.heap_bytes > mm ? r.heap_bytes - mm : 0;
	r.heap_blocks = (am - fm + 500) / 1000;
	r.heap_blocks = r.heap_blocks > mu ? r.heap_blocks - mu : 0;
	r.untracked = LOAD(&mem.untracked);
	r.unknown_frees = LOAD(&mem.unknown_frees);
	if (r.untracked != mem_sent_untracked || r.unknown_frees != mem_sent_unknown)
		changed = true;                   /* (no site moved for these) */
	mem_sent_untracked = r.untracked;
	mem_sent_unknown = r.unknown_frees;
	r.nbig = mem_nbig;
	r.big = mem_big;
	if (resend_all || mem_leaks_new)
		r.leaks = mem_leaks;
	mem_leaks_new = false;
	if (changed)
		proto_agent_encode(sb, &(struct proto_agent_rec){ .type = PROTO_AG_MEMORY,
		    .time_ns = proto_now_ns(), .memory = r });
	mem_cfg_changed = false;
	for (size_t i = 0; i < r.nsites; i++)
		proto_struct_release(&proto_block_stack_desc, &r.sites[i].stack);
	free(r.sites);
}

/* Zero the counters (not what is in use: those blocks are still live). */
static void mem_reset(void)
{
	uint32_t n = mem.live ? LOAD(&mem.nstacks) : 0;

	for (uint32_t id = 0; id < n && id < MEM_STACKS; id++) {
		mem_sent[id].base_ab = LOAD(&mem.stacks[id].alloc_bytes);
		mem_sent[id].base_allocs = LOAD(&mem.stacks[id].allocs);
		mem_sent[id].base_frees = LOAD(&mem.stacks[id].frees);
		mem_sent[id].allocs = UINT64_MAX;     /* changed: sent again */
	}
	mem_cfg_changed = true;
}

/* Fork child: its blocks are the parent's, still live in it; a new
 * session, which gets every site again. */
static void mem_atfork_child(void)
{
	uint32_t n = LOAD(&mem.nstacks);

	if (!mem.live)
		return;
	mem_table_atfork_child();
	memset(mem_sent, 0, (n < MEM_STACKS ? n : MEM_STACKS) * sizeof *mem_sent);
	mem_cfg_changed = true;
}

const struct collector_ops memory_collector = {
	.name          = "memory",
	.init          = mem_init,
	.set_level     = mem_set_level,
	.set_threshold = mem_set_threshold,
	.request       = mem_request,
	.reset         = mem_reset,
	.harvest       = mem_harvest,
	.encode        = mem_encode,
	.atfork_child  = mem_atfork_child,
};
