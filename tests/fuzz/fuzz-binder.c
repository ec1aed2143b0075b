/*
 * fuzz-binder.c - libFuzzer target for the Binder buffer decoder
 * (collectors/ipc/ipc_binder.c).  Input: byte 0 bit 0 = read buffer; bytes 1-2
 * = length N of the BINDER_WRITE_READ buffer (little-endian); the next N
 * bytes are that buffer; the rest is the target memory the decoder may read
 * through its callback, mapped at FUZZ_BINDER_BASE.  Build by hand:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Iprotocol -Icollectors/include -Icollectors/ipc \
 *     tests/fuzz/fuzz-binder.c collectors/ipc/ipc_binder.c -o fuzz-binder
 *   ./fuzz-binder -max_total_time=300 tests/fuzz/corpus/binder
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ipc.h"

#define FUZZ_BINDER_BASE 0x10000ull

struct fuzz_mem {
	const uint8_t *p;
	size_t len;
};

/* Bounded reads of the fuzzer's "target memory". */
static int fuzz_binder_read(void *ctx, uint64_t addr, void *dst, size_t size)
{
	const struct fuzz_mem *m = ctx;

	if (addr < FUZZ_BINDER_BASE || addr - FUZZ_BINDER_BASE > m->len ||
	    size > m->len - (addr - FUZZ_BINDER_BASE))
		return -1;
	memcpy(dst, m->p + (addr - FUZZ_BINDER_BASE), size);
	return 0;
}

/* Touch every byte the decoder hands out, so ASan checks the bounds. */
static void fuzz_binder_txn(const struct ipc_binder_txn *t, void *arg)
{
	size_t *sum = arg;

	for (size_t i = 0; i < t->data_size; i++)
		*sum += t->data[i];
	*sum += strlen(t->iface) + t->args_off;
	if (t->args_off > t->data_size)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_mem mem;
	size_t n, sum = 0;
	char err[256];

	if (size < 3)
		return 0;
	n = (size_t)data[1] | (size_t)data[2] << 8;
	if (n > size - 3)
		n = size - 3;
	mem.p = data + 3 + n;
	mem.len = size - 3 - n;
	err[0] = '\0';
	if (ipc_binder_decode(data + 3, n, data[0] & 1, fuzz_binder_read, &mem, fuzz_binder_txn, &sum,
	    err, sizeof err) < 0 && (err[0] == '\0' || strlen(err) >= sizeof err))
		__builtin_trap();
	return 0;
}
