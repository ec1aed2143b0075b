/*
 * threads_hooks.c - the pthread and C11 thread wrappers (exported through
 * threads/exports): pthread_create and thrd_create run the start routine
 * through a trampoline that records the thread's tid, start and end;
 * join, detach and naming mark the thread's record.
 *
 * Creation captures the creating stack with agent_backtrace() (libgcc_s
 * is loaded at the agent's start; about 5-10 us, next to a clone() of
 * about 50 us here) and tells the agent's own threads from the target's by
 * the creating code's module.  Sanitizer runtimes interpose pthread_create
 * before us: their frames are skipped to find the real creator.  glibc's
 * thrd_create, thrd_join and thrd_detach call their pthread counterparts
 * inside libc (not through the PLT), so they are wrapped themselves.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "protocol.h"
#include "threads_int.h"

#define API __attribute__((visibility("default")))   /* listed in threads/exports */

#define THR_MAX_RECS ((uint32_t)THR_CHUNK * THR_MAX_CHUNKS)
/* The trampoline runs before a sanitizer runtime's own start routine set up
 * the new thread (its interceptor called us): no instrumentation there, and
 * only raw system calls. */
#define THR_NOSAN __attribute__((no_sanitize("thread", "address", "undefined")))
#define LOAD(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELAXED)

struct thr_rec *thr_chunks[THR_MAX_CHUNKS];
uint32_t thr_next;
uint64_t thr_created, thr_exited, thr_dropped;
uint64_t thr_agent_created, thr_agent_exited;
uint32_t thr_low;                     /* records below are settled (reporter) */

static __thread struct thr_rec *thr_me __attribute__((tls_model("initial-exec")));

struct thr_range {
	uintptr_t lo, hi;
};
static struct thr_range thr_own;      /* the agent's module */
static struct thr_range thr_san[2];   /* sanitizer runtimes */

typedef int (*thr_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*thr_join_fn)(pthread_t, void **);
static thr_create_fn real_create;
static thr_join_fn real_join, real_tryjoin;
static int (*real_timedjoin)(pthread_t, void **, const struct timespec *);
static int (*real_clockjoin)(pthread_t, void **, clockid_t, const struct timespec *);
static int (*real_detach)(pthread_t);
static int (*real_setname)(pthread_t, const char *);
static int (*real_prctl)(int, unsigned long, unsigned long, unsigned long, unsigned long);
static void (*real_exit)(void *);
static int (*real_thrd_create)(thrd_t *, thrd_start_t, void *);
static int (*real_thrd_join)(thrd_t, int *);
static int (*real_thrd_detach)(thrd_t);

#define REAL(var, sym) ((__typeof__(var))AGENT_REAL(var, (sym), false))

/* This thread's kernel id. */
static THR_NOSAN int32_t thr_gettid(void)
{
	return (int32_t)syscall(SYS_gettid);
}

/* CLOCK_MONOTONIC in ns through the raw system call (sanitizer-free). */
static THR_NOSAN uint64_t thr_now_raw(void)
{
	struct timespec ts = { 0, 0 };

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* dl_iterate_phdr callback: the address ranges of the agent's module and of
 * the sanitizer runtimes. */
static int thr_ranges_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	struct thr_range *r = NULL;

	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if ((uintptr_t)thr_ranges_cb >= lo && (uintptr_t)thr_ranges_cb < hi)
		r = &thr_own;
	else if (strstr(info->dlpi_name, "libtsan") != NULL)
		r = &thr_san[0];
	else if (strstr(info->dlpi_name, "libasan") != NULL)
		r = &thr_san[1];
	if (r != NULL)
		*r = (struct thr_range){ lo, hi };
	return 0;
}

/* Is pc inside range r? */
static bool thr_in(const struct thr_range *r, uintptr_t pc)
{
	return pc >= r->lo && pc < r->hi;
}

/* Is pc inside a sanitizer runtime? */
static bool thr_in_san(uintptr_t pc)
{
	return thr_in(&thr_san[0], pc) || thr_in(&thr_san[1], pc);
}

/* See threads.h. */
struct thr_rec *threads_rec(uint32_t i)
{
	struct thr_rec *c;

	if (i >= THR_MAX_RECS)
		return NULL;
	c = __atomic_load_n(&thr_chunks[i / THR_CHUNK], __ATOMIC_ACQUIRE);
	if (c == NULL || !(__atomic_load_n(&c[i % THR_CHUNK].flags, __ATOMIC_ACQUIRE) &
	    THR_F_PUBLISHED))
		return NULL;
	return &c[i % THR_CHUNK];
}

/* See threads.h. */
struct thr_rec *threads_self(void)
{
	return thr_me;
}

/* A fresh record (zeroed, unpublished), or NULL past the cap or without
 * memory: that thread is counted as dropped. */
static struct thr_rec *thr_claim(void)
{
	uint32_t i = __atomic_fetch_add(&thr_next, 1, __ATOMIC_RELAXED);
	struct thr_rec *c, *want = NULL;

	if (i >= THR_MAX_RECS) {
		STORE(&thr_next, THR_MAX_RECS);
		return NULL;
	}
	c = __atomic_load_n(&thr_chunks[i / THR_CHUNK], __ATOMIC_ACQUIRE);
	if (c == NULL) {
		c = mmap(NULL, THR_CHUNK * sizeof *c, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			return NULL;
		if (!__atomic_compare_exchange_n(&thr_chunks[i / THR_CHUNK], &want, c, false,
		    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			munmap(c, THR_CHUNK * sizeof *c);
			c = want;
		}
	}
	return &c[i % THR_CHUNK];
}

/* Fill a new record with the creation figures: creator, caller and stack
 * (frames of the sanitizer runtimes skipped).  *agent says whether the
 * agent's own code creates it. */
static void thr_fill(struct thr_rec *r, uintptr_t ra, bool *agent)
{
	void *buf[THR_STACK + 8];
	int n = agent_backtrace(buf, THR_STACK + 8), k = 0;

	while (k < n && (uintptr_t)buf[k] != ra)
		k++;
	if (k == n) {                     /* no unwind information: the caller only */
		buf[0] = (void *)ra;
		k = 0;
		n = 1;
	}
	while (k < n - 1 && thr_in_san((uintptr_t)buf[k]))
		k++;
	*agent = thr_in(&thr_own, (uintptr_t)buf[k]);
	r->caller = (uintptr_t)buf[k];
	for (; k < n && r->nstack < THR_STACK; k++)
		if (r->nstack == 0 || !thr_in(&thr_own, (uintptr_t)buf[k]))
			r->stack[r->nstack++] = (uintptr_t)buf[k];   /* not our trampoline */
	r->creator = thr_gettid();
	r->create_ns = proto_now_ns();
}

/* The thread ends (return, pthread_exit or cancellation): end time, final
 * CPU time and name, then the ended flag.  The record is thr_me, not the
 * cleanup argument: in a fork child the forking thread was moved to
 * record 0. */
static THR_NOSAN void thr_end(void *arg)
{
	struct thr_rec *r = thr_me;
	struct timespec ts;
	char name[16] = { 0 };
	uint64_t w[2];

	(void)arg;
	if (r == NULL)
		return;
	STORE(&r->end_ns, thr_now_raw());
	/* the clock the reporter samples live threads with (threads.c) */
	if (syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		STORE(&r->cpu_ns, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
	if (syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0) == 0) {
		__builtin_memcpy(w, name, sizeof w);
		STORE(&r->name[0], w[0]);
		STORE(&r->name[1], w[1]);
	}
	__atomic_or_fetch(&r->flags, THR_F_ENDED, __ATOMIC_RELEASE);
	__atomic_add_fetch(LOAD(&r->flags) & THR_F_AGENT ? &thr_agent_exited : &thr_exited, 1,
	    __ATOMIC_RELAXED);
	thr_me = NULL;
}

/* Every wrapped thread starts here: note tid and start, run the real
 * routine with thr_end as a cleanup handler. */
static THR_NOSAN void *thr_tramp(void *arg)
{
	struct thr_rec *r = arg;
	void *ret;

	thr_me = r;
	STORE(&r->tid, thr_gettid());
	STORE(&r->handle, pthread_self());
	STORE(&r->start_ns, thr_now_raw());
	__atomic_or_fetch(&r->flags, THR_F_STARTED, __ATOMIC_RELEASE);
	pthread_cleanup_push(thr_end, r);
	if (r->c11_start != NULL)
		ret = (void *)(intptr_t)r->c11_start(r->arg);
	else
		ret = r->start(r->arg);
	pthread_cleanup_pop(1);
	return ret;
}

/* thrd_create's routine returns int. */
static THR_NOSAN int thr_tramp_c11(void *arg)
{
	return (int)(intptr_t)thr_tramp(arg);
}

/* Claim and fill a record for a thread about to be created; NULL when it
 * cannot be recorded (counted as dropped). */
static struct thr_rec *thr_begin(uintptr_t ra, uintptr_t start, bool check_agent)
{
	struct thr_rec *r = thr_claim();
	bool agent = false;

	if (r == NULL) {
		__atomic_add_fetch(&thr_dropped, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&thr_created, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	thr_fill(r, ra, &agent);
	agent = agent && check_agent;
	r->start = (void *(*)(void *))start;
	__atomic_add_fetch(agent ? &thr_agent_created : &thr_created, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&r->flags, THR_F_PUBLISHED | (agent ? THR_F_AGENT : 0), __ATOMIC_RELEASE);
	return r;
}

/* After the real create: the handle, or the failure (uncounted). */
static void thr_created_done(struct thr_rec *r, int failed, pthread_t handle)
{
	if (r == NULL) {
		if (failed)
			__atomic_sub_fetch(&thr_created, 1, __ATOMIC_RELAXED);
		return;
	}
	if (failed) {
		__atomic_sub_fetch(LOAD(&r->flags) & THR_F_AGENT ? &thr_agent_created :
		    &thr_created, 1, __ATOMIC_RELAXED);
		__atomic_or_fetch(&r->flags, THR_F_FAILED, __ATOMIC_RELEASE);
		return;
	}
	STORE(&r->handle, handle);
}

/* The record of a joinable (not yet joined or detached) thread, newest
 * first; NULL when it is not ours. */
static struct thr_rec *thr_find(pthread_t t)
{
	uint32_t n = LOAD(&thr_next), low = LOAD(&thr_low);

	if (thr_me != NULL && pthread_equal(t, pthread_self()))
		return thr_me;
	for (uint32_t i = n < THR_MAX_RECS ? n : THR_MAX_RECS; i-- > low;) {
		struct thr_rec *r = threads_rec(i);

		if (r == NULL || (__atomic_load_n(&r->flags, __ATOMIC_ACQUIRE) &
		    (THR_F_FAILED | THR_F_JOINED | THR_F_DETACHED)))
			continue;
		if (pthread_equal(LOAD(&r->handle), t))
			return r;
	}
	return NULL;
}

/* Set flag on r when the real call succeeded (err 0). */
static int thr_mark(struct thr_rec *r, int err, uint32_t flag)
{
	if (err == 0 && r != NULL)
		__atomic_or_fetch(&r->flags, flag, __ATOMIC_RELEASE);
	return err;
}

API int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	thr_create_fn real = REAL(real_create, "pthread_create");
	struct thr_rec *r;
	int err, det = PTHREAD_CREATE_JOINABLE;

	if (real == NULL)
		return EAGAIN;
	r = thr_begin((uintptr_t)__builtin_return_address(0), (uintptr_t)fn, true);
	if (r == NULL)
		return real(t, attr, fn, arg);
	r->arg = arg;
	if (attr != NULL && pthread_attr_getdetachstate(attr, &det) == 0 &&
	    det == PTHREAD_CREATE_DETACHED)
		__atomic_or_fetch(&r->flags, THR_F_DETACHED, __ATOMIC_RELEASE);
	err = real(t, attr, thr_tramp, r);
	thr_created_done(r, err, err == 0 ? *t : 0);
	return err;
}

API int thrd_create(thrd_t *t, thrd_start_t fn, void *arg)
{
	int (*real)(thrd_t *, thrd_start_t, void *) = REAL(real_thrd_create, "thrd_create");
	struct thr_rec *r;
	int err;

	if (real == NULL)
		return thrd_error;
	r = thr_begin((uintptr_t)__builtin_return_address(0), (uintptr_t)fn, false);
	if (r == NULL)
		return real(t, fn, arg);
	r->c11_start = fn;
	r->arg = arg;
	err = real(t, thr_tramp_c11, r);
	thr_created_done(r, err != thrd_success, err == thrd_success ? *t : 0);
	return err;
}

API int pthread_join(pthread_t t, void **ret)
{
	thr_join_fn real = REAL(real_join, "pthread_join");
	struct thr_rec *r = thr_find(t);

	return real == NULL ? ENOSYS : thr_mark(r, real(t, ret), THR_F_JOINED);
}

API int pthread_tryjoin_np(pthread_t t, void **ret)
{
	thr_join_fn real = REAL(real_tryjoin, "pthread_tryjoin_np");
	struct thr_rec *r = thr_find(t);

	return real == NULL ? ENOSYS : thr_mark(r, real(t, ret), THR_F_JOINED);
}

API int pthread_timedjoin_np(pthread_t t, void **ret, const struct timespec *abstime)
{
	int (*real)(pthread_t, void **, const struct timespec *) =
	    REAL(real_timedjoin, "pthread_timedjoin_np");
	struct thr_rec *r = thr_find(t);

	return real == NULL ? ENOSYS : thr_mark(r, real(t, ret, abstime), THR_F_JOINED);
}

API int pthread_clockjoin_np(pthread_t t, void **ret, clockid_t clk, const struct timespec *abstime)
{
	int (*real)(pthread_t, void **, clockid_t, const struct timespec *) =
	    REAL(real_clockjoin, "pthread_clockjoin_np");
	struct thr_rec *r = thr_find(t);

	return real == NULL ? ENOSYS : thr_mark(r, real(t, ret, clk, abstime), THR_F_JOINED);
}

API int pthread_detach(pthread_t t)
{
	int (*real)(pthread_t) = REAL(real_detach, "pthread_detach");
	struct thr_rec *r = thr_find(t);

	return real == NULL ? ENOSYS : thr_mark(r, real(t), THR_F_DETACHED);
}

API int thrd_join(thrd_t t, int *res)
{
	int (*real)(thrd_t, int *) = REAL(real_thrd_join, "thrd_join");
	struct thr_rec *r = thr_find(t);
	int err;

	if (real == NULL)
		return thrd_error;
	err = real(t, res);
	thr_mark(r, err != thrd_success, THR_F_JOINED);
	return err;
}

API int thrd_detach(thrd_t t)
{
	int (*real)(thrd_t) = REAL(real_thrd_detach, "thrd_detach");
	struct thr_rec *r = thr_find(t);
	int err;

	if (real == NULL)
		return thrd_error;
	err = real(t);
	thr_mark(r, err != thrd_success, THR_F_DETACHED);
	return err;
}

API void pthread_exit(void *ret)
{
	void (*real)(void *) = REAL(real_exit, "pthread_exit");

	if (thr_me != NULL)
		__atomic_or_fetch(&thr_me->flags, THR_F_EXIT, __ATOMIC_RELAXED);
	if (real != NULL)
		real(ret);
	syscall(SYS_exit, 0);             /* no libc pthread_exit: cannot happen */
	__builtin_unreachable();
}

/* Keep a name given through our wrappers in r (the kernel's comm is cut at
 * 15 bytes the same way). */
static void thr_name(struct thr_rec *r, const char *name)
{
	char buf[16] = "";
	uint64_t w[2];

	if (r == NULL || name == NULL)
		return;
	strncpy(buf, name, sizeof buf - 1);
	memcpy(w, buf, sizeof w);
	STORE(&r->name[0], w[0]);
	STORE(&r->name[1], w[1]);
}

API int pthread_setname_np(pthread_t t, const char *name)
{
	int (*real)(pthread_t, const char *) = REAL(real_setname, "pthread_setname_np");
	int err;

	if (real == NULL)
		return ENOSYS;
	err = real(t, name);
	if (err == 0)
		thr_name(thr_find(t), name);
	return err;
}

API int prctl(int option, ...)
{
	int (*real)(int, unsigned long, unsigned long, unsigned long, unsigned long) =
	    REAL(real_prctl, "prctl");
	unsigned long a[4];
	va_list ap;
	int ret;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	ret = real(option, a[0], a[1], a[2], a[3]);
	if (ret == 0 && option == PR_SET_NAME)
		thr_name(thr_me, (const char *)a[0]);
	return ret;
}

/* Record 0 is the calling thread (the main thread at start). */
static void thr_main_record(void)
{
	struct thr_rec *r = thr_claim();

	if (r == NULL)
		return;
	r->tid = thr_gettid();
	r->creator = 0;
	r->handle = pthread_self();
	r->start_ns = r->create_ns = proto_now_ns();
	thr_me = r;
	__atomic_store_n(&r->flags, THR_F_PUBLISHED | THR_F_STARTED, __ATOMIC_RELEASE);
}

/* See threads.h: ranges, the real functions, record 0. */
int threads_hooks_init(void)
{
	dl_iterate_phdr(thr_ranges_cb, NULL);
	(void)REAL(real_create, "pthread_create");
	(void)REAL(real_prctl, "prctl");
	(void)REAL(real_exit, "pthread_exit");
	if (LOAD(&thr_next) == 0)
		thr_main_record();
	return 0;
}

/* See threads_int.h.  The calling thread is one the injector borrowed. */
void threads_hooks_adopt(void)
{
	struct thr_rec *main_rec = threads_rec(0);
	int32_t pid = (int32_t)getpid();
	uint64_t now = proto_now_ns();
	struct dirent *e;
	DIR *d;

	if (main_rec != NULL) {
		main_rec->tid = pid;
		thr_me = NULL;
	}
	if ((d = opendir("/proc/self/task")) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		int32_t tid = (int32_t)strtol(e->d_name, NULL, 10);
		struct thr_rec *r;

		if (tid <= 0 || tid == pid || (r = thr_claim()) == NULL)
			continue;
		r->tid = tid;
		r->start_ns = r->create_ns = now;
		if (tid == thr_gettid())
			thr_me = r;
		__atomic_store_n(&r->flags, THR_F_PUBLISHED | THR_F_STARTED | THR_F_BEFORE,
		    __ATOMIC_RELEASE);
	}
	closedir(d);
}

/* See threads.h: the records of the parent's threads are forgotten; the
 * surviving thread becomes record 0. */
void threads_hooks_atfork_child(void)
{
	for (uint32_t c = 0; c < THR_MAX_CHUNKS && thr_chunks[c] != NULL; c++)
		memset(thr_chunks[c], 0, THR_CHUNK * sizeof *thr_chunks[c]);
	thr_next = thr_low = 0;
	thr_created = thr_exited = thr_dropped = 0;
	thr_agent_created = thr_agent_exited = 0;
	thr_main_record();
}
