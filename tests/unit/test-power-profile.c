/*
 * test-power-profile.c - power_profile.xml (daemon/power_profile.c): the
 * shipped sample parses; the same file compiled to binary XML by Debian's
 * aapt (an apk built here, the entry taken out with unzip) gives exactly
 * the same items and values; AOSP's dummy profile (every value 0.1) is
 * flagged; the charge formula mAh = ms x mA / 3,600,000 on a known hold;
 * malformed input is an error with a reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "power_profile.h"

/* Read a whole file (fails the test if it cannot). */
static char *test_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void test_pp_plain_and_binary(void **state)
{
	char dir[] = "/tmp/hs-pp.XXXXXX", cmd[2048], path[600], err[256], src[512];
	struct power_profile *plain = calloc(1, sizeof *plain), *bin = calloc(1, sizeof *bin);
	size_t len;
	char *buf;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd, "set -e; cd %s; mkdir -p res/xml; cp '%s/daemon/power_profile.sample.xml' "
	    "res/xml/power_profile.xml; printf '<manifest package=\"org.hookscope.p\"/>\\n' >"
	    " AndroidManifest.xml; aapt package -f -M AndroidManifest.xml -S res -F p.apk;"
	    " unzip -p p.apk res/xml/power_profile.xml > p.axml", dir, getcwd(src, sizeof src));
	if (system(cmd) != 0)
		fail_msg("aapt could not build the binary profile (aapt and unzip are test "
		    "dependencies: make deps)");
	buf = test_read("daemon/power_profile.sample.xml", &len);
	assert_int_equal(power_profile_parse(plain, buf, len, err, sizeof err), 0);
	free(buf);
	snprintf(path, sizeof path, "%s/p.axml", dir);
	buf = test_read(path, &len);
	assert_int_equal(buf[0], 3);            /* RES_XML_TYPE: really binary */
	if (power_profile_parse(bin, buf, len, err, sizeof err) != 0)
		fail_msg("binary profile: %s", err);
	free(buf);
	assert_int_equal(plain->n, bin->n);
	assert_true(plain->n >= 50);
	for (size_t i = 0; i < plain->n; i++) {
		assert_string_equal(plain->items[i].name, bin->items[i].name);
		assert_true(plain->items[i].ma == bin->items[i].ma);
	}
	assert_false(plain->dummy);
	assert_true(power_profile_get(plain, "cpu.idle") == 28.6);
	assert_true(power_profile_get(bin, "bluetooth.controller.rx") == 5.8);
	assert_true(power_profile_get(bin, "gps.signalqualitybased") == 14.33);
	assert_true(power_profile_get(bin, "no.such.item") == -1);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(plain);
	free(bin);
}

static void test_pp_dummy_and_formula(void **state)
{
	static const char dummy[] = "<?xml version=\"1.0\"?>\n<device name=\"Android\">\n"
	    "<!-- all 0.1 -->\n<item name=\"none\">0</item>\n<item name=\"cpu.idle\">0.1</item>\n"
	    "<array name=\"cpu.active\"><value>0.1</value><value>0.1</value></array>\n</device>\n";
	static const char real[] = "<device><item name=\"cpu.idle\">28.6</item></device>";
	struct power_profile *p = calloc(1, sizeof *p);
	char err[256];
	double ms = 400.0, mah;

	(void)state;
	assert_int_equal(power_profile_parse(p, dummy, sizeof dummy - 1, err, sizeof err), 0);
	assert_true(p->dummy);
	assert_int_equal(p->n, 4);
	assert_string_equal(p->items[3].name, "cpu.active[1]");
	assert_int_equal(power_profile_parse(p, real, sizeof real - 1, err, sizeof err), 0);
	assert_false(p->dummy);
	/* the formula the daemon applies: a 400 ms wakelock at cpu.idle */
	mah = ms * power_profile_get(p, "cpu.idle") / 3600000.0;
	assert_true(mah > 0.0031777 && mah < 0.0031778);
	free(p);
}

static void test_pp_malformed(void **state)
{
	static const char *const bad[] = {
		"<device><item name=\"x\">1</item", "no xml here", "<device></device>",
		"\x03\x00\x08\x00\xff\xff\x00\x00", "\x03\x00\x08\x00\x10\x00\x00\x00\x01\x00\x1c\x00\xff",
	};
	struct power_profile *p = calloc(1, sizeof *p);
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		assert_int_equal(power_profile_parse(p, bad[i], strlen(bad[i]) + (i >= 3 ? 5 : 0),
		    err, sizeof err), -1);
		assert_true(err[0] != '\0');
	}
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pp_plain_and_binary),
		cmocka_unit_test(test_pp_dummy_and_formula),
		cmocka_unit_test(test_pp_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
