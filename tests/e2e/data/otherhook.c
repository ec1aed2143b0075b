/*
 * otherhook.c - another LD_PRELOAD hook library, as a user may already run
 * one (tests/e2e/fault-agent.sh): it interposes pthread_create, dlopen and
 * dlclose like the hookscope agent does and forwards with RTLD_NEXT, and is
 * built with -finstrument-functions so its own wrappers enter the agent's
 * hooks while the agent's wrappers may be on the stack (recursion guard).
 * Prints its counts to stderr at exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long creates, opens, closes;

struct other_start {
	void *(*fn)(void *);
	void *arg;
};

/* Instrumented: runs first in every new thread. */
static void *other_thread(void *p)
{
	struct other_start s = *(struct other_start *)p;

	free(p);
	return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	static int (*next)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	struct other_start *s = malloc(sizeof *s);

	if (next == NULL)
		*(void **)&next = dlsym(RTLD_NEXT, "pthread_create");
	__atomic_add_fetch(&creates, 1, __ATOMIC_RELAXED);
	s->fn = fn;
	s->arg = arg;
	return next(t, a, other_thread, s);
}

void *dlopen(const char *file, int mode)
{
	static void *(*next)(const char *, int);

	if (next == NULL)
		*(void **)&next = dlsym(RTLD_NEXT, "dlopen");
	opens++;
	return next(file, mode);
}

int dlclose(void *h)
{
	static int (*next)(void *);

	if (next == NULL)
		*(void **)&next = dlsym(RTLD_NEXT, "dlclose");
	closes++;
	return next(h);
}

__attribute__((destructor)) static void other_report(void)
{
	fprintf(stderr, "otherhook: %lu pthread_create, %lu dlopen, %lu dlclose\n",
	    creates, opens, closes);
}
