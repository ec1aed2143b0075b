/*
 * cmd-leaks.c - "leaks": run the memory collector's reachability scan in
 * the target (doc/memory.md, "Leak scan").  The agent stops the target's
 * threads briefly, scans and sends the result with its next memory record;
 * frames and reports carry it from then on.
 */
#include "daemon.h"
#include "daemon_cmd.h"

static int
cmd_leaks_exec(struct daemon_cmdctx *x)
{
	struct proto_agent_rec r = { .type = PROTO_AG_REQUEST, .name = (char *)"leaks" };

	if (daemon_agent_send(x->s->agent, &r) < 0)
		return daemon_cmd_error(x, "the agent of pid %d is not "
		    "reachable (connection closing)", (int)x->s->pid);
	daemon_cmd_msg(x, "leak scan of pid %d (%s) started: the result follows in the "
	    "memory view", (int)x->s->pid, x->s->name);
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_leaks_entry = {
	.name = "leaks",
	.usage = "",
	.min_args = 0,
	.max_args = 0,
	.flags = DAEMON_CMD_TARGET | DAEMON_CMD_LIVE,
	.exec = cmd_leaks_exec,
};
