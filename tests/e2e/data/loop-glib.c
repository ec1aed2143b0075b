/*
 * loop-glib.c - a GLib main loop running the actions of loop-work.h from
 * timeout sources; the first one 1.5 s after start.
 */
#include <glib.h>

#include "loop-work.h"

/* The timeout source: one action, then the next timeout. */
static gboolean loop_timeout(gpointer data)
{
	int next = loop_step(data);

	if (next > 0)
		g_timeout_add((guint)next, loop_timeout, data);
	return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
	struct loop_plan p = { argv + 1, argc - 1, 0, 0 };
	GMainLoop *loop = g_main_loop_new(NULL, FALSE);

	g_timeout_add(1500, loop_timeout, &p);
	g_main_loop_run(loop);
	return 0;
}
