/*
 * block_unwind.c - the stack of a UI thread that waits in a system call,
 * walked by the watchdog from outside, so the wait is not interrupted (a
 * signal would end a nanosleep early with EINTR: signal(7)).
 *
 * /proc/self/task/TID/syscall gives the thread's user stack pointer and pc
 * while it is in a system call; libunwind's generic (remote) interface
 * walks from there with the DWARF unwind tables of this process (the local
 * address space's lookup), reading memory with process_vm_readv so a stack
 * that changes under the walk (the thread woke up) yields an error, never a
 * fault.  Registers other than pc and sp are unknown: a frame whose rule
 * needs one (rbp-based frames reached before any frame saved rbp) ends the
 * walk; the caller then falls back to the signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <libunwind.h>

#include "agent.h"
#include "block_int.h"
#include "timing.h"

/* What the accessors know of the thread. */
struct block_uw_regs {
	unw_word_t pc, sp;
	const struct tm_block *tm;        /* its timed calls (pinned), or NULL */
};

/* Read one word of this process without faulting.  A timed call's return
 * address reads as the real one, not its engine block's return point (which
 * has no unwind information and would end the walk). */
static int block_uw_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *arg)
{
	struct iovec local = { val, sizeof *val }, remote = { (void *)(uintptr_t)addr, sizeof *val };
	const struct block_uw_regs *r = arg;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)sizeof *val)
		return -UNW_EINVAL;
	*val = timing_shadow_real(r->tm, (uintptr_t)addr, (uintptr_t)*val);
	return 0;
}

/* pc and sp; every other register is unknown. */
static int block_uw_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write, void *arg)
{
	struct block_uw_regs *r = arg;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg == UNW_REG_IP)
		*val = r->pc;
	else if (reg == UNW_REG_SP)
		*val = r->sp;
	else
		return -UNW_EBADREG;
	return 0;
}

/* No floating-point registers. */
static int block_uw_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
    void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

/* Never resumed. */
static int block_uw_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL;
}

/* The address space, made once (watchdog thread only). */
static unw_addr_space_t block_uw_space(void)
{
	static unw_addr_space_t as;
	unw_accessors_t acc, *local;

	if (as != NULL)
		return as;
	local = unw_get_accessors(unw_local_addr_space);
	memset(&acc, 0, sizeof acc);
	acc.find_proc_info = local->find_proc_info;
	acc.put_unwind_info = local->put_unwind_info;
	acc.get_dyn_info_list_addr = local->get_dyn_info_list_addr;
	acc.access_mem = block_uw_mem;
	acc.access_reg = block_uw_reg;
	acc.access_fpreg = block_uw_fpreg;
	acc.resume = block_uw_resume;
	as = unw_create_addr_space(&acc, 0);
	if (as != NULL)
		unw_set_caching_policy(as, UNW_CACHE_NONE);
	return as;
}

/* See block.h. */
int block_unwind_sleeping(int32_t tid, struct block_sample *out)
{
	unw_addr_space_t as = block_uw_space();
	struct block_uw_regs regs;
	unw_cursor_t c;
	uint32_t k = 0;

	if (agent_task_waiting(tid, &regs.sp, &regs.pc) < 0)
		return -1;
	regs.tm = timing_shadow_pin(tid);
	if (as != NULL && unw_init_remote(&c, as, &regs) == 0) {
		do {
			unw_word_t ip;

			if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
				break;
			out->pc[k++] = (uintptr_t)ip;
		} while (k < BLOCK_FRAMES && unw_step(&c) > 0);
	}
	timing_shadow_unpin();
	out->n = k;
	/* A walk that got past the system call's own frame keeps what it has
	 * (a signal would end the thread's sleep); one that did not is no walk
	 * (under a user-mode emulator the kernel's registers are the
	 * emulator's): the signal is the way. */
	return k >= 2 ? 0 : -1;
}
