/*
 * hook_why.c - the names of the reasons a function was not patched
 * (engine.h), the same for every back-end.
 */
#include "engine.h"

/* Names of the refusal reasons, as logged and reported. */
const char *hook_why_name(enum hook_why why)
{
	static const char *const names[HOOK_R_COUNT] = {
		[HOOK_OK]       = "ok",
		[HOOK_R_SHORT]  = "too short",
		[HOOK_R_DECODE] = "undecodable instruction",
		[HOOK_R_INTO]   = "branch into the patched bytes",
		[HOOK_R_INSN]   = "instruction not relocatable",
		[HOOK_R_CALL]   = "call inside the patched bytes",
		[HOOK_R_RANGE]  = "relocated target out of reach",
		[HOOK_R_BIG]    = "relocated prologue too large",
		[HOOK_R_BUSY]   = "a thread was inside the patched bytes",
		[HOOK_R_NEAR]   = "no trampoline space within the branch's reach",
		[HOOK_R_STOP]   = "threads could not be stopped",
	};

	return (unsigned)why < HOOK_R_COUNT ? names[why] : "?";
}
