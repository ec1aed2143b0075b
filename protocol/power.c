/*
 * power.c - the "power" map, shared by the agent's "power" record (the
 * ledger) and the daemon's frames (the ledger priced: mAh per resource and
 * per category, the profile used and its warning).  doc/protocol.md.
 */
#include "protocol.h"
#include "field.h"
#include "parts.h"

#define PWR_MAX_STACK 16

#define R struct proto_pwr_res
static const struct proto_field pwr_res_fields[] = {
	PF_ROW("category", PF_STR, R, category, 0),
	PF_ROW("name", PF_STR, R, name, 0),
	PF_ROW("api", PF_STR, R, api, 0),
	PF_ROW("item", PF_STR, R, item, 0),
	PF_F64_ROW("ma", R, ma, -1),
	PF_ROW("refcount", PF_BOOL, R, refcount, 0),
	PF_ROW("held", PF_BOOL, R, held, 0),
	PF_ROW("leaked", PF_BOOL, R, leaked, 0),
	PF_ROW("refs", PF_I64, R, refs, 0),
	PF_ROW("held_ns", PF_U64, R, held_ns, 0),
	PF_ROW("total_ns", PF_U64, R, total_ns, 0),
	PF_ROW("longest_ns", PF_U64, R, longest_ns, 0),
	PF_ROW("acquires", PF_U64, R, acquires, 0),
	PF_ROW("releases", PF_U64, R, releases, 0),
	PF_ROW("timeouts", PF_U64, R, timeouts, 0),
	PF_ROW("unmatched", PF_U64, R, unmatched, 0),
	PF_ROW("oneshots", PF_U64, R, oneshots, 0),
	PF_ROW("holder_tid", PF_PID, R, holder_tid, 0),
	PF_ROW("releaser_tid", PF_PID, R, releaser_tid, 0),
	PF_ARR_ROW("holder", PF_STRS, R, holder, nholder, PWR_MAX_STACK, NULL),
	PF_ARR_ROW("releaser", PF_STRS, R, releaser, nreleaser, PWR_MAX_STACK, NULL),
	PF_F64_ROW("mah", R, mah, -1),
	PF_F64_ROW("price_ma", R, price_ma, -1),
	PF_ROW("price_from", PF_STR, R, price_from, 0),
};
#undef R
const struct proto_struct proto_pwr_res_desc =
	PF_STRUCT("a power resource", struct proto_pwr_res, pwr_res_fields);

#define C struct proto_pwr_cat
static const struct proto_field pwr_cat_fields[] = {
	PF_ROW("category", PF_STR, C, category, 0),
	PF_F64_ROW("mah", C, mah, 0),
	PF_ROW("total_ns", PF_U64, C, total_ns, 0),
	PF_ROW("held", PF_U32, C, held, 0),
	PF_ROW("leaks", PF_U32, C, leaks, 0),
};
#undef C
const struct proto_struct proto_pwr_cat_desc =
	PF_STRUCT("a power category", struct proto_pwr_cat, pwr_cat_fields);

#define P struct proto_power
static const struct proto_field power_fields[] = {
	PF_ROW("time_ns", PF_U64, P, time_ns, 0),
	PF_ROW("hold_ns", PF_U64, P, hold_ns, 0),
	PF_ROW("exited", PF_BOOL, P, exited, 0),
	PF_ROW("table", PF_STR, P, table, 0),
	PF_ROW("rows", PF_U64, P, rows, 0),
	PF_ROW("errors", PF_U64, P, errors, 0),
	PF_ROW("lost", PF_U64, P, lost, 0),
	PF_ROW("profile", PF_STR, P, profile, 0),
	PF_ROW("warning", PF_STR, P, warning, 0),
	PF_F64_ROW("cpu_ma", P, cpu_ma, -1),
	PF_ARR_ROW("resources", PF_OBJS, P, res, nres, PROTO_MAX_PWR_RES, &proto_pwr_res_desc),
	PF_ARR_ROW("categories", PF_OBJS, P, cats, ncats, PROTO_MAX_PWR_CATS, &proto_pwr_cat_desc),
	PF_CONST_ROW("version", 1, 0),
};
#undef P
const struct proto_struct proto_power_desc =
	PF_STRUCT("field \"power\"", struct proto_power, power_fields);

/* See power_wire.h. */
void proto_power_copy(struct proto_power *dst, const struct proto_power *src)
{
	proto_struct_copy(&proto_power_desc, dst, src);
}

/* See power_wire.h. */
void proto_power_free(struct proto_power *p)
{
	proto_struct_free(&proto_power_desc, p);
}

/* Its row in the parts table (parts.h). */
const struct proto_part proto_part_power = {
	PROTO_PART_PLACE(power), .key = "power", .ag_time = false, .desc = &proto_power_desc,
};
