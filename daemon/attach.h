/*
 * attach.h - attaching the agent to a running process and detaching it
 * (attach*.c, inject*.c): ptrace-held threads made to call functions, the
 * ELF and /proc readers they need.  Only the attach code and its commands
 * include it.
 */
#ifndef HOOKSCOPE_DAEMON_ATTACH_H
#define HOOKSCOPE_DAEMON_ATTACH_H

#include <sys/user.h>
#include "daemon.h"

#define ATTACH_GRACE_S_DEFAULT  60       /* attached agent: self-detach after the daemon is gone */
#define ATTACH_CALL_MS          10000    /* an injected call must return within this */

/* inject.c: one thread of a target held with ptrace, made to call functions. */
struct inject_thread {
	pid_t pid, tid;
	int   memfd;                      /* /proc/PID/mem */
	bool  seized, dirty, gone;
	int   pending_sig;                /* the program's signal held back */
	struct user_regs_struct regs;     /* as stopped */
	unsigned char xstate[16384] __attribute__((aligned(64)));
	size_t xstate_len;
};
#define INJECT_ARG_DATA  (~0ull)          /* argument = address of the copied data */
struct inject_req {
	uint64_t fn;                      /* address in the target */
	uint64_t args[6];
	int      nargs;
	const void *data;                 /* copied below the red zone */
	size_t   datalen;
	unsigned timeout_ms;
};
/* Seize and stop tid (a thread of pid), saving its registers: 0, or -1 with
 * err ("ptrace: Operation not permitted": the caller explains). */
int  inject_seize(struct inject_thread *t, pid_t pid, pid_t tid, char *err, size_t errlen);
/* Run one call to completion; 0 with *ret (RAX), or -1 with err. */
int  inject_call(struct inject_thread *t, const struct inject_req *q, uint64_t *ret,
    char *err, size_t errlen);
int  inject_read(struct inject_thread *t, uint64_t addr, void *buf, size_t len);
/* Registers and state back as found; detach (the held signal delivered). */
void inject_release(struct inject_thread *t);

/* attach.c: the whole attach and the command-line detach. */
struct attach_req {
	pid_t       pid;
	int         level;                /* 0-4 */
	unsigned    grace_s;              /* agent's self-detach delay, 0 = never */
	const char *socket_path;          /* the daemon socket the agent dials */
	const char *agent;                /* absolute path of libhookscope.so */
};
/* 0 with msg saying what happened, or -1 with msg "cannot attach to PID: why
 * (what to do)"; the process is left as it was on every failure. */
int  daemon_attach(const struct attach_req *a, char *msg, size_t msglen);
/* Make the agent of pid detach (an injected hookscope_detach call) and wait
 * up to wait_ms for it to leave /proc/PID/maps; 0 or -1, msg as above. */
int  daemon_detach(pid_t pid, unsigned wait_ms, char *msg, size_t msglen);
int  attach_wait_unloaded(pid_t pid, unsigned ms);
/* Why ptrace was refused (tracer, Yama, user), with what to do. */
void attach_explain_eperm(pid_t pid, char *buf, size_t len);

/* attach_cli.c: "hookscoped attach|detach PID": the exit status. */
int  daemon_attach_main(const struct daemon_opts *o);
/* At shutdown with --detach-on-exit: detach every live attached session. */
void daemon_attach_shutdown(struct daemon_state *d);

/* attach_proc.c: /proc readers. */
int  attach_proc_status(pid_t pid, pid_t tid, const char *field, char *out, size_t len);
int  attach_proc_module(pid_t pid, const char *prefix, char *path, size_t pathlen,
    uint64_t *start);
pid_t attach_proc_pick_thread(pid_t pid);

/* attach_ps.c: the processes one could attach to, one per line (heap),
 * those whose name or command line contains filter (NULL: all). */
char *attach_ps_list(const char *filter, size_t *count);

/* inject_elf.c: reading an ELF file of the target. */
/* 0 when path is an ELF64 x86-64 file, else -1 with err naming what it is. */
int  inject_elf_check(const char *path, char *err, size_t errlen);
/* The value of the defined dynamic symbol name (.dynsym) and the vaddr of
 * the first PT_LOAD (load bias = mapping of offset 0 - it): 0 or -1. */
int  inject_elf_symbol(const char *path, const char *name, uint64_t *value,
    uint64_t *first_vaddr, char *err, size_t errlen);

#endif
