/*
 * fuzz-elf.c - the agent's ELF symbol reader (symtab_load_opts) on a corrupt
 * file: bytes written to a memfd and loaded as a module (no debug files).
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
	struct symtab_opts o = { .debug_root = "" };
	struct symtab *t = NULL;
	char err[PROTO_ERR_LEN];

	if (fd < 0) {
		if ((fd = memfd_create("fuzz-elf", 0)) < 0)
			__builtin_trap();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		__builtin_trap();
	if (symtab_load_opts(path, &o, &t, err, sizeof err) == 0) {
		for (size_t i = 0; i < t->n; i++)
			(void)symtab_lookup(t, t->syms[i].offset + t->syms[i].size / 2);
		symtab_free(t);
	}
	return 0;
}
