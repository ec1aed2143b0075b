/*
 * sessions.c - the list of target sessions, oldest first.
 *
 * One session per target process, keyed by pid.  An agent that reconnects
 * (daemon restart, lost connection) resumes its session; a hello for the pid
 * of an exited session is a new process that reused the pid.  Ended
 * sessions stay until "forget", or until DAEMON_MAX_SESSIONS forces the
 * oldest ended one out.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"

/* Index of pid's session, or -1. */
static ssize_t
sessions_index(const struct daemon_sessions *ss, int32_t pid)
{
	for (size_t i = 0; i < ss->n; i++)
		if (ss->v[i]->pid == pid)
			return (ssize_t)i;
	return -1;
}

/* Remove and free the session at index i. */
static void
sessions_remove(struct daemon_sessions *ss, size_t i)
{
	assert(ss->v[i]->agent == NULL);        /* never drop a live session */
	daemon_session_free(ss->v[i]);
	memmove(&ss->v[i], &ss->v[i + 1], (ss->n - i - 1) * sizeof *ss->v);
	ss->n--;
}

/* pid's session, or NULL. */
struct daemon_session *
daemon_sessions_find(const struct daemon_sessions *ss, int32_t pid)
{
	ssize_t i = sessions_index(ss, pid);

	return i < 0 ? NULL : ss->v[i];
}

/* Make room: drop the oldest session that is not live. */
static void
sessions_evict(struct daemon_sessions *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		if (ss->v[i]->state != PROTO_TARGET_LIVE) {
			daemon_log(DLOG_INFO, "pid %d: session dropped (more than "
			    "%d sessions)", (int)ss->v[i]->pid, DAEMON_MAX_SESSIONS);
			sessions_remove(ss, i);
			return;
		}
	}
}

/* Is this hello from another process than the one s recorded? */
static bool
sessions_other_process(const struct daemon_session *s, const struct proto_ag_hello *h)
{
	if (s->state == PROTO_TARGET_EXITED)
		return true;
	if ((s->state == PROTO_TARGET_LOST || s->state == PROTO_TARGET_DETACHED) &&
	    s->exe && h->exe && *s->exe &&
	    *h->exe && strcmp(s->exe, h->exe) != 0)
		return true;
	return false;
}

/* The session for an agent hello, created or resumed; now live. */
struct daemon_session *
daemon_sessions_attach(struct daemon_sessions *ss, const struct proto_ag_hello *h,
    uint64_t now_ns)
{
	ssize_t i = sessions_index(ss, h->pid);
	struct daemon_session *s;

	if (i >= 0 && sessions_other_process(ss->v[i], h)) {
		daemon_log(DLOG_INFO, "pid %d: new process, old session replaced",
		    (int)h->pid);
		sessions_remove(ss, (size_t)i);
		i = -1;
	}
	if (i >= 0) {
		s = ss->v[i];
	} else {
		if (ss->n >= DAEMON_MAX_SESSIONS)
			sessions_evict(ss);
		if (ss->n == ss->cap) {
			ss->cap = ss->cap ? ss->cap * 2 : 16;
			ss->v = xrealloc(ss->v, ss->cap * sizeof *ss->v);
		}
		s = daemon_session_new(h->pid, now_ns);
		ss->v[ss->n++] = s;
	}
	daemon_session_hello(s, h, now_ns);
	return s;
}

/* Drop pid's session; -1 if there is none. */
int
daemon_sessions_forget(struct daemon_sessions *ss, int32_t pid)
{
	ssize_t i = sessions_index(ss, pid);

	if (i < 0)
		return -1;
	sessions_remove(ss, (size_t)i);
	return 0;
}

/* A client's target: pid, or for 0 the newest live (else newest) session. */
struct daemon_session *
daemon_sessions_pick(const struct daemon_sessions *ss, int32_t pid)
{
	if (pid != 0)
		return daemon_sessions_find(ss, pid);
	for (size_t i = ss->n; i-- > 0;)
		if (ss->v[i]->state == PROTO_TARGET_LIVE)
			return ss->v[i];
	return ss->n ? ss->v[ss->n - 1] : NULL;
}

/* Borrowed wire views of every session (out has room for ss->n). */
size_t
daemon_sessions_targets(const struct daemon_sessions *ss, struct proto_target *out)
{
	for (size_t i = 0; i < ss->n; i++) {
		const struct daemon_session *s = ss->v[i];

		out[i] = (struct proto_target){
			.pid = s->pid,
			.name = s->name ? s->name : "",
			.exe = s->exe ? s->exe : "",
			.state = s->state,
			.level = s->level,
			.started_ms = s->started_ms,
			.ended_ms = s->ended_ms,
		};
	}
	return ss->n;
}

/* Free every session. */
void
daemon_sessions_free(struct daemon_sessions *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		daemon_session_free(ss->v[i]);
	free(ss->v);
	memset(ss, 0, sizeof *ss);
}
