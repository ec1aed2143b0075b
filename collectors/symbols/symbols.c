/*
 * symbols.c - a module's symbol table: symbols gathered in layers (symbol
 * table or debug file, .dynsym, map file), each later layer only filling the
 * holes of the earlier ones, then sorted once for O(log n) lookups.
 *
 * A corrupt or missing file gives an error string, never a crash.
 * Self-contained on purpose (only libelf and the protocol's xmalloc): the unit
 * tests link these objects without the agent.
 */
#include <gelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "protocol.h"
#include "symbols_int.h"

static pthread_once_t sym_elf_once = PTHREAD_ONCE_INIT;

/* libelf must be told the ELF version once before any other call. */
static void sym_elf_version(void)
{
	(void)elf_version(EV_CURRENT);
}

/* See symbols_int.h. */
void sym_elf_init_once(void)
{
	pthread_once(&sym_elf_once, sym_elf_version);
}

#define SYM_POOL_BLOCK (64u << 10)      /* bytes of names per pool block, at least */

/* Room for len bytes in sv's pool. */
static char *sym_pool_take(struct sym_vec *sv, size_t len)
{
	struct sym_pool *b = sv->pool;

	if (b == NULL || b->cap - b->used < len) {
		size_t cap = len > SYM_POOL_BLOCK ? len : SYM_POOL_BLOCK;

		b = xmalloc(sizeof *b + cap);
		b->next = sv->pool;
		b->used = 0;
		b->cap = cap;
		sv->pool = b;
	}
	b->used += len;
	return b->s + b->used - len;
}

/* See symbols_int.h. */
void sym_vec_push(struct sym_vec *sv, uint64_t offset, uint64_t size, const char *name,
    size_t namelen, int bind, int vis, int src)
{
	struct sym_tmp *s;
	char *copy;

	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 1024;

		sv->v = agent_scratch_grow(sv->v, sv->cap * sizeof *sv->v, cap * sizeof *sv->v);
		sv->cap = cap;
	}
	if (namelen > SYM_MAX_NAME)
		namelen = SYM_MAX_NAME;
	/* "clock_nanosleep@@GLIBC_2.17" (a debug file's .symtab names the
	 * symbol version): the function is "clock_nanosleep". */
	for (size_t k = 1; k < namelen; k++)
		if (name[k] == '@') {
			namelen = k;
			break;
		}
	copy = sym_pool_take(sv, namelen + 1);
	memcpy(copy, name, namelen);
	copy[namelen] = '\0';
	s = &sv->v[sv->n++];
	s->offset = offset;
	s->size = size;
	s->name = copy;
	s->bind = (uint8_t)bind;
	s->vis = (uint8_t)vis;
	s->src = (uint8_t)src;
}

/* See symbols_int.h. */
void sym_vec_free(struct sym_vec *sv)
{
	for (struct sym_pool *b = sv->pool, *next; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	agent_scratch_free(sv->v, sv->cap * sizeof *sv->v);
	memset(sv, 0, sizeof *sv);
}

/* Leading underscores of a name: aliases with fewer are the public ones
 * (fopen rather than _IO_fopen). */
static size_t sym_underscores(const char *s)
{
	return strspn(s, "_");
}

/* Of two aliases of one address, the preferred first: non-local before
 * local; fewer leading underscores (getpid, a weak alias, over the global
 * __getpid); global before weak; shorter; then by name, for a stable choice. */
static int sym_alias_cmp(const struct sym_tmp *x, const struct sym_tmp *y)
{
	size_t ux, uy, lx, ly;

	if ((x->bind == SYM_BIND_LOCAL) != (y->bind == SYM_BIND_LOCAL))
		return x->bind == SYM_BIND_LOCAL ? 1 : -1;
	ux = sym_underscores(x->name);
	uy = sym_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->bind != y->bind)
		return x->bind - y->bind;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One symbol's place while sorting: its address and where it is. */
struct sym_key {
	uint64_t offset;
	size_t   at;
};

/* Sort keys by offset: least significant byte first, stable, one pass per
 * byte the largest offset has (a module's offsets fit in three or four).
 * Linear: a table has thousands of symbols, loaded in every process the
 * agent starts in, where a comparison sort moving whole symbols was most
 * of the load. */
static void sym_keys_sort(struct sym_key *k, struct sym_key *tmp, size_t n)
{
	uint64_t max = 0;

	for (size_t i = 0; i < n; i++)
		max |= k[i].offset;
	for (unsigned shift = 0; shift < 64 && (max >> shift) != 0; shift += 8) {
		size_t count[257] = { 0 };

		for (size_t i = 0; i < n; i++)
			count[((k[i].offset >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			tmp[count[(k[i].offset >> shift) & 0xff]++] = k[i];
		memcpy(k, tmp, n * sizeof *k);
	}
}

/* Sort by address and keep the preferred alias of each (sym_alias_cmp). */
static void sym_vec_sort(struct sym_vec *sv)
{
	struct sym_key *k, *tmp;
	struct sym_tmp *out;
	size_t n = 0;

	if (sv->n == 0)
		return;
	k = agent_scratch_new(sv->n * sizeof *k);
	tmp = agent_scratch_new(sv->n * sizeof *tmp);
	for (size_t i = 0; i < sv->n; i++)
		k[i] = (struct sym_key){ .offset = sv->v[i].offset, .at = i };
	sym_keys_sort(k, tmp, sv->n);
	out = agent_scratch_new(sv->n * sizeof *out);
	for (size_t i = 0; i < sv->n; i++) {
		const struct sym_tmp *s = &sv->v[k[i].at];

		if (n > 0 && out[n - 1].offset == s->offset) {
			if (sym_alias_cmp(s, &out[n - 1]) < 0)
				out[n - 1] = *s;
			continue;       /* the other's name stays in the pool until the vector goes */
		}
		out[n++] = *s;
	}
	agent_scratch_free(k, sv->n * sizeof *k);
	agent_scratch_free(tmp, sv->n * sizeof *tmp);
	agent_scratch_free(sv->v, sv->cap * sizeof *sv->v);
	sv->v = out;
	sv->cap = sv->n;         /* out's size */
	sv->n = n;
}

/* Index of the last symbol of sorted sv at or below off, or SIZE_MAX. */
static size_t sym_vec_floor(const struct sym_vec *sv, uint64_t off)
{
	size_t lo = 0, hi = sv->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sv->v[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? SIZE_MAX : lo - 1;
}

/* Add the symbols of layer that start in a hole of acc (acc sorted on
 * entry and on return); their sizes are cut at the next symbol of acc.
 * Consumes layer. */
static void sym_vec_fill_holes(struct sym_vec *acc, struct sym_vec *layer)
{
	size_t n0 = acc->n;

	for (size_t i = 0; i < layer->n; i++) {
		struct sym_tmp *s = &layer->v[i];
		struct sym_vec old = { .v = acc->v, .n = n0, .cap = n0 };
		size_t f = sym_vec_floor(&old, s->offset);

		if (f != SIZE_MAX) {
			const struct sym_tmp *p = &acc->v[f];

			if (p->offset == s->offset ||
			    (p->size > 0 && s->offset - p->offset < p->size))
				continue;
		}
		if (f + 1 < n0 || (f == SIZE_MAX && n0 > 0)) {
			uint64_t next = acc->v[f == SIZE_MAX ? 0 : f + 1].offset;

			if (s->size == 0 || s->size > next - s->offset)
				s->size = next - s->offset;
		}
		sym_vec_push(acc, s->offset, s->size, s->name, strlen(s->name), s->bind, s->vis,
		    s->src);
	}
	sym_vec_free(layer);
	sym_vec_sort(acc);
}

/* Turn a sorted, deduplicated vector into a table with one name block. */
static struct symtab *symtab_build(const struct sym_vec *sv)
{
	struct symtab *t = xcalloc(1, sizeof *t);
	size_t bytes = 0;
	char *p;

	for (size_t i = 0; i < sv->n; i++)
		bytes += strlen(sv->v[i].name) + 1;
	t->syms = xcalloc(sv->n ? sv->n : 1, sizeof *t->syms);
	t->names = p = xmalloc(bytes ? bytes : 1);
	for (size_t i = 0; i < sv->n; i++) {
		const struct sym_tmp *s = &sv->v[i];
		size_t len = strlen(s->name);

		memcpy(p, s->name, len + 1);
		t->syms[i] = (struct symtab_sym){
			.offset = s->offset, .size = s->size, .name = p,
			.bind = s->bind, .vis = s->vis, .src = s->src,
		};
		t->nsrc[s->src < SYM_SRC_COUNT ? s->src : 0]++;
		p += len + 1;
	}
	t->n = sv->n;
	return t;
}

/* Append one formatted note to *notes ("; " between notes). */
static void sym_note(char **notes, const char *fmt, ...)
{
	char line[1024];
	size_t old = *notes ? strlen(*notes) : 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	*notes = xrealloc(*notes, old + strlen(line) + 3);
	snprintf(*notes + old, strlen(line) + 3, "%s%s", old ? "; " : "", line);
}

/* Check map symbols against the module's segments.  The rule: GNU ld prints
 * link-time virtual addresses, which are exactly what it writes into
 * st_value, so offset (from the load bias) = printed address, for PIE (first
 * PT_LOAD p_vaddr 0, bias = load address) and non-PIE (first p_vaddr
 * 0x400000, bias 0) alike.  Equivalently, the distance from the start of the
 * module's first mapping is address - (first PT_LOAD p_vaddr rounded down to
 * its page).  A map of another build or module shows up as addresses outside
 * the executable segments.  Sizes are cut at the segment end. */
static int sym_map_check(struct sym_vec *mv, const struct sym_segment *segs, size_t nsegs,
    const char *map_path, char *err, size_t errlen)
{
	if (nsegs == 0)
		return 0;
	for (size_t i = 0; i < mv->n; i++) {
		struct sym_tmp *s = &mv->v[i];
		size_t k;

		for (k = 0; k < nsegs; k++)
			if (segs[k].exec && s->offset >= segs[k].vaddr &&
			    s->offset - segs[k].vaddr < segs[k].memsz)
				break;
		if (k == nsegs) {
			snprintf(err, errlen, "%s: %s at 0x%llx lies outside the module's code "
			    "segments (a map of another build or another module?)", map_path,
			    s->name, (unsigned long long)s->offset);
			return -1;
		}
		if (s->size > segs[k].vaddr + segs[k].memsz - s->offset)
			s->size = segs[k].vaddr + segs[k].memsz - s->offset;
	}
	return 0;
}

/* See symbols.h. */
int symtab_load_map(const char *map_path, const struct sym_segment *segs, size_t nsegs,
    struct symtab **out, char *err, size_t errlen)
{
	struct sym_vec mv = { 0 };

	*out = NULL;
	if (sym_map_read(map_path, &mv, err, errlen) < 0 ||
	    sym_map_check(&mv, segs, nsegs, map_path, err, errlen) < 0) {
		sym_vec_free(&mv);
		return -1;
	}
	sym_vec_sort(&mv);
	*out = symtab_build(&mv);
	sym_vec_free(&mv);
	return 0;
}

/* Merge the symbol table of the module's separate debug file, if any. */
static void symtab_add_debug(const struct sym_elf_info *info, const char *real_path,
    const char *debug_root, struct sym_vec *acc, char **debug_file, char **notes)
{
	char note[512] = "", err[PROTO_ERR_LEN];
	char *dbg = sym_debug_find(info, real_path, debug_root, note, sizeof note);
	Elf *elf;
	int fd;

	if (note[0] != '\0')
		sym_note(notes, "%s", note);
	if (dbg == NULL)
		return;
	if (sym_elf_open(dbg, &fd, &elf, err, sizeof err) < 0 ||
	    sym_elf_collect(elf, SHT_SYMTAB, SYM_SRC_DEBUG, acc, dbg, err, sizeof err) < 0) {
		if (elf != NULL)
			sym_elf_close(fd, elf);
		sym_vec_free(acc);
		sym_note(notes, "debug file ignored: %s", err);
		free(dbg);
		return;
	}
	sym_elf_close(fd, elf);
	*debug_file = dbg;
}

/* See symbols.h. */
int symtab_load_opts(const char *path, const struct symtab_opts *opts, struct symtab **out,
    char *err, size_t errlen)
{
	static const struct symtab_opts none;
	struct sym_elf_info *info = xcalloc(1, sizeof *info);
	struct sym_vec acc = { 0 };
	char *notes = NULL, *debug_file = NULL;
	const char *real, *root;
	bool dynamic = false;
	Elf *elf = NULL;
	int fd, ret = -1;

	*out = NULL;
	opts = opts ? opts : &none;
	real = opts->real_path ? opts->real_path : path;
	root = opts->debug_root ? opts->debug_root : "/usr/lib/debug";
	if (sym_elf_open(path, &fd, &elf, err, errlen) < 0)
		goto out;
	if (sym_elf_describe(elf, info, path, err, errlen) < 0)
		goto out;
	/* .symtab has the static functions too; .dynsym only the exported. */
	if (info->has_symtab &&
	    sym_elf_collect(elf, SHT_SYMTAB, SYM_SRC_SYMTAB, &acc, path, err, errlen) < 0)
		goto out;
	if (acc.n == 0 && root[0] != '\0')
		symtab_add_debug(info, real, root, &acc, &debug_file, &notes);
	if (acc.n == 0) {
		if (sym_elf_collect(elf, SHT_DYNSYM, SYM_SRC_DYNSYM, &acc, path, err, errlen) < 0)
			goto out;
		dynamic = acc.n > 0;
	}
	sym_vec_sort(&acc);
	if (opts->map_path != NULL) {
		struct sym_vec mv = { 0 };
		char merr[PROTO_ERR_LEN];

		if (sym_map_read(opts->map_path, &mv, merr, sizeof merr) < 0 ||
		    sym_map_check(&mv, info->segs, info->nsegs, opts->map_path, merr,
		    sizeof merr) < 0) {
			sym_vec_free(&mv);
			sym_note(&notes, "map ignored: %s", merr);
		} else {
			sym_vec_fill_holes(&acc, &mv);
		}
	}
	if (acc.n == 0) {
		snprintf(err, errlen, "%s: no function symbols (stripped?%s%s)", path,
		    notes ? " " : "", notes ? notes : "");
		goto out;
	}
	*out = symtab_build(&acc);
	(*out)->dynamic = dynamic;
	(*out)->debug_file = debug_file;
	(*out)->notes = notes;
	debug_file = notes = NULL;
	ret = 0;
out:
	if (elf != NULL)
		sym_elf_close(fd, elf);
	sym_vec_free(&acc);
	free(debug_file);
	free(notes);
	free(info);
	return ret;
}

/* See symbols.h. */
int symtab_load(const char *path, struct symtab **out, char *err, size_t errlen)
{
	return symtab_load_opts(path, NULL, out, err, errlen);
}

/* See symbols.h. */
const struct symtab_sym *symtab_lookup(const struct symtab *t, uint64_t offset)
{
	size_t lo = 0, hi;
	const struct symtab_sym *s;

	if (t == NULL || t->n == 0)
		return NULL;
	/* Find the last symbol whose offset <= offset. */
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &t->syms[lo - 1];
	if (s->size == 0)
		return s->offset == offset ? s : NULL;
	return offset - s->offset < s->size ? s : NULL;
}

/* See symbols.h. */
void symtab_free(struct symtab *t)
{
	if (t == NULL)
		return;
	free(t->syms);
	free(t->names);
	free(t->debug_file);
	free(t->notes);
	free(t);
}
