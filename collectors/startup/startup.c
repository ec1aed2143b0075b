/*
 * startup.c - the startup collector: when the process was exec'd, the
 * points of its start the other files of the module stamp, each library's
 * constructors and each dlopen, sent as the "startup" record whenever one
 * more is known (and on a new connection).  Always on (every level);
 * nothing to reset (the figures happened once).  doc/startup.md.
 *
 * The exec: `hookscoped run` puts HOOKSCOPE_EXEC=PID:NS in the target's
 * environment just before its execve (NS its monotonic clock), taken when
 * PID is ours (a child the program forks and execs has another pid);
 * else the start time in /proc/self/stat (clock ticks since boot, the
 * fork's time, 10 ms grain on Linux), moved to the monotonic clock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "collector.h"
#include "startup.h"
#include "startup_int.h"

static uint64_t su_agent_ns, su_exec_ns;
static const char *su_exec_from = "";
static bool su_attached;
static uint64_t su_sent = UINT64_MAX;

/* ns of clock c. */
static uint64_t su_clock(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* HOOKSCOPE_EXEC=PID:NS naming this process: NS. */
static uint64_t su_exec_run(void)
{
	const char *v = getenv("HOOKSCOPE_EXEC");
	unsigned long long ns;
	long pid;
	char end;

	if (v == NULL || sscanf(v, "%ld:%llu%c", &pid, &ns, &end) != 2)
		return 0;
	return pid == (long)getpid() ? (uint64_t)ns : 0;
}

/* The start time of /proc/self/stat on the monotonic clock, 0 unknown. */
static uint64_t su_exec_stat(void)
{
	char buf[1024], *p;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t start, boot, mono;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n;

	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The name in parentheses may hold anything: fields follow the last ')'.
	 * starttime is the 22nd field, the 20th after it. */
	if ((p = strrchr(buf, ')')) == NULL || hz <= 0)
		return 0;
	for (int field = 2; field < 22; field++)
		if ((p = strchr(p + 1, ' ')) == NULL)
			return 0;
	if (sscanf(p + 1, "%llu", &ticks) != 1)
		return 0;
	start = (uint64_t)ticks * (1000000000u / (uint64_t)hz);
	boot = su_clock(CLOCK_BOOTTIME);
	mono = su_clock(CLOCK_MONOTONIC);
	return boot >= start && mono > boot - start ? mono - (boot - start) : 0;
}

/* Collector init (in the agent's constructor, on the main thread). */
static int su_init(void)
{
	su_agent_ns = proto_now_ns();
	su_attached = agent_attached() || !su_at_start;
	if (!su_attached) {
		if ((su_exec_ns = su_exec_run()) != 0)
			su_exec_from = "run";
		else if ((su_exec_ns = su_exec_stat()) != 0)
			su_exec_from = "stat";
	}
	su_main_arm(!agent_attached());
	agent_log("startup: %s; %u libraries' constructors wrapped, exec from %s",
	    su_attached ? "not at the start" : "at the start", su_nlibs,
	    *su_exec_from ? su_exec_from : "nowhere");
	return 0;
}

/* The finished library slots, in the order they ran. */
static int su_lib_cmp(const void *a, const void *b)
{
	const struct proto_su_lib *x = a, *y = b;

	return x->start_ns > y->start_ns ? 1 : x->start_ns < y->start_ns ? -1 : 0;
}

/* Send when one more thing is known. */
static void su_encode(msgpack_sbuffer *sb, bool resend_all)
{
	struct proto_agent_rec rec = { .type = PROTO_AG_STARTUP };
	struct proto_startup *p = &rec.startup;
	struct proto_su_lib libs[SU_MAX_LIBS];
	struct proto_su_dlopen dls[SU_MAX_DLOPENS];
	uint64_t known = 0, total = __atomic_load_n(&su_dlopens_total, __ATOMIC_RELAXED);

	p->time_ns = proto_now_ns();
	p->attached = su_attached;
	p->exec_from = (char *)su_exec_from;
	p->exec_ns = su_exec_ns;
	p->loaded_ns = su_attached ? 0 : su_loaded_ns;
	p->agent_ns = su_attached ? 0 : su_agent_ns;
	p->ctors_ns = __atomic_load_n(&su_ctors_ns, __ATOMIC_ACQUIRE);
	p->main_ns = __atomic_load_n(&su_main_ns, __ATOMIC_ACQUIRE);
	p->frame_ns = __atomic_load_n(&su_frame_ns, __ATOMIC_ACQUIRE);
	p->wait_ns = __atomic_load_n(&su_wait_ns, __ATOMIC_ACQUIRE);
	const char *call = __atomic_load_n(&su_wait_call, __ATOMIC_RELAXED);   /* after wait_ns's acquire */

	p->wait_call = (char *)(p->wait_ns && call ? call : "");
	for (uint32_t i = 0; i < su_nlibs; i++) {
		const struct su_lib *l = &su_libs[i];
		uint64_t end = __atomic_load_n(&l->end_ns, __ATOMIC_ACQUIRE);

		if (end == 0)
			continue;
		libs[p->nlibs++] = (struct proto_su_lib){
			.name = (char *)(l->name && *l->name ? l->name : "?"),
			.start_ns = l->start_ns, .dur_ns = end - l->start_ns, .funcs = l->funcs,
		};
	}
	qsort(libs, p->nlibs, sizeof libs[0], su_lib_cmp);
	p->libs = libs;
	p->libs_lost = su_libs_lost;
	for (uint64_t i = 0; i < total && i < SU_MAX_DLOPENS; i++) {
		const struct su_dlopen *d = &su_dlopens[i];

		if (!__atomic_load_n(&d->done, __ATOMIC_ACQUIRE))
			break;                    /* still being written: next time */
		dls[p->ndlopens++] = (struct proto_su_dlopen){
			.name = (char *)d->name, .start_ns = d->start_ns, .dur_ns = d->dur_ns,
			.ok = d->ok, .tid = d->tid,
		};
	}
	p->dlopens = dls;
	p->dlopens_total = total;
	known = !!p->ctors_ns + !!p->main_ns + !!p->frame_ns + !!p->wait_ns + p->nlibs +
	    p->ndlopens + total;
	if (!resend_all && known == su_sent)
		return;
	proto_agent_encode(sb, &rec);
	su_sent = known;
}

/* The daemon's reset: nothing to zero (it happened once); send it again. */
static void su_reset(void)
{
	su_sent = UINT64_MAX;
}

/* Fork child: a new session whose start is its parent's. */
static void su_atfork_child(void)
{
	su_attached = true;
	su_exec_ns = su_ctors_ns = su_main_ns = su_frame_ns = su_wait_ns = 0;
	su_nlibs = 0;
	su_dlopens_total = 0;
	su_exec_from = "";
	__atomic_store_n(&startup_want_frame, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&startup_want_wait, 0, __ATOMIC_RELAXED);
	su_sent = UINT64_MAX;
}

const struct collector_ops startup_collector = {
	.name         = "startup",
	.init         = su_init,
	.reset        = su_reset,
	.encode       = su_encode,
	.atfork_child = su_atfork_child,
};
