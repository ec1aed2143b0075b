/*
 * attach_cli.c - "hookscoped attach PID" and "hookscoped detach PID" from
 * the command line (one-shot: inject or unload, print what happened, exit
 * 0 or 1), and the detach of attached agents at a daemon shutdown
 * (--detach-on-exit).  The command line needs no running daemon: it
 * injects from this process, pointing the agent at the socket a daemon
 * with the same --socket listens on (or will).
 */
#include <stdio.h>
#include <stdlib.h>
#include "daemon.h"
#include "attach.h"

#define ATTACH_DETACH_WAIT_MS 10000   /* an agent unloads in ms; allow for load */

/* See daemon.h. */
int
daemon_attach_main(const struct daemon_opts *o)
{
	char msg[2048], err[512];
	int rc;

	if (o->detach_pid > 0) {
		rc = daemon_detach(o->detach_pid, ATTACH_DETACH_WAIT_MS, msg, sizeof msg);
	} else {
		struct attach_req a = { .pid = o->attach_pid, .level = o->attach_level,
			.grace_s = o->attach_grace_s, .socket_path = o->socket_path };
		char *agent = daemon_run_agent_path(o->agent, err, sizeof err);

		if (agent == NULL) {
			fprintf(stderr, "hookscoped: cannot attach to %d: %s\n", (int)o->attach_pid, err);
			return 1;
		}
		a.agent = agent;
		rc = daemon_attach(&a, msg, sizeof msg);
		free(agent);
	}
	fprintf(rc == 0 ? stdout : stderr, "hookscoped: %s\n", msg);
	return rc == 0 ? 0 : 1;
}

/* See daemon.h: synchronous, bounded per agent by ATTACH_DETACH_WAIT_MS. */
void
daemon_attach_shutdown(struct daemon_state *d)
{
	char msg[2048];

	if (!d->opts->detach_on_exit)
		return;
	for (size_t i = 0; i < d->sessions.n; i++) {
		struct daemon_session *s = d->sessions.v[i];

		if (s->state != PROTO_TARGET_LIVE || !s->attached)
			continue;
		daemon_detach((pid_t)s->pid, ATTACH_DETACH_WAIT_MS, msg, sizeof msg);
		daemon_log(DLOG_NOTICE, "%s", msg);
	}
}
