/*
 * test-issue.c - issues (daemon/issue*.c): severity grading, stable ids,
 * raising and de-duplication through a session, the local store's limits
 * (files, bytes, oldest first, a restart), the RFC 5424 line (parsed with
 * the RFC's grammar as a POSIX regex), the OTLP JSON form (validated
 * with python3-jsonschema against tests/unit/data/otlp-logs.schema.json,
 * written from the OpenTelemetry logs proto and its JSON mapping) and the
 * config file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "daemon_collector.h"
#include "issue.h"
#include "report.h"
#include "session-util.h"

static void
test_severity(void **state)
{
	(void)state;
	assert_string_equal(daemon_issue_severity(1.0), "minor");
	assert_string_equal(daemon_issue_severity(1.99), "minor");
	assert_string_equal(daemon_issue_severity(2.0), "major");
	assert_string_equal(daemon_issue_severity(4.99), "major");
	assert_string_equal(daemon_issue_severity(5.0), "critical");
	assert_string_equal(daemon_issue_severity(100), "critical");
}

static void
test_id(void **state)
{
	char a[24], b[24], c[24], d[24];

	(void)state;
	daemon_issue_id(a, sizeof a, "ui-block", "/bin/x", "f (x)");
	daemon_issue_id(b, sizeof b, "ui-block", "/bin/x", "f (x)");
	daemon_issue_id(c, sizeof c, "ui-block", "/bin/x", "g (x)");
	daemon_issue_id(d, sizeof d, "slow-ipc", "/bin/x", "f (x)");
	assert_int_equal(strlen(a), 16);
	assert_int_equal(strspn(a, "0123456789abcdef"), 16);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_string_not_equal(a, d);
	/* the parts are separated: "ab"+"c" is not "a"+"bc" */
	daemon_issue_id(c, sizeof c, "ui-block", "/bin/xf", " (x)");
	assert_string_not_equal(a, c);
}

/* A raise of type/where with value and occurrence. */
static void
raise1(struct daemon_session *s, const char *where, uint64_t value, uint64_t occ, bool cum)
{
	struct proto_block_frame fr = { .addr = 0x10, .func = "f", .off = 2, .module = "x",
		.file = "x.c", .line = 7 };
	struct proto_block_stack st = { .samples = 1, .nframes = 1, .frames = &fr };
	struct proto_issue_fig fig = { .name = "dur", .value = (double)value, .unit = "ns" };
	struct daemon_issue_in in = { .type = "ui-block", .where = where, .title = "blocked",
		.value = value, .threshold = 100, .unit = "ns", .occ = occ, .cumulative = cum,
		.tid = 9, .thread = "main", .figs = &fig, .nfigs = 1, .stack = &st };

	daemon_issue_raise(s, &in, 0);
}

static void
test_raise_dedup(void **state)
{
	struct daemon_session *s = live_session(1 * S);
	const struct proto_issues *v = daemon_issues_of(s);

	(void)state;
	raise1(s, "f (x)", 150, 1, false);
	assert_int_equal(v->nlist, 1);
	assert_int_equal(v->list[0].count, 1);
	assert_string_equal(v->list[0].severity, "minor");
	assert_int_equal(v->list[0].pid, FAKE_PID);
	assert_string_equal(v->list[0].exe, "/opt/x/target");
	assert_int_equal(v->list[0].stack.nframes, 1);
	assert_string_equal(v->list[0].stack.frames[0].file, "x.c");
	/* the same occurrence seen again: nothing */
	raise1(s, "f (x)", 150, 1, false);
	assert_int_equal(v->list[0].count, 1);
	/* a new occurrence of the same issue: counted, not a new issue */
	raise1(s, "f (x)", 120, 2, false);
	assert_int_equal(v->nlist, 1);
	assert_int_equal(v->list[0].count, 2);
	assert_int_equal(v->list[0].value, 150);        /* the worst kept */
	/* worse: its figures replace the old */
	raise1(s, "f (x)", 600, 3, false);
	assert_int_equal(v->list[0].count, 3);
	assert_string_equal(v->list[0].severity, "critical");
	assert_int_equal(v->list[0].value, 600);
	/* another place: another issue, newest first */
	raise1(s, "g (x)", 250, 4, false);
	assert_int_equal(v->nlist, 2);
	assert_int_equal(v->raised, 2);
	assert_true(v->list[0].last_ms >= v->list[1].last_ms);
	/* a running count: the difference is counted */
	raise1(s, "h (x)", 150, 3, true);
	raise1(s, "h (x)", 150, 7, true);
	for (size_t k = 0; k < v->nlist; k++)
		if (strcmp(v->list[k].where, "h (x)") == 0)
			assert_int_equal(v->list[k].count, 7);
	/* the same occurrence grown worse: escalated, not counted */
	raise1(s, "h (x)", 300, 7, true);
	for (size_t k = 0; k < v->nlist; k++)
		if (strcmp(v->list[k].where, "h (x)") == 0) {
			assert_int_equal(v->list[k].count, 7);
			assert_string_equal(v->list[k].severity, "major");
		}
	/* bounded: the least recently seen goes */
	for (uint64_t k = 0; k < PROTO_MAX_ISSUES + 10; k++) {
		char w[32];

		snprintf(w, sizeof w, "w%" PRIu64, k);
		raise1(s, w, 150, 1, false);
	}
	assert_int_equal(v->nlist, PROTO_MAX_ISSUES);
	daemon_session_free(s);
}

/* An agent's own "issues" record is raised like the collectors' issues:
 * its running count tells repeats. */
static void
test_agent_record(void **state)
{
	struct daemon_session *s = live_session(1 * S);
	const struct proto_issues *v = daemon_issues_of(s);
	struct proto_issue in = { .type = "app-stall", .where = "render()", .title = "stalled",
		.value = 900, .threshold = 100, .unit = "ns", .count = 2 };
	struct proto_agent_rec r = { .type = PROTO_AG_ISSUES, .issues = { .nlist = 1, .list = &in } };

	(void)state;
	assert_int_equal(daemon_session_record(s, &r, 2 * S), 0);
	assert_int_equal(v->nlist, 1);
	assert_string_equal(v->list[0].type, "app-stall");
	assert_string_equal(v->list[0].severity, "critical");
	assert_int_equal(v->list[0].count, 2);
	in.count = 5;
	assert_int_equal(daemon_session_record(s, &r, 3 * S), 0);
	assert_int_equal(v->nlist, 1);
	assert_int_equal(v->list[0].count, 5);
	daemon_session_free(s);
}

/* An issue with seq and a title of n bytes. */
static struct proto_issue
mk_issue(uint64_t seq, size_t n)
{
	static char title[8192], id[24];
	struct proto_issue i = { .id = id, .seq = seq, .type = "ui-block", .severity = "major",
		.over = 2.5, .value = 250, .threshold = 100, .unit = "ns", .count = 3, .occ = 9,
		.first_ms = 1000 + seq, .last_ms = 2000 + seq, .pid = 42, .exe = "/bin/x",
		.build_id = "", .tid = 42, .thread = "main", .title = title, .where = "f (x)" };

	memset(title, 'a', n);
	title[n] = '\0';
	snprintf(id, sizeof id, "%016" PRIx64, seq * 0x1111);
	return i;
}

/* Files and bytes really in dir; the lowest seq file name in *lo. */
static void
dir_usage(const char *dir, uint64_t *files, uint64_t *bytes, uint64_t *lo)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	*files = *bytes = 0;
	*lo = UINT64_MAX;
	while ((e = readdir(d)) != NULL) {
		char p[4096];
		struct stat sb;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		assert_int_equal(stat(p, &sb), 0);
		(*files)++;
		*bytes += (uint64_t)sb.st_size;
		if (strtoull(e->d_name, NULL, 10) < *lo)
			*lo = strtoull(e->d_name, NULL, 10);
	}
	closedir(d);
}

static void
test_store(void **state)
{
	char dir[] = "/tmp/hs-issue-store.XXXXXX", err[256], tmp[4200];
	struct issue_store *st;
	uint64_t files, bytes, lo, count, occ, first, seq;
	struct proto_issue i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* by count: the newest 3 of 5 */
	st = issue_store_open(dir, 3, 1 << 20, err, sizeof err);
	assert_non_null(st);
	for (uint64_t k = 1; k <= 5; k++) {
		i = mk_issue(k, 100);
		assert_int_equal(issue_store_put(st, &i, true), 0);
		dir_usage(dir, &files, &bytes, &lo);
		assert_true(files <= 3);
	}
	assert_int_equal(files, 3);
	assert_int_equal(lo, 3);
	issue_store_close(st);
	/* a restart: the same files, the highest seq, what each counted; a
	 * write cut short is cleaned up */
	snprintf(tmp, sizeof tmp, "%s/.tmp-000000000009", dir);
	fclose(fopen(tmp, "w"));
	st = issue_store_open(dir, 3, 1 << 20, err, sizeof err);
	assert_non_null(st);
	assert_int_equal(issue_store_max_seq(st), 5);
	issue_store_usage(st, &files, &bytes);
	assert_int_equal(files, 3);
	i = mk_issue(4, 100);
	assert_int_equal(issue_store_find(st, 42, i.id, &count, &occ, &first, &seq), 0);
	assert_int_equal(count, 3);
	assert_int_equal(occ, 9);
	assert_int_equal(first, 1004);
	assert_int_equal(seq, 4);
	assert_int_equal(issue_store_find(st, 43, i.id, &count, &occ, &first, &seq), -1);
	assert_int_equal(access(tmp, F_OK), -1);
	issue_store_close(st);
	/* by bytes: never over the limit on disk, newest kept, rewrites too */
	st = issue_store_open(dir, 100, 3000, err, sizeof err);
	assert_non_null(st);
	for (uint64_t k = 6; k <= 30; k++) {
		i = mk_issue(k, 100 + (k % 4) * 300);
		assert_int_equal(issue_store_put(st, &i, true), 0);
		i = mk_issue(k, 200 + (k % 3) * 400);     /* the issue repeats: rewritten */
		assert_int_equal(issue_store_put(st, &i, true), 0);
		dir_usage(dir, &files, &bytes, &lo);
		assert_true(bytes <= 3000);
		issue_store_usage(st, &files, &count);
		assert_int_equal(count, bytes);
	}
	dir_usage(dir, &files, &bytes, &lo);
	assert_true(files >= 2);
	assert_int_equal(issue_store_max_seq(st), 30);
	/* a repeat of an issue dropped for newer ones does not bring it back */
	i = mk_issue(6, 100);
	assert_int_equal(issue_store_put(st, &i, false), 0);
	dir_usage(dir, &files, &bytes, &lo);
	assert_true(lo > 6);
	/* alone too big: refused, nothing written */
	i = mk_issue(31, 4000);
	assert_int_equal(issue_store_put(st, &i, true), -1);
	assert_int_equal(errno, EFBIG);
	issue_store_close(st);
	snprintf(tmp, sizeof tmp, "rm -rf '%s'", dir);
	assert_int_equal(system(tmp), 0);
}

static void
test_syslog(void **state)
{
	/* RFC 5424: PRI VERSION SP TIMESTAMP SP HOSTNAME SP APP-NAME SP PROCID SP
	 * MSGID SP STRUCTURED-DATA [SP MSG]; SD-PARAM values escape " \ ] */
	static const char re_s[] = "^<([0-9]{1,3})>1 "
	    "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z "
	    "[!-~]{1,255} [!-~]{1,48} [!-~]{1,128} [!-~]{1,32} "
	    "\\[hookscope@32473( [a-z_]{1,32}=\"([^\"\\\\]|\\\\[\"\\\\]|\\\\\\])*\")+\\] "
	    "[^\n]+$";
	struct proto_issue i = mk_issue(7, 10);
	struct proto_buf b = { 0 };
	regmatch_t m[2];
	regex_t re;

	(void)state;
	i.where = "a \"q\" b\\c ]d";
	i.title = "two\nlines";
	i.severity = "critical";
	issue_format_syslog(&b, &i, "host1", 1234);
	assert_int_equal(regcomp(&re, re_s, REG_EXTENDED), 0);
	if (regexec(&re, b.p, 2, m, 0) != 0)
		fail_msg("not RFC 5424: %s", b.p);
	assert_int_equal(atoi(b.p + m[1].rm_so), 3 * 8 + 2);   /* daemon.crit */
	assert_non_null(strstr(b.p, " host1 hookscoped 1234 ui-block [hookscope@32473 id=\""));
	assert_non_null(strstr(b.p, " where=\"a \\\"q\\\" b\\\\c \\]d\""));
	assert_non_null(strstr(b.p, " seq=\"7\""));
	assert_non_null(strstr(b.p, "] two lines"));
	regfree(&re);
	free(b.p);
}

static void
test_otlp(void **state)
{
	char path[] = "/tmp/hs-otlp.XXXXXX", cmd[1024];
	struct proto_block_frame fr[2] = {
		{ .addr = 1, .func = "load_config_sync", .off = 4, .module = "demo", .file = "d.c", .line = 3 },
		{ .addr = 2, .func = "", .off = 0, .module = "", .file = "" },
	};
	struct proto_issue_fig fig = { .name = "dur", .value = 4.5e8, .unit = "ns" };
	struct proto_issue i = mk_issue(3, 20);
	struct proto_buf b = { 0 };
	int fd;

	(void)state;
	i.stack = (struct proto_block_stack){ .samples = 1, .nframes = 2, .frames = fr };
	i.figs = &fig;
	i.nfigs = 1;
	i.build_id = "abcdef";
	issue_format_otlp(&b, &i, "host1");
	assert_non_null(strstr(b.p, "\"timeUnixNano\":\"1003000000\""));
	assert_non_null(strstr(b.p, "\"severityNumber\":17"));
	assert_non_null(strstr(b.p, "\"intValue\":\"42\""));
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, b.p, b.len), (ssize_t)b.len);
	close(fd);
	snprintf(cmd, sizeof cmd, "python3 -c 'import json, sys, jsonschema; "
	    "jsonschema.validate(json.load(open(sys.argv[1])), "
	    "json.load(open(\"tests/unit/data/otlp-logs.schema.json\")))' %s", path);
	if (system(cmd) != 0)
		fail_msg("OTLP JSON does not validate (python3-jsonschema needed): %s", b.p);
	/* and the check can fail: a 64-bit integer as a number is refused */
	{
		FILE *f = fopen(path, "w");
		char *bad = strdup(b.p), *p = strstr(bad, "\"intValue\":\"42\"");

		memcpy(p, "\"intValue\": 42 ", 15);
		fputs(bad, f);
		fclose(f);
		free(bad);
	}
	assert_int_not_equal(system(cmd), 0);
	unlink(path);
	free(b.p);
}

/* Options from a config file, the command line over them, and the errors. */
static void
test_config(void **state)
{
	char path[] = "/tmp/hs-conf.XXXXXX", tok[] = "/tmp/hs-tok.XXXXXX", err[256], line[256];
	struct daemon_opts o;
	int fd = mkstemp(path), tfd = mkstemp(tok);
	FILE *f = fdopen(fd, "w");

	(void)state;
	assert_int_equal(write(tfd, "abcdefghijklmnop0123\n", 21), 21);
	close(tfd);
	fprintf(f, "# issue sinks\n\nissue-dir = /tmp/hs-conf-issues\nissue-max-bytes = 64K\n"
	    "syslog\nupload = http://127.0.0.1:9/x\nupload-format = otlp\n"
	    "upload-token-file = %s\nport = 7100\n", tok);
	fclose(f);
	{
		char *argv[] = { "hookscoped", "--config", path, "--port", "7200", NULL };

		assert_int_equal(daemon_opts_parse(&o, 5, argv, err, sizeof err), DAEMON_OPTS_OK);
	}
	assert_string_equal(o.issue.dir, "/tmp/hs-conf-issues");
	assert_int_equal(o.issue.max_bytes, 64 << 10);
	assert_int_equal(o.issue.max_files, ISSUE_DEFAULT_MAX_FILES);
	assert_true(o.issue.syslog);
	assert_null(o.issue.syslog_socket);
	assert_true(o.issue.upload_otlp);
	assert_string_equal(o.issue.upload_header, "Authorization: Bearer abcdefghijklmnop0123");
	assert_int_equal(o.port, 7200);            /* the command line wins */
	daemon_opts_free(&o);
	/* an unknown option, a value missing, a flag with a value: FILE:LINE */
	static const char *const bad[] = { "nosuch = 1\n", "issue-dir\n", "detach-on-exit = yes\n",
	    "upload-format = xml\n" };
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		char *argv[] = { "hookscoped", "--config", path, NULL };

		f = fopen(path, "w");
		fprintf(f, "# x\n%s", bad[k]);
		fclose(f);
		err[0] = '\0';
		assert_int_equal(daemon_opts_parse(&o, 3, argv, err, sizeof err), DAEMON_OPTS_ERROR);
		snprintf(line, sizeof line, "%s:2: ", path);
		if (k < 3 && strstr(err, line) == NULL)
			fail_msg("no FILE:LINE in: %s", err);
		if (k == 3 && strstr(err, "--upload-format 'xml'") == NULL)
			fail_msg("bad value not named: %s", err);
		daemon_opts_free(&o);
	}
	/* --upload-format without --upload */
	{
		char *argv[] = { "hookscoped", "--config", "/dev/null", "--upload-format", "otlp", NULL };

		assert_int_equal(daemon_opts_parse(&o, 5, argv, err, sizeof err), DAEMON_OPTS_ERROR);
		assert_non_null(strstr(err, "need --upload URL"));
		daemon_opts_free(&o);
	}
	unlink(path);
	unlink(tok);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_severity),
		cmocka_unit_test(test_id),
		cmocka_unit_test(test_raise_dedup),
		cmocka_unit_test(test_agent_record),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_syslog),
		cmocka_unit_test(test_otlp),
		cmocka_unit_test(test_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
