/*
 * cmd-targets.c - "targets": list every session, one line each; '*' marks
 * the one this client watches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"
#include "daemon_cmd.h"

/* Build the list in the reply text. */
static int
cmd_targets_exec(struct daemon_cmdctx *x)
{
	const struct daemon_sessions *ss = &x->d->sessions;
	uint64_t wall = proto_wall_ms();
	char *buf, *p;
	size_t cap;

	if (ss->n == 0) {
		daemon_cmd_msg(x, "no targets yet (start one with: hookscoped run "
		    "-- PROG)");
		return 0;
	}
	cap = 64;
	for (size_t i = 0; i < ss->n; i++)
		cap += 128 + 512 + (ss->v[i]->name ? strlen(ss->v[i]->name) : 0) +
		    (ss->v[i]->exe ? strlen(ss->v[i]->exe) : 0);
	p = buf = xmalloc(cap);
	p += snprintf(p, cap, "%zu target%s:", ss->n, ss->n == 1 ? "" : "s");
	for (size_t i = 0; i < ss->n; i++) {
		const struct daemon_session *s = ss->v[i];
		uint64_t end = s->ended_ms ? s->ended_ms : wall;
		uint64_t up = end > s->started_ms ? (end - s->started_ms) / 1000 : 0;
		char sites[512];

		p += snprintf(p, cap - (size_t)(p - buf),
		    "\n%c %d %s %s level %u up %llus %s",
		    s == x->s ? '*' : ' ', (int)s->pid, s->name ? s->name : "?",
		    proto_target_state_name(s->state), (unsigned)s->level,
		    (unsigned long long)up, s->exe ? s->exe : "");
		if (s->nsites)
			p += snprintf(p, cap - (size_t)(p - buf), " sites: %s",
			    daemon_sites_line(s->sites, s->nsites, sites, sizeof sites));
	}
	free(x->msg);
	x->msg = buf;
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_targets_entry = {
	.name = "targets",
	.usage = "",
	.min_args = 0,
	.max_args = 0,
	.exec = cmd_targets_exec,
};
