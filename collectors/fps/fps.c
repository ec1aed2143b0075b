/*
 * fps.c - the frame-rate collector: on the reporter thread, drains every
 * thread's frame rings into one fps_stats per stream (thread + surface) and
 * sends an "fps" record with the streams that presented a frame in the last
 * minute (all of them on a new connection).  Thresholds: "frame" (the
 * budget), "frame_high" and "frame_frozen" (histogram levels), in ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "bind.h"
#include "fps_int.h"

#define FPS_KEEP_NS  61000000000ull       /* a stream idle longer is not resent */

/* One stream as the reporter knows it. */
struct fps_rep {
	struct fps_thread     *thr;       /* NULL once its thread ended */
	struct fps_hot_stream *hot;
	uint64_t consumed;                /* ring frames already harvested */
	uint64_t sent_frames;             /* frames at the last send */
	uint64_t sent_end;                /* newest frame sent as "recent" */
	uint32_t id;
	int32_t  tid;
	uint32_t api;
	char     name[FPS_NAME_MAX + 8];
	struct fps_stats st;
};

static const char *const fps_api_names[FPS_API_COUNT] = {
	[FPS_API_APP] = "app", [FPS_API_GLX] = "glx", [FPS_API_EGL] = "egl",
	[FPS_API_VULKAN] = "vulkan", [FPS_API_SDL] = "sdl",
};

static struct fps_rep **fps_reps;
static size_t fps_nreps, fps_capreps;
static uint32_t fps_next_id = 1;
static struct fps_cfg fps_cfg = {
	.budget_ns = FPS_BUDGET_NS, .high_ns = FPS_HIGH_NS, .frozen_ns = FPS_FROZEN_NS,
};
static bool fps_cfg_changed;

/* Collector init: the thread-exit key, the wrappers' table. */
static int fps_set_threshold(const char *name, int64_t value);

/* HOOKSCOPE_REFRESH=HZ (set by `hookscoped run --refresh`): the frame budget
 * from the first frame, before the daemon's greeting arrives. */
static void fps_refresh_env(void)
{
	const char *v = getenv("HOOKSCOPE_REFRESH");
	char *end;
	double hz;

	if (v == NULL || *v == '\0')
		return;
	hz = strtod(v, &end);
	if (*end != '\0' || !(hz >= 1 && hz <= 1000) ||
	    fps_set_threshold("frame", (int64_t)(1e9 / hz + 0.5)) != 0)
		agent_warn("HOOKSCOPE_REFRESH=%s: expected a refresh rate of 1 to 1000 Hz; "
		    "the frame budget stays %.2f ms", v, fps_cfg.budget_ns / 1e6);
}

static int fps_init(void)
{
	fps_refresh_env();
	bind_add(&fps_bind);
	return fps_hot_init();
}

/* The reporter's entry of a ring, made on first sight. */
static struct fps_rep *fps_rep_of(struct fps_thread *t, struct fps_hot_stream *h)
{
	struct fps_rep *r;

	for (size_t i = 0; i < fps_nreps; i++)
		if (fps_reps[i]->hot == h)
			return fps_reps[i];
	if (fps_nreps == fps_capreps) {
		fps_capreps = fps_capreps ? 2 * fps_capreps : 8;
		fps_reps = xrealloc(fps_reps, fps_capreps * sizeof *fps_reps);
	}
	r = xcalloc(1, sizeof *r);
	r->thr = t;
	r->hot = h;
	r->id = fps_next_id++;
	r->tid = t->tid;
	r->api = h->api < FPS_API_COUNT ? h->api : FPS_API_APP;
	if (r->api == FPS_API_APP)
		snprintf(r->name, sizeof r->name, "%s", h->name[0] ? h->name : "default");
	else
		snprintf(r->name, sizeof r->name, "%#lx", (unsigned long)(uintptr_t)h->key);
	fps_reps[fps_nreps++] = r;
	return r;
}

/* Feed the frames written since the last drain into the statistics.  The
 * writer may overwrite the oldest slots while we copy: the count read after
 * the copy tells which copies are still good; the rest are counted as lost. */
static void fps_drain(struct fps_rep *r)
{
	static uint64_t buf[FPS_RING];
	uint64_t c = __atomic_load_n(&r->hot->count, __ATOMIC_ACQUIRE), lo, c2, good;

	if (c < r->consumed)              /* rings restart in a fork child */
		r->consumed = 0;
	lo = c - r->consumed > FPS_RING ? c - FPS_RING : r->consumed;
	/* Acquire loads (free on x86-64): the count read after them is not
	 * read before them (a fence would do, but TSan does not model it). */
	for (uint64_t i = lo; i < c; i++)
		buf[i - lo] = __atomic_load_n(&r->hot->stamp[i % FPS_RING], __ATOMIC_ACQUIRE);
	c2 = __atomic_load_n(&r->hot->count, __ATOMIC_ACQUIRE);
	good = c2 >= FPS_RING ? c2 - FPS_RING + 1 : 0;
	if (good < lo)
		good = lo;
	if (good > c)
		good = c;
	if (good > r->consumed)
		fps_stats_lost(&r->st, good - r->consumed, good < c ? buf[good - lo] : proto_now_ns());
	for (uint64_t i = good; i < c; i++)
		fps_stats_frame(&r->st, &fps_cfg, buf[i - lo]);
	r->consumed = c;
}

/* Harvest every thread's rings; release the blocks of threads that ended. */
static void fps_harvest(void)
{
	struct fps_thread *prev = NULL, *t = __atomic_load_n(&fps_head, __ATOMIC_ACQUIRE);

	while (t != NULL) {
		struct fps_thread *next = t->next;
		uint32_t dead = __atomic_load_n(&t->dead, __ATOMIC_ACQUIRE);
		uint32_t n = __atomic_load_n(&t->nstreams, __ATOMIC_ACQUIRE);

		for (uint32_t i = 0; i < n; i++)
			fps_drain(fps_rep_of(t, t->streams[i]));
		if (!dead) {
			prev = t;
			t = next;
			continue;
		}
		for (size_t i = 0; i < fps_nreps; i++)
			if (fps_reps[i]->thr == t)
				fps_reps[i]->thr = NULL, fps_reps[i]->hot = NULL;
		fps_hot_release(t, prev);
		t = next;
	}
}

/* Newest activity first, so the cap keeps the streams that matter. */
static int fps_rep_cmp(const void *a, const void *b)
{
	const struct fps_rep *x = *(struct fps_rep *const *)a, *y = *(struct fps_rep *const *)b;

	if (x->st.bin_last != y->st.bin_last)
		return x->st.bin_last > y->st.bin_last ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The window's frames presented after the last ones sent, oldest first
 * (the newest PROTO_FPS_RECENT of them): the daemon's trace ring. */
static size_t fps_recent(struct fps_rep *r, uint64_t *end, uint64_t *ns)
{
	const struct fps_stats *s = &r->st;
	size_t k = 0;

	while (k < s->win_n && k < PROTO_FPS_RECENT &&
	    s->win_at[(s->win_head + FPS_WIN - 1 - k) % FPS_WIN] > r->sent_end)
		k++;
	for (size_t m = 0; m < k; m++) {
		size_t i = (s->win_head + FPS_WIN - k + m) % FPS_WIN;

		end[m] = s->win_at[i];
		ns[m] = s->win_ns[i];
	}
	if (k > 0)
		r->sent_end = end[k - 1];
	return k;
}

/* One "fps" record with the streams that changed or are still in the
 * last minute's history; all of them after a (re)connect or a change of
 * thresholds. */
static void fps_encode(msgpack_sbuffer *sb, bool resend_all)
{
	static uint32_t bins[PROTO_MAX_STREAMS][PROTO_FPS_BINS];
	static uint64_t rend[PROTO_MAX_STREAMS][PROTO_FPS_RECENT];
	static uint64_t rns[PROTO_MAX_STREAMS][PROTO_FPS_RECENT];
	struct proto_fps_stream v[PROTO_MAX_STREAMS];
	uint64_t now = proto_now_ns();
	bool all = resend_all || fps_cfg_changed;
	size_t n = 0;

	if (fps_nreps == 0)
		return;
	qsort(fps_reps, fps_nreps, sizeof *fps_reps, fps_rep_cmp);
	for (size_t i = 0; i < fps_nreps && n < PROTO_MAX_STREAMS; i++) {
		struct fps_rep *r = fps_reps[i];
		bool recent = r->st.bin_last * PROTO_FPS_BIN_NS + FPS_KEEP_NS > now;

		if (!all && !recent && r->st.frames == r->sent_frames)
			continue;
		memset(&v[n], 0, sizeof v[n]);
		fps_stats_export(&r->st, now, &v[n], bins[n]);
		v[n].id = r->id;
		v[n].tid = r->tid;
		v[n].api = (char *)fps_api_names[r->api];
		v[n].name = r->name;
		v[n].nrecent = fps_recent(r, rend[n], rns[n]);
		v[n].recent_end_ns = rend[n];
		v[n].recent_ns = rns[n];
		r->sent_frames = r->st.frames;
		n++;
	}
	fps_cfg_changed = false;
	if (n == 0)
		return;
	proto_agent_encode(sb, &(struct proto_agent_rec){
	    .type = PROTO_AG_FPS, .time_ns = now,
	    .fps = { .budget_ns = fps_cfg.budget_ns, .high_ns = fps_cfg.high_ns,
	    .frozen_ns = fps_cfg.frozen_ns, .nstreams = n, .streams = v } });
}

/* "frame" (budget), "frame_high", "frame_frozen", in ns. */
static int fps_set_threshold(const char *name, int64_t value)
{
	uint64_t *dst;

	if (strcmp(name, "frame") == 0)
		dst = &fps_cfg.budget_ns;
	else if (strcmp(name, "frame_high") == 0)
		dst = &fps_cfg.high_ns;
	else if (strcmp(name, "frame_frozen") == 0)
		dst = &fps_cfg.frozen_ns;
	else
		return 1;
	if (value < 100000 || value > 3600000000000ll)      /* 0.1 ms .. 1 h */
		return -1;
	*dst = (uint64_t)value;
	fps_cfg_changed = true;
	return 0;
}

/* Zero every stream's figures and history (the daemon's reset). */
static void fps_reset(void)
{
	for (size_t i = 0; i < fps_nreps; i++) {
		fps_stats_reset(&fps_reps[i]->st);
		fps_reps[i]->sent_frames = UINT64_MAX;      /* send the zeros */
	}
}

/* Forget every stream (fork child, agent exit). */
static void fps_forget(void)
{
	for (size_t i = 0; i < fps_nreps; i++)
		free(fps_reps[i]);
	free(fps_reps);
	fps_reps = NULL;
	fps_nreps = fps_capreps = 0;
}

/* Fork child: a new session; only this thread's rings survive, empty. */
static void fps_atfork_child(void)
{
	fps_forget();
	fps_next_id = 1;
	fps_hot_atfork_child();
}

const struct collector_ops fps_collector = {
	.name          = "fps",
	.init          = fps_init,
	.set_threshold = fps_set_threshold,
	.reset         = fps_reset,
	.harvest       = fps_harvest,
	.encode        = fps_encode,
	.atfork_child  = fps_atfork_child,
	.fini          = fps_forget,
};
