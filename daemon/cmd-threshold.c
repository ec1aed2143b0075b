/*
 * cmd-threshold.c - "threshold NAME VALUE": set a named threshold in the
 * target's agent.  The names, units and ranges are the collectors' rows
 * (daemon_collector.h); the client speaks the unit (decimals allowed), the agent
 * gets nanoseconds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_cmd.h"
#include "daemon_collector.h"

/* "slow (ms)" list for messages. */
static void
cmd_threshold_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < daemon_ncollectors; i++)
		for (size_t k = 0; k < daemon_collectors[i]->nthresholds && off < len; k++) {
			const struct daemon_threshold *t = &daemon_collectors[i]->thresholds[k];

			off += (size_t)snprintf(buf + off, len - off, "%s%s (%s: %s)",
			    off ? ", " : "", t->name, t->unit, t->help);
		}
}

/* Validate, convert to ns, forward. */
static int
cmd_threshold_exec(struct daemon_cmdctx *x)
{
	const struct daemon_threshold *t = daemon_threshold_find(x->argv[0]);
	struct proto_agent_rec r = { .type = PROTO_AG_THRESHOLD };
	char names[1024], *end;
	double v;

	if (t == NULL) {
		cmd_threshold_names(names, sizeof names);
		return daemon_cmd_error(x, "unknown name '%s' (known: %s)",
		    x->argv[0], names);
	}
	errno = 0;
	v = strtod(x->argv[1], &end);
	if (errno != 0 || end == x->argv[1] || *end != '\0' || !isfinite(v) ||
	    v < t->min || v > t->max)
		return daemon_cmd_error(x, "bad %s value '%s' (expected "
		    "%g to %g %s)", t->name, x->argv[1], t->min, t->max, t->unit);
	r.name = (char *)(t->agent ? t->agent : t->name);
	r.value = (int64_t)(v * t->ns_per_unit + 0.5);   /* v >= 0; no libm */
	if (daemon_agent_send(x->s->agent, &r) < 0)
		return daemon_cmd_error(x, "the agent of pid %d is not "
		    "reachable (connection closing)", (int)x->s->pid);
	daemon_cmd_msg(x, "threshold %s set to %g %s for pid %d (%s)", t->name, v,
	    t->unit, (int)x->s->pid, x->s->name);
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_threshold_entry = {
	.name = "threshold",
	.usage = "NAME VALUE (an unknown NAME lists the names and units)",
	.min_args = 2,
	.max_args = 2,
	.flags = DAEMON_CMD_TARGET | DAEMON_CMD_LIVE,
	.exec = cmd_threshold_exec,
};
