/*
 * fps.h - the frame-rate collector (internal): frame presentation hooks and
 * hookscope_frame() (fps_hooks.c), the per-thread frame rings they write
 * (fps_hot.c), the frame-time statistics (fps_stats.c) and the collector
 * that harvests the rings into them and reports (fps.c).
 *
 * Hot path (every presented frame): one clock read and two stores into the
 * calling thread's ring of the surface; no locks, no shared atomics, no
 * syscalls (but one mmap on a thread's first frame of a new surface).  The
 * reporter thread turns the timestamps into frame times, counts, levels,
 * percentiles and per-100-ms bins (doc/architecture.md, fps).
 */
#ifndef HOOKSCOPE_FPS_H
#define HOOKSCOPE_FPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

#define FPS_RING            2048          /* timestamps per stream ring (power of 2) */
#define FPS_THREAD_STREAMS  8             /* surfaces per thread */
#define FPS_NAME_MAX        32            /* hookscope_frame_named name, with NUL */
#define FPS_WIN             4096          /* frame times in the percentile window, at most */
#define FPS_WIN_NS          5000000000ull /* ... and at most this old */
#define FPS_RING_BINS       640           /* bins kept by the reporter (64 s) */
#define FPS_BUDGET_NS       16666667ull   /* default budget: 1000/60 ms */
#define FPS_HIGH_NS         50000000ull   /* default middle/high boundary */
#define FPS_FROZEN_NS       700000000ull  /* default high/frozen boundary */

/* Which call presented the frame. */
enum fps_api { FPS_API_APP, FPS_API_GLX, FPS_API_EGL, FPS_API_VULKAN, FPS_API_SDL,
	FPS_API_COUNT };

/* ---- fps_hot.c: per-thread rings (written by the presenting thread) ---- */

/* The frames one thread presented on one surface. */
struct fps_hot_stream {
	const void *key;                  /* surface handle, or the name pointer */
	uint32_t    api;                  /* enum fps_api */
	char        name[FPS_NAME_MAX];   /* hookscope_frame_named's name */
	uint64_t    count;                /* frames written (release store) */
	uint64_t    stamp[FPS_RING];      /* monotonic ns of frame count % FPS_RING */
};

/* One presenting thread: mmap'd on its first frame, pushed once on a list. */
struct fps_thread {
	struct fps_thread *next;          /* list; interior links: reporter only */
	int32_t     tid;
	uint32_t    dead;                 /* release store at thread exit */
	uint32_t    nstreams;             /* release store after a stream is set up */
	uint32_t    depth;                /* nested wrappers (owner only) */
	struct fps_hot_stream *streams[FPS_THREAD_STREAMS];
};

extern struct fps_thread *fps_head;

int  fps_hot_init(void);                  /* the thread-exit key */
/* Count one frame of the calling thread on (api, key); name for FPS_API_APP. */
void fps_hot_record(int api, const void *key, const char *name);
/* Wrappers nest (SDL_GL_SwapWindow calls glXSwapBuffers): only the outer
 * one counts.  enter returns true for the outer call. */
bool fps_hot_enter(void);
void fps_hot_leave(void);
/* Take a thread off the list and unmap it (reporter, thread dead). */
void fps_hot_release(struct fps_thread *t, struct fps_thread *prev);
/* Fork child: only the calling thread survives, with empty rings. */
void fps_hot_atfork_child(void);

/* ---- fps_stats.c: frame-time statistics (reporter side, pure) ---- */

struct fps_cfg {
	uint64_t budget_ns, high_ns, frozen_ns;
};

struct fps_stats {
	uint64_t frames, jank, dropped, lost;
	uint64_t levels[PROTO_FPS_LEVELS];
	uint64_t last_ns;                 /* previous frame; 0 = none (start, gap) */
	size_t   nworst;
	struct proto_fps_worst worst[PROTO_FPS_WORST];   /* longest first */
	uint64_t win_at[FPS_WIN], win_ns[FPS_WIN];       /* ring: when, how long */
	size_t   win_head, win_n;
	uint32_t bins[FPS_RING_BINS];     /* frames per bin, by absolute bin % ring */
	uint64_t bin_last;                /* newest bin touched (absolute index) */
};

/* Dropped-frame estimate of one frame time: frames over budget, rounded down. */
uint64_t fps_dropped(uint64_t ns, uint64_t budget_ns);
/* Histogram level (enum proto_fps_level) of one frame time. */
int  fps_level(const struct fps_cfg *c, uint64_t ns);
/* Nearest-rank percentile p (0-100] of n sorted values. */
uint64_t fps_percentile(const uint64_t *sorted, size_t n, unsigned p);
void fps_stats_frame(struct fps_stats *s, const struct fps_cfg *c, uint64_t t_ns);
/* n frames whose times were lost; the next frame starts a new interval. */
void fps_stats_lost(struct fps_stats *s, uint64_t n, uint64_t t_ns);
void fps_stats_reset(struct fps_stats *s);
/* Fill the stream's figures as of now: percentiles over the window, fps of
 * the last complete second, the last PROTO_FPS_BINS complete bins into bins
 * (room for PROTO_FPS_BINS). */
void fps_stats_export(const struct fps_stats *s, uint64_t now_ns,
    struct proto_fps_stream *out, uint32_t *bins);

/* fps_hooks.c: the wrappers, for the binder (bind.h). */
struct bind_table;
extern const struct bind_table fps_bind;

#endif
