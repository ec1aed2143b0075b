/*
 * timing_select.c - the -finstrument-functions path's per-function switch:
 * which of the functions that call __cyg_profile_func_enter are timed at
 * the current level (select.h's rule, as for the hook engine's sites).
 *
 * A selection is the sorted array of the selected functions' addresses in
 * the modules that import __cyg_profile_func_enter, built from their symbol
 * tables off the hot path (level changes, the reporter noticing a new
 * module).  Level 4 needs none (everything is timed, named or not), level 0
 * none either (the hooks return at once).  The hot path (timing_hot.c) keeps
 * each function's on/off in its per-thread entry, stamped with the
 * generation it was decided at, and looks the address up again only when
 * the generation moved: one load and compare per call otherwise.
 *
 * Selections are published with a release store and never freed while the
 * process may still read them: one per level (1-3) is cached for the
 * current set of modules, so toggling levels allocates nothing; a module
 * loaded later retires the cached ones (kept on a list, a few KB each).
 * The overhead budget's per-function states of that path are published the
 * same way: two tables (outside and in a sampling window), rebuilt when
 * modes change.
 */
#include <link.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "engine.h"
#include "protocol.h"
#include "select.h"
#include "symbols.h"
#include "timing_int.h"

#define TM_SEL_MODS 64

/* The hot path's current selection (NULL: everything) and budget states. */
const struct tm_sel *tm_sel_now;
const struct tm_modes *tm_modes_now;
uint8_t tm_st_default = TM_ST_TIMED;

static struct tm_sel *tm_sel_cache[4];            /* levels 1-3, this module set */
static struct tm_sel *tm_sel_retired;             /* linked through ->next */
static unsigned long long tm_sel_adds;            /* dl_iterate_phdr's counter when built */
static unsigned tm_sel_starts;                    /* select_generation() when built */
static int tm_sel_level = -1;
/* The budget's states, outside and in a sampling window; replaced ones are
 * retired, not freed (a hot path may be reading them). */
static struct tm_modes *tm_modes_tabs[2], *tm_modes_retired;

/* The instrumented modules (those importing __cyg_profile_func_enter),
 * found once per module set (a quarter MB: allocated unzeroed, only the
 * entries used are written). */
struct tm_sel_mod {
	char      path[4096];
	uintptr_t bias;
};
struct tm_sel_mods {
	struct tm_sel_mod m[TM_SEL_MODS];
	int               n;
	int               seen;           /* modules the callback was given */
	unsigned long long adds;
};

static struct tm_sel_mods *tm_sel_mods_new(void)
{
	return agent_scratch_new(sizeof(struct tm_sel_mods));    /* zeroed */
}

/* dl_iterate_phdr callback: note every instrumented module with a path
 * (the executable as /proc/self/exe) and the loader's adds counter. */
static int tm_sel_mods_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct tm_sel_mods *ms = arg;
	struct tm_sel_mod *m;
	bool first = ms->seen++ == 0;

	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
		ms->adds = info->dlpi_adds;
	if (ms->n >= TM_SEL_MODS || !hook_image_imports(info, "__cyg_profile_func_enter"))
		return 0;
	m = &ms->m[ms->n];
	if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0') {
		ssize_t k;

		if (!first)
			return 0;               /* the vdso */
		k = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
		if (k <= 0)
			return 0;
		m->path[k] = '\0';
	} else if (strchr(info->dlpi_name, '/') != NULL) {
		snprintf(m->path, sizeof m->path, "%s", info->dlpi_name);
	} else {
		return 0;
	}
	m->bias = info->dlpi_addr;
	ms->n++;
	return 0;
}

/* dl_iterate_phdr callback: only the loader's adds counter (its first
 * module carries it), without building a module set. */
static int tm_sel_adds_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
		*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

/* qsort comparator of addresses. */
static int tm_sel_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Build the selection of level from the instrumented modules of ms. */
static struct tm_sel *tm_sel_build(const struct tm_sel_mods *ms, int level)
{
	struct tm_sel *s = xcalloc(1, sizeof *s);
	size_t cap = 0;

	for (int i = 0; i < ms->n; i++) {
		struct symtab *t;
		char err[256];

		if (symtab_load_module(ms->m[i].path, &t, err, sizeof err) < 0) {
			agent_log("timing: %s: %s (its functions are timed at level 4 only)",
			    ms->m[i].path, err);
			continue;
		}
		for (size_t k = 0; k < t->n; k++) {
			const struct symtab_sym *y = &t->syms[k];
			bool global = y->bind != SYM_BIND_LOCAL;

			if (!select_level(level, y->name, global, global && y->vis == SYM_VIS_DEFAULT))
				continue;
			if (s->n == cap) {
				cap = cap ? cap * 2 : 256;
				s->fns = xrealloc(s->fns, cap * sizeof *s->fns);
			}
			s->fns[s->n++] = ms->m[i].bias + y->offset;
		}
		symtab_release(t);
	}
	if (s->n > 1)
		qsort(s->fns, s->n, sizeof *s->fns, tm_sel_cmp);
	agent_log("timing: level %d selects %zu functions of %d -finstrument-functions modules",
	    level, s->n, ms->n);
	return s;
}

/* Publish the selection for level (building it for this module set if
 * needed), then move the generation so every entry decides again. */
static void tm_sel_publish(int level, const struct tm_sel_mods *ms)
{
	const struct tm_sel *s = NULL;

	if (level >= 1 && level <= 3) {
		if (tm_sel_cache[level] == NULL)
			tm_sel_cache[level] = tm_sel_build(ms, level);
		s = tm_sel_cache[level];
	}
	__atomic_store_n(&tm_sel_now, s, __ATOMIC_RELEASE);
	__atomic_add_fetch(&tm_params.sel_gen, TM_ST_MASK + 1, __ATOMIC_RELEASE);
	tm_sel_level = level;
}

/* A new module set: the cached selections go to the retired list. */
static void tm_sel_retire(unsigned long long adds)
{
	for (int l = 1; l <= 3; l++) {
		if (tm_sel_cache[l] == NULL)
			continue;
		tm_sel_cache[l]->next = tm_sel_retired;
		tm_sel_retired = tm_sel_cache[l];
		tm_sel_cache[l] = NULL;
	}
	tm_sel_adds = adds;
	tm_sel_starts = select_generation();
}

/* See timing.h. */
void tm_select_level(int level)
{
	struct tm_sel_mods *ms = tm_sel_mods_new();

	dl_iterate_phdr(tm_sel_mods_cb, ms);
	if (ms->adds != tm_sel_adds || select_generation() != tm_sel_starts)
		tm_sel_retire(ms->adds);      /* new modules or new start routines */
	tm_sel_publish(level, ms);
	agent_scratch_free(ms, sizeof *ms);
}

/* See timing.h. */
void tm_select_sync(void)
{
	struct tm_sel_mods *ms;
	unsigned long long adds = tm_sel_adds;

	if (tm_sel_level < 1 || tm_sel_level > 3)
		return;                 /* no selection depends on the modules */
	/* Every harvest: the module set (a quarter MB of paths) is only
	 * gathered when the loader's counter moved. */
	dl_iterate_phdr(tm_sel_adds_cb, &adds);
	if (adds == tm_sel_adds)
		return;
	ms = tm_sel_mods_new();
	dl_iterate_phdr(tm_sel_mods_cb, ms);
	if (ms->adds != tm_sel_adds) {
		tm_sel_retire(ms->adds);
		tm_sel_publish(tm_sel_level, ms);
		agent_log("timing: modules loaded: level %d selection rebuilt (%zu functions)",
		    tm_sel_level, tm_sel_cache[tm_sel_level]->n);
	}
	agent_scratch_free(ms, sizeof *ms);
}

/* Publish m as the budget's states (NULL: none); the hot path's entries
 * look their function up again. */
static void tm_modes_publish(const struct tm_modes *m)
{
	__atomic_store_n(&tm_modes_now, m, __ATOMIC_RELEASE);
	__atomic_add_fetch(&tm_params.sel_gen, TM_ST_MASK + 1, __ATOMIC_RELEASE);
}

/* A table's functions in address order (the build's qsort). */
static const uintptr_t *tm_modes_order_fns;

static int tm_modes_cmp(const void *a, const void *b)
{
	uintptr_t x = tm_modes_order_fns[*(const size_t *)a], y = tm_modes_order_fns[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

/* See timing_int.h.  Reporter thread only (the budget's tick). */
void tm_select_states(const uintptr_t *fns, const uint8_t *out, const uint8_t *in, size_t n,
    bool win)
{
	size_t *order = xcalloc(n + 1, sizeof *order);

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	tm_modes_order_fns = fns;
	qsort(order, n, sizeof *order, tm_modes_cmp);
	for (int w = 0; w < 2; w++) {
		const uint8_t *st = w ? in : out;
		struct tm_modes *t = xcalloc(1, sizeof *t);

		t->fns = xcalloc(n + 1, sizeof *t->fns);
		t->st = xcalloc(n + 1, 1);
		for (size_t j = 0; j < n; j++) {
			if (st[order[j]] == tm_st_default)
				continue;
			t->fns[t->n] = fns[order[j]];
			t->st[t->n++] = st[order[j]];
		}
		if (tm_modes_tabs[w] != NULL) {
			tm_modes_tabs[w]->next = tm_modes_retired;
			tm_modes_retired = tm_modes_tabs[w];
		}
		tm_modes_tabs[w] = t;
	}
	free(order);
	tm_modes_publish(tm_modes_tabs[win]);
}

/* See timing_int.h. */
void tm_select_window(bool win)
{
	tm_modes_publish(tm_modes_tabs[win]);
}

/* See timing_int.h. */
void tm_select_states_off(void)
{
	tm_modes_publish(NULL);
}

/* See timing.h. */
bool tm_select_on(uintptr_t fn)
{
	const struct tm_sel *s = __atomic_load_n(&tm_sel_now, __ATOMIC_ACQUIRE);

	return s == NULL || tm_sel_find(s, fn);
}
