/*
 * fps_ring.c - the recent frames of each stream of a session: the agent
 * sends the frames presented since its last "fps" record ("recent", at
 * most PROTO_FPS_RECENT a record); the daemon keeps the last
 * DAEMON_FPS_RING of each stream (at most PROTO_MAX_STREAMS rings, 32 KiB
 * each) so the trace report can draw every frame as a slice.  Frames to
 * clients never carry them.
 */
#include <stdlib.h>
#include <string.h>
#include "daemon.h"

/* See daemon.h. */
const struct daemon_fps_ring *
daemon_fps_ring_of(const struct daemon_session *s, uint32_t id)
{
	for (size_t i = 0; i < s->nfps_rings; i++)
		if (s->fps_rings[i].id == id)
			return &s->fps_rings[i];
	return NULL;
}

/* The ring of stream id: its own, a new one, or that of a stream the
 * session no longer has. */
static struct daemon_fps_ring *
fps_ring_slot(struct daemon_session *s, uint32_t id)
{
	struct daemon_fps_ring *r = (struct daemon_fps_ring *)daemon_fps_ring_of(s, id);

	if (r != NULL)
		return r;
	if (s->nfps_rings < PROTO_MAX_STREAMS) {
		s->fps_rings = xrealloc(s->fps_rings, (s->nfps_rings + 1) * sizeof *s->fps_rings);
		r = &s->fps_rings[s->nfps_rings++];
	} else {
		size_t k = 0;

		for (size_t i = 0; i < s->nfps_rings; i++) {
			bool kept = false;

			for (size_t j = 0; j < s->fps.nstreams && !kept; j++)
				kept = s->fps.streams[j].id == s->fps_rings[i].id;
			if (!kept)
				k = i;
		}
		r = &s->fps_rings[k];
	}
	r->id = id;
	r->head = r->n = 0;
	return r;
}

/* See daemon.h. */
void
daemon_fps_ring_add(struct daemon_session *s, struct proto_fps_stream *t)
{
	struct daemon_fps_ring *r;

	if (t->nrecent > 0) {
		r = fps_ring_slot(s, t->id);
		for (size_t i = 0; i < t->nrecent; i++) {
			r->end_ns[r->head] = t->recent_end_ns[i];
			r->ns[r->head] = t->recent_ns[i];
			r->head = (r->head + 1) % DAEMON_FPS_RING;
			if (r->n < DAEMON_FPS_RING)
				r->n++;
		}
	}
	free(t->recent_end_ns);
	free(t->recent_ns);
	t->recent_end_ns = t->recent_ns = NULL;
	t->nrecent = 0;
}

/* See daemon.h. */
void
daemon_fps_rings_free(struct daemon_session *s)
{
	free(s->fps_rings);
	s->fps_rings = NULL;
	s->nfps_rings = 0;
}
