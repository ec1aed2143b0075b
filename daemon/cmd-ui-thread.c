/*
 * cmd-ui-thread.c - "ui-thread T": watch another thread's event loop for
 * blocks: "main", a tid or a thread name.  The agent resolves the name
 * (and again every second, so a thread started later is found).
 */
#include <string.h>
#include "daemon.h"
#include "daemon_cmd.h"

/* Forward the selection to the agent. */
static int
cmd_ui_thread_exec(struct daemon_cmdctx *x)
{
	struct proto_agent_rec r = { .type = PROTO_AG_UI_THREAD };

	if (x->argv[0][0] == '\0' || strlen(x->argv[0]) > 63)
		return daemon_cmd_error(x, "bad thread '%s' (expected main, a tid or a "
		    "thread name of at most 15 characters)", x->argv[0]);
	r.name = x->argv[0];
	if (daemon_agent_send(x->s->agent, &r) < 0)
		return daemon_cmd_error(x, "the agent of pid %d is not "
		    "reachable (connection closing)", (int)x->s->pid);
	daemon_cmd_msg(x, "ui thread of pid %d (%s) set to %s", (int)x->s->pid, x->s->name,
	    x->argv[0]);
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_ui_thread_entry = {
	.name = "ui-thread",
	.usage = "T (main, a tid or a thread name)",
	.min_args = 1,
	.max_args = 1,
	.flags = DAEMON_CMD_TARGET | DAEMON_CMD_LIVE,
	.exec = cmd_ui_thread_exec,
};
