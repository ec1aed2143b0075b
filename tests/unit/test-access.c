/*
 * test-access.c - access control through its real functions: the token
 * rules and file (protocol/token.c), the daemon's options that need a token
 * and its peer test (daemon/access.c), and the TUI's --token, --token-file
 * and $HOOKSCOPE_TOKEN (tui/options.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon.h"
#include "tui.h"

static char err[PROTO_ERR_LEN];

/* A temporary file holding text; its path is returned (free + unlink). */
static char *
tmp_file(const char *text)
{
	char *path = strdup("/tmp/hs-test-token-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void
test_token_rules(void **state)
{
	char buf[PROTO_TOKEN_MAX + 1], *path;

	(void)state;
	assert_int_equal(proto_token_valid("0123456789abcdef", err, sizeof err), 0);
	assert_int_equal(proto_token_valid("short", err, sizeof err), -1);
	assert_non_null(strstr(err, "16 to 256"));
	assert_int_equal(proto_token_valid("0123456789 abcdef", err, sizeof err), -1);
	assert_int_equal(proto_token_valid("0123456789abcdef\x7f", err, sizeof err), -1);
	path = tmp_file("0123456789abcdefXYZ\nsecond line ignored\n");
	assert_int_equal(proto_token_read(path, buf, sizeof buf, err, sizeof err), 0);
	assert_string_equal(buf, "0123456789abcdefXYZ");
	unlink(path);
	free(path);
	path = tmp_file("\n");
	assert_int_equal(proto_token_read(path, buf, sizeof buf, err, sizeof err), -1);
	assert_non_null(strstr(err, path));
	unlink(path);
	free(path);
	assert_int_equal(proto_token_read("/nonexistent/token", buf, sizeof buf, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "No such file"));
	assert_true(proto_token_equal("0123456789abcdef", "0123456789abcdef", 16));
	assert_false(proto_token_equal("0123456789abcdef", "0123456789abcdeX", 16));
	assert_false(proto_token_equal("0123456789abcdef", "0123456789abcde", 15));
	assert_false(proto_token_equal("0123456789abcdef", "0123456789abcdef0", 17));
	assert_false(proto_token_equal("0123456789abcdef", "", 0));
}

static void
test_peer_remote(void **state)
{
	(void)state;
	assert_false(daemon_access_peer_remote("127.0.0.1"));
	assert_false(daemon_access_peer_remote("127.0.0.2"));
	assert_false(daemon_access_peer_remote("127.255.1.1"));
	assert_false(daemon_access_peer_remote("::1"));
	assert_false(daemon_access_peer_remote("::ffff:127.0.0.1"));
	assert_true(daemon_access_peer_remote("10.77.0.1"));
	assert_true(daemon_access_peer_remote("128.0.0.1"));
	assert_true(daemon_access_peer_remote("::ffff:10.0.0.1"));
	assert_true(daemon_access_peer_remote("fe80::1"));
	assert_true(daemon_access_peer_remote("?"));
}

/* argv of prog then the words of ap (NULL-terminated); returns argc. */
static int
words(char **argv, char *prog, va_list ap)
{
	int argc = 1;

	argv[0] = prog;
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	argv[argc] = NULL;
	return argc;
}

/* daemon_opts_parse of the words given (NULL-terminated). */
static int
dparse(struct daemon_opts *o, ...)
{
	char *argv[16];
	int argc;
	va_list ap;

	va_start(ap, o);
	argc = words(argv, "hookscoped", ap);
	va_end(ap);
	err[0] = '\0';
	return daemon_opts_parse(o, argc, argv, err, sizeof err);
}

static void
test_daemon_listen(void **state)
{
	struct daemon_opts o;
	char *path = tmp_file("from-a-file-0123456789\n");

	(void)state;
	assert_int_equal(dparse(&o, "--listen", "127.0.0.2", NULL), DAEMON_OPTS_OK);
	assert_null(o.token);
	daemon_opts_free(&o);
	assert_int_equal(dparse(&o, "--listen", "0.0.0.0", NULL), DAEMON_OPTS_ERROR);
	assert_non_null(strstr(err, "not a loopback address"));
	assert_non_null(strstr(err, "--token-file"));
	daemon_opts_free(&o);
	assert_int_equal(dparse(&o, "--address", "10.1.2.3", NULL), DAEMON_OPTS_ERROR);
	daemon_opts_free(&o);
	assert_int_equal(dparse(&o, "--listen", "10.1.2.3", "--token", "x", NULL),
	    DAEMON_OPTS_ERROR);
	assert_non_null(strstr(err, "bad --token"));
	daemon_opts_free(&o);
	assert_int_equal(dparse(&o, "--listen", "10.1.2.3", "--token-file", path,
	    "--allow-remote-control", NULL), DAEMON_OPTS_OK);
	assert_string_equal(o.token, "from-a-file-0123456789");
	assert_true(o.allow_remote_control);
	daemon_opts_free(&o);
	assert_int_equal(dparse(&o, "--listen", "10.1.2.3", "--token-file", "/nonexistent",
	    NULL), DAEMON_OPTS_ERROR);
	assert_non_null(strstr(err, "/nonexistent"));
	daemon_opts_free(&o);
	unlink(path);
	free(path);
}

/* tui_options_parse of the words given (NULL-terminated). */
static enum tui_opts_result
tparse(struct tui_opts *o, ...)
{
	char *argv[16];
	int argc;
	va_list ap;

	va_start(ap, o);
	argc = words(argv, "hookscope", ap);
	va_end(ap);
	return tui_options_parse(argc, argv, o);
}

static void
test_tui_token(void **state)
{
	struct tui_opts o;
	char *path = tmp_file("tui-file-token-0123456\n");

	(void)state;
	unsetenv("HOOKSCOPE_TOKEN");
	assert_int_equal(tparse(&o, NULL), TUI_OPTS_RUN);
	assert_string_equal(o.url.token, "");
	tui_options_free(&o);
	setenv("HOOKSCOPE_TOKEN", "tui-env-token-0123456", 1);
	assert_int_equal(tparse(&o, "ws://10.1.2.3:7070", NULL), TUI_OPTS_RUN);
	assert_string_equal(o.url.token, "tui-env-token-0123456");
	tui_options_free(&o);
	assert_int_equal(tparse(&o, "--token", "tui-arg-token-0123456", NULL), TUI_OPTS_RUN);
	assert_string_equal(o.url.token, "tui-arg-token-0123456");
	tui_options_free(&o);
	assert_int_equal(tparse(&o, "--token-file", path, NULL), TUI_OPTS_RUN);
	assert_string_equal(o.url.token, "tui-file-token-0123456");
	tui_options_free(&o);
	unsetenv("HOOKSCOPE_TOKEN");
	assert_int_equal(tparse(&o, "--token", "short", NULL), TUI_OPTS_EXIT_USAGE);
	tui_options_free(&o);
	assert_int_equal(tparse(&o, "--token-file", "/nonexistent", NULL), TUI_OPTS_EXIT_USAGE);
	tui_options_free(&o);
	unlink(path);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_rules),
		cmocka_unit_test(test_peer_remote),
		cmocka_unit_test(test_daemon_listen),
		cmocka_unit_test(test_tui_token),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
