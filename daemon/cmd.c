/*
 * cmd.c - the command table and its dispatcher (tmux style: each command is
 * a const entry in its own cmd-*.c file, listed here once).
 *
 * The dispatcher checks the argument count and the target preconditions
 * (DAEMON_CMD_TARGET, DAEMON_CMD_LIVE) so handlers only do their own work.
 * Every command gets exactly one reply; its msg is meant for people.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"
#include "daemon_cmd.h"

static const struct daemon_cmd_entry *const cmd_table[] = {
	&daemon_cmd_level_entry,
	&daemon_cmd_budget_entry,
	&daemon_cmd_reset_entry,
	&daemon_cmd_dump_entry,
	&daemon_cmd_threshold_entry,
	&daemon_cmd_target_entry,
	&daemon_cmd_sort_entry,
	&daemon_cmd_top_entry,
	&daemon_cmd_filter_entry,
	&daemon_cmd_forget_entry,
	&daemon_cmd_targets_entry,
	&daemon_cmd_attach_entry,
	&daemon_cmd_detach_entry,
	&daemon_cmd_ps_entry,
	&daemon_cmd_ui_thread_entry,
	&daemon_cmd_leaks_entry,
};
#define CMD_COUNT (sizeof cmd_table / sizeof cmd_table[0])

/* printf into a fresh heap string. */
static char *
cmd_vformat(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return xstrdup("(out of memory formatting a message)");
	return s;
}

/* Set the reply text. */
void
daemon_cmd_msg(struct daemon_cmdctx *x, const char *fmt, ...)
{
	va_list ap;

	free(x->msg);
	va_start(ap, fmt);
	x->msg = cmd_vformat(fmt, ap);
	va_end(ap);
}

/* Set the reply text and fail. */
int
daemon_cmd_error(struct daemon_cmdctx *x, const char *fmt, ...)
{
	va_list ap;

	free(x->msg);
	va_start(ap, fmt);
	x->msg = cmd_vformat(fmt, ap);
	va_end(ap);
	return -1;
}

/* The entry called name, or NULL. */
static const struct daemon_cmd_entry *
cmd_find(const char *name)
{
	for (size_t i = 0; i < CMD_COUNT; i++)
		if (strcmp(cmd_table[i]->name, name) == 0)
			return cmd_table[i];
	return NULL;
}

/* "level, reset, ..." for error messages. */
static void
cmd_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < CMD_COUNT && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    i ? ", " : "", cmd_table[i]->name);
}

/* Check the target preconditions of e; 0 or -1 with msg set. */
static int
cmd_check_target(struct daemon_cmdctx *x, const struct daemon_cmd_entry *e)
{
	struct daemon_view *v = x->view;

	if (v->target != 0 && daemon_sessions_find(&x->d->sessions, v->target) == NULL)
		v->target = 0;          /* forgotten: back to auto */
	x->s = daemon_sessions_pick(&x->d->sessions, v->target);
	if (!(e->flags & (DAEMON_CMD_TARGET | DAEMON_CMD_LIVE)))
		return 0;
	if (x->s == NULL)
		return daemon_cmd_error(x, "no target yet (no agent has "
		    "connected; start one with: hookscoped run -- PROG)");
	if ((e->flags & DAEMON_CMD_LIVE) &&
	    (x->s->state != PROTO_TARGET_LIVE || x->s->agent == NULL))
		return daemon_cmd_error(x, "pid %d (%s) is %s, not live: %s "
		    "needs its agent connected", (int)x->s->pid,
		    x->s->name ? x->s->name : "?",
		    proto_target_state_name(x->s->state), e->name);
	return 0;
}

/* Run c for a client's view; r gets the id, ok and heap msg/data. */
void
daemon_cmd_run(struct daemon_state *d, struct daemon_view *view,
    const struct proto_cmd *c, struct proto_reply *r)
{
	struct daemon_cmdctx x = {
		.d = d, .view = view, .argc = c->argc, .argv = (char **)c->argv,
		.now_ns = proto_now_ns(),
	};
	const struct daemon_cmd_entry *e = cmd_find(c->cmd ? c->cmd : "");
	char names[256];
	int rc;

	if (e == NULL) {
		cmd_names(names, sizeof names);
		rc = daemon_cmd_error(&x, "unknown command '%s' (commands: %s)",
		    c->cmd ? c->cmd : "", names);
	} else if (c->argc < e->min_args || c->argc > e->max_args) {
		rc = daemon_cmd_error(&x, "usage: %s%s%s", e->name,
		    *e->usage ? " " : "", e->usage);
	} else if ((rc = cmd_check_target(&x, e)) == 0) {
		rc = e->exec(&x);
	}
	memset(r, 0, sizeof *r);
	r->id = c->id;
	r->ok = rc == 0;
	r->msg = x.msg ? x.msg : xstrdup(rc == 0 ? "ok" : "failed");
	r->data = x.data;
	r->data_len = x.data_len;
	daemon_log(DLOG_INFO, "command %s: %s: %s", c->cmd ? c->cmd : "",
	    r->ok ? "ok" : "error", r->msg);
}
