/*
 * timed-run.c - run a program and write what it cost: its pid, wall time
 * and CPU time (user and system, from wait4, so they are the target's own
 * and its waited-for children's, never this process's).  The real-program
 * bench (tests/bench/real.sh) starts it as the program of `hookscoped run`,
 * so the target inherits the agent's environment from the daemon as a user's
 * program would, while the figures stay the target's.
 *   usage: timed-run OUT PROG [ARGS...]
 * OUT gets one line, "pid=P wall_ns=W user_ns=U sys_ns=S status=X", written
 * to OUT.tmp and renamed, so a reader polling for OUT never sees half a line.
 * Exit status: the target's (128+signal when it was killed), 127 when it
 * could not be started, 1 when OUT cannot be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long
tv_ns(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
}

static long long
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Write LINE to OUT through OUT.tmp; 0 or -1 with errno. */
static int
timed_write(const char *out, const char *line)
{
	size_t n = strlen(out) + 5;
	char *tmp = malloc(n);
	FILE *f;
	int ok;

	if (tmp == NULL)
		abort();
	snprintf(tmp, n, "%s.tmp", out);
	if ((f = fopen(tmp, "w")) == NULL) {
		free(tmp);
		return -1;
	}
	ok = fputs(line, f) >= 0;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, out) < 0) {
		int e = errno;

		unlink(tmp);
		free(tmp);
		errno = e;
		return -1;
	}
	free(tmp);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rusage ru;
	long long t0, t1;
	char line[256];
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: timed-run OUT PROG [ARGS...]\n");
		return 2;
	}
	t0 = mono_ns();
	if ((pid = fork()) < 0) {
		fprintf(stderr, "timed-run: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], &argv[2]);
		fprintf(stderr, "timed-run: cannot run %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "timed-run: wait4: %s\n", strerror(errno));
			return 127;
		}
	}
	t1 = mono_ns();
	snprintf(line, sizeof line, "pid=%d wall_ns=%lld user_ns=%lld sys_ns=%lld status=%d\n",
	    (int)pid, t1 - t0, tv_ns(ru.ru_utime), tv_ns(ru.ru_stime), status);
	if (timed_write(argv[1], line) < 0) {
		fprintf(stderr, "timed-run: cannot write %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
