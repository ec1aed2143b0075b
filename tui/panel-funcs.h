/*
 * panel-funcs.h - what other files use of the hot-functions panel
 * (panel-funcs.c): the overview draws it, and its selection follows a
 * function by name across frames.
 */
#ifndef HOOKSCOPE_TUI_PANEL_FUNCS_H
#define HOOKSCOPE_TUI_PANEL_FUNCS_H

#include "tui.h"

extern const struct tui_view tui_view_funcs;

/* Header at row y, rows below, h rows in all. */
void tui_panel_funcs_draw(struct tui_app *a, void *win, int y, int x, int h, int w);
/* After a new frame, a move or a resize: keep the selection on its function. */
void tui_panel_funcs_follow(struct tui_app *a);
/* Columns of the NAME column in a w-column panel (the frame's names decide). */
int  tui_panel_funcs_name_width(const struct tui_app *a, int w);

#endif
