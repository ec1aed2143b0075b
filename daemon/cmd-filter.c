/*
 * cmd-filter.c - "filter [TEXT]": show only functions whose name contains
 * TEXT (case-insensitive; the filter applies before top N).  Several
 * arguments are joined with spaces; none clears the filter.
 */
#include <stdlib.h>
#include <string.h>
#include "daemon.h"
#include "daemon_cmd.h"

#define CMD_FILTER_MAX 256

/* Set or clear the client's filter. */
static int
cmd_filter_exec(struct daemon_cmdctx *x)
{
	size_t len = 0;
	char *text;

	for (int i = 0; i < x->argc; i++)
		len += strlen(x->argv[i]) + 1;
	if (len > CMD_FILTER_MAX + 1)      /* len counts a NUL */
		return daemon_cmd_error(x, "text too long (at most %d "
		    "characters)", CMD_FILTER_MAX);
	free(x->view->filter);
	x->view->filter = NULL;
	if (len <= 1) {
		daemon_cmd_msg(x, "filter cleared");
		return 0;
	}
	text = xcalloc(1, len);
	for (int i = 0; i < x->argc; i++) {
		if (i)
			strcat(text, " ");
		strcat(text, x->argv[i]);
	}
	x->view->filter = text;
	daemon_cmd_msg(x, "showing functions matching '%s'", text);
	return 0;
}

const struct daemon_cmd_entry daemon_cmd_filter_entry = {
	.name = "filter",
	.usage = "[TEXT]",
	.min_args = 0,
	.max_args = PROTO_MAX_ARGS,
	.exec = cmd_filter_exec,
};
