/*
 * agent_attach.c - the agent's attach mode: injected with dlopen into a
 * process that is already running (hookscoped attach, daemon/attach.c).
 *
 * Such a process has no HOOKSCOPE_* variables in its environment, so the
 * injector writes them into the attach file (proto_attach_conf_path: one
 * NAME=VALUE line each) just before the dlopen.  The constructor reads it
 * here, deletes it, and from then on every getenv() of agent code (the link
 * is made with -Wl,--wrap=getenv) answers HOOKSCOPE_* names from the file
 * only: collectors keep reading their configuration with getenv, and the
 * target's environment is never changed (setenv in a running threaded
 * process is unsafe).  The file is trusted only when it is a regular file of
 * root or of our own user that nobody else can write.
 *
 * Attach mode also gives the agent a way out (agent_detach.c): its own
 * dlopen handle, for the thread that unloads it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

#define ATTACH_MAX_VARS   16
#define ATTACH_MAX_BYTES  8192

static struct {
	bool  on;                         /* loaded by hookscoped attach */
	int   level;                      /* the level asked for, applied later */
	unsigned grace_ms;                /* self-detach after the daemon is gone this long */
	void *handle;                     /* our own dlopen handle */
	char *vars[ATTACH_MAX_VARS];      /* "NAME=VALUE" from the attach file */
	int   nvars;
} att = { .level = -1 };

/* The real getenv (glibc's), reached through the --wrap of the link.  Weak,
 * so objects of the agent archive still link into the unit tests (there no
 * --wrap applies and this is never called). */
extern char *__real_getenv(const char *name) __attribute__((weak));

/* See agent.h: every getenv() of agent code lands here. */
char *__wrap_getenv(const char *name)
{
	if (att.on && strncmp(name, "HOOKSCOPE_", 10) == 0) {
		size_t len = strlen(name);

		for (int i = 0; i < att.nvars; i++)
			if (strncmp(att.vars[i], name, len) == 0 && att.vars[i][len] == '=')
				return att.vars[i] + len + 1;
		return NULL;
	}
	return __real_getenv ? __real_getenv(name) : NULL;
}

/* Read the whole attach file if it can be trusted; heap text or NULL. */
static char *attach_read(const char *path)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > ATTACH_MAX_BYTES ||
	    (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022) != 0) {
		agent_warn("ignoring %s: not a regular file of root or of this user that only "
		    "its owner can write (remove it)", path);
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* Keep the HOOKSCOPE_NAME=VALUE lines of text. */
static void attach_parse(char *text)
{
	char *save = NULL;

	/* strtok_r: the target's own threads may be inside strtok right now. */
	for (char *line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "HOOKSCOPE_", 10) != 0 || strchr(line, '=') == NULL)
			continue;
		if (att.nvars == ATTACH_MAX_VARS)
			break;
		att.vars[att.nvars++] = xstrdup(line);
	}
}

/* Our own handle: dlopen of our path with RTLD_NOLOAD, released at once,
 * so the injector's dlopen stays the only reference and one dlclose
 * unloads us.  NULL when we were not loaded by path (then no unload). */
static void *attach_self_handle(void)
{
	Dl_info di;
	void *h;

	if (dladdr((void *)attach_self_handle, &di) == 0 || di.dli_fname == NULL)
		return NULL;
	h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (h != NULL)
		dlclose(h);
	return h;
}

/* See agent.h: called first thing by the constructor. */
bool agent_attach_load(void)
{
	char path[256];
	char *text;
	const char *v;

	if (proto_attach_conf_path((int)getpid(), path, sizeof path) < 0 ||
	    (text = attach_read(path)) == NULL)
		return false;
	if (unlink(path) < 0 && errno != ENOENT)
		agent_log("cannot remove %s: %s (the injector removes it)", path, strerror(errno));
	attach_parse(text);
	free(text);
	att.on = true;
	att.handle = attach_self_handle();
	v = getenv("HOOKSCOPE_GRACE_MS");
	att.grace_ms = v != NULL ? (unsigned)strtoul(v, NULL, 10) : AGENT_GRACE_MS;
	return true;
}

/* See agent.h. */
bool agent_attached(void)
{
	return att.on;
}

/* See agent.h: the constructor keeps level 0 and leaves the level asked
 * for to the reporter thread (patching outside the injected call). */
void agent_attach_defer_level(int level)
{
	att.level = level;
}

/* See agent.h: the deferred level once, then -1. */
int agent_attach_take_level(void)
{
	int l = att.level;

	att.level = -1;
	return l;
}

/* See agent.h. */
unsigned agent_attach_grace_ms(void)
{
	return att.grace_ms;
}

/* See agent.h. */
void *agent_attach_handle(void)
{
	return att.handle;
}
