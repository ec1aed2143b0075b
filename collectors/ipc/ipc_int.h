/*
 * ipc_int.h - the IPC collector (internal): endpoints (ipc_ep.c), the
 * per-thread figures and slow-call rings written by the wrappers
 * (ipc_hot.c), the file-descriptor classification cache (ipc_fd.c), the
 * wrappers themselves (ipc_hooks.c: unix sockets, pipes, FIFOs, POSIX
 * message queues; ipc_dbus.c: libdbus and sd-bus; ipc_binder_hook.c:
 * ioctl(BINDER_WRITE_READ)) and the collector (ipc.c).
 * doc/architecture.md, "The ipc collector".
 *
 * Hot path (every wrapped call): one load of the fd's class (a shared
 * array, filled once per fd with fstat/getsockopt), two vDSO clock reads,
 * and relaxed stores into the calling thread's own block.
 */
#ifndef HOOKSCOPE_IPC_INT_H
#define HOOKSCOPE_IPC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

#define IPC_MAX_EP        PROTO_MAX_IPC_EPS   /* endpoints; the last one is "other" */
#define IPC_SLOW_RING     8                   /* slow calls a thread keeps until harvested */
#define IPC_FRAMES        PROTO_BLOCK_FRAMES
#define IPC_THRESHOLD_NS  100000000ull        /* default slow-call threshold: 100 ms */
#define IPC_FD_MAX        65536               /* fds classified; higher ones are not watched */

enum ipc_kind {
	IPC_K_NONE = 0,        /* fd cache: not classified yet */
	IPC_K_OTHER,           /* fd cache: not IPC (file, tty, TCP...) */
	IPC_K_UNIX,            /* stream or seqpacket unix socket */
	IPC_K_UNIX_DGRAM,
	IPC_K_PIPE,
	IPC_K_FIFO,
	IPC_K_MQ,
	IPC_K_DBUS,            /* libdbus */
	IPC_K_SDBUS,           /* sd-bus */
	IPC_K_BINDER,
	IPC_K_NET,             /* fd cache: IPv4/IPv6 socket, endpoint of the network collector (net.h) */
	IPC_K_COUNT
};

/* Direction of one call, for the per-endpoint figures. */
enum ipc_dir { IPC_OUT, IPC_IN, IPC_CALL, IPC_CONNECT };

/* An endpoint: what a call talks to.  Immutable once published. */
struct ipc_ep {
	uint8_t  kind;
	uint32_t hash;
	char     name[108];        /* peer path, "@abstract", "pipe:[ino]", queue, destination */
	char     method[160];      /* "interface.member", "code 3 of IFoo", "" */
	char     key_comm[16];     /* peer command as part of the key ("" for pipes) */
	int32_t  peer_pid;         /* SO_PEERCRED (0: unknown; the reporter may fill it) */
	char     peer_comm[16];    /* shown */
	int      acc;              /* pipe/FIFO: 1 + O_ACCMODE of the first fd seen, 0 unknown */
};

/* One thread's figures for one endpoint (written by the owner only). */
struct ipc_tstat {
	uint64_t sends, recvs, calls, connects;
	uint64_t bytes_out, bytes_in;
	uint64_t total_ns, max_ns;
	uint64_t ui_calls, ui_ns, slow;
};

/* A call over the threshold, with the calling stack (innermost first). */
struct ipc_slow_rec {
	uint64_t  seq;             /* release-stored last; 0 = empty */
	uint16_t  ep;
	uint8_t   op;              /* index into ipc_op_names */
	bool      ui;
	int32_t   tid;
	uint64_t  start_ns, dur_ns;
	uint32_t  n;
	uintptr_t pc[IPC_FRAMES];
};

/* A thread's block, mmap'd on its first IPC call, reused after it exits. */
struct ipc_thread {
	struct ipc_thread *next;   /* lock-free list (push only) */
	int32_t  owner;            /* tid, 0 when free (CAS to claim) */
	int32_t  tid;
	uint64_t slow_seq;         /* slow calls written */
	uint64_t slow_taken;       /* of them, taken by the reporter (its own field) */
	struct ipc_slow_rec slow[IPC_SLOW_RING];
	struct ipc_tstat st[IPC_MAX_EP];
};

/* Operations named in slow calls. */
enum ipc_op {
	IPC_OP_CONNECT, IPC_OP_SEND, IPC_OP_RECV, IPC_OP_WRITE, IPC_OP_READ,
	IPC_OP_MQ_SEND, IPC_OP_MQ_RECV, IPC_OP_DBUS_CALL, IPC_OP_DBUS_PENDING, IPC_OP_SDBUS_CALL,
	IPC_OP_BINDER, IPC_OP_COUNT
};
extern const char *const ipc_op_names[IPC_OP_COUNT];
extern const char *const ipc_kind_names[IPC_K_COUNT];

/* ---- ipc_ep.c: the endpoint table (append-only, lock on insertion only) ---- */

/* The endpoint (kind, name, method, peer comm), created if new; the "other"
 * endpoint when the table is full.  peer_pid/comm are taken from a new
 * endpoint's first caller. */
uint16_t ipc_ep_get(uint8_t kind, const char *name, const char *method, int32_t peer_pid,
    const char *peer_comm);
/* The same for a pipe or FIFO, remembering the access mode of its fd. */
uint16_t ipc_ep_get_pipe(uint8_t kind, const char *name, int acc);
/* Published endpoints, and endpoint i (i < count). */
uint32_t ipc_ep_count(void);
const struct ipc_ep *ipc_ep_at(uint32_t i);
/* Fork child (single-threaded): the lock starts free. */
void ipc_ep_atfork_child(void);
/* ipc_dbus.c: the same for the pending-call table. */
void ipc_dbus_atfork_child(void);
/* Reporter: fill a pipe or FIFO's peer process when it was unknown. */
void ipc_ep_set_peer(uint32_t i, int32_t pid, const char *comm);

/* ---- ipc_fd.c: what each fd is ---- */

/* The fd's kind and endpoint (classified once: fstat, getsockopt,
 * getpeername, SO_PEERCRED); IPC_K_OTHER for anything else. */
uint8_t ipc_fd_class(int fd, uint16_t *ep);
/* Is fd known not to be IPC?  One load: the wrappers' fast path. */
extern uint32_t ipc_fd_cache[IPC_FD_MAX];
static inline bool ipc_fd_not_ipc(int fd)
{
	return fd >= 0 && fd < IPC_FD_MAX &&
	    __atomic_load_n(&ipc_fd_cache[fd], __ATOMIC_RELAXED) >> 16 == IPC_K_OTHER;
}
/* Forget fd (closed, replaced by dup2, new socket...). */
void ipc_fd_forget(int fd);
/* Classify an accepted fd now (a network one is keyed by its local address). */
void ipc_fd_accepted(int fd);
/* Cache fd as a network socket of endpoint ep (connect). */
void ipc_fd_set_net(int fd, uint16_t ep);
/* The endpoint of a unix address (connect, sendto): kind from the socket. */
uint16_t ipc_fd_addr_ep(uint8_t kind, const void *addr, unsigned addrlen);
/* The endpoint of a POSIX message queue descriptor (its /proc link). */
uint16_t ipc_fd_mq_ep(int fd);

/* ---- ipc_hot.c: counting ---- */

/* Monotonic ns (vDSO). */
uint64_t ipc_now(void);
/* Count one call on endpoint ep that moved bytes (-1: failed) and took
 * t0..t1; a slow one captures the calling stack. */
void ipc_count(uint16_t ep, enum ipc_dir dir, enum ipc_op op, long long bytes, uint64_t t0,
    uint64_t t1);
void ipc_hot_init(void);
/* ipc_hooks.c: the wrappers, for the binder (bind.h). */
struct bind_table;
extern const struct bind_table ipc_bind;
void ipc_set_threshold_ns(uint64_t ns);
uint64_t ipc_threshold_ns(void);
/* Is the caller the agent itself (return address in its text)? */
bool ipc_is_agent(const void *ra);
/* The thread list head (reporter). */
struct ipc_thread *ipc_threads(void);
/* Zero every thread's maxima (reset; racing a writer loses at most one). */
void ipc_hot_reset_max(void);

#endif
