/*
 * inject_elf.c - the little ELF reading the injector needs: is the target an
 * x86-64 ELF64 program, and where is a dynamic symbol (dlopen, dlerror in
 * libc.so.6; hookscope_detach in the agent).  Plain <elf.h> with pread and
 * every offset and size checked against the file, so the daemon needs no
 * libelf and a corrupt file is an error, not a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include <sys/stat.h>
#include "daemon.h"
#include "attach.h"

#define ELF_MAX_TABLE (64u << 20)     /* a .dynsym or its strings, at most */

/* Read len bytes at off of fd, inside a file of size fsize: 0 or -1. */
static int
elf_read(int fd, off_t fsize, uint64_t off, void *buf, size_t len)
{
	if (off > (uint64_t)fsize || len > (uint64_t)fsize - off)
		return -1;
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* Open path and read its ELF header; the fd, or -1 with err. */
static int
elf_open(const char *path, Elf64_Ehdr *eh, off_t *fsize, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	/* e_ident, e_type and e_machine are where they are in both classes; a
	 * 32-bit header is shorter than ours (the rest stays zero). */
	memset(eh, 0, sizeof *eh);
	if (fstat(fd, &st) < 0 || elf_read(fd, st.st_size, 0, eh,
	    st.st_size < (off_t)sizeof *eh ? sizeof(Elf32_Ehdr) : sizeof *eh) < 0 ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
		snprintf(err, errlen, "%s is not an ELF file", path);
		close(fd);
		return -1;
	}
	*fsize = st.st_size;
	return fd;
}

/* See daemon.h. */
int
inject_elf_check(const char *path, char *err, size_t errlen)
{
	Elf64_Ehdr eh;
	off_t size;
	int fd = elf_open(path, &eh, &size, err, errlen);

	if (fd < 0)
		return -1;
	close(fd);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "%s is a %s ELF file for machine %u, not an x86-64 "
		    "one (hookscope attaches to x86-64 programs only)", path,
		    eh.e_ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : "64-bit",
		    (unsigned)eh.e_machine);
		return -1;
	}
	return 0;
}

/* The vaddr of the first PT_LOAD (page-aligned down). */
static int
elf_first_load(int fd, off_t size, const Elf64_Ehdr *eh, uint64_t *vaddr)
{
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		if (elf_read(fd, size, eh->e_phoff + (uint64_t)i * sizeof ph, &ph, sizeof ph) < 0)
			return -1;
		if (ph.p_type == PT_LOAD) {
			*vaddr = ph.p_vaddr & ~0xfffull;
			return 0;
		}
	}
	return -1;
}

/* Section header i. */
static int
elf_shdr(int fd, off_t size, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *sh)
{
	if (i >= eh->e_shnum || eh->e_shentsize != sizeof *sh)
		return -1;
	return elf_read(fd, size, eh->e_shoff + (uint64_t)i * sizeof *sh, sh, sizeof *sh);
}

/* Look name up in the .dynsym of section index i: 1 found, 0 not, -1 bad. */
static int
elf_dynsym_find(int fd, off_t size, const Elf64_Ehdr *eh, const Elf64_Shdr *sh,
    const char *name, uint64_t *value)
{
	Elf64_Shdr strsh;
	Elf64_Sym *syms;
	char *strs;
	size_t n;
	int found = 0;

	if (elf_shdr(fd, size, eh, sh->sh_link, &strsh) < 0 || sh->sh_size > ELF_MAX_TABLE ||
	    strsh.sh_size > ELF_MAX_TABLE || strsh.sh_size == 0)
		return -1;
	n = sh->sh_size / sizeof *syms;
	syms = xmalloc(n * sizeof *syms + 1);
	strs = xmalloc(strsh.sh_size + 1);
	if (elf_read(fd, size, sh->sh_offset, syms, n * sizeof *syms) < 0 ||
	    elf_read(fd, size, strsh.sh_offset, strs, strsh.sh_size) < 0) {
		found = -1;
		goto out;
	}
	strs[strsh.sh_size] = '\0';
	for (size_t k = 0; k < n && !found; k++) {
		if (syms[k].st_name >= strsh.sh_size || syms[k].st_shndx == SHN_UNDEF ||
		    ELF64_ST_TYPE(syms[k].st_info) != STT_FUNC)
			continue;
		if (strcmp(strs + syms[k].st_name, name) == 0) {
			*value = syms[k].st_value;
			found = 1;
		}
	}
out:
	free(syms);
	free(strs);
	return found;
}

/* See daemon.h. */
int
inject_elf_symbol(const char *path, const char *name, uint64_t *value,
    uint64_t *first_vaddr, char *err, size_t errlen)
{
	Elf64_Ehdr eh;
	off_t size;
	int fd = elf_open(path, &eh, &size, err, errlen), found = 0;

	if (fd < 0)
		return -1;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
		snprintf(err, errlen, "%s is not a 64-bit ELF file", path);
		close(fd);
		return -1;
	}
	if (elf_first_load(fd, size, &eh, first_vaddr) < 0) {
		snprintf(err, errlen, "%s has no loadable segment", path);
		close(fd);
		return -1;
	}
	for (unsigned i = 0; i < eh.e_shnum && found == 0; i++) {
		Elf64_Shdr sh;

		if (elf_shdr(fd, size, &eh, i, &sh) < 0) {
			found = -1;
			break;
		}
		if (sh.sh_type == SHT_DYNSYM)
			found = elf_dynsym_find(fd, size, &eh, &sh, name, value);
	}
	close(fd);
	if (found < 0)
		snprintf(err, errlen, "%s: corrupt section or symbol table", path);
	else if (found == 0)
		snprintf(err, errlen, "%s does not export %s", path, name);
	return found == 1 ? 0 : -1;
}
