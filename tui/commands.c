/*
 * commands.c - the `:` commands, one table in the tmux style.  Most map to
 * a daemon command of the same name (doc/protocol.md); a few are local.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui.h"
#include "panel-blocks.h"

static int cmd_plain(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_level(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_budget(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_dump(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_sort(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_top(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_filter(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_target(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_theme(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_help(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_sites(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_quit(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_blocks(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_view(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_issues(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_pause(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_refresh(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);
static int cmd_leaks(struct tui_app *a, int argc, char **argv, char *err, size_t errlen);

const struct tui_command tui_commands[] = {
	{ .name = "level", .args = "N", .min_args = 1, .max_args = 1, .exec = cmd_level,
	  .help = "set the target's monitoring level, 0 (none) to 4 (every function)" },
	{ .name = "budget", .args = "PCT|off", .min_args = 1, .max_args = 1, .exec = cmd_budget,
	  .help = "the hooks may cost the target at most PCT% of its CPU; off: time all" },
	{ .name = "reset", .args = "", .min_args = 0, .max_args = 0, .exec = cmd_plain,
	  .help = "zero the target's figures" },
	{ .name = "dump", .args = "[-f FORMAT] [-a] [FILE]", .min_args = 0, .max_args = 4,
	  .exec = cmd_dump,
	  .help = "save a report to FILE (default ./hookscope-PID-TIME.EXT); FORMAT text, json, "
	  "trace or folded (default from FILE); -a: every target" },
	{ .name = "threshold", .args = "NAME VALUE", .min_args = 2, .max_args = 2, .exec = cmd_plain,
	  .help = "set a threshold, e.g. `threshold slow 5` (calls over 5 ms are slow)" },
	{ .name = "sort", .args = "KEY", .min_args = 1, .max_args = 1, .exec = cmd_sort,
	  .help = "sort by calls, rate, total, self, avg, max, slow or name" },
	{ .name = "top", .args = "N", .min_args = 1, .max_args = 1, .exec = cmd_top,
	  .help = "rows the daemon sends (1-1000)" },
	{ .name = "filter", .args = "[TEXT]", .min_args = 0, .max_args = -1, .exec = cmd_filter,
	  .help = "only functions whose name contains TEXT; no TEXT clears (also /)" },
	{ .name = "target", .args = "PID|auto", .min_args = 1, .max_args = 1, .exec = cmd_target,
	  .help = "show target PID; auto: the newest live one (t cycles)" },
	{ .name = "targets", .args = "", .min_args = 0, .max_args = 0, .exec = cmd_plain,
	  .help = "list the targets the daemon knows" },
	{ .name = "forget", .args = "PID", .min_args = 1, .max_args = 1, .exec = cmd_plain,
	  .help = "drop an exited or lost target" },
	{ .name = "attach", .args = "PID [LEVEL]", .min_args = 1, .max_args = 2, .exec = cmd_plain,
	  .help = "inject the agent into running process PID (see :ps); level 0-4, default 2" },
	{ .name = "detach", .args = "[PID]", .min_args = 0, .max_args = 1, .exec = cmd_plain,
	  .help = "remove every hook from the target (or PID) and unload its agent" },
	{ .name = "ps", .args = "[FILTER]", .min_args = 0, .max_args = 1, .exec = cmd_plain,
	  .help = "processes one can attach to, those whose name or command has FILTER" },
	{ .name = "ui-thread", .args = "T", .min_args = 1, .max_args = 1, .exec = cmd_plain,
	  .help = "watch thread T (main, a tid or a name) for UI-thread blocks" },
	{ .name = "leaks", .args = "", .min_args = 0, .max_args = 0, .exec = cmd_leaks,
	  .help = "scan the target's heap for blocks nothing points to (full tracking); "
	  "the result in the memory view, Enter: their stacks" },
	{ .name = "blocks", .args = "", .min_args = 0, .max_args = 0, .exec = cmd_blocks,
	  .help = "UI-thread blocks with their symbolized stacks (also b)" },
	{ .name = "issues", .args = "", .min_args = 0, .max_args = 0, .exec = cmd_issues,
	  .help = "problems found in the target, newest first, and the issue sinks (also 8)" },
	{ .name = "sites", .args = "", .min_args = 0, .max_args = 0, .exec = cmd_sites,
	  .help = "hooked functions per back-end: active, disabled, skipped, why; demotions" },
	{ .name = "theme", .args = "NAME|PATH", .min_args = 1, .max_args = 1, .exec = cmd_theme,
	  .help = "switch the colour theme (doc/themes.md)" },
	{ .name = "view", .args = "NAME", .min_args = 1, .max_args = 1, .exec = cmd_view,
	  .help = "show a view:", .views = true },
	{ .name = "pause", .args = "[on|off]", .min_args = 0, .max_args = 1, .exec = cmd_pause,
	  .help = "freeze the display while data keeps arriving; again resumes (also p)" },
	{ .name = "refresh", .args = "SECONDS", .min_args = 1, .max_args = 1, .exec = cmd_refresh,
	  .help = "show a new frame at most every SECONDS, 0.1 to 60 (also + and -)" },
	{ .name = "help", .args = "", .min_args = 0, .max_args = 0, .exec = cmd_help,
	  .help = "show the keys and commands (also ?)" },
	{ .name = "quit", .args = "", .min_args = 0, .max_args = 0, .exec = cmd_quit,
	  .help = "leave hookscope (also q)" },
	{ .name = NULL },
};

/* See tui.h: exact name, else a unique prefix. */
const struct tui_command *tui_command_find(const char *name)
{
	const struct tui_command *found = NULL;
	size_t len = strlen(name);

	if (len == 0)
		return NULL;
	for (int i = 0; tui_commands[i].name != NULL; i++) {
		if (strcmp(tui_commands[i].name, name) == 0)
			return &tui_commands[i];
		if (strncmp(tui_commands[i].name, name, len) == 0) {
			if (found != NULL)
				return NULL;    /* ambiguous */
			found = &tui_commands[i];
		}
	}
	return found;
}

/* See tui.h. */
int tui_cmd_split(const char *line, char **argv, int max, char *err, size_t errlen)
{
	const char *p = line;
	int argc = 0;

	for (;;) {
		char word[1024];
		size_t n = 0;
		char quote = 0;

		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		if (argc == max) {
			snprintf(err, errlen, "too many words (at most %d)", max);
			goto fail;
		}
		while (*p && (quote || (*p != ' ' && *p != '\t'))) {
			if (quote && *p == quote) {
				quote = 0;
			} else if (!quote && (*p == '"' || *p == '\'')) {
				quote = *p;
			} else if (*p == '\\' && quote != '\'' && p[1] != '\0') {
				p++;
				if (n < sizeof word - 1)
					word[n++] = *p;
			} else if (n < sizeof word - 1) {
				word[n++] = *p;
			}
			p++;
		}
		if (quote) {
			snprintf(err, errlen, "missing closing %c", quote);
			goto fail;
		}
		word[n] = '\0';
		argv[argc++] = xstrdup(word);
	}
	return argc;
fail:
	tui_cmd_split_free(argv, argc);
	return -1;
}

/* See tui.h. */
void tui_cmd_split_free(char **argv, int argc)
{
	for (int i = 0; i < argc; i++)
		free(argv[i]);
}

/* Is s a decimal in [min, max]? */
static bool cmd_number(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* A daemon command as typed; the reply goes to the message line. */
static int cmd_plain(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	long pid;

	if (strcmp(argv[0], "forget") == 0 && !cmd_number(argv[1], 1, INT32_MAX, &pid)) {
		snprintf(err, errlen, "forget: '%s' is not a process id", argv[1]);
		return -1;
	}
	(void)err;
	(void)errlen;
	return tui_app_send(a, argc, (const char *const *)argv);
}

/* level N: checked here (0-4) so a typo gets an answer at once. */
static int cmd_level(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	long v;

	if (!cmd_number(argv[1], 0, 4, &v)) {
		snprintf(err, errlen, "level: '%s' is not a level (0 to 4)", argv[1]);
		return -1;
	}
	return tui_app_send(a, argc, (const char *const *)argv);
}

/* budget PCT|off: checked here with the daemon's own rule, so a typo gets
 * an answer at once. */
static int cmd_budget(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	uint32_t ppm;
	char why[PROTO_ERR_LEN];

	if (proto_budget_parse(argv[1], &ppm, why, sizeof why) < 0) {
		snprintf(err, errlen, "budget: %s", why);
		return -1;
	}
	return tui_app_send(a, argc, (const char *const *)argv);
}

/* Where a dump goes and who asked. */
struct cmd_dump_req {
	struct tui_app *a;
	char            path[1024];
};

/* Reply to dump: save the report's data. */
static void cmd_dump_reply(void *arg, const struct proto_reply *r)
{
	struct cmd_dump_req *d = arg;
	char err[sizeof d->path + 128];

	/* A report the daemon could not save on its side still comes along. */
	if (r == NULL)
		tui_app_message(d->a, true, "dump: no reply (connection lost)");
	else if (r->data == NULL)
		tui_app_message(d->a, true, "dump: %s%s", r->ok ? "the daemon sent no report: " : "",
		    r->msg);
	else if (tui_dump_save(d->path, r->data, r->data_len, err, sizeof err) < 0)
		tui_app_message(d->a, true, "dump: %s", err);
	else if (!r->ok)
		tui_app_message(d->a, true, "dump: saved to %s (%zu bytes), but: %s",
		    d->path, r->data_len, r->msg);
	else
		tui_app_message(d->a, false, "dump: report saved to %s (%zu bytes)",
		    d->path, r->data_len);
	free(d);
}

/* dump [-f FORMAT] [-a] [FILE]: the daemon makes the report, we save its
 * data here (the format from FILE when -f is not given). */
static int cmd_dump(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	struct cmd_dump_req *d;
	const char *words[] = { "dump", "-f", NULL, "-a" }, *file = NULL;
	const struct proto_target *t = tui_app_target(a);
	bool all = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-a") == 0) {
			all = true;
		} else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc &&
		    tui_dump_format_ok(argv[i + 1])) {
			words[2] = argv[++i];
		} else if (argv[i][0] != '-' && file == NULL) {
			file = argv[i];
		} else {
			snprintf(err, errlen, "usage: dump [-f text|json|trace|folded] [-a] [FILE]");
			return -1;
		}
	}
	if (words[2] == NULL)
		words[2] = tui_dump_format(file);
	d = xcalloc(1, sizeof *d);
	d->a = a;
	if (file != NULL) {
		snprintf(d->path, sizeof d->path, "%s", file);
	} else {
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;

		strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
		if (all)
			snprintf(d->path, sizeof d->path, "./hookscope-all-%s%s", stamp,
			    tui_dump_ext(words[2]));
		else
			snprintf(d->path, sizeof d->path, "./hookscope-%d-%s%s",
			    t ? (int)t->pid : 0, stamp, tui_dump_ext(words[2]));
	}
	if (tui_app_send_reply(a, all ? 4 : 3, words, cmd_dump_reply, d) < 0) {
		snprintf(err, errlen, "dump: not connected to the daemon");
		free(d);
		return -1;
	}
	return 0;
}

/* sort KEY: remembered (sent again after a reconnect) and applied at once. */
static int cmd_sort(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (tui_sort_key_index(argv[1]) < 0) {
		snprintf(err, errlen, "sort: unknown key '%s' (calls, rate, total, self, avg, max, "
		    "slow or name)", argv[1]);
		return -1;
	}
	tui_app_set_sort(a, argv[1]);
	return 0;
}

/* top N: rows per frame, remembered for reconnects. */
static int cmd_top(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	long v;

	if (!cmd_number(argv[1], 1, 1000, &v)) {
		snprintf(err, errlen, "top: '%s' is not a row count (1 to 1000)", argv[1]);
		return -1;
	}
	a->want_top = v;
	return tui_app_send(a, argc, (const char *const *)argv);
}

/* filter [TEXT...]: the words joined by spaces; none clears. */
static int cmd_filter(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	char text[1024] = "";

	(void)err;
	(void)errlen;
	for (int i = 1; i < argc; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", i > 1 ? " " : "",
		    argv[i]);
	tui_app_set_filter(a, text);
	return 0;
}

/* target PID|auto: remembered for reconnects. */
static int cmd_target(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	long pid;

	if (strcmp(argv[1], "auto") == 0) {
		pid = 0;
	} else if (!cmd_number(argv[1], 0, INT32_MAX, &pid)) {
		snprintf(err, errlen, "target: '%s' is not a process id (or auto)", argv[1]);
		return -1;
	}
	a->want_target = (int32_t)pid;
	return tui_app_send(a, argc, (const char *const *)argv);
}

/* theme NAME|PATH: a broken theme leaves the current one in place. */
static int cmd_theme(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	struct tui_theme t;

	(void)argc;
	if (tui_theme_load(&t, argv[1], err, errlen) < 0)
		return -1;
	a->theme = t;
	tui_screen_theme(a);
	tui_app_message(a, false, "theme %s", t.source);
	return 0;
}

/* help: the same overlay as the ? key. */
static int cmd_help(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	char *text = tui_help_text();

	(void)argc;
	(void)argv;
	(void)err;
	(void)errlen;
	tui_app_overlay(a, " hookscope help ", text);
	free(text);
	return 0;
}

/* sites: the hook-site figures of the frame shown, with skip reasons. */
static int cmd_sites(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	char text[16384];

	(void)argc;
	(void)argv;
	if (a->frame == NULL) {
		snprintf(err, errlen, "no frame yet: wait for the daemon's first frame");
		return -1;
	}
	tui_fmt_sites_why(&a->frame->frame, text, sizeof text);
	tui_fmt_demoted(&a->frame->frame, text + strlen(text), sizeof text - strlen(text));
	tui_app_overlay(a, " hook sites ", text);
	return 0;
}

/* blocks: the detail view of the UI-thread blocks. */
static int cmd_blocks(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	(void)err;
	(void)errlen;
	tui_blocks_show(a);
	return 0;
}

/* leaks: the daemon runs the scan; the memory view shows the result. */
static int cmd_leaks(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (tui_app_send(a, argc, (const char *const *)argv) < 0)
		return -1;
	tui_view_set(a, tui_view_find("memory"));
	return 0;
}

/* issues: the issues view. */
static int cmd_issues(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	(void)err;
	(void)errlen;
	tui_view_set(a, tui_view_find("issues"));
	return 0;
}

/* view NAME: one of the table of views (views.c), by name, prefix or key. */
static int cmd_view(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	int v = tui_view_find(argv[1]);

	(void)argc;
	if (v < 0) {
		char *names = tui_view_names();

		snprintf(err, errlen, "view: unknown view '%s' (%s, or %c-%c)", argv[1], names,
		    tui_views[0]->key, tui_views[tui_nviews - 1]->key);
		free(names);
		return -1;
	}
	tui_view_set(a, v);
	return 0;
}

/* pause [on|off]: without an argument, toggles. */
static int cmd_pause(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	bool on = !a->paused;

	if (argc > 1 && (strcmp(argv[1], "on") == 0 || strcmp(argv[1], "off") == 0)) {
		on = argv[1][1] == 'n';
	} else if (argc > 1) {
		snprintf(err, errlen, "pause: '%s' is neither on nor off", argv[1]);
		return -1;
	}
	tui_app_pause(a, on);
	return 0;
}

/* refresh SECONDS: the display period. */
static int cmd_refresh(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	char *end;
	double s = strtod(argv[1], &end);

	(void)argc;
	if (end == argv[1] || *end != '\0' || !(s >= 0.1 && s <= 60)) {
		snprintf(err, errlen, "refresh: '%s' is not a period in seconds (0.1 to 60)", argv[1]);
		return -1;
	}
	a->refresh_ms = (unsigned)(s * 1000 + 0.5);
	tui_app_message(a, false, "refresh every %.2g s", a->refresh_ms / 1000.0);
	return 0;
}

/* quit: the loop ends when the current input is handled. */
static int cmd_quit(struct tui_app *a, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	(void)err;
	(void)errlen;
	a->quit = true;
	return 0;
}

/* See tui.h: split, look up, check the argument count, run. */
void tui_commands_run(struct tui_app *a, const char *line)
{
	char *argv[PROTO_MAX_ARGS + 1], err[PROTO_ERR_LEN + 64];
	const struct tui_command *c;
	int argc = tui_cmd_split(line, argv, PROTO_MAX_ARGS + 1, err, sizeof err);

	if (argc <= 0) {
		if (argc < 0)
			tui_app_message(a, true, "%s", err);
		return;
	}
	c = tui_command_find(argv[0]);
	if (c == NULL) {
		tui_app_message(a, true, "unknown or ambiguous command '%s' (press ? for the list)",
		    argv[0]);
	} else if (argc - 1 < c->min_args || (c->max_args >= 0 && argc - 1 > c->max_args)) {
		tui_app_message(a, true, "usage: %s%s%s", c->name, c->args[0] ? " " : "", c->args);
	} else {
		free(argv[0]);
		argv[0] = xstrdup(c->name);
		if (c->exec(a, argc, argv, err, sizeof err) < 0)
			tui_app_message(a, true, "%s", err);
	}
	tui_cmd_split_free(argv, argc);
}

/* See tui.h. */
char *tui_commands_help(void)
{
	size_t cap = 4096, len = 0;
	char *s = xmalloc(cap);

	s[0] = '\0';
	for (int i = 0; tui_commands[i].name != NULL; i++) {
		char usage[64], *views = tui_commands[i].views ? tui_view_names() : NULL;

		snprintf(usage, sizeof usage, ":%s%s%s", tui_commands[i].name,
		    tui_commands[i].args[0] ? " " : "", tui_commands[i].args);
		if (views != NULL)            /* the names from the table of views */
			len += (size_t)snprintf(s + len, cap - len, "  %-22s %s %s (%c-%c)\n", usage,
			    tui_commands[i].help, views, tui_views[0]->key,
			    tui_views[tui_nviews - 1]->key);
		else
			len += (size_t)snprintf(s + len, cap - len, "  %-22s %s\n", usage,
			    tui_commands[i].help);
		free(views);
		if (len >= cap - 256) {
			cap *= 2;
			s = xrealloc(s, cap);
		}
	}
	return s;
}

/* See tui.h. */
char *tui_help_text(void)
{
	char *keys = tui_keys_help(), *cmds = tui_commands_help();
	size_t n = strlen(keys) + strlen(cmds) + 512;
	char *s = xmalloc(n);

	snprintf(s, n, "Keys\n%s\nCommands (type : then the command; Tab completes, "
	    "Up/Down recall, Esc leaves)\n%s\nStatus bar: connection, target and its state "
	    "(live, lost, exited),\nmonitoring level, what the hooks cost against the overhead "
	    "budget (cost 3.1%%/5%%:\nshare of the target's CPU), age of the last frame, "
	    "functions seen, calls, dropped events.\n~ before a figure: an estimate (a function "
	    "the budget counts or samples; MODE says which).", keys, cmds);
	free(keys);
	free(cmds);
	return s;
}
