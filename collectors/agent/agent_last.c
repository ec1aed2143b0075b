/*
 * agent_last.c - the program's last thread is gone: exit as glibc would
 * have.
 *
 * glibc counts a process's threads and the last one to exit calls exit(0)
 * (pthread_exit in main with no other thread left, or a thread that forked
 * returning in the child).  The agent's own threads count too, so without
 * them that exit never comes: the process stays, a zombie leader and the
 * agent's threads, and whoever waits for it waits forever.  The agent's
 * threads are known by their tids (agent_thread_start's trampoline notes
 * them); the reporter asks agent_program_gone once per interval and then
 * makes the exit itself.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define AGENT_TIDS_MAX 16

static int agent_tids[AGENT_TIDS_MAX];   /* relaxed atomics; 0: free */

/* See agent.h. */
void agent_tid_note(int tid, bool alive)
{
	for (int i = 0; i < AGENT_TIDS_MAX; i++) {
		int want = alive ? 0 : tid;

		if (__atomic_compare_exchange_n(&agent_tids[i], &want, alive ? tid : 0, false,
		    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return;
	}
}

/* See agent.h: a fork child has none of the parent's threads. */
void agent_tids_forget(void)
{
	for (int i = 0; i < AGENT_TIDS_MAX; i++)
		__atomic_store_n(&agent_tids[i], 0, __ATOMIC_RELAXED);
}

/* See agent.h. */
bool agent_tid_ours(int tid)
{
	for (int i = 0; i < AGENT_TIDS_MAX; i++)
		if (__atomic_load_n(&agent_tids[i], __ATOMIC_RELAXED) == tid)
			return true;
	return false;
}

/* The state letter of /proc/self/stat (the leader thread's), or 0. */
static char agent_leader_state(void)
{
	char buf[512];
	const char *p;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');          /* the name may hold anything, ')' included */
	return p != NULL && p[1] == ' ' ? p[2] : 0;
}

/* See agent.h.  The leader's exit leaves it a zombie until the process
 * ends; another thread's exit removes its task.  So: the leader is a
 * zombie and every other task is the agent's. */
bool agent_program_gone(void)
{
	struct dirent *e;
	bool gone = true;
	int self = (int)getpid();
	DIR *d;

	if (agent_leader_state() != 'Z' || (d = opendir("/proc/self/task")) == NULL)
		return false;
	while (gone && (e = readdir(d)) != NULL) {
		int tid = atoi(e->d_name);

		if (tid > 0 && tid != self && !agent_tid_ours(tid))
			gone = false;
	}
	closedir(d);
	return gone;
}
