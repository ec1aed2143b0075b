/*
 * power.h - the power collector (internal): the declarative API table
 * (power_table.c, pure: the fuzz target links it alone), the generic import
 * wrappers the table's symbols are bound to (power_hooks.c), the ledger of
 * held resources (power_ledger.c) and the collector (power.c).
 * doc/power.md has the table format and the ledger's semantics.
 */
#ifndef HOOKSCOPE_POWER_H
#define HOOKSCOPE_POWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POWER_NAME_MAX    64          /* symbol, category, item, resource tag (with NUL) */
#define POWER_PATH_MAX    128         /* an fd path pattern */
#define POWER_ROWS_MAX    256         /* rows of one table */
#define POWER_HOLD_NS     120000000000ull   /* default leak threshold: 2 minutes */

enum power_role { POWER_ACQUIRE, POWER_ACQUIRE_TIMEOUT, POWER_RELEASE, POWER_ONESHOT };

/* Where a value comes from: an argument (index 0-5), the return value, a
 * constant, or the written buffer's words (write to an fd). */
enum power_src { POWER_SRC_NONE, POWER_SRC_ARG, POWER_SRC_RET, POWER_SRC_CONST, POWER_SRC_WORD };
/* How it is read. */
enum power_kind { POWER_K_INT, POWER_K_STR, POWER_K_PTR, POWER_K_BUF, POWER_K_PATH,
	POWER_K_BINDER };

struct power_val {
	enum power_src  src;
	enum power_kind kind;
	int             arg;          /* argument index, or word index for WORD */
	char            text[POWER_NAME_MAX];   /* CONST */
};

/* A row's condition: "argN==V", "argN!=V", "argN&MASK", "argN=STRING",
 * "argN@PATTERN" (argN is an fd whose path matches the fnmatch pattern),
 * "wordN=TEXT" (word N of the written buffer: see doc/power.md), "ret>=V",
 * "ret==V", "ret!=V". */
enum power_op { POWER_OP_EQ, POWER_OP_NE, POWER_OP_AND, POWER_OP_STREQ, POWER_OP_FD,
	POWER_OP_GE };
struct power_cond {
	enum power_src src;           /* ARG or RET */
	int            arg;
	enum power_op  op;
	int64_t        num;
	char           text[POWER_PATH_MAX];
};

#define POWER_CONDS_MAX 3

struct power_row {
	int             line;                     /* in the table file */
	char            symbol[POWER_NAME_MAX];
	enum power_role role;
	struct power_val res;                     /* the resource's tag */
	char            category[POWER_NAME_MAX]; /* wakelock, sensor, location, ... */
	bool            refcount;
	char            item[POWER_NAME_MAX];     /* power_profile item, "-" none */
	struct power_cond cond[POWER_CONDS_MAX];
	int             ncond;
	struct power_val timeout;                 /* acquire-timeout: the hold's length */
	uint64_t        timeout_unit_ns;          /* ns per unit of timeout */
	char            power_fn[POWER_NAME_MAX]; /* "power=F": float F(ptr res) in mA */
};

struct power_table {
	struct power_row *rows;
	int               nrows;
	int               errors;                 /* malformed rows skipped */
};

/* ---- power_table.c ---- */
/* Parse one table text (len bytes, need not end in NUL).  Rows are added
 * to t; each malformed row is skipped, counted in t->errors and reported
 * through err(line, message, arg).  Never fails as a whole. */
void power_table_parse(struct power_table *t, const char *text, size_t len, const char *file,
    void (*err)(const char *file, int line, const char *msg, void *arg), void *arg);
void power_table_free(struct power_table *t);
const char *power_role_name(enum power_role r);

/* ---- power_ledger.c: the held resources (any thread; one mutex) ---- */
#define POWER_STACK  16

struct power_stack {
	uint32_t  n;
	uintptr_t pc[POWER_STACK];
};

struct power_res {
	char      category[POWER_NAME_MAX];
	char      name[POWER_NAME_MAX];
	char      api[POWER_NAME_MAX];            /* the acquiring symbol */
	char      item[POWER_NAME_MAX];
	double    ma;                             /* from the row's power= function, -1 none */
	bool      refcount;
	int64_t   refs;
	bool      held;
	uint64_t  since_ns;                       /* held since (monotonic) */
	uint64_t  deadline_ns;                    /* timed hold: auto-release then; 0 none */
	uint64_t  total_ns;                       /* holds that ended */
	uint64_t  longest_ns;
	uint64_t  acquires, releases, timeouts, unmatched, oneshots;
	int32_t   holder_tid, releaser_tid;
	struct power_stack holder, releaser;
};

/* Record one event of a row on resource name (now = monotonic ns). */
void power_ledger_acquire(const struct power_row *r, const char *name, double ma,
    uint64_t timeout_ns, const struct power_stack *st, uint64_t now);
void power_ledger_release(const struct power_row *r, const char *name,
    const struct power_stack *st, uint64_t now);
/* A resource held when the agent was attached (seen in the kernel's list,
 * not acquired under the agent): held from now, its api is
 * POWER_BEFORE_ATTACH, no holder stack. */
#define POWER_BEFORE_ATTACH "(held before the attach)"
void power_ledger_held_before(const struct power_row *r, const char *name, uint64_t now);
void power_ledger_oneshot(const struct power_row *r, const char *name,
    const struct power_stack *st, uint64_t now);
/* Copy the ledger (timeouts due by now applied first) into out (malloc'd
 * array, *n entries); returns a change counter. */
uint64_t power_ledger_snapshot(struct power_res **out, size_t *n, uint64_t now);
void power_ledger_reset(void);
void power_ledger_clear(void);            /* fork child: nothing held */

/* ---- power_hooks.c ---- */
#define POWER_ARGS 7                      /* six arguments; [6]: a Binder row's object */
/* Apply one row to a call (arguments a, result ret) on the calling thread:
 * conditions, tag, ledger event with the caller's stack. */
void power_row_apply(const struct power_row *r, const long *a, long ret);
/* Bind the table's symbols in every loaded module (again for new modules).
 * Returns how many GOT entries were bound this time. */
int  power_hooks_bind(const struct power_table *t);
/* The same wrappers as a bind table (bind.h), for an attached agent. */
struct bind_table;
const struct bind_table *power_hooks_table(const struct power_table *t);
/* Is the row's symbol a Binder method ("binder:DESCRIPTOR:CODE")? */
bool power_row_binder(const struct power_row *r);

/* ---- power_binder.c: the Binder rows, fed by the ipc decoder ---- */
struct ipc_binder_txn;
/* Keep the table's Binder rows and observe the decoder (once). */
void power_binder_init(const struct power_table *t);
/* The observer: an outgoing transaction matching rows is applied. */
void power_binder_txn(const struct ipc_binder_txn *t, void *arg);

#endif
