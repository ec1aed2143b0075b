/*
 * hook_nop.c - the compiler-assisted back-end: functions that start with one
 * patch-sized NOP listed in a table the compiler emitted
 * (__patchable_function_entries from -fpatchable-function-entry, or
 * __mcount_loc from gcc -pg -mfentry -mnop-mcount -mrecord-mcount); which NOP
 * patterns count as one instruction is the architecture back-end's
 * (entry_nop, entry_nops).  A NOP written as several instructions is refused:
 * a thread may be stopped between two of them, so they cannot be replaced
 * while threads run; such a module is left to prologue relocation.
 *
 * A site's NOP becomes a branch to its block's entry (the block is the
 * trampoline's, with an empty relocated prologue: a branch back to the
 * function after the NOP), so the
 * stubs, the timing and the return-address exit are the relocation
 * back-end's.  No prologue is relocated and no thread is stopped: the
 * entry is one instruction, swapped with the trap protocol, or with one
 * store where the back-end has code_swap (hook_live.c).
 * A disabled site gets its NOP back, so it costs what the NOP costs; the
 * block's switch is flipped as well, so a thread that took the branch just
 * before the NOP came back still runs correct code.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "hook.h"
#include "hook_int.h"
#include "protocol.h"
#include "symbols.h"


/* qsort/bsearch order of addresses. */
static int hook_nop_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Read the entry table of one section: from memory when it is allocated
 * (ld.so has relocated it: runtime addresses), else from the file (+ bias
 * for a position-independent module).  Appends to *v. */
static void hook_nop_read(Elf_Scn *scn, const GElf_Shdr *sh, const struct hook_mod *m, bool dyn,
    uintptr_t **v, size_t *n)
{
	size_t k = sh->sh_size / sizeof(uint64_t);
	const uint64_t *src;
	Elf_Data *d = NULL;

	if (sh->sh_flags & SHF_ALLOC) {
		src = (const uint64_t *)(m->bias + sh->sh_addr);
	} else {
		d = elf_getdata(scn, NULL);
		if (d == NULL || d->d_buf == NULL || d->d_size < k * sizeof(uint64_t))
			return;
		src = d->d_buf;
	}
	*v = realloc(*v, (*n + k + 1) * sizeof **v);
	if (*v == NULL)
		abort();
	for (size_t i = 0; i < k; i++) {
		uint64_t a;

		memcpy(&a, src + i, sizeof a);
		(*v)[(*n)++] = (uintptr_t)a + (d != NULL && dyn ? m->bias : 0);
	}
}

/* The module's NOP table (addresses, sorted) and its section's name, or
 * NULL when it has none. */
static uintptr_t *hook_nop_table(const struct hook_mod *m, size_t *n, const char **what)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	uintptr_t *v = NULL;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstr;
	GElf_Ehdr eh;

	*n = 0;
	if (fd < 0)
		return NULL;
	(void)elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e == NULL || gelf_getehdr(e, &eh) == NULL || elf_getshdrstrndx(e, &shstr) != 0)
		goto out;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(e, shstr, sh.sh_name);
		if (name == NULL || (strcmp(name, "__patchable_function_entries") != 0 &&
		    strcmp(name, "__mcount_loc") != 0))
			continue;
		*what = name[2] == 'p' ? "__patchable_function_entries" : "__mcount_loc";
		hook_nop_read(scn, &sh, m, eh.e_type == ET_DYN, &v, n);
	}
out:
	if (e != NULL)
		elf_end(e);
	close(fd);
	if (v != NULL)
		qsort(v, *n, sizeof *v, hook_nop_cmp);
	return v;
}

/* See hook_int.h. */
int hook_nop_prepare(struct hook_engine *g, const struct hook_mod *m, const struct symtab *t)
{
	const char *what = "";
	size_t n, nsite = 0, k = 0, ones = 0, first;
	uintptr_t *tab = hook_nop_table(m, &n, &what);
	struct hook_region r;

	if (tab == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!hook_mod_exec(m, tab[i], HOOK_PATCH_LEN))
			tab[i] = 0;     /* not code of this module: ignored */
		else if (hook_backend.entry_nops((const uint8_t *)tab[i]))
			ones++;
	}
	qsort(tab, n, sizeof *tab, hook_nop_cmp);
	if (ones > 0 || !hook_live_can_sync()) {
		agent_log("hook: %s: %s lists %s; relocating prologues instead", m->path, what,
		    ones ? "five 1-byte NOPs (gcc -fpatchable-function-entry: not replaceable live)"
		    : "NOPs but membarrier(SYNC_CORE) is unavailable");
		free(tab);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		uintptr_t fn = m->bias + t->syms[i].offset;

		if (bsearch(&fn, tab, n, sizeof *tab, hook_nop_cmp) != NULL &&
		    hook_backend.entry_nop((const uint8_t *)fn))
			nsite++;
	}
	agent_log("hook: %s: compiler-assisted, %zu of %zu %s entries are named entry NOPs",
	    m->path, nsite, n, what);
	if (nsite == 0) {
		free(tab);
		return 0;
	}
	/* A NOP is only ever swapped for a short branch: no region in its
	 * reach of the whole module (a large one, or a full neighbourhood)
	 * leaves the module to prologue relocation, whose regions serve parts
	 * of a module and whose back-end may have a far entry. */
	if (hook_tramp_map(m->lo, m->hi, nsite, &r) < 0) {
		agent_log("hook: %s: %s for its entry NOPs; relocating prologues instead", m->path,
		    hook_why_name(HOOK_R_NEAR));
		free(tab);
		return -1;
	}
	hook_engine_grow(g, nsite);
	first = g->nsites;
	for (size_t i = 0; i < t->n && k < nsite; i++) {
		const struct symtab_sym *y = &t->syms[i];
		uintptr_t fn = m->bias + y->offset;
		struct hook_plan p = { .n = HOOK_PATCH_LEN, .len = HOOK_PATCH_LEN };
		struct hook_site *s;

		if (bsearch(&fn, tab, n, sizeof *tab, hook_nop_cmp) == NULL ||
		    !hook_backend.entry_nop((const uint8_t *)fn))
			continue;
		/* The empty relocated prologue: a branch to the function after the NOP. */
		hook_backend.branch(p.out, (uintptr_t)(hook_tramp_blk(&r, k) + HOOK_BLK_HEAD),
		    fn + HOOK_PATCH_LEN, HOOK_PATCH_LEN);
		s = xcalloc(1, sizeof *s);
		g->sites[g->nsites++] = s;
		s->fn = fn;
		s->name = y->name;
		s->n = s->entry = HOOK_PATCH_LEN;
		s->global = y->bind != SYM_BIND_LOCAL;
		s->exported = s->global && y->vis == SYM_VIS_DEFAULT;
		s->mod = (int)(m - g->mods->m);
		s->kind = HOOK_K_NOP;
		s->patched = true;      /* the code is written by hook_live_sync */
		hook_code_copy(s->orig, (const void *)fn, HOOK_PATCH_LEN);
		hook_tramp_fill(&r, k++, (uint32_t)(g->nsites - 1), s, &p);
	}
	hook_engine_seal(g, &r, first, m->path);
	free(tab);
	return 0;
}
