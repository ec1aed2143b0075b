/*
 * cmd-target.c - "target PID": choose the session this client watches;
 * "target 0" (or "auto") goes back to the newest live session.
 */
#include <string.h>
#include "daemon.h"
#include "daemon_cmd.h"

/* Select pid, which must be a known session. */
static int
cmd_target_exec(struct daemon_cmdctx *x)
{
	struct daemon_session *s;
	long pid;

	if (strcmp(x->argv[0], "auto") == 0)
		pid = 0;
	else if (daemon_parse_int(x->argv[0], 0, INT32_MAX, &pid) < 0)
		return daemon_cmd_error(x, "bad pid '%s' (expected a pid "
		    "from 'targets', or 0/auto)", x->argv[0]);
	if (pid == 0) {
		x->view->target = 0;
		daemon_cmd_msg(x, "watching the newest live session (auto)");
		return 0;
	}
	if ((s = daemon_sessions_find(&x->d->sessions, (int32_t)pid)) == NULL)
		return daemon_cmd_error(x, "no session for pid %ld (see "
		    "'targets')", pid);
	x->view->target = (int32_t)pid;
	daemon_cmd_msg(x, "watching pid %d (%s, %s)", (int)s->pid,
	    s->name ? s->name : "?", proto_target_state_name(s->state));
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_target_entry = {
	.name = "target",
	.usage = "PID (0 or auto: newest live)",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_target_exec,
};
