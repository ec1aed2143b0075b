/*
 * attach.c - inject the agent into a running process, and the way back
 * (doc/architecture.md, "Attach and detach").
 *
 * attach: check the process (exists, x86-64 ELF, not traced, no agent yet,
 * the agent library readable by its user), write its attach file (the
 * agent's configuration: socket, level, engine on, grace period) through
 * /proc/PID/root, borrow its best thread (attach_proc.c) and make it call
 * dlopen(agent, RTLD_NOW) from libc (inject.c); on failure, dlerror() says
 * why.  The agent's constructor reads and deletes the file and starts its
 * reporter thread, which connects to the daemon and applies the level.
 *
 * detach from the command line: borrow a thread to call the agent's
 * exported hookscope_detach(), which only wakes the reporter; the agent
 * then removes its hooks and unloads itself (collectors/agent/agent_detach.c),
 * and we wait until /proc/PID/maps no longer shows it.  The daemon's
 * detach command sends the agent a detach record instead (cmd-detach.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include "daemon.h"
#include "attach.h"

#define ATTACH_DLOPEN_FLAGS 2          /* RTLD_NOW | RTLD_LOCAL */
#define ATTACH_AGENT_NAME   "libhookscope"

/* See daemon.h: why ptrace said EPERM, and what to do. */
void
attach_explain_eperm(pid_t pid, char *buf, size_t len)
{
	char v[64], uid[64];
	FILE *f;
	int scope = 0;

	if (attach_proc_status(pid, 0, "TracerPid", v, sizeof v) == 0 && atoi(v) != 0) {
		char name[64] = "?";

		attach_proc_status((pid_t)atoi(v), 0, "Name", name, sizeof name);
		snprintf(buf, len, "it is already traced by pid %s (%s); a process has one "
		    "tracer at a time: detach the debugger or strace and try again", v, name);
		return;
	}
	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re")) != NULL) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope > 0 && geteuid() != 0) {
		snprintf(buf, len, "ptrace not permitted (kernel.yama.ptrace_scope=%d; run as "
		    "root or set it to 0 with: sysctl kernel.yama.ptrace_scope=0)", scope);
		return;
	}
	if (attach_proc_status(pid, 0, "Uid", uid, sizeof uid) == 0 &&
	    (uid_t)atol(uid) != geteuid() && geteuid() != 0) {
		snprintf(buf, len, "ptrace not permitted: it belongs to uid %ld and we run as "
		    "uid %ld (run hookscoped as that user or as root)", atol(uid), (long)geteuid());
		return;
	}
	snprintf(buf, len, "ptrace not permitted (no CAP_SYS_PTRACE, a setuid program, or "
	    "kernel.yama.ptrace_scope=3; run as root)");
}

/* Can the user of pid read the agent library (as the target sees it)? */
static int
attach_check_agent(pid_t pid, const char *agent, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], uid[128], gid[128], groups[1024], *p;
	struct stat st;
	unsigned long u, g;
	bool in_group = false;

	snprintf(path, sizeof path, "/proc/%d/root%s", (int)pid, agent);
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "the agent %s does not exist in its file system view "
		    "(%s; a container or chroot? install the agent there, or use --agent)",
		    agent, strerror(errno));
		return -1;
	}
	if (attach_proc_status(pid, 0, "Uid", uid, sizeof uid) < 0 ||
	    attach_proc_status(pid, 0, "Gid", gid, sizeof gid) < 0)
		return 0;             /* gone: the next step says so */
	u = strtoul(uid, &p, 10);
	u = strtoul(p, NULL, 10);     /* the effective uid is the second field */
	g = strtoul(gid, &p, 10);
	g = strtoul(p, NULL, 10);
	in_group = g == st.st_gid;
	if (attach_proc_status(pid, 0, "Groups", groups, sizeof groups) == 0) {
		for (p = groups; *p != '\0';) {
			char *end;
			unsigned long x = strtoul(p, &end, 10);

			if (end == p)
				break;
			in_group = in_group || x == st.st_gid;
			p = end;
		}
	}
	if (u == 0 || (st.st_mode & S_IROTH) || (u == st.st_uid && (st.st_mode & S_IRUSR)) ||
	    (in_group && (st.st_mode & S_IRGRP)))
		return 0;
	snprintf(err, errlen, "the agent %s is not readable by uid %lu, the user of the "
	    "process (make it world-readable: chmod a+r, or use --agent with a copy it can "
	    "read)", agent, u);
	return -1;
}

/* Everything that can be checked without touching the process. */
static int
attach_check(pid_t pid, const char *agent, char *err, size_t errlen)
{
	char path[64], state[64], tracer[32], mod[PATH_MAX];
	uint64_t base;

	if (pid <= 0 || pid == getpid()) {
		snprintf(err, errlen, "not a target process id");
		return -1;
	}
	if (attach_proc_status(pid, 0, "State", state, sizeof state) < 0) {
		snprintf(err, errlen, "no such process (check the pid with :ps or ps)");
		return -1;
	}
	if (state[0] == 'Z' || state[0] == 'X') {
		snprintf(err, errlen, "the process is exiting (zombie)");
		return -1;
	}
	if (state[0] == 'T' || state[0] == 't') {   /* the injected call would resume it */
		snprintf(err, errlen, "the process is stopped (%s); continue it first "
		    "(kill -CONT %d) and attach again", state, (int)pid);
		return -1;
	}
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	if (access(path, F_OK) < 0) {
		snprintf(err, errlen, "it is a kernel thread or its program is not accessible "
		    "(%s)", strerror(errno));
		return -1;
	}
	if (inject_elf_check(path, err, errlen) < 0)
		return -1;
	if (attach_proc_status(pid, 0, "TracerPid", tracer, sizeof tracer) == 0 &&
	    atoi(tracer) != 0) {
		attach_explain_eperm(pid, err, errlen);
		return -1;
	}
	if (attach_proc_module(pid, ATTACH_AGENT_NAME, mod, sizeof mod, &base) == 0) {
		snprintf(err, errlen, "it already has the hookscope agent (%.400s): it reports to "
		    "its daemon (see 'targets'); detach it first to attach again", mod);
		return -1;
	}
	return attach_check_agent(pid, agent, err, errlen);
}

/* The address of a function in a module of pid (prefix as in
 * attach_proc_module); 0 or -1 with err. */
static int
attach_symbol(pid_t pid, const char *module, const char *name, uint64_t *addr,
    char *err, size_t errlen)
{
	char mod[PATH_MAX], file[PATH_MAX + 64];
	uint64_t base, value, first;

	if (attach_proc_module(pid, module, mod, sizeof mod, &base) < 0) {
		snprintf(err, errlen, "no %s is loaded in it (statically linked, or not "
		    "glibc?)", module);
		return -1;
	}
	snprintf(file, sizeof file, "/proc/%d/root%s", (int)pid, mod);
	if (inject_elf_symbol(file, name, &value, &first, err, errlen) < 0)
		return -1;
	*addr = base - first + value;
	return 0;
}

/* Write the attach file into the target's /tmp (its own view); 0 or -1. */
static int
attach_write_conf(const struct attach_req *a, char *path, size_t pathlen,
    char *err, size_t errlen)
{
	static const char *const pass[] = { "HOOKSCOPE_DEBUG", "HOOKSCOPE_FUNCS",
		"HOOKSCOPE_MAP", "HOOKSCOPE_INTERVAL_MS", "HOOKSCOPE_POWER_TABLE",
		"HOOKSCOPE_POWER_SYSFS" };
	char name[128], text[8192];
	int n, fd;

	if (proto_attach_conf_path((int)a->pid, name, sizeof name) < 0)
		return -1;
	snprintf(path, pathlen, "/proc/%d/root%s", (int)a->pid, name);
	n = snprintf(text, sizeof text, "HOOKSCOPE_SOCKET=%s\nHOOKSCOPE_LEVEL=%d\n"
	    "HOOKSCOPE_ENGINE=1\nHOOKSCOPE_GRACE_MS=%llu\n", a->socket_path, a->level,
	    (unsigned long long)a->grace_s * 1000);
	for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++) {
		const char *v = getenv(pass[i]);

		if (v != NULL && *v != '\0' && strchr(v, '\n') == NULL && n < (int)sizeof text)
			n += snprintf(text + n, sizeof text - (size_t)n, "%s=%s\n", pass[i], v);
	}
	unlink(path);                 /* a stale one of an attach that failed */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || n >= (int)sizeof text || write(fd, text, (size_t)n) != n) {
		snprintf(err, errlen, "cannot write its attach file %.400s: %s", path,
		    fd < 0 ? strerror(errno) : "short write");
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	fchmod(fd, 0644);             /* whatever our umask: the agent rejects group/other-writable */
	close(fd);
	return 0;
}

/* Borrow a thread of pid for one call of fn(path-like data, arg); the
 * result in *ret.  0, or -1 with err. */
static int
attach_call(pid_t pid, uint64_t fn, const char *data, uint64_t arg, uint64_t errfn,
    uint64_t *ret, char *err, size_t errlen)
{
	struct inject_thread *t = xcalloc(1, sizeof *t);
	struct inject_req q = { .fn = fn, .args = { INJECT_ARG_DATA, arg }, .nargs = 2,
		.data = data, .datalen = data ? strlen(data) + 1 : 0,
		.timeout_ms = ATTACH_CALL_MS };
	pid_t tid = attach_proc_pick_thread(pid);
	char why[512];
	int rc = -1;

	if (data == NULL)
		q.nargs = 0;
	if (tid < 0) {
		snprintf(err, errlen, "no thread of it can be borrowed (gone, or every thread "
		    "blocks SIGSEGV)");
		goto out;
	}
	if (inject_seize(t, pid, tid, why, sizeof why) < 0) {
		if (strstr(why, strerror(EPERM)) != NULL)
			attach_explain_eperm(pid, err, errlen);
		else if (strstr(why, strerror(ESRCH)) != NULL)
			snprintf(err, errlen, "the process exited");
		else
			snprintf(err, errlen, "%s", why);
		goto out;
	}
	if ((rc = inject_call(t, &q, ret, err, errlen)) == 0 && *ret == 0 && errfn != 0) {
		struct inject_req e = { .fn = errfn, .timeout_ms = ATTACH_CALL_MS };
		uint64_t msg = 0;
		char text[512] = "";

		if (inject_call(t, &e, &msg, why, sizeof why) == 0 && msg != 0)
			inject_read(t, msg, text, sizeof text - 1);
		text[sizeof text - 1] = '\0';
		snprintf(err, errlen, "dlopen in the process failed: %s", text[0] ? text : "?");
		rc = -1;
	}
	inject_release(t);
	if (rc < 0 && t->gone)
		snprintf(err, errlen, "the process exited during the attach");
out:
	free(t);
	return rc;
}

/* See daemon.h. */
int
daemon_attach(const struct attach_req *a, char *msg, size_t msglen)
{
	char err[1024], conf[PATH_MAX], mod[PATH_MAX], name[64] = "?";
	uint64_t dlopen_fn, dlerror_fn, handle = 0, t0 = proto_now_ns(), base;
	int rc = -1;

	if (attach_check(a->pid, a->agent, err, sizeof err) < 0 ||
	    attach_symbol(a->pid, "libc", "dlopen", &dlopen_fn, err, sizeof err) < 0 ||
	    attach_symbol(a->pid, "libc", "dlerror", &dlerror_fn, err, sizeof err) < 0 ||
	    attach_write_conf(a, conf, sizeof conf, err, sizeof err) < 0)
		goto out;
	attach_proc_status(a->pid, 0, "Name", name, sizeof name);
	rc = attach_call(a->pid, dlopen_fn, a->agent, ATTACH_DLOPEN_FLAGS, dlerror_fn,
	    &handle, err, sizeof err);
	unlink(conf);                 /* the agent removed it, unless it may not */
	if (rc == 0 && attach_proc_module(a->pid, ATTACH_AGENT_NAME, mod, sizeof mod, &base) < 0) {
		snprintf(err, sizeof err, "dlopen returned but the agent is not mapped");
		rc = -1;
	}
out:
	if (rc < 0)
		snprintf(msg, msglen, "cannot attach to %d: %s", (int)a->pid, err);
	else
		snprintf(msg, msglen, "attached to %d (%s) at level %d in %.0f ms; its agent "
		    "reports to %s and detaches itself after %u s without a daemon",
		    (int)a->pid, name, a->level, (double)(proto_now_ns() - t0) / 1e6,
		    a->socket_path, a->grace_s);
	return rc;
}

/* See daemon.h: poll /proc/PID/maps until no agent is mapped (or the
 * process is gone); 0, or -1 after ms. */
int
attach_wait_unloaded(pid_t pid, unsigned ms)
{
	uint64_t end = proto_now_ns() + (uint64_t)ms * 1000000u;
	struct timespec nap = { 0, 20 * 1000000 };
	char mod[PATH_MAX];
	uint64_t base;

	while (attach_proc_module(pid, ATTACH_AGENT_NAME, mod, sizeof mod, &base) == 0) {
		if (proto_now_ns() > end)
			return -1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

/* See daemon.h: the command-line detach. */
int
daemon_detach(pid_t pid, unsigned wait_ms, char *msg, size_t msglen)
{
	char err[1024], mod[PATH_MAX];
	uint64_t fn, ret, base, t0 = proto_now_ns();

	if (attach_proc_module(pid, ATTACH_AGENT_NAME, mod, sizeof mod, &base) < 0) {
		snprintf(msg, msglen, "cannot detach from %d: %s", (int)pid, kill(pid, 0) < 0 &&
		    errno == ESRCH ? "no such process" : "it has no hookscope agent loaded");
		return -1;
	}
	if (attach_symbol(pid, ATTACH_AGENT_NAME, "hookscope_detach", &fn, err, sizeof err) < 0 ||
	    attach_call(pid, fn, NULL, 0, 0, &ret, err, sizeof err) < 0) {
		snprintf(msg, msglen, "cannot detach from %d: %s", (int)pid, err);
		return -1;
	}
	if (attach_wait_unloaded(pid, wait_ms) < 0) {
		snprintf(msg, msglen, "cannot detach from %d: its agent did not unload within "
		    "%u ms (an agent preloaded at start cannot be unloaded; else see the "
		    "process's stderr with HOOKSCOPE_DEBUG=1)", (int)pid, wait_ms);
		return -1;
	}
	snprintf(msg, msglen, "detached from %d: hooks removed, agent unloaded in %.0f ms",
	    (int)pid, (double)(proto_now_ns() - t0) / 1e6);
	return 0;
}
