/*
 * client.c - websocket clients: one msgpack map per binary message.
 *
 * lws does not reassemble messages: fragments collect in rx until the final
 * one, capped at PROTO_MAX_MSG (over it: close 1009).  A malformed message
 * gets a reply with ok=false when its id can be read, else an "error"
 * message, and the connection stays usable; so does a text message, refused
 * with an "error".  Output is one lws_write per
 * WRITEABLE callback: first the bounded reply queue (replies must arrive:
 * past half full the client is not read until it drains, and one that still
 * overflows it is closed with a reason), then the frame,
 * which is built at write time so a slow client simply gets the newest one.
 */
#include <stdlib.h>
#include <string.h>
#include "daemon.h"
#include "daemon_cmd.h"

#define CLIENT_RX_KEEP 65536    /* keep at most this much rx buffer idle */

/* A send buffer: LWS_PRE headroom, then a copy of the message. */
struct daemon_msg *
daemon_msg_new(const void *data, size_t len)
{
	struct daemon_msg *m = xmalloc(sizeof *m + LWS_PRE + len);

	m->len = len;
	memcpy(m->buf + LWS_PRE, data, len);
	return m;
}

/* Close this client (from inside its callback) with a code and reason. */
static int
client_fail(struct daemon_client *c, enum lws_close_status code, const char *why)
{
	daemon_log(DLOG_WARN, "client %llu: %s; closing it",
	    (unsigned long long)c->serial, why);
	lws_close_reason(c->wsi, code, (unsigned char *)why, strlen(why));
	return -1;
}

/* Queue an encoded message that must arrive. */
static int
client_queue(struct daemon_client *c, const msgpack_sbuffer *sb)
{
	if (c->q_len == DAEMON_REPLY_QUEUE)
		return client_fail(c, LWS_CLOSE_STATUS_POLICY_VIOLATION,
		    "reply queue full: the client is not reading");
	c->q[(c->q_head + c->q_len) % DAEMON_REPLY_QUEUE] =
	    daemon_msg_new(sb->data, sb->size);
	c->q_len++;
	/* Backpressure: a client that pipelines commands faster than it reads
	 * the replies stops being read until the queue drains. */
	if (c->q_len >= DAEMON_REPLY_QUEUE / 2 && !c->rx_paused) {
		lws_rx_flow_control(c->wsi, 0);
		c->rx_paused = true;
	}
	lws_callback_on_writable(c->wsi);
	return 0;
}

/* One whole message from the client: run it, queue the answer. */
static int
client_message(struct daemon_client *c, const unsigned char *buf, size_t len)
{
	struct proto_cmd cmd;
	struct proto_reply r;
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN], msg[PROTO_ERR_LEN + 32];
	int rc;

	msgpack_sbuffer_init(&sb);
	memset(&cmd, 0, sizeof cmd);
	if (proto_decode_cmd(buf, len, &cmd, err, sizeof err) < 0) {
		snprintf(msg, sizeof msg, "bad command: %s", err);
		daemon_log(DLOG_INFO, "client %llu: %s", (unsigned long long)c->serial, msg);
		if (cmd.has_id) {
			r = (struct proto_reply){ .id = cmd.id, .ok = false, .msg = msg };
			proto_encode_reply(&sb, &r);
		} else {
			proto_encode_error(&sb, msg);
		}
	} else {
		daemon_cmd_run(c->d, &c->view, &cmd, &r);
		proto_encode_reply(&sb, &r);
		free(r.msg);
		free(r.data);
		proto_cmd_free(&cmd);
		/* Show the effect of a view change right away. */
		c->frame_due = true;
	}
	rc = client_queue(c, &sb);
	msgpack_sbuffer_destroy(&sb);
	return rc;
}

/* A text message: refused without decoding (a JSON command must not be
 * mistaken for msgpack), with an error saying what to send. */
static int
client_refuse_text(struct daemon_client *c)
{
	msgpack_sbuffer sb;
	const char *msg = "bad command: text websocket messages are not accepted: "
	    "send each command as a binary message holding one msgpack map";
	int rc;

	daemon_log(DLOG_INFO, "client %llu: %s", (unsigned long long)c->serial, msg);
	msgpack_sbuffer_init(&sb);
	proto_encode_error(&sb, msg);
	rc = client_queue(c, &sb);
	msgpack_sbuffer_destroy(&sb);
	return rc;
}

/* A fragment arrived: collect; act on the message when it is whole. */
static int
client_receive(struct daemon_client *c, const void *in, size_t len)
{
	int rc;

	if (len > PROTO_MAX_MSG - c->rx_len)
		return client_fail(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
		    "message too large (limit 1048576 bytes)");
	if (c->rx_len + len > c->rx_cap) {
		size_t cap = c->rx_cap ? c->rx_cap : 4096;

		while (cap < c->rx_len + len)
			cap *= 2;
		c->rx = xrealloc(c->rx, cap);
		c->rx_cap = cap;
	}
	if (len > 0)
		memcpy(c->rx + c->rx_len, in, len);
	c->rx_len += len;
	if (!lws_is_final_fragment(c->wsi) || lws_remaining_packet_payload(c->wsi) > 0)
		return 0;
	/* lws keeps the first fragment's opcode for the whole message. */
	if (!lws_frame_is_binary(c->wsi))
		rc = client_refuse_text(c);
	else
		rc = client_message(c, c->rx, c->rx_len);
	c->rx_len = 0;
	if (c->rx_cap > CLIENT_RX_KEEP) {
		free(c->rx);
		c->rx = NULL;
		c->rx_cap = 0;
	}
	return rc;
}

/* Writable: one message (a reply first, else the newest frame). */
static int
client_writeable(struct daemon_client *c)
{
	struct daemon_msg *m = NULL;
	int n;

	if (c->q_len > 0) {
		m = c->q[c->q_head];
		c->q[c->q_head] = NULL;
		c->q_head = (c->q_head + 1) % DAEMON_REPLY_QUEUE;
		c->q_len--;
		if (c->rx_paused && c->q_len <= DAEMON_REPLY_QUEUE / 4) {
			lws_rx_flow_control(c->wsi, 1);
			c->rx_paused = false;
		}
	} else if (c->frame_due) {
		msgpack_sbuffer sb;

		msgpack_sbuffer_init(&sb);
		daemon_frame_encode(c->d, c, &sb);
		m = daemon_msg_new(sb.data, sb.size);
		msgpack_sbuffer_destroy(&sb);
		c->frame_due = false;
	}
	if (m == NULL)
		return 0;
	n = lws_write(c->wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_BINARY);
	free(m);
	if (n < 0) {
		daemon_log(DLOG_INFO, "client %llu: write failed",
		    (unsigned long long)c->serial);
		return -1;
	}
	if (c->q_len > 0 || c->frame_due)
		lws_callback_on_writable(c->wsi);
	return 0;
}

/* A new client: register it and queue the hello. */
static int
client_open(struct daemon_state *d, struct daemon_client *c, struct lws *wsi)
{
	msgpack_sbuffer sb;
	char peer[64] = "?";
	int rc;

	c->wsi = wsi;
	if (d->nclients >= DAEMON_MAX_CLIENTS) {
		c->serial = 0;
		return client_fail(c, LWS_CLOSE_STATUS_POLICY_VIOLATION,
		    "too many clients");
	}
	c->d = d;
	c->serial = ++d->client_serial;
	c->view = (struct daemon_view){
		.target = 0, .sort = PROTO_RANK_TOTAL, .top = (size_t)d->opts->top,
	};
	c->next = d->clients;
	if (d->clients != NULL)
		d->clients->prev = c;
	d->clients = c;
	d->nclients++;
	lws_get_peer_simple(wsi, peer, sizeof peer);
	/* attach, detach, ps and dump are for loopback clients only,
	 * unless the daemon runs with --allow-remote-control (access.c). */
	c->view.remote = daemon_access_peer_remote(peer);
	daemon_log(DLOG_INFO, "client %llu connected from %s",
	    (unsigned long long)c->serial, peer);
	msgpack_sbuffer_init(&sb);
	daemon_hello_encode(d, &sb);
	rc = client_queue(c, &sb);
	msgpack_sbuffer_destroy(&sb);
	c->frame_due = true;
	return rc;
}

/* The client is gone: unlink and free what it held. */
static void
client_close(struct daemon_client *c)
{
	struct daemon_state *d = c->d;

	if (d == NULL)                  /* refused in client_open */
		return;
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		d->clients = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	d->nclients--;
	while (c->q_len > 0) {
		free(c->q[c->q_head]);
		c->q_head = (c->q_head + 1) % DAEMON_REPLY_QUEUE;
		c->q_len--;
	}
	free(c->rx);
	free(c->view.filter);
	daemon_log(DLOG_INFO, "client %llu disconnected (%llu frames sent, %llu "
	    "skipped for a slow link)", (unsigned long long)c->serial,
	    (unsigned long long)c->seq, (unsigned long long)c->frames_skipped);
	memset(c, 0, sizeof *c);
}

/* lws callback of the "hookscope" protocol (also HTTP on the same port). */
int
daemon_client_callback(struct lws *wsi, enum lws_callback_reasons reason,
    void *user, void *in, size_t len)
{
	struct daemon_client *c = user;

	switch (reason) {
	case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:     /* before lws picks a subprotocol */
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
	case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
		return daemon_access_filter(wsi);   /* the access token */
	case LWS_CALLBACK_ESTABLISHED:
		return client_open(lws_context_user(lws_get_context(wsi)), c, wsi);
	case LWS_CALLBACK_RECEIVE:
		if (c == NULL || c->d == NULL)
			return -1;
		return client_receive(c, in, len);
	case LWS_CALLBACK_SERVER_WRITEABLE:
		if (c == NULL || c->d == NULL)
			return 0;
		return client_writeable(c);
	case LWS_CALLBACK_CLOSED:
		if (c != NULL)
			client_close(c);
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}
