/*
 * attach_proc.c - what attach needs to know about a process, from /proc:
 * status fields (TracerPid, Uid, ...), its modules in /proc/PID/maps, and
 * which of its threads is the safest to borrow for an injected call.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"
#include "attach.h"

/* See daemon.h: the value of "Field:" in /proc/PID/task/TID/status (tid 0:
 * the process), leading blanks skipped; 0, or -1 (no process, no field). */
int
attach_proc_status(pid_t pid, pid_t tid, const char *field, char *out, size_t len)
{
	char path[64], line[512];
	size_t flen = strlen(field);
	FILE *f;
	int rc = -1;

	if (tid > 0)
		snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
	else
		snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		char *v = line + flen;

		if (strncmp(line, field, flen) != 0 || *v != ':')
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, len, "%s", v);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/* See daemon.h: the first module in /proc/PID/maps whose base name starts
 * with prefix (followed by '.', '-' or the end), mapped at file offset 0:
 * its path and start address.  0, or -1 when none is mapped. */
int
attach_proc_module(pid_t pid, const char *prefix, char *path, size_t pathlen, uint64_t *start)
{
	char mpath[64], line[4352];
	size_t plen = strlen(prefix);
	FILE *f;
	int rc = -1;

	snprintf(mpath, sizeof mpath, "/proc/%d/maps", (int)pid);
	if ((f = fopen(mpath, "re")) == NULL)
		return -1;
	while (rc < 0 && fgets(line, sizeof line, f) != NULL) {
		unsigned long long lo, hi, off;
		char *file = strchr(line, '/'), *base;

		if (file == NULL || sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) != 3 || off != 0)
			continue;
		file[strcspn(file, "\n")] = '\0';
		base = strrchr(file, '/') + 1;
		if (strncmp(base, prefix, plen) != 0 ||
		    (base[plen] != '\0' && base[plen] != '.' && base[plen] != '-'))
			continue;
		snprintf(path, pathlen, "%s", file);
		*start = lo;
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* How good a thread is to borrow, from /proc/PID/task/TID/syscall: a
 * thread asleep in a system call that holds no lock of libc (sleep, wait,
 * poll) is best, one waiting on a futex (a lock, a join) next, one in
 * another call next; one running user code (it may be inside malloc,
 * holding its lock, when dlopen needs it) last. */
static int
proc_thread_score(pid_t pid, pid_t tid)
{
	static const long best[] = { 7, 23, 34, 35, 61, 230, 247, 270, 271 };  /* poll select pause nanosleep wait4 clock_nanosleep waitid pselect6 ppoll */
	char path[96], buf[64];
	FILE *f;
	long nr;

	snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, sizeof buf, f) == NULL || !isdigit((unsigned char)buf[0])) {
		fclose(f);
		return 0;             /* "running" or "-1 ...": user code */
	}
	fclose(f);
	nr = strtol(buf, NULL, 10);
	for (size_t i = 0; i < sizeof best / sizeof best[0]; i++)
		if (nr == best[i])
			return 3;
	return nr == 202 ? 2 : 1;    /* futex */
}

/* Does the thread block or ignore SIGSEGV?  (The injected call ends in a
 * SIGSEGV the tracer swallows; the kernel would reset such a disposition.) */
static bool
proc_thread_segv_masked(pid_t pid, pid_t tid)
{
	char v[64];
	unsigned long long blk = 0, ign = 0, bit = 1ull << (SIGSEGV - 1);

	if (attach_proc_status(pid, tid, "SigBlk", v, sizeof v) == 0)
		blk = strtoull(v, NULL, 16);
	if (attach_proc_status(pid, tid, "SigIgn", v, sizeof v) == 0)
		ign = strtoull(v, NULL, 16);
	return (blk & bit) || (ign & bit);
}

/* See daemon.h: the best thread to borrow, or -1 when none is usable. */
pid_t
attach_proc_pick_thread(pid_t pid)
{
	char path[64];
	struct dirent *de;
	pid_t pick = -1;
	int best = -1;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		pid_t tid = (pid_t)atoi(de->d_name);
		int score;

		if (tid <= 0 || proc_thread_segv_masked(pid, tid))
			continue;
		score = proc_thread_score(pid, tid);
		if (score > best || (score == best && tid == pid)) {
			best = score;
			pick = tid;
		}
	}
	closedir(d);
	return pick;
}
