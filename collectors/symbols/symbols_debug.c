/*
 * symbols_debug.c - finding a module's separate debug file, as gdb does:
 *   1. by build-id: ROOT/.build-id/xx/yyyy.debug, accepted when its own
 *      build-id note is the same;
 *   2. by .gnu_debuglink NAME: DIR/NAME, DIR/.debug/NAME, ROOT/DIR/NAME
 *      (DIR: the directory of the module's real path), accepted when the CRC32
 *      of the whole file equals the one in the link.
 * ROOT is /usr/lib/debug unless the caller says otherwise (tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol.h"
#include "symbols_int.h"

/* See symbols_int.h: the CRC-32 of zlib and of gdb's gnu_debuglink_crc32. */
uint32_t sym_debug_crc32(uint32_t crc, const void *buf, size_t len)
{
	static const uint32_t poly = 0xedb88320u;
	const unsigned char *p = buf;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (poly & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* CRC-32 of a whole file; -1 if it cannot be read. */
static int sym_debug_file_crc(const char *path, uint32_t *crc)
{
	static const size_t chunk = 1 << 16;
	unsigned char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	buf = xmalloc(chunk);
	*crc = 0;
	while ((n = read(fd, buf, chunk)) > 0)
		*crc = sym_debug_crc32(*crc, buf, (size_t)n);
	free(buf);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* Is path a regular file? */
static bool sym_debug_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The build-id candidate, accepted if its own build-id matches. */
static char *sym_debug_by_build_id(const struct sym_elf_info *info, const char *root,
    char *note, size_t notelen)
{
	struct sym_elf_info *dbg;
	char path[PATH_MAX], err[PROTO_ERR_LEN];
	int n, fd;
	bool ok;
	Elf *elf;

	if (info->build_id_len < 2)
		return NULL;
	n = snprintf(path, sizeof path, "%s/.build-id/%02x/", root, info->build_id[0]);
	for (size_t i = 1; i < info->build_id_len && n > 0 && (size_t)n < sizeof path; i++)
		n += snprintf(path + n, sizeof path - (size_t)n, "%02x", info->build_id[i]);
	if (n <= 0 || (size_t)n + sizeof ".debug" > sizeof path)
		return NULL;
	strcat(path, ".debug");
	if (!sym_debug_is_file(path) || sym_elf_open(path, &fd, &elf, err, sizeof err) < 0)
		return NULL;
	dbg = xcalloc(1, sizeof *dbg);
	ok = sym_elf_describe(elf, dbg, path, err, sizeof err) == 0 &&
	    dbg->build_id_len == info->build_id_len &&
	    memcmp(dbg->build_id, info->build_id, info->build_id_len) == 0;
	sym_elf_close(fd, elf);
	free(dbg);
	if (!ok) {
		snprintf(note, notelen, "debug file %s refused: its build-id differs", path);
		return NULL;
	}
	return xstrdup(path);
}

/* The debuglink candidates, the first whose CRC matches. */
static char *sym_debug_by_link(const struct sym_elf_info *info, const char *real_path,
    const char *root, char *note, size_t notelen)
{
	char dir[PATH_MAX], path[PATH_MAX], *slash;
	char *canon = realpath(real_path, NULL);

	if (info->debuglink[0] == '\0')
		goto none;
	snprintf(dir, sizeof dir, "%s", canon ? canon : real_path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		goto none;
	*slash = '\0';
	for (int i = 0; i < 3; i++) {
		static const char *const fmt[] = { "%s%s/%s", "%s%s/.debug/%s", "%s%s/%s" };
		uint32_t crc;
		int n = snprintf(path, sizeof path, fmt[i], i == 2 ? root : "", dir,
		    info->debuglink);

		if (n < 0 || (size_t)n >= sizeof path || !sym_debug_is_file(path))
			continue;
		if (canon != NULL && strcmp(path, canon) == 0)
			continue;     /* the module itself */
		if (sym_debug_file_crc(path, &crc) < 0)
			continue;
		if (crc != info->debuglink_crc) {
			snprintf(note, notelen, "debug file %s refused: CRC %08x, the "
			    "debuglink wants %08x", path, crc, info->debuglink_crc);
			continue;
		}
		free(canon);
		return xstrdup(path);
	}
none:
	free(canon);
	return NULL;
}

/* See symbols_int.h. */
char *sym_debug_find(const struct sym_elf_info *info, const char *real_path,
    const char *debug_root, char *note, size_t notelen)
{
	char *path = sym_debug_by_build_id(info, debug_root, note, notelen);

	if (path == NULL)
		path = sym_debug_by_link(info, real_path, debug_root, note, notelen);
	if (path != NULL)
		note[0] = '\0';
	return path;
}
