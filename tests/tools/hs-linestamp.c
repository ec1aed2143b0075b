/*
 * hs-linestamp.c - copy stdin to stdout, each line prefixed with the
 * CLOCK_MONOTONIC time (ns) at which it was read: the clock the agent stamps
 * frames with, so a test can line a program's own output (glxgears' "N frames
 * in 5.0 seconds") up with hookscope's frame history.
 *
 * Usage: PROG | hs-linestamp > FILE
 */
#include <stdio.h>
#include <string.h>

#include "protocol.h"

/* One output line per input line, flushed at once. */
int main(void)
{
	char line[4096];

	while (fgets(line, sizeof line, stdin) != NULL) {
		unsigned long long t = (unsigned long long)proto_now_ns();

		line[strcspn(line, "\n")] = '\0';
		printf("%llu %s\n", t, line);
		fflush(stdout);
	}
	return 0;
}
