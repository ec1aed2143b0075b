/*
 * cmd-top.c - "top N": how many functions this client's frames carry.
 */
#include "daemon.h"
#include "daemon_cmd.h"

/* Set the client's row count. */
static int
cmd_top_exec(struct daemon_cmdctx *x)
{
	long n;

	if (daemon_parse_int(x->argv[0], 1, DAEMON_MAX_TOP, &n) < 0)
		return daemon_cmd_error(x, "bad count '%s' (expected 1-%d)",
		    x->argv[0], DAEMON_MAX_TOP);
	x->view->top = (size_t)n;
	daemon_cmd_msg(x, "showing the top %ld functions", n);
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_top_entry = {
	.name = "top",
	.usage = "N (1-1000)",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_top_exec,
};
