/*
 * hook_x86.h - the x86-64 relocator (hook_x86.c), the back-end's plan op;
 * the unit test calls it directly.
 */
#ifndef HOOKSCOPE_HOOK_X86_H
#define HOOKSCOPE_HOOK_X86_H

#include <stddef.h>
#include <stdint.h>

#include "hook.h"

/* Relocate the first instructions of the function at addr (size bytes,
 * code = a readable copy or the function itself) so they run at dst and
 * then jump back to addr + n.  Checks the whole function for branches into
 * the patched bytes.  HOOK_OK or the refusal reason. */
enum hook_why hook_x86_plan(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
    struct hook_plan *p);

#endif
