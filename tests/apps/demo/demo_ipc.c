/*
 * demo_ipc.c - PLACEHOLDER of the demo's ipc scenario (slow IPC on the UI thread).
 * The ipc branch writes the real one (doc/contracts: run the scenario on the
 * calling thread, the demo's UI thread, for about `seconds`, printing one
 * announcement line first); the integrator takes that file at merge.
 * This one says so and returns at once: the scenario runner keeps the UI
 * loop going for the rest of the row's time.
 */
#include <stdio.h>

#include "hookscope.h"

/* See above. */
HOOKSCOPE_NO_INSTRUMENT void demo_ipc_scenario(double seconds)
{
	printf("demo: (ipc scenario not built in: %.0f s of the plain UI loop instead)\n", seconds);
	fflush(stdout);
}
