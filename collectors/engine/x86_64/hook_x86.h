/*
 * hook_x86.h - the x86-64 relocator (hook_x86.c), the back-end's plan and
 * sweep ops; the unit test calls them directly.
 */
#ifndef HOOKSCOPE_HOOK_X86_H
#define HOOKSCOPE_HOOK_X86_H

#include <stddef.h>
#include <stdint.h>

#include "hook.h"

/* Relocate the first instructions of the function at addr (size bytes,
 * code = a readable copy or the function itself) so they run at dst and
 * then jump back to addr + n (a relocated call returns there itself; the
 * back-end's plan op).  HOOK_OK or the
 * refusal reason. */
enum hook_why hook_x86_relocate(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    struct hook_plan *p);
/* Check the whole function for direct branches into its first n bytes
 * (the back-end's sweep op).  HOOK_OK or HOOK_R_INTO / HOOK_R_DECODE. */
enum hook_why hook_x86_check(const uint8_t *code, size_t size, uint64_t addr, size_t n);

#endif
