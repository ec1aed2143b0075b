/*
 * run.c - "hookscoped run -- PROG ARGS...": start a target with the agent
 * preloaded and pointed at our socket.
 *
 * LD_PRELOAD gets, in order: the sanitizer runtime of a sanitized build
 * (HS_SAN_RUNTIME: it must come first or a sanitized agent cannot load),
 * whatever LD_PRELOAD the user already had, then the agent.  The child
 * starts with default signal dispositions and an empty signal mask (the
 * daemon blocks signals for its signalfd and ignores SIGPIPE; both would
 * otherwise survive exec) and without the daemon's descriptors.  When the
 * daemon is told to stop (SIGINT/SIGTERM/SIGHUP) it sends the target it
 * started a SIGTERM (server.c); a daemon that dies leaves it running.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "daemon.h"

extern char **environ;

#define RUN_EXEC_VAR "HOOKSCOPE_EXEC="
#define RUN_EXEC_LEN 64                   /* "HOOKSCOPE_EXEC=" PID ":" NS */

/* An existing readable file made absolute, or NULL. */
static char *
run_usable(const char *path)
{
	char buf[PATH_MAX];
	struct stat st;

	if (path == NULL || *path == '\0' || stat(path, &st) < 0 ||
	    !S_ISREG(st.st_mode) || access(path, R_OK) < 0)
		return NULL;
	if (realpath(path, buf) == NULL)
		return NULL;
	return xstrdup(buf);
}

/* Find the agent: --agent, $HOOKSCOPE_AGENT, next to us (build tree), ../lib/hookscope
 * (installed tree), the configured install path. */
char *
daemon_run_agent_path(const char *opt_agent, char *err, size_t errlen)
{
	const char *env = getenv("HOOKSCOPE_AGENT");
	char self[PATH_MAX], near[PATH_MAX + 64], *p;
	ssize_t n;

	if (opt_agent != NULL || (env != NULL && *env != '\0')) {
		const char *want = opt_agent ? opt_agent : env;

		if ((p = run_usable(want)) == NULL)
			snprintf(err, errlen, "agent library %s (from %s) is not "
			    "a readable file", want,
			    opt_agent ? "--agent" : "HOOKSCOPE_AGENT");
		return p;
	}
	near[0] = '\0';
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((p = strrchr(self, '/')) != NULL)
			*p = '\0';
		snprintf(near, sizeof near, "%s/libhookscope.so", self);
		if ((p = run_usable(near)) != NULL)
			return p;
		/* An installed tree moved as a whole (PREFIX/bin -> PREFIX/lib). */
		snprintf(near, sizeof near, "%s/../lib/hookscope/libhookscope.so", self);
		if ((p = run_usable(near)) != NULL)
			return p;
		snprintf(near, sizeof near, "%s/libhookscope.so", self);
	}
	if ((p = run_usable(HS_AGENT_PATH)) != NULL)
		return p;
	snprintf(err, errlen, "cannot find the agent library (looked for %s and "
	    "%s); use --agent PATH or set HOOKSCOPE_AGENT",
	    *near ? near : "libhookscope.so next to hookscoped", HS_AGENT_PATH);
	return NULL;
}

/* Is lib one of the ':'/' ' separated entries of list? */
static bool
run_list_has(const char *list, const char *lib)
{
	size_t n = strlen(lib);

	for (const char *p = list; (p = strstr(p, lib)) != NULL; p += n)
		if ((p == list || p[-1] == ':' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ':' || p[n] == ' '))
			return true;
	return false;
}

/* The new LD_PRELOAD value (heap). */
static char *
run_preload(const char *agent)
{
	const char *old = getenv("LD_PRELOAD");
	const char *san = NULL;
	char *v;
	size_t len;

#ifdef HS_SAN_RUNTIME
	san = HS_SAN_RUNTIME;
#endif
	if (old != NULL && *old == '\0')
		old = NULL;
	if (san != NULL && old != NULL && run_list_has(old, san))
		san = NULL;
	if (old != NULL && run_list_has(old, agent))
		agent = NULL;
	len = (san ? strlen(san) : 0) + (old ? strlen(old) : 0) +
	    (agent ? strlen(agent) : 0) + 3;
	v = xcalloc(1, len);
	snprintf(v, len, "%s%s%s%s%s", san ? san : "", san && (old || agent) ? ":" : "",
	    old ? old : "", old && agent ? ":" : "", agent ? agent : "");
	return v;
}

/* environ with our variables set (NAME=value strings on the heap). */
static char **
run_environ(const struct daemon_opts *o, const char *agent)
{
	static const char *const ours[] = { "LD_PRELOAD=", "HOOKSCOPE_SOCKET=",
		"HOOKSCOPE_LEVEL=", "HOOKSCOPE_MAP=", "HOOKSCOPE_BUDGET=", "HOOKSCOPE_EXEC=",
		"HOOKSCOPE_REFRESH=" };
	const char *oldmap = getenv("HOOKSCOPE_MAP");
	size_t n = 0, k = 0;
	char **env, *pre, buf[32];

	while (environ[n] != NULL)
		n++;
	env = xcalloc(n + 9, sizeof *env);
	for (size_t i = 0; i < n; i++) {
		bool skip = false;

		for (size_t j = 0; j < sizeof ours / sizeof ours[0]; j++)
			if (strncmp(environ[i], ours[j], strlen(ours[j])) == 0)
				skip = j < 2 || j == 5 || (j == 2 && o->run_level >= 0) ||
				    (j == 3 && o->run_map != NULL) || (j == 4 && o->budget_set) ||
				    (j == 6 && o->refresh_hz > 0);
		if (!skip)
			env[k++] = xstrdup(environ[i]);
	}
	pre = run_preload(agent);
	env[k] = xmalloc(strlen(pre) + 16);
	sprintf(env[k++], "LD_PRELOAD=%s", pre);
	free(pre);
	env[k] = xmalloc(strlen(o->socket_path) + 32);
	sprintf(env[k++], "HOOKSCOPE_SOCKET=%s", o->socket_path);
	if (o->run_level >= 0) {
		snprintf(buf, sizeof buf, "HOOKSCOPE_LEVEL=%d", o->run_level);
		env[k++] = xstrdup(buf);
	}
	if (o->budget_set) {          /* the percentage, as --budget took it */
		char pct[16];

		snprintf(pct, sizeof pct, "%g", o->budget_ppm / 1e4);
		env[k] = xmalloc(48);
		snprintf(env[k++], 48, "HOOKSCOPE_BUDGET=%s", o->budget_ppm == 0 ? "off" : pct);
	}
	if (o->refresh_hz > 0) {      /* the frame budget from the first frame on */
		snprintf(buf, sizeof buf, "HOOKSCOPE_REFRESH=%g", o->refresh_hz);
		env[k++] = xstrdup(buf);
	}
	if (o->run_map != NULL) {   /* ours first: the first match wins */
		size_t len = strlen(o->run_map) + (oldmap ? strlen(oldmap) : 0) + 32;

		env[k] = xmalloc(len);
		snprintf(env[k++], len, "HOOKSCOPE_MAP=%s%s%s", o->run_map,
		    oldmap && *oldmap ? ":" : "", oldmap ? oldmap : "");
	}
	/* Filled in by the child just before its exec (run_exec_stamp). */
	env[k] = xcalloc(1, RUN_EXEC_LEN);
	strcpy(env[k++], RUN_EXEC_VAR);
	if (o->run_ui_thread != NULL) {
		env[k] = xmalloc(strlen(o->run_ui_thread) + 32);
		sprintf(env[k++], "HOOKSCOPE_UI_THREAD=%s", o->run_ui_thread);
	}
	env[k] = NULL;
	return env;
}

/* Free a run_environ() array. */
static void
run_environ_free(char **env)
{
	for (size_t i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/* In the child, just before the exec: HOOKSCOPE_EXEC=PID:NS, NS the
 * monotonic clock, the agent's startup origin (doc/startup.md).  After a
 * fork of a threaded daemon: no allocation, no stdio. */
static void
run_exec_stamp(char **env)
{
	char digits[48];
	struct timespec ts;
	uint64_t v[2];
	size_t at = sizeof RUN_EXEC_VAR - 1;

	for (; *env != NULL && strncmp(*env, RUN_EXEC_VAR, at) != 0; env++)
		;
	if (*env == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	v[0] = (uint64_t)getpid();
	v[1] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	for (int i = 0; i < 2; i++) {
		size_t n = 0;

		do
			digits[n++] = (char)('0' + v[i] % 10);
		while ((v[i] /= 10) != 0);
		while (n > 0 && at < RUN_EXEC_LEN - 2)
			(*env)[at++] = digits[--n];
		(*env)[at++] = i == 0 ? ':' : '\0';
	}
}

/* In the child: clean signal state and descriptors, exec, report errno. */
static void __attribute__((noreturn))
run_child(char **argv, char **env, int errfd)
{
	sigset_t all;
	int e;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	if (errfd > 3)
		close_range(3, (unsigned)errfd - 1, 0);
	close_range((unsigned)errfd + 1, ~0u, 0);
	run_exec_stamp(env);
	execvpe(argv[0], argv, env);
	e = errno;
	if (write(errfd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/* Start the target (see daemon.h). */
pid_t
daemon_run_spawn(const struct daemon_opts *o, const char *agent,
    char *err, size_t errlen)
{
	char **env = run_environ(o, agent);
	int fds[2], e = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot run %s: pipe: %s", o->run_argv[0],
		    strerror(errno));
		run_environ_free(env);
		return -1;
	}
	if ((pid = fork()) < 0) {
		snprintf(err, errlen, "cannot run %s: fork: %s", o->run_argv[0],
		    strerror(errno));
		close(fds[0]);
		close(fds[1]);
		run_environ_free(env);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		run_child(o->run_argv, env, fds[1]);
	}
	close(fds[1]);
	run_environ_free(env);
	/* EOF = exec succeeded (the pipe closed on exec); an int = errno. */
	do
		n = read(fds[0], &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == (ssize_t)sizeof e) {
		waitpid(pid, NULL, 0);
		snprintf(err, errlen, "cannot run %s: %s", o->run_argv[0], strerror(e));
		return -1;
	}
	return pid;
}

/* Describe a wait status. */
void
daemon_run_status_str(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)%s", WTERMSIG(status),
		    strsignal(WTERMSIG(status)),
		    WCOREDUMP(status) ? ", core dumped" : "");
	else
		snprintf(buf, len, "wait status 0x%x", (unsigned)status);
}
