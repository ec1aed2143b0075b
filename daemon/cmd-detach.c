/*
 * cmd-detach.c - "detach [PID]": the target's attached agent removes every
 * hook and unloads itself (collectors/agent/agent_detach.c); the session becomes
 * "detached" when its connection closes.  Only agents injected by attach
 * can leave: a preloaded one is refused with what to do instead.
 */
#include "daemon.h"
#include "attach.h"
#include "daemon_cmd.h"

/* Send the detach record to the target's (or PID's) agent. */
static int
cmd_detach_exec(struct daemon_cmdctx *x)
{
	struct daemon_session *s = x->s;
	long pid;

	if (daemon_access_remote_cmd(x, "detach") < 0)
		return -1;
	if (x->argc > 0) {
		if (daemon_parse_int(x->argv[0], 1, INT32_MAX, &pid) < 0)
			return daemon_cmd_error(x, "bad pid '%s' (see 'targets')", x->argv[0]);
		s = daemon_sessions_find(&x->d->sessions, (int32_t)pid);
	}
	if (s == NULL)
		return daemon_cmd_error(x, "no session for that pid (see 'targets')");
	if (s->state != PROTO_TARGET_LIVE || s->agent == NULL)
		return daemon_cmd_error(x, "pid %d is %s: its agent is not connected",
		    (int)s->pid, proto_target_state_name(s->state));
	if (!s->attached)
		return daemon_cmd_error(x, "pid %d was started with the agent preloaded; it "
		    "cannot be unloaded (use 'level 0' to stop timing)", (int)s->pid);
	if (daemon_agent_send(s->agent, &(struct proto_agent_rec){ .type = PROTO_AG_DETACH }) < 0)
		return daemon_cmd_error(x, "the agent of pid %d is not reachable (connection "
		    "closing)", (int)s->pid);
	daemon_cmd_msg(x, "detaching from %d (%s): its agent removes its hooks and unloads",
	    (int)s->pid, s->name ? s->name : "?");
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_detach_entry = {
	.name = "detach",
	.usage = "[PID]",
	.min_args = 0,
	.max_args = 1,
	.exec = cmd_detach_exec,
};
