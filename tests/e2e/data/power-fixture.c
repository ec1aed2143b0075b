/*
 * power-fixture.c - a stand-in library exporting the Android power and
 * sensor symbols (and BlueZ's hci_le_set_scan_enable, which needs an HCI
 * adapter this machine does not have), for tests/e2e/power-*.sh.  The
 * agent sees the calls through the program's GOT as it would see the real
 * libraries'.  Like Android's libhardware_legacy, acquire_wake_lock and
 * release_wake_lock write the name to /sys/power/wake_lock and wake_unlock
 * (under $HOOKSCOPE_POWER_SYSFS): the agent must count such a nested call
 * once, for the outer API.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct ASensor ASensor;
typedef struct ASensorEventQueue ASensorEventQueue;
struct ASensor { float power_ma; };

static int calls;

/* Write id to DIR/sys/power/FILE, as libhardware_legacy does; -1 on error. */
static int sysfs_write(const char *file, const char *id)
{
	const char *dir = getenv("HOOKSCOPE_POWER_SYSFS");
	char p[512];
	int fd, r;

	snprintf(p, sizeof p, "%s/sys/power/%s", dir ? dir : "", file);
	if ((fd = open(p, O_WRONLY)) < 0)
		return -1;
	r = write(fd, id, strlen(id)) < 0 ? -1 : 0;
	close(fd);
	return r;
}

int acquire_wake_lock(int lock, const char *id) { (void)lock; calls++; return sysfs_write("wake_lock", id); }
int release_wake_lock(const char *id) { calls++; return sysfs_write("wake_unlock", id); }
int ASensorEventQueue_enableSensor(ASensorEventQueue *q, const ASensor *s)
{ (void)q; (void)s; calls++; return 0; }
int ASensorEventQueue_disableSensor(ASensorEventQueue *q, const ASensor *s)
{ (void)q; (void)s; calls++; return 0; }
int ASensorEventQueue_registerSensor(ASensorEventQueue *q, const ASensor *s, int32_t period_us,
    int64_t latency_us)
{ (void)q; (void)s; (void)period_us; (void)latency_us; calls++; return 0; }
float ASensor_getPower(const ASensor *s) { return s->power_ma; }
int hci_le_set_scan_enable(int dd, uint8_t enable, uint8_t filter_dup, int to)
{ (void)dd; (void)enable; (void)filter_dup; (void)to; calls++; return 0; }
/* Not in the shipped table: a test copy adds rows for these. */
int fixture_lock_get(const char *name) { (void)name; return ++calls; }
int fixture_lock_put(const char *name) { (void)name; return ++calls; }
int fixture_calls(void) { return calls; }
