/*
 * symbols_shared.c - a module's table loaded once per process.  The hook
 * engine (its sites' names), the timing selection and the catalogue
 * (sym_resolve) ask for the tables of the same files, and a table costs
 * milliseconds to load (thousands of symbols, often a separate debug file),
 * in every process the agent starts in.  A table is shared by file (device,
 * inode, size and modification time: the executable read as /proc/self/exe
 * is the file its path names) and map file, counted, and freed when its
 * last holder releases it.  Any thread.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol.h"
#include "symbols_int.h"

struct sym_shared {
	struct sym_shared *next;
	dev_t              dev;
	ino_t              ino;
	off_t              size;
	struct timespec    mtime;
	char              *map;           /* the map file merged in, NULL if none */
	struct symtab     *t;
	unsigned           refs;
};

static struct sym_shared *sym_shared_list;
static pthread_mutex_t sym_shared_lock = PTHREAD_MUTEX_INITIALIZER;

/* The entry of the file st with map file map; sym_shared_lock held. */
static struct sym_shared *sym_shared_find(const struct stat *st, const char *map)
{
	for (struct sym_shared *e = sym_shared_list; e != NULL; e = e->next)
		if (e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
		    e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
		    (e->map == NULL ? map == NULL : map != NULL && strcmp(e->map, map) == 0))
			return e;
	return NULL;
}

/* The identity of the file at path, from the open file: a stat of the
 * path can see another file (qemu's user mode answers a stat of
 * /proc/self/exe with its own binary, an open with the program's). */
static bool sym_shared_identity(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = fstat(fd, st) == 0;
	close(fd);
	return ok;
}

/* See symbols_int.h. */
int sym_shared_load(const char *load_path, const char *real_path, struct symtab **out,
    char *err, size_t errlen)
{
	struct symtab_opts opts = { .real_path = real_path };
	char map[4096];
	struct sym_shared *e;
	struct symtab *t;
	struct stat st;

	opts.map_path = sym_map_copy(real_path, map, sizeof map);
	if (!sym_shared_identity(load_path, &st))       /* loaded alone (or the error) */
		return symtab_load_opts(load_path, &opts, out, err, errlen);
	pthread_mutex_lock(&sym_shared_lock);
	e = sym_shared_find(&st, opts.map_path);
	if (e != NULL) {
		e->refs++;
		*out = e->t;
		pthread_mutex_unlock(&sym_shared_lock);
		return 0;
	}
	pthread_mutex_unlock(&sym_shared_lock);
	/* Loaded unlocked (milliseconds); a thread that raced here first wins. */
	if (symtab_load_opts(load_path, &opts, &t, err, errlen) < 0)
		return -1;
	pthread_mutex_lock(&sym_shared_lock);
	e = sym_shared_find(&st, opts.map_path);
	if (e != NULL) {
		symtab_free(t);
	} else {
		e = xcalloc(1, sizeof *e);
		e->dev = st.st_dev;
		e->ino = st.st_ino;
		e->size = st.st_size;
		e->mtime = st.st_mtim;
		e->map = opts.map_path != NULL ? xstrdup(opts.map_path) : NULL;
		e->t = t;
		e->next = sym_shared_list;
		sym_shared_list = e;
	}
	e->refs++;
	*out = e->t;
	pthread_mutex_unlock(&sym_shared_lock);
	return 0;
}

/* See symbols.h. */
int symtab_load_module(const char *path, struct symtab **out, char *err, size_t errlen)
{
	return sym_shared_load(path, path, out, err, errlen);
}

/* See symbols.h. */
void symtab_release(struct symtab *t)
{
	struct sym_shared **p, *e;

	if (t == NULL)
		return;
	pthread_mutex_lock(&sym_shared_lock);
	for (p = &sym_shared_list; *p != NULL && (*p)->t != t; p = &(*p)->next)
		;
	e = *p;
	if (e != NULL && --e->refs > 0) {
		pthread_mutex_unlock(&sym_shared_lock);
		return;
	}
	if (e != NULL)
		*p = e->next;
	pthread_mutex_unlock(&sym_shared_lock);
	if (e != NULL) {
		free(e->map);
		free(e);
	}
	symtab_free(t);
}
