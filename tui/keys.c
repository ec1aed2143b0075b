/*
 * keys.c - the keys of the main view, one table (the help overlay is made
 * from it, so it lists every key).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

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
/* Move the selection of the panel shown. */
static void key_move(struct tui_app *a, int delta)
{
	if (a->show_ipc)
		tui_panel_ipc_move(a, delta);
	else if (a->show_power)
		tui_panel_power_move(a, delta);
	else if (a->show_threads)
		tui_panel_threads_move(a, delta);
	else
		tui_panel_funcs_move(a, delta);
}

static void key_up(struct tui_app *a, int key)        { (void)key; key_move(a, -1); }
static void key_down(struct tui_app *a, int key)      { (void)key; key_move(a, 1); }
static void key_pgup(struct tui_app *a, int key)      { (void)key; key_move(a, -tui_screen_panel_rows()); }
static void key_pgdn(struct tui_app *a, int key)      { (void)key; key_move(a, tui_screen_panel_rows()); }
static void key_home(struct tui_app *a, int key)      { (void)key; tui_panel_funcs_home(a, false); }
static void key_end(struct tui_app *a, int key)       { (void)key; tui_panel_funcs_home(a, true); }
static void key_redraw(struct tui_app *a, int key)    { (void)a; (void)key; clearok(curscr, TRUE); }
static void key_clear(struct tui_app *a, int key)     { (void)key; a->msg[0] = '\0'; }

/* H: the threads panel in place of the functions, and back. */
static void key_threads(struct tui_app *a, int key)
{
	(void)key;
	a->show_threads = !a->show_threads;
	a->show_ipc = false;
}

/* I: the IPC panel in place of the functions, and back. */
static void key_ipc(struct tui_app *a, int key)
{
	(void)key;
	a->show_ipc = !a->show_ipc;
	a->show_threads = false;
}

/* W: the power panel in place of the functions, and back. */
static void key_power(struct tui_app *a, int key)
{
	(void)key;
	a->show_power = !a->show_power;
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

/* ?: the help overlay, made from the key and command tables. */
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

/* s / S: next or previous sort key. */
static void key_sort_cycle(struct tui_app *a, int key)
{
	int n = 0, i = tui_sort_key_index(key_sort_now(a));

	while (tui_sort_keys[n] != NULL)
		n++;
	i = i < 0 ? 0 : (i + (key == 'S' ? n - 1 : 1)) % n;
	tui_app_set_sort(a, tui_sort_keys[i]);
}

/* 1-8: sort by the n-th column. */
static void key_sort_column(struct tui_app *a, int key)
{
	const char *k = tui_columns[key - '1'].sort_key;

	if (k != NULL)
		tui_app_set_sort(a, k);
}

/* + / -: monitoring level of the shown target. */
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
	want = t->level + (key == '-' ? -1 : 1);
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

/* Enter: everything about the selected function on the message line; the
 * time so far of calls in flight is apart from the returned calls' total. */
static void key_details(struct tui_app *a, int key)
{
	const struct proto_func *f = tui_panel_funcs_selected(a);
	char calls[16], rate[16], total[16], self[16], avg[16], max[16], share[16];
	char run[16], running[48] = "";

	(void)key;
	if (a->show_ipc) {
		tui_panel_ipc_details(a);
		return;
	}
	if (a->show_power) {
		tui_panel_power_details(a);
		return;
	}
	if (a->show_threads) {
		tui_panel_threads_details(a);
		return;
	}
	if (f == NULL)
		return;
	tui_fmt_count(f->calls, calls, sizeof calls);
	tui_fmt_rate(f->calls_per_s, rate, sizeof rate);
	tui_fmt_ns(f->total_ns, total, sizeof total);
	tui_fmt_ns(f->self_ns, self, sizeof self);
	tui_fmt_ns(f->avg_ns, avg, sizeof avg);
	tui_fmt_ns(f->max_ns, max, sizeof max);
	tui_fmt_share(f->share, share, sizeof share);
	if (f->running_ns > 0) {
		tui_fmt_ns(f->running_ns, run, sizeof run);
		snprintf(running, sizeof running, " + %s running (not returned yet)", run);
	}
	tui_app_message(a, false, "%s [%s 0x%llx]: %llu calls (%s), %s/s, total %s%s, self %s (%s), "
	    "avg %s, max %s, %llu slow", f->name, f->module, (unsigned long long)f->addr,
	    (unsigned long long)f->calls, calls, rate, total, running, self, share, avg, max,
	    (unsigned long long)f->slow);
}

static const struct key_binding key_table[] = {
	{ { 'q', KEY_F(10) },            "q, F10",      "quit", key_quit },
	{ { '?', 'h', KEY_F(1) },        "?, h, F1",    "this help", key_help },
	{ { ':' },                       ":",           "command line (commands below)", key_command },
	{ { '/' },                       "/",           "filter by function name (Enter on an empty "
	                                                "line clears)", key_filter },
	{ { 's' },                       "s",           "next sort key", key_sort_cycle },
	{ { 'S' },                       "S",           "previous sort key", key_sort_cycle },
	{ { '1', '2', '3', '4', '5', '6', '7', '8' }, "1-8",
	  "sort by column: name, calls, calls/s, total, self, avg, max, slow", key_sort_column },
	{ { KEY_UP, 'k' },               "Up, k",       "select the previous row", key_up },
	{ { KEY_DOWN, 'j' },             "Down, j",     "select the next row", key_down },
	{ { KEY_PPAGE, KEY_CTRL('b') },  "PgUp, ^B",    "page up", key_pgup },
	{ { KEY_NPAGE, KEY_CTRL('f'), ' ' }, "PgDn, ^F, Space", "page down", key_pgdn },
	{ { KEY_HOME, 'g' },             "Home, g",     "first row (the selection stays on top)", key_home },
	{ { KEY_END, 'G' },              "End, G",      "last row", key_end },
	{ { '\r', '\n', KEY_ENTER },     "Enter",       "details of the selected function (threads: its creation stack)", key_details },
	{ { 'H' },                       "H",           "threads panel (tree of pools and creators) or functions", key_threads },
	{ { 'I' },                       "I",           "IPC panel (endpoints; Enter: slow calls with stacks) or functions", key_ipc },
	{ { 'W' },                       "W",           "power panel (wakelocks, sensors held; mAh) or functions", key_power },
	{ { '+', '=' },                  "+, -",        "monitoring level of the target up or down", key_level },
	{ { '-' },                       NULL,          NULL, key_level },
	{ { 'b' },                       "b",           "UI-thread blocks with their stacks", key_blocks },
	{ { 't' },                       "t, T",        "show the next or previous target", key_target },
	{ { 'T' },                       NULL,          NULL, key_target },
	{ { 'm' },                       "m",           "show or hide the module column", key_module },
	{ { KEY_CTRL('l') },             "^L",          "redraw the screen", key_redraw },
	{ { 27 },                        "Esc",         "clear the message line", key_clear },
};

/* Keys while the overlay is up: scroll it, anything else closes it. */
static void key_overlay(struct tui_app *a, int key)
{
	int page = tui_screen_panel_rows() - 2;

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
	for (size_t i = 0; i < sizeof key_table / sizeof key_table[0]; i++)
		for (size_t k = 0; k < 8 && key_table[i].keys[k] != 0; k++)
			if (key_table[i].keys[k] == key) {
				key_table[i].fn(a, key);
				return;
			}
}

/* See tui.h. */
char *tui_keys_help(void)
{
	size_t cap = 4096, len = 0;
	char *s = xmalloc(cap);

	s[0] = '\0';
	for (size_t i = 0; i < sizeof key_table / sizeof key_table[0]; i++) {
		if (key_table[i].label == NULL)
			continue;
		len += (size_t)snprintf(s + len, cap - len, "  %-22s %s\n", key_table[i].label,
		    key_table[i].help);
		if (len >= cap - 256) {
			cap *= 2;
			s = xrealloc(s, cap);
		}
	}
	return s;
}
