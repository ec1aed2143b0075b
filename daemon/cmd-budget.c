/*
 * cmd-budget.c - "budget PCT|off": the overhead budget of the target's
 * agent, which keeps its hooks' cost within PCT percent of the target's CPU
 * time by changing how each function is watched.  The agent gets a budget
 * record; the session shows the new budget at once.  --budget gives every
 * agent its budget on connect the same way.
 */
#include "daemon.h"
#include "daemon_cmd.h"

/* See daemon.h. */
void
daemon_budget_greet(struct daemon_agent *a, const struct daemon_opts *o)
{
	struct proto_agent_rec r = { .type = PROTO_AG_BUDGET, .budget_ppm = o->budget_ppm };

	if (!o->budget_set)
		return;
	if (daemon_agent_send(a, &r) < 0)
		daemon_log(DLOG_WARN, "could not send the overhead budget of --budget to an agent");
}

/* Forward the budget to the agent and record it. */
static int
cmd_budget_exec(struct daemon_cmdctx *x)
{
	struct proto_agent_rec r = { .type = PROTO_AG_BUDGET };
	char err[PROTO_ERR_LEN], pct[32];

	if (proto_budget_parse(x->argv[0], &r.budget_ppm, err, sizeof err) < 0)
		return daemon_cmd_error(x, "%s", err);
	if (daemon_agent_send(x->s->agent, &r) < 0)
		return daemon_cmd_error(x, "the agent of pid %d is not "
		    "reachable (connection closing)", (int)x->s->pid);
	x->s->budget_ppm = r.budget_ppm;
	if (r.budget_ppm == 0)
		daemon_cmd_msg(x, "budget off for pid %d (%s): every selected function is timed",
		    (int)x->s->pid, x->s->name);
	else
		daemon_cmd_msg(x, "budget %s of the CPU set for pid %d (%s)",
		    proto_budget_str(r.budget_ppm, pct, sizeof pct), (int)x->s->pid, x->s->name);
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_budget_entry = {
	.name = "budget",
	.usage = "PCT|off (over 0 up to 100 percent of the target's CPU)",
	.min_args = 1,
	.max_args = 1,
	.flags = DAEMON_CMD_TARGET | DAEMON_CMD_LIVE,
	.exec = cmd_budget_exec,
};
