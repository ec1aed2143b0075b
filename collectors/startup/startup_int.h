/*
 * startup_int.h - the startup collector (internal): the early hook and the
 * constructor wrappers (startup_early.c), main and the other first points
 * (startup_main.c), and the collector that reports them (startup.c).
 *
 * Everything here is written once or appended: a point's time is stored
 * once (relaxed, then its "seen" flag with release); a slot of a table is
 * claimed with an atomic add and published with a release store of its
 * end, so the reporter reads only finished entries.
 */
#ifndef HOOKSCOPE_STARTUP_INT_H
#define HOOKSCOPE_STARTUP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

#define SU_MAX_LIBS     PROTO_MAX_SU_LIBS
#define SU_MAX_DLOPENS  PROTO_MAX_SU_DLOPENS
#define SU_NAME_MAX     256

typedef void (*su_init_fn)(int, char **, char **);

/* One library whose DT_INIT_ARRAY the early hook wrapped. */
struct su_lib {
	const char *name;                 /* ld.so's l_name (lives as long as the library) */
	su_init_fn  first, last;          /* its first and last entries (the same when one) */
	uint32_t    funcs;
	uint64_t    start_ns;
	uint64_t    end_ns;               /* release-stored: the slot is complete */
};

struct su_dlopen {
	char     name[SU_NAME_MAX];
	uint64_t start_ns, dur_ns;
	int32_t  tid;
	bool     ok;
	bool     done;                    /* release-stored last */
};

/* ---- startup_early.c ---- */
extern struct su_lib su_libs[SU_MAX_LIBS];
extern uint32_t su_nlibs;             /* slots wrapped (set before any constructor runs) */
extern uint64_t su_libs_lost;         /* libraries with constructors not wrapped */
extern uint64_t su_loaded_ns;         /* the early hook ran: relocations done */
extern bool     su_at_start;          /* the early hook ran during the program's start */

/* ---- startup_main.c ---- */
extern uint64_t su_ctors_ns, su_main_ns, su_frame_ns, su_wait_ns;
extern const char *su_wait_call;
extern struct su_dlopen su_dlopens[SU_MAX_DLOPENS];
extern uint64_t su_dlopens_total;
/* The agent's constructor, on the main thread: arm the first points. */
void su_main_arm(bool at_start);

#endif
