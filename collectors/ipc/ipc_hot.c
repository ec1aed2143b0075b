/*
 * ipc_hot.c - the IPC collector's hot path: each thread counts its calls
 * into its own block (mmap'd on its first IPC call, pushed once on a
 * lock-free list, handed to a later thread after it exits), one row per
 * endpoint.  A call longer than the threshold takes the calling stack
 * right there with agent_backtrace() (the call already took 100 ms; the capture
 * is about 10 us) into the thread's ring of slow calls.
 */
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "block.h"
#include "ipc_int.h"

#define LOAD(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELAXED)

static struct ipc_thread *ipc_head;
static pthread_key_t ipc_key;
static bool ipc_key_ok;
static uint64_t ipc_thr_ns = IPC_THRESHOLD_NS;     /* relaxed */
static uintptr_t ipc_self_lo, ipc_self_hi;          /* the agent's text */
static struct { uintptr_t lo, hi; } ipc_san[2];     /* sanitizer runtimes' text */

const char *const ipc_op_names[IPC_OP_COUNT] = {
	[IPC_OP_CONNECT] = "connect", [IPC_OP_SEND] = "send", [IPC_OP_RECV] = "recv",
	[IPC_OP_WRITE] = "write", [IPC_OP_READ] = "read", [IPC_OP_MQ_SEND] = "mq_send",
	[IPC_OP_MQ_RECV] = "mq_receive", [IPC_OP_DBUS_CALL] = "dbus_connection_send_with_reply_and_block",
	[IPC_OP_DBUS_PENDING] = "dbus_pending_call", [IPC_OP_SDBUS_CALL] = "sd_bus_call",
	[IPC_OP_BINDER] = "ioctl(BINDER_WRITE_READ)",
};

/* Thread exit: the block may serve another thread (its figures stay). */
static void ipc_thread_exit(void *arg)
{
	struct ipc_thread *t = arg;

	__atomic_store_n(&t->owner, 0, __ATOMIC_RELEASE);
}

/* Find the agent's text (the segment holding this function) and that of
 * sanitizer runtimes, whose interceptors sit between a caller and us. */
static int ipc_self_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t me = (uintptr_t)arg;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	bool san = strstr(name, "/libasan.") || strstr(name, "/libtsan.") ||
	    strstr(name, "/libubsan.") || strstr(name, "/liblsan.");

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + p->p_vaddr;

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		if (me >= lo && me < lo + p->p_memsz) {
			ipc_self_lo = lo;
			ipc_self_hi = lo + p->p_memsz;
		} else if (san) {
			for (int k = 0; k < 2; k++)
				if (ipc_san[k].hi == 0) {
					ipc_san[k].lo = lo;
					ipc_san[k].hi = lo + p->p_memsz;
					break;
				}
		}
	}
	return 0;
}

/* A frame of the agent or of a sanitizer runtime (left out of stacks). */
static bool ipc_is_ours(const void *pc)
{
	uintptr_t a = (uintptr_t)pc;

	return ipc_is_agent(pc) || (a >= ipc_san[0].lo && a < ipc_san[0].hi) ||
	    (a >= ipc_san[1].lo && a < ipc_san[1].hi);
}

/* See ipc_int.h: the key, the agent's range. */
void ipc_hot_init(void)
{
	if (!ipc_key_ok && pthread_key_create(&ipc_key, ipc_thread_exit) == 0)
		ipc_key_ok = true;
	dl_iterate_phdr(ipc_self_cb, (void *)(uintptr_t)ipc_hot_init);
}

/* See ipc_int.h. */
bool ipc_is_agent(const void *ra)
{
	return (uintptr_t)ra >= ipc_self_lo && (uintptr_t)ra < ipc_self_hi;
}

/* See ipc_int.h. */
uint64_t ipc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's block: its own, a free one, or a new one. */
static struct ipc_thread *ipc_self(void)
{
	struct ipc_thread *t;
	int32_t tid;

	if (!ipc_key_ok)
		return NULL;
	if ((t = pthread_getspecific(ipc_key)) != NULL)
		return t;
	tid = (int32_t)gettid();
	for (t = __atomic_load_n(&ipc_head, __ATOMIC_ACQUIRE); t; t = t->next) {
		int32_t free_ = 0;

		if (__atomic_compare_exchange_n(&t->owner, &free_, tid, false, __ATOMIC_ACQUIRE,
		    __ATOMIC_RELAXED))
			break;
	}
	if (t == NULL) {
		void *p = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		t = p;
		t->owner = tid;
		t->next = __atomic_load_n(&ipc_head, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&ipc_head, &t->next, t, false, __ATOMIC_RELEASE,
		    __ATOMIC_RELAXED))
			;
	}
	STORE(&t->tid, tid);
	pthread_setspecific(ipc_key, t);
	return t;
}

/* Keep the calling stack of a slow call in the thread's ring, frames of
 * the agent (this function, the wrapper) and of a sanitizer's interceptors
 * left out. */
static void ipc_slow(struct ipc_thread *t, uint16_t ep, enum ipc_op op, bool ui, uint64_t t0,
    uint64_t t1)
{
	void *buf[IPC_FRAMES + 8];
	uint64_t seq = t->slow_seq + 1;
	struct ipc_slow_rec *r = &t->slow[seq % IPC_SLOW_RING];
	int n = agent_backtrace(buf, IPC_FRAMES + 8), k = 0;

	STORE(&r->seq, 0);                  /* being rewritten (x86-64 and arm64 keep */
	while (k < n && ipc_is_ours(buf[k]))    /* stores in order for the reader's check) */
		k++;
	STORE(&r->n, 0);
	for (uint32_t i = 0; k < n && i < IPC_FRAMES; k++, i++) {
		STORE(&r->pc[i], (uintptr_t)buf[k]);
		STORE(&r->n, i + 1);
	}
	STORE(&r->ep, ep);
	STORE(&r->op, (uint8_t)op);
	STORE(&r->ui, ui);
	STORE(&r->tid, t->tid);
	STORE(&r->start_ns, t0);
	STORE(&r->dur_ns, t1 - t0);
	__atomic_store_n(&r->seq, seq, __ATOMIC_RELEASE);
	__atomic_store_n(&t->slow_seq, seq, __ATOMIC_RELEASE);
}

/* See ipc_int.h. */
void ipc_count(uint16_t ep, enum ipc_dir dir, enum ipc_op op, long long bytes, uint64_t t0,
    uint64_t t1)
{
	struct ipc_thread *t = ipc_self();
	struct ipc_tstat *s;
	uint64_t d = t1 > t0 ? t1 - t0 : 0;
	int32_t ui = block_wait_tid();
	bool is_ui;

	if (t == NULL || ep >= IPC_MAX_EP)
		return;
	s = &t->st[ep];
	is_ui = ui != 0 && ui == t->tid;
	switch (dir) {
	case IPC_OUT:
		STORE(&s->sends, s->sends + 1);
		if (bytes > 0)
			STORE(&s->bytes_out, s->bytes_out + (uint64_t)bytes);
		break;
	case IPC_IN:
		STORE(&s->recvs, s->recvs + 1);
		if (bytes > 0)
			STORE(&s->bytes_in, s->bytes_in + (uint64_t)bytes);
		break;
	case IPC_CALL:
		STORE(&s->calls, s->calls + 1);
		break;
	case IPC_CONNECT:
		STORE(&s->connects, s->connects + 1);
		break;
	}
	STORE(&s->total_ns, s->total_ns + d);
	if (d > s->max_ns)
		STORE(&s->max_ns, d);
	if (is_ui) {
		STORE(&s->ui_calls, s->ui_calls + 1);
		STORE(&s->ui_ns, s->ui_ns + d);
	}
	if (d >= LOAD(&ipc_thr_ns)) {
		STORE(&s->slow, s->slow + 1);
		ipc_slow(t, ep, op, is_ui, t0, t1);
	}
}

/* See ipc_int.h. */
void ipc_set_threshold_ns(uint64_t ns)
{
	STORE(&ipc_thr_ns, ns);
}

/* See ipc_int.h. */
uint64_t ipc_threshold_ns(void)
{
	return LOAD(&ipc_thr_ns);
}

/* See ipc_int.h. */
struct ipc_thread *ipc_threads(void)
{
	return __atomic_load_n(&ipc_head, __ATOMIC_ACQUIRE);
}

/* See ipc_int.h. */
void ipc_hot_reset_max(void)
{
	for (struct ipc_thread *t = ipc_threads(); t; t = t->next)
		for (uint32_t i = 0; i < IPC_MAX_EP; i++)
			STORE(&t->st[i].max_ns, 0);
}
