/*
 * sites.c - the hook-site statistics of a session: the agent's "sites"
 * record replaces them (the figures are absolute, per back-end), frames
 * carry them as they are, and the report and the targets list print them
 * on one line.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "daemon_collector.h"
#include "report.h"

/* Keep the back-ends of a sites record (replacing the previous ones). */
void
daemon_session_sites(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns)
{
	(void)now_ns;
	proto_sites_free(s->sites, s->nsites);
	s->sites = proto_sites_dup(r->sites, r->nsites);
	s->nsites = r->nsites;
}

/* Append printf output at *off, never past len. */
static void
sites_add(char *buf, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void
sites_add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off = *off + (size_t)n < len ? *off + (size_t)n : len - 1;
}

/* See daemon.h: "patch 120 on/15 off/7 skipped (short 5, decode 2);
 * finstrument 40 on/0 off/0 skipped", or "none" without back-ends. */
const char *
daemon_sites_line(const struct proto_sites *v, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (n == 0)
		sites_add(buf, len, &off, "none");
	for (size_t i = 0; i < n; i++) {
		sites_add(buf, len, &off, "%s%s %" PRIu64 " on/%" PRIu64 " off/%" PRIu64
		    " skipped", i ? "; " : "", v[i].backend, v[i].active, v[i].disabled,
		    v[i].skipped);
		for (size_t k = 0; k < v[i].nreasons; k++)
			sites_add(buf, len, &off, "%s%s %" PRIu64, k ? ", " : " (",
			    v[i].reasons[k].key, v[i].reasons[k].count);
		if (v[i].nreasons)
			sites_add(buf, len, &off, ")");
	}
	return buf;
}

static void
sites_free(struct daemon_session *s)
{
	proto_sites_free(s->sites, s->nsites);
}

static void
sites_frame(struct daemon_session *s, struct proto_frame *f)
{
	f->sites = s->sites;
	f->nsites = s->nsites;
}

/* Hook back-end state, not figures: a reset keeps it; the report prints it
 * in its header (report.c). */
const struct daemon_collector daemon_collector_sites = {
	.name = "sites",
	.records = { PROTO_AG_SITES },
	.on_record = daemon_session_sites,
	.free = sites_free,
	.fill_frame = sites_frame,
};
