/*
 * refresh.c - which frame the screen shows, and when: frames from the
 * daemon land in a->pending; the one shown is replaced at most every
 * refresh_ms (keys + and -), and never while paused (key p), so a moving
 * table can be read.  The connection keeps receiving meanwhile: unpausing
 * shows the newest frame at once.
 */
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "panel-funcs.h"

static const unsigned refresh_steps[] = { 100, 250, 500, 1000, 2000, 5000 };
#define REFRESH_NSTEPS (sizeof refresh_steps / sizeof refresh_steps[0])
#define REFRESH_SLACK_NS 50000000ull      /* a frame 50 ms early is on time */

/* See tui.h. */
void tui_app_show_pending(struct tui_app *a, bool force)
{
	struct proto_server_msg *m = a->pending;
	uint64_t now = proto_now_ns();

	if (m == NULL || (!force && (a->paused ||
	    now + REFRESH_SLACK_NS < a->shown_ns + (uint64_t)a->refresh_ms * 1000000ull)))
		return;
	a->pending = NULL;
	tui_msg_free(a->frame);
	a->frame = m;
	a->shown_ns = now;
	/* A frame sent before the daemon saw a new sort key: sort it here. */
	if (a->want_sort != NULL && strcmp(m->frame.sort, a->want_sort) != 0) {
		tui_funcs_sort(m->frame.funcs, m->frame.nfuncs, a->want_sort);
		free(m->frame.sort);
		m->frame.sort = xstrdup(a->want_sort);
	}
	tui_panel_funcs_follow(a);
}

/* See tui.h. */
void tui_app_pause(struct tui_app *a, bool on)
{
	a->paused = on;
	if (!on)
		tui_app_show_pending(a, true);
	tui_app_message(a, false, on ? "paused: the display stays, data keeps arriving (p resumes)" :
	    "resumed");
}

/* See tui.h: dir < 0 faster, > 0 slower. */
void tui_app_refresh_step(struct tui_app *a, int dir)
{
	size_t i = 0;

	while (i + 1 < REFRESH_NSTEPS && refresh_steps[i] < a->refresh_ms)
		i++;
	if (dir < 0 && i > 0)
		i--;
	else if (dir > 0 && i + 1 < REFRESH_NSTEPS)
		i++;
	a->refresh_ms = refresh_steps[i];
	tui_app_message(a, false, "refresh every %.2g s", a->refresh_ms / 1000.0);
}
