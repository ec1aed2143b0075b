/*
 * demo_ipc.c - the demo's IPC scenario (demo --ipc; the "ipc" row of
 * scenario.c): a helper process
 * answers requests over a unix socket (abstract name
 * "@hookscope-demo-PID"); the calling thread, the demo's UI thread, asks it
 * for "settings" ten times a second, and every fourth answer takes 250 ms:
 * a slow call on the UI thread, in demo_ipc_fetch_settings, which the IPC
 * panel flags and whose stack the detail view (Enter) shows.
 *
 * The helper runs the demo again (demo --ipc-helper FD) without LD_PRELOAD:
 * it is the demo's peer, not a target of its own, so the target list shows
 * the demo alone however often the scenario runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../apptime.h"

#define DEMO_IPC_SLOW_EVERY 4
#define DEMO_IPC_SLOW_MS    250

void demo_ipc_scenario(double seconds);
void demo_ipc_helper_main(const char *fd) __attribute__((noreturn));

extern char **environ;

/* The abstract address of this demo's helper. */
static socklen_t demo_ipc_addr(struct sockaddr_un *a, pid_t pid)
{
	int n;

	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "hookscope-demo-%d", (int)pid);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* The helper: listen (after the fork, so SO_PEERCRED names the helper),
 * say so on ready, answer each request, every DEMO_IPC_SLOW_EVERY-th slowly. */
static __attribute__((noreturn)) void demo_ipc_helper(const struct sockaddr_un *a, socklen_t alen, int ready)
{
	char buf[256];
	long n = 0;
	ssize_t r;
	int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), c = -1;

	if (ls < 0 || bind(ls, (const struct sockaddr *)a, alen) < 0 || listen(ls, 1) < 0)
		_exit(1);
	if (write(ready, "1", 1) != 1)
		_exit(1);
	close(ready);
	c = accept(ls, NULL, NULL);
	while (c >= 0 && (r = read(c, buf, sizeof buf)) > 0) {
		if (++n % DEMO_IPC_SLOW_EVERY == 0) {
			struct timespec ts = { 0, DEMO_IPC_SLOW_MS * 1000000L };

			nanosleep(&ts, NULL);
		}
		snprintf(buf, sizeof buf, "settings #%ld: theme=dark font=12", n);
		if (write(c, buf, strlen(buf) + 1) < 0)
			break;
	}
	_exit(0);
}

/* demo --ipc-helper FD: the helper's process after its exec; FD is the
 * ready pipe, the address is the parent demo's. */
void demo_ipc_helper_main(const char *fd)
{
	struct sockaddr_un a;
	socklen_t alen = demo_ipc_addr(&a, getppid());

	demo_ipc_helper(&a, alen, atoi(fd));
}

/* Fork and exec the helper without the agent; its pid or -1. */
static pid_t demo_ipc_spawn(int ready)
{
	char fd[16], *env[256], exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	size_t n = 0;
	pid_t pid;

	/* The real path, not /proc/self/exe: the helper's comm is then "demo". */
	if (len <= 0)
		return -1;
	exe[len] = '\0';

	/* Built before the fork: the child only calls execve. */
	for (char **e = environ; *e != NULL && n < 255; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) != 0)
			env[n++] = *e;
	env[n] = NULL;
	snprintf(fd, sizeof fd, "%d", ready);
	if ((pid = fork()) == 0) {
		char *argv[] = { "demo", "--ipc-helper", fd, NULL };

		execve(exe, argv, env);
		_exit(127);
	}
	return pid;
}

/* One request to the helper and its answer: the call the IPC panel shows. */
__attribute__((noinline)) static int demo_ipc_fetch_settings(int fd, char *out, size_t len)
{
	static const char req[] = "GET settings";
	ssize_t r;

	if (send(fd, req, sizeof req, 0) != (ssize_t)sizeof req)
		return -1;
	r = recv(fd, out, len - 1, 0);
	if (r <= 0)
		return -1;
	out[r] = '\0';
	return 0;
}

/* See the header: run the scenario on the calling thread for about seconds. */
void demo_ipc_scenario(double seconds)
{
	struct sockaddr_un a;
	socklen_t alen = demo_ipc_addr(&a, getpid());
	uint64_t end = app_now_ns() + (uint64_t)(seconds * 1e9), next = app_now_ns();
	char answer[256];
	long calls = 0;
	pid_t helper;
	int ready[2], fd = -1;
	char ok;

	printf("demo: ipc scenario: a helper process answers over the unix socket @%s; every %dth "
	    "answer takes %d ms (a slow call on the UI thread)\n", a.sun_path + 1,
	    DEMO_IPC_SLOW_EVERY, DEMO_IPC_SLOW_MS);
	fflush(stdout);
	if (pipe(ready) < 0) {
		fprintf(stderr, "demo: ipc scenario: pipe: %s\n", strerror(errno));
		return;
	}
	fcntl(ready[0], F_SETFD, FD_CLOEXEC);
	helper = demo_ipc_spawn(ready[1]);
	close(ready[1]);
	if (helper < 0 || read(ready[0], &ok, 1) != 1) {
		fprintf(stderr, "demo: ipc scenario: the helper process did not start%s%s\n",
		    helper < 0 ? ": " : " (it exited)", helper < 0 ? strerror(errno) : "");
		if (helper > 0)
			kill(helper, SIGTERM);
	} else if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&a, alen) < 0) {
		fprintf(stderr, "demo: ipc scenario: cannot reach the helper: %s\n", strerror(errno));
		if (helper > 0)
			kill(helper, SIGTERM);
	} else {
		while (app_now_ns() < end && demo_ipc_fetch_settings(fd, answer, sizeof answer) == 0) {
			calls++;
			next += 100000000u;
			app_sleep_until(next);
		}
	}
	close(ready[0]);
	if (fd >= 0)
		close(fd);
	if (helper > 0)
		waitpid(helper, NULL, 0);
	printf("demo: ipc scenario: %ld calls\n", calls);
	fflush(stdout);
}
