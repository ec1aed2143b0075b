/*
 * panel-blocks.h - what other files use of the UI-thread blocks panel
 * (panel-blocks.c): its detail overlay (the b key, :blocks) and the
 * status-bar flag.
 */
#ifndef HOOKSCOPE_TUI_PANEL_BLOCKS_H
#define HOOKSCOPE_TUI_PANEL_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

#include "tui.h"

/* The blocks and their stacks as an overlay. */
void tui_blocks_show(struct tui_app *a);
/* " BLOCK 312 ms " while a block runs or for a while after; false: none. */
bool tui_blocks_flag(const struct tui_app *a, char *buf, size_t len);

#endif
