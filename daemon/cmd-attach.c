/*
 * cmd-attach.c - "attach PID [LEVEL]": inject the agent into a running
 * process (attach.c).  Injecting code is refused from a client that is not
 * on loopback unless the daemon runs with --allow-remote-attach.  The
 * ptrace work runs inside the event loop: a few ms, bounded by
 * ATTACH_CALL_MS when the target does not return from dlopen.
 */
#include "daemon.h"
#include "daemon_cmd.h"
#include "attach.h"

/* Attach to the pid at the level given (default 2). */
static int
cmd_attach_exec(struct daemon_cmdctx *x)
{
	const struct daemon_opts *o = x->d->opts;
	struct attach_req a = { .level = 2, .grace_s = o->attach_grace_s,
		.socket_path = o->socket_path };
	char msg[2048], err[512], *agent;
	long pid, level = 2;
	int rc;

	if (daemon_access_remote_cmd(x, "attach") < 0)
		return -1;
	if (daemon_parse_int(x->argv[0], 1, INT32_MAX, &pid) < 0)
		return daemon_cmd_error(x, "bad pid '%s' (see 'ps')", x->argv[0]);
	if (x->argc > 1 && daemon_parse_int(x->argv[1], 0, 4, &level) < 0)
		return daemon_cmd_error(x, "bad level '%s' (expected 0-4)", x->argv[1]);
	if ((agent = daemon_run_agent_path(o->agent, err, sizeof err)) == NULL)
		return daemon_cmd_error(x, "cannot attach to %ld: %s", pid, err);
	a.pid = (pid_t)pid;
	a.level = (int)level;
	a.agent = agent;
	rc = daemon_attach(&a, msg, sizeof msg);
	free(agent);
	if (rc == 0)
		x->view->target = (int32_t)pid;   /* show it as soon as it reports */
	return rc == 0 ? (daemon_cmd_msg(x, "%s", msg), 0) : daemon_cmd_error(x, "%s", msg);
}

const struct daemon_cmd_entry daemon_cmd_attach_entry = {
	.name = "attach",
	.usage = "PID [LEVEL]",
	.min_args = 1,
	.max_args = 2,
	.exec = cmd_attach_exec,
};
