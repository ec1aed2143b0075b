/*
 * protocol.h - the wire formats of hookscope, in one place.
 *
 * Two links, both carrying one msgpack map per message (doc/protocol.md):
 *   agent  <-> daemon : unix stream socket, each record prefixed by its length
 *                       as a 4-byte big-endian integer (PROTO_AGENT_HDR).
 *   daemon <-> client : one binary websocket message per map.
 *
 * Everything that crosses a process boundary goes through proto_doc_parse(),
 * which validates the raw bytes (size cap, nesting cap, every count and length
 * checked against the bytes left, no trailing bytes) before msgpack-c sees
 * them.  Decoders copy what they keep into heap strings owned by the decoded
 * struct; each decoded struct has a matching _free().  Unknown keys are
 * ignored, so a newer peer can add fields.
 *
 * The protocol library also hosts the few helpers all three programs share
 * (xmalloc and friends, the clocks, the socket path rule, demangling).
 */
#ifndef HOOKSCOPE_PROTOCOL_H
#define HOOKSCOPE_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <msgpack.h>

#include "parts.h"                  /* the collectors' parts: fps_wire.h, ... */

#define PROTO_VERSION       1           /* "v" in every message */
#define PROTO_MAX_MSG       (1u << 20)  /* cap for a client or agent message */
#define PROTO_MAX_FRAME     (8u << 20)  /* cap for a daemon -> client message */
#define PROTO_MAX_DEPTH     8           /* nesting cap of any message */
#define PROTO_CHECK_MAX_OBJECTS (256u * 1024u)  /* objects in a message: bounds msgpack-c's zone use */
#define PROTO_AGENT_HDR     4           /* length prefix of an agent record */
#define PROTO_ERR_LEN       256         /* size of error-string buffers */
#define PROTO_MAX_ARGS      16          /* arguments of one command */

/* ---- shared helpers (xmalloc.c, clock.c) ---- */

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
uint64_t proto_now_ns(void);            /* CLOCK_MONOTONIC in ns */
uint64_t proto_wall_ms(void);           /* CLOCK_REALTIME in ms */
/* The demangled form (malloc'd) of a C++ symbol name through cxa_demangle
 * (libstdc++'s __cxa_demangle), or NULL: not mangled, cannot be demangled,
 * or cxa_demangle NULL (demangle.c). */
char *proto_demangle(void *cxa_demangle, const char *name);
/* The daemon's unix socket: $HOOKSCOPE_SOCKET, else $XDG_RUNTIME_DIR/hookscope.sock,
 * else /tmp/hookscope-<uid>.sock.  0, or -1 with errno ENAMETOOLONG when the
 * path does not fit len or a sockaddr_un. */
int proto_default_socket_path(char *buf, size_t len);
/* The attach file of process pid (doc/architecture.md, attach): what an agent
 * injected into a running process reads instead of the environment.  The
 * daemon writes it through /proc/PID/root, so this is the path inside the
 * target's own file system view. */
#define PROTO_ATTACH_DIR "/tmp"
int proto_attach_conf_path(int pid, char *buf, size_t len);

/* ---- validation and generic access (check.c, doc.c) ---- */

/* Validate raw msgpack bytes: exactly one object of at most cap bytes, no
 * trailing bytes, nesting at most PROTO_MAX_DEPTH, every container count and
 * string/bin length no larger than the bytes left.  0, or -1 with err filled. */
int proto_check(const void *buf, size_t len, size_t cap, char *err, size_t errlen);

/* A validated and unpacked message whose root is a map. */
struct proto_doc {
	msgpack_zone   zone;
	msgpack_object root;
	bool           zone_live;
};

/* proto_check() + unpack + "root is a map with v == PROTO_VERSION". */
int proto_doc_parse(struct proto_doc *doc, const void *buf, size_t len,
    size_t cap, char *err, size_t errlen);
void proto_doc_free(struct proto_doc *doc);

/* Map lookups by string key; NULL when absent.  The typed getters return 0,
 * or -1 with err filled when the key is missing (if required) or has the
 * wrong type; an absent optional key leaves *out untouched and returns 0. */
const msgpack_object *proto_map_get(const msgpack_object *map, const char *key);
int proto_get_u64(const msgpack_object *map, const char *key, bool required,
    uint64_t *out, char *err, size_t errlen);
int proto_get_i64(const msgpack_object *map, const char *key, bool required,
    int64_t *out, char *err, size_t errlen);
int proto_get_f64(const msgpack_object *map, const char *key, bool required,
    double *out, char *err, size_t errlen);
int proto_get_bool(const msgpack_object *map, const char *key, bool required,
    bool *out, char *err, size_t errlen);
/* *out is a fresh heap copy (NUL-terminated; embedded NULs rejected). */
int proto_get_str(const msgpack_object *map, const char *key, bool required,
    char **out, char *err, size_t errlen);
/* An optional string that is "" (heap) when absent. */
int proto_get_str_or_empty(const msgpack_object *map, const char *key, char **out,
    char *err, size_t errlen);
/* An unsigned field of at most UINT32_MAX (an id). */
int proto_get_u32(const msgpack_object *map, const char *key, bool required, uint32_t *out,
    char *err, size_t errlen);
/* An optional process or thread id: 0 .. INT32_MAX. */
int proto_get_pid(const msgpack_object *map, const char *key, int32_t *out, char *err,
    size_t errlen);
/* proto_map_get for a struct's keys in turn, each key once: while the map
 * holds them in the table's order (as a map packed from the table does),
 * each is the kv at *hint and *hint moves past it; otherwise every kv is
 * scanned.  Start with *hint = 0. */
const msgpack_object *proto_map_get_next(const msgpack_object *map, const char *key,
    uint32_t *hint);
/* The getters' conversions of a value already looked up (key names it in
 * err): 0, or -1 for a wrong type or range. */
int proto_val_u64(const msgpack_object *o, const char *key, uint64_t *out, char *err,
    size_t errlen);
int proto_val_u32(const msgpack_object *o, const char *key, uint32_t *out, char *err,
    size_t errlen);
int proto_val_i64(const msgpack_object *o, const char *key, int64_t *out, char *err,
    size_t errlen);
int proto_val_f64(const msgpack_object *o, const char *key, double *out, char *err,
    size_t errlen);
int proto_val_bool(const msgpack_object *o, const char *key, bool *out, char *err,
    size_t errlen);
int proto_val_str(const msgpack_object *o, const char *key, char **out, char *err,
    size_t errlen);
/* *out points at the array inside the doc (not copied). */
int proto_get_array(const msgpack_object *map, const char *key, bool required,
    const msgpack_object_array **out, char *err, size_t errlen);
/* The optional array key of map with at most max entries (*out NULL when
 * absent). */
int proto_get_array_max(const msgpack_object *map, const char *key, uint32_t max,
    const msgpack_object_array **out, char *err, size_t errlen);
/* The optional array key of map of at most max counts (each <= UINT32_MAX)
 * into a fresh *out of *n entries (left NULL, 0 when absent). */
int proto_get_u32_array(const msgpack_object *map, const char *key, uint32_t max,
    uint32_t **out, size_t *n, char *err, size_t errlen);

/* Packing helpers: a key then a value, for building maps. */
void proto_pack_str(msgpack_packer *pk, const char *s);
void proto_pack_kv_str(msgpack_packer *pk, const char *key, const char *val);
void proto_pack_kv_u64(msgpack_packer *pk, const char *key, uint64_t val);
void proto_pack_kv_i64(msgpack_packer *pk, const char *key, int64_t val);
void proto_pack_kv_f64(msgpack_packer *pk, const char *key, double val);
void proto_pack_kv_bool(msgpack_packer *pk, const char *key, bool val);

/* ---- hook-site statistics (sites.c) ---- */

#define PROTO_MAX_BACKENDS  8           /* back-ends in one "sites" map */
#define PROTO_MAX_REASONS   32          /* skip reasons of one back-end */

struct proto_site_reason {
	char    *key;                     /* short key: "short", "decode", ... */
	uint64_t count;
};

/* The sites of one hook back-end ("finstrument", "patch"). */
struct proto_sites {
	char    *backend;
	uint64_t active;                  /* hooked and timed at the level in force */
	uint64_t disabled;                /* hooked, switched off by the level */
	uint64_t skipped;                 /* could not be hooked */
	size_t   nreasons;
	struct proto_site_reason *reasons;   /* why skipped, with counts */
};

/* Pack key "sites" and the map {backend: {active, disabled, skipped, reasons}}. */
void proto_pack_sites(msgpack_packer *pk, const struct proto_sites *s, size_t n);
/* The map only, without the key. */
void proto_pack_sites_value(msgpack_packer *pk, const struct proto_sites *s, size_t n);
/* The same map as JSON under key (protocol/json.h). */
struct proto_json;
void proto_sites_json(struct proto_json *j, const char *key, const struct proto_sites *s, size_t n);
/* Decode the optional "sites" map of root into a fresh vector (NULL, 0 when
 * absent).  On error *out holds what was decoded so far (free it). */
int  proto_decode_sites(const msgpack_object *root, struct proto_sites **out, size_t *n,
    char *err, size_t errlen);
struct proto_sites *proto_sites_dup(const struct proto_sites *s, size_t n);
void proto_sites_free(struct proto_sites *s, size_t n);

/* ---- daemon <-> client (client.c, frame.c) ---- */

/* client -> daemon: {v, t:"cmd", id, cmd, args:[str...]} */
struct proto_cmd {
	uint64_t id;                      /* echoed in the reply */
	bool     has_id;                  /* id was readable (kept on decode errors) */
	char    *cmd;                     /* "level", "reset", "dump", ... */
	int      argc;
	char    *argv[PROTO_MAX_ARGS];
};

enum proto_target_state {
	PROTO_TARGET_LIVE = 0,            /* agent connected */
	PROTO_TARGET_LOST,                /* agent gone, process still alive */
	PROTO_TARGET_EXITED,              /* process gone: final figures */
	PROTO_TARGET_DETACHED,            /* attached agent unloaded, process runs on */
};
#define PROTO_TARGET_NSTATES (PROTO_TARGET_DETACHED + 1)

/* One target session as the daemon lists it. */
struct proto_target {
	int32_t  pid;
	char    *name;                    /* short name (comm) */
	char    *exe;                     /* executable path */
	uint8_t  state;                   /* enum proto_target_state */
	uint8_t  level;                   /* monitoring level 0-4 */
	uint64_t started_ms;              /* wall clock, ms since the epoch */
	uint64_t ended_ms;                /* 0 while live */
};

/* One row of the hot-functions table. */
struct proto_func {
	char    *name;                    /* symbol, or "0x<addr>" if unknown */
	char    *module;                  /* basename of the module */
	uint64_t addr;                    /* runtime address in the target */
	uint64_t calls;                   /* exact, since start or reset */
	double   calls_per_s;             /* over the last second */
	uint64_t total_ns;                /* inclusive, overhead removed */
	uint64_t self_ns;                 /* exclusive, overhead removed */
	uint64_t avg_ns;                  /* total_ns / calls */
	uint64_t max_ns;                  /* longest single call */
	uint64_t slow;                    /* calls longer than slow_ms */
	double   share;                   /* self_ns / all self time, 0..1 */
	uint64_t running_ns;              /* time so far in calls not yet returned */
	/* How the function is watched (the overhead budget, enum proto_fmode). */
	uint8_t  mode;
	bool     calls_est;               /* calls (and calls_per_s) is an estimate */
	bool     time_est;                /* total/self/avg/max/slow are (partly) estimates */
	uint64_t mode_age_ms;             /* since the last change of mode; 0: never changed */
	uint32_t hook_ppm;                /* why: what timing it cost, per million of the
	                                   * target's CPU, when its mode was chosen */
};

/* One call path in a frame: the hottest paths of the session (by inclusive
 * time) and every ancestor of those, a parent before its children. */
struct proto_path {
	uint32_t id;                      /* the session's path id */
	uint32_t parent;                  /* parent's id + 1; 0: an outermost timed call */
	char    *func;                    /* the function's name, or "0x<addr>" */
	uint64_t calls;
	uint64_t incl_ns;                 /* inclusive, overhead removed */
	uint64_t self_ns;
};

/* A collector's part as a member of struct proto_frame and proto_agent_rec. */
#define PROTO_PART_MEMBER(nm, NM, wire, T, mem) T mem;

/* daemon -> client: periodic snapshot of one target session. */
struct proto_frame {
	uint64_t seq;                     /* per client, +1 per frame */
	uint64_t time_ms;                 /* daemon wall clock */
	int32_t  pid;                     /* target shown; 0 = none yet */
	char    *sort;                    /* key the rows are sorted by */
	uint64_t agent_age_ms;            /* since the agent's last report */
	uint64_t nfuncs_seen;             /* functions known in the session */
	uint64_t calls_total;             /* all calls of all functions */
	uint64_t self_total_ns;           /* all self time */
	uint64_t dropped;                 /* events the agent dropped */
	uint64_t overhead_ps;             /* agent's calibrated cost per call */
	uint32_t threads;                 /* threads the agent has seen */
	uint32_t cost_ppm;                /* the agent's hook cost, per million of the target's CPU */
	uint32_t cost_sampled_ppm;        /* the same as pc samples measure it (0: too few) */
	uint32_t cost_samples;            /* the samples behind it */
	uint32_t budget_ppm;              /* the overhead budget in force; 0 = off */
	uint64_t demoted;                 /* functions not timed (counted, sampled or off) */
	size_t   ntargets;
	struct proto_target *targets;
	size_t   nfuncs;
	struct proto_func *funcs;
	size_t   nsites;                  /* hook back-ends of the target */
	struct proto_sites *sites;
	size_t   npaths;                  /* call paths: the hottest and their ancestors */
	struct proto_path *paths;
	uint64_t paths_dropped;           /* calls whose path the agent could not keep */
	PROTO_PARTS(PROTO_PART_MEMBER)    /* one per collector (parts.h) */
};

/* daemon -> client: answer to a proto_cmd (same id). */
struct proto_reply {
	uint64_t id;
	bool     ok;
	char    *msg;                     /* human-readable result or error */
	char    *data;                    /* optional payload (a report); may be NULL */
	size_t   data_len;
};

enum proto_msg_type {
	PROTO_MSG_HELLO = 1,              /* {version, targets} on connect */
	PROTO_MSG_FRAME,
	PROTO_MSG_REPLY,
	PROTO_MSG_ERROR,                  /* {msg}: a message that had no id */
};

/* Any daemon -> client message, decoded. */
struct proto_server_msg {
	enum proto_msg_type type;
	char   *version;                  /* hello */
	size_t  ntargets;                 /* hello */
	struct proto_target *targets;     /* hello */
	struct proto_frame frame;         /* frame */
	struct proto_reply reply;         /* reply */
	char   *error;                    /* error */
};

void proto_encode_cmd(msgpack_sbuffer *sb, const struct proto_cmd *c);
int  proto_decode_cmd(const void *buf, size_t len, struct proto_cmd *c,
    char *err, size_t errlen);
void proto_cmd_free(struct proto_cmd *c);

void proto_encode_hello(msgpack_sbuffer *sb, const char *version,
    const struct proto_target *t, size_t n);
void proto_encode_frame(msgpack_sbuffer *sb, const struct proto_frame *f);
void proto_encode_reply(msgpack_sbuffer *sb, const struct proto_reply *r);
void proto_encode_error(msgpack_sbuffer *sb, const char *msg);
int  proto_decode_server(const void *buf, size_t len,
    struct proto_server_msg *m, char *err, size_t errlen);
void proto_server_msg_free(struct proto_server_msg *m);

const char *proto_target_state_name(int state);   /* "live", ... */

/* The field tables of the frame and its rows (frame.c), of agent records' rows (agent.c). */
struct proto_struct;
extern const struct proto_struct proto_frame_desc, proto_func_desc, proto_target_desc;
extern const struct proto_struct proto_ag_sym_desc, proto_ag_func_desc, proto_ag_path_desc;

/* ---- agent <-> daemon (agent.c) ---- */

/* The wire value of every record type: never change or reuse one. */
#define PROTO_PART_AG_TYPE(nm, NM, wire, T, mem) PROTO_AG_##NM = (wire),
enum proto_agent_type {
	/* agent -> daemon */
	PROTO_AG_HELLO = 1,   /* who I am */
	PROTO_AG_SYMS = 2,    /* names for addresses seen for the first time */
	PROTO_AG_FUNCS = 3,   /* cumulative figures of functions that changed */
	PROTO_AG_BYE = 4,     /* the target is exiting; figures are final */
	PROTO_AG_SITES = 5,   /* hook-site statistics per back-end */
	/* daemon -> agent */
	PROTO_AG_LEVEL = 6,   /* set the monitoring level */
	PROTO_AG_RESET = 7,   /* zero all figures */
	PROTO_AG_THRESHOLD = 8,   /* set a named threshold */
	PROTO_AG_DETACH = 10, /* remove every hook and unload (attached agents) */
	PROTO_AG_UI_THREAD = 13,  /* select the UI thread (name) */
	PROTO_AG_BUDGET = 16, /* set the overhead budget (budget_ppm, 0 = off) */
	PROTO_AG_REQUEST = 17,    /* run a one-off job (name: "leaks") */
	/* agent -> daemon: each collector's part (parts.h) */
	PROTO_PARTS(PROTO_PART_AG_TYPE)
};

struct proto_ag_hello {
	int32_t  pid;
	char    *exe;                     /* /proc/self/exe */
	char    *build_id;                /* hex, "" if none */
	char    *cmdline;                 /* argv joined by spaces */
	uint8_t  level;                   /* level in force */
	uint64_t overhead_ps;             /* calibrated cost of one hooked call */
	bool     attached;                /* injected into a running process (can detach) */
	uint32_t budget_ppm;              /* overhead budget in force, per million; 0 = off */
};

struct proto_ag_sym {
	uint64_t addr;                    /* runtime address */
	char    *name;
	char    *module;                  /* path of the module */
	uint64_t offset;                  /* addr - module load base */
	uint64_t size;                    /* 0 if unknown */
};

/* How closely a function is watched now: the overhead budget's choice
 * (doc/architecture.md, "the overhead budget").  Wire values: never change. */
enum proto_fmode {
	PROTO_FMODE_TIMED = 0,            /* every call counted and timed */
	PROTO_FMODE_COUNTED = 1,          /* every call counted; times estimated */
	PROTO_FMODE_SAMPLED = 2,          /* timed in short windows; count and times estimated */
	PROTO_FMODE_OFF = 3,              /* not watched; figures stay as they were */
};
#define PROTO_FMODE_N 4
/* "timed", "counted", "sampled", "off"; NULL out of range. */
const char *proto_fmode_name(unsigned mode);
/* The mode of a name, or -1. */
int proto_fmode_parse(const char *name);

/* The overhead budget (budget.c): the agent keeps its hooks' cost within
 * it, in parts per million of the target's CPU time; 0 = off. */
#define PROTO_BUDGET_DEFAULT_PPM 50000    /* 5%: the agent's default */
/* "off", or a percentage over 0 up to 100 ("5", "0.5", "5%") into *ppm;
 * 0, or -1 with err saying what is expected. */
int proto_budget_parse(const char *s, uint32_t *ppm, char *err, size_t errlen);
/* "5%", "0.5%", "12%" or "off" (0) into buf. */
const char *proto_budget_str(uint32_t ppm, char *buf, size_t len);
/* A share in ppm as a percentage: "3.1%", "0.05%", "12%" into buf. */
const char *proto_ppm_str(uint32_t ppm, char *buf, size_t len);

struct proto_ag_func {
	uint64_t addr;
	uint64_t calls;
	uint64_t total_ns;
	uint64_t self_ns;
	uint64_t max_ns;
	uint64_t slow;
	uint64_t running_ns;              /* in calls still running, at time_ns */
	uint8_t  mode;                    /* enum proto_fmode in force */
	bool     calls_est;               /* calls is an estimate */
	bool     time_est;                /* total/self/max/slow are (partly) estimates */
	uint64_t mode_since_ns;           /* agent clock at the last change of mode; 0: never changed */
	uint32_t hook_ppm;                /* why: what timing it cost, per million of the target's
	                                   * CPU, when the mode was last chosen (0: not known) */
};

/* One call path of the target (the timing collector's calling-context
 * tree, merged over its threads): a function reached through its parent
 * path.  ids are dense per agent connection, a parent's below its
 * children's. */
struct proto_ag_path {
	uint32_t id;
	uint32_t parent;                  /* parent's id + 1; 0: an outermost timed call */
	uint64_t addr;                    /* the function */
	uint64_t calls;
	uint64_t incl_ns;                 /* inclusive, overhead removed */
	uint64_t self_ns;
};

struct proto_agent_rec {
	enum proto_agent_type type;
	struct proto_ag_hello hello;      /* HELLO */
	size_t nsyms;                     /* SYMS */
	struct proto_ag_sym *syms;
	uint64_t time_ns;                 /* FUNCS: agent monotonic clock */
	uint32_t threads;                 /* FUNCS: threads seen so far */
	uint64_t dropped;                 /* FUNCS: events dropped so far */
	uint32_t cost_ppm;                /* FUNCS: the hooks' cost over the agent's last budget
	                                     window, per million of the target's CPU time */
	uint32_t budget_ppm;              /* FUNCS, BUDGET: the budget, per million; 0 = off */
	uint32_t ip_samples;              /* FUNCS: the program threads' recent pc samples */
	uint32_t ip_agent;                /* FUNCS: those whose pc was the agent's own code */
	size_t nfuncs;                    /* FUNCS */
	struct proto_ag_func *funcs;
	size_t npaths;                    /* FUNCS: the call paths that changed */
	struct proto_ag_path *paths;
	uint64_t paths_dropped;           /* FUNCS: calls whose path was not kept */
	bool paths_off;                   /* FUNCS: call paths are not tracked now */
	size_t nsites;                    /* SITES */
	struct proto_sites *sites;
	uint8_t level;                    /* LEVEL */
	char   *name;                     /* THRESHOLD, UI_THREAD, REQUEST */
	int64_t value;                    /* THRESHOLD */
	PROTO_PARTS(PROTO_PART_MEMBER)    /* a collector's record: its part (time_ns set too
	                                     when the part's ag_time says so) */
};

/* What a part's row takes from its PROTO_PARTS line (PROTO_PART_PLACE). */
#define PROTO_PART_PLACES(nm, NM, wire, T, mem) \
	PROTO_PART_AG_##nm = (wire), \
	PROTO_PART_FRAME_##nm = offsetof(struct proto_frame, mem), \
	PROTO_PART_REC_##nm = offsetof(struct proto_agent_rec, mem),
enum proto_part_place { PROTO_PARTS(PROTO_PART_PLACES) };

/* Each encoder appends one whole record, length prefix included. */
void proto_agent_encode(msgpack_sbuffer *sb, const struct proto_agent_rec *r);
/* buf/len: the record body, without the length prefix. */
int  proto_agent_decode(const void *buf, size_t len, struct proto_agent_rec *r,
    char *err, size_t errlen);
void proto_agent_rec_free(struct proto_agent_rec *r);
/* Read the big-endian length prefix at p (PROTO_AGENT_HDR bytes). */
uint32_t proto_agent_len(const void *p);

/* ---- access token (token.c; doc/protocol.md "Access control") ---- */

#define PROTO_TOKEN_MIN     16          /* characters of an access token */
#define PROTO_TOKEN_MAX     256
/* 0 when t is a usable token, else -1 with err filled. */
int  proto_token_valid(const char *t, char *err, size_t errlen);
/* The token on the first line of file path into buf; 0 or -1 with err. */
int  proto_token_read(const char *path, char *buf, size_t len, char *err, size_t errlen);
/* got[0..got_len) == want, in a time that depends on want's length only. */
bool proto_token_equal(const char *want, const char *got, size_t got_len);

#endif
