/*
 * symbols.h - function names for runtime addresses.
 *
 * Two layers, both usable without the agent running (tests/unit/test-symbols.c):
 *   symtab_*  one ELF file's function symbols (.symtab, else .dynsym), sorted
 *             once, looked up by link-time address in O(log n);
 *   sym_*     an address of this process: its module is found with
 *             dl_iterate_phdr, the module's symtab is loaded once and cached.
 * Not thread-safe: the agent calls sym_* only from its reporter thread.
 */
#ifndef HOOKSCOPE_SYMBOLS_H
#define HOOKSCOPE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symtab_sym {
	uint64_t    value;        /* st_value: address relative to the module base */
	uint64_t    size;         /* st_size, 0 if unknown */
	const char *name;
};

struct symtab {
	size_t             n;
	struct symtab_sym *syms;  /* sorted by value, one per address */
	char              *names; /* storage of all names */
	bool               dynamic; /* from .dynsym: the file has no .symtab */
};

/* Load the function symbols of the ELF file at path.  0, or -1 with err
 * filled (missing, unreadable, not ELF, corrupt, no symbols). */
int symtab_load(const char *path, struct symtab **out, char *err, size_t errlen);

/* The symbol covering value (value in [sym.value, sym.value + size), or
 * equal to sym.value when the size is unknown); NULL if none. */
const struct symtab_sym *symtab_lookup(const struct symtab *t, uint64_t value);

void symtab_free(struct symtab *t);

/* What is known about one address of this process. */
struct sym_info {
	const char *name;         /* NULL when unknown */
	const char *module;       /* module path, "" when in no module */
	uint64_t    offset;       /* address - module load base */
	uint64_t    size;         /* of the function, 0 if unknown */
};

/* Resolve a runtime address of this process.  0 if named, -1 if not (module
 * and offset are still filled when the address lies in a module).  The
 * strings live until sym_cache_free(). */
int sym_resolve(uintptr_t addr, struct sym_info *out);

/* Drop every cached module. */
void sym_cache_free(void);

#endif
