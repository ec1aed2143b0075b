/*
 * agent.c - the agent's life cycle: the constructor that runs when
 * libhookscope.so is preloaded, the destructor that sends the final report,
 * fork handling, the monitoring level, and the public API of hookscope.h.
 *
 * Environment (read once, at start):
 *   HOOKSCOPE_SOCKET       daemon socket (default: see proto_default_socket_path)
 *   HOOKSCOPE_LEVEL        initial monitoring level 0-4 (default 2)
 *   HOOKSCOPE_INTERVAL_MS  report period, 10-60000 ms (default 100)
 *   HOOKSCOPE_DEBUG        non-empty and not "0": diagnostics on stderr
 *   HOOKSCOPE_BUDGET       the overhead budget: a percent of the target's CPU
 *                          or "off" (default 5; read by timing_budget.c)
 *   HOOKSCOPE_MODE         how functions start: "timed" (default) or "counted"
 *                          (read by timing_budget.c)
 * An agent injected into a running process (hookscoped attach) reads these
 * from its attach file instead (agent_attach.c).
 *   HOOKSCOPE_UI_THREAD    the UI thread: "main" (default), a tid or a name
 *                          (read by block.c)
 *
 * Agent code running on a target thread holds the timing guard, so an
 * instrumented function it might reach (an interposed malloc) is not timed
 * and cannot recurse into the agent.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOOKSCOPE_BUILDING_AGENT
#include "hookscope.h"
#include "agent.h"
#include "block.h"
#include "collector.h"
#include "engine.h"
#include "timing.h"

struct agent_config agent_cfg = {
	.level = AGENT_LEVEL_DEFAULT,
	.interval_ms = AGENT_INTERVAL_MS,
};

static int agent_level_now;               /* relaxed atomic */
static int agent_up;                      /* relaxed atomic: 1 while running */

/* Format one line and write it to stderr in one write(2): no stdio locks,
 * no interleaving with the target's own lines. */
static void agent_vprint(const char *fmt, va_list ap)
{
	char line[512];
	int n = snprintf(line, sizeof line, "hookscope[%d]: ", (int)getpid()), fd;

	n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if ((fd = agent_thread_stderr()) < 0)
		return;
	while (write(fd, line, (size_t)n) < 0 && errno == EINTR)
		;
	if (fd != STDERR_FILENO)
		close(fd);
}

/* See agent.h. */
void agent_log(const char *fmt, ...)
{
	va_list ap;

	if (!agent_cfg.debug)
		return;
	va_start(ap, fmt);
	agent_vprint(fmt, ap);
	va_end(ap);
}

/* See agent.h. */
void agent_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	agent_vprint(fmt, ap);
	va_end(ap);
}

/* Parse an unsigned decimal environment variable within [lo, hi]; the
 * default (with a warning naming the variable) if it is set but bad. */
static unsigned agent_env_uint(const char *name, unsigned lo, unsigned hi, unsigned def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (s == NULL || s[0] == '\0')
		return def;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || s[0] == '-' || v < lo || v > hi) {
		agent_warn("%s=\"%s\" is not a number from %u to %u; using %u", name, s, lo, hi, def);
		return def;
	}
	return (unsigned)v;
}

/* Read the configuration from the environment. */
static void agent_config_load(void)
{
	const char *dbg = getenv("HOOKSCOPE_DEBUG");

	agent_cfg.debug = dbg != NULL && dbg[0] != '\0' && strcmp(dbg, "0") != 0;
	agent_cfg.level = (int)agent_env_uint("HOOKSCOPE_LEVEL", 0, 4, AGENT_LEVEL_DEFAULT);
	agent_cfg.interval_ms = agent_env_uint("HOOKSCOPE_INTERVAL_MS", 10, 60000,
	    AGENT_INTERVAL_MS);
	if (proto_default_socket_path(agent_cfg.socket_path, sizeof agent_cfg.socket_path) < 0)
		agent_warn("the daemon socket path (HOOKSCOPE_SOCKET or XDG_RUNTIME_DIR) is longer "
		    "than %d bytes; not reporting (set HOOKSCOPE_SOCKET to a shorter path)",
		    AGENT_SOCKET_MAX - 1);
}

/* See agent.h. */
int agent_level(void)
{
	return __atomic_load_n(&agent_level_now, __ATOMIC_RELAXED);
}

/* See agent.h. */
void agent_set_level(int level)
{
	if (level < 0)
		level = 0;
	if (level > 4)
		level = 4;
	__atomic_store_n(&agent_level_now, level, __ATOMIC_RELAXED);
	collector_set_level_all(level);
}

/* See agent.h (runs on the reporter thread with the cycle lock held). */
void agent_apply(const struct proto_agent_rec *r)
{
	switch (r->type) {
	case PROTO_AG_LEVEL:
		agent_log("level %d", r->level);
		agent_set_level(r->level);
		break;
	case PROTO_AG_BUDGET:
		agent_log("budget %u ppm", r->budget_ppm);
		timing_budget_set(r->budget_ppm);
		break;
	case PROTO_AG_RESET:
		agent_log("reset");
		collector_reset_all();
		break;
	case PROTO_AG_DETACH:
		agent_log("detach requested by the daemon");
		agent_reporter_detach();
		break;
	case PROTO_AG_THRESHOLD: {
		int ret = collector_set_threshold(r->name, r->value);

		agent_log("threshold %s = %lld: %s", r->name, (long long)r->value,
		    ret == 0 ? "applied" : ret > 0 ? "unknown name" : "value out of range");
		break;
	}
	case PROTO_AG_REQUEST:
		agent_log("request %s: %s", r->name, collector_request(r->name) == 0 ? "done" :
		    "no collector has it");
		break;
	case PROTO_AG_UI_THREAD:
		agent_log("ui thread %s", r->name);
		block_ui_select(r->name);
		break;
	default:
		agent_log("ignoring a record of type %d from the daemon", (int)r->type);
		break;
	}
}

/* fork() in any thread: no state half-changed by the reporter crosses it. */
static void agent_atfork_prepare(void)
{
	agent_reporter_atfork_prepare();
	hook_engine_atfork_prepare();
}

/* fork() in the parent: nothing changed. */
static void agent_atfork_parent(void)
{
	agent_reporter_atfork_parent();
}

/* fork() in the child: a new session with its own thread and hello; the
 * parent's figures and threads are forgotten. */
static void agent_atfork_child(void)
{
	struct tm_block *g;

	agent_tids_forget();
	agent_reporter_atfork_child();
	collector_atfork_child_all();     /* unguarded: it needs this thread's block */
	g = timing_guard_enter();
	agent_reporter_start(true);
	timing_guard_leave(g);
}

/* Constructor: configure, calibrate, start reporting.  Any failure leaves
 * the target running untouched. */
__attribute__((constructor)) static void agent_init(void)
{
	struct tm_block *g = timing_guard_enter();
	bool attached = agent_attach_load();

	agent_config_load();
	if (attached) {   /* patch on the reporter thread, not inside the injected dlopen */
		agent_attach_defer_level(agent_cfg.level);
		agent_cfg.level = 0;
	}
	agent_reals_resolve();
	agent_stack_init();
	if (collector_init_all() < 0) {
		agent_warn("no collector could start; the agent stays idle");
		goto out;
	}
	agent_info_init();
	agent_set_level(agent_cfg.level);
	if (agent_reporter_init() < 0)
		agent_log("no eventfd (%s): flush and exit wait for the next interval",
		    strerror(errno));
	if (pthread_atfork(agent_atfork_prepare, agent_atfork_parent, agent_atfork_child) != 0)
		agent_log("pthread_atfork failed: a fork child will not report");
	agent_log("starting: level %d, socket %s, %llu ps per call", agent_cfg.level,
	    agent_cfg.socket_path, (unsigned long long)timing_overhead_ps());
	if (agent_reporter_start(false) < 0)
		goto out;
	__atomic_store_n(&agent_up, 1, __ATOMIC_RELAXED);
out:
	timing_guard_leave(g);
}

/* Destructor (exit or unload): final figures and bye, bounded in time.  The
 * hooks stay safe afterwards: threads still running keep their blocks. */
__attribute__((destructor)) static void agent_fini(void)
{
	struct tm_block *g;

	if (agent_detach_unloading()) {   /* dlclose after a detach: wait for the reporter */
		agent_reporter_stop(AGENT_EXIT_BUDGET_MS);
		return;
	}
	if (!__atomic_load_n(&agent_up, __ATOMIC_RELAXED))
		return;
	g = timing_guard_enter();
	__atomic_store_n(&agent_up, 0, __ATOMIC_RELAXED);
	agent_reporter_stop(AGENT_EXIT_BUDGET_MS);
	collector_fini_all();
	timing_guard_leave(g);
}

/* See hookscope.h. */
int hookscope_active(void)
{
	return __atomic_load_n(&agent_up, __ATOMIC_RELAXED);
}

/* Exported for hookscoped detach, which injects a call to it: ask the
 * reporter to detach the agent; returns at once (async-signal-safe). */
__attribute__((visibility("default"))) void hookscope_detach(void)
{
	if (agent_attached())
		agent_reporter_detach();
}

/* See hookscope.h. */
void hookscope_flush(void)
{
	struct tm_block *g;

	if (!hookscope_active())
		return;
	g = timing_guard_enter();
	agent_reporter_flush(1000);
	timing_guard_leave(g);
}
