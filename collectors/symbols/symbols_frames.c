/*
 * symbols_frames.c - addresses of sampled stacks (block, ipc, power) as
 * function + offset (the agent's symbol catalogue, symbols.h) and file:line
 * (libdw, when the module or its debug file has line information), on the
 * reporter thread.
 * An address inside one of the hook engine's trampoline blocks is taken
 * back to the function whose site the block is.  Results are cached per
 * address (samplers see the same addresses again and again).
 */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "protocol.h"
#include "symbols.h"

#define SYM_FRAME_CACHE 4096              /* addresses cached (a hash, overwritten) */

struct sym_frame_ent {
	uintptr_t addr;                   /* 0 = empty */
	bool      ret;
	uintptr_t key;
	struct proto_block_frame f;
};

static struct sym_frame_ent *sym_frame_cache;
static Dwfl *sym_frame_dwfl_h;
static size_t sym_frame_dwfl_mods;            /* sym_modules_count when reported */

/* Debug files by build-id under the standard directory only (libc6-dbg
 * style; a -g file has its own): dwfl_standard_find_debuginfo would also
 * ask debuginfod, which loads libcurl and OpenSSL into the target. */
static const Dwfl_Callbacks sym_frame_dwfl_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
};

/* libdw's view of this process, made again when modules came or went. */
static Dwfl *sym_frame_dwfl(void)
{
	size_t mods = sym_modules_count();

	if (sym_frame_dwfl_h != NULL && mods == sym_frame_dwfl_mods)
		return sym_frame_dwfl_h;
	if (sym_frame_dwfl_h != NULL)
		dwfl_end(sym_frame_dwfl_h);
	sym_frame_dwfl_mods = mods;
	sym_frame_dwfl_h = dwfl_begin(&sym_frame_dwfl_cb);
	if (sym_frame_dwfl_h == NULL)
		return NULL;
	dwfl_report_begin(sym_frame_dwfl_h);
	if (dwfl_linux_proc_report(sym_frame_dwfl_h, getpid()) != 0) {
		dwfl_report_end(sym_frame_dwfl_h, NULL, NULL);
		dwfl_end(sym_frame_dwfl_h);
		return sym_frame_dwfl_h = NULL;
	}
	dwfl_report_end(sym_frame_dwfl_h, NULL, NULL);
	return sym_frame_dwfl_h;
}

/* file:line of addr, when there is line information. */
static void sym_frame_line(uintptr_t addr, struct proto_block_frame *f)
{
	Dwfl *d = sym_frame_dwfl();
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
	Dwfl_Line *l = m ? dwfl_module_getsrc(m, addr) : NULL;
	const char *file;
	int line = 0;

	if (l == NULL || (file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL)) == NULL)
		return;
	free(f->file);
	f->file = xstrdup(file);
	f->line = line > 0 ? (uint32_t)line : 0;
}

/* Resolve addr (uncached). */
static void sym_frame_resolve(uintptr_t addr, bool ret, struct sym_frame_ent *e)
{
	uintptr_t look = ret && addr > 0 ? addr - 1 : addr, fn = hook_engine_block_fn(addr);
	struct sym_info si;
	const char *base;

	if (fn != 0)
		look = fn;                /* our trampoline: the real function's entry */
	memset(&si, 0, sizeof si);
	memset(&e->f, 0, sizeof e->f);
	e->addr = addr;
	e->ret = ret;
	e->f.addr = addr;
	e->key = look;
	if (sym_resolve(look, &si) == 0) {
		e->f.func = xstrdup(si.name);
		e->f.off = fn != 0 ? 0 : addr - (look - (si.offset - si.start));
		e->key = look - (si.offset - si.start);
	} else {
		e->f.func = xstrdup("");
		e->key = 0;               /* unnamed code (the vDSO): one key for all */
	}
	base = strrchr(si.module ? si.module : "", '/');
	e->f.module = xstrdup(base ? base + 1 : si.module ? si.module : "");
	e->f.file = xstrdup("");
	if (fn == 0)
		sym_frame_line(look, &e->f);
}

/* The cache entry of addr, resolved on first use. */
static struct sym_frame_ent *sym_frame_get(uintptr_t addr, bool ret)
{
	struct sym_frame_ent *e;

	if (sym_frame_cache == NULL)
		sym_frame_cache = xcalloc(SYM_FRAME_CACHE, sizeof *sym_frame_cache);
	e = &sym_frame_cache[((addr >> 2) * 2654435761u + ret) % SYM_FRAME_CACHE];
	if (e->addr == addr && e->ret == ret)
		return e;
	if (e->addr != 0) {
		free(e->f.func);
		free(e->f.module);
		free(e->f.file);
	}
	sym_frame_resolve(addr, ret, e);
	return e;
}

/* See symbols.h. */
uintptr_t sym_frame_key(uintptr_t pc, bool ret)
{
	return sym_frame_get(pc, ret)->key;
}

/* See symbols.h. */
void sym_frame_fill(uintptr_t pc, bool ret, struct proto_block_frame *out)
{
	const struct sym_frame_ent *e = sym_frame_get(pc, ret);

	*out = e->f;
	out->func = xstrdup(e->f.func);
	out->module = xstrdup(e->f.module);
	out->file = xstrdup(e->f.file);
}

/* See symbols.h. */
void sym_frame_forget(void)
{
	for (size_t i = 0; sym_frame_cache != NULL && i < SYM_FRAME_CACHE; i++)
		if (sym_frame_cache[i].addr != 0) {
			free(sym_frame_cache[i].f.func);
			free(sym_frame_cache[i].f.module);
			free(sym_frame_cache[i].f.file);
		}
	free(sym_frame_cache);
	sym_frame_cache = NULL;
	if (sym_frame_dwfl_h != NULL)
		dwfl_end(sym_frame_dwfl_h);
	sym_frame_dwfl_h = NULL;
}
