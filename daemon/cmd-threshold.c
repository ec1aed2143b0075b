/*
 * cmd-threshold.c - "threshold NAME VALUE": set a named threshold in the
 * target's agent (slow calls; the frame budget and histogram levels).  Known names live in a table with their unit; the client
 * speaks the unit (ms, decimals allowed), the agent gets nanoseconds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"

static const struct cmd_threshold_def {
	const char *name;
	const char *agent;        /* name the agent knows; NULL: the same */
	const char *unit;         /* what the client gives */
	double      ns_per_unit;  /* the agent gets nanoseconds */
	double      min, max;     /* in the client's unit */
	const char *help;
} cmd_thresholds[] = {
	{ .name = "slow", .unit = "ms", .ns_per_unit = 1e6, .max = 3600e3,
	  .help = "calls longer than it count as slow" },
	{ .name = "frame", .unit = "ms", .ns_per_unit = 1e6, .min = 0.1, .max = 10e3,
	  .help = "frame budget: longer frames are jank" },
	{ .name = "frame_ms", .agent = "frame", .unit = "ms", .ns_per_unit = 1e6,
	  .min = 0.1, .max = 10e3, .help = "same as frame" },
	{ .name = "frame_high", .unit = "ms", .ns_per_unit = 1e6, .min = 0.1, .max = 3600e3,
	  .help = "frames longer are level high, not middle" },
	{ .name = "frame_frozen", .unit = "ms", .ns_per_unit = 1e6, .min = 0.1, .max = 3600e3,
	  .help = "frames longer are level frozen" },
	{ .name = "block", .unit = "ms", .ns_per_unit = 1e6, .min = 1, .max = 3600e3,
	  .help = "UI-thread messages longer are blocks" },
	{ .name = "block_sample", .unit = "ms", .ns_per_unit = 1e6, .min = 1, .max = 10e3,
	  .help = "stack sampling interval during a block" },
	{ .name = "ipc", .unit = "ms", .ns_per_unit = 1e6, .min = 1, .max = 3600e3,
	  .help = "IPC calls longer are slow (stack kept)" },
	{ .name = "hold", .unit = "s", .ns_per_unit = 1e9, .min = 0.001, .max = 864000,
	  .help = "power resources held longer are leaks" },
};
#define CMD_NTHRESHOLDS (sizeof cmd_thresholds / sizeof cmd_thresholds[0])

/* "slow (ms)" list for messages. */
static void
cmd_threshold_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < CMD_NTHRESHOLDS && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s (%s: %s)",
		    i ? ", " : "", cmd_thresholds[i].name, cmd_thresholds[i].unit,
		    cmd_thresholds[i].help);
}

/* Validate, convert to ns, forward. */
static int
cmd_threshold_exec(struct daemon_cmdctx *x)
{
	const struct cmd_threshold_def *t = NULL;
	struct proto_agent_rec r = { .type = PROTO_AG_THRESHOLD };
	char names[1024], *end;
	double v;

	for (size_t i = 0; i < CMD_NTHRESHOLDS; i++)
		if (strcmp(cmd_thresholds[i].name, x->argv[0]) == 0)
			t = &cmd_thresholds[i];
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
	.usage = "NAME VALUE (NAME: slow, frame, frame_high, frame_frozen, block, "
	    "block_sample; in ms)",
	.min_args = 2,
	.max_args = 2,
	.flags = DAEMON_CMD_TARGET | DAEMON_CMD_LIVE,
	.exec = cmd_threshold_exec,
};
