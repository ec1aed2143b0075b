/*
 * symbols.h - the agent's symbol catalogue: function names for addresses.
 *
 * Two layers, both usable without the agent running (tests/unit/test-symbols*.c):
 *   symtab_*  one module's function symbols, merged from its .symtab (else a
 *             separate debug file found by build-id or .gnu_debuglink, else
 *             .dynsym) and optionally a GNU ld map file; sorted once, looked
 *             up in O(log n);
 *   sym_*     an address of this process: its module is found among the
 *             loaded ones (dlopen and dlclose are noticed through the
 *             dl_iterate_phdr adds/subs counters), the module's symtab is
 *             loaded once and cached.
 * Not thread-safe: the agent calls sym_* only from its reporter thread.
 *
 * Offsets: every offset is relative to the module's load bias (dlpi_addr,
 * l_addr): runtime address = bias + offset.  That is st_value for symbol
 * tables, and the printed address for map files (see symbols_map.c).
 */
#ifndef HOOKSCOPE_SYMBOLS_H
#define HOOKSCOPE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proto_block_frame;

enum sym_bind { SYM_BIND_GLOBAL, SYM_BIND_WEAK, SYM_BIND_LOCAL };
enum sym_vis  { SYM_VIS_DEFAULT, SYM_VIS_INTERNAL, SYM_VIS_HIDDEN, SYM_VIS_PROTECTED }; /* = STV_* */
enum sym_src  { SYM_SRC_SYMTAB, SYM_SRC_DYNSYM, SYM_SRC_DEBUG, SYM_SRC_MAP, SYM_SRC_COUNT };

struct symtab_sym {
	uint64_t    offset;       /* from the module's load bias */
	uint64_t    size;         /* 0 if unknown */
	const char *name;
	uint8_t     bind;         /* enum sym_bind */
	uint8_t     vis;          /* enum sym_vis (map symbols: default) */
	uint8_t     src;          /* enum sym_src */
};

struct symtab {
	size_t             n;
	struct symtab_sym *syms;  /* sorted by offset, one per address */
	char              *names; /* storage of all names */
	bool               dynamic; /* only exports: no .symtab, no debug file */
	size_t             nsrc[SYM_SRC_COUNT]; /* symbols kept per source */
	char              *debug_file; /* the debug file merged in, or NULL */
	char              *notes; /* non-fatal problems ("map x:3: ..."), or NULL */
};

/* A PT_LOAD segment, link-time. */
struct sym_segment {
	uint64_t vaddr, memsz;
	bool     exec;
};

/* Where symtab_load_opts looks besides the file itself.  All optional. */
struct symtab_opts {
	const char *real_path;    /* the module's real path, for .gnu_debuglink
	                           * (path may be /proc/self/exe); default path */
	const char *debug_root;   /* default "/usr/lib/debug"; "" = no debug files */
	const char *map_path;     /* GNU ld map of this module, or NULL */
};

/* Load the function symbols of the ELF file at path (.symtab, else the debug
 * file, else .dynsym).  0, or -1 with err filled (missing, unreadable, not
 * ELF, corrupt, no symbols). */
int symtab_load(const char *path, struct symtab **out, char *err, size_t errlen);

/* The same with a debug root, a real path and a map file.  A bad map or a
 * refused debug file is not an error: it is ignored and described in notes. */
int symtab_load_opts(const char *path, const struct symtab_opts *opts, struct symtab **out,
    char *err, size_t errlen);

/* Only the map file's function symbols, checked against the module's
 * segments (each must lie in an executable one).  0, or -1 with err. */
int symtab_load_map(const char *map_path, const struct sym_segment *segs, size_t nsegs,
    struct symtab **out, char *err, size_t errlen);

/* The symbol covering offset (offset in [sym.offset, sym.offset + size), or
 * equal to sym.offset when the size is unknown); NULL if none. */
const struct symtab_sym *symtab_lookup(const struct symtab *t, uint64_t offset);

void symtab_free(struct symtab *t);
/* A loaded module's table as the catalogue loads it: its debug file and
 * the HOOKSCOPE_MAP file configured for path, if any (thread-safe).  One
 * table per file, shared by every holder: given back with symtab_release,
 * never symtab_free.  0, or -1 with err. */
int symtab_load_module(const char *path, struct symtab **out, char *err, size_t errlen);
/* Let go of a table symtab_load_module gave (freed with its last holder). */
void symtab_release(struct symtab *t);

/* What is known about one address of this process. */
struct sym_info {
	const char *name;         /* NULL when unknown */
	const char *module;       /* module path, "" when in no module */
	uint64_t    offset;       /* address - module load bias */
	uint64_t    size;         /* of the function, 0 if unknown */
	uint64_t    start;        /* offset of the function's first byte */
	uint8_t     bind, vis, src; /* of the function, when named */
};

/* Resolve a runtime address of this process.  0 if named, -1 if not (module
 * and offset are still filled when the address lies in a module).  The
 * strings live until sym_cache_free(), even after the module is unloaded. */
int sym_resolve(uintptr_t addr, struct sym_info *out);

/* Notice modules loaded or unloaded since the last call (cheap when nothing
 * changed).  sym_resolve calls it; exposed for tests and the hook engine. */
void sym_modules_sync(void);

/* Number of modules currently known (after sym_modules_sync). */
size_t sym_modules_count(void);

/* Drop every cached module. */
void sym_cache_free(void);

/* ---- symbols_frames.c: sampled stack frames (reporter thread) ---- */

/* The function start of pc, or pc when unknown (an aggregation key);
 * ret: pc is a return address (its call is at pc - 1).  An address inside
 * one of the hook engine's trampoline blocks stands for the block's site. */
uintptr_t sym_frame_key(uintptr_t pc, bool ret);
/* Fill a protocol frame (heap strings); ret: pc is a return address. */
void sym_frame_fill(uintptr_t pc, bool ret, struct proto_block_frame *out);
/* Drop the cache (addresses may now name other code). */
void sym_frame_forget(void);

#endif
