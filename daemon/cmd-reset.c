/*
 * cmd-reset.c - "reset": zero the target's figures.  The agent zeroes its
 * counters; the daemon zeroes its copy and the rates at the same moment, so
 * the next frames start from zero instead of showing a drop.
 */
#include "daemon.h"
#include "daemon_cmd.h"

/* Forward the reset and zero the session. */
static int
cmd_reset_exec(struct daemon_cmdctx *x)
{
	struct proto_agent_rec r = { .type = PROTO_AG_RESET };

	if (daemon_agent_send(x->s->agent, &r) < 0)
		return daemon_cmd_error(x, "the agent of pid %d is not "
		    "reachable (connection closing)", (int)x->s->pid);
	daemon_session_reset(x->s, x->now_ns);
	daemon_cmd_msg(x, "figures of pid %d (%s) reset", (int)x->s->pid,
	    x->s->name);
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_reset_entry = {
	.name = "reset",
	.usage = "",
	.min_args = 0,
	.max_args = 0,
	.flags = DAEMON_CMD_TARGET | DAEMON_CMD_LIVE,
	.exec = cmd_reset_exec,
};
