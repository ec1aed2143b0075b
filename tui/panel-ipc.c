/*
 * panel-ipc.c - PLACEHOLDER of the IPC panel (doc/contracts: the ipc branch
 * writes the real one with these four entry points; the integrator takes
 * that file at merge).  It only says there is no IPC data, so the
 * overview and view ipc have something honest to show meanwhile.
 */
#include "tui.h"

/* See tui.h: one row for the message. */
int tui_panel_ipc_height(const struct tui_app *a, int avail)
{
	(void)a;
	return avail >= 1 ? 1 : 0;
}

/* See tui.h. */
void tui_panel_ipc_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	if (h >= 1)
		tui_screen_put(win, y, x + 1, w - 1, a->attr[TUI_EL_ROW_IDLE], "no IPC data");
}

/* See tui.h: nothing to select. */
void tui_panel_ipc_move(struct tui_app *a, int delta)
{
	(void)a;
	(void)delta;
}

/* See tui.h: no detail view (slow calls) yet. */
void tui_panel_ipc_details(struct tui_app *a)
{
	tui_app_message(a, false, "no IPC data");
}
