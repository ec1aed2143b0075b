/*
 * demo_power.c - PLACEHOLDER of the demo's power scenario (a leaked wakelock).
 * The power branch writes the real one (doc/contracts: run the scenario on the
 * calling thread, the demo's UI thread, for about `seconds`, printing one
 * announcement line first); the integrator takes that file at merge.
 * This one says so and returns at once: the scenario runner keeps the UI
 * loop going for the rest of the row's time.
 */
#include <stdio.h>

#include "hookscope.h"

/* See above. */
HOOKSCOPE_NO_INSTRUMENT void demo_power_scenario(double seconds)
{
	printf("demo: (power scenario not built in: %.0f s of the plain UI loop instead)\n", seconds);
	fflush(stdout);
}
