/* libhs-slowinit.so: linked by tests/apps/startup; its constructor sleeps
 * HS_SLOWINIT_MS (200 ms). */
#include "delay.h"

static uint64_t measured;

__attribute__((constructor)) static void slowinit(void)
{
	measured = delay_sleep("HS_SLOWINIT_MS", 200);
}

uint64_t slowinit_ctor_ns(void)
{
	return measured;
}
