/*
 * hook_int.h - the hook engine's state shared by hook_site.c (collector,
 * levels, switches) and hook_patch.c (modules, patching).
 */
#ifndef HOOKSCOPE_HOOK_INT_H
#define HOOKSCOPE_HOOK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hook.h"

struct hook_mods;
struct symtab;

struct hook_engine {
	struct hook_mods *mods;           /* the modules seen at patch time */
	struct hook_site **sites;         /* one allocation each: blocks point at them */
	size_t            nsites, cap;
	struct symtab   **tabs;           /* kept: the sites name their strings */
	size_t            ntabs;
	size_t            refused[HOOK_R_COUNT];
	uint64_t          prep_ns;        /* symbols, capstone, blocks */
	uint64_t          stop_ns;        /* the stopped part */
};

/* Make room for n more site pointers. */
void hook_engine_grow(struct hook_engine *g, size_t n);

/* hook_patch.c: find, plan and patch every candidate (once). */
void hook_engine_patch(struct hook_engine *g);

#endif
