/*
 * hs-wsclient.c - a small websocket client for testing hookscoped by hand
 * and from the e2e scripts.
 *
 *   hs-wsclient [-p PORT] [-H HOST] [-n COUNT] [-t SECONDS] [--replies]
 *               [--no-frames] [--no-protocol | --protocol NAME]
 *               [--stall MS] [--token T] [--save DIR] MESSAGE...
 *
 * Each MESSAGE is one command-line argument sent as one binary message:
 *   "cmd NAME ARGS..."  a command (split on spaces; ids 1, 2, ... in order)
 *   "raw HEX"           these bytes as they are (malformed input tests)
 *   "rawfile PATH"      the bytes of a file
 *   "junk N"            N bytes of 0xc1 (never valid msgpack; size cap tests)
 * Every received message is printed as one line of JSON (msgpack as is, bin
 * as a string); a close from the server prints {"t":"close","code":N,...}.
 * --token sends "Authorization: Bearer T" with the upgrade (doc/protocol.md);
 * --save writes every message received, as is, to DIR/msg-N (fuzz seeds).
 * Exit: 0 done, 1 cannot connect, 2 usage, 3 timeout before -n/--replies was
 * satisfied, 4 closed before that.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libwebsockets.h>
#include "protocol.h"

struct wsc_msg {
	size_t len;
	unsigned char *buf;     /* LWS_PRE + len: client writes mask in place */
};

static struct {
	const char *host;
	int port;
	const char *protocol;
	long want;              /* stop after this many messages, 0 = no limit */
	bool replies;           /* stop when every message sent was answered */
	bool no_frames;
	long stall_ms;
	const char *token, *save_dir;
	double timeout_s;
	struct wsc_msg *msgs;
	size_t nmsgs, sent;
	long received, answers;
	unsigned char *rx;
	size_t rx_len;
	bool done, closed_printed;
	int rc;
	struct lws_context *ctx;
	struct lws *wsi;
	lws_sorted_usec_list_t timeout_sul, stall_sul;
} w = { .host = "127.0.0.1", .port = 7070, .protocol = "hookscope",
	.timeout_s = 5 };

/* Print usage and exit 2. */
static void __attribute__((noreturn))
wsc_usage(const char *why)
{
	if (why)
		fprintf(stderr, "hs-wsclient: %s\n", why);
	fprintf(stderr, "usage: hs-wsclient [-p PORT] [-H HOST] [-n COUNT] [-t SECONDS] "
	    "[--replies] [--no-frames]\n"
	    "                   [--no-protocol | --protocol NAME] [--stall MS] "
	    "MESSAGE...\n"
	    "MESSAGE: 'cmd NAME ARGS...' | 'raw HEX' | 'rawfile PATH' | 'junk N'\n");
	exit(2);
}

/* Wrap len bytes into a message with headroom. */
static struct wsc_msg
wsc_msg_make(const void *data, size_t len)
{
	struct wsc_msg m = { .len = len, .buf = xmalloc(LWS_PRE + len + 1) };

	memcpy(m.buf + LWS_PRE, data, len);
	return m;
}

/* Turn one command-line MESSAGE into bytes. */
static struct wsc_msg
wsc_msg_parse(const char *spec, uint64_t *next_id)
{
	char *copy = xstrdup(spec), *save = NULL, *kind = strtok_r(copy, " ", &save);
	struct wsc_msg m = { 0 };

	if (kind == NULL)
		wsc_usage("empty message");
	if (strcmp(kind, "cmd") == 0) {
		struct proto_cmd c = { .id = (*next_id)++ };
		msgpack_sbuffer sb;
		char *tok;

		if ((c.cmd = strtok_r(NULL, " ", &save)) == NULL)
			wsc_usage("cmd needs a NAME");
		while ((tok = strtok_r(NULL, " ", &save)) != NULL && c.argc < PROTO_MAX_ARGS)
			c.argv[c.argc++] = tok;
		msgpack_sbuffer_init(&sb);
		proto_encode_cmd(&sb, &c);
		m = wsc_msg_make(sb.data, sb.size);
		msgpack_sbuffer_destroy(&sb);
	} else if (strcmp(kind, "raw") == 0) {
		const char *hex = spec + 3;
		unsigned char *bytes = xmalloc(strlen(hex) / 2 + 1);
		size_t n = 0;
		unsigned v;

		while (*hex) {
			if (isspace((unsigned char)*hex)) {
				hex++;
				continue;
			}
			if (sscanf(hex, "%2x", &v) != 1 || !isxdigit((unsigned char)hex[1]))
				wsc_usage("raw needs pairs of hex digits");
			bytes[n++] = (unsigned char)v;
			hex += 2;
		}
		m = wsc_msg_make(bytes, n);
		free(bytes);
	} else if (strcmp(kind, "rawfile") == 0) {
		const char *path = strtok_r(NULL, "", &save);
		FILE *f = path ? fopen(path, "rb") : NULL;
		unsigned char *bytes = NULL;
		size_t n = 0, cap = 0, r;

		if (f == NULL)
			wsc_usage("rawfile: cannot open the file");
		do {
			if (cap - n < 65536)
				bytes = xrealloc(bytes, cap = cap * 2 + 65536);
			r = fread(bytes + n, 1, cap - n, f);
			n += r;
		} while (r > 0);
		fclose(f);
		m = wsc_msg_make(bytes, n);
		free(bytes);
	} else if (strcmp(kind, "junk") == 0) {
		const char *ns = strtok_r(NULL, " ", &save);
		long n = ns ? strtol(ns, NULL, 10) : -1;
		unsigned char *bytes;

		if (n < 0 || n > (64L << 20))
			wsc_usage("junk needs a byte count up to 64 MiB");
		bytes = xmalloc((size_t)n + 1);
		memset(bytes, 0xc1, (size_t)n);
		m = wsc_msg_make(bytes, (size_t)n);
		free(bytes);
	} else {
		wsc_usage("a message is 'cmd ...', 'raw HEX', 'rawfile PATH' or 'junk N'");
	}
	free(copy);
	return m;
}

/* Print a JSON string (bytes >= 0x80 pass through as UTF-8). */
static void
wsc_json_str(const char *s, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", stdout);
		else if (ch == '\t')
			fputs("\\t", stdout);
		else if (ch < 0x20 || ch == 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* Print any msgpack object as JSON. */
static void
wsc_json(const msgpack_object *o)
{
	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		fputs("null", stdout);
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		fputs(o->via.boolean ? "true" : "false", stdout);
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		printf("%llu", (unsigned long long)o->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		printf("%lld", (long long)o->via.i64);
		break;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		if (isfinite(o->via.f64))
			printf("%.6g", o->via.f64);
		else
			fputs("null", stdout);
		break;
	case MSGPACK_OBJECT_STR:
		wsc_json_str(o->via.str.ptr, o->via.str.size);
		break;
	case MSGPACK_OBJECT_BIN:
		wsc_json_str(o->via.bin.ptr, o->via.bin.size);
		break;
	case MSGPACK_OBJECT_ARRAY:
		putchar('[');
		for (uint32_t i = 0; i < o->via.array.size; i++) {
			if (i)
				putchar(',');
			wsc_json(&o->via.array.ptr[i]);
		}
		putchar(']');
		break;
	case MSGPACK_OBJECT_MAP:
		putchar('{');
		for (uint32_t i = 0; i < o->via.map.size; i++) {
			const msgpack_object *k = &o->via.map.ptr[i].key;

			if (i)
				putchar(',');
			if (k->type == MSGPACK_OBJECT_STR)
				wsc_json_str(k->via.str.ptr, k->via.str.size);
			else
				fputs("\"?\"", stdout);
			putchar(':');
			wsc_json(&o->via.map.ptr[i].val);
		}
		putchar('}');
		break;
	default:
		fputs("\"(ext)\"", stdout);
	}
}

/* Is the stop condition met? */
static bool
wsc_satisfied(void)
{
	if (w.want > 0 && w.received >= w.want)
		return true;
	if (w.replies && w.answers >= (long)w.nmsgs)
		return true;
	return false;
}

/* One whole message from the server. */
static void
wsc_message(const unsigned char *buf, size_t len)
{
	char err[PROTO_ERR_LEN];
	msgpack_unpacked u;
	const msgpack_object *t = NULL;
	bool frame = false;

	if (w.save_dir != NULL) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof path, "%s/msg-%ld", w.save_dir, w.received);
		if ((f = fopen(path, "wb")) == NULL || fwrite(buf, 1, len, f) != len ||
		    fclose(f) != 0)
			fprintf(stderr, "hs-wsclient: cannot write %s\n", path);
	}
	if (proto_check(buf, len, PROTO_MAX_FRAME, err, sizeof err) < 0) {
		printf("{\"t\":\"invalid\",\"len\":%zu,\"err\":", len);
		wsc_json_str(err, strlen(err));
		puts("}");
		w.received++;
		return;
	}
	msgpack_unpacked_init(&u);
	if (msgpack_unpack_next(&u, (const char *)buf, len, NULL) == MSGPACK_UNPACK_SUCCESS) {
		if (u.data.type == MSGPACK_OBJECT_MAP)
			t = proto_map_get(&u.data, "t");
		if (t && t->type == MSGPACK_OBJECT_STR) {
			frame = t->via.str.size == 5 && memcmp(t->via.str.ptr, "frame", 5) == 0;
			if ((t->via.str.size == 5 && memcmp(t->via.str.ptr, "reply", 5) == 0) ||
			    (t->via.str.size == 5 && memcmp(t->via.str.ptr, "error", 5) == 0))
				w.answers++;
		}
		if (!(frame && w.no_frames)) {
			wsc_json(&u.data);
			putchar('\n');
		}
	}
	msgpack_unpacked_destroy(&u);
	fflush(stdout);
	w.received++;
}

/* Print the server's close (code and reason) once. */
static void
wsc_print_close(const unsigned char *in, size_t len)
{
	if (w.closed_printed)
		return;
	w.closed_printed = true;
	printf("{\"t\":\"close\",\"code\":%d,\"reason\":",
	    len >= 2 ? (in[0] << 8) | in[1] : 0);
	wsc_json_str(len > 2 ? (const char *)in + 2 : "", len > 2 ? len - 2 : 0);
	puts("}");
	fflush(stdout);
}

/* Give up waiting. */
static void
wsc_timeout(lws_sorted_usec_list_t *sul)
{
	(void)sul;
	w.rc = wsc_satisfied() || (w.want == 0 && !w.replies) ? 0 : 3;
	w.done = true;
	if (w.rc == 3)
		fprintf(stderr, "hs-wsclient: timed out after %g s (%ld messages, "
		    "%ld answers)\n", w.timeout_s, w.received, w.answers);
}

/* End of --stall: read again. */
static void
wsc_unstall(lws_sorted_usec_list_t *sul)
{
	(void)sul;
	if (w.wsi)
		lws_rx_flow_control(w.wsi, 1);
}

/* lws client callback. */
static int
wsc_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
    void *in, size_t len)
{
	(void)user;
	switch (reason) {
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		fprintf(stderr, "hs-wsclient: cannot connect to ws://%s:%d: %s\n",
		    w.host, w.port, in ? (const char *)in : "unknown error");
		w.rc = 1;
		w.done = true;
		return 0;
	case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
		if (w.token != NULL) {
			unsigned char **p = in, *end = *p + len;
			char v[1024];

			snprintf(v, sizeof v, "Bearer %s", w.token);
			if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_AUTHORIZATION,
			    (unsigned char *)v, (int)strlen(v), p, end))
				return -1;
		}
		return 0;
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		w.wsi = wsi;
		if (w.stall_ms > 0) {
			lws_rx_flow_control(wsi, 0);
			lws_sul_schedule(w.ctx, 0, &w.stall_sul, wsc_unstall,
			    w.stall_ms * LWS_US_PER_MS);
		}
		if (w.nmsgs > 0)
			lws_callback_on_writable(wsi);
		return 0;
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		if (w.sent < w.nmsgs) {
			struct wsc_msg *m = &w.msgs[w.sent++];

			if (lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_BINARY) < 0)
				return -1;
			if (w.sent < w.nmsgs)
				lws_callback_on_writable(wsi);
		}
		return 0;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		if (w.rx_len + len > PROTO_MAX_FRAME) {
			fprintf(stderr, "hs-wsclient: message over %u bytes\n", PROTO_MAX_FRAME);
			return -1;
		}
		w.rx = xrealloc(w.rx, w.rx_len + len + 1);
		memcpy(w.rx + w.rx_len, in, len);
		w.rx_len += len;
		if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
			wsc_message(w.rx, w.rx_len);
			w.rx_len = 0;
			if (wsc_satisfied()) {
				w.rc = 0;
				w.done = true;
			}
		}
		return 0;
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		wsc_print_close(in, len);
		return 0;
	case LWS_CALLBACK_CLIENT_CLOSED:
		if (!w.done)            /* not our own close at the end */
			wsc_print_close(NULL, 0);
		if (!w.done)
			w.rc = wsc_satisfied() || (w.want == 0 && !w.replies) ? 0 : 4;
		w.done = true;
		w.wsi = NULL;
		return 0;
	default:
		return 0;
	}
}

/* Parse options, connect, run until done. */
int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "replies", no_argument, NULL, 'r' },
		{ "no-frames", no_argument, NULL, 'F' },
		{ "no-protocol", no_argument, NULL, 'N' },
		{ "protocol", required_argument, NULL, 'P' },
		{ "stall", required_argument, NULL, 's' },
		{ "token", required_argument, NULL, 'T' },
		{ "save", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lws_protocols protocols[] = {
		{ .name = "hookscope", .callback = wsc_callback, .rx_buffer_size = 65536 },
		{ 0 },
	};
	struct lws_context_creation_info info;
	struct lws_client_connect_info ci;
	uint64_t next_id = 1;
	int c;

	while ((c = getopt_long(argc, argv, "p:H:n:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': w.port = atoi(optarg); break;
		case 'H': w.host = optarg; break;
		case 'n': w.want = atol(optarg); break;
		case 't': w.timeout_s = atof(optarg); break;
		case 'r': w.replies = true; break;
		case 'F': w.no_frames = true; break;
		case 'N': w.protocol = NULL; break;
		case 'P': w.protocol = optarg; break;
		case 's': w.stall_ms = atol(optarg); break;
		case 'T': w.token = optarg; break;
		case 'S': w.save_dir = optarg; break;
		case 'h': wsc_usage(NULL);
		default: wsc_usage("unknown option");
		}
	}
	if (w.port <= 0 || w.port > 65535 || w.timeout_s <= 0)
		wsc_usage("bad port or timeout");
	w.nmsgs = (size_t)(argc - optind);
	w.msgs = xcalloc(w.nmsgs ? w.nmsgs : 1, sizeof *w.msgs);
	for (size_t i = 0; i < w.nmsgs; i++)
		w.msgs[i] = wsc_msg_parse(argv[optind + (int)i], &next_id);

	lws_set_log_level(LLL_ERR, NULL);
	memset(&info, 0, sizeof info);
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = protocols;
	info.gid = -1;
	info.uid = -1;
	if ((w.ctx = lws_create_context(&info)) == NULL) {
		fprintf(stderr, "hs-wsclient: cannot create an lws context\n");
		return 1;
	}
	memset(&ci, 0, sizeof ci);
	ci.context = w.ctx;
	ci.address = w.host;
	ci.port = w.port;
	ci.path = "/";
	ci.host = w.host;
	ci.origin = w.host;
	ci.protocol = w.protocol;
	ci.local_protocol_name = "hookscope";
	w.rc = 1;
	if (lws_client_connect_via_info(&ci) == NULL) {
		fprintf(stderr, "hs-wsclient: cannot connect to ws://%s:%d\n", w.host, w.port);
		lws_context_destroy(w.ctx);
		return 1;
	}
	lws_sul_schedule(w.ctx, 0, &w.timeout_sul, wsc_timeout,
	    (lws_usec_t)(w.timeout_s * LWS_US_PER_SEC));
	while (!w.done)
		if (lws_service(w.ctx, 0) < 0)
			break;
	lws_context_destroy(w.ctx);
	for (size_t i = 0; i < w.nmsgs; i++)
		free(w.msgs[i].buf);
	free(w.msgs);
	free(w.rx);
	return w.rc;
}
