/*
 * ipc_binder.c - decoder of Android Binder BINDER_WRITE_READ buffers.
 *
 * A write buffer is a run of BC_* commands, a read buffer a run of BR_*
 * returns, each a 32-bit code followed by a payload whose size is encoded in
 * the code itself (_IOC_SIZE).  Transactions carry a binder_transaction_data
 * whose Parcel bytes and offsets array live elsewhere in the target's memory:
 * they are fetched through the caller's read function, never dereferenced,
 * so the same code runs on a live ioctl, on a test arena and under a fuzzer.
 * Layouts are the 64-bit kernel UAPI (linux/android/binder.h); the 32-bit
 * protocol (BINDER_IPC_32BIT) is not decoded.  See doc/binder.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/android/binder.h>

#include "ipc.h"

/* The commands we know, with their names; the payload size comes from the code. */
struct ipc_binder_cmd {
	uint32_t    cmd;
	const char *name;
	bool        is_read;
};

#define IPC_BC(c) { (uint32_t)(c), #c, false }
#define IPC_BR(c) { (uint32_t)(c), #c, true }
static const struct ipc_binder_cmd ipc_binder_cmds[] = {
	IPC_BC(BC_TRANSACTION), IPC_BC(BC_REPLY), IPC_BC(BC_ACQUIRE_RESULT),
	IPC_BC(BC_FREE_BUFFER), IPC_BC(BC_INCREFS), IPC_BC(BC_ACQUIRE), IPC_BC(BC_RELEASE),
	IPC_BC(BC_DECREFS), IPC_BC(BC_INCREFS_DONE), IPC_BC(BC_ACQUIRE_DONE),
	IPC_BC(BC_ATTEMPT_ACQUIRE), IPC_BC(BC_REGISTER_LOOPER), IPC_BC(BC_ENTER_LOOPER),
	IPC_BC(BC_EXIT_LOOPER), IPC_BC(BC_REQUEST_DEATH_NOTIFICATION),
	IPC_BC(BC_CLEAR_DEATH_NOTIFICATION), IPC_BC(BC_DEAD_BINDER_DONE),
	IPC_BC(BC_TRANSACTION_SG), IPC_BC(BC_REPLY_SG),
	IPC_BR(BR_ERROR), IPC_BR(BR_OK), IPC_BR(BR_TRANSACTION_SEC_CTX), IPC_BR(BR_TRANSACTION),
	IPC_BR(BR_REPLY), IPC_BR(BR_ACQUIRE_RESULT), IPC_BR(BR_DEAD_REPLY),
	IPC_BR(BR_TRANSACTION_COMPLETE), IPC_BR(BR_INCREFS), IPC_BR(BR_ACQUIRE),
	IPC_BR(BR_RELEASE), IPC_BR(BR_DECREFS), IPC_BR(BR_ATTEMPT_ACQUIRE), IPC_BR(BR_NOOP),
	IPC_BR(BR_SPAWN_LOOPER), IPC_BR(BR_FINISHED), IPC_BR(BR_DEAD_BINDER),
	IPC_BR(BR_CLEAR_DEATH_NOTIFICATION_DONE), IPC_BR(BR_FAILED_REPLY),
	IPC_BR(BR_FROZEN_REPLY), IPC_BR(BR_ONEWAY_SPAM_SUSPECT),
};

/* libbinder's Parcel::writeInterfaceToken puts a 32-bit header word after
 * the strict-mode policy and work-source uid since Android 11. */
#define IPC_PARCEL_SYST 0x53595354u   /* 'SYST' */
#define IPC_PARCEL_VNDR 0x564e4452u   /* 'VNDR' */
#define IPC_PARCEL_RECO 0x5245434fu   /* 'RECO' */

#define IPC_OBSERVERS_MAX 8
static struct {
	void (*fn)(const struct ipc_binder_txn *t, void *arg);
	void *arg;
} ipc_observers[IPC_OBSERVERS_MAX];
static int ipc_nobservers;

/* Fill err with a formatted reason and return -1. */
static int ipc_binder_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = EINVAL;
	return -1;
}

/* The table row of cmd, or NULL. */
static const struct ipc_binder_cmd *ipc_binder_cmd_find(uint32_t cmd)
{
	for (size_t i = 0; i < sizeof ipc_binder_cmds / sizeof ipc_binder_cmds[0]; i++)
		if (ipc_binder_cmds[i].cmd == cmd)
			return &ipc_binder_cmds[i];
	return NULL;
}

/* A readable name for a command code. */
const char *ipc_binder_cmd_name(uint32_t cmd)
{
	const struct ipc_binder_cmd *c = ipc_binder_cmd_find(cmd);

	return c ? c->name : "?";
}

/* Little-endian 32-bit word at p (the kernel UAPI is native; we decode the
 * layout of the machine we run on, which is little-endian on every Android ABI). */
static uint32_t ipc_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

/* Append code point cp as UTF-8 to out (cap bytes incl. NUL); false when full. */
static bool ipc_utf8_put(char *out, size_t cap, size_t *n, uint32_t cp)
{
	char b[4];
	size_t k;

	if (cp < 0x80) {
		b[0] = (char)cp; k = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6); b[1] = (char)(0x80 | (cp & 0x3f)); k = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12); b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f)); k = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18); b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); b[3] = (char)(0x80 | (cp & 0x3f)); k = 4;
	}
	if (*n + k >= cap)
		return false;
	memcpy(out + *n, b, k);
	*n += k;
	return true;
}

/* Parse a String16 at off in data: int32 length in UTF-16 units, the units,
 * a NUL unit, padding to 4 bytes.  A descriptor is a non-empty run of
 * printable characters.  On success the UTF-8 text goes to out and the
 * offset after the string to *end. */
static bool ipc_parcel_string16(const uint8_t *data, size_t size, size_t off, char *out,
    size_t cap, size_t *end)
{
	uint32_t len;
	size_t bytes, n = 0;

	if (off > size || size - off < 4)
		return false;
	len = ipc_rd32(data + off);
	if (len == 0 || len > (size - off - 4) / 2 || len >= 4096)
		return false;
	bytes = ((size_t)len + 1) * 2;
	if (bytes > size - off - 4)
		return false;
	const uint8_t *s = data + off + 4;
	if (s[len * 2] != 0 || s[len * 2 + 1] != 0)
		return false;
	for (uint32_t i = 0; i < len; i++) {
		uint32_t u = (uint32_t)s[2 * i] | (uint32_t)s[2 * i + 1] << 8;

		if (u >= 0xd800 && u < 0xdc00 && i + 1 < len) {
			uint32_t lo = (uint32_t)s[2 * i + 2] | (uint32_t)s[2 * i + 3] << 8;

			if (lo < 0xdc00 || lo >= 0xe000)
				return false;
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			i++;
		} else if (u >= 0xd800 && u < 0xe000) {
			return false;
		} else if (u < 0x20 || u == 0x7f) {
			return false;
		}
		if (!ipc_utf8_put(out, cap, &n, u))
			break;   /* longer than iface[]: keep the truncated prefix */
	}
	out[n] = '\0';
	*end = off + 4 + ((bytes + 3) & ~(size_t)3);
	if (*end > size)
		*end = size;
	return true;
}

/* Find the interface token of a transaction Parcel: strict-mode policy,
 * then (Android 10+) work-source uid, then (11+) a 'SYST'/'VNDR'/'RECO'
 * header word, then the descriptor.  The newest layout is tried first. */
static void ipc_parcel_iface(struct ipc_binder_txn *t)
{
	const size_t offs[] = { 12, 8, 4 };
	size_t end;

	t->iface[0] = '\0';
	t->args_off = 0;
	for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
		if (offs[i] == 12) {
			uint32_t h;

			if (t->data_size < 12)
				continue;
			h = ipc_rd32(t->data + 8);
			if (h != IPC_PARCEL_SYST && h != IPC_PARCEL_VNDR && h != IPC_PARCEL_RECO)
				continue;
		}
		if (ipc_parcel_string16(t->data, t->data_size, offs[i], t->iface, sizeof t->iface,
		    &end)) {
			t->args_off = end;
			return;
		}
	}
	t->iface[0] = '\0';
}

/* Size of the binder object of type at the start of a Parcel slot; 0 if unknown. */
static size_t ipc_binder_obj_size(uint32_t type)
{
	switch (type) {
	case BINDER_TYPE_BINDER: case BINDER_TYPE_WEAK_BINDER:
	case BINDER_TYPE_HANDLE: case BINDER_TYPE_WEAK_HANDLE:
		return sizeof(struct flat_binder_object);
	case BINDER_TYPE_FD:
		return sizeof(struct binder_fd_object);
	case BINDER_TYPE_FDA:
		return sizeof(struct binder_fd_array_object);
	case BINDER_TYPE_PTR:
		return sizeof(struct binder_buffer_object);
	}
	return 0;
}

/* Read the offsets array and check every object it names lies in the data,
 * in increasing order, without overlap, with a known type. */
static int ipc_binder_check_objects(const struct binder_transaction_data *td, const uint8_t *data,
    ipc_binder_read_fn rd, void *rd_ctx, size_t *nobj, char *err, size_t errlen)
{
	uint64_t n = td->offsets_size / sizeof(binder_size_t);
	size_t next = 0;

	*nobj = 0;
	if (td->offsets_size % sizeof(binder_size_t))
		return ipc_binder_fail(err, errlen, "binder: offsets_size %llu is not a multiple of %zu",
		    (unsigned long long)td->offsets_size, sizeof(binder_size_t));
	if (n > td->data_size / sizeof(struct binder_object_header))
		return ipc_binder_fail(err, errlen, "binder: %llu objects cannot fit in %llu data bytes",
		    (unsigned long long)n, (unsigned long long)td->data_size);
	for (uint64_t i = 0; i < n; i++) {
		binder_size_t off;
		size_t sz;

		if (rd(rd_ctx, td->data.ptr.offsets + i * sizeof off, &off, sizeof off) < 0)
			return ipc_binder_fail(err, errlen, "binder: cannot read offset %llu at 0x%llx",
			    (unsigned long long)i, (unsigned long long)td->data.ptr.offsets);
		if (off < next || off > td->data_size || td->data_size - off < 4)
			return ipc_binder_fail(err, errlen,
			    "binder: corrupt Parcel: object %llu at offset %llu (data %llu bytes)",
			    (unsigned long long)i, (unsigned long long)off,
			    (unsigned long long)td->data_size);
		sz = ipc_binder_obj_size(ipc_rd32(data + off));
		if (!sz || td->data_size - off < sz)
			return ipc_binder_fail(err, errlen,
			    "binder: corrupt Parcel: object %llu at offset %llu has type 0x%08x",
			    (unsigned long long)i, (unsigned long long)off, ipc_rd32(data + off));
		next = off + sz;
	}
	*nobj = (size_t)n;
	return 0;
}

/* Decode the binder_transaction_data of one command and call fn. */
static int ipc_binder_txn(uint32_t cmd, const struct binder_transaction_data *td,
    ipc_binder_read_fn rd, void *rd_ctx, void (*fn)(const struct ipc_binder_txn *t, void *arg),
    void *arg, char *err, size_t errlen)
{
	struct ipc_binder_txn t = { .cmd = cmd, .code = td->code, .flags = td->flags };
	uint8_t *data = NULL;
	int rc = 0;

	if (cmd == BC_TRANSACTION || cmd == BC_TRANSACTION_SG)
		t.handle = td->target.handle;
	if (td->data_size > IPC_BINDER_MAX_DATA)
		return ipc_binder_fail(err, errlen, "binder: %s data_size %llu over %u bytes",
		    ipc_binder_cmd_name(cmd), (unsigned long long)td->data_size, IPC_BINDER_MAX_DATA);
	if (td->data_size) {
		data = malloc(td->data_size);
		if (!data)
			return ipc_binder_fail(err, errlen, "binder: out of memory");
		if (rd(rd_ctx, td->data.ptr.buffer, data, td->data_size) < 0) {
			rc = ipc_binder_fail(err, errlen, "binder: %s: cannot read %llu data bytes at 0x%llx",
			    ipc_binder_cmd_name(cmd), (unsigned long long)td->data_size,
			    (unsigned long long)td->data.ptr.buffer);
			goto out;
		}
	}
	t.data = data;
	t.data_size = td->data_size;
	if (ipc_binder_check_objects(td, data, rd, rd_ctx, &t.nobjects, err, errlen) < 0) {
		rc = -1;
		goto out;
	}
	if ((cmd == BC_TRANSACTION || cmd == BC_TRANSACTION_SG || cmd == BR_TRANSACTION ||
	    cmd == BR_TRANSACTION_SEC_CTX) && !(td->flags & TF_STATUS_CODE))
		ipc_parcel_iface(&t);
	if (fn)
		fn(&t, arg);
out:
	free(data);
	return rc;
}

/* Walk the commands of buf; when txn is false only check the framing (every
 * code known for the direction, every payload whole), else decode the
 * transactions.  Framing is checked first so a truncated buffer reports
 * nothing. */
static int ipc_binder_walk(const uint8_t *p, size_t len, bool is_read, bool txn,
    ipc_binder_read_fn rd, void *rd_ctx, void (*fn)(const struct ipc_binder_txn *t, void *arg),
    void *arg, char *err, size_t errlen)
{
	size_t off = 0;

	while (off < len) {
		const struct ipc_binder_cmd *c;
		uint32_t cmd;
		size_t sz;

		if (len - off < 4)
			return ipc_binder_fail(err, errlen, "binder: truncated command code at offset %zu",
			    off);
		cmd = ipc_rd32(p + off);
		c = ipc_binder_cmd_find(cmd);
		if (!c || c->is_read != is_read)
			return ipc_binder_fail(err, errlen, "binder: unknown %s command 0x%08x at offset %zu",
			    is_read ? "return" : "write", cmd, off);
		sz = _IOC_SIZE(cmd);
		off += 4;
		if (len - off < sz)
			return ipc_binder_fail(err, errlen,
			    "binder: truncated %s at offset %zu: %zu of %zu payload bytes", c->name,
			    off - 4, len - off, sz);
		if (txn && (cmd == BC_TRANSACTION || cmd == BC_REPLY || cmd == BC_TRANSACTION_SG ||
		    cmd == BC_REPLY_SG || cmd == BR_TRANSACTION || cmd == BR_REPLY ||
		    cmd == BR_TRANSACTION_SEC_CTX)) {
			struct binder_transaction_data td;

			memcpy(&td, p + off, sizeof td);
			if (ipc_binder_txn(cmd, &td, rd, rd_ctx, fn, arg, err, errlen) < 0)
				return -1;
		} else if (txn && fn && (cmd == BR_DEAD_REPLY || cmd == BR_FAILED_REPLY ||
		    cmd == BR_FROZEN_REPLY)) {
			struct ipc_binder_txn t = { .cmd = cmd };   /* a reply with no data */

			fn(&t, arg);
		}
		off += sz;
	}
	return 0;
}

/* See ipc.h. */
int ipc_binder_decode(const void *buf, size_t len, bool is_read, ipc_binder_read_fn rd, void *rd_ctx,
    void (*fn)(const struct ipc_binder_txn *t, void *arg), void *arg, char *err, size_t errlen)
{
	if (len && !buf)
		return ipc_binder_fail(err, errlen, "binder: no buffer");
	if (!rd)
		return ipc_binder_fail(err, errlen, "binder: no read function");
	if (ipc_binder_walk(buf, len, is_read, false, rd, rd_ctx, fn, arg, err, errlen) < 0)
		return -1;
	return ipc_binder_walk(buf, len, is_read, true, rd, rd_ctx, fn, arg, err, errlen);
}

/* See ipc.h.  Registration happens at collector init, before hooks run. */
void ipc_binder_observe(void (*fn)(const struct ipc_binder_txn *t, void *arg), void *arg)
{
	if (!fn || ipc_nobservers >= IPC_OBSERVERS_MAX)
		return;
	ipc_observers[ipc_nobservers].fn = fn;
	ipc_observers[ipc_nobservers].arg = arg;
	ipc_nobservers++;
}

/* See ipc.h. */
void ipc_binder_notify(const struct ipc_binder_txn *t)
{
	for (int i = 0; i < ipc_nobservers; i++)
		ipc_observers[i].fn(t, ipc_observers[i].arg);
}
