/*
 * test-attach.c - the parts of attach that read files and /proc
 * (daemon/inject_elf.c, attach_proc.c, attach.c): the ELF checks on
 * hand-made headers, dlopen found in this process's own libc at the address
 * the dynamic linker gives, status fields, thread choice, and the refusal
 * for a pid that does not exist.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "attach.h"

/* Write len bytes to a fresh temporary file; its path (heap). */
static char *write_tmp(const void *buf, size_t len)
{
	char *path = strdup("/tmp/test-attach.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	return path;
}

/* This program passes; a 32-bit i386 header and a text file do not, and
 * the message says what the file is. */
static void test_elf_check(void **state)
{
	Elf32_Ehdr eh32;
	char err[512], *p;

	(void)state;
	assert_int_equal(inject_elf_check("/proc/self/exe", err, sizeof err), 0);
	memset(&eh32, 0, sizeof eh32);
	memcpy(eh32.e_ident, ELFMAG, SELFMAG);
	eh32.e_ident[EI_CLASS] = ELFCLASS32;
	eh32.e_machine = EM_386;
	p = write_tmp(&eh32, sizeof eh32);
	assert_int_equal(inject_elf_check(p, err, sizeof err), -1);
	assert_non_null(strstr(err, "32-bit"));
	assert_non_null(strstr(err, "x86-64"));
	unlink(p);
	free(p);
	p = write_tmp("#!/bin/sh\necho hello\n", 21);
	assert_int_equal(inject_elf_check(p, err, sizeof err), -1);
	assert_non_null(strstr(err, "not an ELF file"));
	unlink(p);
	free(p);
}

/* dlopen of our own libc, located the way attach locates it in a target,
 * is where the dynamic linker says it is. */
static void test_elf_symbol_libc(void **state)
{
	char path[PATH_MAX], err[512];
	uint64_t base, value, first;
	/* libc's own, not an interposer's (a sanitizer runtime has one) */
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *real = libc ? dlsym(libc, "dlopen") : NULL;

	(void)state;
	assert_int_equal(attach_proc_module(getpid(), "libc", path, sizeof path, &base), 0);
	assert_int_equal(inject_elf_symbol(path, "dlopen", &value, &first, err, sizeof err), 0);
	assert_true(real != NULL);
	assert_int_equal(base - first + value, (uint64_t)(uintptr_t)real);
	assert_int_equal(inject_elf_symbol(path, "no_such_function_here", &value, &first,
	    err, sizeof err), -1);
	assert_non_null(strstr(err, "does not export"));
	dlclose(libc);
}

/* Status fields of this process; a thread to borrow exists. */
static void test_proc(void **state)
{
	char v[64];

	(void)state;
	assert_int_equal(attach_proc_status(getpid(), 0, "TracerPid", v, sizeof v), 0);
	assert_string_equal(v, "0");
	assert_int_equal(attach_proc_status(getpid(), getpid(), "Tgid", v, sizeof v), 0);
	assert_int_equal(atoi(v), getpid());
	assert_int_equal(attach_proc_status(getpid(), 0, "NoSuchField", v, sizeof v), -1);
	assert_true(attach_proc_pick_thread(getpid()) > 0);
	assert_int_equal(attach_proc_module(getpid(), "libhookscope", v, sizeof v,
	    &(uint64_t){ 0 }), -1);
}

/* A pid that does not exist is refused with what to do; ps lists at least
 * the init process, never the caller. */
static void test_refusals(void **state)
{
	struct attach_req a = { .pid = INT32_MAX, .level = 2, .socket_path = "/tmp/x.sock",
		.agent = "/nonexistent/libhookscope.so" };
	char msg[1024], self[32];
	size_t n;
	char *list;

	(void)state;
	assert_int_equal(daemon_attach(&a, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "cannot attach to 2147483647: no such process"));
	assert_int_equal(daemon_detach(INT32_MAX, 100, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "no such process"));
	list = attach_ps_list(NULL, &n);
	assert_true(n >= 1);
	snprintf(self, sizeof self, "\n%7d ", (int)getpid());
	assert_null(strstr(list, self));
	free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf_check),
		cmocka_unit_test(test_elf_symbol_libc),
		cmocka_unit_test(test_proc),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
