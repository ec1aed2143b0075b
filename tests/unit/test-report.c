/*
 * test-report.c - the report writers on their own: safe report names, JSON
 * strings escaped, folded frames cleaned, Prometheus labels escaped, the
 * recent-frames ring (kept bounded, oldest dropped), each format's frame,
 * the IPC metrics' bounded endpoints and slow-call slices, the power
 * history's samples and the power metrics.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "report.h"
#include "session-util.h"

/* Names that stay in the directory pass; the others do not. */
static void
test_names(void **state)
{
	static const char *const good[] = { "a", "my-run.1", "A_b-9", "x..y" };
	static const char *const bad[] = { "", "../x", "..", ".hidden", "a/b", "/abs", "x y",
		"a\nb", "0123456789012345678901234567890123456789012345678901234567890123456789" };
	char err[PROTO_ERR_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		assert_int_equal(daemon_report_name_ok(good[i], err, sizeof err), 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		assert_int_equal(daemon_report_name_ok(bad[i], err, sizeof err), -1);
		assert_non_null(strstr(err, "bad report name"));
	}
	for (int f = 0; f < REPORT_NFORMATS; f++)
		assert_int_equal(report_format_parse(report_format_name(f)), f);
	assert_int_equal(report_format_parse("pdf"), -1);
}

/* The JSON writer: commas, nesting, escapes, no NaN, no invalid UTF-8. */
static void
test_json_writer(void **state)
{
	struct report_buf b = { 0 };
	struct report_json j = { .b = &b };

	(void)state;
	rj_obj(&j, NULL);
	rj_str(&j, "s", "a\"b\\c\n\x01é");
	rj_arr(&j, "v");
	rj_u64(&j, NULL, 1);
	rj_i64(&j, NULL, -2);
	rj_f64(&j, NULL, 0.0 / 0.0);
	rj_obj(&j, NULL);
	rj_end_obj(&j);
	rj_end_arr(&j);
	rj_bool(&j, "t", true);
	rj_str(&j, "bad", "f\xff\xc3");    /* a symbol name that is not UTF-8 */
	rj_end_obj(&j);
	assert_string_equal(b.p, "{\"s\":\"a\\\"b\\\\c\\n\\u0001é\",\"v\":[1,-2,null,{}],\"t\":true,"
	    "\"bad\":\"f\\ufffd\\ufffd\"}");
	free(b.p);
}

/* Folded lines: ';' and newlines inside a frame cannot split it. */
static void
test_folded_line(void **state)
{
	struct report_buf b = { 0 };
	struct report_folded f = { .b = &b, .root = "demo-1" };
	const char *frames[] = { "main", "a;b", "c\nd", "" };

	(void)state;
	report_folded_line(&f, frames, 4, 3);
	report_folded_line(&f, frames, 1, 0);          /* no samples: no line */
	assert_string_equal(b.p, "demo-1;main;a:b;c d;?? 3\n");
	free(b.p);
}

/* Metrics: HELP/TYPE once per family, labels escaped. */
static void
test_metrics(void **state)
{
	struct daemon_sessions ss = { 0 };
	struct daemon_session *s = live_session(1 * S);
	size_t len;
	char *text;

	(void)state;
	free(s->name);
	s->name = xstrdup("we\"ird\\");
	feed1(s, 1 * S, 0x1000, 5);
	name(s, 0x1000, "f\"n", "/lib/m.so");
	ss.v = &s;
	ss.n = 1;
	text = report_metrics_build(&ss, 2 * S, proto_wall_ms(), &len);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "# TYPE hookscope_calls_total counter\n"));
	assert_non_null(strstr(text, "hookscope_calls_total{pid=\"2000000001\",target=\"we\\\"ird\\\\\"} 5\n"));
	assert_non_null(strstr(text, "function=\"f\\\"n\""));
	assert_null(strstr(text + (strstr(text, "# HELP hookscope_fps ") - text) + 1, "# HELP hookscope_fps "));
	free(text);
	daemon_session_free(s);
}

/* The ring keeps the newest DAEMON_FPS_RING frames of each stream, and the
 * stream the daemon keeps never carries them. */
static void
test_fps_ring(void **state)
{
	struct daemon_session *s = live_session(1 * S);
	static uint64_t end[PROTO_FPS_RECENT], ns[PROTO_FPS_RECENT];
	uint32_t bins[1] = { 1 };
	struct proto_fps_stream st = { .id = 7, .tid = 11, .api = "app", .name = "x", .frames = 1,
		.nbins = 1, .bins = bins, .recent_end_ns = end, .recent_ns = ns };
	struct proto_agent_rec r = { .type = PROTO_AG_FPS, .time_ns = 2 * S,
		.fps = { .budget_ns = 16666667, .nstreams = 1, .streams = &st } };
	const struct daemon_fps_ring *ring;
	uint64_t next = 1;

	(void)state;
	for (int rec = 0; rec < 5; rec++) {       /* 5 x 512 > 2048 */
		for (size_t i = 0; i < PROTO_FPS_RECENT; i++) {
			end[i] = next * MS;
			ns[i] = MS;
			next++;
		}
		st.nrecent = PROTO_FPS_RECENT;
		daemon_session_fps(s, &r, 2 * S);
	}
	ring = daemon_fps_ring_of(s, 7);
	assert_non_null(ring);
	assert_int_equal(ring->n, DAEMON_FPS_RING);
	/* Oldest kept: frame next - 2048. */
	assert_int_equal(ring->end_ns[(ring->head + DAEMON_FPS_RING - ring->n) % DAEMON_FPS_RING],
	    (next - DAEMON_FPS_RING) * MS);
	assert_int_equal(s->fps.streams[0].nrecent, 0);
	assert_null(s->fps.streams[0].recent_ns);
	assert_null(daemon_fps_ring_of(s, 8));
	daemon_session_fps_reset(s);
	assert_null(daemon_fps_ring_of(s, 7));
	daemon_session_free(s);
}

/* "recent" crosses the agent link intact; frames to clients never have it. */
static void
test_recent_wire(void **state)
{
	uint64_t end[3] = { 10, 20, 30 }, ns[3] = { 1, 2, 3 };
	struct proto_fps_stream st = { .id = 1, .api = "app", .name = "n", .frames = 3,
		.nrecent = 3, .recent_end_ns = end, .recent_ns = ns };
	struct proto_agent_rec in = { .type = PROTO_AG_FPS, .time_ns = 5,
		.fps = { .nstreams = 1, .streams = &st } }, out;
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN];

	(void)state;
	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, &in);
	assert_int_equal(proto_agent_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR,
	    &out, err, sizeof err), 0);
	assert_int_equal(out.fps.streams[0].nrecent, 3);
	assert_int_equal(out.fps.streams[0].recent_end_ns[2], 30);
	assert_int_equal(out.fps.streams[0].recent_ns[1], 2);
	proto_agent_rec_free(&out);
	msgpack_sbuffer_destroy(&sb);
	st.nrecent = 0;
	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, &in);
	assert_null(memmem(sb.data, sb.size, "recent", 6));
	msgpack_sbuffer_destroy(&sb);
}

/* Each format frames its sessions: JSON/trace objects, text header. */
static void
test_formats(void **state)
{
	struct daemon_session *s = ranked_session();
	size_t len;
	char *text;

	(void)state;
	text = report_build(&s, 1, REPORT_JSON, 3 * S, proto_wall_ms(), &len);
	assert_true(strncmp(text, "{\"schema\":\"hookscope-report\",\"version\":1,", 41) == 0);
	assert_non_null(strstr(text, "\"functions\":{\"calls_total\":691,"));
	assert_non_null(strstr(text, "\"fps\":{"));
	assert_string_equal(text + len - 4, "}]}\n");
	free(text);
	text = report_build(&s, 1, REPORT_TRACE, 3 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\""));
	free(text);
	text = report_build(&s, 1, REPORT_FOLDED, 3 * S, proto_wall_ms(), &len);
	assert_int_equal(len, 0);                 /* no blocks: no stacks */
	free(text);
	text = report_build(NULL, 0, REPORT_TEXT, 3 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "(no targets)"));
	free(text);
	daemon_session_free(s);
}

/* The number of times needle occurs in hay. */
static size_t
count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* IPC metrics: the REPORT_METRICS_IPC_TOP endpoints with the most time
 * blocked, endpoints with the same labels merged, the rest (and the agent's
 * own overflow endpoint) summed into endpoint "other"; a slow call is a
 * trace slice on its thread from its start. */
static void
test_ipc_sections(void **state)
{
	enum { NEPS = REPORT_METRICS_IPC_TOP + 5 };
	struct daemon_session *s = live_session(1 * S);
	struct proto_ipc_ep eps[NEPS + 2];
	char names[NEPS][16], *text;
	struct proto_block_frame fr = { .addr = 0x10, .func = "fetch", .module = "app",
		.file = "", .line = 0 };
	struct proto_ipc_slow slow = { .id = 1, .ep = 0, .op = "recv", .tid = 42, .start_ns = 5 * S,
		.dur_ns = 250 * MS, .stack = { .samples = 1, .nframes = 1, .frames = &fr } };
	struct proto_agent_rec r = { .type = PROTO_AG_IPC, .time_ns = 6 * S };
	struct daemon_sessions ss = { .v = &s, .n = 1 };
	size_t len;

	(void)state;
	for (size_t i = 0; i < NEPS; i++) {
		snprintf(names[i], sizeof names[i], "/run/e%zu", i);
		eps[i] = (struct proto_ipc_ep){ .id = (uint32_t)i, .kind = "unix", .name = names[i],
			.method = "", .peer_comm = "srv", .sends = 1, .recvs = 1, .bytes_out = 10,
			.total_ns = (NEPS - i) * S, .slow = 1 };
	}
	eps[NEPS] = eps[0];                       /* same labels as e0: one series */
	eps[NEPS].id = NEPS;
	eps[NEPS].total_ns = 1;
	eps[NEPS + 1] = (struct proto_ipc_ep){ .id = NEPS + 1, .kind = "other",
		.name = "(other endpoints)", .method = "", .peer_comm = "", .calls = 100,
		.total_ns = 1000 * S };               /* the most time, never a series of its own */
	r.ipc = (struct proto_ipc){ .threshold_ns = 100 * MS, .slow_count = 1, .neps = NEPS + 2,
		.eps = eps, .nslow = 1, .slow = &slow };
	daemon_session_ipc(s, &r, 6 * S);
	text = report_metrics_build(&ss, 6 * S, proto_wall_ms(), &len);
	assert_int_equal(count_of(text, "\nhookscope_ipc_calls_total{"), REPORT_METRICS_IPC_TOP + 1);
	/* e0 and its twin: 2 + 2 operations, 20 bytes */
	assert_non_null(strstr(text, "hookscope_ipc_calls_total{pid=\"2000000001\",target=\"target\","
	    "kind=\"unix\",endpoint=\"/run/e0\",method=\"\",peer=\"srv\"} 4\n"));
	assert_non_null(strstr(text, "hookscope_ipc_sent_bytes_total{pid=\"2000000001\","
	    "target=\"target\",kind=\"unix\",endpoint=\"/run/e0\",method=\"\",peer=\"srv\"} 20\n"));
	/* e10..e14 (2 operations each) and the overflow endpoint's 100 */
	assert_non_null(strstr(text, "hookscope_ipc_calls_total{pid=\"2000000001\",target=\"target\","
	    "kind=\"other\",endpoint=\"other\",method=\"\",peer=\"\"} 110\n"));
	assert_null(strstr(text, "endpoint=\"/run/e10\""));
	assert_non_null(strstr(text, "hookscope_ipc_slow_calls_total{pid=\"2000000001\","
	    "target=\"target\",kind=\"other\",endpoint=\"other\",method=\"\",peer=\"\"} 5\n"));
	free(text);
	text = report_build(&s, 1, REPORT_TRACE, 7 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "{\"ph\":\"X\",\"name\":\"ipc recv\",\"cat\":\"ipc\","
	    "\"pid\":2000000001,\"tid\":42,\"ts\":5000000.000,\"dur\":250000.000,"));
	free(text);
	text = report_build(&s, 1, REPORT_JSON, 7 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "\"slow\":[{\"id\":1,\"ep\":0,\"op\":\"recv\",\"tid\":42,"
	    "\"ui\":false,\"start_ns\":5000000000,"));
	assert_non_null(strstr(text, "\"stack\":[{\"addr\":\"0x10\",\"func\":\"fetch\","));
	free(text);
	daemon_session_free(s);
}

/* Feed a power record at t: the wakelock held or not, the sensor held. */
static void
feed_power(struct daemon_session *s, uint64_t t, bool wakelock)
{
	struct proto_pwr_res res[2] = {
		{ .category = "wakelock", .name = "w", .api = "write", .item = "cpu.idle", .ma = -1,
		  .held = wakelock, .acquires = 1, .releases = !wakelock,
		  .total_ns = 1 * S, .held_ns = wakelock ? 1 * S : 0 },
		{ .category = "sensor", .name = "s", .api = "write", .item = "-", .ma = -1,
		  .held = true, .acquires = 2, .total_ns = 3 * S, .held_ns = 3 * S },
	};
	struct proto_agent_rec r = { .type = PROTO_AG_POWER, .time_ns = t,
		.power = { .time_ns = t, .hold_ns = 120 * S, .table = "t", .nres = 2, .res = res } };

	daemon_session_power(s, &r, t);
}

/* The held-resources history: a sample when a count changes or a second
 * after the last; the trace's counter and the metrics per category. */
static void
test_power_sections(void **state)
{
	struct daemon_session *s = live_session(1 * S);
	struct daemon_sessions ss = { .v = &s, .n = 1 };
	size_t len;
	char *text;

	(void)state;
	setenv("HOOKSCOPE_POWER_PROFILE", "daemon/power_profile.sample.xml", 1);
	feed_power(s, 1 * S, true);
	feed_power(s, 1500 * MS, true);               /* no change, < 1 s: no sample */
	feed_power(s, 2200 * MS, true);               /* a second on */
	feed_power(s, 2300 * MS, false);              /* released */
	assert_non_null(s->power_hist);
	assert_int_equal(s->power_hist->n, 3);
	text = report_build(&s, 1, REPORT_TRACE, 3 * S, proto_wall_ms(), &len);
	assert_int_equal(count_of(text, "\"name\":\"held resources\""), 3);
	assert_non_null(strstr(text, "\"ts\":2200000.000,\"args\":{\"wakelock\":1,\"sensor\":1}}"));
	assert_non_null(strstr(text, "\"ts\":2300000.000,\"args\":{\"wakelock\":0,\"sensor\":1}}"));
	free(text);
	text = report_metrics_build(&ss, 3 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "hookscope_power_held{pid=\"2000000001\",target=\"target\","
	    "category=\"sensor\"} 1\n"));
	assert_non_null(strstr(text, "hookscope_power_acquisitions_total{pid=\"2000000001\","
	    "target=\"target\",category=\"sensor\"} 2\n"));
	/* 1 s at cpu.idle, 28.6 mA: 28.6 / 3600 mAh; the sensor is not priced */
	assert_non_null(strstr(text, "hookscope_power_charge_mah_total{pid=\"2000000001\","
	    "target=\"target\",category=\"wakelock\"} 0.00794444444444444\n"));
	assert_null(strstr(text, "hookscope_power_charge_mah_total{pid=\"2000000001\","
	    "target=\"target\",category=\"sensor\"}"));
	free(text);
	text = report_build(&s, 1, REPORT_JSON, 3 * S, proto_wall_ms(), &len);
	assert_non_null(strstr(text, "\"mah\":null,\"price_ma\":null,\"price_from\":\"\"}"));
	assert_non_null(strstr(text, "\"price_ma\":28.6,\"price_from\":\"cpu.idle\"}"));
	free(text);
	daemon_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_json_writer),
		cmocka_unit_test(test_folded_line),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_fps_ring),
		cmocka_unit_test(test_recent_wire),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_ipc_sections),
		cmocka_unit_test(test_power_sections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
