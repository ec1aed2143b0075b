/*
 * block.h - the block collector as the rest of the agent sees it: the UI
 * thread's selection (agent core) and its tid (ipc tags the UI thread's
 * calls).  Internals: collectors/block/block_int.h.
 */
#ifndef HOOKSCOPE_BLOCK_H
#define HOOKSCOPE_BLOCK_H

#include <stdint.h>

/* The daemon's ui_thread record, or HOOKSCOPE_UI_THREAD: select it. */
void block_ui_select(const char *sel);
/* The selected UI thread's tid, 0 if none. */
int32_t block_wait_tid(void);

#endif
