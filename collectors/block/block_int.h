/*
 * block_int.h - the block collector (internal): UI-thread message boundaries
 * from the wait calls (block_wait.c), the stack capture of the UI thread
 * (block_signal.c: a signal while it runs, block_unwind.c: a walk from
 * outside while it sleeps in a system call), the watchdog thread that finds
 * messages running past the threshold and samples their stacks
 * (block_watchdog.c), the aggregation of samples into distinct stacks
 * (block_stacks.c, pure) and the
 * collector that reports blocks (block.c).  doc/architecture.md, "block".
 *
 * Hot path (every wait call of the UI thread): a thread-local tid compare,
 * one clock read and two stores into the UI state.  Other threads pay the
 * compare only.
 */
#ifndef HOOKSCOPE_BLOCK_INT_H
#define HOOKSCOPE_BLOCK_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "block.h"
#include "protocol.h"

#define BLOCK_SIG           (SIGRTMAX - 4)   /* stack requests (hook_stop uses -3) */
#define BLOCK_THRESHOLD_NS  100000000ull     /* default: 100 ms */
#define BLOCK_SAMPLE_NS     10000000ull      /* default sampling interval: 10 ms */
#define BLOCK_ENDS          64               /* message end times kept (a ring) */
#define BLOCK_FRAMES        PROTO_BLOCK_FRAMES
#define BLOCK_STACKS        PROTO_BLOCK_STACKS
#define BLOCK_KEEP          PROTO_MAX_BLOCKS /* blocks the agent keeps and resends */
#define BLOCK_QUEUE         256              /* watchdog -> reporter events */
#define BLOCK_UI_MAX        64               /* --ui-thread selection, with NUL */

/* ---- block_wait.c: message boundaries (the UI thread writes, others read) ---- */

/* The UI thread's loop: seq is odd while a message runs. */
struct block_ui_state {
	uint64_t seq;                     /* release stores, by the UI thread only */
	uint64_t start_ns;                /* start of the running message */
	uint64_t end_ns[BLOCK_ENDS];      /* end of message s at [(s >> 1) % BLOCK_ENDS] */
};

/* Find the agent's own code (its calls to poll are not the target's). */
void block_wait_init(void);
/* Select the UI thread by tid (0: none); a new selection starts idle. */
void block_wait_set_tid(int32_t tid);
/* A consistent (seq, start) of the UI state. */
void block_wait_read(uint64_t *seq, uint64_t *start_ns);
/* The UI state's seq now (async-signal-safe: one load). */
uint64_t block_wait_seq(void);
/* End time of message seq if still known; false otherwise. */
bool block_wait_end(uint64_t seq, uint64_t *end_ns);
/* Fork child: thread ids cached by threads are stale. */
void block_wait_atfork_child(void);

/* ---- block_signal.c / block_unwind.c: one stack of the UI thread ---- */

struct block_sample {
	uint64_t  seq;                    /* the UI state's seq when taken */
	uint32_t  n;
	uintptr_t pc[BLOCK_FRAMES];       /* pc[0] exact, then return addresses */
};

/* Install the signal handler (chaining to the target's) and warm backtrace(). */
int  block_signal_init(void);
/* Ask thread tid for its stack through BLOCK_SIG; wait at most timeout_ms.
 * 0, or -1 with errno: ESRCH (thread gone), ETIMEDOUT (no answer: signal
 * blocked; later requests wait until it answered), EBUSY. */
int  block_signal_capture(int32_t tid, struct block_sample *out, unsigned timeout_ms);
/* Walk thread tid's stack from outside while it waits in a system call
 * (no signal, so its sleep is not cut short).  0 (a walk that stopped
 * short past the system call's frame keeps its frames), or -1: not in a
 * system call, or no walk (then the signal is the way). */
int  block_unwind_sleeping(int32_t tid, struct block_sample *out);

/* ---- block_stacks.c: distinct stacks of one block (pure) ---- */

struct block_stack {
	uint64_t  samples;
	uint32_t  n;
	uintptr_t key[BLOCK_FRAMES];      /* function of each frame (start address) */
	uintptr_t pc[BLOCK_FRAMES];       /* the first sample's addresses */
};

struct block_stacks {
	uint32_t n;
	struct block_stack s[BLOCK_STACKS];
	uint64_t other;                   /* samples of stacks beyond BLOCK_STACKS */
};

/* Count one sample (pc[i] in function key[i]): a stack of the same
 * functions gets one more sample, else a new stack if there is room, else
 * it counts in other.  Its index, or -1 (other). */
int  block_stacks_add(struct block_stacks *a, const uintptr_t *pc, const uintptr_t *key,
    uint32_t n);
/* Indices of the stacks, most samples first (ties: first seen first). */
void block_stacks_order(const struct block_stacks *a, uint32_t *idx);

/* ---- block_watchdog.c: the "hookscope-block" thread ---- */

enum block_ev_type { BLOCK_EV_BEGIN, BLOCK_EV_SAMPLE, BLOCK_EV_END };

struct block_ev {
	uint8_t  type;
	uint32_t id;
	int32_t  tid;
	uint64_t t_ns;                    /* BEGIN: message start; END: its end */
	uint32_t lost;                    /* samples that failed since the last event */
	struct block_sample smp;          /* SAMPLE */
};

struct block_cfg {
	uint64_t threshold_ns, sample_ns;
};

int  block_watchdog_start(void);
void block_watchdog_stop(void);
bool block_watchdog_running(void);
void block_watchdog_config(const struct block_cfg *c);
/* Take up to max queued events; *dropped: samples dropped on a full queue. */
size_t block_watchdog_drain(struct block_ev *out, size_t max, uint64_t *dropped);
/* Fork child: the thread is gone; the queue starts empty. */
void block_watchdog_atfork_child(void);
/* The watchdog's tid (0 if not running), for collectors that list threads. */
int32_t block_watchdog_tid(void);

/* ---- block.c ---- */

/* Resolve a --ui-thread selection ("main", "", a tid or a thread name) to a
 * tid of this process; 0 when none matches now. */
int32_t block_ui_resolve(const char *sel);

#endif
