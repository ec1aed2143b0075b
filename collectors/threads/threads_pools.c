/*
 * threads_pools.c - thread pools the target uses through a library: GLib's
 * GThreadPool and libuv's threadpool (uv_queue_work), interposed through
 * threads/exports and calling the library's own functions found with
 * dlsym(RTLD_NEXT).  A program without these libraries never calls them.
 *
 * Per pool: size, tasks pushed and finished, queue wait (push to start) and
 * run time, sums and maxima (shared atomics: the libraries take a mutex per
 * task themselves).  GLib: the pool is created with our task function and
 * our pool as its user data, and every pushed item is wrapped with its push
 * time (the sort function is wrapped to compare the user's items).  libuv:
 * uv_work_t belongs to the caller, so the user's callbacks and the push time
 * wait in a small table keyed by the request, under a mutex.
 * Limitation: g_thread_pool_move_to_front() on a pool created under the
 * agent does not find the user's item (it returns FALSE).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "protocol.h"
#include "threads_int.h"

#define API __attribute__((visibility("default")))   /* listed in threads/exports */

#define THR_UV_BUCKETS 256
#define THR_UV_ENOSYS  (-38)

struct thr_pool *thr_pools[THR_MAX_POOLS];
uint32_t thr_npools;

/* GLib's public types, declared here so the agent does not need GLib. */
typedef int   gboolean;
typedef void *gpointer;
typedef void (*GFunc)(gpointer, gpointer);
typedef int  (*GCompareDataFunc)(const void *, const void *, gpointer);
typedef void (*GDestroyNotify)(gpointer);
struct thr_gpool_pub {                /* the public part of GThreadPool */
	GFunc    func;
	gpointer user_data;
	gboolean exclusive;
};
struct thr_gtask {                    /* an item as the pool holds it */
	gpointer data;
	uint64_t push_ns;
	struct thr_pool *pool;
};

/* libuv's types, opaque to us. */
typedef struct uv_loop_s uv_loop_t;
typedef struct uv_work_s uv_work_t;
typedef void (*uv_work_cb)(uv_work_t *);
typedef void (*uv_after_work_cb)(uv_work_t *, int);
struct thr_uv_req {
	uv_work_t         *req;
	uv_work_cb         work;
	uv_after_work_cb   after;
	uint64_t           push_ns;
	struct thr_uv_req *next;
};
static pthread_mutex_t thr_uv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thr_uv_req *thr_uv_tab[THR_UV_BUCKETS];
static struct thr_pool *thr_uv_pool;

/* The next definition of sym after ours, looked up once per call site. */
#define thr_next_sym(sym) ({ static void *slot_; AGENT_REAL(slot_, (sym), false); })

/* A new pool entry, published; NULL past THR_MAX_POOLS (not tracked). */
static struct thr_pool *thr_pool_add(const char *kind, int64_t size)
{
	uint32_t i = __atomic_fetch_add(&thr_npools, 1, __ATOMIC_RELAXED);
	struct thr_pool *p;

	if (i >= THR_MAX_POOLS) {
		__atomic_store_n(&thr_npools, THR_MAX_POOLS, __ATOMIC_RELAXED);
		return NULL;
	}
	p = xcalloc(1, sizeof *p);
	p->id = i + 1;
	p->kind = kind;
	p->size = size;
	__atomic_store_n(&thr_pools[i], p, __ATOMIC_RELEASE);
	return p;
}

/* Raise *max to v. */
static void thr_max(uint64_t *max, uint64_t v)
{
	uint64_t old = __atomic_load_n(max, __ATOMIC_RELAXED);

	while (v > old && !__atomic_compare_exchange_n(max, &old, v, true, __ATOMIC_RELAXED,
	    __ATOMIC_RELAXED))
		;
}

/* A task of p starts on this thread: the worker belongs to p. */
static uint64_t thr_task_start(struct thr_pool *p)
{
	struct thr_rec *me = threads_self();

	if (me != NULL)
		__atomic_store_n(&me->pool, p->id, __ATOMIC_RELAXED);
	return proto_now_ns();
}

/* A task of p finished: it waited from push_ns to start, ran until now. */
static void thr_task_done(struct thr_pool *p, uint64_t push_ns, uint64_t start)
{
	uint64_t end = proto_now_ns(), wait = start > push_ns ? start - push_ns : 0;

	__atomic_add_fetch(&p->wait_ns, wait, __ATOMIC_RELAXED);
	__atomic_add_fetch(&p->run_ns, end - start, __ATOMIC_RELAXED);
	thr_max(&p->wait_max_ns, wait);
	thr_max(&p->run_max_ns, end - start);
	__atomic_add_fetch(&p->done, 1, __ATOMIC_RELEASE);
}

/* ---- GLib ---- */

/* The task function of every pool created under the agent. */
static void thr_gpool_run(gpointer item, gpointer pool)
{
	struct thr_gtask *t = item;
	struct thr_pool *p = pool;
	uint64_t start = thr_task_start(p);

	((GFunc)p->real_func)(t->data, p->real_data);
	thr_task_done(p, t->push_ns, start);
	free(t);
}

/* Items left in a pool freed at once: the user's free function, then ours. */
static void thr_gpool_item_free(gpointer item)
{
	struct thr_gtask *t = item;
	GDestroyNotify user = (GDestroyNotify)t->pool->real_free;

	if (user != NULL)
		user(t->data);
	free(t);
}

/* Our pool behind a GThreadPool, or NULL when it was not created by us. */
static struct thr_pool *thr_gpool_of(void *pool)
{
	struct thr_gpool_pub *g = pool;

	return g != NULL && g->func == thr_gpool_run ? g->user_data : NULL;
}

/* Create a pool through g_thread_pool_new_full (GLib >= 2.70, so the
 * leftover items are freed) or g_thread_pool_new. */
static void *thr_gpool_create(GFunc func, gpointer data, GDestroyNotify item_free, int max,
    gboolean exclusive, void **error)
{
	void *(*full)(GFunc, gpointer, GDestroyNotify, int, gboolean, void **) =
	    thr_next_sym("g_thread_pool_new_full");
	void *(*plain)(GFunc, gpointer, int, gboolean, void **) = thr_next_sym("g_thread_pool_new");
	struct thr_pool *p;
	void *h;

	if (full == NULL && plain == NULL)
		return NULL;
	p = thr_pool_add("gthreadpool", max);
	if (p == NULL)
		return full ? full(func, data, item_free, max, exclusive, error) :
		    plain(func, data, max, exclusive, error);
	__atomic_store_n(&p->func, (uintptr_t)func, __ATOMIC_RELEASE);
	p->real_func = (void *)func;
	p->real_data = data;
	p->real_free = (void *)item_free;
	h = full ? full(thr_gpool_run, p, thr_gpool_item_free, max, exclusive, error) :
	    plain(thr_gpool_run, p, max, exclusive, error);
	if (h == NULL)
		__atomic_store_n(&p->freed, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&p->handle, h, __ATOMIC_RELEASE);
	return h;
}

API void *g_thread_pool_new(GFunc func, gpointer data, int max, gboolean exclusive, void **error)
{
	return thr_gpool_create(func, data, NULL, max, exclusive, error);
}

API void *g_thread_pool_new_full(GFunc func, gpointer data, GDestroyNotify item_free, int max,
    gboolean exclusive, void **error)
{
	return thr_gpool_create(func, data, item_free, max, exclusive, error);
}

API gboolean g_thread_pool_push(void *pool, gpointer data, void **error)
{
	gboolean (*real)(void *, gpointer, void **) = thr_next_sym("g_thread_pool_push");
	struct thr_pool *p = thr_gpool_of(pool);
	struct thr_gtask *t;
	gboolean ok;

	if (real == NULL)
		return 0;
	if (p == NULL)
		return real(pool, data, error);
	t = xmalloc(sizeof *t);
	t->data = data;
	t->push_ns = proto_now_ns();
	t->pool = p;
	__atomic_add_fetch(&p->pushed, 1, __ATOMIC_RELAXED);
	ok = real(pool, t, error);
	if (!ok) {
		__atomic_sub_fetch(&p->pushed, 1, __ATOMIC_RELAXED);
		free(t);
	}
	return ok;
}

/* The user's sort function, on the user's items. */
static int thr_gpool_cmp(const void *a, const void *b, gpointer pool)
{
	struct thr_pool *p = pool;
	GCompareDataFunc cmp = __atomic_load_n((GCompareDataFunc *)&p->real_cmp, __ATOMIC_ACQUIRE);

	return cmp(((const struct thr_gtask *)a)->data, ((const struct thr_gtask *)b)->data,
	    __atomic_load_n(&p->real_cmp_data, __ATOMIC_RELAXED));
}

API void g_thread_pool_set_sort_function(void *pool, GCompareDataFunc func, gpointer data)
{
	void (*real)(void *, GCompareDataFunc, gpointer) =
	    thr_next_sym("g_thread_pool_set_sort_function");
	struct thr_pool *p = thr_gpool_of(pool);

	if (real == NULL)
		return;
	if (p == NULL || func == NULL) {
		real(pool, func, p != NULL ? (gpointer)p : data);
		return;
	}
	__atomic_store_n(&p->real_cmp_data, data, __ATOMIC_RELAXED);
	__atomic_store_n(&p->real_cmp, (void *)func, __ATOMIC_RELEASE);
	real(pool, thr_gpool_cmp, p);
}

API gboolean g_thread_pool_set_max_threads(void *pool, int max, void **error)
{
	gboolean (*real)(void *, int, void **) = thr_next_sym("g_thread_pool_set_max_threads");
	struct thr_pool *p = thr_gpool_of(pool);

	if (real == NULL)
		return 0;
	if (p != NULL)
		__atomic_store_n(&p->size, max, __ATOMIC_RELAXED);
	return real(pool, max, error);
}

API void g_thread_pool_free(void *pool, gboolean immediate, gboolean wait)
{
	void (*real)(void *, gboolean, gboolean) = thr_next_sym("g_thread_pool_free");
	struct thr_pool *p = thr_gpool_of(pool);

	if (p != NULL)
		__atomic_store_n(&p->freed, 1, __ATOMIC_RELAXED);
	if (real != NULL)
		real(pool, immediate, wait);
}

/* ---- libuv ---- */

/* The bucket of a request. */
static struct thr_uv_req **thr_uv_bucket(const uv_work_t *req)
{
	return &thr_uv_tab[((uintptr_t)req >> 4) % THR_UV_BUCKETS];
}

/* Take the entry of req out of the table (NULL if none). */
static struct thr_uv_req *thr_uv_take(const uv_work_t *req)
{
	struct thr_uv_req **pp, *e = NULL;

	pthread_mutex_lock(&thr_uv_lock);
	for (pp = thr_uv_bucket(req); *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->req == req) {
			e = *pp;
			*pp = e->next;
			break;
		}
	pthread_mutex_unlock(&thr_uv_lock);
	return e;
}

/* The entry of req, left in the table (freed only by thr_uv_after, which
 * libuv calls after the work callback returned). */
static struct thr_uv_req *thr_uv_find(const uv_work_t *req)
{
	struct thr_uv_req *e;

	pthread_mutex_lock(&thr_uv_lock);
	for (e = *thr_uv_bucket(req); e != NULL && e->req != req; e = e->next)
		;
	pthread_mutex_unlock(&thr_uv_lock);
	return e;
}

/* The work callback every queued request runs through. */
static void thr_uv_work(uv_work_t *req)
{
	struct thr_uv_req *e = thr_uv_find(req);
	uint64_t start;

	if (e == NULL)
		return;
	start = thr_task_start(thr_uv_pool);
	e->work(req);
	thr_task_done(thr_uv_pool, e->push_ns, start);
}

/* The after-work callback (loop thread): the user's, if any. */
static void thr_uv_after(uv_work_t *req, int status)
{
	struct thr_uv_req *e = thr_uv_take(req);

	if (e != NULL && e->after != NULL)
		e->after(req, status);
	free(e);
}

/* libuv's one process-wide pool, made on first use: its size is
 * UV_THREADPOOL_SIZE (1-1024) or 4. */
static struct thr_pool *thr_uv_pool_get(void)
{
	struct thr_pool *p = __atomic_load_n(&thr_uv_pool, __ATOMIC_ACQUIRE);
	const char *env;
	long size = 4;

	if (p != NULL)
		return p;
	pthread_mutex_lock(&thr_uv_lock);
	if (thr_uv_pool == NULL) {
		env = getenv("UV_THREADPOOL_SIZE");
		if (env != NULL && *env)
			size = strtol(env, NULL, 10);
		size = size < 1 ? 1 : size > 1024 ? 1024 : size;
		__atomic_store_n(&thr_uv_pool, thr_pool_add("libuv", size), __ATOMIC_RELEASE);
	}
	p = thr_uv_pool;
	pthread_mutex_unlock(&thr_uv_lock);
	return p;
}

API int uv_queue_work(uv_loop_t *loop, uv_work_t *req, uv_work_cb work, uv_after_work_cb after)
{
	int (*real)(uv_loop_t *, uv_work_t *, uv_work_cb, uv_after_work_cb) =
	    thr_next_sym("uv_queue_work");
	struct thr_pool *p;
	struct thr_uv_req *e, **b;
	int ret;

	if (real == NULL)
		return THR_UV_ENOSYS;
	if (work == NULL || (p = thr_uv_pool_get()) == NULL)
		return real(loop, req, work, after);
	e = xmalloc(sizeof *e);
	*e = (struct thr_uv_req){ .req = req, .work = work, .after = after,
	    .push_ns = proto_now_ns() };
	pthread_mutex_lock(&thr_uv_lock);
	b = thr_uv_bucket(req);
	e->next = *b;
	*b = e;
	pthread_mutex_unlock(&thr_uv_lock);
	__atomic_add_fetch(&p->pushed, 1, __ATOMIC_RELAXED);
	ret = real(loop, req, thr_uv_work, thr_uv_after);
	if (ret != 0) {
		__atomic_sub_fetch(&p->pushed, 1, __ATOMIC_RELAXED);
		free(thr_uv_take(req));
	}
	return ret;
}

/* See threads.h: the lock may have been held by a thread that is gone. */
void threads_pools_atfork_child(void)
{
	pthread_mutex_init(&thr_uv_lock, NULL);
}
