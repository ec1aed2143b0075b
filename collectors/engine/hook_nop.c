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
 * entry is one instruction, swapped with the trap protocol (hook_nop_sync),
 * or with one store where the back-end has code_swap.
 * A disabled site gets its NOP back, so it costs what the NOP costs; the
 * block's switch is flipped as well, so a thread that took the branch just
 * before the NOP came back still runs correct code.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent.h"
#include "hook.h"
#include "hook_int.h"
#include "protocol.h"
#include "symbols.h"


/* The live nop sites' addresses, sorted, for the trap handler: published
 * whole with a release store; a replaced table is never freed (a handler
 * may be reading it; one per dlopen or dlclose of such a module). */
struct hook_nop_tab {
	struct hook_nop_tab *prev;      /* the replaced one, kept (and reachable) */
	size_t    n;
	uintptr_t sum;          /* of the addresses: with n, tells a changed set */
	uintptr_t fns[];
};
static struct hook_nop_tab *hook_nop_tab;
static struct sigaction hook_nop_old;   /* the SIGTRAP action we chain to */

/* membarrier(2) wrapper. */
static int hook_nop_membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

/* Register for SYNC_CORE barriers, once; false if the kernel cannot. */
static bool hook_nop_can_sync(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = hook_nop_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE) == 0;
	return ok == 1;
}

/* Every core running a thread of ours serializes its instruction stream. */
static void hook_nop_barrier(void)
{
	if (hook_nop_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) != 0)
		agent_warn("hook: membarrier(SYNC_CORE) failed: %s", strerror(errno));
}

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
	if (ones > 0 || !hook_nop_can_sync()) {
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
	if (nsite == 0 || hook_tramp_map(m->lo, m->hi, nsite, &r) < 0) {
		if (nsite > 0) {
			g->refused[HOOK_R_NEAR] += nsite;
			agent_log("hook: %s: no trampoline space within 2 GB", m->path);
		}
		free(tab);
		return 0;
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
		    fn + HOOK_PATCH_LEN);
		s = xcalloc(1, sizeof *s);
		g->sites[g->nsites++] = s;
		s->fn = fn;
		s->name = y->name;
		s->n = HOOK_PATCH_LEN;
		s->global = y->bind != SYM_BIND_LOCAL;
		s->exported = s->global && y->vis == SYM_VIS_DEFAULT;
		s->mod = (int)(m - g->mods->m);
		s->kind = HOOK_K_NOP;
		s->patched = true;      /* the code is written by hook_nop_sync */
		hook_code_copy(s->orig, (const void *)fn, HOOK_PATCH_LEN);
		hook_tramp_fill(&r, k++, (uint32_t)(g->nsites - 1), s, &p);
	}
	hook_engine_seal(g, &r, first, m->path);
	free(tab);
	return 0;
}

/* SIGTRAP: a thread ran into the trap of a site being rewritten.  The site
 * is a NOP or a branch to its block: continue after it (pc = fn + patch length), which is
 * the NOP's effect, so such a call is not timed.  Any other trap goes to the
 * previous action.  Async-signal-safe: a table is read-only once published. */
static void hook_nop_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uintptr_t at = hook_backend.uc_pc(uc) - 1;
	const struct hook_nop_tab *t = __atomic_load_n(&hook_nop_tab, __ATOMIC_ACQUIRE);

	if (t != NULL && bsearch(&at, t->fns, t->n, sizeof at, hook_nop_cmp) != NULL) {
		hook_backend.uc_set_pc(uc, at + HOOK_PATCH_LEN);
		return;
	}
	if (hook_nop_old.sa_flags & SA_SIGINFO) {
		hook_nop_old.sa_sigaction(sig, si, ctx);
	} else if (hook_nop_old.sa_handler == SIG_DFL) {
		/* Not ours: die of it as without us (raised again on return). */
		sigaction(SIGTRAP, &hook_nop_old, NULL);
		raise(SIGTRAP);
	} else if (hook_nop_old.sa_handler != SIG_IGN) {
		hook_nop_old.sa_handler(sig);
	}
}

/* Install the trap handler before a trap is written, again if the program
 * replaced it since (then its handler is the one we chain to).  The site
 * table is rebuilt when the live nop sites changed (a dlopen or dlclose). */
static void hook_nop_trap_install(const struct hook_engine *g)
{
	const struct hook_nop_tab *cur_tab = __atomic_load_n(&hook_nop_tab, __ATOMIC_ACQUIRE);
	struct sigaction sa, cur;
	size_t live = 0;
	uintptr_t sum = 0;

	for (size_t i = 0; i < g->nsites; i++)
		if (g->sites[i]->kind == HOOK_K_NOP && !g->sites[i]->dead) {
			live++;
			sum += g->sites[i]->fn;
		}
	if (cur_tab == NULL || cur_tab->n != live || cur_tab->sum != sum) {
		struct hook_nop_tab *t = xcalloc(1, sizeof *t + (live + 1) * sizeof t->fns[0]);

		t->sum = sum;
		t->prev = (struct hook_nop_tab *)cur_tab;
		for (size_t i = 0; i < g->nsites; i++)
			if (g->sites[i]->kind == HOOK_K_NOP && !g->sites[i]->dead)
				t->fns[t->n++] = g->sites[i]->fn;
		qsort(t->fns, t->n, sizeof t->fns[0], hook_nop_cmp);
		__atomic_store_n(&hook_nop_tab, t, __ATOMIC_RELEASE);
	}
	if (sigaction(SIGTRAP, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == hook_nop_trap)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = hook_nop_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &hook_nop_old) != 0)
		agent_warn("hook: cannot install the SIGTRAP handler: %s", strerror(errno));
}

/* See hook_int.h. */
void hook_nop_untrap(void)
{
	struct sigaction cur;

	if (sigaction(SIGTRAP, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == hook_nop_trap)
		sigaction(SIGTRAP, &hook_nop_old, NULL);
}

/* Where site s's entry should branch: where its switch points (the timed
 * or the counted path), or 0 for the NOP (a site off, or not watched). */
static uintptr_t hook_nop_to(const struct hook_site *s)
{
	uintptr_t to = __atomic_load_n(s->sw, __ATOMIC_RELAXED);

	return s->on && to != s->reloc ? to : 0;
}

/* The 5 bytes site s should hold: the branch, or the NOP. */
static void hook_nop_code(const struct hook_site *s, uint8_t out[HOOK_PATCH_LEN])
{
	uintptr_t to = hook_nop_to(s);

	if (to == 0) {
		memcpy(out, s->orig, HOOK_PATCH_LEN);
		return;
	}
	hook_backend.branch(out, s->fn, to);
}

/* Does site s's code differ from what its switch says? */
static bool hook_nop_stale(const struct hook_site *s)
{
	uintptr_t to = hook_nop_to(s);

	return s->kind == HOOK_K_NOP && s->patched &&
	    (s->code_on != (to != 0) || (to != 0 && s->code_to != to));
}

/* Write bytes 1-4 of every stale site's new instruction, or (head) its
 * first byte, which makes it the new instruction. */
static void hook_nop_write(struct hook_engine *g, bool head)
{
	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];
		uint8_t code[HOOK_PATCH_LEN];

		if (!hook_nop_stale(s))
			continue;
		hook_nop_code(s, code);
		if (!head) {
			hook_code_copy((uint8_t *)s->fn + 1, code + 1, HOOK_PATCH_LEN - 1);
			continue;
		}
		hook_code_store1((void *)s->fn, code[0]);
		s->code_to = hook_nop_to(s);
		s->code_on = s->code_to != 0;
	}
}

/* Give the modules made writable their protection back. */
static void hook_nop_close(const struct hook_engine *g, const bool opened[HOOK_MAX_MODS])
{
	for (int mi = 0; mi < g->mods->n && mi < HOOK_MAX_MODS; mi++)
		if (opened[mi] && hook_mod_protect(&g->mods->m[mi], false) < 0)
			agent_warn("hook: cannot restore the protection of %s: %s",
			    g->mods->m[mi].path, strerror(errno));
}

/* See hook_int.h.  For all stale sites at once: the trap at byte 0, barrier,
 * the other bytes, barrier, byte 0, barrier: another core never executes a mix
 * of old and new bytes (it sees either the old instruction, the trap, or the
 * new one).  Three barriers per level change, whatever the number of sites. */
void hook_nop_sync(struct hook_engine *g)
{
	bool opened[HOOK_MAX_MODS] = { false };
	size_t stale = 0;

	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];

		if (!hook_nop_stale(s))
			continue;
		if (!opened[s->mod]) {
			if (hook_mod_protect(&g->mods->m[s->mod], true) < 0) {
				agent_warn("hook: cannot write the code of %s: %s (the switches"
				    " still apply)", g->mods->m[s->mod].path, strerror(errno));
				hook_nop_close(g, opened);
				return;
			}
			opened[s->mod] = true;
		}
		stale++;
	}
	if (stale == 0)
		return;
	if (hook_backend.code_swap != NULL) {
		for (size_t i = 0; i < g->nsites; i++) {
			struct hook_site *s = g->sites[i];
			uint8_t code[HOOK_PATCH_LEN];

			if (!hook_nop_stale(s))
				continue;
			hook_nop_code(s, code);
			hook_backend.code_swap((void *)s->fn, code);
			s->code_to = hook_nop_to(s);
			s->code_on = s->code_to != 0;
		}
		hook_nop_barrier();
		hook_nop_close(g, opened);
		return;
	}
	hook_nop_trap_install(g);
	for (size_t i = 0; i < g->nsites; i++)
		if (hook_nop_stale(g->sites[i]))
			hook_code_store1((void *)g->sites[i]->fn, hook_backend.trap);
	hook_nop_barrier();
	hook_nop_write(g, false);
	hook_nop_barrier();
	hook_nop_write(g, true);
	hook_nop_barrier();
	hook_nop_close(g, opened);
}
