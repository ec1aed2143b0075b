/* options.c - the command line of hookscope. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

static const char options_usage[] =
"Usage: hookscope [OPTIONS] [ws://HOST:PORT]\n"
"Live view of the hottest functions of programs monitored by hookscoped.\n"
"The daemon defaults to ws://127.0.0.1:7070 (HOST:PORT works too; use\n"
"`adb forward tcp:7070 tcp:7070` or an ssh tunnel for a remote device).\n"
"\n"
"Interactive (the default; press ? for the keys and commands):\n"
"  -T, --theme NAME|PATH   colour theme (doc/themes.md); NO_COLOR disables colours\n"
"  -a, --ascii             no UTF-8 line art (automatic in a non-UTF-8 locale)\n"
"\n"
"Non-interactive, for scripts (no curses):\n"
"  -1, --once              print one frame as a table and exit\n"
"  -j, --json              print it as one JSON object instead (implies --once)\n"
"  -d, --dump FILE         ask the daemon for a report and save it to FILE\n"
"                          (- for standard output)\n"
"      --format FMT        text, json, trace (Chrome/Perfetto) or folded; default\n"
"                          from FILE: .json, .trace.json, .folded, else text\n"
"      --all               the report of every target, not only the shown one\n"
"  -c, --cmd \"CMD ARGS\"    send a command and print its reply (repeatable)\n"
"  -t, --timeout SEC       give up after SEC seconds (default 5); exit 1\n"
"      --wait-pid PID      wait until the daemon knows target PID, then use it\n"
"\n"
"Both:\n"
"  -p, --target PID        show target PID\n"
"  -s, --sort KEY          calls, rate, total, self, avg, max, slow or name\n"
"  -n, --top N             rows per frame (1-1000)\n"
"  -f, --filter TEXT       only functions whose name contains TEXT\n"
"\n"
"      --token-file FILE   access token of a daemon listening beyond loopback\n"
"                          (first line of FILE; also $HOOKSCOPE_TOKEN)\n"
"      --token TOKEN       the same on the command line (visible in ps)\n"
"      --check-theme NAME|PATH  load a theme, report any error, exit\n"
"  -v, --verbose           websocket library warnings on stderr (non-interactive)\n"
"  -V, --version           print the version and exit\n"
"  -h, --help              print this help and exit\n"
"\n"
"Exit status: 0 on success, 1 on a failure (the reason is on stderr), 2 on a\n"
"usage error.\n";

enum { OPT_WAIT_PID = 256, OPT_CHECK_THEME, OPT_FORMAT, OPT_ALL, OPT_TOKEN, OPT_TOKEN_FILE };

static const struct option options_long[] = {
	{ "theme",       required_argument, NULL, 'T' },
	{ "ascii",       no_argument,       NULL, 'a' },
	{ "once",        no_argument,       NULL, '1' },
	{ "json",        no_argument,       NULL, 'j' },
	{ "dump",        required_argument, NULL, 'd' },
	{ "cmd",         required_argument, NULL, 'c' },
	{ "timeout",     required_argument, NULL, 't' },
	{ "wait-pid",    required_argument, NULL, OPT_WAIT_PID },
	{ "target",      required_argument, NULL, 'p' },
	{ "sort",        required_argument, NULL, 's' },
	{ "top",         required_argument, NULL, 'n' },
	{ "filter",      required_argument, NULL, 'f' },
	{ "check-theme", required_argument, NULL, OPT_CHECK_THEME },
	{ "format",      required_argument, NULL, OPT_FORMAT },
	{ "all",         no_argument,       NULL, OPT_ALL },
	{ "token",       required_argument, NULL, OPT_TOKEN },
	{ "token-file",  required_argument, NULL, OPT_TOKEN_FILE },
	{ "verbose",     no_argument,       NULL, 'v' },
	{ "version",     no_argument,       NULL, 'V' },
	{ "help",        no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Parse a decimal in [min, max]; -1 if it is anything else. */
static int options_long_arg(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* See tui.h.  Accepts ws://HOST[:PORT][/PATH], HOST[:PORT], [V6]:PORT, :PORT. */
int tui_url_parse(const char *s, struct tui_url *u, char *err, size_t errlen)
{
	const char *p = s, *hend, *slash;
	size_t hlen;
	long port = TUI_DEFAULT_PORT;

	memset(u, 0, sizeof *u);
	if (strncmp(p, "ws://", 5) == 0) {
		p += 5;
	} else if (strstr(p, "://") != NULL) {
		snprintf(err, errlen, "unsupported URL '%s' (only ws://HOST:PORT; "
		    "hookscoped serves plain websockets on loopback)", s);
		return -1;
	}
	slash = strchr(p, '/');
	if (p[0] == '[') {
		hend = strchr(p, ']');
		if (hend == NULL || (slash != NULL && slash < hend)) {
			snprintf(err, errlen, "bad address in '%s' (missing ']')", s);
			return -1;
		}
		p++;
		hlen = (size_t)(hend - p);
		hend++;
	} else {
		hend = p + strcspn(p, ":/");
		hlen = (size_t)(hend - p);
	}
	if (hlen >= sizeof u->host) {
		snprintf(err, errlen, "host name too long in '%s'", s);
		return -1;
	}
	memcpy(u->host, p, hlen);
	if (hlen == 0)
		snprintf(u->host, sizeof u->host, "%s", TUI_DEFAULT_HOST);
	if (*hend == ':') {
		char digits[16];
		size_t n = strcspn(hend + 1, "/");

		if (n == 0 || n >= sizeof digits) {
			snprintf(err, errlen, "bad port in '%s' (1-65535)", s);
			return -1;
		}
		memcpy(digits, hend + 1, n);
		digits[n] = '\0';
		if (options_long_arg(digits, 1, 65535, &port) < 0) {
			snprintf(err, errlen, "bad port in '%s' (1-65535)", s);
			return -1;
		}
		hend += 1 + n;
	}
	if (*hend != '\0' && *hend != '/') {
		snprintf(err, errlen, "bad address '%s' (expected ws://HOST:PORT)", s);
		return -1;
	}
	if (strlen(hend) >= sizeof u->path) {
		snprintf(err, errlen, "path too long in '%s'", s);
		return -1;
	}
	snprintf(u->path, sizeof u->path, "%s", *hend ? hend : "/");
	u->port = (int)port;
	snprintf(u->text, sizeof u->text, strchr(u->host, ':') ? "ws://[%s]:%d%s" : "ws://%s:%d%s",
	    u->host, u->port, strcmp(u->path, "/") == 0 ? "" : u->path);
	return 0;
}

/* Print a usage error. */
__attribute__((format(printf, 1, 2)))
static enum tui_opts_result options_bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hookscope: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'hookscope --help'.\n");
	return TUI_OPTS_EXIT_USAGE;
}

/* Handle one option of a pid-like type. */
static int options_pid(const char *arg, int32_t *out)
{
	long v;

	if (options_long_arg(arg, 1, INT32_MAX, &v) < 0)
		return -1;
	*out = (int32_t)v;
	return 0;
}

/* --token, --token-file, else $HOOKSCOPE_TOKEN into tok; 0 or -1 (err). */
static int options_token(const char *arg, const char *file, char *tok, size_t len,
    char *err, size_t errlen)
{
	char why[PROTO_ERR_LEN];

	if (file != NULL)
		return proto_token_read(file, tok, len, err, errlen);
	if (arg == NULL && ((arg = getenv("HOOKSCOPE_TOKEN")) == NULL || *arg == '\0'))
		return 0;
	if (proto_token_valid(arg, why, sizeof why) < 0) {
		snprintf(err, errlen, "bad token: %.200s", why);
		return -1;
	}
	snprintf(tok, len, "%s", arg);
	return 0;
}

/* See tui.h. */
enum tui_opts_result tui_options_parse(int argc, char **argv, struct tui_opts *o)
{
	char err[PROTO_ERR_LEN];
	const char *token = NULL, *token_file = NULL;
	long v;
	int c;

	memset(o, 0, sizeof *o);
	o->timeout_s = 5;
	tui_url_parse(TUI_DEFAULT_HOST, &o->url, err, sizeof err);
	optind = 0;     /* 0, not 1: also resets glibc's position inside bundled flags */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":T:a1jd:c:t:p:s:n:f:vVh", options_long, NULL)) != -1) {
		switch (c) {
		case 'T': o->theme = optarg; break;
		case 'a': o->ascii = true; break;
		case '1': o->once = true; break;
		case 'j': o->json = o->once = true; break;
		case 'd': o->dump_file = optarg; break;
		case 'c': {
			char *words[PROTO_MAX_ARGS + 1];
			int n = tui_cmd_split(optarg, words, PROTO_MAX_ARGS + 1, err, sizeof err);

			if (n <= 0)
				return options_bad("--cmd \"%s\": %s", optarg, n < 0 ? err :
				    "needs a command, e.g. --cmd \"level 3\"");
			tui_cmd_split_free(words, n);
			o->cmds = xrealloc(o->cmds, (size_t)(o->ncmds + 1) * sizeof *o->cmds);
			o->cmds[o->ncmds++] = optarg;
			break;
		}
		case 't': {
			char *end;

			errno = 0;
			o->timeout_s = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(o->timeout_s > 0 && o->timeout_s <= 86400))
				return options_bad("bad --timeout '%s' (seconds, more than 0)", optarg);
			break;
		}
		case OPT_WAIT_PID:
			if (options_pid(optarg, &o->wait_pid) < 0)
				return options_bad("bad --wait-pid '%s' (a process id)", optarg);
			break;
		case 'p':
			if (options_pid(optarg, &o->target) < 0)
				return options_bad("bad --target '%s' (a process id)", optarg);
			break;
		case 's':
			if (tui_sort_key_index(optarg) < 0)
				return options_bad("bad --sort '%s' (calls, rate, total, self, avg, "
				    "max, slow or name)", optarg);
			o->sort = optarg;
			break;
		case 'n':
			if (options_long_arg(optarg, 1, 1000, &v) < 0)
				return options_bad("bad --top '%s' (1-1000)", optarg);
			o->top = v;
			break;
		case 'f': o->filter = optarg; break;
		case OPT_CHECK_THEME: o->check_theme = optarg; break;
		case OPT_FORMAT:
			if (!tui_dump_format_ok(optarg))
				return options_bad("bad --format '%s' (text, json, trace or folded)",
				    optarg);
			o->dump_format = optarg;
			break;
		case OPT_ALL: o->dump_all = true; break;
		case OPT_TOKEN: token = optarg; break;
		case OPT_TOKEN_FILE: token_file = optarg; break;
		case 'v': o->verbose = true; break;
		case 'V':
			printf("hookscope %s (protocol %d)\n", HS_VERSION, PROTO_VERSION);
			return TUI_OPTS_EXIT_OK;
		case 'h':
			fputs(options_usage, stdout);
			return TUI_OPTS_EXIT_OK;
		case ':':
			return options_bad("option '%s' needs an argument", argv[optind - 1]);
		default:
			/* A long option given "=value" it does not take: optopt is
			 * its short letter, so name the option as typed. */
			if (strncmp(argv[optind - 1], "--", 2) == 0 && optopt != 0)
				return options_bad("option '%.*s' takes no value",
				    (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
			if (optopt > 0 && optopt < 256)
				return options_bad("unknown option '-%c'", optopt);
			return options_bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc - 1)
		return options_bad("one daemon address only (got '%s' too)", argv[optind + 1]);
	if (optind == argc - 1 && tui_url_parse(argv[optind], &o->url, err, sizeof err) < 0)
		return options_bad("%s", err);
	if ((o->dump_format != NULL || o->dump_all) && o->dump_file == NULL)
		return options_bad("--format and --all go with --dump FILE");
	if (options_token(token, token_file, o->url.token, sizeof o->url.token, err,
	    sizeof err) < 0)
		return options_bad("%s", err);
	if (o->target != 0 && o->wait_pid != 0 && o->target != o->wait_pid)
		return options_bad("--target and --wait-pid name different processes");
	return TUI_OPTS_RUN;
}

/* See tui.h. */
bool tui_options_batch(const struct tui_opts *o)
{
	return o->once || o->dump_file != NULL || o->ncmds > 0;
}

/* See tui.h. */
void tui_options_free(struct tui_opts *o)
{
	free(o->cmds);
	o->cmds = NULL;
	o->ncmds = 0;
}
