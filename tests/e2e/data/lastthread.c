/*
 * lastthread.c - a process whose last thread exits ends (tests/e2e/
 * agent-lastthread.sh): glibc's last thread calls exit(0).
 *   lastthread main: main starts a thread and calls pthread_exit; the
 *     thread prints "thread done" 100 ms later and returns.
 *   lastthread fork: a thread forks; in the child that thread (the only
 *     one) prints "child done" and returns; the parent waits for the
 *     child at most 10 s and prints "child status S" (-1: still running).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *late(void *arg)
{
	struct timespec ts = { 0, 100000000 };

	nanosleep(&ts, NULL);
	printf("thread done\n");
	fflush(stdout);
	return arg;
}

static void *forker(void *arg)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		printf("child done\n");
		fflush(stdout);
		return arg;             /* the child's last thread: its exit(0) */
	}
	for (int i = 0; i < 1000 && pid > 0; i++) {
		struct timespec ts = { 0, 10000000 };

		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		status = -1;
		nanosleep(&ts, NULL);
	}
	if (status == -1 && pid > 0)
		kill(pid, SIGKILL);
	printf("child status %d\n", status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fflush(stdout);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2 || (strcmp(argv[1], "main") != 0 && strcmp(argv[1], "fork") != 0)) {
		fprintf(stderr, "usage: lastthread main|fork\n");
		return 2;
	}
	if (pthread_create(&t, NULL, argv[1][0] == 'm' ? late : forker, NULL) != 0)
		return 1;
	if (argv[1][0] == 'f') {
		pthread_join(t, NULL);
		return 0;
	}
	pthread_exit(NULL);
}
