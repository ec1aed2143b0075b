/*
 * paths.c - the rule for the daemon's unix socket path: the agent dials what
 * the daemon listens on, so both take it from here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/un.h>
#include <unistd.h>

#include "protocol.h"

/* See protocol.h. */
int proto_default_socket_path(char *buf, size_t len)
{
	const char *env = getenv("HOOKSCOPE_SOCKET");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env != NULL && env[0] != '\0')
		n = snprintf(buf, len, "%s", env);
	else if (xdg != NULL && xdg[0] != '\0')
		n = snprintf(buf, len, "%s/hookscope.sock", xdg);
	else
		n = snprintf(buf, len, "/tmp/hookscope-%u.sock", (unsigned)getuid());
	if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		if (len > 0)
			buf[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* See protocol.h: one name per pid, so two attaches cannot share a file. */
int proto_attach_conf_path(int pid, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/hookscope-attach-%d.conf", PROTO_ATTACH_DIR, pid);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}
