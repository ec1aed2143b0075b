/*
 * metrics.c - Prometheus text exposition (format 0.0.4) at GET /metrics on
 * the websocket port: plain HTTP on the same lws vhost, so it listens where
 * the websocket does (127.0.0.1 by default).  Every other path is a 404.
 *
 * Each report section owns its metric families (report.h); a family's HELP
 * and TYPE come once, then its samples for every session the daemon knows,
 * labelled pid and target (the session's name) - at most DAEMON_MAX_SESSIONS
 * sessions, 16 streams each, REPORT_METRICS_TOP functions each: the label
 * set is bounded whatever the targets do.  doc/metrics.md lists them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon_collector.h"
#include "report.h"

#define METRICS_CHUNK  16384          /* bytes per HTTP write */

/* A label value: backslash, double quote and newline escaped. */
static void
metrics_label(struct report_buf *b, const char *name, const char *val, bool first)
{
	report_add(b, "%s%s=\"", first ? "" : ",", name);
	for (const char *p = val ? val : ""; *p; p++) {
		if (*p == '\\' || *p == '"')
			report_add(b, "\\%c", *p);
		else if (*p == '\n')
			report_add(b, "\\n");
		else
			report_addn(b, p, 1);
	}
	report_addn(b, "\"", 1);
}

/* See report.h. */
void
report_metric(struct report_metrics *m, double value, ...)
{
	char pid[16];
	const char *k, *v;
	va_list ap;

	snprintf(pid, sizeof pid, "%d", (int)m->c->s->pid);
	report_add(m->b, "%s{", m->family);
	metrics_label(m->b, "pid", pid, true);
	metrics_label(m->b, "target", m->c->s->name, false);
	va_start(ap, value);
	while ((k = va_arg(ap, const char *)) != NULL) {
		v = va_arg(ap, const char *);
		metrics_label(m->b, k, v, false);
	}
	va_end(ap);
	report_add(m->b, "} %.15g\n", value);
}

/* The target_info family: one sample per session with its state. */
static void
metrics_info(struct report_metrics *m, const struct report_ctx *c)
{
	report_metric(m, 1.0, "state", proto_target_state_name(c->s->state), NULL);
}

static const struct report_metric_family metrics_info_family = {
	"hookscope_target_info", "gauge",
	"Targets the daemon knows (value 1), with their state.", metrics_info,
};

/* HELP, TYPE, then the family's samples of every session. */
static void
metrics_family(struct report_buf *b, const struct report_metric_family *f,
    const struct daemon_sessions *ss, uint64_t now_ns, uint64_t wall_ms)
{
	report_add(b, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name, f->type);
	for (size_t i = 0; i < ss->n; i++) {
		struct report_ctx c = { .s = ss->v[i], .now_ns = now_ns, .wall_ms = wall_ms,
		    .multi = true };
		struct report_metrics m = { .b = b, .family = f->name, .c = &c };

		f->emit(&m, &c);
	}
}

/* See report.h. */
char *
report_metrics_build(const struct daemon_sessions *ss, uint64_t now_ns, uint64_t wall_ms,
    size_t *len)
{
	struct report_buf b = { 0 };

	report_addn(&b, "", 0);
	for (size_t i = 0; i < ss->n; i++)
		daemon_session_tick(ss->v[i], now_ns);   /* held times, rates up to now */
	metrics_family(&b, &metrics_info_family, ss, now_ns, wall_ms);
	for (size_t i = 0; i < daemon_ncollectors; i++) {
		const struct report_section *sec = report_section_at(i);

		for (size_t k = 0; sec != NULL && k < sec->nmetrics; k++)
			metrics_family(&b, &sec->metrics[k], ss, now_ns, wall_ms);
	}
	*len = b.len;
	return b.p;
}

/* One HTTP exchange: the body being sent. */
struct metrics_http {
	char  *body;
	size_t len, off;
};

/* Answer the request: headers now, the body when writable. */
static int
metrics_http_request(struct lws *wsi, const char *uri)
{
	struct daemon_state *d = lws_context_user(lws_get_context(wsi));
	unsigned char hdr[LWS_PRE + 1024], *start = hdr + LWS_PRE, *p = start,
	    *end = hdr + sizeof hdr - 1;
	struct metrics_http *h;

	if (strcmp(uri, "/metrics") != 0) {
		lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND,
		    "hookscoped serves /metrics (and the websocket) here");
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	}
	h = xcalloc(1, sizeof *h);
	h->body = report_metrics_build(&d->sessions, proto_now_ns(), proto_wall_ms(), &h->len);
	lws_set_opaque_user_data(wsi, h);
	if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK,
	    "text/plain; version=0.0.4; charset=utf-8", h->len, &p, end) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return -1;
	lws_callback_on_writable(wsi);
	return 0;
}

/* Send the next chunk (each write needs LWS_PRE bytes of headroom). */
static int
metrics_http_write(struct lws *wsi)
{
	static unsigned char buf[LWS_PRE + METRICS_CHUNK];
	struct metrics_http *h = lws_get_opaque_user_data(wsi);
	size_t n;
	bool last;

	if (h == NULL)
		return 0;
	n = h->len - h->off < METRICS_CHUNK ? h->len - h->off : METRICS_CHUNK;
	last = h->off + n == h->len;
	memcpy(buf + LWS_PRE, h->body + h->off, n);
	if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) !=
	    (int)n)
		return -1;
	h->off += n;
	if (!last) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* Free the exchange's body. */
static void
metrics_http_done(struct lws *wsi)
{
	struct metrics_http *h = lws_get_opaque_user_data(wsi);

	if (h == NULL)
		return;
	lws_set_opaque_user_data(wsi, NULL);
	free(h->body);
	free(h);
}

/* See daemon.h. */
int
daemon_http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
    void *in, size_t len)
{
	switch (reason) {
	case LWS_CALLBACK_HTTP:
		metrics_http_done(wsi);       /* keep-alive: the previous answer */
		return metrics_http_request(wsi, in ? (const char *)in : "");
	case LWS_CALLBACK_HTTP_WRITEABLE:
		return metrics_http_write(wsi);
	case LWS_CALLBACK_CLOSED_HTTP:
		metrics_http_done(wsi);
		return 0;
	default:
		return daemon_client_callback(wsi, reason, user, in, len);
	}
}
