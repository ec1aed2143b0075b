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
 * frame; false when the call is not timed.  The function is the word after
 * the block's switch (hook_layout.h), written before the block could be
 * entered and never changed. */
bool hook_site_enter(const uint8_t *entered, uintptr_t *slot)
{
	const uint8_t *blk = entered - HOOK_BLK_ENTERED;

	return tm_site_enter(hook_blk_switch(blk)[HOOK_SW_FN], slot, (uintptr_t)blk + HOOK_BLK_RET);
}

/* Called by hook_exit_common: the real return address of the call whose
 * return-address slot was slot. */
uintptr_t hook_site_exit(uintptr_t *slot)
{
	return tm_site_exit(slot);
}

/* Called by hook_count_common for a counted site: count the call. */
void hook_site_count(const uint8_t *counted)
{
	const uint8_t *blk = counted - HOOK_BLK_COUNTED;

	tm_site_count(hook_blk_switch(blk)[HOOK_SW_FN]);
}
