/*
 * attach_ps.c - "ps [FILTER]": the processes of this machine one could
 * attach to, so a user can pick one (tui :ps).  Kernel threads and the
 * daemon itself are left out; each line says whether attach would work
 * (attachable), or why not (agent already loaded, traced by another
 * process, not an x86-64 program, not accessible to us).
 */
#define _GNU_SOURCE 1
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon.h"
#include "attach.h"

#define PS_MAX_LINES 300
#define PS_CMD_WIDTH 60

/* The command line of pid, NULs made spaces, cut at PS_CMD_WIDTH. */
static void
ps_cmdline(pid_t pid, char *out, size_t len)
{
	char path[64];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	out[0] = '\0';
	if ((f = fopen(path, "re")) == NULL)
		return;
	n = fread(out, 1, len - 1, f);
	fclose(f);
	out[n] = '\0';
	for (size_t i = 0; i + 1 < n; i++)
		if (out[i] == '\0' || !isprint((unsigned char)out[i]))
			out[i] = ' ';
	if (strlen(out) > PS_CMD_WIDTH)
		strcpy(out + PS_CMD_WIDTH - 3, "...");
}

/* Whether attach would work, in a word or two. */
static void
ps_state(pid_t pid, char *out, size_t len)
{
	char path[64], v[32], mod[PATH_MAX], err[256];
	uint64_t base;

	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	if (access(path, R_OK) < 0)
		snprintf(out, len, "no access");
	else if (inject_elf_check(path, err, sizeof err) < 0)
		snprintf(out, len, "not x86-64");
	else if (attach_proc_module(pid, "libhookscope", mod, sizeof mod, &base) == 0)
		snprintf(out, len, "agent");
	else if (attach_proc_status(pid, 0, "TracerPid", v, sizeof v) == 0 && atoi(v) != 0)
		snprintf(out, len, "traced(%.10s)", v);
	else
		snprintf(out, len, "attachable");
}

/* The user name of uid (or the number). */
static void
ps_user(uid_t uid, char *out, size_t len)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res != NULL)
		snprintf(out, len, "%s", pw.pw_name);
	else
		snprintf(out, len, "%u", (unsigned)uid);
}

/* Append one process line if it matches; false to skip it. */
static bool
ps_line(pid_t pid, const char *filter, char *line, size_t len)
{
	char name[64], uid[64], user[32], state[32], cmd[PS_CMD_WIDTH * 4], path[64];

	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	if (attach_proc_status(pid, 0, "Name", name, sizeof name) < 0 ||
	    attach_proc_status(pid, 0, "Uid", uid, sizeof uid) < 0)
		return false;
	ps_cmdline(pid, cmd, sizeof cmd);
	if (cmd[0] == '\0')
		return false;         /* a kernel thread (or exiting) */
	if (filter != NULL && *filter != '\0' && strcasestr(name, filter) == NULL &&
	    strcasestr(cmd, filter) == NULL)
		return false;
	ps_user((uid_t)strtoul(uid, NULL, 10), user, sizeof user);
	ps_state(pid, state, sizeof state);
	snprintf(line, len, "%7d %-10.10s %-16.16s %-12s %s\n", (int)pid, user, name, state, cmd);
	return true;
}

/* See daemon.h. */
char *
attach_ps_list(const char *filter, size_t *count)
{
	size_t cap = 4096, len = 0, n = 0, more = 0;
	char *out = xmalloc(cap), line[512];
	struct dirent *de;
	DIR *d = opendir("/proc");

	len = (size_t)snprintf(out, cap, "%7s %-10s %-16s %-12s %s\n", "PID", "USER", "NAME",
	    "STATE", "COMMAND");
	while (d != NULL && (de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(de->d_name);
		size_t l;

		if (pid <= 0 || pid == getpid() || !ps_line(pid, filter, line, sizeof line))
			continue;
		if (n++ >= PS_MAX_LINES) {
			more++;
			continue;
		}
		l = strlen(line);
		if (len + l + 1 > cap) {
			cap = (len + l + 1) * 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + len, line, l + 1);
		len += l;
	}
	if (d != NULL)
		closedir(d);
	if (more > 0) {
		out = xrealloc(out, len + 80);
		snprintf(out + len, 80, "... and %zu more (give a filter)\n", more);
	}
	*count = n;
	return out;
}
