/*
 * conn.c - the websocket from hookscope to hookscoped.
 *
 * One connection at a time; when it fails or drops, it is tried again every
 * retry_ms.  Commands carry an id; the reply with that id goes to the
 * function given with the command, and every command still waiting when
 * the connection drops gets a NULL reply so nobody waits forever.  Each
 * outgoing message has its own buffer: a client-side lws_write masks the
 * payload in place.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libwebsockets.h>

#include "tui.h"

/* A command waiting for its turn to be written. */
struct conn_out {
	struct conn_out *next;
	size_t           len;
	unsigned char    buf[];           /* LWS_PRE headroom, then the payload */
};

/* A command waiting for its reply. */
struct conn_wait {
	struct conn_wait *next;
	uint64_t          id;
	tui_reply_fn      fn;
	void             *arg;
};

struct tui_conn {
	struct tui_loop   *loop;
	struct tui_url     url;
	const struct tui_conn_ops *ops;
	void              *owner;
	struct lws        *wsi;
	enum tui_conn_state state;
	bool               failed;        /* this attempt already failed */
	char               error[PROTO_ERR_LEN + 128];
	char               close_reason[128];
	struct tui_timer  *retry;
	unsigned           retry_ms;
	uint64_t           next_id;
	struct conn_out   *out, **out_tail;
	struct conn_wait  *wait, **wait_tail;
	unsigned char     *rx;
	size_t             rx_len, rx_cap;
};

/* Pings keep a half-dead connection (daemon stopped, tunnel gone) from
 * looking alive forever. */
static const uint32_t conn_backoff[] = { TUI_RETRY_MS };
static const lws_retry_bo_t conn_policy = {
	.retry_ms_table = conn_backoff,
	.retry_ms_table_count = 1,
	.secs_since_valid_ping = 3,
	.secs_since_valid_hangup = 10,
};

/* The lws callback of the client protocol (below). */
static int conn_callback(struct lws *wsi, enum lws_callback_reasons reason,
    void *user, void *in, size_t len);

static const struct lws_protocols conn_protocol = {
	.name = TUI_WS_PROTOCOL,
	.callback = conn_callback,
	.rx_buffer_size = 65536,
};

/* See tui.h. */
const struct lws_protocols *tui_conn_protocol(void)
{
	return &conn_protocol;
}

/* See tui.h. */
void tui_msg_free(struct proto_server_msg *m)
{
	if (m == NULL)
		return;
	proto_server_msg_free(m);
	free(m);
}

/* Drop unsent commands and fail the ones waiting for replies. */
static void conn_flush(struct tui_conn *c)
{
	struct conn_wait *w;

	while (c->out != NULL) {
		struct conn_out *o = c->out;

		c->out = o->next;
		free(o);
	}
	c->out_tail = &c->out;
	c->rx_len = 0;
	/* Detach the list first: a reply function may send a new command. */
	w = c->wait;
	c->wait = NULL;
	c->wait_tail = &c->wait;
	while (w != NULL) {
		struct conn_wait *next = w->next;

		if (w->fn != NULL)
			w->fn(w->arg, NULL);
		free(w);
		w = next;
	}
}

/* The attempt failed or the connection dropped: say why, retry later. */
__attribute__((format(printf, 2, 3)))
static void conn_lost(struct tui_conn *c, const char *fmt, ...)
{
	va_list ap;

	c->wsi = NULL;
	if (c->failed)
		return;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->error, sizeof c->error, fmt, ap);
	va_end(ap);
	c->state = TUI_CONN_RETRY;
	conn_flush(c);
	tui_timer_start(c->retry, c->retry_ms);
	c->ops->state(c->owner);
}

/* Start one connection attempt. */
static void conn_connect(struct tui_conn *c)
{
	struct lws_client_connect_info i;
	struct lws *wsi;

	memset(&i, 0, sizeof i);
	i.context = tui_loop_context(c->loop);
	i.address = c->url.host;
	i.port = c->url.port;
	i.path = c->url.path;
	i.host = c->url.host;
	i.origin = c->url.host;
	i.protocol = TUI_WS_PROTOCOL;
	i.local_protocol_name = TUI_WS_PROTOCOL;
	i.opaque_user_data = c;
	i.retry_and_idle_policy = &conn_policy;
	c->failed = false;
	c->close_reason[0] = '\0';
	c->rx_len = 0;
	/* A refusal may come back through the callback before this returns. */
	wsi = lws_client_connect_via_info(&i);
	if (wsi == NULL)
		conn_lost(c, "cannot connect to %s (%s)", c->url.text,
		    tui_loop_last_log()[0] ? tui_loop_last_log() : "connection failed");
	else if (!c->failed)
		c->wsi = wsi;
}

/* Retry timer. */
static void conn_retry(void *arg)
{
	conn_connect(arg);
}

/* See tui.h. */
struct tui_conn *tui_conn_new(struct tui_loop *l, const struct tui_url *u,
    unsigned retry_ms, const struct tui_conn_ops *ops, void *owner)
{
	struct tui_conn *c = xcalloc(1, sizeof *c);

	c->loop = l;
	c->url = *u;
	c->ops = ops;
	c->owner = owner;
	c->retry_ms = retry_ms;
	c->retry = tui_timer_new(l, conn_retry, c);
	c->out_tail = &c->out;
	c->wait_tail = &c->wait;
	c->state = TUI_CONN_CONNECTING;
	return c;
}

/* See tui.h. */
void tui_conn_start(struct tui_conn *c)
{
	conn_connect(c);
}

/* See tui.h.  The context (and with it the socket) goes with the loop. */
void tui_conn_free(struct tui_conn *c)
{
	if (c == NULL)
		return;
	c->failed = true;               /* no more callbacks to the owner */
	if (c->wsi != NULL)
		lws_set_opaque_user_data(c->wsi, NULL);
	conn_flush(c);
	tui_timer_free(c->retry);
	free(c->rx);
	free(c);
}

/* See tui.h. */
enum tui_conn_state tui_conn_state(const struct tui_conn *c)
{
	return c->state;
}

/* See tui.h. */
const char *tui_conn_error(const struct tui_conn *c)
{
	return c->error;
}

/* See tui.h. */
int tui_conn_send(struct tui_conn *c, int argc, const char *const *argv,
    tui_reply_fn fn, void *arg, char *err, size_t errlen)
{
	struct proto_cmd cmd;
	msgpack_sbuffer sb;
	struct conn_out *o;
	struct conn_wait *w;

	assert(argc >= 1);
	if (c->state != TUI_CONN_UP || c->wsi == NULL) {
		snprintf(err, errlen, "not connected to %s", c->url.text);
		return -1;
	}
	if (argc - 1 > PROTO_MAX_ARGS) {
		snprintf(err, errlen, "%s: too many arguments (at most %d)", argv[0], PROTO_MAX_ARGS);
		return -1;
	}
	memset(&cmd, 0, sizeof cmd);
	cmd.id = ++c->next_id;
	cmd.cmd = (char *)argv[0];
	cmd.argc = argc - 1;
	for (int i = 1; i < argc; i++)
		cmd.argv[i - 1] = (char *)argv[i];
	msgpack_sbuffer_init(&sb);
	proto_encode_cmd(&sb, &cmd);
	o = xmalloc(sizeof *o + LWS_PRE + sb.size);
	o->next = NULL;
	o->len = sb.size;
	memcpy(o->buf + LWS_PRE, sb.data, sb.size);
	msgpack_sbuffer_destroy(&sb);
	*c->out_tail = o;
	c->out_tail = &o->next;
	w = xcalloc(1, sizeof *w);
	w->id = cmd.id;
	w->fn = fn;
	w->arg = arg;
	*c->wait_tail = w;
	c->wait_tail = &w->next;
	lws_callback_on_writable(c->wsi);
	return 0;
}

/* Hand a reply to whoever sent the command. */
static void conn_reply(struct tui_conn *c, const struct proto_reply *r)
{
	struct conn_wait **pp = &c->wait, *w;

	while (*pp != NULL && (*pp)->id != r->id)
		pp = &(*pp)->next;
	if (*pp == NULL)
		return;                 /* not ours (or already failed): ignore */
	w = *pp;
	*pp = w->next;
	if (c->wait_tail == &w->next)
		c->wait_tail = pp;
	if (w->fn != NULL)
		w->fn(w->arg, r);
	free(w);
}

/* A whole message arrived: decode and dispatch it. */
static void conn_dispatch(struct tui_conn *c)
{
	struct proto_server_msg *m = xcalloc(1, sizeof *m);
	char err[PROTO_ERR_LEN];
	char text[PROTO_ERR_LEN + 64];

	if (proto_decode_server(c->rx, c->rx_len, m, err, sizeof err) < 0) {
		free(m);
		snprintf(text, sizeof text, "unreadable message from the daemon ignored: %s", err);
		c->ops->warn(c->owner, text);
		return;
	}
	if (m->type == PROTO_MSG_REPLY) {
		conn_reply(c, &m->reply);
		tui_msg_free(m);
		return;
	}
	c->ops->message(c->owner, m);
}

/* Collect fragments; dispatch on the last one; enforce the size cap. */
static int conn_receive(struct tui_conn *c, struct lws *wsi, const void *in, size_t len)
{
	if (c->rx_len + len > PROTO_MAX_FRAME) {
		static const char why[] = "message too big";

		lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
		    (unsigned char *)why, sizeof why - 1);
		conn_lost(c, "the daemon sent a message over %u MiB; connection closed",
		    PROTO_MAX_FRAME >> 20);
		return -1;
	}
	if (c->rx_len + len > c->rx_cap) {
		size_t cap = c->rx_cap ? c->rx_cap : 65536;

		while (cap < c->rx_len + len)
			cap *= 2;
		c->rx = xrealloc(c->rx, cap);
		c->rx_cap = cap;
	}
	memcpy(c->rx + c->rx_len, in, len);
	c->rx_len += len;
	if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
		conn_dispatch(c);
		c->rx_len = 0;
	}
	return 0;
}

/* Write the next queued command (one lws_write per WRITEABLE). */
static int conn_writeable(struct tui_conn *c, struct lws *wsi)
{
	struct conn_out *o = c->out;
	int n;

	if (o == NULL)
		return 0;
	c->out = o->next;
	if (c->out == NULL)
		c->out_tail = &c->out;
	n = lws_write(wsi, o->buf + LWS_PRE, o->len, LWS_WRITE_BINARY);
	free(o);
	if (n < 0) {
		conn_lost(c, "cannot send to %s: write failed", c->url.text);
		return -1;
	}
	if (c->out != NULL)
		lws_callback_on_writable(wsi);
	return 0;
}

/* Remember the reason of a close the daemon started. */
static void conn_peer_close(struct tui_conn *c, const unsigned char *in, size_t len)
{
	unsigned code;

	if (len < 2)
		return;
	code = (unsigned)in[0] << 8 | in[1];
	snprintf(c->close_reason, sizeof c->close_reason, "status %u%s%.*s", code,
	    len > 2 ? ": " : "", (int)(len > 100 ? 98 : len - 2), (const char *)in + 2);
	for (char *p = c->close_reason; *p; p++)   /* the peer's bytes: keep them printable */
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* The access token as "Authorization: Bearer TOKEN" (doc/protocol.md). */
static int conn_token_header(struct tui_conn *c, struct lws *wsi, void *in, size_t len)
{
	unsigned char **p = in, *end = *p + len;
	char v[sizeof c->url.token + 8];

	if (c->url.token[0] == '\0')
		return 0;
	snprintf(v, sizeof v, "Bearer %s", c->url.token);
	return lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_AUTHORIZATION,
	    (unsigned char *)v, (int)strlen(v), p, end) ? -1 : 0;
}

/* The lws callback of the client protocol. */
static int conn_callback(struct lws *wsi, enum lws_callback_reasons reason,
    void *user, void *in, size_t len)
{
	const struct lws_protocols *p = wsi ? lws_get_protocol(wsi) : NULL;
	struct tui_conn *c;

	(void)user;
	/* protocols[0] also gets WSI_DESTROY of every wsi, the adopted fds
	 * included: only look at the opaque pointer of our own wsis. */
	if (p == NULL || p->callback != conn_callback)
		return 0;
	c = lws_get_opaque_user_data(wsi);
	if (c == NULL)
		return 0;
	switch (reason) {
	case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
		return conn_token_header(c, wsi, in, len);
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		c->wsi = wsi;
		c->state = TUI_CONN_UP;
		c->error[0] = '\0';
		c->ops->state(c->owner);
		break;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
		const char *why = in ? (const char *)in : "connection failed";
		int n = (int)(in && len ? len : strlen(why));

		/* Later callbacks of this dead wsi must not reach c. */
		lws_set_opaque_user_data(wsi, NULL);
		if (strstr(why, "unauthorized") != NULL)        /* 401: the access token */
			conn_lost(c, "%s refused us: %s (give the daemon's token with "
			    "--token-file FILE or $HOOKSCOPE_TOKEN)", c->url.text,
			    c->url.token[0] ? "wrong access token" : "it needs an access token");
		else
			conn_lost(c, "cannot connect to %s: %.*s", c->url.text, n, why);
		break;
	}
	case LWS_CALLBACK_CLIENT_RECEIVE:
		if (c->wsi != wsi)
			return -1;
		return conn_receive(c, wsi, in, len);
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		if (c->wsi != wsi)
			return -1;
		return conn_writeable(c, wsi);
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		conn_peer_close(c, in, len);
		break;
	case LWS_CALLBACK_CLIENT_CLOSED:
		lws_set_opaque_user_data(wsi, NULL);
		if (c->wsi == wsi && c->close_reason[0])
			conn_lost(c, "connection to %s closed by the daemon (%s)", c->url.text,
			    c->close_reason);
		else if (c->wsi == wsi)
			conn_lost(c, "connection to %s lost", c->url.text);
		break;
	case LWS_CALLBACK_WSI_DESTROY:
		if (c->wsi == wsi)
			conn_lost(c, "connection to %s lost", c->url.text);
		break;
	default:
		break;
	}
	return 0;
}
