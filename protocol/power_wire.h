/*
 * power_wire.h - the power part of the wire: held resources, their charge and
 * the charge per category ("power").
 * Its row in the parts table (parts.h) is defined in power.c.
 */
#ifndef HOOKSCOPE_PROTOCOL_POWER_WIRE_H
#define HOOKSCOPE_PROTOCOL_POWER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_MAX_PWR_RES   256           /* resources in one map */
#define PROTO_MAX_PWR_CATS  32            /* categories in one map */

struct proto_pwr_res {
	char    *category;                /* wakelock, sensor, location, bluetooth-scan, alarm, ... */
	char    *name;                    /* the resource's tag */
	char    *api;                     /* the acquiring symbol */
	char    *item;                    /* power_profile item of its row, "-" none */
	double   ma;                      /* agent: the resource's own current (power=), -1 none */
	bool     refcount, held, leaked;  /* leaked: held at exit or past the hold threshold */
	int64_t  refs;
	uint64_t held_ns;                 /* the current hold so far, 0 when not held */
	uint64_t total_ns;                /* every hold, the current one included */
	uint64_t longest_ns;
	uint64_t acquires, releases, timeouts, unmatched, oneshots;
	int32_t  holder_tid, releaser_tid;
	size_t   nholder, nreleaser;      /* symbolized stacks, "func+0xoff (module)" */
	char   **holder, **releaser;
	double   mah;                     /* daemon: estimated charge, -1 not priced */
	double   price_ma;                /* daemon: the current used */
	char    *price_from;              /* daemon: "cpu.idle", "sensor power", "" */
};

/* Charge per category (daemon). */
struct proto_pwr_cat {
	char    *category;
	double   mah;
	uint64_t total_ns;
	uint32_t held;                    /* resources held now */
	uint32_t leaks;
};

struct proto_power {
	uint64_t time_ns;                 /* agent monotonic clock of the figures */
	uint64_t hold_ns;                 /* leak threshold */
	bool     exited;                  /* the final report: held now = leaked */
	char    *table;                   /* the API table loaded */
	uint64_t rows, errors, lost;      /* table rows, malformed rows, resources not kept */
	size_t   nres;
	struct proto_pwr_res *res;
	char    *profile;                 /* daemon: power_profile path, "" none */
	char    *warning;                 /* daemon: e.g. the AOSP dummy profile, "" */
	double   cpu_ma;                  /* daemon: CPU active current (estimate basis), -1 */
	size_t   ncats;
	struct proto_pwr_cat *cats;
};

void proto_power_copy(struct proto_power *dst, const struct proto_power *src);
void proto_power_free(struct proto_power *p);

/* The field tables (power.c). */
struct proto_struct;
extern const struct proto_struct proto_power_desc, proto_pwr_res_desc, proto_pwr_cat_desc;

#endif
