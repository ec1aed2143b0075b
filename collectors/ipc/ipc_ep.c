/*
 * ipc_ep.c - the IPC endpoint table: what a call talks to (kind, peer name,
 * method, peer process).  Append-only: an endpoint never changes once
 * published (but its peer, filled later by the reporter for pipes), so the
 * wrappers look endpoints up without a lock; creation, once per new peer,
 * takes a mutex.  The last slot is "other": everything past the table.
 */
#include <pthread.h>
#include <string.h>

#include "ipc_int.h"

static struct ipc_ep ipc_eps[IPC_MAX_EP];
static uint32_t ipc_neps;                 /* published count (release) */
static pthread_mutex_t ipc_ep_lock = PTHREAD_MUTEX_INITIALIZER;

const char *const ipc_kind_names[IPC_K_COUNT] = {
	[IPC_K_NONE] = "?", [IPC_K_OTHER] = "other", [IPC_K_UNIX] = "unix",
	[IPC_K_UNIX_DGRAM] = "unix-dgram", [IPC_K_PIPE] = "pipe", [IPC_K_FIFO] = "fifo",
	[IPC_K_MQ] = "mq", [IPC_K_DBUS] = "dbus", [IPC_K_SDBUS] = "sd-bus",
	[IPC_K_BINDER] = "binder", [IPC_K_NET] = "net",
};

/* FNV-1a over the key's parts. */
static uint32_t ipc_ep_hash(uint8_t kind, const char *name, const char *method, const char *comm)
{
	uint32_t h = 2166136261u ^ kind;
	const char *parts[3] = { name, method, comm };

	for (int i = 0; i < 3; i++) {
		for (const char *p = parts[i]; *p; p++)
			h = (h ^ (uint8_t)*p) * 16777619u;
		h = (h ^ 0xff) * 16777619u;
	}
	return h;
}

/* Endpoint i matches the key? */
static bool ipc_ep_match(const struct ipc_ep *e, uint8_t kind, uint32_t h, const char *name,
    const char *method, const char *comm)
{
	return e->hash == h && e->kind == kind && strcmp(e->name, name) == 0 &&
	    strcmp(e->method, method) == 0 && strcmp(e->key_comm, comm) == 0;
}

/* Index of the key among the first n endpoints, or -1. */
static int ipc_ep_find(uint32_t n, uint8_t kind, uint32_t h, const char *name, const char *method,
    const char *comm)
{
	for (uint32_t i = 0; i < n; i++)
		if (ipc_ep_match(&ipc_eps[i], kind, h, name, method, comm))
			return (int)i;
	return -1;
}

/* Copy s into d (cap bytes), cut to fit. */
static void ipc_ep_copy(char *d, size_t cap, const char *s)
{
	size_t n = strlen(s);

	if (n >= cap)
		n = cap - 1;
	memcpy(d, s, n);
	d[n] = '\0';
}

/* See ipc_int.h.  Keys are compared as stored (cut to the field sizes). */
uint16_t ipc_ep_get(uint8_t kind, const char *name, const char *method, int32_t peer_pid,
    const char *peer_comm)
{
	struct ipc_ep key = { .kind = kind };
	uint32_t n = __atomic_load_n(&ipc_neps, __ATOMIC_ACQUIRE);
	int i;

	ipc_ep_copy(key.name, sizeof key.name, name ? name : "");
	ipc_ep_copy(key.method, sizeof key.method, method ? method : "");
	ipc_ep_copy(key.key_comm, sizeof key.key_comm, peer_comm ? peer_comm : "");
	memcpy(key.peer_comm, key.key_comm, sizeof key.peer_comm);
	key.hash = ipc_ep_hash(kind, key.name, key.method, key.key_comm);
	if ((i = ipc_ep_find(n, kind, key.hash, key.name, key.method, key.key_comm)) >= 0)
		return (uint16_t)i;
	pthread_mutex_lock(&ipc_ep_lock);
	n = ipc_neps;
	i = ipc_ep_find(n, kind, key.hash, key.name, key.method, key.key_comm);
	if (i < 0 && n < IPC_MAX_EP - 1) {
		key.peer_pid = peer_pid;
		ipc_eps[n] = key;
		__atomic_store_n(&ipc_neps, n + 1, __ATOMIC_RELEASE);
		i = (int)n;
	} else if (i < 0) {
		i = IPC_MAX_EP - 1;
		if (ipc_eps[i].name[0] == '\0') {
			ipc_eps[i].kind = IPC_K_OTHER;
			strcpy(ipc_eps[i].name, "(other endpoints)");
		}
	}
	pthread_mutex_unlock(&ipc_ep_lock);
	return (uint16_t)i;
}

/* See ipc_int.h.  The first fd seen sets the mode (a later fd of the
 * other end, a pipe to oneself, keeps it). */
uint16_t ipc_ep_get_pipe(uint8_t kind, const char *name, int acc)
{
	uint16_t i = ipc_ep_get(kind, name, "", 0, "");

	int none = 0;

	/* the reporter reads it without the lock */
	__atomic_compare_exchange_n(&ipc_eps[i].acc, &none, acc + 1, false, __ATOMIC_RELAXED,
	    __ATOMIC_RELAXED);
	return i;
}

/* See ipc_int.h. */
uint32_t ipc_ep_count(void)
{
	return __atomic_load_n(&ipc_neps, __ATOMIC_ACQUIRE);
}

/* See ipc_int.h. */
const struct ipc_ep *ipc_ep_at(uint32_t i)
{
	return i < IPC_MAX_EP ? &ipc_eps[i] : NULL;
}

/* See ipc_int.h: another thread may have held the lock when fork() copied it. */
void ipc_ep_atfork_child(void)
{
	pthread_mutex_init(&ipc_ep_lock, NULL);
}

/* See ipc_int.h.  Only the reporter writes it; the wrappers never read it. */
void ipc_ep_set_peer(uint32_t i, int32_t pid, const char *comm)
{
	if (i >= IPC_MAX_EP)
		return;
	ipc_eps[i].peer_pid = pid;
	ipc_ep_copy(ipc_eps[i].peer_comm, sizeof ipc_eps[i].peer_comm, comm);
}
