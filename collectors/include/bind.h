/*
 * bind.h - how a collector's wrappers get between the program and the
 * functions they watch.
 *
 * A collector describes its wrappers once, in a table: the symbol, the
 * wrapper (the agent's exported definition of that symbol), where the real
 * function goes (the pointer the wrapper calls through) and which system
 * libraries' calls are bound too.  bind_add() hands the table to the one
 * binder (collectors/agent/bind.c), which installs it one of two ways:
 *   - preloaded agent: the loader already binds every call of the symbol to
 *     the exported wrapper (interposition); the real function is looked up
 *     at the agent's start (AGENT_REAL in agent.h: dlsym(RTLD_NEXT));
 *   - attached agent (loaded RTLD_LOCAL: nothing interposes): the engine's
 *     GOT patcher (engine/hook_got.c) points the GOT entries of the symbol at
 *     the wrapper in the program's own modules and in the system libraries
 *     the table names, modules dlopen'd later included; the real function is
 *     the value of the first GOT entry it replaced.  A detach gives every
 *     entry back before the agent unloads.
 *
 * A wrapper that may block (recv, poll, ...) brackets the real call with
 * BIND_BLOCKING, so a detach can let a thread sleeping in it out (see the
 * macro) instead of waiting for it.
 */
#ifndef HOOKSCOPE_BIND_H
#define HOOKSCOPE_BIND_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "agent.h"

enum {
	BIND_NOATTACH = 1,      /* never bound after an attach: the wrapper keeps the agent
	                         * on a thread's stack longer than a detach can wait */
};

struct bind_fn {
	const char *name;       /* the symbol ("recv") */
	void       *wrapper;    /* the agent's definition of it */
	void      **real;       /* the function the wrapper calls (its AGENT_REAL slot) */
	unsigned    flags;      /* BIND_* */
};

struct bind_table {
	const char           *who;     /* the collector, for messages */
	const char           *libs;    /* system libraries whose calls are bound too after an
	                                * attach: ':'-separated fnmatch globs of file names
	                                * ("libdbus-1.so*"); NULL: the program's own modules */
	const struct bind_fn *fns;
	size_t                n;
};

/* The wrapper's address for a table: a hidden alias of the exported
 * definition (&name itself goes through the agent's GOT, which the loader
 * bound to the first definition in the global scope: libc's, not ours).
 * BIND_LOCAL(name) at file scope after the definition, then
 * BIND_WRAPPER(name) in the table. */
#define BIND_LOCAL(name) \
	extern __typeof__(name) bind_local_##name                                 \
	    __attribute__((alias(#name), copy(name), visibility("hidden")));
#define BIND_WRAPPER(name) ((void *)bind_local_##name)

/* Register table t (kept: static storage) at the collector's init, before
 * the engine scans the modules.  At most BIND_MAX_TABLES. */
#define BIND_MAX_TABLES 16
void bind_add(const struct bind_table *t);
/* For the engine's GOT patcher: the entry of table k (< bind_ntables()) for
 * symbol name, when module path is in its scope (own: one of the program's
 * modules), or NULL. */
size_t bind_ntables(void);
const struct bind_fn *bind_find(size_t k, const char *name, const char *path, bool own);

/* ---- blocking wrappers and detach ----
 * BIND_BLOCKING(r, CALL): r = CALL, the real call, with this thread known
 * to be inside a wrapper while it runs.  A detach first unbinds every
 * wrapper, then (bind_let_out) signals each thread still inside one: its
 * system call ends with EINTR, and the wrapper calls the real function
 * again as a tail call (`return CALL`: the caller must have no local whose
 * address escaped, so the compiler emits a jump), which leaves no agent
 * frame on the thread's stack while it waits; the program sees one call.
 * Once a detach began the wrapper makes that tail call at once. */
bool bind_enter(void);          /* false: detaching, call the real function directly */
bool bind_exit(void);           /* true: detaching (an EINTR may be ours) */
#define BIND_BLOCKING(r, CALL)                                           \
	do {                                                               \
		if (!bind_enter())                                         \
			return CALL;                                       \
		(r) = (CALL);                                              \
		if (bind_exit() && (r) < 0 && errno == EINTR)              \
			return CALL;                                       \
	} while (0)

/* BIND_CALL(STMT): STMT (a statement that calls the real function and
 * returns soon) with this thread known to be inside a wrapper, so a detach
 * waits for it to come back before the agent unloads. */
#define BIND_CALL(STMT)                                                  \
	do {                                                               \
		bool in_ = bind_enter();                                   \
		STMT;                                                      \
		if (in_)                                                   \
			(void)bind_exit();                                 \
	} while (0)

/* Detach: let every thread inside a blocking wrapper out (the wrappers
 * are already unbound); 0, or -1 with err after timeout_ms. */
int bind_let_out(unsigned timeout_ms, char *err, size_t errlen);

#endif
