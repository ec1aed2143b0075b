/*
 * power_binder.c - the table's Binder rows ("binder:DESCRIPTOR:CODE"),
 * applied to the outgoing transactions the IPC collector's decoder finds
 * (ipc_binder_observe, on the thread that made the ioctl).  For a Binder
 * row, argN is the Nth 32-bit word of the Parcel after its interface
 * header (ints: a sensor handle, an enable flag), and argN:binder the Nth
 * binder object in it (flat_binder_object: the wakelock token, the location
 * listener), which identifies the resource across acquire and release.
 * Codes are AIDL method positions, which move between Android versions:
 * the shipped rows say which version theirs are from (doc/power.md).
 */
#include <stdlib.h>
#include <string.h>
#include <linux/android/binder.h>

#include "ipc.h"
#include "power_int.h"

#define POWER_BINDER_ROWS 64

static const struct power_row *pb_rows[POWER_BINDER_ROWS];
static char     pb_iface[POWER_BINDER_ROWS][128];
static uint32_t pb_code[POWER_BINDER_ROWS];
static int      pb_n;

/* See power.h. */
void power_binder_init(const struct power_table *t)
{
	for (int i = 0; i < t->nrows && pb_n < POWER_BINDER_ROWS; i++) {
		const struct power_row *r = &t->rows[i];
		const char *c;
		size_t n;

		if (!power_row_binder(r) || (c = strrchr(r->symbol, ':')) == NULL)
			continue;
		n = (size_t)(c - (r->symbol + 7));
		if (n >= sizeof pb_iface[0])
			continue;
		memcpy(pb_iface[pb_n], r->symbol + 7, n);
		pb_iface[pb_n][n] = '\0';
		pb_code[pb_n] = (uint32_t)strtoul(c + 1, NULL, 0);
		pb_rows[pb_n++] = r;
	}
	if (pb_n > 0)
		ipc_binder_observe(power_binder_txn, NULL);
}

/* The value of the idx-th binder object of the Parcel after off (its
 * binder pointer or handle), or 0. */
static long pb_object(const struct ipc_binder_txn *t, int idx)
{
	for (size_t o = t->args_off; o + sizeof(struct flat_binder_object) <= t->data_size; o += 4) {
		struct flat_binder_object f;

		memcpy(&f, t->data + o, sizeof f);
		if (f.hdr.type != BINDER_TYPE_BINDER && f.hdr.type != BINDER_TYPE_WEAK_BINDER &&
		    f.hdr.type != BINDER_TYPE_HANDLE && f.hdr.type != BINDER_TYPE_WEAK_HANDLE)
			continue;
		if (idx-- == 0)
			return f.hdr.type == BINDER_TYPE_HANDLE || f.hdr.type == BINDER_TYPE_WEAK_HANDLE ?
			    (long)f.handle : (long)f.binder;
		o += sizeof f - 4;
	}
	return 0;
}

/* See power.h. */
void power_binder_txn(const struct ipc_binder_txn *t, void *arg)
{
	(void)arg;
	if (t->cmd != BC_TRANSACTION && t->cmd != BC_TRANSACTION_SG)
		return;
	for (int i = 0; i < pb_n; i++) {
		long a[POWER_ARGS] = { 0 };

		if (pb_code[i] != t->code || strcmp(pb_iface[i], t->iface) != 0)
			continue;
		for (int k = 0; k < 6; k++) {
			int32_t w = 0;

			if (t->args_off + 4 * (size_t)k + 4 <= t->data_size)
				memcpy(&w, t->data + t->args_off + 4 * (size_t)k, 4);
			a[k] = w;
		}
		if (pb_rows[i]->res.kind == POWER_K_BINDER)
			a[6] = pb_object(t, pb_rows[i]->res.arg);
		power_row_apply(pb_rows[i], a, 0);
	}
}
