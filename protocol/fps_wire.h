/*
 * fps_wire.h - the frame-rate part of the wire: a target's frame streams, their
 * histograms, percentiles and worst frames ("fps").
 * Its row in the parts table (parts.h) is defined in fps.c.
 */
#ifndef HOOKSCOPE_PROTOCOL_FPS_WIRE_H
#define HOOKSCOPE_PROTOCOL_FPS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_FPS_BIN_NS    100000000ull  /* one history bin: 100 ms */
#define PROTO_FPS_BINS      600           /* bins sent: the last 60 s */
#define PROTO_FPS_WORST     5             /* worst frames kept per stream */
#define PROTO_MAX_STREAMS   16            /* frame streams in one message */
#define PROTO_FPS_RECENT    512           /* recent frames of a stream in one record */

/* Histogram levels of frame times (doc/protocol.md): normal <= budget <
 * middle <= high_ns < high <= frozen_ns < frozen. */
enum proto_fps_level {
	PROTO_FPS_NORMAL, PROTO_FPS_MIDDLE, PROTO_FPS_HIGH, PROTO_FPS_FROZEN,
	PROTO_FPS_LEVELS
};

/* One of the longest frames: its time and when it was presented. */
struct proto_fps_worst {
	uint64_t ns;                      /* frame time */
	uint64_t at_ns;                   /* presentation, agent monotonic clock */
	uint64_t time_ms;                 /* the same as wall clock (frames only) */
};

/* The frames one thread presents on one surface (or one hookscope_frame name). */
struct proto_fps_stream {
	uint32_t id;                      /* agent-assigned, stable for the process */
	int32_t  tid;                     /* presenting thread */
	char    *api;                     /* "glx", "egl", "vulkan", "sdl", "app" */
	char    *name;                    /* surface handle (hex) or the app's name */
	uint64_t frames;                  /* presentations since start or reset */
	uint64_t jank;                    /* frame times over the budget */
	uint64_t dropped;                 /* estimate: sum of floor((t - budget) / budget) */
	uint64_t lost;                    /* frames counted whose time is unknown */
	uint64_t levels[PROTO_FPS_LEVELS];
	double   fps;                     /* frames in the last complete second */
	uint64_t p50_ns, p90_ns, p99_ns, max_ns;  /* over the sliding window */
	uint64_t window;                  /* frame times in that window */
	size_t   nworst;
	struct proto_fps_worst worst[PROTO_FPS_WORST];  /* longest first */
	uint64_t bins_end_ns;             /* end of the newest bin (agent clock) */
	size_t   nbins;                   /* frames per 100 ms bin, oldest first */
	uint32_t *bins;
	/* agent -> daemon only: frames presented since the last record, oldest
	 * first, at most PROTO_FPS_RECENT (the daemon keeps a ring of them for
	 * the trace report; frames to clients never carry them) */
	size_t   nrecent;
	uint64_t *recent_end_ns;          /* presentation, agent monotonic clock */
	uint64_t *recent_ns;              /* frame time */
};

/* Frame-rate state of a target: thresholds in force and its streams. */
struct proto_fps {
	uint64_t budget_ns;               /* frame budget: longer frames are jank */
	uint64_t high_ns;                 /* middle/high level boundary */
	uint64_t frozen_ns;               /* high/frozen level boundary */
	size_t   nstreams;
	struct proto_fps_stream *streams;
};

/* Deep copy of src into dst (dst's old contents are not freed). */
void proto_fps_copy(struct proto_fps *dst, const struct proto_fps *src);
void proto_fps_free(struct proto_fps *f);

/* The field tables (fps.c). */
struct proto_struct;
extern const struct proto_struct proto_fps_desc, proto_fps_stream_desc, proto_fps_worst_desc;

#endif
