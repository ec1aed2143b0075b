/* exe-base.h - the load bias of the test executable (0 unless PIE), for
 * tests that turn symbol offsets into runtime addresses. */
#ifndef HOOKSCOPE_TEST_EXE_BASE_H
#define HOOKSCOPE_TEST_EXE_BASE_H

#include <link.h>
#include <stdint.h>

/* dl_iterate_phdr callback: the first object is the executable. */
static inline int test_base_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1;
}

/* Load bias of this executable. */
static inline uintptr_t test_exe_base(void)
{
	uintptr_t base = 0;

	dl_iterate_phdr(test_base_cb, &base);
	return base;
}

#endif
