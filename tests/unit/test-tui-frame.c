/*
 * test-tui-frame.c - a frame as the --once modes print it, through the real
 * functions: the JSON writer (json.c: exact text, escaping, invalid UTF-8,
 * every wire key, big frames) and the plain table with its sort keys
 * (columns.c).  Both print the same sample frame.
 *
 * Runs in the C.UTF-8 locale (wcwidth) with a '.' decimal point, as
 * main.c sets it up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tui.h"
#include "tui-test-util.h"

/* ---- helpers ---- */

/*
 * A strict JSON checker: the whole text must be one valid value (RFC 8259:
 * no raw control characters, valid escapes, valid UTF-8, JSON numbers).
 * Every object key is appended to keys, comma-separated, in order.
 */
struct jp {
	const unsigned char *p;
	char keys[4096];
};

static int jp_value(struct jp *j, int depth);

/* Skip JSON whitespace. */
static void jp_ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

/* A string; its decoded ASCII text (for keys) goes to out if not NULL. */
static int jp_string(struct jp *j, char *out, size_t outlen)
{
	size_t n = 0;

	if (*j->p++ != '"')
		return -1;
	while (*j->p != '"') {
		unsigned c = *j->p;

		if (c < 0x20)
			return -1;
		if (c == '\\') {
			j->p++;
			if (*j->p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", j->p[i]) || j->p[i] == 0)
						return -1;
				j->p += 5;
			} else if (*j->p && strchr("\"\\/bfnrt", *j->p)) {
				j->p++;
			} else {
				return -1;
			}
			continue;
		}
		if (c >= 0x80) {
			int need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 :
			    c >= 0xf0 && c <= 0xf4 ? 3 : -1;
			unsigned cp = c & (need == 1 ? 0x1f : need == 2 ? 0x0f : 0x07);

			if (need < 0)
				return -1;
			for (int i = 1; i <= need; i++) {
				if ((j->p[i] & 0xc0) != 0x80)
					return -1;
				cp = cp << 6 | (j->p[i] & 0x3f);
			}
			if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
			    (cp >= 0xd800 && cp <= 0xdfff))
				return -1;
			j->p += need + 1;
			continue;
		}
		if (out != NULL && n + 1 < outlen)
			out[n++] = (char)c;
		j->p++;
	}
	j->p++;
	if (out != NULL)
		out[n] = '\0';
	return 0;
}

/* A number as the JSON grammar has it. */
static int jp_number(struct jp *j)
{
	if (*j->p == '-')
		j->p++;
	if (*j->p == '0')
		j->p++;
	else if (*j->p >= '1' && *j->p <= '9')
		while (*j->p >= '0' && *j->p <= '9')
			j->p++;
	else
		return -1;
	if (*j->p == '.') {
		j->p++;
		if (!(*j->p >= '0' && *j->p <= '9'))
			return -1;
		while (*j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		if (!(*j->p >= '0' && *j->p <= '9'))
			return -1;
		while (*j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	return 0;
}

/* An object or array (open is '{' or '['). */
static int jp_container(struct jp *j, int depth)
{
	bool obj = *j->p == '{';
	char close = obj ? '}' : ']', key[256];

	j->p++;
	jp_ws(j);
	if (*j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		if (obj) {
			jp_ws(j);
			if (jp_string(j, key, sizeof key) < 0)
				return -1;
			snprintf(j->keys + strlen(j->keys), sizeof j->keys - strlen(j->keys), "%s%s",
			    j->keys[0] ? "," : "", key);
			jp_ws(j);
			if (*j->p++ != ':')
				return -1;
		}
		if (jp_value(j, depth + 1) < 0)
			return -1;
		jp_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		return *j->p++ == close ? 0 : -1;
	}
}

/* Any value. */
static int jp_value(struct jp *j, int depth)
{
	if (depth > 16)
		return -1;
	jp_ws(j);
	if (*j->p == '{' || *j->p == '[')
		return jp_container(j, depth);
	if (*j->p == '"')
		return jp_string(j, NULL, 0);
	for (const char *const *w = (const char *const[]){ "true", "false", "null", NULL }; *w; w++) {
		if (strncmp((const char *)j->p, *w, strlen(*w)) == 0) {
			j->p += strlen(*w);
			return 0;
		}
	}
	return jp_number(j);
}

/* Is text exactly one valid JSON value?  Fills keys. */
static bool json_valid(const char *text, struct jp *j)
{
	memset(j, 0, sizeof *j);
	j->p = (const unsigned char *)text;
	if (jp_value(j, 0) < 0)
		return false;
	jp_ws(j);
	return *j->p == '\0';
}

/* ---- json.c ---- */

/* The frame of test-proto.c: two targets, two functions, every field set. */
static struct proto_target json_targets[2] = {
	{ .pid = 42, .name = "demo", .exe = "/bin/demo", .state = PROTO_TARGET_LIVE,
	  .level = 2, .started_ms = 1000 },
	{ .pid = 43, .name = "old", .exe = "/bin/old", .state = PROTO_TARGET_EXITED,
	  .level = 0, .started_ms = 10, .ended_ms = 20 },
};
static struct proto_func json_funcs[2] = {
	{ .name = "slow_work", .module = "demo", .addr = 0x1234, .calls = 200,
	  .calls_per_s = 10.25, .total_ns = 200000000, .self_ns = 199000000,
	  .avg_ns = 1000000, .max_ns = 1200000, .slow = 3, .share = 0.75,
	  .running_ns = 400000, .mode = PROTO_FMODE_COUNTED, .time_est = true,
	  .mode_age_ms = 1500, .hook_ppm = 12000 },
	{ .name = "fast_hash", .module = "libx.so", .addr = 0x5678, .calls = 210000,
	  .calls_per_s = 10500, .total_ns = 5000000, .self_ns = 5000000,
	  .avg_ns = 23, .max_ns = 900, .share = 0.25 },
};
static struct proto_site_reason json_why[2] = { { "short", 7 }, { "branch-in", 2 } };
static struct proto_sites json_sites[2] = {
	{ .backend = "patch", .active = 120, .disabled = 15, .skipped = 9,
	  .nreasons = 2, .reasons = json_why },
	{ .backend = "finstrument", .active = 4 },
};
static const struct proto_frame json_frame = {
	.seq = 7, .time_ms = 123456, .pid = 42, .sort = "total", .agent_age_ms = 150,
	.nfuncs_seen = 5, .calls_total = 210200, .self_total_ns = 204000000,
	.dropped = 1, .overhead_ps = 21000, .threads = 2,
	.cost_ppm = 31000, .cost_sampled_ppm = 12500, .cost_samples = 800, .budget_ppm = 50000,
	.demoted = 1, .ntargets = 2, .targets = json_targets, .nfuncs = 2, .funcs = json_funcs,
	.nsites = 2, .sites = json_sites,
};

/* A full frame: exact text, valid JSON, the wire keys in order. */
static void test_json_frame(void **state)
{
	static const char want[] =
	    "{\"v\":1,\"t\":\"frame\",\"seq\":7,\"time_ms\":123456,\"pid\":42,\"sort\":\"total\","
	    "\"agent_age_ms\":150,\"nfuncs_seen\":5,\"calls_total\":210200,"
	    "\"self_total_ns\":204000000,\"dropped\":1,\"overhead_ps\":21000,\"threads\":2,"
	    "\"cost_ppm\":31000,\"cost_sampled_ppm\":12500,\"cost_samples\":800,"
	    "\"budget_ppm\":50000,\"demoted\":1,"
	    "\"targets\":["
	    "{\"pid\":42,\"name\":\"demo\",\"exe\":\"/bin/demo\",\"state\":\"live\",\"level\":2,"
	    "\"started_ms\":1000,\"ended_ms\":0},"
	    "{\"pid\":43,\"name\":\"old\",\"exe\":\"/bin/old\",\"state\":\"exited\",\"level\":0,"
	    "\"started_ms\":10,\"ended_ms\":20}],"
	    "\"funcs\":["
	    "{\"name\":\"slow_work\",\"module\":\"demo\",\"addr\":4660,\"calls\":200,"
	    "\"calls_per_s\":10.25,\"total_ns\":200000000,\"self_ns\":199000000,"
	    "\"avg_ns\":1000000,\"max_ns\":1200000,\"slow\":3,\"share\":0.75,"
	    "\"running_ns\":400000,\"mode\":\"counted\",\"calls_est\":false,\"time_est\":true,"
	    "\"mode_age_ms\":1500,\"hook_ppm\":12000},"
	    "{\"name\":\"fast_hash\",\"module\":\"libx.so\",\"addr\":22136,\"calls\":210000,"
	    "\"calls_per_s\":10500,\"total_ns\":5000000,\"self_ns\":5000000,"
	    "\"avg_ns\":23,\"max_ns\":900,\"slow\":0,\"share\":0.25,\"running_ns\":0,\"mode\":\"timed\",\"calls_est\":false,\"time_est\":false,\"mode_age_ms\":0,\"hook_ppm\":0}],"
	    "\"sites\":{\"patch\":{\"active\":120,\"disabled\":15,\"skipped\":9,"
	    "\"reasons\":{\"short\":7,\"branch-in\":2}},"
	    "\"finstrument\":{\"active\":4,\"disabled\":0,\"skipped\":0,\"reasons\":{}}},"
	    "\"paths\":[],\"paths_dropped\":0,"
	    "\"fps\":{\"budget_ns\":0,\"high_ns\":0,\"frozen_ns\":0,\"streams\":[]},"
	    "\"threading\":{\"time_ns\":0,\"created\":0,\"exited\":0,\"live\":0,\"other_live\":0,"
	    "\"agent_created\":0,\"agent_live\":0,\"agent_cpu_ns\":0,\"dropped\":0,"
	    "\"created_per_s\":0,\"history\":[],\"threads\":[],\"sites\":[],\"pools\":[]},"
	    "\"blocks\":{\"threshold_ns\":0,\"sample_ns\":0,\"ui_tid\":0,\"ui\":\"\",\"count\":0,\"list\":[]},"
	    "\"ipc\":{\"threshold_ns\":0,\"slow_count\":0,\"endpoints\":[],\"slow\":[]},"
	    "\"power\":{\"time_ns\":0,\"hold_ns\":0,\"exited\":false,\"table\":\"\",\"rows\":0,\"errors\":0,\"lost\":0,\"profile\":\"\",\"warning\":\"\",\"cpu_ma\":0,\"resources\":[],\"categories\":[],\"version\":1},"
	    "\"issues\":{\"raised\":0,\"list\":[],\"sinks\":[]},"
	    "\"memory\":{\"mode\":\"\",\"sample_bytes\":0,\"leak_window_ns\":0,\"heap_bytes\":0,\"heap_blocks\":0,\"alloc_bytes\":0,\"allocs\":0,\"frees\":0,\"mmap_bytes\":0,\"mmap_regions\":0,\"untracked\":0,\"unknown_frees\":0,\"exited\":false,\"allocs_per_s\":0,\"sites\":[],\"big\":[],\"history_kib\":[],"
	    "\"leaks\":{\"seq\":0,\"error\":\"\",\"note\":\"\",\"time_ns\":0,\"stopped_ns\":0,\"threads\":0,"
	    "\"root_bytes\":0,\"heap_bytes\":0,\"lost_bytes\":0,\"lost_blocks\":0,\"indirect_bytes\":0,"
	    "\"indirect_blocks\":0,\"possible_bytes\":0,\"possible_blocks\":0,\"reachable_bytes\":0,"
	    "\"reachable_blocks\":0,\"lost\":[]}},"
	    "\"network\":{\"threshold_ns\":0,\"large_bytes\":0,\"event_count\":0,\"endpoints\":[],"
	    "\"dns\":[],\"http\":[],\"events\":[]},"
	    "\"startup\":{\"time_ns\":0,\"attached\":false,\"exec_from\":\"\",\"exec_ns\":0,\"loaded_ns\":0,\"agent_ns\":0,\"ctors_ns\":0,\"main_ns\":0,\"wait_ns\":0,\"wait_call\":\"\",\"frame_ns\":0,\"libs\":[],\"libs_lost\":0,\"dlopens\":[],\"dlopens_total\":0,\"baseline\":\"\",\"noise_ns\":0,\"noise_pct\":0,\"slower\":[],\"version\":1}}";
	static const char keys[] =
	    "v,t,seq,time_ms,pid,sort,agent_age_ms,nfuncs_seen,calls_total,self_total_ns,"
	    "dropped,overhead_ps,threads,cost_ppm,cost_sampled_ppm,cost_samples,budget_ppm,demoted,targets,"
	    "pid,name,exe,state,level,started_ms,ended_ms,"
	    "pid,name,exe,state,level,started_ms,ended_ms,funcs,"
	    "name,module,addr,calls,calls_per_s,total_ns,self_ns,avg_ns,max_ns,slow,share,running_ns,"
	    "mode,calls_est,time_est,mode_age_ms,hook_ppm,"
	    "name,module,addr,calls,calls_per_s,total_ns,self_ns,avg_ns,max_ns,slow,share,running_ns,"
	    "mode,calls_est,time_est,mode_age_ms,hook_ppm,"
	    "sites,patch,active,disabled,skipped,reasons,short,branch-in,"
	    "finstrument,active,disabled,skipped,reasons,paths,paths_dropped,"
	    "fps,budget_ns,high_ns,frozen_ns,streams,"
	    "threading,time_ns,created,exited,live,other_live,agent_created,agent_live,agent_cpu_ns,"
	    "dropped,created_per_s,history,threads,sites,pools,"
	    "blocks,threshold_ns,sample_ns,ui_tid,ui,count,list,"
	    "ipc,threshold_ns,slow_count,endpoints,slow,"
	    "power,time_ns,hold_ns,exited,table,rows,errors,lost,profile,warning,cpu_ma,resources,categories,version,"
	    "issues,raised,list,sinks,"
	    "memory,mode,sample_bytes,leak_window_ns,heap_bytes,heap_blocks,alloc_bytes,allocs,frees,"
	    "mmap_bytes,mmap_regions,untracked,unknown_frees,exited,allocs_per_s,"
	    "sites,big,history_kib,leaks,seq,error,note,time_ns,stopped_ns,threads,root_bytes,heap_bytes,"
	    "lost_bytes,lost_blocks,indirect_bytes,indirect_blocks,possible_bytes,possible_blocks,"
	    "reachable_bytes,reachable_blocks,lost,"
	    "network,threshold_ns,large_bytes,event_count,endpoints,dns,http,events,"
	    "startup,time_ns,attached,exec_from,exec_ns,loaded_ns,agent_ns,ctors_ns,main_ns,wait_ns,"
	    "wait_call,frame_ns,libs,libs_lost,dlopens,dlopens_total,baseline,noise_ns,noise_pct,slower,"
	    "version";
	struct jp j;
	size_t len = 0;
	char *s = tui_json_frame(&json_frame, &len);

	(void)state;
	assert_string_equal(s, want);
	assert_int_equal(len, strlen(want));
	assert_true(json_valid(s, &j));
	assert_string_equal(j.keys, keys);
	free(s);
}

/* An empty frame (nothing set, sort NULL), extreme integers, floats. */
static void test_json_empty_and_extremes(void **state)
{
	struct proto_frame z = { 0 };
	struct proto_target t = { .pid = INT32_MIN, .state = 7, .level = 255,
		.started_ms = UINT64_MAX };
	struct proto_func f = { .calls = UINT64_MAX, .calls_per_s = NAN, .share = INFINITY };
	struct proto_func g = { .name = "g", .calls_per_s = 1.0 / 3, .share = 1e-12 };
	struct proto_func h = { .name = "h", .calls_per_s = 1e20, .share = -INFINITY,
		.running_ns = UINT64_MAX };
	struct proto_func fs[3];
	struct jp j;
	char *s;

	(void)state;
	s = tui_json_frame(&z, NULL);
	assert_string_equal(s, "{\"v\":1,\"t\":\"frame\",\"seq\":0,\"time_ms\":0,\"pid\":0,"
	    "\"sort\":\"\",\"agent_age_ms\":0,\"nfuncs_seen\":0,\"calls_total\":0,"
	    "\"self_total_ns\":0,\"dropped\":0,\"overhead_ps\":0,\"threads\":0,"
	    "\"cost_ppm\":0,\"cost_sampled_ppm\":0,\"cost_samples\":0,\"budget_ppm\":0,\"demoted\":0,"
	    "\"targets\":[],\"funcs\":[],\"sites\":{},\"paths\":[],\"paths_dropped\":0,"
	    "\"fps\":{\"budget_ns\":0,\"high_ns\":0,\"frozen_ns\":0,\"streams\":[]},"
	    "\"threading\":{\"time_ns\":0,\"created\":0,\"exited\":0,\"live\":0,\"other_live\":0,"
	    "\"agent_created\":0,\"agent_live\":0,\"agent_cpu_ns\":0,\"dropped\":0,"
	    "\"created_per_s\":0,\"history\":[],\"threads\":[],\"sites\":[],\"pools\":[]},"
	    "\"blocks\":{\"threshold_ns\":0,\"sample_ns\":0,\"ui_tid\":0,\"ui\":\"\",\"count\":0,\"list\":[]},"
	    "\"ipc\":{\"threshold_ns\":0,\"slow_count\":0,\"endpoints\":[],\"slow\":[]},"
	    "\"power\":{\"time_ns\":0,\"hold_ns\":0,\"exited\":false,\"table\":\"\",\"rows\":0,\"errors\":0,\"lost\":0,\"profile\":\"\",\"warning\":\"\",\"cpu_ma\":0,\"resources\":[],\"categories\":[],\"version\":1},"
	    "\"issues\":{\"raised\":0,\"list\":[],\"sinks\":[]},"
	    "\"memory\":{\"mode\":\"\",\"sample_bytes\":0,\"leak_window_ns\":0,\"heap_bytes\":0,\"heap_blocks\":0,\"alloc_bytes\":0,\"allocs\":0,\"frees\":0,\"mmap_bytes\":0,\"mmap_regions\":0,\"untracked\":0,\"unknown_frees\":0,\"exited\":false,\"allocs_per_s\":0,\"sites\":[],\"big\":[],\"history_kib\":[],"
	    "\"leaks\":{\"seq\":0,\"error\":\"\",\"note\":\"\",\"time_ns\":0,\"stopped_ns\":0,\"threads\":0,"
	    "\"root_bytes\":0,\"heap_bytes\":0,\"lost_bytes\":0,\"lost_blocks\":0,\"indirect_bytes\":0,"
	    "\"indirect_blocks\":0,\"possible_bytes\":0,\"possible_blocks\":0,\"reachable_bytes\":0,"
	    "\"reachable_blocks\":0,\"lost\":[]}},"
	    "\"network\":{\"threshold_ns\":0,\"large_bytes\":0,\"event_count\":0,\"endpoints\":[],"
	    "\"dns\":[],\"http\":[],\"events\":[]},"
	    "\"startup\":{\"time_ns\":0,\"attached\":false,\"exec_from\":\"\",\"exec_ns\":0,\"loaded_ns\":0,\"agent_ns\":0,\"ctors_ns\":0,\"main_ns\":0,\"wait_ns\":0,\"wait_call\":\"\",\"frame_ns\":0,\"libs\":[],\"libs_lost\":0,\"dlopens\":[],\"dlopens_total\":0,\"baseline\":\"\",\"noise_ns\":0,\"noise_pct\":0,\"slower\":[],\"version\":1}}");
	assert_true(json_valid(s, &j));
	free(s);

	fs[0] = f;
	fs[1] = g;
	fs[2] = h;
	z.pid = -1;
	z.seq = UINT64_MAX;
	z.ntargets = 1;
	z.targets = &t;
	z.nfuncs = 3;
	z.funcs = fs;
	s = tui_json_frame(&z, NULL);
	assert_true(json_valid(s, &j));
	assert_non_null(strstr(s, "\"seq\":18446744073709551615,"));
	assert_non_null(strstr(s, "\"pid\":-1,"));
	assert_non_null(strstr(s, "\"targets\":[{\"pid\":-2147483648,\"name\":\"\",\"exe\":\"\","
	    "\"state\":\"unknown\",\"level\":255,\"started_ms\":18446744073709551615,"
	    "\"ended_ms\":0}]"));
	assert_non_null(strstr(s, "{\"name\":\"\",\"module\":\"\",\"addr\":0,"
	    "\"calls\":18446744073709551615,\"calls_per_s\":null,"));
	assert_non_null(strstr(s, "\"slow\":0,\"share\":null,\"running_ns\":0,\"mode\":\"timed\",\"calls_est\":false,\"time_est\":false,\"mode_age_ms\":0,\"hook_ppm\":0},{\"name\":\"g\","));
	assert_non_null(strstr(s, "\"calls_per_s\":0.3333333333,"));
	assert_non_null(strstr(s, "\"share\":1e-12,\"running_ns\":0,\"mode\":\"timed\",\"calls_est\":false,\"time_est\":false,\"mode_age_ms\":0,\"hook_ppm\":0}"));
	assert_non_null(strstr(s, "\"calls_per_s\":1e+20,"));
	assert_non_null(strstr(s, "\"share\":null,\"running_ns\":18446744073709551615,\"mode\":\"timed\",\"calls_est\":false,\"time_est\":false,\"mode_age_ms\":0,\"hook_ppm\":0}],\"sites\":{},"));
	free(s);
}

/* Escape one function name; returns the "name" value as written. */
static char *json_name(const char *name)
{
	struct proto_func f = { .name = (char *)name, .module = "m" };
	struct proto_frame fr = { .sort = "total", .nfuncs = 1, .funcs = &f };
	struct jp j;
	char *s = tui_json_frame(&fr, NULL), *b, *e, *out;

	if (!json_valid(s, &j))
		fail_msg("invalid JSON for name: %s", s);
	b = strstr(s, "\"funcs\":[{\"name\":");
	assert_non_null(b);
	b += strlen("\"funcs\":[{\"name\":");
	e = strstr(b, ",\"module\":\"m\",");
	assert_non_null(e);
	out = xstrndup(b, (size_t)(e - b));
	free(s);
	return out;
}

/* Quotes, backslashes, control characters, invalid UTF-8 -> U+FFFD. */
static void test_json_escaping(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "\"plain\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "a\\b", "\"a\\\\b\"" },
		{ "/", "\"/\"" },
		{ "\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "\x7f", "\"\x7f\"" },                                     /* legal raw */
		{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
		{ "\xff", "\"\\ufffd\"" },
		{ "a\xe2\x82", "\"a\\ufffd\\ufffd\"" },                     /* truncated */
		{ "\xe2\x82x", "\"\\ufffd\\ufffdx\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },                       /* overlong */
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },            /* overlong */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },            /* surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
		{ "\xf5\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
		{ "\x80", "\"\\ufffd\"" },                                  /* lone continuation */
		{ "a\"b\\c\n\x01\xff\xc3\xa9 \xe2\x82",
		  "\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9 \\ufffd\\ufffd\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *s = json_name(cases[i].in);

		if (strcmp(s, cases[i].out) != 0)
			fail_msg("case %zu: %s, want %s", i, s, cases[i].out);
		free(s);
	}
}

/* A frame far over the writer's first buffer stays whole and valid. */
static void test_json_big(void **state)
{
	enum { N = 500 };
	struct proto_func *f = xcalloc(N, sizeof *f);
	struct proto_frame fr = { .sort = "calls", .nfuncs = N, .funcs = f };
	char names[N][32];
	struct jp j;
	size_t len, n = 0;
	char *s;

	(void)state;
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "fn_%d\"\\", i);
		f[i].name = names[i];
		f[i].module = "mod";
		f[i].calls = (uint64_t)i;
	}
	s = tui_json_frame(&fr, &len);
	assert_int_equal(len, strlen(s));
	assert_true(len > 4096 * 8);
	assert_true(json_valid(s, &j));
	/* keys[] is capped, so count the objects in the text. */
	for (const char *p = s; (p = strstr(p, "\"module\":\"mod\"")) != NULL; p++)
		n++;
	assert_int_equal(n, N);
	assert_non_null(strstr(s, "{\"name\":\"fn_499\\\"\\\\\",\"module\":\"mod\",\"addr\":0,"
	    "\"calls\":499,"));
	free(s);
	free(f);
}

/* ---- columns.c: sort keys, the plain table ---- */

/* Sort keys, their columns, and the local re-sort. */
static void test_sort(void **state)
{
	struct proto_func f[4] = {
		{ .name = "b", .addr = 2, .calls = 5, .total_ns = 10, .avg_ns = 3, .calls_per_s = 1.5 },
		{ .name = "a", .addr = 1, .calls = 5, .total_ns = 30, .avg_ns = 1, .calls_per_s = 0.5 },
		{ .name = "d", .addr = 4, .calls = 9, .total_ns = 20, .avg_ns = 2, .calls_per_s = 2.5 },
		{ .name = "c", .addr = 3, .calls = 1, .total_ns = 40, .avg_ns = 4, .calls_per_s = 0 },
	};
	char order[8];

	(void)state;
	assert_int_equal(tui_sort_key_index("total"), 0);
	assert_int_equal(tui_sort_key_index("name"), 7);
	assert_int_equal(tui_sort_key_index("Total"), -1);
	assert_int_equal(tui_sort_key_index(""), -1);
	assert_int_equal(tui_column_of_sort("self"), TUI_COL_SELF);
	assert_int_equal(tui_column_of_sort("rate"), TUI_COL_RATE);
	assert_int_equal(tui_column_of_sort("name"), TUI_COL_NAME);
	assert_int_equal(tui_column_of_sort("share"), -1);
	assert_int_equal(tui_column_of_sort(NULL), -1);
	for (int i = 0; tui_sort_keys[i] != NULL; i++)
		assert_true(tui_column_of_sort(tui_sort_keys[i]) >= 0);

#define ORDER() (snprintf(order, sizeof order, "%s%s%s%s", f[0].name, f[1].name, \
	f[2].name, f[3].name), order)
	tui_funcs_sort(f, 4, "calls");          /* descending, ties by address */
	assert_string_equal(ORDER(), "dabc");
	tui_funcs_sort(f, 4, "total");
	assert_string_equal(ORDER(), "cadb");
	f[3].running_ns = 25;                   /* b: 10 returned + 25 in flight */
	tui_funcs_sort(f, 4, "total");
	assert_string_equal(ORDER(), "cbad");
	tui_funcs_sort(f, 4, "avg");            /* avg ignores calls in flight */
	assert_string_equal(ORDER(), "cbda");
	f[1].running_ns = 0;                    /* b returned */
	tui_funcs_sort(f, 4, "total");
	assert_string_equal(ORDER(), "cadb");
	tui_funcs_sort(f, 4, "rate");
	assert_string_equal(ORDER(), "dbac");
	tui_funcs_sort(f, 4, "name");
	assert_string_equal(ORDER(), "abcd");
	tui_funcs_sort(f, 4, "avg");
	assert_string_equal(ORDER(), "cbda");
	tui_funcs_sort(f, 4, "bogus");          /* unknown: untouched */
	assert_string_equal(ORDER(), "cbda");
	tui_funcs_sort(f, 3, "name");
	assert_string_equal(ORDER(), "bcda");
#undef ORDER
}

/* Print a frame with tui_columns_print; returns a heap string. */
static char *columns_text(const struct proto_frame *f, bool utf8)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(m);
	tui_columns_print(m, f, utf8);
	assert_int_equal(fclose(m), 0);
	return text;
}

/* The plain --once table, exactly: estimates marked '~', the MODE column
 * while a row is demoted. */
static void test_columns_print(void **state)
{
	struct proto_frame f = json_frame;
	struct proto_target t = { .pid = 9, .name = "bad\x1b[2J", .state = 1, .level = 4 };
	struct proto_func fn[1] = { { .name = "\xe4\xb8\xad\xe6\x96\x87\x01", .module = "m",
		.calls = 3, .calls_per_s = 0, .share = NAN } };
	char *s;

	(void)state;
	s = columns_text(&f, true);
	assert_string_equal(s,
	    "target demo (pid 42) live, level 2 | cost 3.1%/5% | sort total | 5 functions seen | "
	    "210K calls | 1 dropped | 2 threads\n"
	    "NAME        CALLS CALLS/S   TOTAL    SELF     AVG     MAX   SLOW SHARE% MODE    MODULE\n"
	    "slow_work     200      10 ~200ms+  ~199ms ~1.00ms ~1.20ms     ~3 ~75.0% counted demo\n"
	    "fast_hash    210K   10.5K  5.00ms  5.00ms    23ns   900ns      0  25.0%         libx.so\n");
	free(s);

	/* Unknown target pid; terminal escapes in names are neutralised. */
	f.pid = 9;
	f.ntargets = 0;
	f.nfuncs = 0;
	s = columns_text(&f, true);
	assert_string_equal(s, "target pid 9 | sort total\n"
	    "NAME   CALLS CALLS/S   TOTAL    SELF     AVG     MAX   SLOW SHARE% MODULE\n");
	free(s);
	f.ntargets = 1;
	f.targets = &t;
	f.nfuncs = 1;
	f.funcs = fn;
	f.sort = "a\nb";
	s = columns_text(&f, true);
	assert_string_equal(s,
	    "target bad?[2J (pid 9) lost, level 4 | cost 3.1%/5% | sort a?b | 5 functions seen | "
	    "210K calls | 1 dropped | 2 threads\n"
	    "NAME    CALLS CALLS/S   TOTAL    SELF     AVG     MAX   SLOW SHARE% MODULE\n"
	    "\xe4\xb8\xad\xe6\x96\x87?       3       0       0       0       0       0      0 "
	    "     - m\n");
	free(s);
	f.pid = 0;
	f.nfuncs = 0;
	s = columns_text(&f, false);
	assert_int_equal(strncmp(s, "no target yet (start one with `hookscoped run -- PROG`)\n",
	    strlen("no target yet (start one with `hookscoped run -- PROG`)\n")), 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_frame),
		cmocka_unit_test(test_json_empty_and_extremes),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_json_big),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_columns_print),
	};

	if (tui_test_locale("test-tui-frame") < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
