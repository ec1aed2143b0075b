/*
 * test-tui-options.c - the command line through its real functions: daemon
 * addresses (options.c), every option with its errors, --help and
 * --version (what the parser prints is captured), and the splitting of a
 * command into words that --cmd and the : line share (commands.c).
 *
 * Runs in the C.UTF-8 locale with a '.' decimal point, as main.c sets it up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tui.h"
#include "tui-test-util.h"

static char err[2048];

/* ---- helpers ---- */

/* Output of fd (1 or 2) between cap_start and cap_end. */
struct cap {
	int   fd, saved;
	FILE *tmp;
};

/* Send fd to a temporary file. */
static void cap_start(struct cap *c, int fd)
{
	fflush(stdout);
	fflush(stderr);
	c->fd = fd;
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(fd);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), fd) >= 0);
}

/* Restore fd; returns what was written (static buffer). */
static const char *cap_end(struct cap *c)
{
	static char text[8192];
	size_t n;

	fflush(stdout);
	fflush(stderr);
	assert_true(dup2(c->saved, c->fd) >= 0);
	close(c->saved);
	rewind(c->tmp);
	n = fread(text, 1, sizeof text - 1, c->tmp);
	text[n] = '\0';
	fclose(c->tmp);
	return text;
}

/* ---- options.c ---- */

/* Daemon addresses that parse, and what they parse to. */
static void test_url_valid(void **state)
{
	static const struct { const char *in, *host; int port; const char *path, *text; } cases[] = {
		{ "ws://127.0.0.1:7070", "127.0.0.1", 7070, "/", "ws://127.0.0.1:7070" },
		{ "localhost:8080", "localhost", 8080, "/", "ws://localhost:8080" },
		{ "example.com", "example.com", 7070, "/", "ws://example.com:7070" },
		{ "ws://example.com", "example.com", 7070, "/", "ws://example.com:7070" },
		{ ":9000", "127.0.0.1", 9000, "/", "ws://127.0.0.1:9000" },
		{ "", "127.0.0.1", 7070, "/", "ws://127.0.0.1:7070" },
		{ "h:1", "h", 1, "/", "ws://h:1" },
		{ "h:65535", "h", 65535, "/", "ws://h:65535" },
		{ "h:07070", "h", 7070, "/", "ws://h:7070" },
		{ "ws://h:7070/", "h", 7070, "/", "ws://h:7070" },
		{ "ws://h:7070/a/b", "h", 7070, "/a/b", "ws://h:7070/a/b" },
		{ "h/x", "h", 7070, "/x", "ws://h:7070/x" },
		{ "ws://[::1]:7071/x", "::1", 7071, "/x", "ws://[::1]:7071/x" },
		{ "[::1]", "::1", 7070, "/", "ws://[::1]:7070" },
	};
	struct tui_url u;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		err[0] = '\0';
		if (tui_url_parse(cases[i].in, &u, err, sizeof err) != 0)
			fail_msg("'%s' rejected: %s", cases[i].in, err);
		if (strcmp(u.host, cases[i].host) != 0 || u.port != cases[i].port ||
		    strcmp(u.path, cases[i].path) != 0 || strcmp(u.text, cases[i].text) != 0)
			fail_msg("'%s' -> host '%s' port %d path '%s' text '%s'", cases[i].in,
			    u.host, u.port, u.path, u.text);
		assert_string_equal(err, "");
	}
}

/* Addresses that must be refused, with the reason. */
static void test_url_invalid(void **state)
{
	static const struct { const char *in, *err; } cases[] = {
		{ "h:0", "bad port in 'h:0' (1-65535)" },
		{ "h:65536", "bad port in 'h:65536' (1-65535)" },
		{ "h:", "bad port in 'h:' (1-65535)" },
		{ "ws://h:/x", "bad port in 'ws://h:/x' (1-65535)" },
		{ "h:abc", "bad port in 'h:abc' (1-65535)" },
		{ "h:-1", "bad port in 'h:-1' (1-65535)" },
		{ "h:+80", "bad port in 'h:+80' (1-65535)" },
		{ "h: 80", "bad port in 'h: 80' (1-65535)" },
		{ "h:80x", "bad port in 'h:80x' (1-65535)" },
		{ "h:80:90", "bad port in 'h:80:90' (1-65535)" },
		{ "h:12345678901234567", "bad port in 'h:12345678901234567' (1-65535)" },
		{ "h:99999999999999999999", "bad port in 'h:99999999999999999999' (1-65535)" },
		{ "http://h:80", "unsupported URL 'http://h:80' (only ws://HOST:PORT; "
		  "hookscoped serves plain websockets on loopback)" },
		{ "wss://h:80", "unsupported URL 'wss://h:80' (only ws://HOST:PORT; "
		  "hookscoped serves plain websockets on loopback)" },
		{ "[::1", "bad address in '[::1' (missing ']')" },
		{ "[::1/]:80", "bad address in '[::1/]:80' (missing ']')" },
		{ "[::1]x", "bad address '[::1]x' (expected ws://HOST:PORT)" },
	};
	struct tui_url u;
	char in[700], want[800];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		err[0] = '\0';
		if (tui_url_parse(cases[i].in, &u, err, sizeof err) != -1)
			fail_msg("'%s' accepted", cases[i].in);
		if (strcmp(err, cases[i].err) != 0)
			fail_msg("'%s': error '%s', want '%s'", cases[i].in, err, cases[i].err);
	}
	/* Host names up to 255 bytes, paths up to 255 bytes. */
	memset(in, 'a', 255);
	snprintf(in + 255, sizeof in - 255, ":1");
	assert_int_equal(tui_url_parse(in, &u, err, sizeof err), 0);
	assert_int_equal(strlen(u.host), 255);
	assert_int_equal(u.port, 1);
	memset(in, 'a', 256);
	snprintf(in + 256, sizeof in - 256, ":1");
	assert_int_equal(tui_url_parse(in, &u, err, sizeof err), -1);
	snprintf(want, sizeof want, "host name too long in '%s'", in);
	assert_string_equal(err, want);
	snprintf(in, sizeof in, "h:1/");
	memset(in + 4, 'p', 251);
	in[255] = '\0';                     /* path of 252 bytes */
	assert_int_equal(tui_url_parse(in, &u, err, sizeof err), 0);
	assert_int_equal(strlen(u.path), 252);
	memset(in + 4, 'p', 252);
	in[256] = '\0';
	assert_int_equal(tui_url_parse(in, &u, err, sizeof err), 0);
	assert_int_equal(strlen(u.path), 253);
	memset(in + 4, 'p', 255);
	in[259] = '\0';                     /* path of 256 bytes */
	assert_int_equal(tui_url_parse(in, &u, err, sizeof err), -1);
	snprintf(want, sizeof want, "path too long in '%s'", in);
	assert_string_equal(err, want);
}

/* The argv for one parse (getopt permutes it; the options point into it). */
static char *args[32];
static int nargs;

/* Forget the last argv. */
static void args_free(void)
{
	for (int i = 0; i < nargs; i++)
		free(args[i]);
	nargs = 0;
}

/*
 * Parse "hookscope" + the NULL-terminated words; *out gets what the parser
 * printed (stderr, or stdout for --help/--version).  getopt keeps a
 * position inside the previous argv across calls unless optind is 0 first
 * (tui_options_parse sets optind = 1), so reset it here.
 */
static enum tui_opts_result parse(struct tui_opts *o, const char **out, int fd, ...)
{
	char a0[] = "x", *v0[] = { a0, NULL };
	enum tui_opts_result r;
	struct cap c;
	va_list ap;
	const char *w;

	args_free();
	args[nargs++] = xstrdup("hookscope");
	va_start(ap, fd);
	while ((w = va_arg(ap, const char *)) != NULL) {
		assert_true(nargs < 31);
		args[nargs++] = xstrdup(w);
	}
	va_end(ap);
	args[nargs] = NULL;
	optind = 0;
	opterr = 0;
	(void)getopt(1, v0, "");
	cap_start(&c, fd);
	r = tui_options_parse(nargs, args, o);
	*out = cap_end(&c);
	return r;
}

/* No arguments: the defaults. */
static void test_options_defaults(void **state)
{
	struct tui_opts o;
	const char *out;

	(void)state;
	memset(&o, 0x5a, sizeof o);
	assert_int_equal(parse(&o, &out, 2, NULL), TUI_OPTS_RUN);
	assert_string_equal(out, "");
	assert_string_equal(o.url.host, "127.0.0.1");
	assert_int_equal(o.url.port, 7070);
	assert_string_equal(o.url.path, "/");
	assert_string_equal(o.url.text, "ws://127.0.0.1:7070");
	assert_false(o.once || o.json || o.ascii || o.verbose);
	assert_true(o.timeout_s == 5);
	assert_int_equal(o.target, 0);
	assert_int_equal(o.wait_pid, 0);
	assert_null(o.sort);
	assert_int_equal(o.top, 0);
	assert_null(o.filter);
	assert_null(o.dump_file);
	assert_null(o.cmds);
	assert_int_equal(o.ncmds, 0);
	assert_null(o.theme);
	assert_null(o.check_theme);
	assert_false(tui_options_batch(&o));
	tui_options_free(&o);
	args_free();
}

/* Every option, long and short, and the address after or among them. */
static void test_options_all(void **state)
{
	struct tui_opts o;
	const char *out;

	(void)state;
	assert_int_equal(parse(&o, &out, 2, "-1", "-a", "-v", "-T", "dark", "-d", "out.txt",
	    "-c", "level 3", "--cmd", "reset", "-t", "2.5", "--wait-pid", "42", "-p", "42",
	    "-s", "self", "-n", "20", "-f", "foo bar", "ws://h:1", NULL), TUI_OPTS_RUN);
	assert_string_equal(out, "");
	assert_true(o.once);
	assert_false(o.json);
	assert_true(o.ascii);
	assert_true(o.verbose);
	assert_string_equal(o.theme, "dark");
	assert_string_equal(o.dump_file, "out.txt");
	assert_int_equal(o.ncmds, 2);
	assert_string_equal(o.cmds[0], "level 3");
	assert_string_equal(o.cmds[1], "reset");
	assert_true(o.timeout_s == 2.5);
	assert_int_equal(o.wait_pid, 42);
	assert_int_equal(o.target, 42);
	assert_string_equal(o.sort, "self");
	assert_int_equal(o.top, 20);
	assert_string_equal(o.filter, "foo bar");
	assert_string_equal(o.url.text, "ws://h:1");
	assert_true(tui_options_batch(&o));
	tui_options_free(&o);
	assert_null(o.cmds);
	assert_int_equal(o.ncmds, 0);

	/* Long forms; the address first (GNU getopt permutes). */
	assert_int_equal(parse(&o, &out, 2, "h:2", "--json", "--ascii", "--theme=x.theme",
	    "--target=7", "--sort", "name", "--top", "1000", "--filter=", "--timeout", "86400",
	    "--check-theme", "mono", "--verbose", NULL), TUI_OPTS_RUN);
	assert_true(o.json && o.once && o.ascii && o.verbose);
	assert_string_equal(o.theme, "x.theme");
	assert_int_equal(o.target, 7);
	assert_string_equal(o.sort, "name");
	assert_int_equal(o.top, 1000);
	assert_string_equal(o.filter, "");
	assert_true(o.timeout_s == 86400);
	assert_string_equal(o.check_theme, "mono");
	assert_int_equal(o.url.port, 2);
	assert_true(tui_options_batch(&o));
	tui_options_free(&o);

	/* Bundled short options; --dump or --cmd alone make it a batch run. */
	assert_int_equal(parse(&o, &out, 2, "-av1", "-n5", "-p2147483647", NULL), TUI_OPTS_RUN);
	assert_true(o.ascii && o.verbose && o.once);
	assert_int_equal(o.top, 5);
	assert_int_equal(o.target, INT32_MAX);
	tui_options_free(&o);
	assert_int_equal(parse(&o, &out, 2, "--dump", "r.txt", NULL), TUI_OPTS_RUN);
	assert_true(tui_options_batch(&o));
	tui_options_free(&o);
	assert_int_equal(parse(&o, &out, 2, "--cmd", "targets", NULL), TUI_OPTS_RUN);
	assert_true(tui_options_batch(&o));
	tui_options_free(&o);
	args_free();
}

/* Bad options and values: usage status and one clear message on stderr. */
static void test_options_bad(void **state)
{
	static const struct { const char *a[4]; const char *msg; } cases[] = {
		{ { "--top", "0" }, "bad --top '0' (1-1000)" },
		{ { "--top", "1001" }, "bad --top '1001' (1-1000)" },
		{ { "-n", "abc" }, "bad --top 'abc' (1-1000)" },
		{ { "-n", " 5" }, "bad --top ' 5' (1-1000)" },
		{ { "-s", "bogus" }, "bad --sort 'bogus' (calls, rate, total, self, avg, max, "
		  "slow or name)" },
		{ { "-s", "" }, "bad --sort '' (calls, rate, total, self, avg, max, slow or name)" },
		{ { "-p", "0" }, "bad --target '0' (a process id)" },
		{ { "-p", "-5" }, "bad --target '-5' (a process id)" },
		{ { "-p", "2147483648" }, "bad --target '2147483648' (a process id)" },
		{ { "--wait-pid", "x" }, "bad --wait-pid 'x' (a process id)" },
		{ { "-t", "0" }, "bad --timeout '0' (seconds, more than 0)" },
		{ { "-t", "-1" }, "bad --timeout '-1' (seconds, more than 0)" },
		{ { "-t", "abc" }, "bad --timeout 'abc' (seconds, more than 0)" },
		{ { "-t", "1s" }, "bad --timeout '1s' (seconds, more than 0)" },
		{ { "-t", "nan" }, "bad --timeout 'nan' (seconds, more than 0)" },
		{ { "-t", "86401" }, "bad --timeout '86401' (seconds, more than 0)" },
		{ { "-t", "" }, "bad --timeout '' (seconds, more than 0)" },
		{ { "-c", "" }, "--cmd \"\": needs a command, e.g. --cmd \"level 3\"" },
		{ { "-c", "  " }, "--cmd \"  \": needs a command, e.g. --cmd \"level 3\"" },
		{ { "-c", "filter \"ab" }, "--cmd \"filter \"ab\": missing closing \"" },
		{ { "--bogus" }, "unknown option '--bogus'" },
		{ { "-x" }, "unknown option '-x'" },
		{ { "--top" }, "option '--top' needs an argument" },
		{ { "-n" }, "option '-n' needs an argument" },
		{ { "h:1", "h:2" }, "one daemon address only (got 'h:2' too)" },
		{ { "h:0" }, "bad port in 'h:0' (1-65535)" },
		{ { "http://h" }, "unsupported URL 'http://h' (only ws://HOST:PORT; hookscoped "
		  "serves plain websockets on loopback)" },
		{ { "-p", "5", "--wait-pid", "6" },
		  "--target and --wait-pid name different processes" },
	};
	struct tui_opts o;
	char want[512];
	const char *out;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *const *a = cases[i].a;
		enum tui_opts_result r = parse(&o, &out, 2, a[0], a[1], a[2], a[3], NULL);

		snprintf(want, sizeof want, "hookscope: %s\nTry 'hookscope --help'.\n", cases[i].msg);
		if (r != TUI_OPTS_EXIT_USAGE || strcmp(out, want) != 0)
			fail_msg("case %zu (%s): result %d, stderr\n'%s'\nwant\n'%s'", i, a[0], r,
			    out, want);
		tui_options_free(&o);
	}
	/* A value given to a long option that takes none names the option as typed. */
	assert_int_equal(parse(&o, &out, 2, "--once=1", NULL), TUI_OPTS_EXIT_USAGE);
	assert_string_equal(out, "hookscope: option '--once' takes no value\nTry 'hookscope --help'.\n");
	tui_options_free(&o);
	/* A --cmd of 17 words is fine (command + 16 arguments), 18 is not. */
	assert_int_equal(parse(&o, &out, 2, "-c", "a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",
	    NULL), TUI_OPTS_RUN);
	tui_options_free(&o);
	assert_int_equal(parse(&o, &out, 2, "-c", "a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
	    NULL), TUI_OPTS_EXIT_USAGE);
	assert_string_equal(out, "hookscope: --cmd \"a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 "
	    "17\": too many words (at most 17)\nTry 'hookscope --help'.\n");
	tui_options_free(&o);
	args_free();
}

/* --help and --version print on stdout and ask for exit 0. */
static void test_options_help_version(void **state)
{
	struct tui_opts o;
	const char *out;

	(void)state;
	assert_int_equal(parse(&o, &out, 1, "--version", NULL), TUI_OPTS_EXIT_OK);
	assert_string_equal(out, "hookscope " HS_VERSION " (protocol 1)\n");
	tui_options_free(&o);
	assert_int_equal(parse(&o, &out, 1, "-h", NULL), TUI_OPTS_EXIT_OK);
	assert_int_equal(strncmp(out, "Usage: hookscope [OPTIONS] [ws://HOST:PORT]\n",
	    strlen("Usage: hookscope [OPTIONS] [ws://HOST:PORT]\n")), 0);
	assert_non_null(strstr(out, "  -n, --top N             rows per frame (1-1000)\n"));
	assert_non_null(strstr(out, "usage error.\n"));
	tui_options_free(&o);
	args_free();
}

/* ---- commands.c ---- */

/* Words, quotes and backslashes as the : line and --cmd split them. */
static void test_cmd_split(void **state)
{
	char *v[8];
	int n;

	(void)state;
	assert_int_equal(tui_cmd_split("", v, 8, err, sizeof err), 0);
	assert_int_equal(tui_cmd_split(" \t ", v, 8, err, sizeof err), 0);
	n = tui_cmd_split("  filter \"a b\" 'c \\d' e\\ f x\"y z\"w \"\" ", v, 8, err, sizeof err);
	assert_int_equal(n, 6);
	assert_string_equal(v[0], "filter");
	assert_string_equal(v[1], "a b");
	assert_string_equal(v[2], "c \\d");
	assert_string_equal(v[3], "e f");
	assert_string_equal(v[4], "xy zw");
	assert_string_equal(v[5], "");
	tui_cmd_split_free(v, n);
	n = tui_cmd_split("\"q\\\"q\" end\\", v, 8, err, sizeof err);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "q\"q");
	assert_string_equal(v[1], "end\\");
	tui_cmd_split_free(v, n);
	assert_int_equal(tui_cmd_split("a 'b", v, 8, err, sizeof err), -1);
	assert_string_equal(err, "missing closing '");
	assert_int_equal(tui_cmd_split("a b c", v, 2, err, sizeof err), -1);
	assert_string_equal(err, "too many words (at most 2)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_valid),
		cmocka_unit_test(test_url_invalid),
		cmocka_unit_test(test_options_defaults),
		cmocka_unit_test(test_options_all),
		cmocka_unit_test(test_options_bad),
		cmocka_unit_test(test_options_help_version),
		cmocka_unit_test(test_cmd_split),
	};

	if (tui_test_locale("test-tui-options") < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
