/*
 * threads_bind.c - bind the thread wrappers early.
 *
 * The hook engine resolves a lazily bound import (a GOT entry still pointing
 * at its module's PLT) with dlvsym(name, version the module requires) when it
 * makes import sites.  The agent's exports carry no version, so dlvsym skips
 * them and finds libc's pthread_create@GLIBC_2.34: the target's calls would
 * bypass our wrappers (the ordinary lazy binding would have picked ours).
 * So before the engine's first patch (collector init runs before the first
 * level is applied), every unbound JUMP_SLOT of a loaded module that names
 * one of the thread wrappers is bound here, to what the dynamic linker's own
 * lookup (dlsym(RTLD_DEFAULT)) finds: the same binding its first call would
 * make, only earlier.  A slot already bound is left alone.  x86-64 only
 * (other machines have no hook engine).
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>

#include "threads_int.h"

/* The wrapped names that must bind to the agent. */
static const char *const thr_bind_names[] = {
	"pthread_create", "pthread_join", "pthread_tryjoin_np", "pthread_timedjoin_np",
	"pthread_clockjoin_np", "pthread_detach", "pthread_setname_np", "prctl", "thrd_create",
	"thrd_join", "thrd_detach", "g_thread_pool_new", "g_thread_pool_new_full",
	"g_thread_pool_push", "g_thread_pool_set_sort_function", "g_thread_pool_set_max_threads",
	"g_thread_pool_free", "uv_queue_work",
};

#if defined(__x86_64__)
/* Is name one of ours? */
static bool thr_bind_ours(const char *name)
{
	for (size_t i = 0; i < sizeof thr_bind_names / sizeof thr_bind_names[0]; i++)
		if (strcmp(name, thr_bind_names[i]) == 0)
			return true;
	return false;
}

/* The lowest and highest address of a module's loaded segments. */
static void thr_bind_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
	*lo = UINTPTR_MAX;
	*hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < *lo)
			*lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > *hi)
			*hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
}

/* dl_iterate_phdr callback: bind one module's unbound slots of our names. */
static int thr_bind_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Rela) *rel = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	size_t relsz = 0;
	uintptr_t lo, hi, self = (uintptr_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (dyn == NULL)
		return 0;
	thr_bind_range(info, &lo, &hi);
	if (self >= lo && self < hi)
		return 0;                      /* the agent itself */
	for (; dyn->d_tag != DT_NULL; dyn++) {
		/* the loader relocated these pointers (absolute addresses) */
		if (dyn->d_tag == DT_JMPREL)
			rel = (const ElfW(Rela) *)dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_PLTRELSZ)
			relsz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_SYMTAB)
			symtab = (const ElfW(Sym) *)dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_STRTAB)
			strtab = (const char *)dyn->d_un.d_ptr;
	}
	if (rel == NULL || symtab == NULL || strtab == NULL)
		return 0;
	for (size_t i = 0; i < relsz / sizeof *rel; i++) {
		uintptr_t *slot = (uintptr_t *)(info->dlpi_addr + rel[i].r_offset), cur;
		const char *name;
		void *p;

		if (ELF64_R_TYPE(rel[i].r_info) != R_X86_64_JUMP_SLOT)
			continue;
		name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
		if (!thr_bind_ours(name))
			continue;
		cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
		if (cur < lo || cur >= hi)
			continue;                  /* bound already (or full RELRO) */
		p = dlsym(RTLD_DEFAULT, name);
		if (p != NULL)
			__atomic_store_n(slot, (uintptr_t)p, __ATOMIC_RELAXED);
	}
	return 0;
}
#endif

/* See threads_int.h. */
void threads_bind_early(void)
{
#if defined(__x86_64__)
	dl_iterate_phdr(thr_bind_module, (void *)(uintptr_t)threads_bind_early);
#endif
}
