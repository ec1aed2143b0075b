/*
 * power_hooks.c - the generic wrappers behind the power table's rows.
 *
 * Each distinct symbol of the table gets one of POWER_SLOTS wrapper
 * functions; every loaded module's imports of the symbol are bound to it
 * through the GOT (hook_got_wrap), at start and again when the reporter
 * sees modules loaded later.  A wrapper calls the real function first with
 * six integer arguments (the x86-64 and arm64 register arguments: rows are
 * for functions of at most six integer or pointer arguments returning an
 * integer, a pointer or nothing; doc/power.md), then evaluates the
 * symbol's rows on the arguments and the result: conditions, the resource
 * tag, the timeout, and an event for the ledger with the caller's stack.
 * errno is kept as the real function left it.
 *
 * Rows with an fd condition ("argN@PATTERN": /sys/power/wake_lock, an IIO
 * buffer's enable file) need the path of an fd: open, open64, openat,
 * openat64 and close are wrapped the same way (only when such a row
 * exists) and a path matching a pattern is remembered per fd, so a write
 * to any other fd costs one array load.  HOOKSCOPE_POWER_SYSFS=DIR is
 * stripped from opened paths first, so tests can stand a directory in for
 * /sys (nobody may write the real files here).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent.h"
#include "bind.h"
#include "collector.h"
#include "engine.h"
#include "power_int.h"
#include "protocol.h"

#define POWER_SLOTS   48
#define POWER_FDS     1024            /* fds whose path is remembered */

typedef long (*power_fn6)(long, long, long, long, long, long);

struct power_sym {
	char       name[POWER_NAME_MAX];
	int        rows[8];
	int        nrows;
	int        fd_arg;    /* every row wants a path on this fd argument; -1: not all */
};

static const struct power_table *power_tab;
static struct power_sym power_syms[POWER_SLOTS];
static int      power_nsyms;
static bool     power_fd_rows;            /* some row has an fd condition */
/* The path of each fd whose path a pattern matches: the path is written,
 * then its flag set (release); readers check the flag first (acquire), so
 * an open or close of an uninteresting fd is one relaxed load. */
static char     power_fd_path[POWER_FDS][POWER_PATH_MAX];
static uint8_t  power_fd_on[POWER_FDS];
static char     power_sysfs[256];
/* The real functions: the slots' first, then open, open64, openat,
 * openat64, close.  Set before a GOT entry is bound to the wrapper. */
static uintptr_t power_reals_none[POWER_SLOTS + 5];
static uintptr_t *power_reals = power_reals_none;   /* in the thunks' data page once mapped */
static uint8_t  *power_thunks;                      /* x86-64: one thunk per entry */

#define POWER_THUNK 16

/* The real functions are called through thunks outside the agent's text:
 * `sub $8,%rsp; call *real(%rip); add $8,%rsp; ret`.  Another collector's
 * interposer of the same function (ipc's write, close) ignores calls whose
 * return address lies in the agent -- the agent's own I/O -- so a direct
 * call from this file would hide the program's call from it.  The argument
 * registers pass through untouched (the wrapper passes no stack arguments:
 * rows are for functions of at most six).  Elsewhere: a direct call. */
static void power_thunks_map(void)
{
#if defined(__x86_64__)
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);

	if (m == MAP_FAILED)
		return;
	for (int i = 0; i < POWER_SLOTS + 5; i++) {
		uint8_t *t = m + i * POWER_THUNK;
		int32_t disp = (int32_t)((m + pg + i * 8) - (t + 10));

		memcpy(t, "\x48\x83\xec\x08\xff\x15", 6);
		memcpy(t + 6, &disp, 4);
		memcpy(t + 10, "\x48\x83\xc4\x08\xc3\xcc", 6);
	}
	if (mprotect(m, (size_t)pg, PROT_READ | PROT_EXEC) != 0) {
		munmap(m, (size_t)pg * 2);
		return;
	}
	power_reals = (uintptr_t *)(m + pg);
	power_thunks = m;
#endif
}

/* What to call for entry i: its thunk, or the real function itself. */
static inline uintptr_t power_callee(int i)
{
	uintptr_t r = __atomic_load_n(&power_reals[i], __ATOMIC_ACQUIRE);

	return power_thunks != NULL && r != 0 ? (uintptr_t)(power_thunks + i * POWER_THUNK) : r;
}
#define power_real_open   power_reals[POWER_SLOTS]
#define power_real_open64 power_reals[POWER_SLOTS + 1]
#define power_real_openat power_reals[POWER_SLOTS + 2]
#define power_real_openat64 power_reals[POWER_SLOTS + 3]
#define power_real_close  power_reals[POWER_SLOTS + 4]

/* Capture the caller's stack: the agent's own frames (wrapper, ipc's
 * ioctl hook and decoder for Binder rows) are dropped, so it starts at the
 * program's call.  False when the call is nested in another power wrapper's
 * real call (a frame returns into a thunk: acquire_wake_lock writing to
 * /sys/power/wake_lock inside libhardware_legacy), which the outer call's
 * rows account for. */
static bool power_stack(struct power_stack *st)
{
	void *pc[POWER_STACK + 12];
	int n = agent_backtrace(pc, POWER_STACK + 12), i = 0;
	long pg = sysconf(_SC_PAGESIZE);
	Dl_info self, di;

	st->n = 0;
	for (int k = 0; power_thunks != NULL && k < n; k++)
		if ((uint8_t *)pc[k] >= power_thunks && (uint8_t *)pc[k] < power_thunks + pg)
			return false;
	/* leading frames of the agent, and of a sanitizer runtime's interceptor */
	if (dladdr((void *)power_stack, &self) != 0)
		while (i < n && dladdr(pc[i], &di) != 0 && (di.dli_fbase == self.dli_fbase ||
		    (di.dli_fname != NULL && strstr(di.dli_fname, "san.so") != NULL)))
			i++;
	for (; i < n && st->n < POWER_STACK; i++)
		st->pc[st->n++] = (uintptr_t)pc[i];
	return true;
}

/* The written buffer of a row: the resource's argN:buf, else write's
 * (arg1, arg2). */
static void power_buffer(const struct power_row *r, const long *a, const char **buf, size_t *len)
{
	int i = r->res.kind == POWER_K_BUF && r->res.src == POWER_SRC_ARG ? r->res.arg : 1;

	*buf = (const char *)a[i];
	*len = a[i + 1] < 0 ? 0 : (size_t)a[i + 1];
	if (*len > 4096)
		*len = 4096;
}

/* Word n (space or newline separated) of the row's buffer into out. */
static bool power_word_at(const struct power_row *r, const long *a, int n, char *out, size_t cap)
{
	const char *b;
	size_t len, i = 0;

	power_buffer(r, a, &b, &len);
	if (b == NULL)
		return false;
	for (int w = 0; ; w++) {
		size_t s;

		while (i < len && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\0'))
			i++;
		s = i;
		while (i < len && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\0')
			i++;
		if (s == i)
			return false;
		if (w == n) {
			size_t k = i - s < cap - 1 ? i - s : cap - 1;

			memcpy(out, b + s, k);
			out[k] = '\0';
			return true;
		}
	}
}

/* Was fd opened on a path some pattern of the table matches? */
static inline bool power_fd_noted(long fd)
{
	return fd >= 0 && fd < POWER_FDS && __atomic_load_n(&power_fd_on[fd], __ATOMIC_ACQUIRE);
}

/* Does every condition of r hold? */
static bool power_cond_ok(const struct power_row *r, const long *a, long ret)
{
	for (int i = 0; i < r->ncond; i++) {
		const struct power_cond *c = &r->cond[i];
		long v = c->src == POWER_SRC_RET ? ret : c->src == POWER_SRC_ARG ? a[c->arg] : 0;
		char w[POWER_PATH_MAX];
		bool ok = false;

		switch (c->op) {
		case POWER_OP_EQ:  ok = v == c->num; break;
		case POWER_OP_NE:  ok = v != c->num; break;
		case POWER_OP_GE:  ok = v >= c->num; break;
		case POWER_OP_AND: ok = (v & c->num) != 0; break;
		case POWER_OP_STREQ:
			if (c->src == POWER_SRC_WORD)
				ok = power_word_at(r, a, c->arg, w, sizeof w) ? strcmp(w, c->text) == 0 :
				    c->text[0] == '\0';
			else
				ok = v != 0 && strcmp((const char *)v, c->text) == 0;
			break;
		case POWER_OP_FD:
			ok = power_fd_noted(v) && fnmatch(c->text, power_fd_path[v], 0) == 0;
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

/* The resource tag of r for this call. */
static void power_tag(const struct power_row *r, const long *a, long ret, char *out, size_t cap)
{
	long v = r->res.src == POWER_SRC_RET ? ret : r->res.src == POWER_SRC_ARG ? a[r->res.arg] : 0;

	switch (r->res.src == POWER_SRC_CONST ? -1 : (int)r->res.kind) {
	case -1:
		snprintf(out, cap, "%s", r->res.text);
		break;
	case POWER_K_INT:
		snprintf(out, cap, "%ld", v);
		break;
	case POWER_K_PTR:
		snprintf(out, cap, "%#lx", (unsigned long)v);
		break;
	case POWER_K_STR:
		snprintf(out, cap, "%s", v != 0 ? (const char *)v : "(null)");
		break;
	case POWER_K_BUF:
		if (!power_word_at(r, a, 0, out, cap))
			snprintf(out, cap, "(empty)");
		break;
	case POWER_K_PATH:
		snprintf(out, cap, "%.63s", v >= 0 && v < POWER_FDS ? power_fd_path[v] : "?");
		break;
	case POWER_K_BINDER:
		snprintf(out, cap, "binder %#lx", (unsigned long)a[6]);
		break;
	}
}

/* The timeout of an acquire-timeout row, in ns (0: none given). */
static uint64_t power_timeout(const struct power_row *r, const long *a)
{
	char w[32];
	long long v = 0;

	if (r->timeout.src == POWER_SRC_ARG)
		v = a[r->timeout.arg];
	else if (r->timeout.src == POWER_SRC_WORD && power_word_at(r, a, r->timeout.arg, w, sizeof w))
		v = strtoll(w, NULL, 10);
	return v > 0 ? (uint64_t)v * r->timeout_unit_ns : 0;
}

/* The current of the resource from the row's power= function, called
 * with the resource argument (ASensor_getPower(sensor) returns mA), on
 * the calling thread while the argument is valid; -1 when none. */
static double power_own_ma(const struct power_row *r, const long *a)
{
	float (*fn)(const void *);

	if (r->power_fn[0] == '\0' || r->res.src != POWER_SRC_ARG || a[r->res.arg] == 0)
		return -1;
	fn = (float (*)(const void *))dlsym(RTLD_DEFAULT, r->power_fn);
	return fn != NULL ? (double)fn((const void *)a[r->res.arg]) : -1;
}

/* See power.h. */
void power_row_apply(const struct power_row *r, const long *a, long ret)
{
	struct power_stack st;
	char tag[POWER_NAME_MAX];
	uint64_t now;

	if (!power_cond_ok(r, a, ret) ||
	    (r->role == POWER_ACQUIRE_TIMEOUT && power_timeout(r, a) == 0))
		return;         /* a timed row applies when a timeout is given */
	now = proto_now_ns();
	if (!power_stack(&st))
		return;
	power_tag(r, a, ret, tag, sizeof tag);
	switch (r->role) {
	case POWER_ACQUIRE:
	case POWER_ACQUIRE_TIMEOUT:
		power_ledger_acquire(r, tag, power_own_ma(r, a), power_timeout(r, a), &st, now);
		break;
	case POWER_RELEASE:
		power_ledger_release(r, tag, &st, now);
		break;
	case POWER_ONESHOT:
		power_ledger_oneshot(r, tag, &st, now);
		break;
	}
}

/* See power.h. */
bool power_row_binder(const struct power_row *r)
{
	return strncmp(r->symbol, "binder:", 7) == 0;
}

/* After a call of symbol slot k: apply the rows that match.  When every
 * row wants a path on the same fd, one load answers for them all: a write
 * to anything but the patterns' files (nearly every write a program makes)
 * costs no row. */
static void power_after(int k, const long *a, long ret)
{
	if (power_syms[k].fd_arg >= 0 && !power_fd_noted(a[power_syms[k].fd_arg]))
		return;
	for (int i = 0; i < power_syms[k].nrows; i++)
		power_row_apply(&power_tab->rows[power_syms[k].rows[i]], a, ret);
}

/* One wrapper per slot: the real call first (no vector register touched
 * before it), then the rows. */
#define POWER_SLOT(n) \
static long power_slot_##n(long a0, long a1, long a2, long a3, long a4, long a5) \
{ \
	power_fn6 f = (power_fn6)power_callee(n); \
	long ret = f(a0, a1, a2, a3, a4, a5); \
	int e = errno; \
	long a[POWER_ARGS] = { a0, a1, a2, a3, a4, a5, 0 }; \
	power_after(n, a, ret); \
	errno = e; \
	return ret; \
}
#define POWER_SLOT_LIST(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) \
	 X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) \
	 X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) \
	 X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) \
	 X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39) \
	 X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47)
POWER_SLOT_LIST(POWER_SLOT)
#define POWER_REF(n) power_slot_##n,
static long (*const power_slot_fns[POWER_SLOTS])(long, long, long, long, long, long) = {
	POWER_SLOT_LIST(POWER_REF)
};

/* ---- fd paths for the argN@PATTERN conditions ---- */

/* Remember fd's path when a pattern of the table may match it. */
static void power_fd_note(int fd, const char *path)
{
	const char *p = path;
	size_t n = strlen(power_sysfs);

	if (fd < 0 || fd >= POWER_FDS || path == NULL || agent_own_thread)
		return;
	if (n > 0 && strncmp(path, power_sysfs, n) == 0 && path[n] == '/')
		p = path + n;
	if (__atomic_load_n(&power_fd_on[fd], __ATOMIC_RELAXED))
		__atomic_store_n(&power_fd_on[fd], 0, __ATOMIC_RELAXED);
	for (int i = 0; i < power_tab->nrows; i++)
		for (int c = 0; c < power_tab->rows[i].ncond; c++)
			if (power_tab->rows[i].cond[c].op == POWER_OP_FD &&
			    fnmatch(power_tab->rows[i].cond[c].text, p, 0) == 0) {
				snprintf(power_fd_path[fd], sizeof power_fd_path[fd], "%s", p);
				__atomic_store_n(&power_fd_on[fd], 1, __ATOMIC_RELEASE);
				return;
			}
}

static int power_open(const char *path, int flags, ...)
{
	int (*f)(const char *, int, ...) = (int (*)(const char *, int, ...))power_callee(
	    power_real_open ? POWER_SLOTS : POWER_SLOTS + 1);
	va_list ap;
	int fd, e;

	va_start(ap, flags);
	fd = f(path, flags, va_arg(ap, unsigned));
	va_end(ap);
	e = errno;
	power_fd_note(fd, path);
	errno = e;
	return fd;
}

static int power_openat(int dir, const char *path, int flags, ...)
{
	int (*f)(int, const char *, int, ...) = (int (*)(int, const char *, int, ...))power_callee(
	    power_real_openat ? POWER_SLOTS + 2 : POWER_SLOTS + 3);
	va_list ap;
	int fd, e;

	va_start(ap, flags);
	fd = f(dir, path, flags, va_arg(ap, unsigned));
	va_end(ap);
	e = errno;
	power_fd_note(fd, path);
	errno = e;
	return fd;
}

static int power_close(int fd)
{
	int (*f)(int) = (int (*)(int))power_callee(POWER_SLOTS + 4);

	if (fd >= 0 && fd < POWER_FDS && !agent_own_thread &&
	    __atomic_load_n(&power_fd_on[fd], __ATOMIC_RELAXED))
		__atomic_store_n(&power_fd_on[fd], 0, __ATOMIC_RELAXED);
	return f(fd);
}

/* Make the slots for the table's symbols (once). */
static void power_hooks_setup(const struct power_table *t)
{
	const char *e = getenv("HOOKSCOPE_POWER_SYSFS");

	power_tab = t;
	snprintf(power_sysfs, sizeof power_sysfs, "%s", e != NULL ? e : "");
	for (int i = 0; i < t->nrows; i++) {
		const struct power_row *r = &t->rows[i];
		int k, fd_arg = -1;

		if (power_row_binder(r))
			continue;       /* power_binder.c */
		for (int c = 0; c < r->ncond; c++)
			if (r->cond[c].op == POWER_OP_FD) {
				power_fd_rows = true;
				if (fd_arg < 0 && r->cond[c].src == POWER_SRC_ARG)
					fd_arg = r->cond[c].arg;
			}
		for (k = 0; k < power_nsyms; k++)
			if (strcmp(power_syms[k].name, r->symbol) == 0)
				break;
		if (k == power_nsyms) {
			if (power_nsyms == POWER_SLOTS) {
				agent_warn("power table: more than %d symbols: %s (line %d) "
				    "not tracked", POWER_SLOTS, r->symbol, r->line);
				continue;
			}
			snprintf(power_syms[k].name, sizeof power_syms[k].name, "%s", r->symbol);
			power_syms[k].fd_arg = fd_arg;
			power_nsyms++;
		} else if (power_syms[k].fd_arg != fd_arg) {
			power_syms[k].fd_arg = -1;
		}
		if (power_syms[k].nrows == (int)(sizeof power_syms[k].rows / sizeof(int))) {
			agent_warn("power table: more than 8 rows for %s: line %d ignored",
			    r->symbol, r->line);
			continue;
		}
		power_syms[k].rows[power_syms[k].nrows++] = i;
	}
}

/* The symbols the table's rows wrap, then the fd calls; their wrappers. */
static const char *power_names[POWER_SLOTS + 5];
static uintptr_t power_wraps[POWER_SLOTS + 5];

/* Slots, thunks and the name and wrapper lists (once). */
static void power_hooks_init(const struct power_table *t)
{
	if (power_tab != NULL)
		return;
	power_thunks_map();
	power_hooks_setup(t);
	for (int k = 0; k < POWER_SLOTS; k++) {
		power_names[k] = power_syms[k].name;
		power_wraps[k] = (uintptr_t)power_slot_fns[k];
	}
	power_names[POWER_SLOTS] = "open";
	power_names[POWER_SLOTS + 1] = "open64";
	power_names[POWER_SLOTS + 2] = "openat";
	power_names[POWER_SLOTS + 3] = "openat64";
	power_names[POWER_SLOTS + 4] = "close";
	power_wraps[POWER_SLOTS] = power_wraps[POWER_SLOTS + 1] = (uintptr_t)power_open;
	power_wraps[POWER_SLOTS + 2] = power_wraps[POWER_SLOTS + 3] = (uintptr_t)power_openat;
	power_wraps[POWER_SLOTS + 4] = (uintptr_t)power_close;
}

/* See power_int.h: the same wrappers as one bind table (bind.h), bound by
 * the engine after an attach in every module, as the preloaded agent binds
 * them (power_hooks_bind). */
const struct bind_table *power_hooks_table(const struct power_table *t)
{
	static struct bind_fn fns[POWER_SLOTS + 5];
	static struct bind_table bt = { .who = "power", .libs = "*", .fns = fns };

	power_hooks_init(t);
	for (int k = 0; k < POWER_SLOTS + 5; k++) {
		if (k >= power_nsyms && k < POWER_SLOTS)
			continue;
		if (k >= POWER_SLOTS && !power_fd_rows)
			break;
		fns[bt.n++] = (struct bind_fn){ .name = power_names[k],
			.wrapper = (void *)power_wraps[k], .real = (void **)&power_reals[k] };
	}
	return &bt;
}

/* The loader's counters of modules added and removed (c[0], c[1]). */
static int power_mods_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *c = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
		c[0] = info->dlpi_adds;
		c[1] = info->dlpi_subs;
	}
	return 1;
}

struct power_bind_run {
	int adds, bound;
};

/* Bind the modules not bound yet (under the engine's lock, so none is
 * unloaded while its dynamic section and GOT are read). */
static void power_bind_mods(void *arg)
{
	static struct { char path[256]; uintptr_t bias; } done[HOOK_MAX_MODS * 2];
	static size_t ndone;
	struct power_bind_run *run = arg;
	const char *const *names = power_names;
	const uintptr_t *wraps = power_wraps;
	struct hook_mods *ms = agent_scratch_new(sizeof *ms);

	hook_mods_read(ms);
	for (int i = 0; i < ms->n; i++) {
		const struct hook_mod *m = &ms->m[i];
		bool seen = false;
		int b;

		if (m->agent || m->nsegs == 0 || (i != 0 && strchr(m->path, '/') == NULL))
			continue;       /* the agent, the vdso */
		for (size_t d = 0; d < ndone && !seen; d++)
			seen = done[d].bias == m->bias && strcmp(done[d].path, m->path) == 0;
		if (seen)
			continue;
		if (ndone < sizeof done / sizeof done[0]) {
			snprintf(done[ndone].path, sizeof done[ndone].path, "%s", m->path);
			done[ndone++].bias = m->bias;
		}
		run->adds++;
		/* the slots in use, then the fd calls when a row needs them */
		b = hook_got_wrap(m, i == 0, names, wraps, power_reals, (size_t)power_nsyms);
		if (b > 0)
			run->bound += b;
		if (power_fd_rows && (b = hook_got_wrap(m, i == 0, names + POWER_SLOTS,
		    wraps + POWER_SLOTS, power_reals + POWER_SLOTS, 5)) > 0)
			run->bound += b;
	}
	agent_scratch_free(ms, sizeof *ms);
}

/* See power.h.  Modules are bound once each (by path and load address);
 * the reporter asks every harvest, so the module list is read only when
 * the loader's counters moved. */
int power_hooks_bind(const struct power_table *t)
{
	static unsigned long long seen_mods[2];
	unsigned long long now[2] = { 0, 0 };
	struct power_bind_run run = { 0, 0 };

	dl_iterate_phdr(power_mods_cb, now);
	if (power_tab != NULL && now[0] != 0 && now[0] == seen_mods[0] && now[1] == seen_mods[1])
		return 0;
	seen_mods[0] = now[0];
	seen_mods[1] = now[1];
	power_hooks_init(t);
	hook_engine_modules_held(power_bind_mods, &run);
	if (run.adds > 0)
		agent_log("power: %d modules scanned, %d imports bound", run.adds, run.bound);
	return run.bound;
}
