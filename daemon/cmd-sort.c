/*
 * cmd-sort.c - "sort KEY": the key this client's frames rank functions by.
 */
#include "daemon.h"
#include "daemon_cmd.h"

/* Set the client's sort key. */
static int
cmd_sort_exec(struct daemon_cmdctx *x)
{
	int key = proto_rank_parse(x->argv[0]);

	if (key < 0)
		return daemon_cmd_error(x, "unknown key '%s' (keys: %s)",
		    x->argv[0], proto_rank_names());
	x->view->sort = key;
	daemon_cmd_msg(x, "sorting by %s", proto_rank_name(key));
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_sort_entry = {
	.name = "sort",
	.usage = "KEY (calls, rate, total, self, avg, max, slow, name)",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_sort_exec,
};
