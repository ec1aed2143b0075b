/*
 * rank_view.c - one ranking per view and session state: clients looking at
 * the same session under the same sort key, filter and top N within one
 * state of the session (its generation, bumped by every record, reset and
 * rate-decaying tick) share one daemon_rank.  Every frame used to rank all
 * of a session's functions for each client.
 *
 * A few views are kept per session (RANK_VIEWS): past that the least
 * recently used one is recomputed, so the memory is bounded whatever the
 * clients ask.  The rows point into the session's function table, which
 * only grows on a record, so a ranking of the current generation never
 * dangles.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"

#define RANK_VIEWS 8

struct rank_view {
	bool     used;
	uint64_t gen;             /* the session's generation it was taken at */
	uint64_t last_use;        /* for eviction: the views' clock */
	int      key;
	char    *filter;          /* NULL = all */
	size_t   cap;             /* the top N asked for */
	struct daemon_func **rows;
	size_t   n, rows_cap;
	struct daemon_totals tot;
};

struct daemon_rank_views {
	struct rank_view v[RANK_VIEWS];
	uint64_t clock;
};

/* An empty filter is no filter. */
static const char *
view_filter(const char *filter)
{
	return filter != NULL && *filter != '\0' ? filter : NULL;
}

/* Can v answer (key, filter, top) at generation gen?  The order is total,
 * so the top N of a larger ranking is its first N rows. */
static bool
view_matches(const struct rank_view *v, uint64_t gen, int key, const char *filter,
    size_t top)
{
	if (!v->used || v->gen != gen || v->key != key || v->cap < top)
		return false;
	if (v->filter == NULL || filter == NULL)
		return v->filter == filter;
	return strcmp(v->filter, filter) == 0;
}

/* The slot to recompute: a free or outdated one, else the least recently
 * used. */
static struct rank_view *
view_victim(struct daemon_rank_views *vs, uint64_t gen)
{
	struct rank_view *w = &vs->v[0];

	for (size_t i = 0; i < RANK_VIEWS; i++) {
		struct rank_view *v = &vs->v[i];

		if (!v->used || v->gen != gen)
			return v;
		if (v->last_use < w->last_use)
			w = v;
	}
	return w;
}

/* See daemon.h. */
size_t
daemon_rank_view(struct daemon_session *s, int key, const char *filter, size_t top,
    struct daemon_func *const **rows, struct daemon_totals *tot)
{
	struct daemon_rank_views *vs;
	struct rank_view *v = NULL;

	if (key < 0 || key >= PROTO_RANK_COUNT)
		key = PROTO_RANK_TOTAL;       /* as daemon_rank ranks it */
	filter = view_filter(filter);
	if (s->rank_views == NULL)
		s->rank_views = xcalloc(1, sizeof *s->rank_views);
	vs = s->rank_views;
	for (size_t i = 0; i < RANK_VIEWS && v == NULL; i++)
		if (view_matches(&vs->v[i], s->gen, key, filter, top))
			v = &vs->v[i];
	if (v == NULL) {
		v = view_victim(vs, s->gen);
		if (v->rows_cap < top || v->rows == NULL) {
			free(v->rows);
			v->rows_cap = top ? top : 1;
			v->rows = xcalloc(v->rows_cap, sizeof *v->rows);
		}
		free(v->filter);
		v->filter = filter != NULL ? xstrdup(filter) : NULL;
		v->used = true;
		v->gen = s->gen;
		v->key = key;
		v->cap = top;
		v->n = daemon_rank(s, key, filter, v->rows, top, &v->tot);
	}
	v->last_use = ++vs->clock;
	assert(v->n <= v->cap);
	*rows = v->rows;
	if (tot != NULL)
		*tot = v->tot;
	return v->n < top ? v->n : top;
}

/* See daemon.h. */
void
daemon_rank_views_free(struct daemon_session *s)
{
	if (s->rank_views == NULL)
		return;
	for (size_t i = 0; i < RANK_VIEWS; i++) {
		free(s->rank_views->v[i].rows);
		free(s->rank_views->v[i].filter);
	}
	free(s->rank_views);
	s->rank_views = NULL;
}
