/*
 * hook_kind.c - the site kinds' table: what the engine's generic code
 * (levels, stats, patching, detach, names) does with each kind.  The kind's
 * own work is its file's (hook_patch.c, hook_nop.c, hook_got.c,
 * hook_unwind.c).
 */
#include <stddef.h>

#include "engine.h"
#include "hook.h"

const struct hook_kind_ops hook_kinds[HOOK_K_COUNT] = {
	[HOOK_K_RELOC] = { .what = "relocated prologues", .levelled = true, .entry_branch = true,
	    .named = true, .counted = true, .active_off = offsetof(struct hook_stats, active),
	    .disabled_off = offsetof(struct hook_stats, disabled) },
	[HOOK_K_NOP]   = { .what = "NOP sites", .levelled = true, .named = true, .counted = true,
	    .active_off = offsetof(struct hook_stats, nop_active),
	    .disabled_off = offsetof(struct hook_stats, nop_disabled) },
	[HOOK_K_GOT]   = { .what = "import sites", .levelled = true, .named = true, .counted = true,
	    .active_off = offsetof(struct hook_stats, got_active),
	    .disabled_off = offsetof(struct hook_stats, got_disabled) },
	[HOOK_K_WRAP]  = { .what = "unwinder wrappers", .entry_branch = true },
};
