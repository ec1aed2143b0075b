/*
 * session-util.h - fixtures shared by the daemon session tests: a live
 * session, funcs and syms records fed as an agent would send them.
 */
#ifndef HOOKSCOPE_TEST_SESSION_UTIL_H
#define HOOKSCOPE_TEST_SESSION_UTIL_H

#include "daemon.h"

#define MS 1000000ull
#define S  1000000000ull
/* Above any pid_max, so /proc has nothing and the name comes from exe. */
#define FAKE_PID 2000000001

/* A hello as an agent would send it. */
static inline struct proto_ag_hello
hello_for(int32_t pid, const char *exe)
{
	return (struct proto_ag_hello){ .pid = pid, .exe = (char *)exe,
		.build_id = "", .cmdline = "t", .level = 2, .overhead_ps = 20000 };
}

/* A live session with no functions, as after the agent's hello at t. */
static inline struct daemon_session *
live_session(uint64_t t)
{
	struct proto_ag_hello h = hello_for(FAKE_PID, "/opt/x/target");
	struct daemon_session *s = daemon_session_new(FAKE_PID, t);

	daemon_session_hello(s, &h, t);
	return s;
}

/* Feed one funcs record of n functions: addr 0x1000 + i with figures. */
static inline void
feed(struct daemon_session *s, uint64_t t, size_t n, const struct proto_ag_func *f)
{
	struct proto_agent_rec r = { .type = PROTO_AG_FUNCS, .time_ns = t,
		.threads = 3, .dropped = 7, .nfuncs = n,
		.funcs = (struct proto_ag_func *)f };

	daemon_session_record(s, &r, t);
}

/* Feed calls for one function. */
static inline void
feed1(struct daemon_session *s, uint64_t t, uint64_t addr, uint64_t calls)
{
	struct proto_ag_func f = { .addr = addr, .calls = calls,
		.total_ns = calls * 10, .self_ns = calls * 5, .max_ns = 100 };

	feed(s, t, 1, &f);
}

/* Name some addresses. */
static inline void
name(struct daemon_session *s, uint64_t addr, const char *n, const char *module)
{
	struct proto_ag_sym y = { .addr = addr, .name = (char *)n,
		.module = (char *)module };
	struct proto_agent_rec r = { .type = PROTO_AG_SYMS, .nsyms = 1, .syms = &y };

	daemon_session_record(s, &r, 0);
}

/* Rate of addr after daemon_session_rates. */
static inline double
rate_of(struct daemon_session *s, uint64_t addr)
{
	daemon_session_rates(s);
	return daemon_functab_find(&s->funcs, addr)->rate;
}

/* Six functions with figures that order differently under every key. */
static inline struct daemon_session *
ranked_session(void)
{
	static const struct { const char *name; uint64_t calls, total, self, max, slow, rate; } fx[] = {
		/* name        calls total   self  max  slow rate/s */
		{ "alpha",     10,   5000,   100,  900, 3,   9 },
		{ "bravo",     400,  4000,   4000, 20,  0,   10 },
		{ "charlie",   30,   9000,   500,  600, 9,   20 },
		{ "delta",     200,  1000,   900,  5,   1,   100 },
		{ "echo_hash", 50,   2500,   2400, 70,  4,   30 },
		{ "foxtrot",   1,    3000,   3000, 3000, 2,  0 },
	};
	struct daemon_session *s = live_session(1 * S);
	struct proto_ag_func f[6];

	for (size_t i = 0; i < 6; i++) {
		name(s, 0x100 + i, fx[i].name, "/bin/app");
		f[i] = (struct proto_ag_func){ .addr = 0x100 + i, .calls = fx[i].calls - fx[i].rate,
			.total_ns = fx[i].total, .self_ns = fx[i].self, .max_ns = fx[i].max,
			.slow = fx[i].slow };
	}
	feed(s, 1 * S, 6, f);           /* baseline */
	for (size_t i = 0; i < 6; i++)
		f[i].calls = fx[i].calls;
	feed(s, 2 * S, 6, f);           /* one second later: rate = fx.rate */
	/* A function the agent named but never saw called is not ranked. */
	name(s, 0x200, "never_called", "/bin/app");
	return s;
}

#endif
