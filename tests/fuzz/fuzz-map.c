/*
 * fuzz-map.c - GNU ld map files (symtab_load_map): bytes written to a
 * memfd, loaded as the agent loads a --map file.
 */
#include <sys/mman.h>
#include <stdio.h>
#include <unistd.h>
#include "protocol.h"
#include "symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	static const struct sym_segment segs[] = {
		{ .vaddr = 0x0, .memsz = 0x1000, .exec = false },
		{ .vaddr = 0x1000, .memsz = 0x100000, .exec = true },
	};
	struct symtab *t = NULL;
	char err[PROTO_ERR_LEN];

	if (fd < 0) {
		if ((fd = memfd_create("fuzz-map", 0)) < 0)
			__builtin_trap();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		__builtin_trap();
	if (symtab_load_map(path, segs, 2, &t, err, sizeof err) == 0) {
		for (size_t i = 0; i < t->n; i++)
			(void)symtab_lookup(t, t->syms[i].offset);
		symtab_free(t);
	}
	return 0;
}
