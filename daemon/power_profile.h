/*
 * power_profile.h - Android power_profile.xml values (power_profile.c).
 */
#ifndef HOOKSCOPE_POWER_PROFILE_H
#define HOOKSCOPE_POWER_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#define PP_NAME_MAX  64
#define PP_ITEMS_MAX 256

struct power_profile {
	struct { char name[PP_NAME_MAX]; double ma; } items[PP_ITEMS_MAX];
	size_t n;
	bool   dummy;                     /* every value 0.1: AOSP's placeholder file */
};

/* Parse a plain or binary (AXML) power_profile.xml.  0, or -1 with err. */
int power_profile_parse(struct power_profile *p, const void *buf, size_t len,
    char *err, size_t errlen);
/* The value of item name (an array's first value), or -1. */
double power_profile_get(const struct power_profile *p, const char *name);

#endif
