/* elf-funcs.h - the exported functions of a real binary, for the
 * relocator tests that hold a plan against an independent decoder. */
#ifndef HOOKSCOPE_TEST_ELF_FUNCS_H
#define HOOKSCOPE_TEST_ELF_FUNCS_H

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <gelf.h>

/* Called with each exported function in .text of at least min bytes: its
 * bytes (a read-only copy), size and link-time address. */
typedef void (*test_func_fn)(const uint8_t *code, size_t size, uint64_t addr, void *arg);

/* Call fn for the exported functions of the first of paths that opens;
 * fails the test when none does.  Returns how many it called fn for. */
static inline size_t test_elf_funcs(const char *const *paths, size_t npaths, size_t min,
    test_func_fn fn, void *arg)
{
	int fd = -1;
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, text = { 0 };
	Elf_Data *syms = NULL;
	size_t nsyms = 0, shstrndx, called = 0;
	off_t fsize;
	uint8_t *img;

	for (size_t i = 0; i < npaths && fd < 0; i++)
		fd = open(paths[i], O_RDONLY);
	if (fd < 0)
		fail_msg("%s: not found", paths[0]);
	assert_true(elf_version(EV_CURRENT) != EV_NONE);
	assert_non_null(e = elf_begin(fd, ELF_C_READ, NULL));
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		gelf_getshdr(scn, &sh);
		if (sh.sh_type == SHT_DYNSYM) {
			syms = elf_getdata(scn, NULL);
			nsyms = sh.sh_size / sh.sh_entsize;
		} else if (strcmp(elf_strptr(e, shstrndx, sh.sh_name), ".text") == 0) {
			text = sh;
		}
	}
	assert_non_null(syms);
	assert_true(text.sh_size > 0);
	fsize = lseek(fd, 0, SEEK_END);
	img = mmap(NULL, (size_t)fsize, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(img != MAP_FAILED);
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym s;

		gelf_getsym(syms, (int)i, &s);
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF || s.st_size < min ||
		    s.st_value < text.sh_addr || s.st_value + s.st_size > text.sh_addr + text.sh_size)
			continue;
		fn(img + text.sh_offset + (s.st_value - text.sh_addr), s.st_size, s.st_value, arg);
		called++;
	}
	munmap(img, (size_t)fsize);
	elf_end(e);
	close(fd);
	return called;
}

#endif
