/*
 * cmd-ps.c - "ps [FILTER]": the processes one could attach to (attach_ps.c),
 * with their user, name, whether attach would work, and command line.
 */
#include <stdlib.h>
#include "daemon.h"
#include "daemon_cmd.h"
#include "attach.h"

/* The list in the reply text. */
static int
cmd_ps_exec(struct daemon_cmdctx *x)
{
	size_t n;
	char *list;

	if (daemon_access_remote_cmd(x, "ps") < 0)     /* the process list is for attach */
		return -1;
	list = attach_ps_list(x->argc ? x->argv[0] : NULL, &n);
	if (n == 0) {
		free(list);
		return daemon_cmd_error(x, "no process matches '%s'", x->argc ? x->argv[0] : "");
	}
	free(x->msg);
	x->msg = list;
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_ps_entry = {
	.name = "ps",
	.usage = "[FILTER]",
	.min_args = 0,
	.max_args = 1,
	.exec = cmd_ps_exec,
};
