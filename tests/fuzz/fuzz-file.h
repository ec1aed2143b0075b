/*
 * fuzz-file.h - for targets whose decoder reads a file by path: the input
 * written to a memfd, reachable as /proc/self/fd/N (one per process).
 */
#ifndef HOOKSCOPE_FUZZ_FILE_H
#define HOOKSCOPE_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* The path of a file holding exactly data[0..size). */
static inline const char *
fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		if ((fd = memfd_create("fuzz-input", 0)) < 0)
			__builtin_trap();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		__builtin_trap();
	return path;
}

#endif
