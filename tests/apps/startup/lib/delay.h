/* delay.h - the test libraries' constructor sleep: MS from the environment
 * variable var (else dflt), measured with the monotonic clock. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint64_t delay_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep, return how long it took. */
static uint64_t delay_sleep(const char *var, long dflt)
{
	const char *v = getenv(var);
	long ms = v != NULL ? atol(v) : dflt;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	uint64_t t0 = delay_now();

	while (nanosleep(&ts, &ts) != 0)
		;
	return delay_now() - t0;
}
