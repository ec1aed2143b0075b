/*
 * loop-uv.c - a libuv loop running the actions of loop-work.h from a
 * timer; the first one 1.5 s after start.
 */
#include <uv.h>

#include "loop-work.h"

static struct loop_plan plan;

/* The timer: one action, then the next one. */
static void loop_timer(uv_timer_t *t)
{
	int next = loop_step(&plan);

	if (next > 0)
		uv_timer_start(t, loop_timer, (uint64_t)next, 0);
}

/* Keeps the loop alive once the actions are done. */
static void loop_keep(uv_timer_t *t)
{
	(void)t;
}

int main(int argc, char **argv)
{
	uv_timer_t t, keep;

	plan = (struct loop_plan){ argv + 1, argc - 1, 0, 0 };
	uv_timer_init(uv_default_loop(), &t);
	uv_timer_start(&t, loop_timer, 1500, 0);
	uv_timer_init(uv_default_loop(), &keep);       /* stay idle, not exit */
	uv_timer_start(&keep, loop_keep, 3600000, 3600000);
	return uv_run(uv_default_loop(), UV_RUN_DEFAULT);
}
