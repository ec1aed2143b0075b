/*
 * power.c - the power collector: loads the API table at start
 * (HOOKSCOPE_POWER_TABLE, else the installed one), binds its symbols
 * (power_hooks.c), and sends the ledger as the "power" record: every
 * resource with its counts, hold times, holder and releaser stacks
 * (symbolized here, on the reporter thread, with the block collector's
 * symbolizer), and leaks -- held past the hold threshold (default 2
 * minutes, `threshold hold`), or held when the process exits.
 * Always on (all levels).  doc/power.md.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "symbols.h"
#include "bind.h"
#include "collector.h"
#include "hookscope.h"
#include "power_int.h"

#ifndef HS_DATA_DIR
#define HS_DATA_DIR "/usr/local/share/hookscope"
#endif
#define POWER_RESEND_NS 1000000000ull     /* held times move: at least this often */

static struct power_table power_table;
static char     power_table_path[512];
static uint64_t power_hold_ns = POWER_HOLD_NS;
static uint64_t power_sent_changes = UINT64_MAX, power_sent_ns;

/* A malformed row: FILE:LINE: what, on the target's stderr. */
static void power_row_error(const char *file, int line, const char *msg, void *arg)
{
	(void)arg;
	agent_warn("%s:%d: %s (row skipped)", file, line, msg);
}

/* Read the whole table file; 0, or -1 with the reason shown. */
static int power_load(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		/* Named by the user: an error.  The default missing: an
		 * uninstalled build (or a unit test), said only with debug on. */
		if (getenv("HOOKSCOPE_POWER_TABLE") != NULL)
			agent_warn("cannot read the power API table %s: %s; power "
			    "APIs are not tracked", path, strerror(errno));
		else
			agent_log("power: no API table at %s (set HOOKSCOPE_POWER_TABLE): power "
			    "APIs are not tracked", path);
		return -1;
	}
	do {
		if (len + 4096 > cap)
			text = xrealloc(text, cap = cap * 2 + 8192);
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0 && len < (1u << 20));
	fclose(f);
	power_table_parse(&power_table, text, len, path, power_row_error, NULL);
	free(text);
	agent_log("power: %s: %d rows, %d malformed", path, power_table.nrows, power_table.errors);
	return 0;
}

/* Where the table is: HOOKSCOPE_POWER_TABLE, else the installed one, else
 * the source tree's when the agent runs from a build directory
 * (build/libhookscope.so -> collectors/power-apis.table). */
static void power_table_find(char *out, size_t len)
{
	const char *p = getenv("HOOKSCOPE_POWER_TABLE");
	Dl_info di;
	char *slash;

	if (p != NULL && *p) {
		snprintf(out, len, "%s", p);
		return;
	}
	snprintf(out, len, "%s", HS_DATA_DIR "/power-apis.table");
	if (access(out, R_OK) == 0 || dladdr((void *)power_table_find, &di) == 0 ||
	    di.dli_fname == NULL)
		return;
	snprintf(out, len, "%s", di.dli_fname);
	if ((slash = strrchr(out, '/')) != NULL)
		snprintf(slash, len - (size_t)(slash - out), "/../collectors/power-apis.table");
	if (access(out, R_OK) != 0)
		snprintf(out, len, "%s", HS_DATA_DIR "/power-apis.table");
}

/* Attached: the kernel wakelocks held now (/sys/power/wake_lock lists
 * them, under HOOKSCOPE_POWER_SYSFS in the tests) go into the ledger as
 * held since before the attach, under the table's row that acquires them
 * by that file, so their release is matched.  The list is the kernel's,
 * for the whole system: a lock another process holds shows too. */
static void power_attach_held(void)
{
	const char *root = getenv("HOOKSCOPE_POWER_SYSFS");
	const struct power_row *row = NULL;
	char path[512], buf[4096], *save = NULL;
	ssize_t n;
	int fd;

	for (int i = 0; i < power_table.nrows && row == NULL; i++) {
		const struct power_row *r = &power_table.rows[i];

		for (int c = 0; c < r->ncond && row == NULL; c++)
			if (r->role == POWER_ACQUIRE && r->cond[c].op == POWER_OP_FD &&
			    strcmp(r->cond[c].text, "/sys/power/wake_lock") == 0)
				row = r;
	}
	snprintf(path, sizeof path, "%s/sys/power/wake_lock", root != NULL ? root : "");
	if (row == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *w = strtok_r(buf, " \t\n", &save); w != NULL; w = strtok_r(NULL, " \t\n", &save)) {
		agent_log("power: %s held before the attach", w);
		power_ledger_held_before(row, w, proto_now_ns());
	}
}

/* Collector init: the table, then the wrappers (at start no other thread
 * runs, so binding the GOT races with nobody). */
static int power_init(void)
{
	power_table_find(power_table_path, sizeof power_table_path);
	if (power_load(power_table_path) < 0 || power_table.nrows == 0)
		return 0;       /* still report the table's state */
	power_binder_init(&power_table);
	if (agent_attached()) {
		bind_add(power_hooks_table(&power_table));     /* the engine binds it */
		power_attach_held();
		return 0;
	}
	power_hooks_bind(&power_table);
	return 0;
}

/* Modules loaded since: bind them too. */
static void power_harvest(void)
{
	if (power_table.nrows > 0 && !agent_attached())
		power_hooks_bind(&power_table);
}

/* threshold hold (ns). */
static int power_set_threshold(const char *name, int64_t value)
{
	if (strcmp(name, "hold") != 0)
		return 1;
	if (value <= 0)
		return -1;
	power_hold_ns = (uint64_t)value;
	power_sent_changes = UINT64_MAX;
	return 0;
}

/* A stack as "func+0xoff (module)" strings. */
static char **power_stack_names(const struct power_stack *st, size_t *n)
{
	char **out = xcalloc(st->n ? st->n : 1, sizeof *out);

	for (uint32_t i = 0; i < st->n; i++) {
		struct proto_block_frame f = { 0 };
		char buf[512];

		sym_frame_fill(st->pc[i], true, &f);
		if (f.func != NULL && *f.func)
			snprintf(buf, sizeof buf, "%s+%#llx (%s)", f.func, (unsigned long long)f.off,
			    f.module ? f.module : "?");
		else
			snprintf(buf, sizeof buf, "%#llx (%s)", (unsigned long long)st->pc[i],
			    f.module && *f.module ? f.module : "?");
		out[i] = xstrdup(buf);
		free(f.func);
		free(f.module);
		free(f.file);
	}
	*n = st->n;
	return out;
}

/* Send the ledger when it changed, every second while something is held,
 * and on a new connection. */
static void power_encode(msgpack_sbuffer *sb, bool resend_all)
{
	struct proto_agent_rec rec = { .type = PROTO_AG_POWER };
	struct proto_power *p = &rec.power;
	uint64_t now = proto_now_ns(), changes;
	bool exiting = !hookscope_active() && !agent_detach_unloading(), held = false;
	struct power_res *res;
	size_t n;

	changes = power_ledger_snapshot(&res, &n, now);
	for (size_t i = 0; i < n; i++)
		held |= res[i].held;
	if (!resend_all && !exiting && changes == power_sent_changes &&
	    (!held || now < power_sent_ns + POWER_RESEND_NS)) {
		free(res);
		return;
	}
	p->time_ns = now;
	p->hold_ns = power_hold_ns;
	p->exited = exiting;
	p->table = power_table_path;
	p->rows = (uint64_t)power_table.nrows;
	p->errors = (uint64_t)power_table.errors;
	p->nres = n < PROTO_MAX_PWR_RES ? n : PROTO_MAX_PWR_RES;
	p->res = xcalloc(p->nres ? p->nres : 1, sizeof *p->res);
	for (size_t i = 0; i < p->nres; i++) {
		struct proto_pwr_res *o = &p->res[i];
		const struct power_res *r = &res[i];

		o->category = (char *)r->category;
		o->name = (char *)r->name;
		o->api = (char *)r->api;
		o->item = (char *)r->item;
		o->ma = r->ma;
		o->refcount = r->refcount;
		o->held = r->held;
		o->refs = r->refs;
		o->held_ns = r->held ? now - r->since_ns : 0;
		o->total_ns = r->total_ns + o->held_ns;
		o->longest_ns = r->longest_ns > o->held_ns ? r->longest_ns : o->held_ns;
		o->leaked = r->held && (exiting || o->held_ns >= power_hold_ns);
		o->acquires = r->acquires;
		o->releases = r->releases;
		o->timeouts = r->timeouts;
		o->unmatched = r->unmatched;
		o->oneshots = r->oneshots;
		o->holder_tid = r->holder_tid;
		o->releaser_tid = r->releaser_tid;
		o->holder = power_stack_names(&r->holder, &o->nholder);
		o->releaser = power_stack_names(&r->releaser, &o->nreleaser);
		o->mah = o->price_ma = -1;
	}
	proto_agent_encode(sb, &rec);
	for (size_t i = 0; i < p->nres; i++) {
		for (size_t k = 0; k < p->res[i].nholder; k++)
			free(p->res[i].holder[k]);
		for (size_t k = 0; k < p->res[i].nreleaser; k++)
			free(p->res[i].releaser[k]);
		free(p->res[i].holder);
		free(p->res[i].releaser);
	}
	free(p->res);
	free(res);
	power_sent_changes = changes;
	power_sent_ns = now;
}

/* Fork child: what the parent held is the parent's. */
static void power_atfork_child(void)
{
	power_ledger_clear();
	power_sent_changes = UINT64_MAX;
}

const struct collector_ops power_collector = {
	.name          = "power",
	.init          = power_init,
	.set_threshold = power_set_threshold,
	.reset         = power_ledger_reset,
	.harvest       = power_harvest,
	.encode        = power_encode,
	.atfork_child  = power_atfork_child,
};
