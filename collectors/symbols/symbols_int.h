/*
 * symbols_int.h - what the symbols*.c files share and nobody else uses.
 *
 *   symbols.c        symbol vectors, sorting, layer merging, lookup, symtab_load
 *   symbols_elf.c    one ELF file: function symbols, build-id, debuglink, PT_LOADs
 *   symbols_debug.c  finding a module's separate debug file
 *   symbols_map.c    GNU ld -Map files
 *   symbols_proc.c   the modules of this process (sym_resolve)
 *   symbols_shared.c a module's table loaded once, shared by its holders
 */
#ifndef HOOKSCOPE_SYMBOLS_INT_H
#define HOOKSCOPE_SYMBOLS_INT_H

#include <libelf.h>

#include "symbols.h"

#define SYM_MAX_NAME 4096         /* longer names are cut (records stay small) */
#define SYM_MAX_SEGS 32           /* PT_LOADs remembered per module */

/* A symbol while loading; name lies in the vector's pool. */
struct sym_tmp {
	uint64_t    offset;
	uint64_t    size;
	const char *name;
	uint8_t     bind, vis, src;
};

/* A block of the names' pool: blocks never move, so names stay put while
 * the array grows (one allocation per block, not one per name: a table of
 * thousands of symbols is loaded in every process the agent starts in). */
struct sym_pool {
	struct sym_pool *next;
	size_t           used, cap;
	char             s[];
};

/* A growable array of symbols and the pool of their names. */
struct sym_vec {
	struct sym_tmp  *v;
	size_t           n, cap;
	struct sym_pool *pool;
};

/* What symtab_load needs to know about one ELF file. */
struct sym_elf_info {
	struct sym_segment segs[SYM_MAX_SEGS];
	size_t   nsegs;
	bool     has_symtab;          /* a .symtab section exists (even if empty) */
	uint8_t  build_id[64];
	size_t   build_id_len;
	char     debuglink[256];      /* .gnu_debuglink file name, "" if none */
	uint32_t debuglink_crc;
};

/* symbols.c */
void sym_vec_push(struct sym_vec *sv, uint64_t offset, uint64_t size, const char *name,
    size_t namelen, int bind, int vis, int src);
void sym_vec_free(struct sym_vec *sv);
void sym_elf_init_once(void);     /* elf_version(); false result -> elf_begin fails */

/* symbols_elf.c: open path as ELF (fd and Elf returned), describe it. */
int sym_elf_open(const char *path, int *fd, Elf **elf, char *err, size_t errlen);
void sym_elf_close(int fd, Elf *elf);
int sym_elf_describe(Elf *elf, struct sym_elf_info *info, const char *path, char *err,
    size_t errlen);
/* Function symbols of the first section of type (SHT_SYMTAB or SHT_DYNSYM),
 * tagged src.  0 (possibly none found), -1 on a corrupt table. */
int sym_elf_collect(Elf *elf, unsigned type, int src, struct sym_vec *out,
    const char *path, char *err, size_t errlen);

/* symbols_debug.c: the path of the separate debug file of the ELF described
 * by info (real_path: where the module really lives, for debuglink), or
 * NULL.  note gets why a candidate was refused (CRC, build-id mismatch). */
char *sym_debug_find(const struct sym_elf_info *info, const char *real_path,
    const char *debug_root, char *note, size_t notelen);
uint32_t sym_debug_crc32(uint32_t crc, const void *buf, size_t len);

/* symbols_map.c: the function symbols of a GNU ld map, offsets = link-time
 * addresses as printed. */
int sym_map_read(const char *path, struct sym_vec *out, char *err, size_t errlen);

/* symbols_proc.c: copy the HOOKSCOPE_MAP file configured for path into
 * buf; NULL if none. */
const char *sym_map_copy(const char *path, char *buf, size_t len);

/* symbols_shared.c: the table of the file at load_path (real_path: where
 * the module lives, for its debuglink and map file), shared with every
 * other holder of the same file; symtab_release lets it go.  0, or -1 with
 * err. */
int sym_shared_load(const char *load_path, const char *real_path, struct symtab **out,
    char *err, size_t errlen);

#endif
