/*
 * agent_info.c - who this process is, for the hello record: the executable,
 * its GNU build-id (read from the loaded image's notes, no file I/O) and the
 * command line; and where the agent's own code is.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "collector.h"

#define INFO_CMDLINE_MAX 4096     /* longer command lines are cut */

static char *info_exe;
static char *info_build_id;
static char *info_cmdline;

/* Hex of the NT_GNU_BUILD_ID note in one PT_NOTE segment, or NULL. */
static char *info_note_build_id(const char *p, size_t size, size_t align)
{
	size_t off = 0;

	while (size - off >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *n = (const void *)(p + off);
		size_t namesz = (n->n_namesz + align - 1) & ~(align - 1);
		size_t descsz = (n->n_descsz + align - 1) & ~(align - 1);
		size_t body = size - off - sizeof *n;
		const char *name = (const char *)(n + 1);

		if (namesz > body || n->n_descsz > body - namesz)
			return NULL;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && n->n_descsz > 0) {
			const unsigned char *d = (const unsigned char *)name + namesz;
			char *hex = xmalloc(2 * (size_t)n->n_descsz + 1);

			for (size_t i = 0; i < n->n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", d[i]);
			return hex;
		}
		if (descsz > body - namesz)
			return NULL;
		off += sizeof *n + namesz + descsz;
	}
	return NULL;
}

/* dl_iterate_phdr callback: the first object is the executable. */
static int info_build_id_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	char **out = arg;

	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum && *out == NULL; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE)
			*out = info_note_build_id((const char *)(info->dlpi_addr + ph->p_vaddr),
			    ph->p_filesz, ph->p_align == 8 ? 8 : 4);
	}
	return 1;
}

/* /proc/self/cmdline with the NULs between arguments turned into spaces. */
static char *info_read_cmdline(void)
{
	char *buf = xmalloc(INFO_CMDLINE_MAX);
	ssize_t n = 0, r;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		while (n < INFO_CMDLINE_MAX - 1 &&
		    (r = read(fd, buf + n, (size_t)(INFO_CMDLINE_MAX - 1 - n))) > 0)
			n += r;
		close(fd);
	}
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return buf;
}

/* See agent.h: gather once, at start (the same in a fork child). */
void agent_info_init(void)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);

	path[n > 0 ? n : 0] = '\0';
	info_exe = xstrdup(path);
	info_build_id = NULL;
	dl_iterate_phdr(info_build_id_cb, &info_build_id);
	if (info_build_id == NULL)
		info_build_id = xstrdup("");
	info_cmdline = info_read_cmdline();
}

/* See agent.h. */
void agent_info_hello(msgpack_sbuffer *sb)
{
	struct proto_agent_rec rec = { .type = PROTO_AG_HELLO };

	rec.hello.pid = (int32_t)getpid();
	rec.hello.exe = info_exe;
	rec.hello.build_id = info_build_id;
	rec.hello.cmdline = info_cmdline;
	rec.hello.level = (uint8_t)agent_level();
	rec.hello.attached = agent_attached();
	collector_hello_all(&rec.hello);
	proto_agent_encode(sb, &rec);
}

/* See agent.h. */
ssize_t agent_task_read(int32_t tid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/self/task/%d/%s", (int)tid, name);
	if (len == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* See agent.h. */
int agent_task_syscall(int32_t tid, uintptr_t *sp, uintptr_t *pc)
{
	char buf[256];
	unsigned long long v[9];

	if (agent_task_read(tid, "syscall", buf, sizeof buf) < 0)
		return -1;
	if (strncmp(buf, "running", 7) == 0)
		return AGENT_TASK_RUNNING;
	/* "nr a1 a2 a3 a4 a5 a6 sp pc", or "-1 sp pc" */
	if (buf[0] < '0' || buf[0] > '9' || sscanf(buf, "%llu %llx %llx %llx %llx %llx %llx %llx %llx",
	    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) != 9)
		return -1;
	*sp = (uintptr_t)v[7];
	*pc = (uintptr_t)v[8];
	return AGENT_TASK_WAITING;
}

/* See agent.h. */
int agent_task_waiting(int32_t tid, uintptr_t *sp, uintptr_t *pc)
{
	const struct timespec nap = { 0, AGENT_TASK_NAP_NS };
	int r = agent_task_syscall(tid, sp, pc);

	for (int look = 1; r == AGENT_TASK_RUNNING && look < AGENT_TASK_LOOKS; look++) {
		nanosleep(&nap, NULL);
		r = agent_task_syscall(tid, sp, pc);
	}
	return r == AGENT_TASK_WAITING ? 0 : -1;
}

/* See agent.h. */
bool agent_task_blocks(int32_t tid, int sig)
{
	char buf[2048];
	const char *p;

	if (agent_task_read(tid, "status", buf, sizeof buf) < 0 ||
	    (p = strstr(buf, "\nSigBlk:")) == NULL)
		return false;
	return (strtoull(p + 8, NULL, 16) >> (sig - 1)) & 1;
}

/* The executable segment holding r[0]: [r[1], r[2]). */
static int info_text_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t *r = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && r[0] >= lo && r[0] < lo + p->p_memsz) {
			r[1] = lo;
			r[2] = lo + p->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* See agent.h. */
void agent_text(uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t r[3] = { (uintptr_t)agent_text, 0, 0 };

	dl_iterate_phdr(info_text_cb, r);
	*lo = r[1];
	*hi = r[2];
}
