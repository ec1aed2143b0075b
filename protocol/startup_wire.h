/*
 * startup_wire.h - the startup part of the wire ("startup"): when the
 * process reached each point of its start (exec, the libraries loaded and
 * relocated, the library constructors done, main, the first event-loop
 * wait, the first frame), each library's constructors and each dlopen; the
 * daemon adds what got slower than the previous run of the same program.
 * Times are the agent's monotonic clock in ns (the daemon's too); 0: the
 * point was not reached (or not seen).  Its row in the parts table
 * (parts.h) is defined in startup.c.
 */
#ifndef HOOKSCOPE_PROTOCOL_STARTUP_WIRE_H
#define HOOKSCOPE_PROTOCOL_STARTUP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_MAX_SU_LIBS     128         /* libraries with timed constructors */
#define PROTO_MAX_SU_DLOPENS  128         /* dlopen calls kept: the first ones */
#define PROTO_MAX_SU_CHANGES  64          /* what got slower, listed */

/* One library's constructors (its DT_INIT_ARRAY, first entry to last). */
struct proto_su_lib {
	char    *name;                    /* the library's path */
	uint64_t start_ns;
	uint64_t dur_ns;
	uint32_t funcs;                   /* entries of its DT_INIT_ARRAY */
};

/* One dlopen call (its constructors included). */
struct proto_su_dlopen {
	char    *name;                    /* the name the program gave */
	uint64_t start_ns;
	uint64_t dur_ns;
	bool     ok;                      /* it returned a handle */
	int32_t  tid;
};

/* A figure of this run against the previous run of the program (daemon). */
struct proto_su_change {
	char    *kind;                    /* "phase", "constructors", "dlopen" */
	char    *name;                    /* the phase or library */
	uint64_t before_ns;
	uint64_t now_ns;
};

struct proto_startup {
	uint64_t time_ns;                 /* agent monotonic clock of the figures */
	bool     attached;                /* loaded into a running process: no start seen */
	char    *exec_from;               /* where exec_ns comes from: "run", "stat", "" */
	uint64_t exec_ns;                 /* the exec (estimated: exec_from) */
	uint64_t loaded_ns;               /* libraries loaded and relocated (the agent's
	                                     first code), 0 unknown */
	uint64_t agent_ns;                /* the agent's constructor */
	uint64_t ctors_ns;                /* every library constructor done (libc's start) */
	uint64_t main_ns;                 /* main's first instruction */
	uint64_t wait_ns;                 /* the main thread's first event-loop wait */
	char    *wait_call;               /* its call: "poll", "epoll_wait", ... */
	uint64_t frame_ns;                /* the first frame presented */
	size_t   nlibs;
	struct proto_su_lib *libs;        /* in the order their constructors ran */
	uint64_t libs_lost;               /* libraries past PROTO_MAX_SU_LIBS, not timed */
	size_t   ndlopens;
	struct proto_su_dlopen *dlopens;  /* in call order */
	uint64_t dlopens_total;           /* every dlopen call, the ones not kept included */
	/* daemon: against the previous run of the same program */
	char    *baseline;                /* "pid 123, 2026-01-02 03:04:05", "" none */
	uint64_t noise_ns;                /* slower by less is noise */
	uint32_t noise_pct;               /* ... or by less than this percentage */
	size_t   nslower;
	struct proto_su_change *slower;   /* slowest change first */
};

/* The phases of a start, each derived from the points above. */
enum proto_su_phase_id {
	PROTO_SU_LOAD,                    /* exec -> loaded: kernel exec, ld.so load and relocate */
	PROTO_SU_CTORS,                   /* loaded -> ctors: library constructors */
	PROTO_SU_PROG_CTORS,              /* ctors -> main: the program's own constructors */
	PROTO_SU_TO_MAIN,                 /* exec -> main */
	PROTO_SU_TO_WAIT,                 /* exec -> first event-loop wait */
	PROTO_SU_TO_FRAME,                /* exec -> first frame */
	PROTO_SU_NPHASES
};

struct proto_su_phase {
	const char *name;                 /* "load", "constructors", "to main", ... */
	uint64_t start_ns, end_ns;        /* both 0 when unknown */
};

/* The phases of s into out[PROTO_SU_NPHASES]. */
void proto_startup_phases(const struct proto_startup *s, struct proto_su_phase *out);
/* s's earliest known point (exec_ns, else the first one), 0 none. */
uint64_t proto_startup_origin(const struct proto_startup *s);

/* The field tables (startup.c). */
struct proto_struct;
extern const struct proto_struct proto_startup_desc, proto_su_lib_desc, proto_su_dlopen_desc,
    proto_su_change_desc;

#endif
