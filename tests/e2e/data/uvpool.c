/* uvpool.c - libuv's threadpool with a known load (tests/e2e/threads-pools.sh):
 * UV_THREADPOOL_SIZE=2 (set by the test), 12 requests of 50 ms each queued at
 * once: the longest queue wait is about 250 ms.  Prints "uvpool: queued N
 * done N", then waits for PATH (argv[1]) to exist before it exits. */
#include <stdio.h>
#include <unistd.h>
#include <uv.h>

static int done;

static void uvpool_work(uv_work_t *req)
{
	(void)req;
	usleep(50000);
}

static void uvpool_after(uv_work_t *req, int status)
{
	(void)req;
	done += status == 0;
}

int main(int argc, char **argv)
{
	static uv_work_t reqs[12];
	int n = 0;

	for (int i = 0; i < 12; i++)
		n += uv_queue_work(uv_default_loop(), &reqs[i], uvpool_work, uvpool_after) == 0;
	uv_run(uv_default_loop(), UV_RUN_DEFAULT);
	printf("uvpool: queued %d done %d\n", n, done);
	fflush(stdout);
	while (argc > 1 && access(argv[1], F_OK) != 0)
		usleep(10000);
	return 0;
}
