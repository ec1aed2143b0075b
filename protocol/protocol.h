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

/* ---- frame rate (fps.c) ---- */

#define PROTO_FPS_BIN_NS    100000000ull  /* one history bin: 100 ms */
#define PROTO_FPS_BINS      600           /* bins sent: the last 60 s */
#define PROTO_FPS_WORST     5             /* worst frames kept per stream */
#define PROTO_MAX_STREAMS   16            /* frame streams in one message */
#define PROTO_FPS_RECENT    512           /* recent frames of a stream in one record */

/* Histogram levels of frame times (doc/protocol.md): normal <= budget <
 * middle <= high_ns < high <= frozen_ns < frozen. */
enum proto_fps_level {
	PROTO_FPS_NORMAL, PROTO_FPS_MIDDLE, PROTO_FPS_HIGH, PROTO_FPS_FROZEN,
	PROTO_FPS_LEVELS
};

/* One of the longest frames: its time and when it was presented. */
struct proto_fps_worst {
	uint64_t ns;                      /* frame time */
	uint64_t at_ns;                   /* presentation, agent monotonic clock */
	uint64_t time_ms;                 /* the same as wall clock (frames only) */
};

/* The frames one thread presents on one surface (or one hookscope_frame name). */
struct proto_fps_stream {
	uint32_t id;                      /* agent-assigned, stable for the process */
	int32_t  tid;                     /* presenting thread */
	char    *api;                     /* "glx", "egl", "vulkan", "sdl", "app" */
	char    *name;                    /* surface handle (hex) or the app's name */
	uint64_t frames;                  /* presentations since start or reset */
	uint64_t jank;                    /* frame times over the budget */
	uint64_t dropped;                 /* estimate: sum of floor((t - budget) / budget) */
	uint64_t lost;                    /* frames counted whose time is unknown */
	uint64_t levels[PROTO_FPS_LEVELS];
	double   fps;                     /* frames in the last complete second */
	uint64_t p50_ns, p90_ns, p99_ns, max_ns;  /* over the sliding window */
	uint64_t window;                  /* frame times in that window */
	size_t   nworst;
	struct proto_fps_worst worst[PROTO_FPS_WORST];  /* longest first */
	uint64_t bins_end_ns;             /* end of the newest bin (agent clock) */
	size_t   nbins;                   /* frames per 100 ms bin, oldest first */
	uint32_t *bins;
	/* agent -> daemon only: frames presented since the last record, oldest
	 * first, at most PROTO_FPS_RECENT (the daemon keeps a ring of them for
	 * the trace report; frames to clients never carry them) */
	size_t   nrecent;
	uint64_t *recent_end_ns;          /* presentation, agent monotonic clock */
	uint64_t *recent_ns;              /* frame time */
};

/* Frame-rate state of a target: thresholds in force and its streams. */
struct proto_fps {
	uint64_t budget_ns;               /* frame budget: longer frames are jank */
	uint64_t high_ns;                 /* middle/high level boundary */
	uint64_t frozen_ns;               /* high/frozen level boundary */
	size_t   nstreams;
	struct proto_fps_stream *streams;
};

/* Pack key "fps" and its map. */
void proto_pack_fps(msgpack_packer *pk, const struct proto_fps *f);
/* Decode the optional "fps" map of root into f (zeroed first; left empty
 * when absent).  On error f holds what was decoded so far (free it). */
int  proto_decode_fps(const msgpack_object *root, struct proto_fps *f,
    char *err, size_t errlen);
/* Deep copy of src into dst (dst's old contents are not freed). */
void proto_fps_copy(struct proto_fps *dst, const struct proto_fps *src);
void proto_fps_free(struct proto_fps *f);

/* ---- threads and thread pools (threads.c) ---- */

#define PROTO_MAX_THREADS   512         /* thread entries in one map */
#define PROTO_MAX_TSITES    128         /* creation sites in one map */
#define PROTO_MAX_POOLS     32          /* pools in one map */
#define PROTO_MAX_STACK     16          /* frames of a creation stack */
#define PROTO_THR_HISTORY   60          /* live-thread samples, one per second */

/* A code address with its name: "name+off (module)". */
struct proto_thr_frame {
	uint64_t addr;
	char    *name;                    /* function, "" when unknown */
	char    *module;                  /* basename, "" when unknown */
	uint64_t off;                     /* addr - the function's first byte */
};

/* One thread of the target (not the agent's). */
struct proto_thr_thread {
	uint32_t id;                      /* agent record index; 0 = main */
	int32_t  tid;                     /* 0 until it ran */
	int32_t  creator;                 /* tid of the creating thread */
	uint32_t site;                    /* creation site id, 0 = none (main) */
	uint32_t pool;                    /* id of the pool whose tasks it ran, 0 */
	char    *name;                    /* comm */
	char    *state;                   /* running, detached, exited, joined, leaked */
	uint64_t start_ns, end_ns;        /* agent monotonic; end 0 while alive */
	uint64_t cpu_ns;                  /* user+sys */
	double   cpu_pct;                 /* over the agent's last interval */
};

/* Threads created by one start routine from one call site. */
struct proto_thr_site {
	uint32_t id;
	struct proto_thr_frame start;     /* start routine */
	uint64_t created, live;
	size_t   nstack;                  /* creation stack, caller first */
	struct proto_thr_frame *stack;
};

/* A thread pool: "gthreadpool", "libuv". */
struct proto_thr_pool {
	uint32_t id;
	char    *kind;
	struct proto_thr_frame func;      /* the task function (GLib), addr 0 */
	int64_t  size;                    /* max threads, -1 unlimited */
	uint64_t workers;                 /* live threads that ran its tasks */
	uint64_t pushed, done;            /* tasks queued, tasks finished */
	uint64_t wait_ns, wait_max_ns;    /* queue wait: sum, longest */
	uint64_t run_ns, run_max_ns;      /* run time: sum, longest */
	bool     freed;                   /* g_thread_pool_free was called */
};

struct proto_threads {
	uint64_t time_ns;                 /* agent monotonic clock of the figures */
	uint64_t created, exited, live;   /* target threads; live includes main */
	uint64_t other_live;              /* live tasks of unknown origin */
	uint64_t agent_created, agent_live, agent_cpu_ns;  /* the agent's own */
	uint64_t dropped;                 /* threads past the agent's record cap */
	double   created_per_s;           /* daemon: over the last second */
	size_t   nhistory;                /* daemon: live per second, oldest first */
	uint32_t *history;
	size_t   nthreads;
	struct proto_thr_thread *threads;
	size_t   nsites;
	struct proto_thr_site *sites;
	size_t   npools;
	struct proto_thr_pool *pools;
};

/* Pack key "threading" and its map. */
void proto_pack_threads(msgpack_packer *pk, const struct proto_threads *t);
/* Decode the optional "threading" map of root into t (zeroed first). */
int  proto_decode_threads(const msgpack_object *root, struct proto_threads *t,
    char *err, size_t errlen);
void proto_threads_copy(struct proto_threads *dst, const struct proto_threads *src);
void proto_threads_free(struct proto_threads *t);
/* ---- power: held resources and charge (power.c) ---- */

#define PROTO_MAX_PWR_RES   256           /* resources in one map */
#define PROTO_MAX_PWR_CATS  32            /* categories in one map */

struct proto_pwr_res {
	char    *category;                /* wakelock, sensor, location, bluetooth-scan, alarm, ... */
	char    *name;                    /* the resource's tag */
	char    *api;                     /* the acquiring symbol */
	char    *item;                    /* power_profile item of its row, "-" none */
	double   ma;                      /* agent: the resource's own current (power=), -1 none */
	bool     refcount, held, leaked;  /* leaked: held at exit or past the hold threshold */
	int64_t  refs;
	uint64_t held_ns;                 /* the current hold so far, 0 when not held */
	uint64_t total_ns;                /* every hold, the current one included */
	uint64_t longest_ns;
	uint64_t acquires, releases, timeouts, unmatched, oneshots;
	int32_t  holder_tid, releaser_tid;
	size_t   nholder, nreleaser;      /* symbolized stacks, "func+0xoff (module)" */
	char   **holder, **releaser;
	double   mah;                     /* daemon: estimated charge, -1 not priced */
	double   price_ma;                /* daemon: the current used */
	char    *price_from;              /* daemon: "cpu.idle", "sensor power", "" */
};

/* Charge per category (daemon). */
struct proto_pwr_cat {
	char    *category;
	double   mah;
	uint64_t total_ns;
	uint32_t held;                    /* resources held now */
	uint32_t leaks;
};

struct proto_power {
	uint64_t time_ns;                 /* agent monotonic clock of the figures */
	uint64_t hold_ns;                 /* leak threshold */
	bool     exited;                  /* the final report: held now = leaked */
	char    *table;                   /* the API table loaded */
	uint64_t rows, errors, lost;      /* table rows, malformed rows, resources not kept */
	size_t   nres;
	struct proto_pwr_res *res;
	char    *profile;                 /* daemon: power_profile path, "" none */
	char    *warning;                 /* daemon: e.g. the AOSP dummy profile, "" */
	double   cpu_ma;                  /* daemon: CPU active current (estimate basis), -1 */
	size_t   ncats;
	struct proto_pwr_cat *cats;
};

/* Pack key "power" and its map. */
void proto_pack_power(msgpack_packer *pk, const struct proto_power *p);
/* Decode the optional "power" map of root into p (zeroed first). */
int  proto_decode_power(const msgpack_object *root, struct proto_power *p,
    char *err, size_t errlen);
void proto_power_copy(struct proto_power *dst, const struct proto_power *src);
void proto_power_free(struct proto_power *p);
/* ---- UI-thread blocks (block.c) ---- */

#define PROTO_MAX_BLOCKS    16            /* blocks in one message: the most recent */
#define PROTO_BLOCK_STACKS  8             /* distinct stacks of one block, at most */
#define PROTO_BLOCK_FRAMES  32            /* frames of one stack, at most */

/* One frame of a symbolized stack. */
struct proto_block_frame {
	uint64_t addr;                    /* interrupted pc (first frame), else return address */
	char    *func;                    /* function name, "" when unknown */
	uint64_t off;                     /* addr - the function's first byte */
	char    *module;                  /* basename of the module, "" when none */
	char    *file;                    /* source file (debug info), "" when unknown */
	uint32_t line;                    /* source line, 0 when unknown */
};

/* One distinct stack of a block (same functions, innermost first). */
struct proto_block_stack {
	uint64_t samples;                 /* samples that had this stack */
	size_t   nframes;
	struct proto_block_frame *frames;
};

/* One message of the UI thread that ran longer than the threshold. */
struct proto_block {
	uint32_t id;                      /* agent-assigned, increasing */
	int32_t  tid;                     /* the UI thread */
	uint64_t start_ns;                /* message start, agent monotonic clock */
	uint64_t time_ms;                 /* the same as wall clock (frames only) */
	uint64_t dur_ns;                  /* the message's length (so far, while running) */
	bool     ended;                   /* false while the message still runs */
	uint64_t samples;                 /* stacks sampled */
	uint64_t lost;                    /* samples that could not be taken or kept */
	size_t   nstacks;                 /* most samples first */
	struct proto_block_stack *stacks;
};

/* Block detection state of a target and its most recent blocks. */
struct proto_blocks {
	uint64_t threshold_ns;            /* a message longer than this is a block */
	uint64_t sample_ns;               /* stack sampling interval during a block */
	int32_t  ui_tid;                  /* the UI thread now, 0 = not found */
	char    *ui;                      /* the selection: "main", a tid or a thread name */
	uint64_t count;                   /* blocks since start or reset */
	size_t   nblocks;                 /* newest first */
	struct proto_block *blocks;
};

/* Pack key "blocks" and its map. */
void proto_pack_blocks(msgpack_packer *pk, const struct proto_blocks *b);
/* Decode the optional "blocks" map of root into b (zeroed first; left empty
 * when absent).  On error b holds what was decoded so far (free it). */
int  proto_decode_blocks(const msgpack_object *root, struct proto_blocks *b,
    char *err, size_t errlen);
/* Deep copy of one block into dst (dst's old contents are not freed). */
void proto_block_copy(struct proto_block *dst, const struct proto_block *src);
void proto_block_free(struct proto_block *b);
void proto_blocks_free(struct proto_blocks *b);
/* One stack {samples, frames} (also the stack of a slow IPC call). */
void proto_block_stack_pack(msgpack_packer *pk, const struct proto_block_stack *s);
int  proto_block_stack_decode(const msgpack_object *o, struct proto_block_stack *s,
    char *err, size_t errlen);
void proto_block_stack_copy(struct proto_block_stack *dst, const struct proto_block_stack *src);
void proto_block_stack_free(struct proto_block_stack *s);

/* ---- IPC: calls to other processes (ipc.c) ---- */

#define PROTO_MAX_IPC_EPS   256           /* endpoints of a target */
#define PROTO_MAX_IPC_SLOW  32            /* slow calls in one map: the most recent */

/* What calls talk to: a peer (and method) of one kind. */
struct proto_ipc_ep {
	uint32_t id;                      /* agent-assigned, stable */
	char    *kind;                    /* "unix", "unix-dgram", "pipe", "fifo", "mq", "dbus", "sd-bus", "binder" */
	char    *name;                    /* peer path, "@abstract", "<- local path", "pipe:[ino]", queue, destination */
	char    *method;                  /* "interface.member" (D-Bus), "" */
	int32_t  peer_pid;                /* 0 when unknown */
	char    *peer_comm;               /* "" when unknown */
	uint64_t sends, recvs, calls, connects;   /* operations by direction */
	uint64_t bytes_out, bytes_in;
	uint64_t total_ns, max_ns;        /* time blocked in those calls */
	uint64_t ui_calls, ui_ns;         /* of which on the UI thread */
	uint64_t slow;                    /* operations longer than the threshold */
	double   ops_per_s;               /* frames only: over the last second */
};

/* One operation longer than the threshold, with the calling stack. */
struct proto_ipc_slow {
	uint32_t id;                      /* agent-assigned, increasing */
	uint32_t ep;                      /* endpoint id */
	char    *op;                      /* "recv", "sd_bus_call", ... */
	int32_t  tid;
	bool     ui;                      /* on the UI thread */
	uint64_t start_ns;                /* agent monotonic clock */
	uint64_t time_ms;                 /* wall clock (frames only) */
	uint64_t dur_ns;
	struct proto_block_stack stack;   /* innermost first; samples = 1 */
};

/* The "ipc" map: threshold, endpoints, recent slow calls (newest first). */
struct proto_ipc {
	uint64_t threshold_ns;
	uint64_t slow_count;              /* slow calls since start or reset */
	size_t   neps;
	struct proto_ipc_ep *eps;
	size_t   nslow;
	struct proto_ipc_slow *slow;
};

/* Pack key "ipc" and its map. */
void proto_pack_ipc(msgpack_packer *pk, const struct proto_ipc *p);
/* Decode the optional "ipc" map of root into p (zeroed first).  On error p
 * holds what was decoded so far (free it). */
int  proto_decode_ipc(const msgpack_object *root, struct proto_ipc *p, char *err, size_t errlen);
void proto_ipc_ep_copy(struct proto_ipc_ep *dst, const struct proto_ipc_ep *src);
void proto_ipc_ep_free(struct proto_ipc_ep *e);
void proto_ipc_slow_copy(struct proto_ipc_slow *dst, const struct proto_ipc_slow *src);
void proto_ipc_slow_free(struct proto_ipc_slow *s);
void proto_ipc_free(struct proto_ipc *p);

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
};

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
	size_t   ntargets;
	struct proto_target *targets;
	size_t   nfuncs;
	struct proto_func *funcs;
	size_t   nsites;                  /* hook back-ends of the target */
	struct proto_sites *sites;
	struct proto_fps fps;             /* frame rate of the target */
	struct proto_threads thr;         /* threads and pools ("threading") */
	struct proto_blocks blocks;       /* UI-thread blocks of the target */
	struct proto_ipc ipc;             /* IPC endpoints and slow calls ("ipc") */
	struct proto_power power;         /* power resources and charge ("power") */
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

/* ---- agent <-> daemon (agent.c) ---- */

enum proto_agent_type {
	/* agent -> daemon */
	PROTO_AG_HELLO = 1,   /* who I am */
	PROTO_AG_SYMS,        /* names for addresses seen for the first time */
	PROTO_AG_FUNCS,       /* cumulative figures of functions that changed */
	PROTO_AG_BYE,         /* the target is exiting; figures are final */
	PROTO_AG_SITES,       /* hook-site statistics per back-end */
	/* daemon -> agent */
	PROTO_AG_LEVEL,       /* set the monitoring level */
	PROTO_AG_RESET,       /* zero all figures */
	PROTO_AG_THRESHOLD,   /* set a named threshold */
	PROTO_AG_FPS,         /* agent -> daemon: frame-rate streams */
	PROTO_AG_DETACH,      /* remove every hook and unload (attached agents) */
	PROTO_AG_THREADS,     /* agent -> daemon: threads and pools */
	PROTO_AG_BLOCKS,      /* agent -> daemon: UI-thread blocks that changed */
	PROTO_AG_UI_THREAD,   /* daemon -> agent: select the UI thread (name) */
	PROTO_AG_IPC,         /* agent -> daemon: IPC endpoints and new slow calls */
	PROTO_AG_POWER,       /* agent -> daemon: power resources (the ledger) */
};

struct proto_ag_hello {
	int32_t  pid;
	char    *exe;                     /* /proc/self/exe */
	char    *build_id;                /* hex, "" if none */
	char    *cmdline;                 /* argv joined by spaces */
	uint8_t  level;                   /* level in force */
	uint64_t overhead_ps;             /* calibrated cost of one hooked call */
	bool     attached;                /* injected into a running process (can detach) */
};

struct proto_ag_sym {
	uint64_t addr;                    /* runtime address */
	char    *name;
	char    *module;                  /* path of the module */
	uint64_t offset;                  /* addr - module load base */
	uint64_t size;                    /* 0 if unknown */
};

struct proto_ag_func {
	uint64_t addr;
	uint64_t calls;
	uint64_t total_ns;
	uint64_t self_ns;
	uint64_t max_ns;
	uint64_t slow;
	uint64_t running_ns;              /* in calls still running, at time_ns */
};

struct proto_agent_rec {
	enum proto_agent_type type;
	struct proto_ag_hello hello;      /* HELLO */
	size_t nsyms;                     /* SYMS */
	struct proto_ag_sym *syms;
	uint64_t time_ns;                 /* FUNCS: agent monotonic clock */
	uint32_t threads;                 /* FUNCS: threads seen so far */
	uint64_t dropped;                 /* FUNCS: events dropped so far */
	size_t nfuncs;                    /* FUNCS */
	struct proto_ag_func *funcs;
	size_t nsites;                    /* SITES */
	struct proto_sites *sites;
	uint8_t level;                    /* LEVEL */
	char   *name;                     /* THRESHOLD, UI_THREAD */
	int64_t value;                    /* THRESHOLD */
	struct proto_fps fps;             /* FPS (time_ns set too) */
	struct proto_threads thr;         /* THREADS */
	struct proto_blocks blocks;       /* BLOCKS (time_ns set too) */
	struct proto_ipc ipc;             /* IPC (time_ns set too) */
	struct proto_power power;         /* POWER */
};

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
