/*
 * panel-power.c - PLACEHOLDER of the power panel (doc/contracts: the power branch
 * writes the real one with these four entry points; the integrator takes
 * that file at merge).  It only says there is no power data, so the
 * overview and view power have something honest to show meanwhile.
 */
#include "tui.h"

/* See tui.h: one row for the message. */
int tui_panel_power_height(const struct tui_app *a, int avail)
{
	(void)a;
	return avail >= 1 ? 1 : 0;
}

/* See tui.h. */
void tui_panel_power_draw(struct tui_app *a, void *win, int y, int x, int h, int w)
{
	if (h >= 1)
		tui_screen_put(win, y, x + 1, w - 1, a->attr[TUI_EL_ROW_IDLE], "no power data");
}

/* See tui.h: nothing to select. */
void tui_panel_power_move(struct tui_app *a, int delta)
{
	(void)a;
	(void)delta;
}

/* See tui.h: no detail view (held resources) yet. */
void tui_panel_power_details(struct tui_app *a)
{
	tui_app_message(a, false, "no power data");
}
