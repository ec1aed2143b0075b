/*
 * daemon.h - internal interfaces of hookscoped.
 *
 * The daemon is one lws event loop (server.c) serving three kinds of peers:
 *   agents   (agent.c)  - length-prefixed msgpack records on a unix socket;
 *   clients  (client.c) - msgpack messages on a websocket;
 *   signals  (server.c) - a signalfd (SIGINT/SIGTERM/SIGHUP/SIGCHLD).
 * Sessions (session.c, functab.c, rank.c, sessions.c) hold what the agents
 * reported and know nothing of lws, so the unit tests drive them directly;
 * each collector's share of a session is its row in the collector table
 * (daemon_collector.h, collector.c).
 * Commands (cmd.c + one cmd-*.c per command) act on a client's view.
 */
#ifndef HOOKSCOPE_DAEMON_H
#define HOOKSCOPE_DAEMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <libwebsockets.h>
#include "protocol.h"
#include "rank.h"

#define DAEMON_DEFAULT_PORT     7070
#define DAEMON_DEFAULT_ADDRESS  "127.0.0.1"
#define DAEMON_DEFAULT_RATE     10.0
#define DAEMON_DEFAULT_TOP      50
#define DAEMON_MAX_TOP          1000
#define DAEMON_MAX_SESSIONS     256        /* beyond: forget the oldest ended one */
#define DAEMON_MAX_FUNCS        (1u << 20) /* per session; beyond: ignored */
#define DAEMON_MAX_AGENTS       1024       /* agent connections at once */
#define DAEMON_MAX_CLIENTS      256        /* websocket clients at once */
#define DAEMON_REPLY_QUEUE      32         /* queued replies per client */
#define DAEMON_AGENT_OUT_MAX    (1u << 20) /* unsent bytes to one agent */
#define DAEMON_RATE_WINDOW_NS   1000000000ull /* rates: calls over the last second */
#define DAEMON_RATE_SPACING_NS  250000000ull  /* between two rate samples */
#define DAEMON_RATE_SLOTS       5             /* samples kept: one is >= 1 s old */
#define DAEMON_RATE_STALE_NS    1000000000ull /* no report for this long: idle */
#define DAEMON_RESET_GRACE_NS   2000000000ull /* drop pre-reset records for this long */

/* ---- logging (log.c) ---- */

/* ERROR, WARN and NOTICE always show; INFO needs -v, DEBUG -vv. */
enum daemon_log_level { DLOG_ERROR, DLOG_WARN, DLOG_NOTICE, DLOG_INFO, DLOG_DEBUG };

void daemon_log_set_verbosity(int verbosity);
int  daemon_log_verbosity(void);
void daemon_log(enum daemon_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* lws levels to pass to lws_set_log_level() with daemon_log_lws_emit. */
int  daemon_log_lws_levels(void);
void daemon_log_lws_emit(int level, const char *line);

/* ---- options (opts.c) ---- */

/* Issue sink settings: command line and config file (issue_opts.c, issue.h). */
struct daemon_issue_opts {
	char    *dir;                     /* --issue-dir, or NULL */
	uint64_t max_files, max_bytes;    /* the store's limits */
	bool     syslog;                  /* --syslog */
	char    *syslog_socket;           /* its socket (default /dev/log) */
	char    *upload_url;              /* --upload, or NULL */
	bool     upload_otlp;             /* --upload-format otlp */
	char    *upload_header;           /* --upload-header "Name: value", or NULL */
	uint64_t upload_queue;            /* queued uploads kept at most */
	unsigned backoff_max_s;           /* longest wait between retries */
};

struct daemon_opts {
	int     port;
	char   *address;          /* IPv4 literal to listen on */
	char   *socket_path;      /* agent unix socket */
	double  rate_hz;          /* frames per second per client */
	int     top;              /* default rows per frame */
	char   *report_dir;
	char   *agent;            /* --agent, or NULL */
	int     verbose;
	bool    run;              /* "run" given */
	int     run_level;        /* --level N of run, -1 = agent default */
	char  **run_argv;         /* PROG ARGS..., NULL-terminated (into argv) */
	char   *run_map;          /* --map entries as HOOKSCOPE_MAP, or NULL */
	double  refresh_hz;       /* --refresh: frame budget of every agent; 0 = agent's */
	uint32_t budget_ppm;      /* --budget: overhead budget of every agent, 0 = off */
	bool    budget_set;       /* --budget given (else the agent's own, the same default) */
	/* attach (attach*.c) */
	pid_t   attach_pid;       /* "attach PID": inject, then exit */
	pid_t   detach_pid;       /* "detach PID": unload, then exit */
	int     attach_level;     /* --level of attach (default 2) */
	unsigned attach_grace_s;  /* --grace: the agent's self-detach delay */
	bool    allow_remote_attach;  /* attach/detach from non-loopback clients */
	bool    detach_on_exit;   /* detach attached agents at shutdown */
	char   *run_ui_thread;    /* run --ui-thread, or NULL */
	/* access control (access.c) */
	char   *token;            /* --token / --token-file, or NULL */
	bool    allow_remote_control;  /* attach, detach, ps, dump from non-loopback */
	struct daemon_issue_opts issue;   /* issue sinks (issue.h) */
	char  **cfg_argv;         /* argv[0], the config file's options, argv[1..] */
	size_t  ncfg;             /* options from the config file (owned) */
};

enum { DAEMON_OPTS_ERROR = -1, DAEMON_OPTS_OK = 0, DAEMON_OPTS_EXIT = 1 };

/* Parse argv; DAEMON_OPTS_EXIT after --help/--version (printed), or
 * DAEMON_OPTS_ERROR with err filled (exit 2). */
int  daemon_opts_parse(struct daemon_opts *o, int argc, char **argv,
    char *err, size_t errlen);
void daemon_opts_free(struct daemon_opts *o);
void daemon_opts_usage(FILE *f);
char *daemon_opts_default_socket(void);
char *daemon_opts_default_report_dir(void);
struct option;
/* opts_config.c: the options of config file path (NULL: the default one,
 * if it exists) as "--name[=value]" strings (heap) checked against
 * longopts; 0, or -1 with err naming FILE:LINE. */
int  daemon_opts_config(const char *path, const struct option *longopts, char ***args,
    size_t *nargs, char *err, size_t errlen);

/* Parse a whole decimal integer in [lo, hi]; 0 or -1. */
int  daemon_parse_int(const char *s, long lo, long hi, long *out);

/* ---- sessions (functab.c, session.c) ---- */

/* One function of a target, as the agent last reported it. */
struct daemon_func {
	uint64_t addr;
	char    *name;            /* NULL until a syms record names it */
	char    *module;          /* basename, NULL if unknown */
	uint64_t calls, total_ns, self_ns, max_ns, slow;  /* cumulative */
	uint64_t running_ns;      /* time so far of calls not returned, as of
	                           * the last report (not cumulative) */
	uint64_t samp_calls[DAEMON_RATE_SLOTS];  /* calls at the session's samples */
	double   rate;            /* calls/s, computed by daemon_session_rates */
	/* How the agent watches it (the overhead budget): settings, kept
	 * across a reset until the agent says otherwise. */
	uint8_t  mode;            /* enum proto_fmode */
	bool     calls_est, time_est;  /* which figures are estimates */
	uint64_t mode_since_ns;   /* agent monotonic clock of the last change; 0 = never */
	uint32_t hook_ppm;        /* what timing it cost when the mode was chosen */
};
/* ms since f's mode last changed at now_ns (same clock as the agent's);
 * 0 when it never changed, at least 1 when it did. */
uint64_t daemon_func_mode_age_ms(const struct daemon_func *f, uint64_t now_ns);

/* Functions of one session, hashed by address (open addressing). */
struct daemon_functab {
	struct daemon_func *v;    /* dense, in order of first sight */
	size_t    n, cap;
	uint32_t *slots;          /* index+1 into v, 0 = empty */
	size_t    nslots;         /* power of two */
	uint64_t  refused;        /* new addresses ignored past DAEMON_MAX_FUNCS */
};

struct daemon_func *daemon_functab_find(const struct daemon_functab *t, uint64_t addr);
/* Find or add; NULL when the table is full (DAEMON_MAX_FUNCS). */
struct daemon_func *daemon_functab_get(struct daemon_functab *t, uint64_t addr);
void daemon_functab_free(struct daemon_functab *t);

struct daemon_agent;

/* Thread count over time (threads.c): one sample per second, oldest first. */
struct daemon_thr_hist {
	uint32_t live[PROTO_THR_HISTORY];
	uint64_t created[PROTO_THR_HISTORY];
	uint64_t at_ns[PROTO_THR_HISTORY];
	size_t   n;
	uint64_t last_ns;
};

/* Held power resources over time (power_hist.c): a sample (per category,
 * resources held) when a count changes or a second after the last one, at
 * the agent record's time; the newest DAEMON_PWR_HIST, a ring. */
#define DAEMON_PWR_HIST 600
struct daemon_pwr_hist {
	size_t   ncats;                   /* categories seen, in order of first sight */
	char    *cats[PROTO_MAX_PWR_CATS];
	size_t   head, n;                 /* next slot; samples kept */
	uint64_t at_ns[DAEMON_PWR_HIST];  /* monotonic clock */
	uint16_t held[DAEMON_PWR_HIST][PROTO_MAX_PWR_CATS];  /* by index in cats */
};

/* A collector's own per-session state (daemon_session_state). */
#define DAEMON_MAX_COLLECTORS 16
struct daemon_collector;
struct daemon_rank_views;
struct daemon_lines;
struct daemon_cstate {
	const struct daemon_collector *c;     /* NULL: slot free (and all after it) */
	void *p;
};

/* One call path of a session (paths.c): the agent's merged calling-context
 * tree, indexed by the agent's path id. */
#define DAEMON_MAX_PATHS  65536
#define DAEMON_PATH_DEPTH 512             /* frames a report follows up a path */
struct daemon_path {
	uint32_t parent;          /* parent's id + 1; 0: outermost */
	uint64_t addr;            /* the function (its row in funcs) */
	uint64_t calls, incl_ns, self_ns;  /* cumulative since start or reset */
};
struct daemon_paths {
	struct daemon_path *v;
	size_t   n, cap;
	uint64_t dropped;         /* calls whose path the agent could not keep */
	bool     off;             /* the agent does not track paths now */
};

/* One target process, keyed by pid. */
struct daemon_session {
	int32_t  pid;
	char    *name;            /* comm, or basename of exe */
	char    *exe, *build_id, *cmdline;
	uint8_t  level;
	uint8_t  state;           /* enum proto_target_state */
	uint64_t started_ms, ended_ms;  /* wall clock */
	uint64_t overhead_ps, dropped;
	uint32_t threads;
	uint32_t cost_ppm;        /* the agent's hook cost over its last window */
	uint32_t budget_ppm;      /* the overhead budget in force, 0 = off */
	uint32_t ip_samples, ip_agent;  /* the agent's recent pc samples, those in its code */
	uint32_t nmode[PROTO_FMODE_N];  /* functions per mode but timed (daemon_session_nmode) */
	bool     bye;             /* the agent said the target is exiting */
	int      exit_status;     /* wait status if we reaped it, else -1 */
	struct daemon_functab funcs;
	struct daemon_paths paths; /* call paths (paths.c) */
	struct daemon_lines *lines; /* file:line of frames (lines.c), while an agent sends */
	/* Bumped by whatever can change a ranking (records, reset, a tick that
	 * samples the rates): the rankings of an older one are stale. */
	uint64_t gen;
	struct daemon_rank_views *rank_views;  /* shared rankings (rank_view.c) */
	bool     rates_zero;      /* every rate 0 over a window, as of rates_gen */
	uint64_t rates_gen;
	/* rate samples (see session.c) */
	uint64_t samp_ns[DAEMON_RATE_SLOTS];  /* times of the rate samples (a ring) */
	unsigned samp_head, samp_n;  /* newest slot; slots in use */
	uint64_t ref_ns;          /* time the cumulative figures are valid at */
	uint64_t last_report_ns;  /* last funcs record, 0 = none */
	uint64_t reset_ns;        /* last reset, 0 = none */
	bool     baseline;        /* next funcs record starts the rate samples */
	struct daemon_agent *agent;  /* connected agent, NULL when not live */
	bool     attached;        /* its agent was injected (hello); it can detach */
	size_t   nsites;          /* hook back-ends (the last "sites" record) */
	struct proto_sites *sites;
	struct proto_fps fps;     /* frame-rate streams (fps.c) */
	struct proto_threads thr; /* the last "threads" record (threads.c) */
	struct daemon_thr_hist thr_hist;
	struct proto_blocks blocks; /* UI-thread blocks, newest first (block.c) */
	uint64_t block_seen_ms;   /* wall clock of the newest block's last change */
	struct proto_ipc ipc;     /* IPC endpoints and slow calls (ipc.c) */
	struct daemon_ipc_rate *ipc_rate;  /* operations per second (ipc.c) */
	struct proto_power power; /* the last "power" record, priced (power.c) */
	struct proto_power power_raw; /* that record as received */
	uint64_t power_rx_ns;     /* when it arrived */
	bool     power_priced;    /* power is that record priced (held times may advance) */
	struct daemon_pwr_hist *power_hist;  /* held resources over time, NULL none */
	struct daemon_fps_ring *fps_rings;  /* recent frames per stream (fps_ring.c) */
	size_t   nfps_rings;
	struct daemon_cstate cstate[DAEMON_MAX_COLLECTORS];  /* collector.c */
};

/* The last DAEMON_FPS_RING frames of one stream, for the trace report. */
#define DAEMON_FPS_RING 2048
struct daemon_fps_ring {
	uint32_t id;              /* the stream */
	size_t   head, n;         /* next slot; frames kept */
	uint64_t end_ns[DAEMON_FPS_RING];   /* presentation, monotonic clock */
	uint64_t ns[DAEMON_FPS_RING];       /* frame time */
};

struct daemon_session *daemon_session_new(int32_t pid, uint64_t now_ns);
void daemon_session_free(struct daemon_session *s);
/* An agent (re)connected with this hello: the session goes live. */
void daemon_session_hello(struct daemon_session *s, const struct proto_ag_hello *h,
    uint64_t now_ns);

/* The agent connection closed; process_gone picks exited over lost. */
void daemon_session_detach(struct daemon_session *s, bool process_gone);
/* collector.c: a record to the collector consuming it (records stamped
 * before a reset dropped); -1 when no collector consumes its type. */
int  daemon_session_record(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns);
/* Every collector's state up to now: periodically, and before a frame, a
 * report or /metrics reads it (rates decay with no report for
 * DAEMON_RATE_STALE_NS; held power times advance). */
void daemon_session_tick(struct daemon_session *s, uint64_t now_ns);
/* Every collector's reset (daemon_collector.h says what it keeps), after the
 * reset went to the agent. */
void daemon_session_reset(struct daemon_session *s, uint64_t now_ns);
/* Point each collector's part of f at the session's state (borrowed). */
void daemon_session_frame(struct daemon_session *s, struct proto_frame *f);
/* Free what every collector holds (daemon_session_free). */
void daemon_session_collectors_free(struct daemon_session *s);
/* Functions known in mode (enum proto_fmode): timed ones are all the others. */
uint64_t daemon_session_nmode(const struct daemon_session *s, unsigned mode);
/* Functions not timed: counted, sampled or off. */
#define daemon_session_demoted(s) \
	((s)->funcs.n - daemon_session_nmode((s), PROTO_FMODE_TIMED))
/* The agent's cost as its pc samples measure it (the share of the program
 * threads' samples in the agent's own code, ppm): false while fewer than
 * DAEMON_IP_MIN samples back it. */
#define DAEMON_IP_MIN 50
bool daemon_session_cost_sampled(const struct daemon_session *s, uint32_t *ppm);
/* Compute every function's rate (calls/s over about the last second). */
void daemon_session_rates(struct daemon_session *s);
/* sites.c: keep a "sites" record (absolute figures: it replaces the last). */
void daemon_session_sites(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns);
/* One line for people: "patch 120 on/15 off/7 skipped (short 5); ...". */
const char *daemon_sites_line(const struct proto_sites *v, size_t n, char *buf, size_t len);
/* fps.c: merge an "fps" record (streams replaced by id, busiest first). */
void daemon_session_fps(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns);
/* Forget the streams (the agent resends them zeroed after a reset). */
void daemon_session_fps_reset(struct daemon_session *s);
/* fps_ring.c: move a stream's "recent" frames into its ring; the ring of
 * stream id or NULL; forget all rings (reset, session end). */
void daemon_fps_ring_add(struct daemon_session *s, struct proto_fps_stream *t);
const struct daemon_fps_ring *daemon_fps_ring_of(const struct daemon_session *s, uint32_t id);
void daemon_fps_rings_free(struct daemon_session *s);
/* "HH:MM:SS.mmm", local time, of a wall-clock ms value, into buf. */
const char *daemon_clock_ms(char *buf, size_t len, uint64_t ms);
/* The report's frame-rate section (heap). */
char *daemon_fps_report(const struct daemon_session *s);
/* threads.c: keep a "threads" record (absolute: it replaces the last),
 * demangled, with the history and creations per second added. */
void daemon_session_threads(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns);
/* The report's threads section (heap). */
char *daemon_threads_report(const struct daemon_session *s);
/* block.c: merge a "blocks" record (blocks replaced by id, newest first,
 * at most PROTO_MAX_BLOCKS). */
void daemon_session_blocks(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns);
/* The report's blocks section (heap). */
char *daemon_blocks_report(const struct daemon_session *s);
/* One symbolized stack for a report, a frame per line (block.c). */
void daemon_report_stack(FILE *m, const struct proto_block_stack *st);
/* ipc.c: keep an "ipc" record (endpoints replace the last ones, slow calls
 * merged by id, newest PROTO_MAX_IPC_SLOW kept), with operations per second. */
void daemon_session_ipc(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns);
/* The report's IPC section (heap). */
char *daemon_ipc_report(const struct daemon_session *s);
/* The endpoint with id, or NULL. */
const struct proto_ipc_ep *daemon_ipc_ep_by_id(const struct proto_ipc *p, uint32_t id);
/* power.c: keep a "power" record (absolute: it replaces the last), priced
 * with the power profile, charge summed per category. */
void daemon_session_power(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns);
/* Bring the priced state up to now: held times tick between records (the
 * agent sends one a second while something is held). */
void daemon_session_power_tick(struct daemon_session *s, uint64_t now_ns);
/* The report's power section (heap). */
char *daemon_power_report(const struct daemon_session *s);
/* power_hist.c: a sample of the held resources of s->power at at_ns, if a
 * count changed or a second passed; free the history. */
void daemon_power_hist_add(struct daemon_session *s, uint64_t at_ns);
void daemon_power_hist_free(struct daemon_session *s);
/* demangle.c: the demangled form of a C++ symbol name (malloc'd), or NULL
 * when name is not mangled or cannot be demangled. */
char *daemon_demangle(const char *name);
/* Is the process still there (not a zombie)? */
bool daemon_process_alive(int32_t pid);

/* ---- ranking (rank.c) ---- */

/* What one client looks at. */
struct daemon_view {
	int32_t target;           /* pid, 0 = auto */
	int     sort;             /* enum proto_rank_key (rank.h) */
	size_t  top;
	char   *filter;           /* case-insensitive name substring, NULL = all */
	bool    remote;           /* the client is not on loopback */
};

struct daemon_totals {
	uint64_t calls;           /* all functions */
	uint64_t self_ns;
};

uint64_t daemon_func_avg(const struct daemon_func *f);
/* Functions with calls or running time, matching the filter, ranked by
 * key (enum proto_rank_key); the first min(cap, matches) go to out.
 * Computes rates and totals (of all functions, filter or not) on the way. */
size_t daemon_rank(struct daemon_session *s, int key, const char *filter,
    struct daemon_func **out, size_t cap, struct daemon_totals *tot);

/* rank_view.c: daemon_rank of (key, filter, top), computed once per
 * generation of s and shared by every caller asking for the same view.
 * *rows is borrowed: valid until s changes (its generation moves).
 * Returns the number of rows; tot as daemon_rank fills it. */
size_t daemon_rank_view(struct daemon_session *s, int key, const char *filter, size_t top,
    struct daemon_func *const **rows, struct daemon_totals *tot);
void daemon_rank_views_free(struct daemon_session *s);

/* ---- the session list (sessions.c) ---- */

struct daemon_sessions {
	struct daemon_session **v;  /* oldest first */
	size_t n, cap;
};

struct daemon_session *daemon_sessions_find(const struct daemon_sessions *ss, int32_t pid);
/* The session an agent hello belongs to: the same pid's session unless that
 * process is known to have ended (pid reuse), else a new one. */
struct daemon_session *daemon_sessions_attach(struct daemon_sessions *ss,
    const struct proto_ag_hello *h, uint64_t now_ns);
int  daemon_sessions_forget(struct daemon_sessions *ss, int32_t pid);
/* pid, or 0: newest live session, else newest; NULL if none. */
struct daemon_session *daemon_sessions_pick(const struct daemon_sessions *ss, int32_t pid);
/* Fill out[0..n) with borrowed views of every session. */
size_t daemon_sessions_targets(const struct daemon_sessions *ss, struct proto_target *out);
void daemon_sessions_free(struct daemon_sessions *ss);

/* ---- the daemon (server.c) ---- */

enum daemon_fd_kind { DAEMON_FD_LISTENER, DAEMON_FD_AGENT, DAEMON_FD_SIGNAL };

/* Opaque user data of every adopted raw descriptor. */
struct daemon_fd {
	enum daemon_fd_kind kind;
};

struct daemon_client;

struct daemon_state {
	const struct daemon_opts *opts;
	struct lws_context *ctx;
	struct lws_vhost   *vhost;
	struct daemon_sessions sessions;
	struct daemon_client *clients;    /* doubly linked */
	size_t   nclients, nagents;
	uint64_t client_serial;
	/* agent socket */
	int      listen_fd;
	dev_t    sock_dev;
	ino_t    sock_ino;
	bool     sock_bound;
	struct daemon_fd listen_h;
	/* signals */
	int      sig_fd;
	struct daemon_fd sig_h;
	pid_t    child;                   /* spawned target, 0 if none */
	lws_sorted_usec_list_t tick_sul;
	uint64_t tick_us;
	uint64_t alive_check_ns;
	bool     stop;
};

/* Set up, loop until a signal stops it, tear down; the exit status. */
int  daemon_server_run(const struct daemon_opts *o);
/* A frame now for every client showing s (its agent just reported), unless
 * the client had one less than half a tick ago. */
void daemon_server_push(struct daemon_state *d, const struct daemon_session *s);

/* ---- agents (agent.c) ---- */

/* Create, bind and listen on the agent socket (replacing a stale one). */
int  daemon_agent_listen(struct daemon_state *d, char *err, size_t errlen);
/* Remove the socket file if it is still ours. */
void daemon_agent_unlink(struct daemon_state *d);
/* Listener readable: accept and adopt the new agents. */
void daemon_agent_accept(struct daemon_state *d);
/* Raw-file callback for one agent connection. */
int  daemon_agent_callback(struct daemon_state *d, struct lws *wsi, int reason,
    struct daemon_fd *h);
/* Queue one record to the agent; 0, or -1 if the agent is going away. */
int  daemon_agent_send(struct daemon_agent *a, const struct proto_agent_rec *r);
/* fps.c: a new agent gets the frame budget of --refresh HZ (0: nothing). */
void daemon_fps_greet(struct daemon_agent *a, double refresh_hz);
/* cmd-budget.c: a new agent gets the overhead budget of --budget, if given. */
void daemon_budget_greet(struct daemon_agent *a, const struct daemon_opts *o);

/* ---- websocket clients (client.c, frame.c) ---- */

struct daemon_msg {
	size_t len;               /* payload bytes after LWS_PRE */
	unsigned char buf[];      /* LWS_PRE headroom + payload */
};

struct daemon_client {
	struct daemon_state  *d;
	struct lws           *wsi;
	struct daemon_client *prev, *next;
	uint64_t serial;
	struct daemon_view view;
	unsigned char *rx;        /* message being reassembled */
	size_t   rx_len, rx_cap;
	struct daemon_msg *q[DAEMON_REPLY_QUEUE];
	size_t   q_head, q_len;
	bool     rx_paused;       /* lws rx flow control off: queue too full */
	bool     frame_due;       /* latest frame wins: built when writable */
	uint64_t seq, frames_skipped;
	uint64_t push_ns;         /* its last frame pushed by a report (server.c) */
	uint64_t next_frame_ns;   /* the tick's next frame not before */
};

int  daemon_client_callback(struct lws *wsi, enum lws_callback_reasons reason,
    void *user, void *in, size_t len);
/* Copy an encoded message into a send buffer with LWS_PRE headroom. */
struct daemon_msg *daemon_msg_new(const void *data, size_t len);
/* Encode the client's next frame into sb (cleared first). */
void daemon_frame_encode(struct daemon_state *d, struct daemon_client *c,
    msgpack_sbuffer *sb);
/* Encode the hello (version + targets) into sb (cleared first). */
void daemon_hello_encode(struct daemon_state *d, msgpack_sbuffer *sb);

/* ---- reports (report.c) ---- */

/* Plain-text report of a session: header, then every function by total. */
char *daemon_report_format(struct daemon_session *s, uint64_t now_ns,
    uint64_t wall_ms, size_t *len);
/* Write text atomically as DIR/hookscope-<pid>-<YYYYmmdd-HHMMSS>.txt;
 * *path is the final name.  0, or -1 with err filled and no file left. */
int  daemon_report_write(const char *dir, int32_t pid, uint64_t wall_ms,
    const char *text, size_t len, char **path, char *err, size_t errlen);
/* report_write.c: the same as DIR/NAME-<YYYYmmdd-HHMMSS>EXT; NAME must pass
 * daemon_report_name_ok (it cannot leave DIR). */
int  daemon_report_save(const char *dir, const char *name, const char *ext,
    uint64_t wall_ms, const char *text, size_t len, char **path, char *err,
    size_t errlen);
/* mkdir -p, mode 0700 for what it creates; 0 or -1 with errno. */
int  daemon_mkdirs(const char *dir);
/* 0 when name is a plain file name of [A-Za-z0-9._-] not starting with '.',
 * else -1 with err filled. */
int  daemon_report_name_ok(const char *name, char *err, size_t errlen);
/* metrics.c: the websocket protocol's callback, answering GET /metrics over
 * HTTP on the same port and passing everything else to the client callback. */
int  daemon_http_callback(struct lws *wsi, enum lws_callback_reasons reason,
    void *user, void *in, size_t len);

/* ---- starting a target (run.c) ---- */

/* The agent library to preload; NULL with err filled if none exists. */
char *daemon_run_agent_path(const char *opt_agent, char *err, size_t errlen);
/* fork + exec PROG with the agent preloaded; child pid, or -1 with err. */
pid_t daemon_run_spawn(const struct daemon_opts *o, const char *agent,
    char *err, size_t errlen);
/* Text for a wait status: "exit status 0", "killed by signal 9 (Killed)". */
void daemon_run_status_str(int status, char *buf, size_t len);

/* ---- access control (access.c) ---- */

enum { DAEMON_OPT_TOKEN = 'k', DAEMON_OPT_TOKEN_FILE = 'K' };
/* --token / --token-file into o->token; 0 or -1 with err. */
int  daemon_access_opt(struct daemon_opts *o, int c, const char *arg, char *err, size_t errlen);
/* A non-loopback --listen without a token: -1 with err. */
int  daemon_access_check_opts(const struct daemon_opts *o, char *err, size_t errlen);
/* Is this peer address (lws_get_peer_simple) outside loopback? */
bool daemon_access_peer_remote(const char *peer);
/* lws FILTER callbacks: 0 lets the connection in, -1 drops it (token). */
int  daemon_access_filter(struct lws *wsi);
/* attach, detach, ps, dump from a remote client: -1 with msg set unless allowed. */
struct daemon_cmdctx;
int  daemon_access_remote_cmd(struct daemon_cmdctx *x, const char *what);
/* An accepted agent connection: 0 when its uid may feed us, else -1 (logged). */
int  daemon_access_agent(int fd);

/* paths.c: a funcs record's paths into p (baseline: a new connection's
 * first record, whose ids start afresh); reset zeroes the figures; a path's
 * function name (buf for an unnamed one). */
void daemon_paths_record(struct daemon_paths *p, const struct proto_agent_rec *r, bool baseline);
void daemon_paths_reset(struct daemon_paths *p);
void daemon_paths_free(struct daemon_paths *p);
const char *daemon_path_name(const struct daemon_session *s, const struct daemon_path *x,
    char *buf, size_t len);
/* A frame's paths (heap; the names of unnamed ones in *hex, heap too):
 * the top paths by inclusive time and their ancestors, in id order. */
#define DAEMON_FRAME_PATHS 200
struct proto_path *daemon_paths_frame(const struct daemon_session *s, size_t top, size_t *n,
    char (**hex)[24]);

#endif
