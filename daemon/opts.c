/*
 * opts.c - command line of hookscoped.
 *
 *   hookscoped [options]                                  wait for agents
 *   hookscoped [options] run [--level N] -- PROG ARGS...  start a target too
 *   hookscoped [options] attach PID [--level N] [--grace SEC]  inject the agent
 *   hookscoped [options] detach PID                        unload it again
 */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "daemon.h"
#include "attach.h"
#include "issue.h"

/* Print the usage text. */
void
daemon_opts_usage(FILE *f)
{
	fprintf(f,
"usage: hookscoped [options]\n"
"       hookscoped [options] run [--level N] [--map GLOB=FILE]... [--ui-thread T]\n"
"                  -- PROG [ARGS...]\n"
"       hookscoped [options] attach PID [--level N] [--grace SEC]\n"
"       hookscoped [options] detach PID\n"
"\n"
"Live function-level performance monitor daemon.  Gathers what the hookscope\n"
"agents report over a unix socket and serves it to clients (the hookscope TUI)\n"
"over a websocket, and Prometheus metrics at http://ADDRESS:PORT/metrics.\n"
"'run' starts PROG with the agent preloaded.  'attach'\n"
"injects the agent into the running process PID (ptrace; it reports to the\n"
"daemon on --socket), 'detach' removes every hook and unloads it; both exit.\n"
"\n"
"options:\n"
"  --port N          websocket port (default %d)\n"
"  --listen A, --address A  IPv4 address to listen on (default %s); one\n"
"                    beyond 127.0.0.0/8 needs --token-file or --token\n"
"  --token-file FILE access token clients must present (first line of FILE;\n"
"                    16-256 printable characters; see doc/protocol.md)\n"
"  --token TOKEN     the same on the command line (visible in ps: prefer a file)\n"
"  --allow-remote-control  accept attach, detach, ps and dump from clients not\n"
"                    on loopback (they always need the token)\n"
"  --socket PATH     agent socket (default: $HOOKSCOPE_SOCKET, else\n"
"                    $XDG_RUNTIME_DIR/hookscope.sock, else /tmp/hookscope-UID.sock)\n"
"  --rate HZ         frames per second sent to each client (default %g)\n"
"  --top N           functions per frame (default %d, at most %d)\n"
"  --refresh HZ      display refresh rate: frames longer than 1000/HZ ms are\n"
"                    jank (default: the agent's budget, 1000/60 ms)\n"
"  --budget PCT|off  overhead budget of every agent: its hooks may cost the\n"
"                    target at most PCT percent of its CPU time (over 0 up to\n"
"                    100; default 5, the agent's own); off: time every call\n"
"  --report-dir DIR  where 'dump' writes reports (default:\n"
"                    $XDG_STATE_HOME/hookscope/reports, else\n"
"                    ~/.local/state/hookscope/reports)\n"
"  --agent PATH      agent library for 'run' (default: $HOOKSCOPE_AGENT, else\n"
"                    libhookscope.so next to hookscoped, else %s)\n"
"  --allow-remote-attach  the older name of --allow-remote-control\n"
"  --detach-on-exit  detach every attached agent when the daemon stops\n"
"  --attach-grace SEC  an attached agent detaches itself when no daemon has\n"
"                    answered for SEC seconds (default %d; 0 = never)\n"
"  --config FILE     read options from FILE (default:\n"
"                    $XDG_CONFIG_HOME/hookscope/hookscoped.conf, else\n"
"                    ~/.config/hookscope/hookscoped.conf, when it exists):\n"
"                    'name = value' per line, any long option\n"
"  -v                verbose log on stderr (-vv: debug)\n"
"  --version         print the version\n"
"  --help            print this help\n"
"\n"
"run options:\n"
"  --level N         monitoring level 0-4 for the target (default: the agent's)\n"
"  --map GLOB=FILE   GNU ld map file (ld -Map) naming the functions of the\n"
"                    modules whose path or base name matches GLOB, e.g. a\n"
"                    stripped executable; repeatable (passed as HOOKSCOPE_MAP)\n"
"  --ui-thread T     the thread whose event loop is watched for blocks: a\n"
"                    thread name or tid (default: the main thread; passed as\n"
"                    HOOKSCOPE_UI_THREAD)\n"
"\n"
"attach options:\n"
"  --level N         monitoring level 0-4 (default 2), applied by the hook engine\n"
"  --grace SEC       as --attach-grace, for this agent\n",
	    DAEMON_DEFAULT_PORT, DAEMON_DEFAULT_ADDRESS, DAEMON_DEFAULT_RATE,
	    DAEMON_DEFAULT_TOP, DAEMON_MAX_TOP, HS_AGENT_PATH, ATTACH_GRACE_S_DEFAULT);
	issue_opts_usage(f);
}

/* The config file given on the command line (--config FILE before the
 * subcommand), or NULL. */
static const char *
opts_config_arg(int argc, char **argv)
{
	for (int i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			return argv[i + 1];
		if (strncmp(argv[i], "--config=", 9) == 0)
			return argv[i] + 9;
	}
	return NULL;
}

/* A non-empty environment variable, or NULL. */
static const char *
opts_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* The agent socket path when --socket is not given (the agent's rule);
 * NULL when it is too long for a unix socket. */
char *
daemon_opts_default_socket(void)
{
	char buf[sizeof(((struct sockaddr_un *)0)->sun_path)];

	if (proto_default_socket_path(buf, sizeof buf) < 0)
		return NULL;
	return xstrdup(buf);
}

/* The report directory when --report-dir is not given. */
char *
daemon_opts_default_report_dir(void)
{
	const char *v;
	char buf[4096];

	if ((v = opts_env("XDG_STATE_HOME")) != NULL && v[0] == '/')
		snprintf(buf, sizeof buf, "%s/hookscope/reports", v);
	else if ((v = opts_env("HOME")) != NULL && v[0] == '/')
		snprintf(buf, sizeof buf, "%s/.local/state/hookscope/reports", v);
	else
		snprintf(buf, sizeof buf, "/tmp/hookscope-reports-%u",
		    (unsigned)getuid());
	return xstrdup(buf);
}

/* Parse a whole decimal integer in [lo, hi]. */
int
daemon_parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void opts_absolute(char **path);

/* run --map GLOB=FILE: check it and append it to o->run_map (the agent's
 * HOOKSCOPE_MAP syntax, entries joined by ':'), FILE made absolute. */
static int
opts_add_map(struct daemon_opts *o, const char *val, char *err, size_t errlen)
{
	const char *eq = strchr(val, '=');
	char *file, *glob;
	struct stat st;
	size_t len;

	if (eq == NULL || eq == val || eq[1] == '\0') {
		snprintf(err, errlen, "run: bad --map '%s' (expected GLOB=FILE, e.g. "
		    "--map 'myprog=build/myprog.map')", val);
		return -1;
	}
	if (strchr(val, ':') != NULL) {
		snprintf(err, errlen, "run: --map '%s' contains ':', which separates "
		    "entries in HOOKSCOPE_MAP (rename or link the file)", val);
		return -1;
	}
	file = xstrdup(eq + 1);
	if (stat(file, &st) < 0 || access(file, R_OK) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "run: --map %s: %s (give an existing GNU ld map "
		    "file)", file, errno ? strerror(errno) : "not a regular file");
		free(file);
		return -1;
	}
	opts_absolute(&file);
	glob = xstrndup(val, (size_t)(eq - val));
	len = (o->run_map ? strlen(o->run_map) + 1 : 0) + strlen(glob) + strlen(file) + 2;
	{
		char *m = xmalloc(len);

		snprintf(m, len, "%s%s%s=%s", o->run_map ? o->run_map : "",
		    o->run_map ? ":" : "", glob, file);
		free(o->run_map);
		o->run_map = m;
	}
	free(glob);
	free(file);
	return 0;
}

/* Options after "run": [--level N] [--map GLOB=FILE]... [--] PROG ARGS... */
static int
opts_parse_run(struct daemon_opts *o, int argc, char **argv, int i,
    char *err, size_t errlen)
{
	long v;

	while (i < argc) {
		const char *a = argv[i], *val = NULL;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		if (strcmp(a, "--map") == 0 || strncmp(a, "--map=", 6) == 0) {
			if (a[5] == '\0' && i + 1 >= argc) {
				snprintf(err, errlen, "run: --map needs GLOB=FILE");
				return -1;
			}
			errno = 0;
			if (opts_add_map(o, a[5] == '=' ? a + 6 : argv[++i], err, errlen) < 0)
				return -1;
			i++;
			continue;
		}
		if (strcmp(a, "--ui-thread") == 0 || strncmp(a, "--ui-thread=", 12) == 0) {
			if (a[11] == '\0' && (i + 1 >= argc || argv[i + 1][0] == '\0')) {
				snprintf(err, errlen, "run: --ui-thread needs a thread name or tid");
				return -1;
			}
			free(o->run_ui_thread);
			o->run_ui_thread = xstrdup(a[11] == '=' ? a + 12 : argv[++i]);
			i++;
			continue;
		}
		if (strcmp(a, "--level") == 0) {
			if (i + 1 >= argc) {
				snprintf(err, errlen, "run: --level needs a value (0-4)");
				return -1;
			}
			val = argv[++i];
		} else if (strncmp(a, "--level=", 8) == 0) {
			val = a + 8;
		} else {
			snprintf(err, errlen, "run: unknown option '%s' (run "
			    "takes --level N, --map GLOB=FILE and --ui-thread T, then -- PROG "
			    "ARGS...)", a);
			return -1;
		}
		if (daemon_parse_int(val, 0, 4, &v) < 0) {
			snprintf(err, errlen, "run: bad --level '%s' (expected 0-4)", val);
			return -1;
		}
		o->run_level = (int)v;
		i++;
	}
	if (i >= argc || argv[i][0] == '\0') {
		snprintf(err, errlen, "run needs a program: hookscoped run "
		    "[--level N] -- PROG [ARGS...]");
		return -1;
	}
	o->run_argv = &argv[i];
	return 0;
}

/* "attach PID [--level N] [--grace SEC]" or "detach PID". */
static int
opts_parse_attach(struct daemon_opts *o, int argc, char **argv, int i,
    char *err, size_t errlen)
{
	bool attach = strcmp(argv[i], "attach") == 0;
	long v;

	if (i + 1 >= argc || daemon_parse_int(argv[i + 1], 1, INT32_MAX, &v) < 0) {
		snprintf(err, errlen, "%s needs a process id: hookscoped %s PID%s", argv[i],
		    argv[i], attach ? " [--level N] [--grace SEC]" : "");
		return -1;
	}
	*(attach ? &o->attach_pid : &o->detach_pid) = (pid_t)v;
	for (i += 2; i < argc; i += 2) {
		bool level = strcmp(argv[i], "--level") == 0;

		if (!attach || (!level && strcmp(argv[i], "--grace") != 0)) {
			snprintf(err, errlen, "%s: unexpected '%s'%s", attach ? "attach" : "detach",
			    argv[i], attach ? " (attach takes --level N and --grace SEC)" : "");
			return -1;
		}
		if (i + 1 >= argc || daemon_parse_int(argv[i + 1], 0, level ? 4 : 86400, &v) < 0) {
			snprintf(err, errlen, "attach: bad %s '%s' (expected %s)", argv[i],
			    i + 1 < argc ? argv[i + 1] : "", level ? "0-4" : "seconds, 0-86400");
			return -1;
		}
		if (level)
			o->attach_level = (int)v;
		else
			o->attach_grace_s = (unsigned)v;
	}
	return 0;
}

/* Check one option value; fills err. */
static int
opts_value(struct daemon_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	struct in_addr ia;
	long v;
	char *end;
	double d;

	switch (c) {
	case 'p':
		if (daemon_parse_int(arg, 1, 65535, &v) < 0) {
			snprintf(err, errlen, "bad --port '%s' (expected 1-65535)", arg);
			return -1;
		}
		o->port = (int)v;
		return 0;
	case 'a':
		if (inet_pton(AF_INET, arg, &ia) != 1) {
			snprintf(err, errlen, "bad --address '%s' (expected an "
			    "IPv4 address such as 127.0.0.1)", arg);
			return -1;
		}
		free(o->address);
		o->address = xstrdup(arg);
		return 0;
	case 's':
		if (*arg == '\0') {
			snprintf(err, errlen, "--socket needs a path");
			return -1;
		}
		free(o->socket_path);
		o->socket_path = xstrdup(arg);
		return 0;
	case 'r':
		errno = 0;
		d = strtod(arg, &end);
		if (errno != 0 || end == arg || *end != '\0' || !isfinite(d) ||
		    d < 0.1 || d > 100) {
			snprintf(err, errlen, "bad --rate '%s' (expected 0.1-100 "
			    "frames per second)", arg);
			return -1;
		}
		o->rate_hz = d;
		return 0;
	case 'R':
		errno = 0;
		d = strtod(arg, &end);
		if (errno != 0 || end == arg || *end != '\0' || !isfinite(d) ||
		    d < 1 || d > 1000) {
			snprintf(err, errlen, "bad --refresh '%s' (expected 1-1000 Hz, "
			    "e.g. 60 or 144)", arg);
			return -1;
		}
		o->refresh_hz = d;
		return 0;
	case 'B':
		if (proto_budget_parse(arg, &o->budget_ppm, err, errlen) < 0) {
			char why[256];

			snprintf(why, sizeof why, "%s", err);
			snprintf(err, errlen, "--budget: %s", why);
			return -1;
		}
		o->budget_set = true;
		return 0;
	case 't':
		if (daemon_parse_int(arg, 1, DAEMON_MAX_TOP, &v) < 0) {
			snprintf(err, errlen, "bad --top '%s' (expected 1-%d)",
			    arg, DAEMON_MAX_TOP);
			return -1;
		}
		o->top = (int)v;
		return 0;
	case 'd':
		if (*arg == '\0') {
			snprintf(err, errlen, "--report-dir needs a directory");
			return -1;
		}
		free(o->report_dir);
		o->report_dir = xstrdup(arg);
		return 0;
	case 'G':
		if (daemon_parse_int(arg, 0, 86400, &v) < 0) {
			snprintf(err, errlen, "bad --attach-grace '%s' (expected seconds, "
			    "0-86400; 0 = never)", arg);
			return -1;
		}
		o->attach_grace_s = (unsigned)v;
		return 0;
	case DAEMON_OPT_TOKEN:
	case DAEMON_OPT_TOKEN_FILE:
		return daemon_access_opt(o, c, arg, err, errlen);
	case 'A':
		if (*arg == '\0') {
			snprintf(err, errlen, "--agent needs a path");
			return -1;
		}
		free(o->agent);
		o->agent = xstrdup(arg);
		return 0;
	}
	snprintf(err, errlen, "internal: unhandled option");
	return -1;
}

/* Make a relative path absolute: a target started by 'run' may chdir
 * before its agent connects. */
static void
opts_absolute(char **path)
{
	char cwd[4096], *abs;

	if ((*path)[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
		return;
	abs = xmalloc(strlen(cwd) + strlen(*path) + 2);
	sprintf(abs, "%s/%s", cwd, *path);
	free(*path);
	*path = abs;
}

/* Parse the whole command line into o (defaults filled in). */
int
daemon_opts_parse(struct daemon_opts *o, int argc, char **argv,
    char *err, size_t errlen)
{
	static const struct option base[] = {
		{ "port",       required_argument, NULL, 'p' },
		{ "address",    required_argument, NULL, 'a' },
		{ "listen",     required_argument, NULL, 'a' },
		{ "token",      required_argument, NULL, DAEMON_OPT_TOKEN },
		{ "token-file", required_argument, NULL, DAEMON_OPT_TOKEN_FILE },
		{ "allow-remote-control", no_argument, NULL, 'C' },
		{ "socket",     required_argument, NULL, 's' },
		{ "rate",       required_argument, NULL, 'r' },
		{ "top",        required_argument, NULL, 't' },
		{ "refresh",    required_argument, NULL, 'R' },
		{ "budget",     required_argument, NULL, 'B' },
		{ "report-dir", required_argument, NULL, 'd' },
		{ "agent",      required_argument, NULL, 'A' },
		{ "attach-grace", required_argument, NULL, 'G' },
		{ "allow-remote-attach", no_argument, NULL, 'L' },
		{ "detach-on-exit", no_argument,   NULL, 'X' },
		{ "verbose",    no_argument,       NULL, 'v' },
		{ "version",    no_argument,       NULL, 'V' },
		{ "help",       no_argument,       NULL, 'h' },
		{ "config",     required_argument, NULL, 'F' },
	};
	struct option longopts[sizeof base / sizeof base[0] + 16];
	size_t nl = 0, ncfg;
	char **cfg;
	int c;

	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
		longopts[nl++] = base[i];
	assert(nl + issue_nlongopts < sizeof longopts / sizeof longopts[0]);
	for (size_t i = 0; i < issue_nlongopts; i++)
		longopts[nl++] = issue_longopts[i];
	longopts[nl] = (struct option){ NULL, 0, NULL, 0 };

	memset(o, 0, sizeof *o);
	o->port = DAEMON_DEFAULT_PORT;
	o->rate_hz = DAEMON_DEFAULT_RATE;
	o->top = DAEMON_DEFAULT_TOP;
	o->run_level = -1;
	o->budget_ppm = PROTO_BUDGET_DEFAULT_PPM;
	o->attach_level = 2;
	o->attach_grace_s = ATTACH_GRACE_S_DEFAULT;
	/* the config file's options first: the command line overrides them */
	if (daemon_opts_config(opts_config_arg(argc, argv), longopts, &cfg, &ncfg, err, errlen) < 0)
		return DAEMON_OPTS_ERROR;
	o->cfg_argv = xcalloc((size_t)argc + ncfg + 1, sizeof *o->cfg_argv);
	o->cfg_argv[0] = argv[0];
	if (ncfg > 0)
		memcpy(o->cfg_argv + 1, cfg, ncfg * sizeof *cfg);
	memcpy(o->cfg_argv + 1 + ncfg, argv + 1, ((size_t)argc - 1) * sizeof *argv);
	o->ncfg = ncfg;
	free(cfg);
	argv = o->cfg_argv;
	argc += (int)ncfg;
	opterr = 0;
	optind = 0;	/* full reset (glibc) */
	/* '+': stop at "run" so its own options are not taken for ours. */
	while ((c = getopt_long(argc, argv, "+:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			o->verbose++;
			break;
		case 'L':
			o->allow_remote_attach = true;
			break;
		case 'X':
			o->detach_on_exit = true;
			break;
		case 'C':
			o->allow_remote_control = true;
			break;
		case 'F':
			break;            /* read above */
		case 'h':
			daemon_opts_usage(stdout);
			return DAEMON_OPTS_EXIT;
		case 'V':
			printf("hookscoped %s (protocol %d)\n", HS_VERSION, PROTO_VERSION);
			return DAEMON_OPTS_EXIT;
		case ':':
			snprintf(err, errlen, "option '%s' needs a value",
			    argv[optind - 1]);
			return DAEMON_OPTS_ERROR;
		case '?':
			if (strncmp(argv[optind - 1], "--", 2) == 0 || optopt == 0)
				snprintf(err, errlen, "unknown option '%s'",
				    argv[optind - 1]);
			else
				snprintf(err, errlen, "unknown option '-%c'", optopt);
			return DAEMON_OPTS_ERROR;
		default:
			if (c >= 0x200 && issue_opts_value(&o->issue, c, optarg, err, errlen) < 0)
				return DAEMON_OPTS_ERROR;
			if (c < 0x200 && opts_value(o, c, optarg, err, errlen) < 0)
				return DAEMON_OPTS_ERROR;
		}
	}
	if (optind < argc && (strcmp(argv[optind], "attach") == 0 ||
	    strcmp(argv[optind], "detach") == 0)) {
		if (opts_parse_attach(o, argc, argv, optind, err, errlen) < 0)
			return DAEMON_OPTS_ERROR;
	} else if (optind < argc) {
		if (strcmp(argv[optind], "run") != 0) {
			snprintf(err, errlen, "unexpected argument '%s' (did you "
			    "mean: hookscoped run -- %s ...?)", argv[optind],
			    argv[optind]);
			return DAEMON_OPTS_ERROR;
		}
		o->run = true;
		if (opts_parse_run(o, argc, argv, optind + 1, err, errlen) < 0)
			return DAEMON_OPTS_ERROR;
	}
	if (o->address == NULL)
		o->address = xstrdup(DAEMON_DEFAULT_ADDRESS);
	if (daemon_access_check_opts(o, err, errlen) < 0)
		return DAEMON_OPTS_ERROR;
	if (o->socket_path == NULL &&
	    (o->socket_path = daemon_opts_default_socket()) == NULL) {
		snprintf(err, errlen, "the default agent socket path (from "
		    "HOOKSCOPE_SOCKET or XDG_RUNTIME_DIR) is too long for a unix "
		    "socket; use --socket with a shorter path");
		return DAEMON_OPTS_ERROR;
	}
	opts_absolute(&o->socket_path);
	if (o->report_dir == NULL)
		o->report_dir = daemon_opts_default_report_dir();
	if (issue_opts_finish(&o->issue, o->report_dir, err, errlen) < 0)
		return DAEMON_OPTS_ERROR;
	return DAEMON_OPTS_OK;
}

/* Free what parse allocated (run_argv points into argv). */
void
daemon_opts_free(struct daemon_opts *o)
{
	free(o->address);
	free(o->socket_path);
	free(o->report_dir);
	free(o->agent);
	free(o->run_map);
	free(o->run_ui_thread);
	free(o->token);
	issue_opts_free(&o->issue);
	for (size_t i = 0; o->cfg_argv != NULL && i < o->ncfg; i++)
		free(o->cfg_argv[1 + i]);
	free(o->cfg_argv);
	memset(o, 0, sizeof *o);
}
