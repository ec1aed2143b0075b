/*
 * hook_hot.c - the C half of the hook engine's stubs (hook_tramp.c), run on
 * every timed call of a site.  Built with -mgeneral-regs-only (Makefile):
 * the stubs save only the general registers (hook.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "hook.h"
#include "hook_int.h"
#include "timing.h"

/* Called by hook_enter_common for an enabled site: open the call's timing
 * frame; false when the call is not timed.  The table does not move once
 * a site can be enabled (it grows only while patching). */
bool hook_site_enter(uint32_t index, uintptr_t *slot)
{
	struct hook_site *s = __atomic_load_n(&hook_g.sites, __ATOMIC_ACQUIRE)[index];

	return tm_site_enter(s->fn, slot, (uintptr_t)s->blk + HOOK_BLK_RET);
}

/* Called by hook_exit_common: the real return address of the call whose
 * return-address slot was slot. */
uintptr_t hook_site_exit(uintptr_t *slot)
{
	return tm_site_exit(slot);
}
