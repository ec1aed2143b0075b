/* gpool.c - a GThreadPool with a known load (tests/e2e/threads-pools.sh):
 * 2 threads, 20 tasks of 50 ms each pushed at once: task k waits about
 * floor(k / 2) * 50 ms in the queue, so the longest wait is about 450 ms and
 * the waits add up to about 2 * (0+1+...+9) * 50 = 4500 ms.
 * Prints "gpool: pushed N" when all tasks ran, then waits for PATH (argv[1])
 * to exist before it frees the pool and exits. */
#include <glib.h>
#include <stdio.h>
#include <unistd.h>

static gint gpool_done;

static void gpool_task(gpointer data, gpointer user)
{
	(void)data;
	(void)user;
	g_usleep(50000);
	g_atomic_int_inc(&gpool_done);
}

int main(int argc, char **argv)
{
	GThreadPool *p = g_thread_pool_new(gpool_task, NULL, 2, TRUE, NULL);
	int i;

	for (i = 0; i < 20; i++)
		g_thread_pool_push(p, GINT_TO_POINTER(i + 1), NULL);
	while (g_atomic_int_get(&gpool_done) < 20)
		g_usleep(10000);
	printf("gpool: pushed %d\n", i);
	fflush(stdout);
	while (argc > 1 && access(argv[1], F_OK) != 0)
		g_usleep(10000);
	g_thread_pool_free(p, FALSE, TRUE);
	return 0;
}
