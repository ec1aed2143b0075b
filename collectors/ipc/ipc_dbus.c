/*
 * ipc_dbus.c - D-Bus method calls, keyed by destination and
 * interface.member, timed from request to reply.  libdbus:
 * dbus_connection_send_with_reply_and_block (one blocking call), and the
 * pending-call path (dbus_connection_send_with_reply starts the clock,
 * dbus_pending_call_steal_reply stops it: the round trip as the program
 * sees it, whether it blocked in dbus_pending_call_block or got the reply
 * from its main loop; 64 calls in flight at most, a reply never taken
 * gives its slot to a new call).  sd-bus: sd_bus_call, sd_bus_call_method and
 * sd_bus_call_methodv.  libdbus's blocking call is built on its own
 * pending-call functions through its PLT: a per-thread depth makes the
 * outermost call the only one counted.  Types are opaque here: no build
 * dependency on either library.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "ipc_int.h"

#define API __attribute__((visibility("default")))
#define IPC_PENDING 64

static __thread int ipc_bus_depth;    /* inside a counted D-Bus call */

/* A pending libdbus call waiting for its reply. */
static struct {
	void    *pending;
	uint16_t ep;
	uint64_t t0;
} ipc_pend[IPC_PENDING];
static pthread_mutex_t ipc_pend_lock = PTHREAD_MUTEX_INITIALIZER;

/* fn_: the bus library's function name (next after ours, or anywhere), of
 * type __VA_ARGS__. */
#define IPC_BUS_FN(name, ...) \
	static void *slot_; __typeof__(__VA_ARGS__) fn_ = (__typeof__(__VA_ARGS__))AGENT_REAL(slot_, name, true)

/* The endpoint of a call: destination, interface.member. */
static uint16_t ipc_bus_ep(uint8_t kind, const char *dest, const char *iface, const char *member)
{
	char method[160];

	snprintf(method, sizeof method, "%s%s%s", iface ? iface : "", iface ? "." : "",
	    member ? member : "?");
	return ipc_ep_get(kind, dest ? dest : "(no destination)", method, 0, "");
}

/* The getters of a bus library's messages: destination, interface, member. */
struct ipc_bus_getters {
	uint8_t     kind;
	const char *names[3];
	void       *slots[3];
};
static struct ipc_bus_getters ipc_dbus_get = { IPC_K_DBUS,
	{ "dbus_message_get_destination", "dbus_message_get_interface", "dbus_message_get_member" },
	{ NULL, NULL, NULL } };
static struct ipc_bus_getters ipc_sdbus_get = { IPC_K_SDBUS,
	{ "sd_bus_message_get_destination", "sd_bus_message_get_interface",
	  "sd_bus_message_get_member" }, { NULL, NULL, NULL } };
AGENT_REALS(dbus_get, ipc_dbus_get.slots, ipc_dbus_get.names, 3);
AGENT_REALS(sdbus_get, ipc_sdbus_get.slots, ipc_sdbus_get.names, 3);

/* Endpoint of a message of the library g describes. */
static uint16_t ipc_bus_msg_ep(struct ipc_bus_getters *g, void *msg)
{
	typedef const char *(*get_fn)(void *);
	const char *v[3] = { NULL, NULL, NULL };

	for (int i = 0; i < 3 && msg != NULL; i++) {
		get_fn f = (get_fn)agent_real(&g->slots[i], g->names[i], true);

		v[i] = f != NULL ? f(msg) : NULL;
	}
	return ipc_bus_ep(g->kind, v[0], v[1], v[2]);
}

/* See ipc_int.h. */
void ipc_dbus_atfork_child(void)
{
	pthread_mutex_init(&ipc_pend_lock, NULL);
}

/* Count one finished method call, errno kept. */
static void ipc_bus_done(uint16_t ep, enum ipc_op op, uint64_t t0)
{
	int e = errno;

	ipc_count(ep, IPC_CALL, op, 0, t0, ipc_now());
	errno = e;
}

API void *dbus_connection_send_with_reply_and_block(void *conn, void *msg, int timeout, void *error)
{
	IPC_BUS_FN("dbus_connection_send_with_reply_and_block", void *(*)(void *, void *, int, void *));
	uint16_t ep;
	uint64_t t0;
	void *r;

	if (fn_ == NULL)
		return NULL;
	if (ipc_bus_depth || ipc_is_agent(__builtin_return_address(0)))
		return fn_(conn, msg, timeout, error);
	ep = ipc_bus_msg_ep(&ipc_dbus_get, msg);
	ipc_bus_depth++;
	t0 = ipc_now();
	r = fn_(conn, msg, timeout, error);
	ipc_bus_depth--;
	ipc_bus_done(ep, IPC_OP_DBUS_CALL, t0);
	return r;
}

API uint32_t dbus_connection_send_with_reply(void *conn, void *msg, void **pending, int timeout)
{
	IPC_BUS_FN("dbus_connection_send_with_reply", uint32_t (*)(void *, void *, void **, int));
	uint64_t t0 = ipc_now();
	uint16_t ep;
	uint32_t r;
	int slot = 0;

	if (fn_ == NULL)
		return 0;
	r = fn_(conn, msg, pending, timeout);
	if (ipc_bus_depth || !r || pending == NULL || *pending == NULL)
		return r;
	ep = ipc_bus_msg_ep(&ipc_dbus_get, msg);
	pthread_mutex_lock(&ipc_pend_lock);
	for (int i = 1; i < IPC_PENDING && ipc_pend[slot].pending != NULL; i++)
		if (ipc_pend[i].pending == NULL || ipc_pend[i].t0 < ipc_pend[slot].t0)
			slot = i;          /* a free slot, else the oldest (a reply never taken) */
	ipc_pend[slot].pending = *pending;
	ipc_pend[slot].ep = ep;
	ipc_pend[slot].t0 = t0;
	pthread_mutex_unlock(&ipc_pend_lock);
	return r;
}

API void *dbus_pending_call_steal_reply(void *pending)
{
	IPC_BUS_FN("dbus_pending_call_steal_reply", void *(*)(void *));
	uint64_t t0 = 0;
	uint16_t ep = 0;
	void *r;

	if (fn_ == NULL)
		return NULL;
	r = fn_(pending);
	if (ipc_bus_depth || pending == NULL)
		return r;
	pthread_mutex_lock(&ipc_pend_lock);
	for (int i = 0; i < IPC_PENDING; i++)
		if (ipc_pend[i].pending == pending) {
			ep = ipc_pend[i].ep;
			t0 = ipc_pend[i].t0;
			ipc_pend[i].pending = NULL;
			break;
		}
	pthread_mutex_unlock(&ipc_pend_lock);
	if (t0 != 0 && r != NULL)
		ipc_bus_done(ep, IPC_OP_DBUS_PENDING, t0);
	return r;
}

API int sd_bus_call(void *bus, void *m, uint64_t usec, void *error, void **reply)
{
	IPC_BUS_FN("sd_bus_call", int (*)(void *, void *, uint64_t, void *, void **));
	uint16_t ep;
	uint64_t t0;
	int r;

	if (fn_ == NULL)
		return -ENOSYS;
	if (ipc_bus_depth || ipc_is_agent(__builtin_return_address(0)))
		return fn_(bus, m, usec, error, reply);
	ep = ipc_bus_msg_ep(&ipc_sdbus_get, m);
	ipc_bus_depth++;
	t0 = ipc_now();
	r = fn_(bus, m, usec, error, reply);
	ipc_bus_depth--;
	ipc_bus_done(ep, IPC_OP_SDBUS_CALL, t0);
	return r;
}

API int sd_bus_call_methodv(void *bus, const char *dest, const char *path, const char *iface,
    const char *member, void *error, void **reply, const char *types, va_list ap)
{
	IPC_BUS_FN("sd_bus_call_methodv", int (*)(void *, const char *, const char *, const char *, const char *, void *,
	    void **, const char *, va_list));
	uint16_t ep;
	uint64_t t0;
	int r;

	if (fn_ == NULL)
		return -ENOSYS;
	if (ipc_bus_depth)
		return fn_(bus, dest, path, iface, member, error, reply, types, ap);
	ep = ipc_bus_ep(IPC_K_SDBUS, dest, iface, member);
	ipc_bus_depth++;
	t0 = ipc_now();
	r = fn_(bus, dest, path, iface, member, error, reply, types, ap);
	ipc_bus_depth--;
	ipc_bus_done(ep, IPC_OP_SDBUS_CALL, t0);
	return r;
}

/* Variadic: forwarded to the library's sd_bus_call_methodv (since v246). */
API int sd_bus_call_method(void *bus, const char *dest, const char *path, const char *iface,
    const char *member, void *error, void **reply, const char *types, ...)
{
	va_list ap;
	int r;

	va_start(ap, types);
	r = sd_bus_call_methodv(bus, dest, path, iface, member, error, reply, types, ap);
	va_end(ap);
	return r;
}
