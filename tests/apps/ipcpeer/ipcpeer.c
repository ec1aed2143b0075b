/*
 * ipcpeer.c - a unix-socket client and server for the IPC tests.
 *   ipcpeer server PATH [--dgram] [--slow-every K --slow-ms MS]
 *       serve requests until the client goes (stream: read/write on the
 *       accepted socket; datagram: recvfrom/sendto), replying with the
 *       request's bytes; every K-th reply waits MS first.
 *   ipcpeer client PATH N SIZE [--dgram] [--wait-file F]
 *       N requests of SIZE bytes (stream: send + recv until the whole reply
 *       came; datagram: sendto the server, recv the reply), each through
 *       fetch_reply(); prints "ipcpeer: done N" and waits for F to exist.
 * The client's requests happen on its main thread (the UI thread for the
 * agent), so a slow reply is a slow call on the UI thread in fetch_reply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Exit with a message naming what failed. */
static void die(const char *what)
{
	fprintf(stderr, "ipcpeer: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* addr for path. */
static socklen_t unaddr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof a->sun_path, "%s", path);
	return (socklen_t)sizeof *a;
}

/* Sleep ms milliseconds. */
static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Stream server: one client, echo each request (read/write). */
static void serve_stream(const char *path, int slow_every, long slow_ms)
{
	struct sockaddr_un a;
	char buf[65536];
	int ls = socket(AF_UNIX, SOCK_STREAM, 0), c;
	long n = 0;
	ssize_t r;

	unlink(path);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, unaddr(&a, path)) < 0 || listen(ls, 4) < 0)
		die("listen");
	printf("ipcpeer: listening\n");
	fflush(stdout);
	if ((c = accept(ls, NULL, NULL)) < 0)
		die("accept");
	while ((r = read(c, buf, sizeof buf)) > 0) {
		if (slow_every > 0 && ++n % slow_every == 0)
			sleep_ms(slow_ms);
		if (write(c, buf, (size_t)r) != r)
			die("write");
	}
	close(c);
	close(ls);
	unlink(path);
}

/* Datagram server: echo each datagram to its sender. */
static void serve_dgram(const char *path, int slow_every, long slow_ms)
{
	struct sockaddr_un a, from;
	char buf[65536];
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	long n = 0;

	unlink(path);
	if (s < 0 || bind(s, (struct sockaddr *)&a, unaddr(&a, path)) < 0)
		die("bind");
	printf("ipcpeer: listening\n");
	fflush(stdout);
	for (;;) {
		socklen_t fl = sizeof from;
		ssize_t r = recvfrom(s, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);

		if (r < 0)
			die("recvfrom");
		if (r == 4 && memcmp(buf, "quit", 4) == 0)
			break;
		if (slow_every > 0 && ++n % slow_every == 0)
			sleep_ms(slow_ms);
		if (sendto(s, buf, (size_t)r, 0, (struct sockaddr *)&from, fl) != r)
			die("sendto");
	}
	close(s);
	unlink(path);
}

/* One request and its whole reply (stream: send, recv until size bytes). */
__attribute__((noinline)) static void fetch_reply(int s, const char *req, char *rep, size_t size,
    int dgram, const struct sockaddr_un *srv)
{
	size_t got = 0;

	if (dgram) {
		if (sendto(s, req, size, 0, (const struct sockaddr *)srv, sizeof *srv) != (ssize_t)size)
			die("sendto");
	} else if (send(s, req, size, 0) != (ssize_t)size) {
		die("send");
	}
	while (got < size) {
		ssize_t r = recv(s, rep + got, size - got, 0);

		if (r <= 0)
			die("recv");
		got += (size_t)r;
	}
}

/* Client: n requests of size bytes. */
static void client(const char *path, long n, size_t size, int dgram, const char *wait_file)
{
	struct sockaddr_un srv, me;
	char *req = malloc(size), *rep = malloc(size), mine[108];
	int s = socket(AF_UNIX, dgram ? SOCK_DGRAM : SOCK_STREAM, 0);
	struct stat st;

	if (s < 0 || req == NULL || rep == NULL)
		die("socket");
	memset(req, 'x', size);
	unaddr(&srv, path);
	if (dgram) {
		snprintf(mine, sizeof mine, "%s.client", path);
		unlink(mine);
		if (bind(s, (struct sockaddr *)&me, unaddr(&me, mine)) < 0)
			die("bind");
	} else if (connect(s, (struct sockaddr *)&srv, sizeof srv) < 0) {
		die("connect");
	}
	for (long i = 0; i < n; i++)
		fetch_reply(s, req, rep, size, dgram, &srv);
	if (dgram) {
		sendto(s, "quit", 4, 0, (struct sockaddr *)&srv, sizeof srv);
		unlink(mine);
	}
	close(s);
	printf("ipcpeer: done %ld\n", n);
	fflush(stdout);
	while (wait_file != NULL && stat(wait_file, &st) < 0)
		sleep_ms(50);
	free(req);
	free(rep);
}

int main(int argc, char **argv)
{
	int dgram = 0, slow_every = 0;
	long slow_ms = 0;
	const char *wait_file = NULL;

	if (argc < 3) {
		fprintf(stderr, "usage: ipcpeer server PATH [--dgram] [--slow-every K --slow-ms MS]\n"
		    "       ipcpeer client PATH N SIZE [--dgram] [--wait-file F]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--dgram") == 0)
			dgram = 1;
		else if (strcmp(argv[i], "--slow-every") == 0 && i + 1 < argc)
			slow_every = atoi(argv[++i]);
		else if (strcmp(argv[i], "--slow-ms") == 0 && i + 1 < argc)
			slow_ms = atol(argv[++i]);
		else if (strcmp(argv[i], "--wait-file") == 0 && i + 1 < argc)
			wait_file = argv[++i];
	}
	if (strcmp(argv[1], "server") == 0) {
		if (dgram)
			serve_dgram(argv[2], slow_every, slow_ms);
		else
			serve_stream(argv[2], slow_every, slow_ms);
		return 0;
	}
	if (strcmp(argv[1], "client") == 0 && argc >= 5) {
		client(argv[2], atol(argv[3]), (size_t)atol(argv[4]), dgram, wait_file);
		return 0;
	}
	fprintf(stderr, "ipcpeer: unknown mode %s\n", argv[1]);
	return 2;
}
