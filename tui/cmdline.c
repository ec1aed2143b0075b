/*
 * cmdline.c - the `:` command line and the `/` filter prompt: GNU readline
 * in callback mode inside curses.
 *
 * Readline never touches the terminal: it gets its bytes from us
 * (rl_getc_function, fed from a keypad-less curses pad), draws through
 * rl_redisplay_function into the bottom window, and catches no signals.
 * History persists in $HOOKSCOPE_STATE_DIR/history (else
 * $XDG_STATE_HOME/hookscope/history, else ~/.local/state/hookscope/history).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "tui.h"

#include <curses.h>

#define CL_HISTORY_MAX 500
#define CL_PUSH_MAX    8

static struct tui_app *cl_app;
static int  cl_push[CL_PUSH_MAX];     /* bytes for readline, in order */
static int  cl_npush;
static bool cl_cancelling;
static FILE *cl_null;
static char cl_history[PATH_MAX];

/* Queue a byte for readline. */
static void cl_push_byte(int c)
{
	if (cl_npush < CL_PUSH_MAX)
		cl_push[cl_npush++] = c;
}

/* rl_getc_function: the queued bytes; if readline wants more inside one
 * key (a multibyte character), wait a little for the terminal. */
static int cl_getc(FILE *f)
{
	WINDOW *pad = tui_screen_rawpad();
	int c;

	(void)f;
	if (cl_npush > 0) {
		c = cl_push[0];
		memmove(cl_push, cl_push + 1, (size_t)--cl_npush * sizeof cl_push[0]);
		return c;
	}
	wtimeout(pad, 100);
	c = wgetch(pad);
	nodelay(pad, TRUE);
	return c == ERR ? 0 : c;     /* never EOF: that would accept the line */
}

/* rl_input_available_hook. */
static int cl_available(void)
{
	return cl_npush > 0;
}

/* rl_redisplay_function. */
static void cl_redisplay(void)
{
	if (cl_app == NULL || cl_app->mode == TUI_MODE_NORMAL)
		return;
	tui_cmdline_draw(cl_app);
	doupdate();
}

/* Display width of the first n bytes of s. */
static int cl_width(const char *s, size_t n)
{
	char buf[4096];

	if (n >= sizeof buf)
		n = sizeof buf - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return tui_fmt_width(buf, cl_app->utf8);
}

/* Length of the UTF-8 unit at s (1 for anything odd). */
static size_t cl_unit(const char *s)
{
	unsigned char c = (unsigned char)s[0];
	size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;

	for (size_t i = 1; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			return 1;
	return n;
}

/* See tui.h: the bottom line: the prompt and the line being edited with
 * the cursor at rl_point (scrolled sideways if needed), or the key hints. */
void tui_cmdline_draw(struct tui_app *a)
{
	WINDOW *w = tui_screen_cmdwin();
	int cols = getmaxx(w), pw, cur;
	const char *prompt, *line;
	size_t start = 0, point;

	if (w == NULL)
		return;
	werase(w);
	if (a->mode == TUI_MODE_NORMAL) {
		tui_view_tabs_draw(a, w, getbegy(w), cols);
		wnoutrefresh(w);
		return;
	}
	prompt = rl_display_prompt ? rl_display_prompt : "";
	line = rl_line_buffer ? rl_line_buffer : "";
	point = rl_point > 0 ? (size_t)rl_point : 0;
	if (point > strlen(line))
		point = strlen(line);
	pw = tui_fmt_width(prompt, a->utf8);
	if (pw > cols / 2)
		pw = cols / 2;
	/* Scroll: drop leading characters until the cursor fits. */
	while (start < point && pw + cl_width(line + start, point - start) >= cols - 1)
		start += cl_unit(line + start);
	tui_screen_fill(w, 0, 0, cols, a->attr[TUI_EL_CMDLINE]);
	tui_screen_put(w, 0, 0, pw, a->attr[TUI_EL_PROMPT], prompt);
	tui_screen_put(w, 0, pw, cols - pw, a->attr[TUI_EL_CMDLINE], line + start);
	cur = pw + cl_width(line + start, point - start);
	wmove(w, 0, cur < cols ? cur : cols - 1);
	wnoutrefresh(w);
}

/* Readline's line handler: run the command or set the filter. */
static void cl_line(char *line)
{
	struct tui_app *a = cl_app;
	enum tui_mode mode = a->mode;

	rl_callback_handler_remove();
	a->mode = TUI_MODE_NORMAL;
	curs_set(0);
	tui_screen_mouse(true);
	cl_npush = 0;
	if (line == NULL || cl_cancelling) {
		free(line);
		return;
	}
	if (line[strspn(line, " \t")] != '\0') {
		add_history(line);
		if (cl_history[0] && append_history(1, cl_history) != 0)
			write_history(cl_history);
	}
	if (mode == TUI_MODE_FILTER)
		tui_app_set_filter(a, line);
	else
		tui_commands_run(a, line);
	free(line);
}

/* Generator over a NULL-terminated word list. */
static char *cl_gen_list(const char *const *words, const char *text, int state)
{
	static size_t i, len;

	if (state == 0) {
		i = 0;
		len = strlen(text);
	}
	while (words[i] != NULL)
		if (strncmp(words[i++], text, len) == 0)
			return strdup(words[i - 1]);
	return NULL;
}

/* Completion word lists, filled before rl_completion_matches. */
#define CL_WORDS 256
static const char *cl_words[CL_WORDS];
static char cl_word_buf[CL_WORDS][64];

/* Generator over cl_words (readline calls it with state 0 first). */
static char *cl_gen(const char *text, int state)
{
	return cl_gen_list(cl_words, text, state);
}

/* Function names of the frame shown, for :filter and the / prompt. */
static size_t cl_funcs(struct tui_app *a, size_t n)
{
	size_t nf = a->frame ? a->frame->frame.nfuncs : 0;

	for (size_t i = 0; i < nf && n < CL_WORDS - 1; i++)
		cl_words[n++] = a->frame->frame.funcs[i].name;
	return n;
}

/* Fill cl_words with the candidates for argument of cmd. */
static void cl_candidates(struct tui_app *a, const char *cmd)
{
	size_t n = 0, nt = 0;
	const struct proto_target *t;

	if (cmd == NULL) {
		for (int i = 0; tui_commands[i].name != NULL && n < CL_WORDS - 1; i++)
			cl_words[n++] = tui_commands[i].name;
	} else if (strcmp(cmd, "sort") == 0) {
		for (int i = 0; tui_sort_keys[i] != NULL && n < CL_WORDS - 1; i++)
			cl_words[n++] = tui_sort_keys[i];
	} else if (strcmp(cmd, "target") == 0 || strcmp(cmd, "forget") == 0 ||
	    strcmp(cmd, "detach") == 0) {
		t = tui_app_targets(a, &nt);
		for (size_t i = 0; i < nt && n < CL_WORDS - 2; i++) {
			snprintf(cl_word_buf[n], sizeof cl_word_buf[n], "%d", (int)t[i].pid);
			cl_words[n] = cl_word_buf[n];
			n++;
		}
		if (strcmp(cmd, "target") == 0)
			cl_words[n++] = "auto";
	} else if (strcmp(cmd, "level") == 0) {
		static const char *const levels[] = { "0", "1", "2", "3", "4" };

		for (size_t i = 0; i < 5; i++)
			cl_words[n++] = levels[i];
	} else if (strcmp(cmd, "threshold") == 0) {
		static const char *const names[] = { "slow", "frame", "frame_high", "frame_frozen",
		    "block", "block_sample" };

		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			cl_words[n++] = names[i];
	} else if (strcmp(cmd, "theme") == 0) {
		int nt2 = tui_theme_names(cl_word_buf, CL_WORDS - 1);

		for (int i = 0; i < nt2; i++)
			cl_words[n++] = cl_word_buf[i];
	} else if (strcmp(cmd, "view") == 0) {
		for (int v = 0; v < tui_nviews; v++)
			cl_words[n++] = tui_views[v]->name;
	} else if (strcmp(cmd, "budget") == 0) {
		static const char *const pcts[] = { "off", "1", "2", "5", "10", "20" };

		for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++)
			cl_words[n++] = pcts[i];
	} else if (strcmp(cmd, "pause") == 0) {
		cl_words[n++] = "on";
		cl_words[n++] = "off";
	} else if (strcmp(cmd, "filter") == 0) {
		n = cl_funcs(a, n);
	}
	cl_words[n] = NULL;
}

/* rl_attempted_completion_function: command names first, then arguments
 * (sort keys, target pids, levels, thresholds, theme and view names,
 * function names); file names for dump. */
static char **cl_complete(const char *text, int start, int end)
{
	struct tui_app *a = cl_app;
	char cmd[32];
	size_t i = strspn(rl_line_buffer, " \t"), n;

	(void)end;
	rl_attempted_completion_over = 1;
	if (a->mode == TUI_MODE_FILTER) {
		cl_words[cl_funcs(a, 0)] = NULL;
		return rl_completion_matches(text, cl_gen);
	}
	n = strcspn(rl_line_buffer + i, " \t");
	if ((size_t)start <= i) {
		cl_candidates(a, NULL);
		return rl_completion_matches(text, cl_gen);
	}
	snprintf(cmd, sizeof cmd, "%.*s", (int)(n < sizeof cmd ? n : sizeof cmd - 1),
	    rl_line_buffer + i);
	if (tui_command_find(cmd) != NULL)
		snprintf(cmd, sizeof cmd, "%s", tui_command_find(cmd)->name);
	if (strcmp(cmd, "dump") == 0) {
		rl_attempted_completion_over = 0;      /* readline's file names */
		return NULL;
	}
	cl_candidates(a, cmd);
	return cl_words[0] ? rl_completion_matches(text, cl_gen) : NULL;
}

/* Several completions: list them on the message line. */
static void cl_show_matches(char **matches, int num, int max)
{
	char buf[TUI_MSG_LEN] = "";

	(void)max;
	for (int i = 1; i <= num && strlen(buf) + strlen(matches[i]) + 2 < sizeof buf; i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i > 1 ? "  " : "",
		    matches[i]);
	tui_app_message(cl_app, false, "%s", buf);
	tui_screen_draw(cl_app);
}

/* Where the history lives; "" if nowhere. */
static void cl_history_path(void)
{
	const char *dir = getenv("HOOKSCOPE_STATE_DIR"), *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char d[PATH_MAX];

	cl_history[0] = '\0';
	if (dir != NULL && dir[0])
		snprintf(d, sizeof d, "%s", dir);
	else if (xdg != NULL && xdg[0] == '/')
		snprintf(d, sizeof d, "%.*s/hookscope", PATH_MAX - 16, xdg);
	else if (home != NULL && home[0] == '/')
		snprintf(d, sizeof d, "%.*s/.local/state/hookscope", PATH_MAX - 32, home);
	else
		return;
	/* mkdir -p, quietly: history is a comfort, not a requirement. */
	for (char *p = d + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(d, 0700);
			*p = '/';
		}
	}
	if (mkdir(d, 0700) < 0 && errno != EEXIST)
		return;
	snprintf(cl_history, sizeof cl_history, "%.*s/history", PATH_MAX - 16, d);
}

/* See tui.h. */
int tui_cmdline_init(struct tui_app *a)
{
	cl_app = a;
	cl_null = fopen("/dev/null", "w");
	rl_readline_name = "hookscope";
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_prep_term_function = NULL;
	rl_deprep_term_function = NULL;
	rl_instream = stdin;
	rl_outstream = cl_null ? cl_null : stderr;
	rl_getc_function = cl_getc;
	rl_input_available_hook = cl_available;
	rl_redisplay_function = cl_redisplay;
	rl_attempted_completion_function = cl_complete;
	rl_completion_display_matches_hook = cl_show_matches;
	rl_initialize();
	rl_variable_bind("bell-style", "none");
	rl_variable_bind("enable-bracketed-paste", "off");
	rl_set_screen_size(LINES, COLS);
	using_history();
	stifle_history(CL_HISTORY_MAX);
	cl_history_path();
	if (cl_history[0])
		read_history(cl_history);
	return 0;
}

/* See tui.h. */
void tui_cmdline_done(void)
{
	if (cl_app == NULL)
		return;
	if (cl_app->mode != TUI_MODE_NORMAL)
		rl_callback_handler_remove();
	if (cl_history[0])
		history_truncate_file(cl_history, CL_HISTORY_MAX);
	clear_history();
	if (cl_null != NULL)
		fclose(cl_null);
	cl_null = NULL;
	rl_outstream = NULL;
	cl_app = NULL;
}

/* See tui.h. */
void tui_cmdline_resize(int rows, int cols)
{
	rl_set_screen_size(rows, cols);
}

/* See tui.h. */
void tui_cmdline_open(struct tui_app *a, enum tui_mode mode, const char *initial)
{
	a->mode = mode;
	cl_npush = 0;
	curs_set(1);
	tui_screen_mouse(false);
	rl_callback_handler_install(mode == TUI_MODE_FILTER ? "/" : ":", cl_line);
	if (initial != NULL && initial[0]) {
		rl_insert_text(initial);
		rl_point = rl_end;
	}
}

/* See tui.h.  Accept an emptied line so readline cleans up its own state
 * (search, undo, history position) the normal way, and ignore it. */
void tui_cmdline_cancel(struct tui_app *a)
{
	if (a->mode == TUI_MODE_NORMAL)
		return;
	rl_callback_sigcleanup();
	rl_replace_line("", 1);
	rl_point = rl_end = 0;
	cl_cancelling = true;
	cl_npush = 0;
	cl_push_byte('\n');
	rl_callback_read_char();
	cl_cancelling = false;
	if (a->mode != TUI_MODE_NORMAL) {
		rl_callback_handler_remove();
		a->mode = TUI_MODE_NORMAL;
		curs_set(0);
		tui_screen_mouse(true);
	}
	cl_npush = 0;
}

/* See tui.h.  A lone Esc (nothing follows within 30 ms) or Backspace on
 * an empty line leaves; everything else goes to readline. */
bool tui_cmdline_feed(struct tui_app *a)
{
	WINDOW *pad = tui_screen_rawpad();
	int c = wgetch(pad), c2;

	if (c == ERR)
		return false;
	if (c == 27) {
		wtimeout(pad, 30);
		c2 = wgetch(pad);
		nodelay(pad, TRUE);
		if (c2 == ERR) {
			tui_cmdline_cancel(a);
			return true;
		}
		cl_push_byte(c);
		cl_push_byte(c2);
	} else if ((c == 127 || c == 8) && rl_end == 0) {
		tui_cmdline_cancel(a);
		return true;
	} else {
		cl_push_byte(c);
	}
	while (cl_npush > 0 && a->mode != TUI_MODE_NORMAL)
		rl_callback_read_char();
	cl_npush = 0;
	return true;
}
