/*
 * dbusapp.c - a D-Bus service and clients for the IPC tests, on the bus at
 * ADDRESS (a private dbus-daemon the test starts).
 *   dbusapp service ADDRESS NAME   own NAME; answer org.hookscope.Test.Ping
 *       (echo a string), Add (two int32 -> their sum), Slow (after 150 ms)
 *       and Quit (prints "dbusapp: served Ping=P Add=A Slow=S", exits).
 *   dbusapp client ADDRESS NAME P A S   libdbus: P Pings with
 *       dbus_connection_send_with_reply_and_block, A Adds through the
 *       pending-call path (send_with_reply, pending_call_block,
 *       steal_reply), S Slows (blocking), then Quit.
 *   dbusapp sdclient ADDRESS NAME P A   sd-bus: P Pings with
 *       sd_bus_call_method, A Adds with sd_bus_call.
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

#define IFACE "org.hookscope.Test"
#define OBJ   "/org/hookscope/Test"

static long served_ping, served_add, served_slow;
static int quit;

/* Exit with a message. */
static void die(const char *what, const char *why)
{
	fprintf(stderr, "dbusapp: %s: %s\n", what, why ? why : "failed");
	exit(1);
}

/* A private connection to the bus at address, registered. */
static DBusConnection *bus_open(const char *address)
{
	DBusError err;
	DBusConnection *c;

	dbus_error_init(&err);
	if ((c = dbus_connection_open_private(address, &err)) == NULL)
		die("cannot connect", err.message);
	if (!dbus_bus_register(c, &err))
		die("cannot register", err.message);
	return c;
}

/* Answer one method call of the service. */
static DBusHandlerResult handle(DBusConnection *c, DBusMessage *m, void *data)
{
	DBusMessage *r;

	(void)data;
	if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL ||
	    strcmp(dbus_message_get_interface(m) ? dbus_message_get_interface(m) : "", IFACE) != 0)
		return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
	r = dbus_message_new_method_return(m);
	if (dbus_message_is_method_call(m, IFACE, "Ping")) {
		const char *s = "";

		dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
		dbus_message_append_args(r, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
		served_ping++;
	} else if (dbus_message_is_method_call(m, IFACE, "Add")) {
		dbus_int32_t a = 0, b = 0, sum;

		dbus_message_get_args(m, NULL, DBUS_TYPE_INT32, &a, DBUS_TYPE_INT32, &b,
		    DBUS_TYPE_INVALID);
		sum = a + b;
		dbus_message_append_args(r, DBUS_TYPE_INT32, &sum, DBUS_TYPE_INVALID);
		served_add++;
	} else if (dbus_message_is_method_call(m, IFACE, "Slow")) {
		struct timespec ts = { 0, 150000000 };

		nanosleep(&ts, NULL);
		served_slow++;
	} else if (dbus_message_is_method_call(m, IFACE, "Quit")) {
		quit = 1;
	}
	dbus_connection_send(c, r, NULL);
	dbus_message_unref(r);
	return DBUS_HANDLER_RESULT_HANDLED;
}

/* The service: own name, answer until Quit. */
static void service(const char *address, const char *name)
{
	DBusConnection *c = bus_open(address);
	DBusError err;

	dbus_error_init(&err);
	if (dbus_bus_request_name(c, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) !=
	    DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
		die("cannot own the name", err.message);
	dbus_connection_add_filter(c, handle, NULL, NULL);
	printf("dbusapp: serving %s\n", name);
	fflush(stdout);
	while (!quit && dbus_connection_read_write_dispatch(c, -1))
		;
	dbus_connection_flush(c);
	printf("dbusapp: served Ping=%ld Add=%ld Slow=%ld\n", served_ping, served_add, served_slow);
	dbus_connection_close(c);
	dbus_connection_unref(c);
}

/* One blocking call of member with no arguments (or a string for Ping). */
__attribute__((noinline)) static void call_blocking(DBusConnection *c, const char *name,
    const char *member)
{
	DBusMessage *m = dbus_message_new_method_call(name, OBJ, IFACE, member), *r;
	const char *s = "hello";
	DBusError err;

	dbus_error_init(&err);
	if (strcmp(member, "Ping") == 0)
		dbus_message_append_args(m, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
	if ((r = dbus_connection_send_with_reply_and_block(c, m, 5000, &err)) == NULL)
		die(member, err.message);
	dbus_message_unref(r);
	dbus_message_unref(m);
}

/* One Add through the pending-call path; checks the sum. */
static void call_add_pending(DBusConnection *c, const char *name, dbus_int32_t a, dbus_int32_t b)
{
	DBusMessage *m = dbus_message_new_method_call(name, OBJ, IFACE, "Add"), *r;
	DBusPendingCall *p = NULL;
	dbus_int32_t sum = 0;

	dbus_message_append_args(m, DBUS_TYPE_INT32, &a, DBUS_TYPE_INT32, &b, DBUS_TYPE_INVALID);
	if (!dbus_connection_send_with_reply(c, m, &p, 5000) || p == NULL)
		die("Add", "send_with_reply");
	dbus_pending_call_block(p);
	if ((r = dbus_pending_call_steal_reply(p)) == NULL ||
	    !dbus_message_get_args(r, NULL, DBUS_TYPE_INT32, &sum, DBUS_TYPE_INVALID) || sum != a + b)
		die("Add", "bad reply");
	dbus_message_unref(r);
	dbus_pending_call_unref(p);
	dbus_message_unref(m);
}

/* libdbus client. */
static void client(const char *address, const char *name, long ping, long add, long slow)
{
	DBusConnection *c = bus_open(address);
	DBusMessage *q;

	for (long i = 0; i < ping; i++)
		call_blocking(c, name, "Ping");
	for (long i = 0; i < add; i++)
		call_add_pending(c, name, (dbus_int32_t)i, 2);
	for (long i = 0; i < slow; i++)
		call_blocking(c, name, "Slow");
	q = dbus_message_new_method_call(name, OBJ, IFACE, "Quit");
	dbus_message_set_no_reply(q, TRUE);
	dbus_connection_send(c, q, NULL);
	dbus_connection_flush(c);
	dbus_message_unref(q);
	printf("dbusapp: called Ping=%ld Add=%ld Slow=%ld\n", ping, add, slow);
	dbus_connection_close(c);
	dbus_connection_unref(c);
}

/* sd-bus client. */
static void sdclient(const char *address, const char *name, long ping, long add)
{
	sd_bus *bus = NULL;
	int r;

	if ((r = sd_bus_new(&bus)) < 0 || (r = sd_bus_set_address(bus, address)) < 0 ||
	    (r = sd_bus_set_bus_client(bus, 1)) < 0 || (r = sd_bus_start(bus)) < 0)
		die("sd-bus connect", strerror(-r));
	for (long i = 0; i < ping; i++) {
		sd_bus_error e = SD_BUS_ERROR_NULL;
		sd_bus_message *reply = NULL;

		if ((r = sd_bus_call_method(bus, name, OBJ, IFACE, "Ping", &e, &reply, "s", "hi")) < 0)
			die("sd-bus Ping", e.message ? e.message : strerror(-r));
		sd_bus_message_unref(reply);
		sd_bus_error_free(&e);
	}
	for (long i = 0; i < add; i++) {
		sd_bus_error e = SD_BUS_ERROR_NULL;
		sd_bus_message *m = NULL, *reply = NULL;
		int32_t sum = 0;

		if ((r = sd_bus_message_new_method_call(bus, &m, name, OBJ, IFACE, "Add")) < 0 ||
		    (r = sd_bus_message_append(m, "ii", (int32_t)i, 3)) < 0 ||
		    (r = sd_bus_call(bus, m, 0, &e, &reply)) < 0 ||
		    (r = sd_bus_message_read(reply, "i", &sum)) < 0 || sum != (int32_t)i + 3)
			die("sd-bus Add", e.message ? e.message : strerror(r < 0 ? -r : EINVAL));
		sd_bus_message_unref(reply);
		sd_bus_message_unref(m);
		sd_bus_error_free(&e);
	}
	printf("dbusapp: sd-bus called Ping=%ld Add=%ld\n", ping, add);
	sd_bus_flush_close_unref(bus);
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "service") == 0)
		service(argv[2], argv[3]);
	else if (argc >= 7 && strcmp(argv[1], "client") == 0)
		client(argv[2], argv[3], atol(argv[4]), atol(argv[5]), atol(argv[6]));
	else if (argc >= 6 && strcmp(argv[1], "sdclient") == 0)
		sdclient(argv[2], argv[3], atol(argv[4]), atol(argv[5]));
	else {
		fprintf(stderr, "usage: dbusapp service ADDRESS NAME | client ADDRESS NAME P A S | "
		    "sdclient ADDRESS NAME P A\n");
		return 2;
	}
	return 0;
}
