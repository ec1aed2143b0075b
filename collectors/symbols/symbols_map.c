/*
 * symbols_map.c - function symbols from a GNU ld map file (gcc -Wl,-Map=F).
 *
 * Only the "Linker script and memory map" part is read, and in it only the
 * input sections of the .text output section:
 *
 *   .text          0x00000000000011b0       0xbc /tmp/ccJV5rYi.o   input section
 *                  0x00000000000011f0                gfun          global symbol
 *   .text.sfun     0x0000000000001160        0x5 t.o               -ffunction-sections
 *   .text.long_function_name                                       (name too long:
 *                  0x0000000000001170        0x9 t.o                wrapped)
 *
 * ld lists global symbols only, without sizes: a symbol's size runs to the
 * next symbol of its input section, the last one's to the section end.  With
 * -ffunction-sections every function has its own section ".text.NAME"
 * (".text.startup.NAME", ".text.hot.NAME", ".text.unlikely.NAME" for the
 * NAME.cold part), which names the static functions too, with exact sizes.
 * Addresses are the link-time ones; symbols.c turns them into offsets.
 * Anything unexpected inside .text is an error "FILE:LINE: what".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "symbols_int.h"

#define MAP_MAX_LINE 65536

/* A global symbol of the current input section. */
struct map_sym {
	uint64_t addr;
	char    *name;
};

/* Parser state. */
struct map_parse {
	const char     *path;
	unsigned long   line;
	bool            in_map;       /* past "Linker script and memory map" */
	bool            in_text;      /* inside the .text output section */
	char           *wrapped;      /* input section name waiting for its addresses */
	bool            sec_open;     /* the current input section */
	uint64_t        sec_addr, sec_size;
	char           *sec_func;     /* its function name (-ffunction-sections) or NULL */
	struct map_sym *syms;
	size_t          nsyms, cap;
	struct sym_vec *out;
	char           *err;
	size_t          errlen;
};

/* Fill the error "FILE:LINE: what"; returns -1. */
static int map_error(struct map_parse *mp, const char *what)
{
	snprintf(mp->err, mp->errlen, "%s:%lu: %s", mp->path, mp->line, what);
	return -1;
}

/* Parse one hexadecimal token "0x..."; -1 if it is not one. */
static int map_hex(const char *tok, uint64_t *v)
{
	char *end;

	if (tok == NULL || strncmp(tok, "0x", 2) != 0 || tok[2] == '\0')
		return -1;
	errno = 0;
	*v = strtoull(tok + 2, &end, 16);
	return errno != 0 || *end != '\0' ? -1 : 0;
}

/* Order of symbols inside one input section. */
static int map_sym_cmp(const void *a, const void *b)
{
	const struct map_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Emit the functions of the current input section and close it. */
static void map_section_close(struct map_parse *mp)
{
	uint64_t end = mp->sec_addr + mp->sec_size;
	bool start_named = false;

	if (!mp->sec_open)
		return;
	if (mp->nsyms > 1)
		qsort(mp->syms, mp->nsyms, sizeof *mp->syms, map_sym_cmp);
	for (size_t i = 0; i < mp->nsyms; i++) {
		uint64_t next = i + 1 < mp->nsyms ? mp->syms[i + 1].addr : end;

		start_named |= mp->syms[i].addr == mp->sec_addr;
		sym_vec_push(mp->out, mp->syms[i].addr, next - mp->syms[i].addr, mp->syms[i].name,
		    strlen(mp->syms[i].name), SYM_BIND_GLOBAL, SYM_VIS_DEFAULT, SYM_SRC_MAP);
		free(mp->syms[i].name);
	}
	/* A section of its own and no global symbol at its start: a static one. */
	if (mp->sec_func != NULL && !start_named && mp->sec_size > 0)
		sym_vec_push(mp->out, mp->sec_addr, mp->sec_size, mp->sec_func,
		    strlen(mp->sec_func), SYM_BIND_LOCAL, SYM_VIS_DEFAULT, SYM_SRC_MAP);
	mp->nsyms = 0;
	free(mp->sec_func);
	mp->sec_func = NULL;
	mp->sec_open = false;
}

/* The function an input section name stands for, or NULL ("name" is the
 * input section's name: .text, .text.foo, .text.startup.main, ...). */
static char *map_section_func(const char *name)
{
	static const struct { const char *prefix, *suffix; } kinds[] = {
		{ ".text.startup.", "" }, { ".text.hot.", "" }, { ".text.exit.", "" },
		{ ".text.unlikely.", ".cold" }, { ".text.", "" },
	};

	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		size_t len = strlen(kinds[i].prefix);
		char *f;

		if (strncmp(name, kinds[i].prefix, len) != 0 || name[len] == '\0')
			continue;
		if (i == 4 && (strcmp(name + len, "startup") == 0 || strcmp(name + len, "hot") == 0 ||
		    strcmp(name + len, "unlikely") == 0 || strcmp(name + len, "exit") == 0))
			return NULL;
		f = xmalloc(strlen(name + len) + strlen(kinds[i].suffix) + 1);
		strcpy(f, name + len);
		strcat(f, kinds[i].suffix);
		return f;
	}
	return NULL;
}

/* Open an input section from its name and the "0xADDR 0xSIZE [file]" tokens. */
static int map_section_open(struct map_parse *mp, const char *name, char *rest)
{
	char *save = NULL;
	char *a = strtok_r(rest, " \t\r\n", &save), *s = strtok_r(NULL, " \t\r\n", &save);

	map_section_close(mp);
	if (map_hex(a, &mp->sec_addr) < 0 || map_hex(s, &mp->sec_size) < 0)
		return map_error(mp, "input section without a valid address and size");
	if (mp->sec_addr + mp->sec_size < mp->sec_addr)
		return map_error(mp, "input section wraps around the address space");
	mp->sec_open = true;
	mp->sec_func = strcmp(name, ".text") == 0 ? NULL : map_section_func(name);
	return 0;
}

/* A line "   0xADDR   name" inside .text: a global symbol of the current
 * input section; assignments (name = .) and PROVIDE lines are skipped. */
static int map_symbol(struct map_parse *mp, char *line)
{
	char *save = NULL, *a = strtok_r(line, " \t\r\n", &save), *name;
	uint64_t addr;

	if (map_hex(a, &addr) < 0)
		return map_error(mp, "bad address");
	name = strtok_r(NULL, "\r\n", &save);
	if (name == NULL)
		return map_error(mp, "address without a symbol name");
	name += strspn(name, " \t");
	if (name[0] == '\0' || strpbrk(name, "=( \t") != NULL)
		return 0;
	if (!mp->sec_open)
		return map_error(mp, "symbol outside any input section");
	if (addr < mp->sec_addr || addr - mp->sec_addr >= mp->sec_size)
		return map_error(mp, "symbol address outside its input section");
	if (mp->nsyms == mp->cap) {
		mp->cap = mp->cap ? mp->cap * 2 : 16;
		mp->syms = xrealloc(mp->syms, mp->cap * sizeof *mp->syms);
	}
	mp->syms[mp->nsyms].addr = addr;
	mp->syms[mp->nsyms].name = xstrndup(name, SYM_MAX_NAME);
	mp->nsyms++;
	return 0;
}

/* One line of the memory map. */
static int map_line(struct map_parse *mp, char *line)
{
	size_t indent = strspn(line, " ");
	char *body = line + indent;

	if (!mp->in_map) {
		mp->in_map = strncmp(line, "Linker script and memory map", 28) == 0;
		return 0;
	}
	if (mp->wrapped != NULL) {
		char *name = mp->wrapped;
		int r;

		mp->wrapped = NULL;
		r = indent > 1 && strncmp(body, "0x", 2) == 0 ? map_section_open(mp, name, body) :
		    map_error(mp, "wrapped input section name not followed by its address");
		free(name);
		return r;
	}
	if (indent == 0 && body[0] != '\0' && body[0] != '\n') {
		char *save = NULL, *tok = strtok_r(body, " \t\r\n", &save);

		map_section_close(mp);
		mp->in_text = tok != NULL && strcmp(tok, ".text") == 0;
		return 0;
	}
	if (!mp->in_text)
		return 0;
	if (indent == 1 && body[0] == '.') {
		char *save = NULL, *name = strtok_r(body, " \t\r\n", &save);
		char *rest = strtok_r(NULL, "\r\n", &save);

		if (rest == NULL || rest[strspn(rest, " \t")] == '\0') {
			mp->wrapped = xstrdup(name);
			return 0;
		}
		return map_section_open(mp, name, rest);
	}
	if (indent > 1 && strncmp(body, "0x", 2) == 0)
		return map_symbol(mp, body);
	return 0;                     /* *fill*, *(patterns), COMMON, blank, ... */
}

/* See symbols_int.h. */
int sym_map_read(const char *path, struct sym_vec *out, char *err, size_t errlen)
{
	struct map_parse mp = { .path = path, .out = out, .err = err, .errlen = errlen };
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (f == NULL) {
		snprintf(err, errlen, "cannot open map file %s: %s", path, strerror(errno));
		return -1;
	}
	while (ret == 0 && (n = getline(&line, &cap, f)) >= 0) {
		mp.line++;
		if (n > MAP_MAX_LINE)
			ret = map_error(&mp, "line too long: not a GNU ld map file?");
		else if (memchr(line, '\0', (size_t)n) != NULL)
			ret = map_error(&mp, "binary data: not a GNU ld map file?");
		else
			ret = map_line(&mp, line);
	}
	if (ret == 0 && ferror(f))
		ret = map_error(&mp, strerror(errno ? errno : EIO));
	if (ret == 0 && mp.wrapped != NULL)
		ret = map_error(&mp, "file ends inside an input section line");
	map_section_close(&mp);
	if (ret == 0 && !mp.in_map) {
		snprintf(err, errlen, "%s: not a GNU ld map file (no \"Linker script and memory "
		    "map\" section)", path);
		ret = -1;
	}
	if (ret == 0 && out->n == 0) {
		snprintf(err, errlen, "%s: no function symbols in its .text section", path);
		ret = -1;
	}
	for (size_t i = 0; i < mp.nsyms; i++)
		free(mp.syms[i].name);
	free(mp.syms);
	free(mp.sec_func);
	free(mp.wrapped);
	free(line);
	fclose(f);
	if (ret < 0)
		sym_vec_free(out);
	return ret;
}
