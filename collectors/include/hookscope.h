/*
 * hookscope.h - optional annotations for programs monitored by hookscope.
 *
 * A program never has to include this file or link against anything to be
 * monitored: building it with -finstrument-functions and starting it with
 * libhookscope.so preloaded (`hookscoped run -- PROG`) is enough.  This header
 * only helps a program that wants to
 *   - keep some functions out of the timing (helpers, idle loops, signal
 *     handlers): mark them HOOKSCOPE_NO_INSTRUMENT;
 *   - know whether the agent is there, or force a report now;
 *   - count its frames when it draws through something the agent does not
 *     hook (glXSwapBuffers, eglSwapBuffers, vkQueuePresentKHR and
 *     SDL_GL_SwapWindow are counted without any call): hookscope_frame().
 *
 * The functions are declared weak, so a program that includes this header
 * links and runs without the agent: the symbol is then NULL.  Always test it
 * before calling, or use the hookscope_is_active() / hookscope_request_flush()
 * wrappers below, which do that for you:
 *
 *     if (hookscope_active && hookscope_active())
 *             puts("monitored");
 *
 * Limits (honest ones):
 *   - The weak reference is bound when the program starts.  It sees an agent
 *     loaded with LD_PRELOAD; it does not see one injected later with
 *     `hookscoped attach` (look the symbol up with dlsym(RTLD_DEFAULT, ...)
 *     then).
 *   - It needs a position-independent executable (the default with Debian's
 *     gcc and clang) or a shared library.  A non-PIE executable (-no-pie) gets
 *     the weak symbol resolved to NULL at link time; use dlsym there too.
 */
#ifndef HOOKSCOPE_H
#define HOOKSCOPE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Exclude a function from -finstrument-functions (it will not be timed). */
#define HOOKSCOPE_NO_INSTRUMENT __attribute__((no_instrument_function))

#ifdef HOOKSCOPE_BUILDING_AGENT
#define HOOKSCOPE_API __attribute__((visibility("default")))
#else
#define HOOKSCOPE_API __attribute__((weak))
#endif

/* 1 when the agent is loaded and running in this process, else 0. */
HOOKSCOPE_API int hookscope_active(void);

/* Harvest and send a report now instead of at the next interval; returns
 * after the report was sent or after about one second, whichever comes
 * first.  Does nothing useful when no daemon listens (nothing is lost either:
 * figures are cumulative and are sent when a daemon appears). */
HOOKSCOPE_API void hookscope_flush(void);

/* One frame presented now by the calling thread (its default stream).  Call
 * it once per frame, right after the frame is shown; frame times are the
 * intervals between calls of the same thread.  Cheap (a clock read and two
 * stores), safe from any thread. */
HOOKSCOPE_API void hookscope_frame(void);

/* The same for a named stream of the calling thread (one per window or
 * surface); up to 31 bytes of the name count, at most 8 streams per thread. */
HOOKSCOPE_API void hookscope_frame_named(const char *name);

/* Message boundaries of the UI thread's loop, for a loop that does not wait
 * in poll, ppoll, epoll_wait, epoll_pwait(2), select or pselect (those are
 * seen without any call): begin when a message (event, callback) starts,
 * end when it is done.  A message longer than the block threshold is
 * reported with the stacks where the time went.  Only the UI thread's calls
 * count (the main thread unless `--ui-thread` says otherwise); cheap (a
 * clock read and two stores). */
HOOKSCOPE_API void hookscope_loop_begin(void);
HOOKSCOPE_API void hookscope_loop_end(void);

#ifndef HOOKSCOPE_BUILDING_AGENT
/* hookscope_loop_begin() / _end() if the agent is loaded, else nothing. */
static inline HOOKSCOPE_NO_INSTRUMENT void hookscope_note_loop_begin(void)
{
	if (hookscope_loop_begin)
		hookscope_loop_begin();
}

static inline HOOKSCOPE_NO_INSTRUMENT void hookscope_note_loop_end(void)
{
	if (hookscope_loop_end)
		hookscope_loop_end();
}

/* hookscope_frame() if the agent is loaded, else nothing. */
static inline HOOKSCOPE_NO_INSTRUMENT void hookscope_note_frame(void)
{
	if (hookscope_frame)
		hookscope_frame();
}

/* hookscope_frame_named() if the agent is loaded, else nothing. */
static inline HOOKSCOPE_NO_INSTRUMENT void hookscope_note_frame_named(const char *name)
{
	if (hookscope_frame_named)
		hookscope_frame_named(name);
}

/* hookscope_active() if the agent is loaded, else 0. */
static inline HOOKSCOPE_NO_INSTRUMENT int hookscope_is_active(void)
{
	return hookscope_active ? hookscope_active() : 0;
}

/* hookscope_flush() if the agent is loaded, else nothing. */
static inline HOOKSCOPE_NO_INSTRUMENT void hookscope_request_flush(void)
{
	if (hookscope_flush)
		hookscope_flush();
}
#endif

#ifdef __cplusplus
}
#endif

#endif
