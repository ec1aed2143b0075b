/*
 * lines.c - file:line of the frames agents send (daemon_lines.h), with
 * libdw: the target's modules as /proc/PID/maps lists them
 * (dwfl_linux_proc_report), their debug information from the module itself
 * or its build-id debug file under the standard directory (libc6-dbg
 * style; debuginfod is not asked: it would block the event loop on the
 * network).  A return address is looked up at addr - 1 (its call), an
 * interrupted pc (the frame's "pc") at addr.  Results, found or not, are
 * cached per address; the module list is read again when an address falls
 * outside every module it knows (a library loaded since), at most once a
 * second, so the engine's trampolines, which are in no module, cost one
 * lookup each.
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_lines.h"
#include "parts.h"

#define LINES_CACHE     4096              /* addresses cached (a hash, overwritten) */
#define LINES_REPORT_NS 1000000000ull     /* the module list is read at most this often */

struct lines_ent {
	uint64_t addr;                    /* 0 = empty */
	bool     pc;
	char    *file;                    /* NULL: no line information */
	uint32_t line;
};

struct daemon_lines {
	Dwfl    *dwfl;
	int32_t  pid;
	uint64_t reported_ns;             /* when the module list was read, 0 = never */
	struct lines_ent cache[LINES_CACHE];
};

static const Dwfl_Callbacks lines_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
};

/* Read the target's module list again. */
static void lines_report(struct daemon_lines *l, uint64_t now)
{
	if (l->dwfl != NULL)
		dwfl_end(l->dwfl);
	l->reported_ns = now;
	l->dwfl = dwfl_begin(&lines_cb);
	if (l->dwfl == NULL)
		return;
	dwfl_report_begin(l->dwfl);
	if (dwfl_linux_proc_report(l->dwfl, l->pid) != 0) {   /* gone, or not ours to read */
		dwfl_report_end(l->dwfl, NULL, NULL);
		dwfl_end(l->dwfl);
		l->dwfl = NULL;
		return;
	}
	dwfl_report_end(l->dwfl, NULL, NULL);
}

/* Look addr up (uncached) into e. */
static void lines_resolve(struct daemon_lines *l, uint64_t addr, bool pc, struct lines_ent *e)
{
	Dwarf_Addr look = pc ? addr : addr - 1;
	uint64_t now = proto_now_ns();
	Dwfl_Module *m = l->dwfl ? dwfl_addrmodule(l->dwfl, look) : NULL;
	Dwfl_Line *ln;
	const char *file;
	int line = 0;

	if (m == NULL && (l->reported_ns == 0 || now - l->reported_ns >= LINES_REPORT_NS)) {
		lines_report(l, now);
		m = l->dwfl ? dwfl_addrmodule(l->dwfl, look) : NULL;
	}
	free(e->file);
	*e = (struct lines_ent){ .addr = addr, .pc = pc };
	if (m == NULL || (ln = dwfl_module_getsrc(m, look)) == NULL ||
	    (file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL)) == NULL)
		return;
	e->file = xstrdup(file);
	e->line = line > 0 ? (uint32_t)line : 0;
}

struct lines_visit {
	struct daemon_session *s;
	int32_t pid;
};

/* proto_struct_visit's callback: one frame. */
static void lines_frame(void *elem, void *arg)
{
	struct proto_block_frame *f = elem;
	struct lines_visit *v = arg;
	struct daemon_lines *l = v->s->lines;
	struct lines_ent *e;

	if (f->addr == 0 || (f->file != NULL && *f->file))
		return;
	if (l == NULL) {                  /* the session's first frame */
		l = v->s->lines = xcalloc(1, sizeof *l);
		l->pid = v->pid;
	}
	e = &l->cache[((f->addr >> 2) * 2654435761u + f->pc) % LINES_CACHE];
	if (e->addr != f->addr || e->pc != f->pc)
		lines_resolve(l, f->addr, f->pc, e);
	if (e->file == NULL)
		return;
	free(f->file);
	f->file = xstrdup(e->file);
	f->line = e->line;
}

/* See daemon_lines.h. */
void daemon_lines_fill(struct daemon_session *s, int32_t pid, struct proto_agent_rec *r)
{
	const struct proto_part *p = proto_part_of_record(r->type);
	struct lines_visit v = { s, pid };

	if (p == NULL || pid <= 0)
		return;
	proto_struct_visit(p->desc, proto_part_in_rec(p, r), &proto_block_frame_desc, lines_frame, &v);
}

/* See daemon_lines.h. */
void daemon_lines_free(struct daemon_session *s)
{
	if (s->lines == NULL)
		return;
	for (size_t i = 0; i < LINES_CACHE; i++)
		free(s->lines->cache[i].file);
	if (s->lines->dwfl != NULL)
		dwfl_end(s->lines->dwfl);
	free(s->lines);
	s->lines = NULL;
}
