/*
 * symbols_proc.c - the modules of this process and their symbol tables.
 *
 * The module list is a sorted array of address ranges (binary search, so a
 * lookup stays O(log modules + log symbols)).  It is rebuilt only when the
 * loader's dlpi_adds/dlpi_subs counters moved, i.e. after a dlopen or
 * dlclose; a module still present keeps its table, an unloaded one is
 * dropped.  Module paths are interned and kept until sym_cache_free(),
 * because callers keep sym_info.module of functions of unloaded modules.
 *
 * HOOKSCOPE_MAP=GLOB=FILE[:GLOB=FILE...] gives a module a GNU ld map file;
 * GLOB (fnmatch) is matched against the module's full path and its base
 * name; the first matching entry wins.
 */
#include <fnmatch.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "protocol.h"
#include "symbols_int.h"

/* A loaded module; its table is loaded on first use. */
struct sym_module {
	uintptr_t      bias;          /* dlpi_addr: runtime = bias + offset */
	uintptr_t      lo, hi;        /* lowest start, highest end of its PT_LOADs */
	struct { uintptr_t start, end; } segs[SYM_MAX_SEGS];
	size_t         nsegs;
	const char    *path;          /* interned */
	bool           is_main;
	bool           tried;         /* table load attempted */
	struct symtab *tab;           /* NULL if it could not be loaded */
};

/* An interned string: kept until sym_cache_free. */
struct sym_str {
	struct sym_str *next;
	char            s[];
};

/* One HOOKSCOPE_MAP entry. */
struct sym_map_cfg {
	char *glob, *file;
};

static struct sym_module **sym_mods;      /* sorted by lo */
static size_t sym_nmods;
static bool sym_synced;
static unsigned long long sym_adds, sym_subs;
static struct sym_str *sym_strs;
static struct sym_map_cfg *sym_maps;
static size_t sym_nmaps;
static bool sym_maps_read;
/* The map configuration is also read by the hook engine and the timing
 * selection (symtab_load_module), on other threads. */
static pthread_mutex_t sym_maps_lock = PTHREAD_MUTEX_INITIALIZER;

/* The interned copy of s. */
static const char *sym_intern(const char *s)
{
	struct sym_str *p;
	size_t len = strlen(s);

	for (p = sym_strs; p != NULL; p = p->next)
		if (strcmp(p->s, s) == 0)
			return p->s;
	p = xmalloc(sizeof *p + len + 1);
	memcpy(p->s, s, len + 1);
	p->next = sym_strs;
	sym_strs = p;
	return p->s;
}

/* Parse HOOKSCOPE_MAP once (again after sym_cache_free). */
static void sym_maps_parse(void)
{
	const char *env = getenv("HOOKSCOPE_MAP");
	char *copy, *save = NULL;

	sym_maps_read = true;
	if (env == NULL || env[0] == '\0')
		return;
	copy = xstrdup(env);
	for (char *e = strtok_r(copy, ":", &save); e != NULL; e = strtok_r(NULL, ":", &save)) {
		char *eq = strchr(e, '=');

		if (eq == NULL || eq == e || eq[1] == '\0') {
			agent_warn("HOOKSCOPE_MAP entry ignored (want MODULE_GLOB=FILE): %s", e);
			continue;
		}
		*eq = '\0';
		sym_maps = xrealloc(sym_maps, (sym_nmaps + 1) * sizeof *sym_maps);
		sym_maps[sym_nmaps].glob = xstrdup(e);
		sym_maps[sym_nmaps].file = xstrdup(eq + 1);
		sym_nmaps++;
	}
	free(copy);
}

/* The map file configured for a module path, or NULL. */
static const char *sym_map_for(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sym_nmaps; i++)
		if (fnmatch(sym_maps[i].glob, path, 0) == 0 ||
		    fnmatch(sym_maps[i].glob, base, 0) == 0)
			return sym_maps[i].file;
	return NULL;
}

/* See symbols_int.h. */
const char *sym_map_copy(const char *path, char *buf, size_t len)
{
	const char *f;

	pthread_mutex_lock(&sym_maps_lock);
	if (!sym_maps_read)
		sym_maps_parse();
	f = sym_map_for(path);
	if (f != NULL)
		snprintf(buf, len, "%s", f);
	pthread_mutex_unlock(&sym_maps_lock);
	return f != NULL ? buf : NULL;
}

/* Load a module's table the first time it is needed (shared with the
 * engine's and the selection's: sym_shared_load). */
static void sym_module_load(struct sym_module *m)
{
	const char *dbg = getenv("HOOKSCOPE_DEBUG");
	bool verbose = dbg != NULL && dbg[0] != '\0' && strcmp(dbg, "0") != 0;
	char err[PROTO_ERR_LEN], map[4096];
	bool mapped;

	if (m->tried)
		return;
	m->tried = true;
	mapped = sym_map_copy(m->path, map, sizeof map) != NULL;
	/* The running executable is always /proc/self/exe, even if replaced. */
	if (sym_shared_load(m->is_main ? "/proc/self/exe" : m->path, m->path, &m->tab, err,
	    sizeof err) < 0) {
		if (mapped || verbose)
			agent_warn("%s: %s", m->path, err);
		return;
	}
	if (m->tab->notes != NULL && (mapped || verbose))
		agent_warn("%s: %s", m->path, m->tab->notes);
}

static void sym_module_free(struct sym_module *m)
{
	symtab_release(m->tab);
	free(m);
}

/* Collected modules during a rescan. */
struct sym_scan {
	bool                 first_seen;
	bool                 unchanged;
	struct sym_module  **v;
	size_t               n;
};

/* dl_iterate_phdr callback: stop at once if the counters did not move,
 * else describe every module. */
static int sym_scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct sym_scan *sc = arg;
	struct sym_module *m;
	char exe[4096];

	if (!sc->first_seen) {
		sc->first_seen = true;
		if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
			if (sym_synced && info->dlpi_adds == sym_adds && info->dlpi_subs == sym_subs) {
				sc->unchanged = true;
				return 1;
			}
			sym_adds = info->dlpi_adds;
			sym_subs = info->dlpi_subs;
		}
	}
	m = xcalloc(1, sizeof *m);
	m->bias = info->dlpi_addr;
	m->lo = UINTPTR_MAX;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum && m->nsegs < SYM_MAX_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
			continue;
		m->segs[m->nsegs].start = start;
		m->segs[m->nsegs].end = start + ph->p_memsz;
		m->lo = start < m->lo ? start : m->lo;
		m->hi = start + ph->p_memsz > m->hi ? start + ph->p_memsz : m->hi;
		m->nsegs++;
	}
	if (m->nsegs == 0) {
		free(m);
		return 0;
	}
	m->is_main = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
	if (m->is_main) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

		exe[n > 0 ? n : 0] = '\0';
	}
	m->path = sym_intern(m->is_main ? exe : info->dlpi_name);
	sc->v = xrealloc(sc->v, (sc->n + 1) * sizeof *sc->v);
	sc->v[sc->n++] = m;
	return 0;
}

static int sym_module_cmp(const void *a, const void *b)
{
	const struct sym_module *x = *(struct sym_module *const *)a;
	const struct sym_module *y = *(struct sym_module *const *)b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* See symbols.h. */
void sym_modules_sync(void)
{
	struct sym_scan sc = { 0 };

	dl_iterate_phdr(sym_scan_cb, &sc);
	if (sc.unchanged)
		return;
	sym_synced = true;
	/* Keep the tables of modules still loaded at the same place. */
	for (size_t i = 0; i < sc.n; i++) {
		for (size_t k = 0; k < sym_nmods; k++) {
			struct sym_module *old = sym_mods[k];

			if (old != NULL && old->bias == sc.v[i]->bias && old->lo == sc.v[i]->lo &&
			    old->path == sc.v[i]->path) {
				free(sc.v[i]);
				sc.v[i] = old;
				sym_mods[k] = NULL;
				break;
			}
		}
	}
	for (size_t k = 0; k < sym_nmods; k++)
		if (sym_mods[k] != NULL)
			sym_module_free(sym_mods[k]);   /* unloaded */
	free(sym_mods);
	qsort(sc.v, sc.n, sizeof *sc.v, sym_module_cmp);
	sym_mods = sc.v;
	sym_nmods = sc.n;
}

/* See symbols.h. */
size_t sym_modules_count(void)
{
	return sym_nmods;
}

/* The module one of whose segments holds addr, or NULL. */
static struct sym_module *sym_module_find(uintptr_t addr)
{
	size_t lo = 0, hi = sym_nmods;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sym_mods[mid]->lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges [lo, hi) of modules may interleave (a library mapped in a
	 * gap of another): check the few candidates below too. */
	for (size_t i = lo; i-- > 0;) {
		struct sym_module *m = sym_mods[i];

		for (size_t k = 0; k < m->nsegs; k++)
			if (addr >= m->segs[k].start && addr < m->segs[k].end)
				return m;
		if (lo - i >= 4)
			break;
	}
	return NULL;
}

/* See symbols.h. */
int sym_resolve(uintptr_t addr, struct sym_info *out)
{
	struct sym_module *m;
	const struct symtab_sym *s;

	memset(out, 0, sizeof *out);
	out->module = "";
	sym_modules_sync();
	m = sym_module_find(addr);
	if (m == NULL)
		return -1;
	sym_module_load(m);
	out->module = m->path;
	out->offset = addr - m->bias;
	s = symtab_lookup(m->tab, out->offset);
	if (s == NULL)
		return -1;
	out->name = s->name;
	out->size = s->size;
	out->start = s->offset;
	out->bind = s->bind;
	out->vis = s->vis;
	out->src = s->src;
	return 0;
}

/* See symbols.h. */
void sym_cache_free(void)
{
	for (size_t k = 0; k < sym_nmods; k++)
		sym_module_free(sym_mods[k]);
	free(sym_mods);
	sym_mods = NULL;
	sym_nmods = 0;
	sym_synced = false;
	while (sym_strs != NULL) {
		struct sym_str *p = sym_strs;

		sym_strs = p->next;
		free(p);
	}
	pthread_mutex_lock(&sym_maps_lock);
	for (size_t i = 0; i < sym_nmaps; i++) {
		free(sym_maps[i].glob);
		free(sym_maps[i].file);
	}
	free(sym_maps);
	sym_maps = NULL;
	sym_nmaps = 0;
	sym_maps_read = false;
	pthread_mutex_unlock(&sym_maps_lock);
}
