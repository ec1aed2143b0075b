/*
 * power-app.c - calls every power API of the shipped table with known hold
 * times, measured here with CLOCK_MONOTONIC and printed as
 * "hold NAME NS" lines for tests/e2e/power-rows.sh to compare with
 * hookscope's figures.  SYSFS is the directory standing in for /sys
 * (HOOKSCOPE_POWER_SYSFS); GPSPORT a loopback port where a stand-in gpsd
 * accepts connections.  The "leak" wakelock is never released.
 *   power-app hold GO END: takes the wakelock "held" (through the fixture,
 *   which writes the stand-in sysfs file), says "power-app: holding", waits
 *   for the file GO, releases it, says "power-app: released", waits for END
 *   (tests/e2e/attach-power.sh attaches in between).
 */
#include <dbus/dbus.h>
#include <fcntl.h>
#include <gps.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

struct ASensor { float power_ma; };
int acquire_wake_lock(int lock, const char *id);
int release_wake_lock(const char *id);
int ASensorEventQueue_enableSensor(void *q, const struct ASensor *s);
int ASensorEventQueue_disableSensor(void *q, const struct ASensor *s);
int ASensorEventQueue_registerSensor(void *q, const struct ASensor *s, int32_t p, int64_t l);
int hci_le_set_scan_enable(int dd, uint8_t enable, uint8_t filter_dup, int to);
int fixture_lock_get(const char *name);
int fixture_lock_put(const char *name);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Write s to DIR/path with open + write + close. */
static void sysfs_write(const char *dir, const char *path, const char *s)
{
	char p[512];
	int fd;

	snprintf(p, sizeof p, "%s%s", dir, path);
	if ((fd = open(p, O_WRONLY)) < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		perror(p);
		exit(1);
	}
	close(fd);
}

#define HOLD(name, ms, take, give) do { \
	uint64_t t0; \
	take; \
	t0 = now_ns(); \
	nap_ms(ms); \
	give; \
	printf("hold %s %llu\n", name, (unsigned long long)(now_ns() - t0)); \
} while (0)

int main(int argc, char **argv)
{
	const char *sysfs = argc > 1 ? argv[1] : "";
	struct ASensor accel = { 5.0f }, gyro = { 6.5f };
	int q = 0, tfd;
	DBusMessage *m;
	struct gps_data_t gps;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "hold") == 0) {
		acquire_wake_lock(1, "held");
		printf("power-app: holding\n");
		while (access(argv[2], F_OK) != 0)
			nap_ms(20);
		release_wake_lock("held");
		printf("power-app: released\n");
		while (access(argv[3], F_OK) != 0)
			nap_ms(20);
		return 0;
	}
	nap_ms(300);          /* the agent connects */
	HOLD("wl", 400, acquire_wake_lock(1, "wl"), release_wake_lock("wl"));
	/* not reference-counted: a second acquire does not need a second release */
	HOLD("wl2", 200, (acquire_wake_lock(1, "wl2"), acquire_wake_lock(1, "wl2")),
	    release_wake_lock("wl2"));
	release_wake_lock("never-taken");
	HOLD("accel", 300, ASensorEventQueue_enableSensor(&q, &accel),
	    ASensorEventQueue_disableSensor(&q, &accel));
	HOLD("gyro", 250, ASensorEventQueue_registerSensor(&q, &gyro, 20000, 0),
	    ASensorEventQueue_disableSensor(&q, &gyro));
	HOLD("sys1", 300, sysfs_write(sysfs, "/sys/power/wake_lock", "sys1\n"),
	    sysfs_write(sysfs, "/sys/power/wake_unlock", "sys1\n"));
	/* a timed kernel wakelock: 250 ms, released by the timeout */
	sysfs_write(sysfs, "/sys/power/wake_lock", "sys2 250000000\n");
	printf("hold sys2 %llu\n", 250000000ull);
	HOLD("iio", 200, sysfs_write(sysfs, "/sys/bus/iio/devices/iio:device0/buffer/enable", "1\n"),
	    sysfs_write(sysfs, "/sys/bus/iio/devices/iio:device0/buffer/enable", "0\n"));
	HOLD("hci", 150, hci_le_set_scan_enable(7, 1, 0, 1000), hci_le_set_scan_enable(7, 0, 0, 1000));
	HOLD("discovery", 200,
	    (m = dbus_message_new_method_call("org.bluez", "/org/bluez/hci0", "org.bluez.Adapter1",
	    "StartDiscovery"), dbus_message_unref(m)),
	    (m = dbus_message_new_method_call("org.bluez", "/org/bluez/hci0", "org.bluez.Adapter1",
	    "StopDiscovery"), dbus_message_unref(m)));
	if (argc > 3) {
		if (gps_open("127.0.0.1", argv[3], &gps) != 0) {
			fprintf(stderr, "power-app: cannot reach gpsd on port %s\n", argv[3]);
			return 1;
		}
		HOLD("gps", 350, gps_stream(&gps, WATCH_ENABLE | WATCH_JSON, NULL),
		    gps_stream(&gps, WATCH_DISABLE, NULL));
		gps_close(&gps);
	}
	tfd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	printf("alarm timerfd %s\n", tfd >= 0 ? "ok" : "refused");
	/* rows a test copy of the table adds (reference-counted) */
	HOLD("custom", 300, (fixture_lock_get("custom"), fixture_lock_get("custom")),
	    (fixture_lock_put("custom"), fixture_lock_put("custom")));
	acquire_wake_lock(1, "leak");
	printf("power-app: done\n");
	if (argc > 2)           /* hold on until the file exists */
		while (access(argv[2], F_OK) != 0)
			nap_ms(20);
	return 0;
}
