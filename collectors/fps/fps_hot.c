/*
 * fps_hot.c - the per-thread frame rings, the only fps code that runs on
 * every presented frame.
 *
 * A thread's first frame mmaps its struct fps_thread and pushes it once on
 * a lock-free list (one CAS); a surface first seen on a thread mmaps its
 * ring.  After that a frame is: find the surface among the thread's few
 * (pointer compare), read the monotonic clock (vDSO), store the stamp, then
 * the count (release).  The reporter reads count (acquire), copies stamps and
 * re-reads count to find which copies the writer may have overwritten.
 * A thread's exit (key destructor) marks its block dead; the reporter
 * harvests it once more and unmaps it.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fps_int.h"
#include "startup.h"

struct fps_thread *fps_head;

/* The thread's block is its key's value (no __thread: the agent's static
 * TLS stays one pointer for attach; a frame can afford the lookup). */
static pthread_key_t fps_key;
static bool fps_key_ok;

/* Thread exit: the reporter may now take the block off the list. */
static void fps_thread_exit(void *arg)
{
	struct fps_thread *t = arg;

	__atomic_store_n(&t->dead, 1, __ATOMIC_RELEASE);
}

/* See fps.h. */
int fps_hot_init(void)
{
	if (!fps_key_ok && pthread_key_create(&fps_key, fps_thread_exit) != 0)
		return -1;
	fps_key_ok = true;
	return 0;
}

/* mmap zeroed memory; NULL on failure. */
static void *fps_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The calling thread's block, or NULL. */
static struct fps_thread *fps_current(void)
{
	return fps_key_ok ? pthread_getspecific(fps_key) : NULL;
}

/* The calling thread's block, made and listed on its first frame. */
static struct fps_thread *fps_self(void)
{
	struct fps_thread *t = fps_current();

	if (t != NULL || !fps_key_ok)
		return t;
	if ((t = fps_map(sizeof *t)) == NULL)
		return NULL;
	t->tid = (int32_t)gettid();
	pthread_setspecific(fps_key, t);
	t->next = __atomic_load_n(&fps_head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&fps_head, &t->next, t, false,
	    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	return t;
}

/* The thread's ring of (api, key, name); a new one if there is room. */
static struct fps_hot_stream *fps_stream(struct fps_thread *t, int api, const void *key,
    const char *name)
{
	struct fps_hot_stream *s;
	uint32_t n = t->nstreams;

	for (uint32_t i = 0; i < n; i++) {
		s = t->streams[i];
		if (s->api != (uint32_t)api)
			continue;
		/* Apps name their streams: the text counts, not the pointer. */
		if (api == FPS_API_APP ? strncmp(s->name, name ? name : "",
		    FPS_NAME_MAX - 1) == 0 : s->key == key)
			return s;
	}
	if (n == FPS_THREAD_STREAMS || (s = fps_map(sizeof *s)) == NULL)
		return NULL;
	s->key = key;
	s->api = (uint32_t)api;
	if (name != NULL)
		strncpy(s->name, name, FPS_NAME_MAX - 1);
	t->streams[n] = s;
	__atomic_store_n(&t->nstreams, n + 1, __ATOMIC_RELEASE);
	return s;
}

/* See fps.h. */
void fps_hot_record(int api, const void *key, const char *name)
{
	struct fps_thread *t = fps_self();
	struct fps_hot_stream *s;
	struct timespec ts;
	uint64_t c;

	if (t == NULL)
		return;
	if ((s = fps_stream(t, api, key, name)) == NULL)
		return;                   /* a ninth surface: not counted (documented) */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	c = s->count;
	__atomic_store_n(&s->stamp[c % FPS_RING],
	    (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, __ATOMIC_RELAXED);
	__atomic_store_n(&s->count, c + 1, __ATOMIC_RELEASE);
	startup_on_frame();
}

/* See fps.h. */
bool fps_hot_enter(void)
{
	struct fps_thread *t = fps_self();

	return t == NULL || t->depth++ == 0;
}

/* See fps.h. */
void fps_hot_leave(void)
{
	struct fps_thread *t = fps_current();

	if (t != NULL)
		t->depth--;
}

/* See fps.h (reporter thread; prev is t's predecessor or NULL). */
void fps_hot_release(struct fps_thread *t, struct fps_thread *prev)
{
	struct fps_thread *head = t;

	/* Pushers only swing the head: interior links are ours alone. */
	if (prev == NULL && !__atomic_compare_exchange_n(&fps_head, &head, t->next, false,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		for (prev = head; prev->next != t; prev = prev->next)
			;
	}
	if (prev != NULL)
		prev->next = t->next;
	for (uint32_t i = 0; i < t->nstreams; i++)
		munmap(t->streams[i], sizeof *t->streams[i]);
	munmap(t, sizeof *t);
}

/* See fps.h: other threads' blocks are gone with their threads (not
 * unmapped: harmless); ours starts over. */
void fps_hot_atfork_child(void)
{
	struct fps_thread *t = fps_current();

	fps_head = t;
	if (t == NULL)
		return;
	t->next = NULL;
	t->tid = (int32_t)gettid();
	for (uint32_t i = 0; i < t->nstreams; i++)
		t->streams[i]->count = 0;
}
