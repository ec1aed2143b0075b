/*
 * symbols.c - function names for addresses: ELF symbol tables read with
 * libelf, and the modules of this process found with dl_iterate_phdr.
 *
 * A corrupt or missing file gives an error string, never a crash: every
 * libelf result is checked, and strings are only taken through elf_strptr(),
 * which bounds-checks them.  Self-contained on purpose (only libelf and the
 * protocol's xmalloc): the unit test links this object without the agent.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"
#include "symbols.h"

#define SYM_MAX_NAME 4096         /* longer names are cut (records stay small) */

/* A symbol while loading: binding decides which alias names an address. */
struct sym_tmp {
	uint64_t    value;
	uint64_t    size;
	const char *name;             /* points into the Elf's string table */
	int         rank;             /* 0 global, 1 weak, 2 local */
};

static pthread_once_t symtab_once = PTHREAD_ONCE_INIT;
static bool symtab_elf_ok;

/* libelf must be told the ELF version once before any other call. */
static void symtab_elf_init(void)
{
	symtab_elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

/* Leading underscores of a name: aliases with fewer are the public ones
 * (fopen rather than _IO_fopen). */
static size_t sym_underscores(const char *s)
{
	return strspn(s, "_");
}

/* Sort by address, the preferred alias first: exported before local; fewer
 * leading underscores (getpid, a weak alias, over the global __getpid);
 * global before weak; shorter; then by name, for a stable choice. */
static int sym_tmp_cmp(const void *a, const void *b)
{
	const struct sym_tmp *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if ((x->rank == 2) != (y->rank == 2))
		return x->rank == 2 ? 1 : -1;
	ux = sym_underscores(x->name);
	uy = sym_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The first section of the given type, or NULL. */
static Elf_Scn *symtab_find_section(Elf *elf, Elf64_Word type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, shdr) != NULL && shdr->sh_type == type)
			return scn;
	}
	return NULL;
}

/* Collect the defined function symbols of one symbol section. */
static int symtab_collect(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
    struct sym_tmp **out, size_t *nout)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	struct sym_tmp *v;
	size_t n, k = 0;

	if (data == NULL || entsize == 0 || data->d_type != ELF_T_SYM)
		return -1;
	n = data->d_size / entsize;
	if (n > INT32_MAX)
		return -1;
	v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type, bind;

		if (gelf_getsym(data, (int)i, &sym) == NULL)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (name == NULL || name[0] == '\0')
			continue;
		v[k].value = sym.st_value;
		v[k].size = sym.st_size;
		v[k].name = name;
		v[k].rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
		k++;
	}
	*out = v;
	*nout = k;
	return 0;
}

/* Keep one symbol per address and copy the names out of the Elf. */
static struct symtab *symtab_build(struct sym_tmp *v, size_t n, bool dynamic)
{
	struct symtab *t = xcalloc(1, sizeof *t);
	size_t bytes = 0, k = 0;
	char *p;

	qsort(v, n, sizeof *v, sym_tmp_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && v[i].value == v[i - 1].value)
			continue;
		bytes += strnlen(v[i].name, SYM_MAX_NAME) + 1;
	}
	t->syms = xcalloc(n ? n : 1, sizeof *t->syms);
	t->names = p = xmalloc(bytes ? bytes : 1);
	for (size_t i = 0; i < n; i++) {
		size_t len;

		if (i > 0 && v[i].value == v[i - 1].value)
			continue;
		len = strnlen(v[i].name, SYM_MAX_NAME);
		memcpy(p, v[i].name, len);
		p[len] = '\0';
		t->syms[k].value = v[i].value;
		t->syms[k].size = v[i].size;
		t->syms[k].name = p;
		p += len + 1;
		k++;
	}
	t->n = k;
	t->dynamic = dynamic;
	return t;
}

/* See symbols.h. */
int symtab_load(const char *path, struct symtab **out, char *err, size_t errlen)
{
	static const Elf64_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };
	struct sym_tmp *v = NULL;
	size_t n = 0;
	GElf_Ehdr ehdr;
	Elf *elf;
	int fd, ret = -1;

	*out = NULL;
	pthread_once(&symtab_once, symtab_elf_init);
	if (!symtab_elf_ok) {
		snprintf(err, errlen, "%s: libelf does not support this ELF version", path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf == NULL || elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &ehdr) == NULL) {
		int e = elf_errno();

		snprintf(err, errlen, "%s: not a valid ELF file (%s)", path,
		    e ? elf_errmsg(e) : "no ELF header");
		goto out;
	}
	/* .symtab has the static functions too; .dynsym only the exported. */
	for (size_t i = 0; i < 2 && n == 0; i++) {
		GElf_Shdr shdr;
		Elf_Scn *scn = symtab_find_section(elf, types[i], &shdr);

		free(v);
		v = NULL;
		if (scn == NULL)
			continue;
		if (symtab_collect(elf, scn, &shdr, &v, &n) < 0) {
			int e = elf_errno();

			snprintf(err, errlen, "%s: corrupt symbol table (%s)", path,
			    e ? elf_errmsg(e) : "bad section");
			goto out;
		}
		if (n > 0)
			*out = symtab_build(v, n, types[i] == SHT_DYNSYM);
	}
	if (*out == NULL) {
		snprintf(err, errlen, "%s: no function symbols (stripped?)", path);
		goto out;
	}
	ret = 0;
out:
	free(v);
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return ret;
}

/* See symbols.h. */
const struct symtab_sym *symtab_lookup(const struct symtab *t, uint64_t value)
{
	size_t lo = 0, hi;
	const struct symtab_sym *s;

	if (t == NULL || t->n == 0)
		return NULL;
	/* Find the last symbol whose value <= value. */
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].value <= value)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &t->syms[lo - 1];
	if (s->size == 0)
		return s->value == value ? s : NULL;
	return value - s->value < s->size ? s : NULL;
}

/* See symbols.h. */
void symtab_free(struct symtab *t)
{
	if (t == NULL)
		return;
	free(t->syms);
	free(t->names);
	free(t);
}

/* ---- modules of this process ---- */

/* A loaded module and its symbols, loaded on first use. */
struct sym_module {
	struct sym_module *next;
	uintptr_t      base;          /* dlpi_addr */
	char          *path;          /* as reported ("" never: see sym_find_module) */
	struct symtab *tab;           /* NULL if it could not be loaded */
	char          *error;         /* why tab is NULL */
};

static struct sym_module *sym_modules;

/* Query and answer of the dl_iterate_phdr callback. */
struct sym_find {
	uintptr_t   addr;
	bool        found;
	bool        is_main;
	uintptr_t   base;
	char        name[4096];
};

/* dl_iterate_phdr callback: is f->addr inside one of this module's PT_LOADs? */
static int sym_find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct sym_find *f = arg;

	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || f->addr < start || f->addr - start >= ph->p_memsz)
			continue;
		f->found = true;
		f->base = info->dlpi_addr;
		f->is_main = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
		snprintf(f->name, sizeof f->name, "%s", f->is_main ? "" : info->dlpi_name);
		return 1;
	}
	return 0;
}

/* The cached module holding addr (loading its symbols the first time), or
 * NULL when addr is in no module. */
static struct sym_module *sym_find_module(uintptr_t addr)
{
	struct sym_find *f = xcalloc(1, sizeof *f);
	struct sym_module *m = NULL;
	char err[PROTO_ERR_LEN];
	const char *file;

	f->addr = addr;
	dl_iterate_phdr(sym_find_cb, f);
	if (!f->found)
		goto out;
	if (f->is_main) {
		ssize_t n = readlink("/proc/self/exe", f->name, sizeof f->name - 1);

		f->name[n > 0 ? n : 0] = '\0';
	}
	for (m = sym_modules; m != NULL; m = m->next)
		if (m->base == f->base && strcmp(m->path, f->name) == 0)
			goto out;
	m = xcalloc(1, sizeof *m);
	m->base = f->base;
	m->path = xstrdup(f->name);
	/* The running executable is always /proc/self/exe, even if replaced. */
	file = f->is_main ? "/proc/self/exe" : f->name;
	if (symtab_load(file, &m->tab, err, sizeof err) < 0)
		m->error = xstrdup(err);
	m->next = sym_modules;
	sym_modules = m;
out:
	free(f);
	return m;
}

/* See symbols.h. */
int sym_resolve(uintptr_t addr, struct sym_info *out)
{
	struct sym_module *m = sym_find_module(addr);
	const struct symtab_sym *s;

	memset(out, 0, sizeof *out);
	out->module = "";
	if (m == NULL)
		return -1;
	out->module = m->path;
	out->offset = addr - m->base;
	s = symtab_lookup(m->tab, out->offset);
	if (s == NULL)
		return -1;
	out->name = s->name;
	out->size = s->size;
	return 0;
}

/* See symbols.h. */
void sym_cache_free(void)
{
	while (sym_modules != NULL) {
		struct sym_module *m = sym_modules;

		sym_modules = m->next;
		symtab_free(m->tab);
		free(m->path);
		free(m->error);
		free(m);
	}
}
