/*
 * cmd-forget.c - "forget PID": drop an ended (lost or exited) session and
 * its final figures.  Clients watching it fall back to auto.
 */
#include "daemon.h"
#include "daemon_cmd.h"

/* Drop pid's session unless its agent is still connected. */
static int
cmd_forget_exec(struct daemon_cmdctx *x)
{
	struct daemon_session *s;
	long pid;

	if (daemon_parse_int(x->argv[0], 1, INT32_MAX, &pid) < 0)
		return daemon_cmd_error(x, "bad pid '%s'", x->argv[0]);
	if ((s = daemon_sessions_find(&x->d->sessions, (int32_t)pid)) == NULL)
		return daemon_cmd_error(x, "no session for pid %ld (see "
		    "'targets')", pid);
	if (s->agent != NULL)
		return daemon_cmd_error(x, "pid %ld (%s) is live; it can "
		    "be forgotten once its agent disconnects", pid, s->name);
	daemon_cmd_msg(x, "forgot pid %ld (%s)", pid, s->name ? s->name : "?");
	daemon_sessions_forget(&x->d->sessions, (int32_t)pid);
	if (x->view->target == (int32_t)pid)
		x->view->target = 0;
	x->s = NULL;
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_forget_entry = {
	.name = "forget",
	.usage = "PID",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_forget_exec,
};
