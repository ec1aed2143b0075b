/*
 * startup_base.c - the last start of each program, kept across runs and
 * daemons: STATE/startup/NAME-HASH.msgpack (STATE: $HOOKSCOPE_STATE_DIR,
 * else $XDG_STATE_HOME/hookscope, else ~/.local/state/hookscope, as the
 * TUI's history; state, not a report), one file per program
 * and command line (HASH: FNV-1a of its build-id, else of its executable's
 * path, and of its command line: a helper process the program starts with
 * other arguments is another program here), holding a
 * message {v, pid, wall_ms, startup: the part as the frame has it}.
 * Written whole to a temporary and renamed, so a reader sees the old file
 * or the new one.  Read back through the protocol's checked decode: a file
 * is outside input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon_startup.h"

#define SU_BASE_MAX (1u << 20)             /* bytes of one file, at most */

static char *su_dir;

/* See daemon_startup.h. */
void
daemon_startup_init(void)
{
	const char *dir = getenv("HOOKSCOPE_STATE_DIR"), *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char buf[4096];

	if (dir != NULL && dir[0] == '/')
		snprintf(buf, sizeof buf, "%s/startup", dir);
	else if (xdg != NULL && xdg[0] == '/')
		snprintf(buf, sizeof buf, "%s/hookscope/startup", xdg);
	else if (home != NULL && home[0] == '/')
		snprintf(buf, sizeof buf, "%s/.local/state/hookscope/startup", home);
	else
		snprintf(buf, sizeof buf, "/tmp/hookscope-state-%u/startup", (unsigned)getuid());
	free(su_dir);
	su_dir = xstrdup(buf);
}

/* The file of s's program into buf; -1 when there is no directory or no program. */
static int
su_base_path(const struct daemon_session *s, char *buf, size_t len)
{
	const char *key = s->build_id && *s->build_id ? s->build_id : s->exe;
	uint64_t h = 1469598103934665603ull;
	const char *base;
	char name[48];
	size_t k = 0;

	if (su_dir == NULL || key == NULL || *key == '\0')
		return -1;
	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h *= 1099511628211ull;            /* the separator */
	for (const char *p = s->cmdline ? s->cmdline : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	base = s->exe && strrchr(s->exe, '/') ? strrchr(s->exe, '/') + 1 : s->exe ? s->exe : "";
	for (; *base && k < 32; base++)   /* the name as a file name: [A-Za-z0-9._-] */
		name[k++] = (strchr("._-", *base) || (*base >= '0' && *base <= '9') ||
		    ((*base | 32) >= 'a' && (*base | 32) <= 'z')) ? *base : '_';
	name[k] = '\0';
	return snprintf(buf, len, "%s/%s-%016llx.msgpack", su_dir, name,
	    (unsigned long long)h) < (int)len ? 0 : -1;
}

/* See daemon_startup.h. */
int
daemon_startup_load(const struct daemon_session *s, struct proto_startup *base,
    int32_t *pid, uint64_t *wall_ms)
{
	char path[4096], err[PROTO_ERR_LEN], *buf;
	const msgpack_object *o;
	struct proto_doc doc;
	ssize_t n;
	int fd, r = -1;

	proto_struct_init(&proto_startup_desc, base);
	if (su_base_path(s, path, sizeof path) < 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	buf = xmalloc(SU_BASE_MAX);
	n = read(fd, buf, SU_BASE_MAX);
	close(fd);
	if (n <= 0 || proto_doc_parse(&doc, buf, (size_t)n, SU_BASE_MAX, err, sizeof err) < 0) {
		daemon_log(DLOG_WARN, "%s: not a startup record (%s); it is replaced by the "
		    "next start", path, n <= 0 ? "empty" : err);
		free(buf);
		return -1;
	}
	*pid = (o = proto_map_get(&doc.root, "pid")) && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ?
	    (int32_t)o->via.u64 : 0;
	*wall_ms = (o = proto_map_get(&doc.root, "wall_ms")) &&
	    o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ? o->via.u64 : 0;
	if (proto_part_decode(&proto_part_startup, &doc.root, base, err, sizeof err) < 0)
		daemon_log(DLOG_WARN, "%s: %s; it is replaced by the next start", path, err);
	else if (*pid != s->pid)
		r = 0;
	if (r < 0)
		proto_struct_free(&proto_startup_desc, base);
	proto_doc_free(&doc);
	free(buf);
	return r;
}

/* See daemon_startup.h. */
int
daemon_startup_save(const struct daemon_session *s, const struct proto_startup *st)
{
	char path[4096], tmp[4200];
	msgpack_sbuffer sb;
	msgpack_packer pk;
	int fd, r = -1;

	if (su_base_path(s, path, sizeof path) < 0)
		return -1;
	if (daemon_mkdirs(su_dir) < 0) {
		daemon_log(DLOG_WARN, "cannot create %s: %s; starts are not compared across runs",
		    su_dir, strerror(errno));
		return -1;
	}
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 4);
	proto_pack_str(&pk, "v");
	msgpack_pack_uint32(&pk, PROTO_VERSION);
	proto_pack_str(&pk, "pid");
	msgpack_pack_int32(&pk, s->pid);
	proto_pack_str(&pk, "wall_ms");
	msgpack_pack_uint64(&pk, s->started_ms);
	proto_part_pack(&proto_part_startup, &pk, st);
	snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0) {
		bool written = write(fd, sb.data, sb.size) == (ssize_t)sb.size;

		if (close(fd) == 0 && written && rename(tmp, path) == 0)
			r = 0;
	}
	if (r < 0) {
		daemon_log(DLOG_WARN, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
	}
	msgpack_sbuffer_destroy(&sb);
	return r;
}
