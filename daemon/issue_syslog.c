/*
 * issue_syslog.c - the syslog sink: each new issue as one RFC 5424 message
 * (issue_format.c) in one datagram to a unix socket, /dev/log unless
 * --syslog=SOCKET names another.  Sends never wait (MSG_DONTWAIT): a full
 * or absent log socket counts a failure and the event loop goes on.  A
 * socket that is not there yet is connected again at the next issue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "issue.h"
#include "report.h"

static int   slog_fd = -1;
static char *slog_path;
static char  slog_host[256];
static uint64_t slog_sent, slog_failed;
static char  slog_error[256];

/* Connect to the socket if not yet; 0 or -1 with slog_error. */
static int
slog_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (slog_fd >= 0)
		return 0;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", slog_path);
	slog_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (slog_fd < 0 || connect(slog_fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		snprintf(slog_error, sizeof slog_error, "%s: %s", slog_path, strerror(errno));
		if (slog_fd >= 0)
			close(slog_fd);
		slog_fd = -1;
		return -1;
	}
	return 0;
}

static bool
slog_wanted(const struct daemon_issue_opts *o)
{
	return o->syslog;
}

static int
slog_start(const struct daemon_issue_opts *o, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	slog_path = xstrdup(o->syslog_socket ? o->syslog_socket : ISSUE_SYSLOG_SOCKET);
	if (gethostname(slog_host, sizeof slog_host) < 0)
		snprintf(slog_host, sizeof slog_host, "-");
	slog_host[sizeof slog_host - 1] = '\0';
	if (slog_connect() < 0)
		daemon_log(DLOG_WARN, "syslog: cannot connect to %s (issues are sent when it "
		    "appears)", slog_error);
	return 0;
}

static void
slog_publish(const struct proto_issue *i)
{
	struct proto_buf b = { 0 };

	issue_format_syslog(&b, i, slog_host, (int)getpid());
	if (slog_connect() == 0 && send(slog_fd, b.p, b.len, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    (ssize_t)b.len) {
		slog_sent++;
	} else {
		slog_failed++;
		if (slog_fd >= 0) {
			snprintf(slog_error, sizeof slog_error, "%s: %s", slog_path, strerror(errno));
			if (errno != EAGAIN) {     /* the reader went away: reconnect next time */
				close(slog_fd);
				slog_fd = -1;
			}
		}
	}
	free(b.p);
}

static void
slog_state(struct proto_issue_sink *out)
{
	out->dest = slog_path;
	out->sent = slog_sent;
	out->failed = slog_failed;
	out->error = slog_error;
}

static void
slog_stop(void)
{
	if (slog_fd >= 0)
		close(slog_fd);
	slog_fd = -1;
	free(slog_path);
	slog_path = NULL;
}

const struct issue_sink issue_sink_syslog = {
	.name = "syslog", .wanted = slog_wanted, .start = slog_start, .publish = slog_publish,
	.state = slog_state, .stop = slog_stop,
};
