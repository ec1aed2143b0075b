/*
 * hs-fakeagent.c - a stand-in for libhookscope.so that feeds hookscoped
 * known figures over the agent socket, for daemon tests without a target.
 *
 *   hs-fakeagent [--socket PATH] [--pid N] [--exe PATH] [--funcs N]
 *                [--report-hz HZ] [--duration S] [--bye] [--garbage]
 *                [--oversize] [--raw HEX] [--changing N] [--names A,B,...]
 *                [--modes M,M,...] [--cost-pct PCT] [--ip-samples N,K]
 *
 * After hello and syms, function i (name fake_fn_<i>, i from 0, or the i-th
 * of --names, which also sets --funcs to their count) is called
 * (i + 1) * 100 times a second: every report carries the cumulative calls
 * (i + 1) * 100 * t, total_ns = calls * (i + 1) * 1000, self_ns = total / 2,
 * max_ns = (i + 1) * 2000, slow = calls / 10.  Records the daemon sends
 * (level, reset, threshold) are printed as JSON lines on stdout; a reset
 * restarts t at zero.  --changing N: after the first report (all functions),
 * only the N hottest (the highest i) change and are sent, as a real agent
 * sends only what changed.  --garbage / --oversize / --raw send one bad record
 * after the first report (the daemon must drop this connection only).
 *
 * The overhead budget: the budget starts as HOOKSCOPE_BUDGET says (the
 * agent's rule: a percentage or off, default 5%) and follows the daemon's
 * budget records.  --modes gives function i the i-th mode (timed, counted,
 * sampled, off; the rest timed): counted ones have estimated times, sampled
 * ones estimated calls and times, every demoted one changed mode at the start
 * for (i + 1) * 1000 ppm of hook cost.  --cost-pct PCT: what the hooks would
 * cost with every function timed; each funcs record reports that, held to the
 * budget when one is on (as a real agent's controller would).
 * --ip-samples N,K: each funcs record says N recent pc samples, K of them in
 * the agent's code.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "protocol.h"

static struct {
	const char *socket_path;
	int32_t pid;
	const char *exe;
	unsigned nfuncs;
	unsigned changing;      /* --changing N, 0 = all */
	double report_hz, duration_s;
	bool bye, garbage, oversize;
	const char *raw;
	const char *names;      /* --names A,B,...: the functions' names */
	uint8_t modes[64];      /* --modes: function i's mode (enum proto_fmode) */
	uint32_t cost_ppm;      /* --cost-pct, in ppm: the cost with nothing demoted */
	uint32_t budget_ppm;    /* in force: HOOKSCOPE_BUDGET, then budget records */
	uint64_t mode_since_ns; /* when the demoted ones were demoted */
	uint32_t ip_samples, ip_agent;  /* --ip-samples */
} fa = { .nfuncs = 5, .report_hz = 4, .duration_s = 0, .exe = "/usr/bin/fake-target" };

/* Send all bytes or exit. */
static void
fa_send(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "hs-fakeagent: send: %s\n", strerror(errno));
			exit(1);
		}
		p += n;
		len -= (size_t)n;
	}
}

/* Encode and send one record. */
static void
fa_record(int fd, const struct proto_agent_rec *r)
{
	msgpack_sbuffer sb;

	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, r);
	fa_send(fd, sb.data, sb.size);
	msgpack_sbuffer_destroy(&sb);
}

/* hello, then names for every function. */
static void
fa_hello(int fd)
{
	struct proto_agent_rec r = { .type = PROTO_AG_HELLO };
	struct proto_ag_sym *syms = xcalloc(fa.nfuncs ? fa.nfuncs : 1, sizeof *syms);
	char name[64];

	r.hello = (struct proto_ag_hello){ .pid = fa.pid, .exe = (char *)fa.exe,
		.build_id = "", .cmdline = "fake-target --test", .level = 2,
		.overhead_ps = 5000, .budget_ppm = fa.budget_ppm };
	fa_record(fd, &r);
	for (unsigned i = 0; i < fa.nfuncs; i++) {
		snprintf(name, sizeof name, "fake_fn_%u", i);
		if (fa.names != NULL) {       /* the i-th comma-separated name */
			const char *p = fa.names;

			for (unsigned k = 0; k < i && p != NULL; k++)
				p = (p = strchr(p, ',')) != NULL ? p + 1 : NULL;
			if (p != NULL)
				snprintf(name, sizeof name, "%.*s", (int)strcspn(p, ","), p);
		}
		syms[i] = (struct proto_ag_sym){ .addr = 0x401000 + 16 * i,
			.name = xstrdup(name), .module = "/usr/bin/fake-target",
			.offset = 0x1000 + 16 * i, .size = 16 };
	}
	r = (struct proto_agent_rec){ .type = PROTO_AG_SYMS, .nsyms = fa.nfuncs,
		.syms = syms };
	fa_record(fd, &r);
	for (unsigned i = 0; i < fa.nfuncs; i++)
		free(syms[i].name);
	free(syms);
}

#define FA_REC_FUNCS 4096   /* functions per funcs record (the agent's TM_REC_ITEMS) */

/* The funcs records for t seconds since start (or the last reset). */
static void
fa_funcs(int fd, double t)
{
	static bool sent_all;
	unsigned lo = sent_all && fa.changing && fa.changing < fa.nfuncs ?
	    fa.nfuncs - fa.changing : 0;
	struct proto_agent_rec r = { .type = PROTO_AG_FUNCS, .time_ns = proto_now_ns(),
		.threads = 1, .nfuncs = fa.nfuncs - lo, .budget_ppm = fa.budget_ppm,
		.cost_ppm = fa.budget_ppm && fa.budget_ppm < fa.cost_ppm ? fa.budget_ppm :
		    fa.cost_ppm, .ip_samples = fa.ip_samples, .ip_agent = fa.ip_agent };

	sent_all = true;
	r.funcs = xcalloc(fa.nfuncs ? fa.nfuncs : 1, sizeof *r.funcs);
	for (unsigned i = lo; i < fa.nfuncs; i++) {
		uint64_t calls = (uint64_t)((i + 1) * 100 * t);

		r.funcs[i - lo] = (struct proto_ag_func){ .addr = 0x401000 + 16 * i,
			.calls = calls, .total_ns = calls * (i + 1) * 1000,
			.self_ns = calls * (i + 1) * 500, .max_ns = (i + 1) * 2000,
			.slow = calls / 10 };
		if (i < sizeof fa.modes && fa.modes[i] != PROTO_FMODE_TIMED) {
			struct proto_ag_func *g = &r.funcs[i - lo];

			g->mode = fa.modes[i];
			g->calls_est = g->mode == PROTO_FMODE_SAMPLED;
			g->time_est = g->mode == PROTO_FMODE_COUNTED || g->mode == PROTO_FMODE_SAMPLED;
			g->mode_since_ns = fa.mode_since_ns;
			g->hook_ppm = (i + 1) * 1000;
		}
	}
	/* In records of at most FA_REC_FUNCS functions, as the agent sends them. */
	for (size_t k = 0, n = r.nfuncs; k < n || k == 0; k += FA_REC_FUNCS) {
		struct proto_agent_rec part = r;

		part.funcs = r.funcs + k;
		part.nfuncs = n - k < FA_REC_FUNCS ? n - k : FA_REC_FUNCS;
		fa_record(fd, &part);
	}
	free(r.funcs);
}

/* The deliberately bad record of --garbage / --oversize / --raw. */
static void
fa_bad(int fd)
{
	if (fa.garbage) {
		static const unsigned char g[] = { 0, 0, 0, 3, 0xc1, 0xc1, 0xc1 };
		fa_send(fd, g, sizeof g);
	}
	if (fa.oversize) {
		uint32_t n = PROTO_MAX_MSG + 1;
		unsigned char h[4] = { n >> 24, n >> 16, n >> 8, n };
		fa_send(fd, h, sizeof h);
	}
	if (fa.raw) {
		unsigned v;
		for (const char *p = fa.raw; p[0] && p[1]; p += 2) {
			unsigned char b;
			if (sscanf(p, "%2x", &v) != 1)
				break;
			b = (unsigned char)v;
			fa_send(fd, &b, 1);
		}
	}
}

/* Read what the daemon sent; print records; 1 on reset, -1 on EOF. */
static int
fa_receive(int fd, unsigned char *buf, size_t *len, size_t cap)
{
	ssize_t n = recv(fd, buf + *len, cap - *len, MSG_DONTWAIT);
	int reset = 0;

	if (n == 0)
		return -1;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	*len += (size_t)n;
	while (*len >= PROTO_AGENT_HDR) {
		uint32_t rl = proto_agent_len(buf);
		struct proto_agent_rec r;
		char err[PROTO_ERR_LEN];

		if (rl > cap - PROTO_AGENT_HDR)
			return -1;
		if (*len < PROTO_AGENT_HDR + rl)
			break;
		if (proto_agent_decode(buf + PROTO_AGENT_HDR, rl, &r, err, sizeof err) < 0) {
			printf("{\"t\":\"invalid\",\"err\":\"%s\"}\n", err);
		} else {
			if (r.type == PROTO_AG_LEVEL)
				printf("{\"t\":\"level\",\"level\":%u}\n", r.level);
			else if (r.type == PROTO_AG_RESET)
				printf("{\"t\":\"reset\"}\n"), reset = 1;
			else if (r.type == PROTO_AG_BUDGET)
				printf("{\"t\":\"budget\",\"budget_ppm\":%u}\n",
				    fa.budget_ppm = r.budget_ppm);
			else if (r.type == PROTO_AG_THRESHOLD)
				printf("{\"t\":\"threshold\",\"name\":\"%s\",\"value\":%lld}\n",
				    r.name, (long long)r.value);
			else
				printf("{\"t\":\"unexpected\",\"type\":%d}\n", (int)r.type);
			proto_agent_rec_free(&r);
		}
		fflush(stdout);
		memmove(buf, buf + PROTO_AGENT_HDR + rl, *len - PROTO_AGENT_HDR - rl);
		*len -= PROTO_AGENT_HDR + rl;
	}
	return reset;
}

/* Parse options, connect, report until the duration ends. */
int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "pid", required_argument, NULL, 'p' },
		{ "exe", required_argument, NULL, 'e' },
		{ "funcs", required_argument, NULL, 'f' },
		{ "report-hz", required_argument, NULL, 'r' },
		{ "changing", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "bye", no_argument, NULL, 'b' },
		{ "garbage", no_argument, NULL, 'g' },
		{ "oversize", no_argument, NULL, 'o' },
		{ "raw", required_argument, NULL, 'x' },
		{ "names", required_argument, NULL, 'n' },
		{ "modes", required_argument, NULL, 'm' },
		{ "cost-pct", required_argument, NULL, 'C' },
		{ "ip-samples", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static unsigned char in[1 << 16];
	size_t in_len = 0;
	uint64_t start, end = 0;
	bool bad_sent = false;
	int c, fd;
	char err[PROTO_ERR_LEN];

	fa.pid = (int32_t)getpid();
	fa.budget_ppm = PROTO_BUDGET_DEFAULT_PPM;
	if (getenv("HOOKSCOPE_BUDGET") != NULL &&
	    proto_budget_parse(getenv("HOOKSCOPE_BUDGET"), &fa.budget_ppm, err, sizeof err) < 0) {
		fprintf(stderr, "hs-fakeagent: HOOKSCOPE_BUDGET: %s\n", err);
		return 2;
	}
	fa.socket_path = getenv("HOOKSCOPE_SOCKET");
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's': fa.socket_path = optarg; break;
		case 'p': fa.pid = (int32_t)atoi(optarg); break;
		case 'e': fa.exe = optarg; break;
		case 'f': fa.nfuncs = (unsigned)atoi(optarg); break;
		case 'r': fa.report_hz = atof(optarg); break;
		case 'c': fa.changing = (unsigned)atoi(optarg); break;
		case 'd': fa.duration_s = atof(optarg); break;
		case 'b': fa.bye = true; break;
		case 'g': fa.garbage = true; break;
		case 'o': fa.oversize = true; break;
		case 'x': fa.raw = optarg; break;
		case 'm':
			for (unsigned i = 0; optarg != NULL && i < sizeof fa.modes; i++) {
				char m[16];
				int mode;

				snprintf(m, sizeof m, "%.*s", (int)strcspn(optarg, ","), optarg);
				if ((mode = proto_fmode_parse(m)) < 0) {
					fprintf(stderr, "hs-fakeagent: unknown mode '%s'\n", m);
					return 2;
				}
				fa.modes[i] = (uint8_t)mode;
				optarg = strchr(optarg, ',') ? strchr(optarg, ',') + 1 : NULL;
			}
			break;
		case 'C':
			if (proto_budget_parse(optarg, &fa.cost_ppm, err, sizeof err) < 0) {
				fprintf(stderr, "hs-fakeagent: --cost-pct: %s\n", err);
				return 2;
			}
			break;
		case 'i':
			if (sscanf(optarg, "%u,%u", &fa.ip_samples, &fa.ip_agent) != 2 ||
			    fa.ip_agent > fa.ip_samples) {
				fprintf(stderr, "hs-fakeagent: --ip-samples: expected N,K with K <= N\n");
				return 2;
			}
			break;
		case 'n':
			fa.names = optarg;
			fa.nfuncs = 1;
			for (const char *p = optarg; (p = strchr(p, ',')) != NULL; p++)
				fa.nfuncs++;
			break;
		default:
			fprintf(stderr, "usage: hs-fakeagent [--socket PATH] [--pid N] "
			    "[--exe PATH] [--funcs N] [--report-hz HZ] [--duration S] "
			    "[--bye] [--garbage] [--oversize] [--raw HEX] [--changing N] "
			    "[--names A,B,...] [--modes M,M,...] [--cost-pct PCT] "
			    "[--ip-samples N,K]\n");
			return 2;
		}
	}
	if (fa.socket_path == NULL || strlen(fa.socket_path) >= sizeof sa.sun_path ||
	    fa.report_hz <= 0) {
		fprintf(stderr, "hs-fakeagent: need --socket PATH (or HOOKSCOPE_SOCKET) "
		    "and a positive --report-hz\n");
		return 2;
	}
	strcpy(sa.sun_path, fa.socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		fprintf(stderr, "hs-fakeagent: cannot connect to %s: %s\n",
		    fa.socket_path, strerror(errno));
		return 1;
	}
	fa.mode_since_ns = proto_now_ns();
	fa_hello(fd);
	start = proto_now_ns();
	if (fa.duration_s > 0)
		end = start + (uint64_t)(fa.duration_s * 1e9);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = proto_now_ns();
		int rc;

		fa_funcs(fd, (double)(now - start) / 1e9);
		if (!bad_sent && (fa.garbage || fa.oversize || fa.raw)) {
			fa_bad(fd);
			bad_sent = true;
		}
		if (end && now >= end)
			break;
		if (poll(&p, 1, (int)(1000 / fa.report_hz)) > 0) {
			if ((rc = fa_receive(fd, in, &in_len, sizeof in)) < 0) {
				fprintf(stderr, "hs-fakeagent: the daemon closed the "
				    "connection\n");
				return 3;
			}
			if (rc == 1)
				start = proto_now_ns();
		}
	}
	if (fa.bye)
		fa_record(fd, &(struct proto_agent_rec){ .type = PROTO_AG_BYE });
	close(fd);
	return 0;
}
