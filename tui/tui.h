/*
 * tui.h - internals of the hookscope terminal client (one header for tui/).
 *
 * Modules: options (command line), loop (lws owns the event loop: timers and
 * watched fds), conn (websocket client, reconnect, commands with ids),
 * format/columns (units and the hot-function columns), json (frame -> JSON),
 * theme/palette (theme files, colours), screen (curses windows and drawing),
 * list (the list widget), views (the table of views), overview (the start
 * screen), panel-* (one panel per collector, and the targets), cmdline
 * (readline), commands (the `:` table), keys (key table), app/refresh (the
 * interactive program), once/dump (the non-interactive modes, reports).
 */
#ifndef HOOKSCOPE_TUI_H
#define HOOKSCOPE_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol.h"

#define TUI_DEFAULT_HOST  "127.0.0.1"
#define TUI_DEFAULT_PORT  7070
#define TUI_WS_PROTOCOL   "hookscope"
#define TUI_RETRY_MS      1000        /* reconnect period of the TUI */
#define TUI_MSG_LEN       512         /* message line buffer */

/* ---- options.c ---- */

/* Where the daemon is: ws://HOST:PORT[/PATH] or HOST:PORT. */
struct tui_url {
	char host[256];
	int  port;
	char path[256];
	char text[600];                   /* as shown to the user */
	char token[PROTO_TOKEN_MAX + 1];  /* access token sent as Bearer, "" = none */
};

int tui_url_parse(const char *s, struct tui_url *u, char *err, size_t errlen);

struct tui_opts {
	struct tui_url url;
	bool        once;                 /* print one frame and exit */
	bool        json;                 /* ... as JSON */
	bool        ascii;                /* no UTF-8 line art */
	bool        verbose;              /* lws logs on stderr (non-interactive) */
	double      timeout_s;            /* non-interactive deadline */
	int32_t     target;               /* --target, 0 = unset */
	int32_t     wait_pid;             /* --wait-pid, 0 = unset */
	const char *sort;                 /* --sort KEY or NULL */
	long        top;                  /* --top N, 0 = unset */
	const char *filter;               /* --filter TEXT or NULL */
	const char *dump_file;            /* --dump FILE or NULL */
	const char *dump_format;          /* --format FMT or NULL (from FILE) */
	bool        dump_all;             /* --all: every session */
	const char **cmds;                /* --cmd, in order */
	int         ncmds;
	const char *theme;                /* --theme NAME|PATH or NULL */
	const char *check_theme;          /* --check-theme NAME|PATH or NULL */
};

enum tui_opts_result { TUI_OPTS_RUN, TUI_OPTS_EXIT_OK, TUI_OPTS_EXIT_USAGE };

/* Parse argv; prints help/version/usage errors itself. */
enum tui_opts_result tui_options_parse(int argc, char **argv, struct tui_opts *o);
void tui_options_free(struct tui_opts *o);
/* True when the options ask for a non-interactive mode. */
bool tui_options_batch(const struct tui_opts *o);

/* ---- dump.c: report formats ---- */

/* The format a report file name implies ("text", "json", "trace", "folded"). */
const char *tui_dump_format(const char *path);
const char *tui_dump_ext(const char *format);       /* ".txt", ... */
bool tui_dump_format_ok(const char *format);
/* Save a report atomically (temp file + rename); 0, or -1 with err filled
 * ("cannot write PATH: why") and nothing left behind. */
int  tui_dump_save(const char *path, const char *data, size_t len, char *err, size_t errlen);

/* ---- loop.c: lws owns the loop ---- */

struct tui_loop;
struct tui_timer;
struct lws_context;
struct lws_protocols;

/* fd readable (hangup false) or gone (hangup true). */
typedef void (*tui_fd_fn)(void *arg, bool hangup);

struct tui_loop *tui_loop_new(bool log_to_stderr, char *err, size_t errlen);
void tui_loop_free(struct tui_loop *l);
struct lws_context *tui_loop_context(struct tui_loop *l);
/* Watch a dup of fd (lws closes adopted fds itself). */
int  tui_loop_watch(struct tui_loop *l, int fd, tui_fd_fn fn, void *arg,
    char *err, size_t errlen);
void tui_loop_run(struct tui_loop *l);
void tui_loop_stop(struct tui_loop *l);
/* The last warning or error lws logged ("" if none). */
const char *tui_loop_last_log(void);

struct tui_timer *tui_timer_new(struct tui_loop *l, void (*fn)(void *), void *arg);
void tui_timer_start(struct tui_timer *t, uint64_t ms);
void tui_timer_stop(struct tui_timer *t);
void tui_timer_free(struct tui_timer *t);

/* ---- conn.c: the websocket to the daemon ---- */

enum tui_conn_state {
	TUI_CONN_CONNECTING,              /* first attempt */
	TUI_CONN_UP,                      /* websocket established */
	TUI_CONN_RETRY,                   /* lost or refused; retrying */
};

struct tui_conn;

struct tui_conn_ops {
	/* The state or the error text changed. */
	void (*state)(void *owner);
	/* A hello, frame or error; the owner frees m (tui_msg_free). */
	void (*message)(void *owner, struct proto_server_msg *m);
	/* Something the user should know (an unreadable message, ...). */
	void (*warn)(void *owner, const char *text);
};

/* The reply to a command; r is NULL when the connection went first.
 * Called exactly once per successful tui_conn_send; owns arg. */
typedef void (*tui_reply_fn)(void *arg, const struct proto_reply *r);

const struct lws_protocols *tui_conn_protocol(void);
struct tui_conn *tui_conn_new(struct tui_loop *l, const struct tui_url *u,
    unsigned retry_ms, const struct tui_conn_ops *ops, void *owner);
void tui_conn_start(struct tui_conn *c);
/* argv[0] is the command name. */
int  tui_conn_send(struct tui_conn *c, int argc, const char *const *argv,
    tui_reply_fn fn, void *arg, char *err, size_t errlen);
enum tui_conn_state tui_conn_state(const struct tui_conn *c);
const char *tui_conn_error(const struct tui_conn *c);
void tui_conn_free(struct tui_conn *c);
void tui_msg_free(struct proto_server_msg *m);

/* ---- format.c: units and display width ---- */

void tui_fmt_ns(uint64_t ns, char *buf, size_t len);
void tui_fmt_count(uint64_t n, char *buf, size_t len);
void tui_fmt_rate(double r, char *buf, size_t len);
void tui_fmt_share(double share, char *buf, size_t len);
void tui_fmt_age(uint64_t ms, char *buf, size_t len);
/* Local time of day "HH:MM:SS" of a wall-clock ms; "-" for 0. */
void tui_fmt_clock(uint64_t ms, char *buf, size_t len);
/* A symbolized stack, one "  func+0xoff [module] file:line" line per frame. */
void tui_fmt_stack(FILE *m, const struct proto_block_stack *st);
/* Hook sites of every back-end summed: "120 on/15 off/7 skipped"; false
 * when the frame has none (the target sent no figures). */
bool tui_fmt_sites(const struct proto_frame *f, char *buf, size_t len);
/* Per back-end counts and skip reasons, several lines (the :sites overlay). */
void tui_fmt_sites_why(const struct proto_frame *f, char *buf, size_t len);
/* The overhead budget's lines of :sites: cost, budget, the demoted rows
 * with mode, since when, why, calls/s and average. */
void tui_fmt_demoted(const struct proto_frame *f, char *buf, size_t len);
/* Display columns of s (non-printables count as one '?'). */
int  tui_fmt_width(const char *s, bool utf8);
/* s made printable and fitted to exactly width columns: cut with an
 * ellipsis, padded with spaces on the right (left) or left (!left). */
void tui_fmt_fit(const char *s, int width, bool utf8, bool left, char *out, size_t outlen);
/* s fitted left-aligned into width columns, a cut made in the middle
 * (head, ellipsis, tail), so names that share a long prefix stay apart. */
void tui_fmt_fit_middle(const char *s, int width, bool utf8, char *out, size_t outlen);

/* A heap copy of s that is safe to print on a terminal: control characters
 * (but newline and tab, if keep_newlines) become '?'. */
char *tui_fmt_clean(const char *s, bool keep_newlines);
/* Does the current locale use UTF-8? */
bool tui_locale_utf8(void);

/* ---- columns.c: the hot-function columns ---- */

enum tui_col {
	TUI_COL_NAME, TUI_COL_CALLS, TUI_COL_RATE, TUI_COL_TOTAL, TUI_COL_SELF,
	TUI_COL_AVG, TUI_COL_MAX, TUI_COL_SLOW, TUI_COL_SHARE, TUI_COL_MODE, TUI_COL_MODULE,
	TUI_COL_COUNT
};

struct tui_column {
	const char *title;
	const char *sort_key;             /* NULL: not a sort key */
	int         width;                /* 0: flexible */
	bool        left;                 /* left-aligned */
	void      (*fmt)(const struct proto_func *f, char *buf, size_t len);
	unsigned    est;                  /* TUI_EST_*: a row flag that makes it an estimate */
};
#define TUI_EST_CALLS 0x1                 /* the row's calls_est */
#define TUI_EST_TIME  0x2                 /* the row's time_est */

extern const struct tui_column tui_columns[TUI_COL_COUNT];
/* Column c of row f, '~' first when the row's flags make it an estimate. */
void tui_column_cell(int c, const struct proto_func *f, char *buf, size_t len);
extern const char *const tui_sort_keys[];   /* NULL-terminated */
int  tui_sort_key_index(const char *key);   /* -1 if unknown */
/* Column showing a sort key (self -> share too); -1 if none. */
int  tui_column_of_sort(const char *key);
/* Local re-sort, so a sort key change shows at once. */
void tui_funcs_sort(struct proto_func *f, size_t n, const char *key);
/* The frame as a plain text table (--once without --json). */
void tui_columns_print(FILE *out, const struct proto_frame *f, bool utf8);
const struct proto_target *tui_frame_target(const struct proto_frame *f);
/* Does a row of the frame have a mode other than timed (the MODE column)? */
bool tui_frame_demoted(const struct proto_frame *f);
/* "cost 3.1%/5%": the agent's hook cost against the overhead budget. */
void tui_fmt_cost(const struct proto_frame *f, char *buf, size_t len);

/* ---- json.c ---- */

/* The frame as one JSON object with the wire keys, NUL-terminated. */
char *tui_json_frame(const struct proto_frame *f, size_t *len);

/* ---- theme.c ---- */

enum tui_el {
	TUI_EL_STATUS, TUI_EL_STATUS_OK, TUI_EL_STATUS_WARN, TUI_EL_STATUS_ERROR,
	TUI_EL_INFO, TUI_EL_HEADER, TUI_EL_SORT, TUI_EL_ROW, TUI_EL_ROW_IDLE,
	TUI_EL_SELECTED, TUI_EL_BAR, TUI_EL_MESSAGE, TUI_EL_ERROR, TUI_EL_PROMPT,
	TUI_EL_CMDLINE, TUI_EL_HINT, TUI_EL_HELP, TUI_EL_HELP_TITLE,
	TUI_EL_FPS, TUI_EL_FPS_MISSED,
	TUI_EL_TITLE, TUI_EL_ALERT, TUI_EL_PAUSED, TUI_EL_DEMOTED,
	TUI_EL_COUNT
};

enum tui_colour_kind { TUI_C_DEFAULT, TUI_C_INDEX, TUI_C_RGB };

struct tui_colour {
	uint8_t kind;                     /* enum tui_colour_kind */
	uint8_t index;                    /* TUI_C_INDEX: 0-255 */
	uint8_t r, g, b;                  /* TUI_C_RGB */
};

enum {
	TUI_A_BOLD = 1, TUI_A_DIM = 2, TUI_A_UNDERLINE = 4, TUI_A_REVERSE = 8,
	TUI_A_STANDOUT = 16, TUI_A_ITALIC = 32, TUI_A_BLINK = 64,
};

struct tui_style {
	struct tui_colour fg, bg;
	unsigned attrs;                   /* TUI_A_* */
	unsigned mono;                    /* attrs used without colours */
};

struct tui_theme {
	char source[512];                 /* file it came from, or "built-in" */
	struct tui_style el[TUI_EL_COUNT];
};

const char *tui_theme_el_name(int el);
void tui_theme_defaults(struct tui_theme *t);
/* Parse theme text over t; -1 with "FILE:LINE: what" in err. */
int  tui_theme_parse(struct tui_theme *t, const char *text, const char *fname,
    char *err, size_t errlen);
/* NAME or PATH (NULL: "default").  On error t holds the built-in default
 * theme and err says why; a missing "default" is not an error. */
int  tui_theme_load(struct tui_theme *t, const char *name, char *err, size_t errlen);
/* Names of the themes found (for completion); returns how many. */
int  tui_theme_names(char names[][64], int max);
/* --check-theme: load, print the verdict; exit status. */
int  tui_theme_check(const char *name);
/* Curses attributes for every element (after start_color()). */
void tui_theme_apply(const struct tui_theme *t, bool colour, unsigned long *attr);

/* ---- list.c: the list widget of every panel ---- */

/* A list of n items shown in rows rows from item top, item sel selected. */
struct tui_list {
	int n;                            /* items at the last layout */
	int rows;                         /* rows shown at the last layout */
	int sel;                          /* selected item (0 when n is 0) */
	int top;                          /* item on the first row */
};

#define TUI_VIEW_MAX 16                  /* views in the table (views.c), at most */

/* Before drawing: n items in rows rows now; the selection stays on an
 * item and in view. */
void tui_list_layout(struct tui_list *l, int n, int rows);
/* Move the selection by delta items (clamped: Home/End pass huge ones). */
void tui_list_move(struct tui_list *l, int delta);
void tui_list_select(struct tui_list *l, int item);
/* Items a page key moves: the rows shown (at least 1). */
int  tui_list_page(const struct tui_list *l);
/* The item on row (0: the first row shown), or -1. */
int  tui_list_item(const struct tui_list *l, int row);

/* ---- the interactive program (app.c, screen.c, panel-funcs.c, ...) ---- */

enum tui_mode { TUI_MODE_NORMAL, TUI_MODE_COMMAND, TUI_MODE_FILTER };

/* A scrollable text box over the panel (help, multi-line replies). */
struct tui_overlay {
	bool   active;
	char  *title;
	char **items;
	size_t nitems;
	int    top;
};

struct tui_app {
	const struct tui_opts *opts;
	struct tui_loop  *loop;
	struct tui_conn  *conn;
	struct tui_timer *tick;
	struct tui_theme  theme;
	unsigned long     attr[TUI_EL_COUNT];
	bool              utf8;
	bool              colour;

	/* What the daemon sent last. */
	struct proto_server_msg *frame;   /* PROTO_MSG_FRAME or NULL */
	uint64_t          frame_rx_ns;    /* when it arrived */
	struct proto_server_msg *hello;   /* PROTO_MSG_HELLO or NULL */

	/* View state. */
	enum tui_mode     mode;
	struct tui_list   list[TUI_VIEW_MAX];     /* the views' selections, by view (tui_view_list) */
	char             *sel_name;       /* the functions' selection follows this name */
	bool              show_module;
	struct tui_overlay overlay;
	struct tui_paths *paths;          /* call paths in the functions view (panel-paths.c) */
	char              msg[TUI_MSG_LEN];
	bool              msg_error;
	uint64_t          msg_ns;

	/* What the user asked the daemon for; sent again after a reconnect. */
	int32_t           want_target;
	char             *want_sort;
	long              want_top;
	char             *want_filter;    /* NULL: no filter */
	bool              retarget_sent;  /* this connection asked again */

	bool              quit;
	int               status;         /* exit status */

	/* The dashboard (views.c, overview.c). */
	int               view;           /* enum tui_view_id shown */
	bool              paused;         /* p: the frame shown stays */
	struct proto_server_msg *pending; /* newest frame not shown yet */
	unsigned          refresh_ms;     /* frames are shown at most this often */
	uint64_t          shown_ns;       /* when the frame shown was swapped in */
};

/* app.c */
int  tui_app_run(const struct tui_opts *o);
void tui_app_message(struct tui_app *a, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Send a command; the reply goes to the message line (or an overlay). */
int  tui_app_send(struct tui_app *a, int argc, const char *const *argv);
int  tui_app_send_reply(struct tui_app *a, int argc, const char *const *argv,
    tui_reply_fn fn, void *arg);
void tui_app_set_sort(struct tui_app *a, const char *key);
void tui_app_set_filter(struct tui_app *a, const char *text);
void tui_app_overlay(struct tui_app *a, const char *title, const char *text);
void tui_app_overlay_close(struct tui_app *a);
const struct proto_target *tui_app_targets(const struct tui_app *a, size_t *n);
const struct proto_target *tui_app_target(const struct tui_app *a);

/* screen.c */
int  tui_screen_start(struct tui_app *a, char *err, size_t errlen);
void tui_screen_end(void);
void tui_screen_resize(struct tui_app *a);
void tui_screen_draw(struct tui_app *a);
void *tui_screen_cmdwin(void);        /* WINDOW * of the bottom line */
void *tui_screen_keypad(void);        /* input pad, keypad on */
void *tui_screen_rawpad(void);        /* input pad, keypad off */
int  tui_screen_panel_rows(const struct tui_app *a);   /* rows of the function table */
void tui_screen_theme(struct tui_app *a);   /* apply a->theme again */
void tui_screen_mouse(bool on);      /* mouse reports on or off */
/* s fitted into width columns at (y, x) of win; returns the columns used. */
int  tui_screen_put(void *win, int y, int x, int width, unsigned long attr, const char *s);
void tui_screen_fill(void *win, int y, int x, int width, unsigned long attr);

/*
 * The panels, one file each.  A panel file defines its view's row
 * (const struct tui_view tui_view_NAME, listed in views.c) and keeps its
 * entry points static: the row carries them.  What other files call of a
 * panel is in its header (panel-funcs.h, panel-blocks.h).
 */

/* A sparkline of v[0..n) scaled to its maximum: one cell per value,
 * block characters or, without UTF-8, an ASCII ramp; 0 is the lowest step
 * (panel-fps.c). */
void tui_fps_sparkline(const unsigned *v, size_t n, bool utf8, char *out, size_t len);

/* overview.c: the start screen (its row), and what panels share */
/* A panel title row: text left, "[key]" right; registers a click region. */
void tui_panel_title(struct tui_app *a, void *win, int y, int x, int w, int view,
    const char *text);
/* A view with nothing to show: its title, why below. */
void tui_panel_empty(struct tui_app *a, void *win, int y, int x, int w, int view,
    const char *why);
/* An overview box with nothing to show: its title, why (or that no frame
 * came yet) below. */
void tui_panel_box_empty(struct tui_app *a, void *win, int y, int x, int h, int w, int view,
    const char *why);

/* cmdline.c */
int  tui_cmdline_init(struct tui_app *a);
void tui_cmdline_done(void);
void tui_cmdline_open(struct tui_app *a, enum tui_mode mode, const char *initial);
void tui_cmdline_cancel(struct tui_app *a);
/* Feed pending input to readline; false when there was none. */
bool tui_cmdline_feed(struct tui_app *a);
void tui_cmdline_draw(struct tui_app *a);
void tui_cmdline_resize(int rows, int cols);

/* commands.c */
struct tui_command {
	const char *name;
	const char *args;                 /* usage of the arguments */
	const char *help;
	int         min_args, max_args;   /* max -1: any */
	int       (*exec)(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
	bool        views;                /* the help goes on with the view names */
};
extern const struct tui_command tui_commands[];
const struct tui_command *tui_command_find(const char *name);
void tui_commands_run(struct tui_app *a, const char *line);
/* Split a command line into words ("..." and '...' quote); -1 on error. */
int  tui_cmd_split(const char *line, char **argv, int max, char *err, size_t errlen);
void tui_cmd_split_free(char **argv, int argc);
/* panel-paths.c: the functions view with its callers/callees pane (opened
 * by Enter) or its call tree (c); the keys those take (true: handled). */
struct tui_paths;
void tui_paths_view_draw(struct tui_app *a, void *win, int y, int x, int h, int w);
void tui_paths_pane_open(struct tui_app *a);
bool tui_paths_key(struct tui_app *a, int key);
void tui_paths_free(struct tui_app *a);

/* Text of the help overlay, the key table then the command table. */
char *tui_help_text(void);
char *tui_commands_help(void);

/* keys.c */
void tui_keys_handle(struct tui_app *a, int key);
char *tui_keys_help(void);

/* views.c: the table of views, in key order (0 overview, then the collectors, the targets) */
typedef void (*tui_draw_fn)(struct tui_app *a, void *win, int y, int x, int h, int w);

struct tui_view {
	const char *name;                 /* "functions": :view NAME, help, tab from 90 columns */
	const char *tab;                  /* the tab's name below 90 columns */
	const char *title;                /* its title row when it has nothing to show */
	int         key;                  /* '0'-'9', then letters, in table order */
	int         fkey;                 /* KEY_F(n) or 0 */
	const char *help;
	const char *part;                 /* its key in the frame (and --json); NULL: none */
	tui_draw_fn draw;                 /* full screen */
	tui_draw_fn box_draw;                /* its box in the overview; NULL: none */
	/* Rows the box needs and would like (wide: the two-column layout). */
	void      (*box_rows)(const struct tui_app *a, bool wide, int avail, int *min, int *want);
	int         box_grow;             /* rows left over go to the boxes by this rank, 1 first */
	bool        list;                 /* it has a selection Up/Down/PgUp/... move */
	const struct tui_view *list_of;   /* it shows that view's list (and its moved and
	                                     Enter) instead; NULL: its own */
	void      (*moved)(struct tui_app *a);   /* after its list moved; NULL: nothing */
	void      (*enter)(struct tui_app *a);   /* Enter; NULL: nothing */
};
extern const struct tui_view *const tui_views[];
extern const int tui_nviews;
int  tui_view_find(const char *name);    /* -1 if unknown; also a view's key ("3") */
/* The index of a row of tui_views (asserted to be one). */
int  tui_view_index(const struct tui_view *v);
/* Enter on the view shown. */
void tui_view_enter(struct tui_app *a);
void tui_view_set(struct tui_app *a, int view);
/* The list of a view, NULL when it has none. */
struct tui_list *tui_view_list(struct tui_app *a, int view);
/* Up/Down/Home/End/the wheel: move the list of the view shown. */
void tui_view_move(struct tui_app *a, int delta);
/* Rows a page key moves in the view shown. */
int  tui_view_page(struct tui_app *a);
/* "overview, functions, ...": the view names, in key order (heap). */
char *tui_view_names(void);
/* A mouse click at (y, x) on the region a view drew there. */
void tui_view_click(struct tui_app *a, int y, int x, bool dbl);
/* Screen regions drawn for clicks: a panel title opens its view (first
 * -1), a row selects its item (row y shows item first).  Reset at the
 * start of each draw. */
void tui_view_regions_reset(void);
void tui_view_region(int view, int y, int x, int h, int w, int first);
/* The bottom line outside the command line: the key hints, then a tab per
 * view (the one shown highlighted, each clickable); screen_y: its row. */
void tui_view_tabs_draw(struct tui_app *a, void *win, int screen_y, int cols);
/* Make the pending frame the one shown (unless paused or too early,
 * when force is false). */
void tui_app_show_pending(struct tui_app *a, bool force);
void tui_app_pause(struct tui_app *a, bool on);
/* Refresh period one step shorter (dir < 0) or longer (dir > 0). */
void tui_app_refresh_step(struct tui_app *a, int dir);
#define TUI_REFRESH_MS 1000              /* default refresh period */

/* once.c */
int  tui_once_run(const struct tui_opts *o);

#endif
