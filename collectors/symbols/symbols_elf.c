/*
 * symbols_elf.c - reading one ELF file with libelf: its function symbols,
 * PT_LOAD segments, build-id note and .gnu_debuglink.
 *
 * Every libelf result is checked and strings are only taken through
 * elf_strptr(), which bounds-checks them: a corrupt file is an error string.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"
#include "symbols_int.h"

/* See symbols_int.h. */
int sym_elf_open(const char *path, int *fd, Elf **elf, char *err, size_t errlen)
{
	GElf_Ehdr ehdr;

	*elf = NULL;
	sym_elf_init_once();
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (*elf == NULL || elf_kind(*elf) != ELF_K_ELF || gelf_getehdr(*elf, &ehdr) == NULL) {
		int e = elf_errno();

		snprintf(err, errlen, "%s: not a valid ELF file (%s)", path,
		    e ? elf_errmsg(e) : "no ELF header");
		sym_elf_close(*fd, *elf);
		*elf = NULL;
		return -1;
	}
	return 0;
}

/* See symbols_int.h. */
void sym_elf_close(int fd, Elf *elf)
{
	if (elf != NULL)
		elf_end(elf);
	close(fd);
}

/* The first section of the given type, or NULL. */
static Elf_Scn *sym_elf_section(Elf *elf, Elf64_Word type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, shdr) != NULL && shdr->sh_type == type)
			return scn;
	}
	return NULL;
}

/* The section called name, or NULL. */
static Elf_Scn *sym_elf_section_named(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (gelf_getshdr(scn, shdr) == NULL)
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n != NULL && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* See symbols_int.h. */
int sym_elf_collect(Elf *elf, unsigned type, int src, struct sym_vec *out,
    const char *path, char *err, size_t errlen)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = sym_elf_section(elf, type, &shdr);
	Elf_Data *data;
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT), n;

	if (scn == NULL)
		return 0;
	data = elf_getdata(scn, NULL);
	if (data == NULL || entsize == 0 || data->d_type != ELF_T_SYM ||
	    data->d_size / entsize > INT32_MAX) {
		int e = elf_errno();

		snprintf(err, errlen, "%s: corrupt symbol table (%s)", path,
		    e ? elf_errmsg(e) : "bad section");
		return -1;
	}
	n = data->d_size / entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int stype, bind;

		if (gelf_getsym(data, (int)i, &sym) == NULL)
			continue;
		stype = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if ((stype != STT_FUNC && stype != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		if (name == NULL || name[0] == '\0')
			continue;
		sym_vec_push(out, sym.st_value, sym.st_size, name, strnlen(name, SYM_MAX_NAME),
		    bind == STB_GLOBAL ? SYM_BIND_GLOBAL :
		    bind == STB_WEAK ? SYM_BIND_WEAK : SYM_BIND_LOCAL,
		    GELF_ST_VISIBILITY(sym.st_other), src);
	}
	return 0;
}

/* PT_LOAD segments, from the program headers. */
static void sym_elf_segments(Elf *elf, struct sym_elf_info *info)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return;
	for (size_t i = 0; i < phnum && info->nsegs < SYM_MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		info->segs[info->nsegs++] = (struct sym_segment){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz, .exec = (ph.p_flags & PF_X) != 0,
		};
	}
}

/* The NT_GNU_BUILD_ID note, searched in every SHT_NOTE section. */
static void sym_elf_build_id(Elf *elf, struct sym_elf_info *info)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (gelf_getshdr(scn, &shdr) == NULL || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data == NULL || data->d_buf == NULL)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + noff, "GNU", 4) != 0 ||
			    nh.n_descsz == 0 || nh.n_descsz > sizeof info->build_id)
				continue;
			memcpy(info->build_id, (char *)data->d_buf + doff, nh.n_descsz);
			info->build_id_len = nh.n_descsz;
			return;
		}
	}
}

/* .gnu_debuglink: a file name, NUL, padding to 4 bytes, a CRC32 in the
 * file's byte order. */
static void sym_elf_debuglink(Elf *elf, struct sym_elf_info *info)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = sym_elf_section_named(elf, ".gnu_debuglink", &shdr);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	const char *p;
	size_t len, crcoff;
	unsigned char c[4];
	GElf_Ehdr ehdr;

	if (data == NULL || data->d_buf == NULL || gelf_getehdr(elf, &ehdr) == NULL)
		return;
	p = data->d_buf;
	len = strnlen(p, data->d_size);
	crcoff = (len + 4) & ~(size_t)3;
	if (len == 0 || len >= sizeof info->debuglink || crcoff + 4 > data->d_size ||
	    memchr(p, '/', len) != NULL)
		return;
	memcpy(info->debuglink, p, len);
	info->debuglink[len] = '\0';
	memcpy(c, p + crcoff, 4);
	info->debuglink_crc = ehdr.e_ident[EI_DATA] == ELFDATA2MSB ?
	    (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3] :
	    (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 | (uint32_t)c[1] << 8 | c[0];
}

/* See symbols_int.h. */
int sym_elf_describe(Elf *elf, struct sym_elf_info *info, const char *path, char *err,
    size_t errlen)
{
	GElf_Shdr shdr;
	size_t nscn;

	memset(info, 0, sizeof *info);
	if (elf_getshdrnum(elf, &nscn) != 0) {
		snprintf(err, errlen, "%s: not a valid ELF file (%s)", path, elf_errmsg(-1));
		return -1;
	}
	info->has_symtab = sym_elf_section(elf, SHT_SYMTAB, &shdr) != NULL;
	sym_elf_segments(elf, info);
	sym_elf_build_id(elf, info);
	sym_elf_debuglink(elf, info);
	return 0;
}
