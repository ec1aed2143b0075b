/*
 * token.c - the access token of a daemon that listens beyond loopback
 * (doc/protocol.md, "Access control").  The daemon and the TUI share the
 * rules: what a token may contain, how a token file is read, and a compare
 * whose time does not depend on where the first difference is.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "protocol.h"

/* See protocol.h. */
int
proto_token_valid(const char *t, char *err, size_t errlen)
{
	size_t n = strlen(t);

	if (n < PROTO_TOKEN_MIN || n > PROTO_TOKEN_MAX) {
		snprintf(err, errlen, "the token must be %d to %d characters long (it is %zu; "
		    "e.g. head -c 24 /dev/urandom | base64)", PROTO_TOKEN_MIN, PROTO_TOKEN_MAX, n);
		return -1;
	}
	for (const char *p = t; *p; p++)
		if (*p <= ' ' || *p > '~') {
			snprintf(err, errlen, "the token may hold only printable ASCII "
			    "characters without spaces");
			return -1;
		}
	return 0;
}

/* See protocol.h. */
int
proto_token_read(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[PROTO_TOKEN_MAX + 4];
	size_t n;

	if (f == NULL) {
		snprintf(err, errlen, "cannot read token file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fgets(line, sizeof line, f) == NULL)
		line[0] = '\0';
	fclose(f);
	n = strcspn(line, "\r\n");
	line[n] = '\0';
	if (proto_token_valid(line, err, errlen) < 0 || n >= len) {
		char why[PROTO_ERR_LEN];

		snprintf(why, sizeof why, "%s", err);
		snprintf(err, errlen, "token file %s: %s", path, why);
		return -1;
	}
	memcpy(buf, line, n + 1);
	return 0;
}

/* See protocol.h. */
bool
proto_token_equal(const char *want, const char *got, size_t got_len)
{
	size_t n = strlen(want);
	unsigned char diff = got_len != n;

	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)want[i] ^ (unsigned char)(i < got_len ? got[i] : 0);
	return diff == 0;
}
