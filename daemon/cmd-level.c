/*
 * cmd-level.c - "level N": set the target's monitoring level (0-4).  The
 * agent gets a level record; the session shows the new level at once.
 */
#include "daemon.h"
#include "daemon_cmd.h"

/* Forward the level to the agent and record it. */
static int
cmd_level_exec(struct daemon_cmdctx *x)
{
	struct proto_agent_rec r = { .type = PROTO_AG_LEVEL };
	long level;

	if (daemon_parse_int(x->argv[0], 0, 4, &level) < 0)
		return daemon_cmd_error(x, "bad level '%s' (expected 0-4)",
		    x->argv[0]);
	r.level = (uint8_t)level;
	if (daemon_agent_send(x->s->agent, &r) < 0)
		return daemon_cmd_error(x, "the agent of pid %d is not "
		    "reachable (connection closing)", (int)x->s->pid);
	x->s->level = (uint8_t)level;
	daemon_cmd_msg(x, "level %ld set for pid %d (%s)", level, (int)x->s->pid,
	    x->s->name);
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_level_entry = {
	.name = "level",
	.usage = "N (0-4)",
	.min_args = 1,
	.max_args = 1,
	.flags = DAEMON_CMD_TARGET | DAEMON_CMD_LIVE,
	.exec = cmd_level_exec,
};
