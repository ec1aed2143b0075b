/*
 * keys.c - the keys of the main view, one table (the help overlay is made
 * from it, so it lists every key).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "panel-blocks.h"

#include <curses.h>

#define KEY_CTRL(c) ((c) & 0x1f)

struct key_binding {
	int         keys[8];              /* 0-terminated unless full */
	const char *label;
	const char *help;
	void      (*fn)(struct tui_app *a, int key);
};

/* One-line key actions. */
static void key_quit(struct tui_app *a, int key)      { (void)key; a->quit = true; }
static void key_command(struct tui_app *a, int key)   { (void)key; tui_cmdline_open(a, TUI_MODE_COMMAND, NULL); }
static void key_filter(struct tui_app *a, int key)    { (void)key; tui_cmdline_open(a, TUI_MODE_FILTER, a->want_filter); }
/* Move the selection of the view shown (its list, views.c). */
static void key_move(struct tui_app *a, int delta)
{
	tui_view_move(a, delta);
}

static void key_up(struct tui_app *a, int key)        { (void)key; key_move(a, -1); }
static void key_down(struct tui_app *a, int key)      { (void)key; key_move(a, 1); }
static void key_pgup(struct tui_app *a, int key)      { (void)key; key_move(a, -tui_view_page(a)); }
static void key_pgdn(struct tui_app *a, int key)      { (void)key; key_move(a, tui_view_page(a)); }
static void key_home(struct tui_app *a, int key)      { (void)key; key_move(a, -1000000); }
static void key_end(struct tui_app *a, int key)       { (void)key; key_move(a, 1000000); }
static void key_redraw(struct tui_app *a, int key)    { (void)a; (void)key; clearok(curscr, TRUE); }
static void key_pause(struct tui_app *a, int key)     { (void)key; tui_app_pause(a, !a->paused); }
static void key_refresh(struct tui_app *a, int key)   { tui_app_refresh_step(a, key == '-' ? 1 : -1); }

/* A view's key or F-key (tui_views): that view; false if key is neither. */
static bool key_view(struct tui_app *a, int key)
{
	for (int v = 0; v < tui_nviews; v++)
		if (tui_views[v]->key == key || (tui_views[v]->fkey != 0 && tui_views[v]->fkey == key)) {
			tui_view_set(a, v);
			return true;
		}
	return false;
}

/* Tab / Shift-Tab: the next or previous view. */
static void key_tab(struct tui_app *a, int key)
{
	tui_view_set(a, (a->view + (key == KEY_BTAB ? tui_nviews - 1 : 1)) % tui_nviews);
}

/* Esc: back to the overview from a view; on the overview, clear the message. */
static void key_back(struct tui_app *a, int key)
{
	(void)key;
	if (a->view != 0)                 /* the overview */
		tui_view_set(a, 0);
	else
		a->msg[0] = '\0';
}

/* H: the threads view, and back to the functions. */
static void key_threads(struct tui_app *a, int key)
{
	int threads = tui_view_find("threads");

	(void)key;
	tui_view_set(a, a->view == threads ? tui_view_find("functions") : threads);
}

/* m: the module column comes and goes. */
static void key_module(struct tui_app *a, int key)
{
	(void)key;
	a->show_module = !a->show_module;
}

/* b: the UI-thread blocks with their stacks. */
static void key_blocks(struct tui_app *a, int key)
{
	(void)key;
	tui_blocks_show(a);
}

/* ?: the help overlay, made from the key, view and command tables. */
static void key_help(struct tui_app *a, int key)
{
	char *text = tui_help_text();

	(void)key;
	tui_app_overlay(a, " hookscope help ", text);
	free(text);
}

/* Current sort key (what the user asked for, else what the frame says). */
static const char *key_sort_now(const struct tui_app *a)
{
	if (a->want_sort != NULL)
		return a->want_sort;
	return a->frame ? a->frame->frame.sort : "total";
}

/* s, F6 / S: next or previous sort key. */
static void key_sort_cycle(struct tui_app *a, int key)
{
	int n = 0, i = tui_sort_key_index(key_sort_now(a));

	while (tui_sort_keys[n] != NULL)
		n++;
	i = i < 0 ? 0 : (i + (key == 'S' ? n - 1 : 1)) % n;
	tui_app_set_sort(a, tui_sort_keys[i]);
	tui_app_message(a, false, "sort by %s", tui_sort_keys[i]);
}

/* > / <, F8 / F7: monitoring level of the shown target. */
static void key_level(struct tui_app *a, int key)
{
	const struct proto_target *t = tui_app_target(a);
	char lv[4];
	const char *argv[] = { "level", lv };
	int want;

	if (t == NULL) {
		tui_app_message(a, true, "no target to change the level of");
		return;
	}
	want = t->level + (key == '<' || key == KEY_F(7) ? -1 : 1);
	if (want < 0 || want > 4) {
		tui_app_message(a, true, "level %u is already the %s", t->level,
		    want < 0 ? "lowest" : "highest");
		return;
	}
	snprintf(lv, sizeof lv, "%d", want);
	tui_app_send(a, 2, argv);
}

/* t / T: show the next or previous target. */
static void key_target(struct tui_app *a, int key)
{
	size_t n = 0, i;
	const struct proto_target *ts = tui_app_targets(a, &n);
	int32_t cur = a->frame ? a->frame->frame.pid : 0;
	char pid[16];
	const char *argv[] = { "target", pid };

	if (n == 0) {
		tui_app_message(a, true, "the daemon knows no target yet");
		return;
	}
	for (i = 0; i < n && ts[i].pid != cur; i++)
		;
	i = i == n ? 0 : (i + (key == 'T' ? n - 1 : 1)) % n;
	a->want_target = ts[i].pid;
	snprintf(pid, sizeof pid, "%d", (int)ts[i].pid);
	tui_app_send(a, 2, argv);
}

/* Enter: the detail view of the view shown. */
static void key_details(struct tui_app *a, int key)
{
	(void)key;
	tui_view_enter(a);
}

/* c outside the functions view (which takes it first, panel-paths.c):
 * that view, with its call tree. */
static void key_paths(struct tui_app *a, int key)
{
	tui_view_set(a, tui_view_find("functions"));
	tui_paths_key(a, key);
}

/* A mouse event: a click on a title, a tab or a row (views.c). */
static void key_mouse(struct tui_app *a, int key)
{
	MEVENT ev;

	(void)key;
	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED))
		tui_view_click(a, ev.y, ev.x, (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0);
	else if (ev.bstate & BUTTON4_PRESSED)
		key_move(a, -3);
	else if (ev.bstate & BUTTON5_PRESSED)
		key_move(a, 3);
}

/* The views' keys come from tui_views (key_view); help lists them apart.
 * A row without keys is help only. */
static const struct key_binding key_table[] = {
	{ { 'q', KEY_F(10) },            "q, F10",      "quit", key_quit },
	{ { '?', 'h', KEY_F(1) },        "?, h, F1",    "this help", key_help },
	{ { ':' },                       ":",           "command line (commands below; Tab completes)", key_command },
	{ { '/', KEY_F(3) },             "/, F3",       "filter by function name (Enter on an empty "
	                                                "line clears)", key_filter },
	{ { 's', KEY_F(6) },             "s, F6",       "next sort key", key_sort_cycle },
	{ { 'S' },                       "S",           "previous sort key", key_sort_cycle },
	{ { 'p' },                       "p",           "pause: the display stays while data keeps "
	                                                "arriving (PAUSED); p again shows the newest", key_pause },
	{ { '+', '=' },                  "+, -",        "refresh faster or slower (0.1 s to 5 s)", key_refresh },
	{ { '-' },                       NULL,          NULL, key_refresh },
	{ { '\t' },                      "Tab, S-Tab",  "next or previous view", key_tab },
	{ { KEY_BTAB },                  NULL,          NULL, key_tab },
	{ { 0 },                         "",            "views (below)", NULL },   /* keys: tui_views */
	{ { 27 },                        "Esc",         "back to the overview (on it: clear the message)", key_back },
	{ { '\r', '\n', KEY_ENTER },     "Enter",       "details of the selection (function, blocks' "
	                                                "stacks, thread's creation stack, target)", key_details },
	{ { KEY_UP, 'k' },               "Up, k",       "select the previous row", key_up },
	{ { KEY_DOWN, 'j' },             "Down, j",     "select the next row", key_down },
	{ { KEY_PPAGE, KEY_CTRL('b') },  "PgUp, ^B",    "page up", key_pgup },
	{ { KEY_NPAGE, KEY_CTRL('f'), ' ' }, "PgDn, ^F, Space", "page down", key_pgdn },
	{ { KEY_HOME, 'g' },             "Home, g",     "first row", key_home },
	{ { KEY_END, 'G' },              "End, G",      "last row", key_end },
	{ { '>', KEY_F(8) },             "<, >, F7, F8", "monitoring level of the target down or up", key_level },
	{ { '<', KEY_F(7) },             NULL,          NULL, key_level },
	{ { 't' },                       "t, T",        "show the next or previous target", key_target },
	{ { 'T' },                       NULL,          NULL, key_target },
	{ { 'H' },                       "H",           "threads view, or back to the functions", key_threads },
	{ { 'b' },                       "b",           "UI-thread blocks with their stacks", key_blocks },
	{ { 'm' },                       "m",           "show or hide the module column", key_module },
	{ { 'c' },                       "c",           "the call tree in the functions view (Enter, Right, "
	                                                "Left expand and collapse; c or Esc: back); Enter on a "
	                                                "function: its callers and callees below the list "
	                                                "(Esc closes)", key_paths },
	{ { KEY_CTRL('l') },             "^L",          "redraw the screen", key_redraw },
	{ { KEY_MOUSE },                 "mouse",       "click a panel title or tab: its view; a row: "
	                                                "select it (double: details); wheel scrolls", key_mouse },
};

/* Keys while the overlay is up: scroll it, anything else closes it. */
static void key_overlay(struct tui_app *a, int key)
{
	int page = tui_screen_panel_rows(a) - 2;

	switch (key) {
	case KEY_UP: case 'k':     a->overlay.top--; break;
	case KEY_DOWN: case 'j':   a->overlay.top++; break;
	case KEY_PPAGE:            a->overlay.top -= page; break;
	case KEY_NPAGE: case ' ':  a->overlay.top += page; break;
	case KEY_HOME: case 'g':   a->overlay.top = 0; break;
	case KEY_END: case 'G':    a->overlay.top = (int)a->overlay.nitems; break;
	default:                   tui_app_overlay_close(a); break;
	}
	if (a->overlay.top < 0)
		a->overlay.top = 0;
}

/* See tui.h. */
void tui_keys_handle(struct tui_app *a, int key)
{
	if (a->overlay.active) {
		key_overlay(a, key);
		return;
	}
	if (tui_paths_key(a, key))
		return;
	if (key_view(a, key))
		return;
	for (size_t i = 0; i < sizeof key_table / sizeof key_table[0]; i++)
		for (size_t k = 0; k < 8 && key_table[i].keys[k] != 0; k++)
			if (key_table[i].keys[k] == key) {
				key_table[i].fn(a, key);
				return;
			}
}

/* See tui.h: the key table, then the views with their keys. */
char *tui_keys_help(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (m == NULL)
		return xstrdup("out of memory");
	for (size_t i = 0; i < sizeof key_table / sizeof key_table[0]; i++) {
		char range[32];
		const char *label = key_table[i].label;

		if (label == NULL)
			continue;
		if (key_table[i].fn == NULL) {     /* the views' row: the digit range, then letters */
			int last = 0;
			size_t n;

			while (last + 1 < tui_nviews && tui_views[last + 1]->key <= '9')
				last++;
			n = (size_t)snprintf(range, sizeof range, "%c-%c", tui_views[0]->key,
			    tui_views[last]->key);
			for (int v = last + 1; v < tui_nviews && n + 3 < sizeof range; v++)
				n += (size_t)snprintf(range + n, sizeof range - n, ", %c", tui_views[v]->key);
			label = range;
		}
		fprintf(m, "  %-22s %s\n", label, key_table[i].help);
	}
	fprintf(m, "\nViews (key, Tab, a click on a panel title or a tab, or :view NAME)\n");
	for (int v = 0; v < tui_nviews; v++) {
		char k[16];

		if (tui_views[v]->fkey != 0)
			snprintf(k, sizeof k, "%c, F%d", tui_views[v]->key, tui_views[v]->fkey - KEY_F0);
		else
			snprintf(k, sizeof k, "%c", tui_views[v]->key);
		fprintf(m, "  %-22s %-10s %s\n", k, tui_views[v]->name, tui_views[v]->help);
	}
	fclose(m);
	return out;
}
