/*
 * symbols_frames.c - addresses of sampled stacks (block, ipc, net, memory,
 * power) as function + offset (the agent's symbol catalogue, symbols.h), on
 * the reporter thread.  Source lines are not looked up here: reading debug
 * information (often compressed) would cost the target the CPU time it
 * takes; the daemon fills file:line in from the same files (daemon/lines.c).
 * An address inside one of the hook engine's trampoline blocks is taken
 * back to the function whose site the block is.  Results are cached per
 * address (samplers see the same addresses again and again).
 */
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
	e->f.pc = !ret;
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
}
