/*
 * fuzz-map.c - GNU ld map files (symtab_load_map): the bytes loaded as the
 * agent loads a --map file, against a module of two segments.
 */
#include "protocol.h"
#include "symbols.h"
#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sym_segment segs[] = {
		{ .vaddr = 0x0, .memsz = 0x1000, .exec = false },
		{ .vaddr = 0x1000, .memsz = 0x100000, .exec = true },
	};
	struct symtab *t = NULL;
	char err[PROTO_ERR_LEN];

	if (symtab_load_map(fuzz_file(data, size), segs, 2, &t, err, sizeof err) == 0) {
		for (size_t i = 0; i < t->n; i++)
			(void)symtab_lookup(t, t->syms[i].offset);
		symtab_free(t);
	}
	return 0;
}
