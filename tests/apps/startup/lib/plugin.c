/* libhs-plugin.so: dlopened by tests/apps/startup; its constructor sleeps
 * HS_PLUGIN_MS (150 ms). */
#include "delay.h"

static uint64_t measured;

__attribute__((constructor)) static void plugin(void)
{
	measured = delay_sleep("HS_PLUGIN_MS", 150);
}

uint64_t plugin_ctor_ns(void)
{
	return measured;
}
