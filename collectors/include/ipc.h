/*
 * ipc.h - the IPC collector's public interface: the Binder buffer decoder
 * (ipc_binder.c, also used by the power and harden branches) and the
 * observers of decoded outgoing transactions.
 */
#ifndef HOOKSCOPE_IPC_H
#define HOOKSCOPE_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One transaction or reply found in a BINDER_WRITE_READ buffer. */
struct ipc_binder_txn {
	uint32_t cmd;          /* BC_TRANSACTION, BC_TRANSACTION_SG, BC_REPLY, BR_TRANSACTION, BR_REPLY, ... */
	uint32_t handle;       /* target handle for BC_TRANSACTION*, 0 otherwise */
	uint32_t code;         /* transaction code */
	uint32_t flags;        /* TF_ONE_WAY, ... */
	char     iface[128];   /* interface descriptor from the Parcel header (UTF-8), "" when none */
	const uint8_t *data;   /* the Parcel bytes as read (copied into decoder-owned memory) */
	size_t   data_size;
	size_t   args_off;     /* offset in data of the first argument after the interface header */
	size_t   nobjects;     /* binder objects listed in the offsets array (all checked) */
};

/* Largest Parcel the decoder copies; the kernel's own limit per process is
 * 1 MiB of mapped transaction buffer, so a larger data_size is corrupt. */
#define IPC_BINDER_MAX_DATA (1u << 20)

/* Reads size bytes at the target address addr into dst; 0 or -1.  The decoder never dereferences a
 * pointer found in a buffer itself, so a fuzzer or test supplies a bounded arena. */
typedef int (*ipc_binder_read_fn)(void *ctx, uint64_t addr, void *dst, size_t size);

/* Decode one BINDER_WRITE_READ write (is_read=false) or read (true) buffer; fn is called for each
 * transaction/reply (also BR_DEAD_REPLY, BR_FAILED_REPLY and BR_FROZEN_REPLY, with only cmd set:
 * the replies that end a call without data).  The whole buffer is framed first: a truncated one
 * reports nothing.  t->data is valid during the call only.
 * 0, or -1 with err filled: truncated, unknown command, corrupt Parcel. */
int ipc_binder_decode(const void *buf, size_t len, bool is_read, ipc_binder_read_fn rd, void *rd_ctx,
                      void (*fn)(const struct ipc_binder_txn *t, void *arg), void *arg,
                      char *err, size_t errlen);

/* Observers of every outgoing transaction the agent decodes (the power collector registers one). */
void ipc_binder_observe(void (*fn)(const struct ipc_binder_txn *t, void *arg), void *arg);

/* ipc_binder.c: call every registered observer with t (the agent's ioctl hook does). */
void ipc_binder_notify(const struct ipc_binder_txn *t);

/* ipc_binder_hook.c: what the agent's ioctl does (the real ioctl around
 * the decoding of a BINDER_WRITE_READ's buffers); for tests. */
int ipc_binder_ioctl(int fd, unsigned long req, void *arg);
/* The same around the ioctl function real (a test's stand-in for the driver). */
int ipc_binder_ioctl_via(int (*real)(int, unsigned long, void *), int fd, unsigned long req,
    void *arg);

/* A readable name for a BC_/BR_ command ("BC_TRANSACTION"), "?" when unknown. */
const char *ipc_binder_cmd_name(uint32_t cmd);

#endif
