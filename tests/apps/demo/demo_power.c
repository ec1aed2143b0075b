/*
 * demo_power.c - the demo's power scenario: takes a kernel wakelock
 * ("demo-wakelock", written to /sys/power/wake_lock) and enables an IIO
 * sensor buffer (".../iio:device0/buffer/enable"), releases the wakelock
 * half way through and never disables the sensor; a second wakelock
 * ("demo-leaked") is taken and never released.  The power panel shows the
 * first wakelock held and ticking, then released, and the sensor and the
 * second wakelock held on (leaks at exit, or past `threshold hold`).
 *
 * The files are under $HOOKSCOPE_POWER_SYSFS when it is set (make demo and
 * the tests set it to a scratch directory, which the agent strips from the
 * paths: doc/power.md); else the real /sys, which needs root and a kernel
 * with CONFIG_PM_WAKELOCKS and an IIO device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void demo_power_scenario(double seconds);

/* mkdir -p of dir + rel; 0 or -1. */
static int dp_mkdirs(const char *dir, const char *rel)
{
	char p[512];

	snprintf(p, sizeof p, "%s%s", dir, rel);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Write text to dir + rel (created when dir is a scratch directory). */
static void dp_write(const char *dir, const char *rel, const char *text)
{
	char p[512];
	int fd;

	snprintf(p, sizeof p, "%s%s", dir, rel);
	fd = open(p, O_WRONLY | O_CREAT | (*dir ? O_TRUNC : 0), 0644);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		fprintf(stderr, "demo: power scenario: %s: %s\n", p, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void dp_sleep(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* See the top of the file. */
void demo_power_scenario(double seconds)
{
	const char *dir = getenv("HOOKSCOPE_POWER_SYSFS");
	static const char iio[] = "/sys/bus/iio/devices/iio:device0/buffer/enable";

	if (dir == NULL)
		dir = "";
	printf("demo: power scenario for %.0f s: wakelock demo-wakelock held %.0f s then released, "
	    "IIO sensor enabled and wakelock demo-leaked taken, neither ever given back (leaks)%s%s\n", seconds, seconds / 2,
	    *dir ? ", sysfs under " : "", dir);
	fflush(stdout);
	if (*dir && (dp_mkdirs(dir, "/sys/power") < 0 ||
	    dp_mkdirs(dir, "/sys/bus/iio/devices/iio:device0/buffer") < 0))
		fprintf(stderr, "demo: power scenario: cannot make %s: %s\n", dir, strerror(errno));
	dp_write(dir, "/sys/power/wake_lock", "demo-wakelock\n");
	dp_write(dir, iio, "1\n");
	dp_write(dir, "/sys/power/wake_lock", "demo-leaked\n");
	dp_sleep(seconds / 2);
	dp_write(dir, "/sys/power/wake_unlock", "demo-wakelock\n");
	printf("demo: power scenario: demo-wakelock released\n");
	fflush(stdout);
	dp_sleep(seconds / 2);
}
