/*
 * select.h - which functions a monitoring level times (the table in
 * doc/architecture.md, from design.md), one rule for the hook engine's sites
 * (hook_site.c) and the -finstrument-functions path (timing_select.c).
 */
#ifndef HOOKSCOPE_SELECT_H
#define HOOKSCOPE_SELECT_H

#include <stdbool.h>

/* Is a function with this name, binding and visibility timed at level?
 *   0 none; 1 main and the HOOKSCOPE_FUNCS globs; 2 + exported (global or
 *   weak, default visibility); 3 + every global or weak; 4 everything. */
bool select_level(int level, const char *name, bool global, bool exported);

/* Level 1 also times every thread start routine seen so far: the threads
 * collector adds their names on the reporter thread (true when the name is
 * new); readers on any thread see a consistent prefix of the set. */
bool select_start_add(const char *name);
/* Moves whenever the start routine set grows: cached selections are stale. */
unsigned select_generation(void);

#endif
