/*
 * cmd-dump.c - "dump [-f FORMAT] [-a] [-n NAME]": a report of the target
 * (or of every session with -a) in FORMAT (text, json, trace, folded;
 * report.h), written atomically into the report directory as
 * NAME-<YYYYmmdd-HHMMSS>.<ext> and returned in the reply's data.
 *
 * Decision: when the report cannot be saved (directory unwritable, disk
 * full) the reply is ok=false with the reason, and still carries the report
 * in data, so the user loses nothing; no partial file is left behind.  A
 * NAME that could leave the directory ("../x", "a/b", ".hidden") is refused
 * before anything is written.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon_cmd.h"
#include "report.h"

/* Reports larger than this travel in the file only (frames have a cap). */
#define CMD_DUMP_MAX_DATA (PROTO_MAX_FRAME - 65536)

struct cmd_dump_opts {
	int  fmt;
	bool all;
	const char *name;
};

/* -f FORMAT, -a, -n NAME (long forms --format, --all, --name). */
static int
cmd_dump_parse(struct daemon_cmdctx *x, struct cmd_dump_opts *o)
{
	char err[PROTO_ERR_LEN];

	for (int i = 0; i < x->argc; i++) {
		const char *a = x->argv[i];
		bool has_val = i + 1 < x->argc;

		if (strcmp(a, "-a") == 0 || strcmp(a, "--all") == 0) {
			o->all = true;
		} else if (strcmp(a, "-f") == 0 || strcmp(a, "--format") == 0) {
			if (!has_val || (o->fmt = report_format_parse(x->argv[++i])) < 0)
				return daemon_cmd_error(x, "dump: format must be text, json, "
				    "trace or folded");
		} else if (strcmp(a, "-n") == 0 || strcmp(a, "--name") == 0) {
			if (!has_val)
				return daemon_cmd_error(x, "dump: -n needs a NAME");
			o->name = x->argv[++i];
			if (daemon_report_name_ok(o->name, err, sizeof err) < 0)
				return daemon_cmd_error(x, "dump: %s", err);
		} else {
			return daemon_cmd_error(x, "dump: unknown option '%s' (usage: dump %s)",
			    a, daemon_cmd_dump_entry.usage);
		}
	}
	return 0;
}

/* Format, save, attach. */
static int
cmd_dump_exec(struct daemon_cmdctx *x)
{
	struct cmd_dump_opts o = { .fmt = REPORT_TEXT };
	char err[PROTO_ERR_LEN], name[32], *path = NULL, *text;
	uint64_t wall = proto_wall_ms();
	size_t len;
	int rc;

	if (daemon_access_remote_cmd(x, "dump") < 0)   /* writes and reads device files */
		return -1;
	if (cmd_dump_parse(x, &o) < 0)
		return -1;
	if (!o.all && x->s == NULL)
		return daemon_cmd_error(x, "no target yet (no agent has connected; "
		    "start one with: hookscoped run -- PROG)");
	if (o.name == NULL) {
		if (o.all)
			snprintf(name, sizeof name, "hookscope-all");
		else
			snprintf(name, sizeof name, "hookscope-%d", (int)x->s->pid);
		o.name = name;
	}
	if (o.all)
		text = report_build(x->d->sessions.v, x->d->sessions.n, o.fmt, x->now_ns,
		    wall, &len);
	else
		text = report_build(&x->s, 1, o.fmt, x->now_ns, wall, &len);
	rc = daemon_report_save(x->d->opts->report_dir, o.name, report_format_ext(o.fmt),
	    wall, text, len, &path, err, sizeof err);
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
	.usage = "[-f text|json|trace|folded] [-a] [-n NAME]",
	.min_args = 0,
	.max_args = 5,
	.exec = cmd_dump_exec,
};
