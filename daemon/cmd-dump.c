/*
 * cmd-dump.c - "dump": write a plain-text report of the target (header,
 * then every function ranked by total time) into the report directory and
 * return it in the reply's data.
 *
 * Decision: when the report cannot be saved (directory unwritable, disk
 * full) the reply is ok=false with the reason, and still carries the report
 * in data, so the user loses nothing; no partial file is left behind.
 */
#include <stdlib.h>
#include "daemon.h"

/* Reports larger than this travel in the file only (frames have a cap). */
#define CMD_DUMP_MAX_DATA (PROTO_MAX_FRAME - 65536)

/* Format, save, attach. */
static int
cmd_dump_exec(struct daemon_cmdctx *x)
{
	char err[PROTO_ERR_LEN], *path = NULL, *text;
	uint64_t wall = proto_wall_ms();
	size_t len;
	int rc;

	if (daemon_access_remote_cmd(x, "dump") < 0)   /* writes and reads device files */
		return -1;
	text = daemon_report_format(x->s, x->now_ns, wall, &len);
	rc = daemon_report_write(x->d->opts->report_dir, x->s->pid, wall, text,
	    len, &path, err, sizeof err);
	if (len > CMD_DUMP_MAX_DATA) {
		if (rc < 0)
			daemon_cmd_msg(x, "%s; the report (%zu bytes) is too "
			    "large to send, so it is lost", err, len);
		else
			daemon_cmd_msg(x, "report written to %s (%zu bytes, too "
			    "large to send here)", path, len);
		free(text);
	} else {
		x->data = text;
		x->data_len = len;
		if (rc < 0)
			daemon_cmd_msg(x, "%s; the report is attached to this "
			    "reply but was not saved", err);
		else
			daemon_cmd_msg(x, "report written to %s", path);
	}
	free(path);
	return rc;
}

const struct daemon_cmd_entry daemon_cmd_dump_entry = {
	.name = "dump",
	.usage = "",
	.min_args = 0,
	.max_args = 0,
	.flags = DAEMON_CMD_TARGET,
	.exec = cmd_dump_exec,
};
