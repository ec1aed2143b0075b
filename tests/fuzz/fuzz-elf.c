/*
 * fuzz-elf.c - the agent's ELF symbol reader (symtab_load_opts) on a corrupt
 * file: the bytes loaded as a module (no debug files).
 */
#include "protocol.h"
#include "symbols.h"
#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symtab_opts o = { .debug_root = "" };
	struct symtab *t = NULL;
	char err[PROTO_ERR_LEN];

	if (symtab_load_opts(fuzz_file(data, size), &o, &t, err, sizeof err) == 0) {
		for (size_t i = 0; i < t->n; i++)
			(void)symtab_lookup(t, t->syms[i].offset + t->syms[i].size / 2);
		symtab_free(t);
	}
	return 0;
}
