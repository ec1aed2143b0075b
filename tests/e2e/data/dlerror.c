/*
 * dlerror.c - what the agent does inside the program's calls leaves the
 * program's own state alone (tests/e2e/agent-dlerror.sh).  First, errno
 * across 2,000 allocations and their frees (the first ones the agent
 * records: its stack walker starts then).  Then, for each call the agent
 * wraps, made here for the first time (each succeeds): dlopen a file that
 * does not exist, set errno, make the call; errno must be unchanged and
 * dlerror() must name the file.  One line per check, "ok NAME" or "lost NAME: what was found";
 * exit 1 if any was lost.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#define MISSING "/nonexistent/hookscope-dlerror.so"

static int fds[2], sv[2];

static void *thread_fn(void *arg)
{
	return arg;
}

static void c_pipe2(void) { (void)pipe2(fds, O_CLOEXEC); }
static void c_dup2(void) { (void)dup2(fds[0], 100); }
static void c_dup3(void) { (void)dup3(fds[0], 101, O_CLOEXEC); }
static void c_socketpair(void) { (void)socketpair(AF_UNIX, SOCK_STREAM, 0, sv); }
static void c_send(void) { (void)send(sv[0], "x", 1, 0); }
static void c_recv(void) { char c; (void)recv(sv[1], &c, 1, 0); }
static void c_ioctl(void) { int n; (void)ioctl(fds[0], FIONREAD, &n); }
static void c_getsockopt(void)
{
	int v;
	socklen_t l = sizeof v;

	(void)getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, &l);
}
static void c_poll(void) { struct pollfd p = { fds[0], POLLIN, 0 }; (void)poll(&p, 1, 0); }
static void c_ppoll(void)
{
	struct pollfd p = { fds[0], POLLIN, 0 };
	struct timespec ts = { 0, 0 };

	(void)ppoll(&p, 1, &ts, NULL);
}
static void c_select(void)
{
	struct timeval tv = { 0, 0 };

	(void)select(0, NULL, NULL, NULL, &tv);
}
static void c_epoll_wait(void)
{
	struct epoll_event ev;
	int e = epoll_create1(EPOLL_CLOEXEC);

	(void)epoll_wait(e, &ev, 1, 0);
	close(e);
}
static void c_prctl(void) { char n[16]; (void)prctl(PR_GET_NAME, n, 0, 0, 0); }
static void c_setname(void) { (void)pthread_setname_np(pthread_self(), "dlerror"); }
static void c_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_fn, NULL) == 0)
		(void)pthread_join(t, NULL);
}
static void c_signal(void) { (void)signal(SIGUSR2, SIG_IGN); }
static void c_mmap(void) { (void)munmap(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 4096); }

static const struct { const char *name; void (*call)(void); } calls[] = {
	{ "pipe2", c_pipe2 }, { "dup2", c_dup2 }, { "dup3", c_dup3 },
	{ "socketpair", c_socketpair }, { "send", c_send }, { "recv", c_recv },
	{ "ioctl", c_ioctl }, { "getsockopt", c_getsockopt }, { "poll", c_poll },
	{ "ppoll", c_ppoll }, { "select", c_select }, { "epoll_wait", c_epoll_wait },
	{ "prctl", c_prctl }, { "pthread_setname_np", c_setname },
	{ "pthread_create+join", c_thread }, { "signal", c_signal }, { "mmap+munmap", c_mmap },
};

#define NALLOC 2000

/* errno after each allocation and free of NALLOC blocks, set to EDOM
 * before each: the first one that differs, or 0. */
static int errno_check(const char **what, int *at)
{
	static void *blk[NALLOC];

	for (int i = 0; i < NALLOC; i++) {
		errno = EDOM;
		blk[i] = malloc(16 + (size_t)i * 24);
		if (errno != EDOM) {
			*what = "malloc";
			*at = i;
			return errno;
		}
	}
	for (int i = 0; i < NALLOC; i++) {
		errno = EDOM;
		free(blk[i]);
		if (errno != EDOM) {
			*what = "free";
			*at = i;
			return errno;
		}
	}
	return 0;
}

int main(void)
{
	const char *what = "";
	int lost = 0, at = 0, e = errno_check(&what, &at);   /* before stdio allocates */

	if (e != 0) {
		printf("lost errno: %s number %d left errno %d (%s), not EDOM\n", what, at, e,
		    strerror(e));
		lost++;
	} else {
		printf("ok errno\n");
	}
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		const char *e;

		if (dlopen(MISSING, RTLD_NOW) != NULL) {
			printf("error: %s exists\n", MISSING);
			return 2;
		}
		errno = EDOM;
		calls[i].call();
		if (errno != EDOM) {
			printf("lost %s: errno %d after the call, not EDOM\n", calls[i].name, errno);
			lost++;
			continue;
		}
		e = dlerror();
		if (e != NULL && strstr(e, MISSING) != NULL) {
			printf("ok %s\n", calls[i].name);
		} else {
			printf("lost %s: %s\n", calls[i].name, e ? e : "(null)");
			lost++;
		}
	}
	return lost > 0;
}
