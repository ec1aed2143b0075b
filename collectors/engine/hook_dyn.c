/*
 * hook_dyn.c - the function imports of a loaded module, read from its
 * dynamic section where the loader mapped it (PT_DYNAMIC): the JUMP_SLOT
 * and GLOB_DAT relocations (the back-end's rel_jump_slot, rel_glob_dat) of
 * function symbols, with the version each requires, for the import sites
 * and GOT bindings of hook_got.c.
 */
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "hook_int.h"
#include "protocol.h"

#if __ELF_NATIVE_CLASS == 64
#define HOOK_R_TYPE    ELF64_R_TYPE
#define HOOK_R_SYM     ELF64_R_SYM
#else
#define HOOK_R_TYPE    ELF32_R_TYPE
#define HOOK_R_SYM     ELF32_R_SYM
#endif

/* A module's dynamic tables, read where the loader mapped them: no file
 * read, no ELF parse (a library such as libcapstone has 1.8 MB of
 * relocations, nearly all relative ones, which come first and are
 * skipped by their count). */
struct hook_dyn {
	const ElfW(Sym)     *sym;
	const char          *str;
	size_t               strsz;
	const ElfW(Half)    *versym;
	uintptr_t            verneed;
	size_t               nverneed;
	const ElfW(Rela)    *rel[2];      /* DT_RELA past the relative ones, DT_JMPREL */
	size_t               nrel[2];
};

/* Does [p, p+len) lie inside module m? */
static bool hook_dyn_in(const struct hook_mod *m, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	return a >= m->lo && a <= m->hi && len <= m->hi - a;
}

/* A d_ptr of m's dynamic section as a runtime address.  The loader
 * adjusts some tags in place (glibc: the tables it uses itself), not
 * others; a value inside the module is already a runtime address (a
 * link-time offset of a biased module is far below it). */
static uintptr_t hook_dyn_addr(const struct hook_mod *m, uintptr_t v)
{
	return v >= m->lo && v < m->hi ? v : m->bias + v;
}

/* Read m's dynamic section into d.  0, or -1 when it has none usable. */
static int hook_dyn_read(const struct hook_mod *m, struct hook_dyn *d)
{
	uintptr_t rela = 0, relasz = 0, relacount = 0, jmprel = 0, pltrelsz = 0;
	bool pltrela = true;

	memset(d, 0, sizeof *d);
	if (m->dyn == 0)
		return -1;
	for (const ElfW(Dyn) *t = (const ElfW(Dyn) *)m->dyn;
	    hook_dyn_in(m, t, sizeof *t) && t->d_tag != DT_NULL; t++) {
		uintptr_t p = t->d_un.d_ptr;

		switch (t->d_tag) {
		case DT_SYMTAB:      d->sym = (const ElfW(Sym) *)hook_dyn_addr(m, p); break;
		case DT_STRTAB:      d->str = (const char *)hook_dyn_addr(m, p); break;
		case DT_STRSZ:       d->strsz = t->d_un.d_val; break;
		case DT_VERSYM:      d->versym = (const ElfW(Half) *)hook_dyn_addr(m, p); break;
		case DT_VERNEED:     d->verneed = hook_dyn_addr(m, p); break;
		case DT_VERNEEDNUM:  d->nverneed = t->d_un.d_val; break;
		case DT_RELA:        rela = hook_dyn_addr(m, p); break;
		case DT_RELASZ:      relasz = t->d_un.d_val; break;
		case DT_RELACOUNT:   relacount = t->d_un.d_val; break;
		case DT_JMPREL:      jmprel = hook_dyn_addr(m, p); break;
		case DT_PLTRELSZ:    pltrelsz = t->d_un.d_val; break;
		case DT_PLTREL:      pltrela = t->d_un.d_val == DT_RELA; break;
		default:             break;
		}
	}
	if (d->sym == NULL || d->str == NULL || !hook_dyn_in(m, d->str, d->strsz))
		return -1;
	relasz /= sizeof(ElfW(Rela));
	if (rela != 0 && relacount < relasz && hook_dyn_in(m, (void *)rela, relasz * sizeof(ElfW(Rela)))) {
		d->rel[0] = (const ElfW(Rela) *)rela + relacount;
		d->nrel[0] = relasz - relacount;
	}
	pltrelsz /= sizeof(ElfW(Rela));
	if (jmprel != 0 && pltrela && hook_dyn_in(m, (void *)jmprel, pltrelsz * sizeof(ElfW(Rela))) &&
	    !(jmprel >= rela && jmprel < rela + relasz * sizeof(ElfW(Rela)))) {
		d->rel[1] = (const ElfW(Rela) *)jmprel;
		d->nrel[1] = pltrelsz;
	}
	return 0;
}

/* The version name symbol si requires (DT_VERSYM, DT_VERNEED), or NULL. */
static const char *hook_dyn_ver(const struct hook_mod *m, const struct hook_dyn *d, size_t si)
{
	uintptr_t vn = d->verneed;
	ElfW(Half) v;

	if (d->versym == NULL || vn == 0 || !hook_dyn_in(m, &d->versym[si], sizeof *d->versym))
		return NULL;
	v = d->versym[si] & 0x7fff;
	for (size_t i = 0; v >= 2 && i < d->nverneed; i++) {
		const ElfW(Verneed) *n = (const ElfW(Verneed) *)vn;
		uintptr_t a;

		if (!hook_dyn_in(m, n, sizeof *n))
			return NULL;
		a = vn + n->vn_aux;
		for (unsigned k = 0; k < n->vn_cnt; k++) {
			const ElfW(Vernaux) *x = (const ElfW(Vernaux) *)a;

			if (!hook_dyn_in(m, x, sizeof *x))
				return NULL;
			if (x->vna_other == v)
				return x->vna_name < d->strsz ? d->str + x->vna_name : NULL;
			if (x->vna_next == 0)
				break;
			a += x->vna_next;
		}
		if (n->vn_next == 0)
			break;
		vn += n->vn_next;
	}
	return NULL;
}

/* See hook_int.h. */
int hook_dyn_imports(const struct hook_mod *m, struct hook_got_imp **outp)
{
	struct hook_got_imp *out;
	struct hook_dyn d;
	int n = 0;

	*outp = NULL;
	if (hook_dyn_read(m, &d) < 0)
		return -1;
	*outp = out = xmalloc((d.nrel[0] + d.nrel[1] + 1) * sizeof *out);
	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < d.nrel[t]; i++) {
			const ElfW(Rela) *r = &d.rel[t][i];
			int type = (int)HOOK_R_TYPE(r->r_info);
			size_t si = HOOK_R_SYM(r->r_info);
			const ElfW(Sym) *s = &d.sym[si];

			if ((type != hook_backend.rel_jump_slot && type != hook_backend.rel_glob_dat) ||
			    si == 0 || !hook_dyn_in(m, s, sizeof *s) ||
			    ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_name == 0 ||
			    s->st_name >= d.strsz)
				continue;
			out[n].slot = m->bias + r->r_offset;
			out[n].name = d.str + s->st_name;
			out[n].ver = hook_dyn_ver(m, &d, si);
			out[n].call = type == hook_backend.rel_jump_slot;
			out[n].own = s->st_shndx != SHN_UNDEF;
			n++;
		}
	return n;
}

/* See hook_int.h. */
bool hook_dyn_has_import(const struct hook_mod *m, const char *sym)
{
	struct hook_got_imp *imps;
	int n = hook_dyn_imports(m, &imps);
	bool found = false;

	for (int i = 0; i < n && !found; i++)
		found = !imps[i].own && strcmp(imps[i].name, sym) == 0;
	free(imps);
	return found;
}

/* See engine.h. */
bool hook_image_imports(const struct dl_phdr_info *info, const char *sym)
{
	struct hook_mod m;

	memset(&m, 0, sizeof m);
	hook_mod_describe(info, &m);
	return hook_dyn_has_import(&m, sym);
}
