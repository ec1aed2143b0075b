/*
 * screen.c - the curses screen: set-up and restore, layout, status bar,
 * info line, message line and the overlay box.
 *
 * Layout (rows): 0 status bar, 1 info line, 2.. the view shown (the
 * overview, or one collector full screen: views.c), LINES-2 message line,
 * LINES-1 command line, or the view tabs and key hints (its own window,
 * refreshed last so the cursor ends there).  Input is read through two
 * pads (pads never refresh on wgetch): one with keypad() for the keys, one
 * without for readline, which wants the raw escape sequences.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "tui.h"
#include "panel-blocks.h"
#include "panel-funcs.h"

/* After tui.h: term.h defines macros such as "lines" and "hangup". */
#include <curses.h>
#include <term.h>

#define SCREEN_MIN_COLS 30
#define SCREEN_MIN_ROWS 6
#define SCREEN_MSG_NS   (10ull * 1000000000ull)  /* info messages fade... */
#define SCREEN_ERR_NS   (30ull * 1000000000ull)  /* ...errors later (or Esc) */

static WINDOW *scr_main, *scr_cmd, *scr_keys, *scr_raw;
static SCREEN *scr_screen;
static bool scr_active;
static bool scr_utf8;

/* For the crash handler: what restores the terminal, saved beforehand. */
static struct termios scr_saved_tio;
static bool scr_have_tio;
static char scr_restore_seq[128];
static size_t scr_restore_len;

/* Fatal signal: restore the terminal with async-signal-safe calls, re-raise. */
static void screen_crash(int sig)
{
	if (scr_restore_len > 0 && write(STDOUT_FILENO, scr_restore_seq, scr_restore_len) < 0)
		scr_restore_len = 0;
	if (scr_have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &scr_saved_tio);
	raise(sig);                     /* SA_RESETHAND: the default action now */
}

/* Install screen_crash where nobody else (a sanitizer) handles the signal. */
static void screen_crash_handlers(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	const char *caps[] = { "rmcup", "cnorm", "sgr0" };

	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		const char *s = tigetstr(caps[i]);

		if (s != NULL && s != (char *)-1 && scr_restore_len + strlen(s) < sizeof scr_restore_seq) {
			memcpy(scr_restore_seq + scr_restore_len, s, strlen(s));
			scr_restore_len += strlen(s);
		}
	}
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa;

		if (sigaction(sigs[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = screen_crash;
		sa.sa_flags = SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

/* atexit: whatever path leads to exit(), the terminal comes back. */
static void screen_atexit(void)
{
	tui_screen_end();
}

/* (Re)create the two windows for the current LINES x COLS. */
static void screen_windows(void)
{
	int rows = LINES > 1 ? LINES - 1 : 1;

	if (scr_main != NULL) {
		wresize(scr_main, rows, COLS > 0 ? COLS : 1);
		wresize(scr_cmd, 1, COLS > 0 ? COLS : 1);
		mvwin(scr_cmd, LINES > 1 ? LINES - 1 : 0, 0);
		return;
	}
	scr_main = newwin(rows, COLS, 0, 0);
	scr_cmd = newwin(1, COLS, LINES > 1 ? LINES - 1 : 0, 0);
	leaveok(scr_main, TRUE);
	leaveok(scr_cmd, FALSE);
}

/* See tui.h. */
int tui_screen_start(struct tui_app *a, char *err, size_t errlen)
{
	static bool atexit_done;
	const char *nc = getenv("NO_COLOR");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "the interactive view needs a terminal "
		    "(for scripts use --once, --json, --dump or --cmd)");
		return -1;
	}
	scr_have_tio = tcgetattr(STDIN_FILENO, &scr_saved_tio) == 0;
	scr_screen = newterm(NULL, stdout, stdin);
	if (scr_screen == NULL) {
		snprintf(err, errlen, "cannot use terminal type '%s' (set TERM, e.g. TERM=xterm-256color)",
		    getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	set_term(scr_screen);
	scr_active = true;
	scr_utf8 = a->utf8;
	if (!atexit_done) {
		atexit(screen_atexit);
		atexit_done = true;
	}
	screen_crash_handlers();
	cbreak();
	noecho();
	nonl();
	set_escdelay(25);
	curs_set(0);
	a->colour = has_colors() && !(nc != NULL && nc[0] != '\0');
	if (a->colour && start_color() != OK)
		a->colour = false;
	tui_theme_apply(&a->theme, a->colour, a->attr);
	screen_windows();
	scr_keys = newpad(1, 1);
	scr_raw = newpad(1, 1);
	keypad(scr_keys, TRUE);
	keypad(scr_raw, FALSE);
	tui_screen_mouse(true);
	nodelay(scr_keys, TRUE);
	nodelay(scr_raw, TRUE);
	return 0;
}

/* See tui.h.  Safe to call twice. */
void tui_screen_end(void)
{
	if (!scr_active)
		return;
	scr_active = false;
	curs_set(1);
	endwin();
	delwin(scr_keys);
	delwin(scr_raw);
	delwin(scr_cmd);
	delwin(scr_main);
	scr_keys = scr_raw = scr_cmd = scr_main = NULL;
	delscreen(scr_screen);
	scr_screen = NULL;
	fflush(stdout);
}

/* See tui.h: clicks and the wheel where the terminal reports them; off
 * while readline has the keyboard (it would read the reports as text). */
void tui_screen_mouse(bool on)
{
	if (!scr_active)
		return;
	mousemask(on ? BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED |
	    BUTTON5_PRESSED : 0, NULL);
}

/* See tui.h: the windows other modules draw in or read from. */
void *tui_screen_cmdwin(void) { return scr_cmd; }
void *tui_screen_keypad(void) { return scr_keys; }
void *tui_screen_rawpad(void) { return scr_raw; }

/* See tui.h: the rows of the functions' list at the last draw. */
int tui_screen_panel_rows(const struct tui_app *a)
{
	int n = a->list[tui_view_index(&tui_view_funcs)].rows;

	return n > 1 ? n : LINES - 5 > 1 ? LINES - 5 : 1;
}

/* See tui.h. */
void tui_screen_theme(struct tui_app *a)
{
	if (!scr_active)
		return;
	tui_theme_apply(&a->theme, a->colour, a->attr);
	clearok(curscr, TRUE);
}

/* See tui.h: SIGWINCH arrived; take the new size from the terminal. */
void tui_screen_resize(struct tui_app *a)
{
	struct winsize ws;

	if (!scr_active)
		return;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	screen_windows();
	tui_cmdline_resize(LINES, COLS);
	clearok(curscr, TRUE);          /* repaint everything: no leftovers */
	tui_panel_funcs_follow(a);
	tui_screen_draw(a);
}

/* See tui.h: s fitted into width columns at (y, x); returns columns used. */
int tui_screen_put(void *win, int y, int x, int width, unsigned long attr, const char *s)
{
	char buf[2048];
	int w;

	if (width <= 0)
		return 0;
	w = tui_fmt_width(s, scr_utf8);
	if (w > width)
		w = width;
	tui_fmt_fit(s, w, scr_utf8, true, buf, sizeof buf);
	wattrset((WINDOW *)win, (attr_t)attr);
	mvwaddstr((WINDOW *)win, y, x, buf);
	return w;
}

/* See tui.h. */
void tui_screen_fill(void *win, int y, int x, int width, unsigned long attr)
{
	if (width <= 0)
		return;
	wattrset((WINDOW *)win, A_NORMAL);
	mvwhline((WINDOW *)win, y, x, ' ' | (chtype)attr, width);
}

/* Left-to-right writer for a bar made of segments; stops at the edge. */
struct screen_seg {
	WINDOW *win;
	int     y, x, end;
};

__attribute__((format(printf, 3, 4)))
static void screen_seg(struct screen_seg *s, unsigned long attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	s->x += tui_screen_put(s->win, s->y, s->x, s->end - s->x, attr, buf);
}

/* Attribute for a target state. */
static unsigned long screen_state_attr(const struct tui_app *a, int state)
{
	return state == PROTO_TARGET_LIVE ? a->attr[TUI_EL_STATUS_OK] :
	    state == PROTO_TARGET_LOST || state == PROTO_TARGET_DETACHED ?
	    a->attr[TUI_EL_STATUS_WARN] : a->attr[TUI_EL_STATUS_ERROR];
}

/* Row 0: connection, target, level, hook cost against the budget, frame
 * age, functions, calls, dropped. */
static void screen_status(struct tui_app *a, int cols)
{
	const struct proto_frame *f = a->frame ? &a->frame->frame : NULL;
	const struct proto_target *t = tui_app_target(a);
	unsigned long base = a->attr[TUI_EL_STATUS];
	struct screen_seg s = { scr_main, 0, 0, cols };
	const char *sep = a->utf8 ? " \u2502 " : " | ";
	char n1[16], n2[16], sites[96], cost[48];

	tui_screen_fill(scr_main, 0, 0, cols, base);
	screen_seg(&s, base, " hookscope ");
	if (a->paused)
		screen_seg(&s, a->attr[TUI_EL_PAUSED], " PAUSED ");
	switch (tui_conn_state(a->conn)) {
	case TUI_CONN_UP:
		screen_seg(&s, a->attr[TUI_EL_STATUS_OK], " connected ");
		break;
	case TUI_CONN_CONNECTING:
		screen_seg(&s, a->attr[TUI_EL_STATUS_WARN], " connecting ");
		break;
	case TUI_CONN_RETRY:
		screen_seg(&s, a->attr[TUI_EL_STATUS_ERROR], " reconnecting ");
		break;
	}
	screen_seg(&s, base, " %s", a->opts->url.text + 5);
	if (t != NULL) {
		screen_seg(&s, base, "%s%s %d ", sep, t->name, (int)t->pid);
		screen_seg(&s, screen_state_attr(a, t->state), " %s ", proto_target_state_name(t->state));
		screen_seg(&s, base, "%slevel %u", sep, t->level);
		if (f != NULL && f->pid == t->pid) {  /* early too: what watching costs */
			tui_fmt_cost(f, cost, sizeof cost);
			screen_seg(&s, base, "%s", sep);
			screen_seg(&s, f->budget_ppm && f->cost_ppm > f->budget_ppm ?
			    a->attr[TUI_EL_STATUS_WARN] : base, "%s", cost);
		}
		if (tui_blocks_flag(a, sites, sizeof sites))   /* early: never cut off */
			screen_seg(&s, a->attr[TUI_EL_STATUS_ERROR], " %s", sites);
	} else if (f != NULL && f->pid == 0) {
		screen_seg(&s, base, "%sno target", sep);
	}
	if (f == NULL)
		return;
	tui_fmt_age((proto_now_ns() - a->frame_rx_ns) / 1000000, n1, sizeof n1);
	screen_seg(&s, base, "%sframe %s", sep, n1);
	screen_seg(&s, base, "%sfuncs %llu", sep, (unsigned long long)f->nfuncs_seen);
	tui_fmt_count(f->calls_total, n1, sizeof n1);
	screen_seg(&s, base, "%scalls %s", sep, n1);
	if (tui_fmt_sites(f, sites, sizeof sites))
		screen_seg(&s, base, "%ssites %s", sep, sites);
	tui_fmt_count(f->dropped, n2, sizeof n2);
	screen_seg(&s, base, "%s", sep);
	screen_seg(&s, f->dropped ? a->attr[TUI_EL_STATUS_WARN] : base, "dropped %s", n2);
}

/* Row 1: why we are not connected, or the view settings and details. */
static void screen_info(struct tui_app *a, int cols)
{
	const struct proto_frame *f = a->frame ? &a->frame->frame : NULL;
	unsigned long at = a->attr[TUI_EL_INFO];
	struct screen_seg s = { scr_main, 1, 0, cols };
	const char *sep = a->utf8 ? " \u2502 " : " | ";
	size_t nt = 0, live = 0;
	const struct proto_target *ts = tui_app_targets(a, &nt);
	char n1[16];

	tui_screen_fill(scr_main, 1, 0, cols, at);
	if (tui_conn_state(a->conn) != TUI_CONN_UP) {
		screen_seg(&s, at, " %s; retrying every %u s", tui_conn_error(a->conn)[0] ?
		    tui_conn_error(a->conn) : "connecting", TUI_RETRY_MS / 1000);
		return;
	}
	if (f == NULL) {
		screen_seg(&s, at, " connected to hookscoped %s; waiting for the first frame",
		    a->hello ? a->hello->version : "");
		return;
	}
	screen_seg(&s, at, " sort %s", f->sort);
	if (f->nfuncs > 0)
		screen_seg(&s, at, "%srows %d-%d of %zu", sep, a->list[tui_view_index(&tui_view_funcs)].top + 1,
		    (int)f->nfuncs < a->list[tui_view_index(&tui_view_funcs)].top + tui_screen_panel_rows(a) ?
		    (int)f->nfuncs : a->list[tui_view_index(&tui_view_funcs)].top + tui_screen_panel_rows(a), f->nfuncs);
	if (a->want_top > 0)
		screen_seg(&s, at, "%stop %ld", sep, a->want_top);
	if (a->want_filter != NULL)
		screen_seg(&s, at, "%sfilter \"%s\"", sep, a->want_filter);
	screen_seg(&s, at, "%sthreads %u", sep, f->threads);
	tui_fmt_ns(f->overhead_ps / 1000, n1, sizeof n1);
	screen_seg(&s, at, "%soverhead %s/call", sep, n1);
	tui_fmt_age(f->agent_age_ms, n1, sizeof n1);
	screen_seg(&s, at, "%sagent %s ago", sep, n1);
	for (size_t i = 0; i < nt; i++)
		live += ts[i].state == PROTO_TARGET_LIVE;
	screen_seg(&s, at, "%stargets %zu (%zu live)", sep, nt, live);
	screen_seg(&s, at, "%srefresh %.2gs", sep, a->refresh_ms / 1000.0);
}

/* The message line: replies and errors, until they fade. */
static void screen_message(struct tui_app *a, int y, int cols)
{
	if (a->msg[0] == '\0')
		return;
	if (proto_now_ns() - a->msg_ns > (a->msg_error ? SCREEN_ERR_NS : SCREEN_MSG_NS)) {
		a->msg[0] = '\0';
		a->msg_error = false;
		return;
	}
	tui_screen_put(scr_main, y, 0, cols,
	    a->attr[a->msg_error ? TUI_EL_ERROR : TUI_EL_MESSAGE], a->msg);
}

/* A box border line at row y from x over w columns. */
static void screen_border(struct tui_app *a, int y, int x, int w, bool top)
{
	chtype at = (chtype)a->attr[TUI_EL_HELP];
	chtype h = a->utf8 ? ACS_HLINE : '-';
	chtype l = a->utf8 ? (top ? ACS_ULCORNER : ACS_LLCORNER) : '+';
	chtype r = a->utf8 ? (top ? ACS_URCORNER : ACS_LRCORNER) : '+';

	wattrset(scr_main, A_NORMAL);
	mvwaddch(scr_main, y, x, l | at);
	mvwhline(scr_main, y, x + 1, h | at, w - 2);
	mvwaddch(scr_main, y, x + w - 1, r | at);
}

/* The overlay box (help, long replies) over rows y .. y+h-1. */
static void screen_overlay(struct tui_app *a, int y, int h, int cols)
{
	struct tui_overlay *o = &a->overlay;
	unsigned long at = a->attr[TUI_EL_HELP];
	chtype v = a->utf8 ? ACS_VLINE : '|';
	int maxw = tui_fmt_width(o->title, a->utf8) + 8, bw, bh, x0, y0, inner;

	for (size_t i = 0; i < o->nitems; i++) {
		int w = tui_fmt_width(o->items[i], a->utf8);

		maxw = w > maxw ? w : maxw;
	}
	bw = maxw + 4 < cols - 2 ? maxw + 4 : cols - 2;
	bh = (int)o->nitems + 2 < h ? (int)o->nitems + 2 : h;
	if (bw < 10 || bh < 3)
		return;
	inner = bh - 2;
	if (o->top > (int)o->nitems - inner)
		o->top = (int)o->nitems - inner;
	if (o->top < 0)
		o->top = 0;
	x0 = (cols - bw) / 2;
	y0 = y + (h - bh) / 2;
	screen_border(a, y0, x0, bw, true);
	screen_border(a, y0 + bh - 1, x0, bw, false);
	tui_screen_put(scr_main, y0, x0 + 2, bw - 4, a->attr[TUI_EL_HELP_TITLE], o->title);
	tui_screen_put(scr_main, y0 + bh - 1, x0 + 2, bw - 4, at,
	    (int)o->nitems > inner ? " Up/Down/PgUp/PgDn scroll, any other key closes " :
	    " any key closes ");
	for (int i = 0; i < inner; i++) {
		size_t li = (size_t)(o->top + i);

		tui_screen_fill(scr_main, y0 + 1 + i, x0, bw, at);
		wattrset(scr_main, A_NORMAL);
		mvwaddch(scr_main, y0 + 1 + i, x0, v | (chtype)at);
		mvwaddch(scr_main, y0 + 1 + i, x0 + bw - 1, v | (chtype)at);
		if (li < o->nitems)
			tui_screen_put(scr_main, y0 + 1 + i, x0 + 2, bw - 4, at, o->items[li]);
	}
}

/* See tui.h: draw everything; the command line last (cursor). */
void tui_screen_draw(struct tui_app *a)
{
	int rows, cols;

	if (!scr_active)
		return;
	rows = getmaxy(scr_main);
	cols = getmaxx(scr_main);
	werase(scr_main);
	tui_view_regions_reset();
	if (COLS < SCREEN_MIN_COLS || LINES < SCREEN_MIN_ROWS) {
		tui_screen_put(scr_main, 0, 0, cols, a->attr[TUI_EL_ERROR], "terminal too small");
	} else {
		screen_status(a, cols);
		screen_info(a, cols);
		tui_views[a->view]->draw(a, scr_main, 2, 0, rows - 3, cols);
		screen_message(a, rows - 1, cols);
		if (a->overlay.active)
			screen_overlay(a, 2, rows - 3, cols);
	}
	wnoutrefresh(scr_main);
	tui_cmdline_draw(a);
	doupdate();
}
