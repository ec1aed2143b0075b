/*
 * daemon_startup.h - the startup collector of the daemon (internal): a session's
 * start as its agent saw it, compared with the previous run of the same
 * program (startup.c, startup_cmp.c, startup_base.c), for the report
 * section (report_startup.c).  doc/startup.md.
 */
#ifndef HOOKSCOPE_DAEMON_STARTUP_H
#define HOOKSCOPE_DAEMON_STARTUP_H

#include "daemon.h"

#define DAEMON_SU_NOISE_NS   5000000u  /* slower by this much or less: noise ... */
#define DAEMON_SU_NOISE_PCT  10u       /* ... or by this percentage or less */

/* The session's start (borrowed; empty when no record came). */
const struct proto_startup *daemon_startup_of(struct daemon_session *s);

/* startup_cmp.c: what in now is slower than in before beyond the noise
 * (phases without the agent's own constructors),
 * largest slow-down first, at most PROTO_MAX_SU_CHANGES (heap; *out NULL
 * when none): the count. */
size_t daemon_startup_compare(const struct proto_startup *before, const struct proto_startup *now,
    uint64_t noise_ns, uint32_t noise_pct, struct proto_su_change **out);

/* startup_base.c: where the last start of each program is kept (the state
 * directory's startup/, doc/startup.md); once at start (without it nothing
 * is kept). */
void daemon_startup_init(void);
/* The last start of the program of s saved by another session into *base
 * (initialised first), with that session's pid and wall clock: 0, or -1
 * when there is none (or it is s's own). */
int  daemon_startup_load(const struct daemon_session *s, struct proto_startup *base,
    int32_t *pid, uint64_t *wall_ms);
/* Save st as the last start of the program of s; 0 or -1 (logged). */
int  daemon_startup_save(const struct daemon_session *s, const struct proto_startup *st);

#endif
