/*
 * startup.c - the "startup" map, shared by the agent's "startup" record and
 * the daemon's frames (which add the comparison with the previous run), and
 * the phases every reader derives from its points.  doc/startup.md,
 * doc/protocol.md.
 */
#include "protocol.h"
#include "field.h"
#include "parts.h"

#define L struct proto_su_lib
static const struct proto_field su_lib_fields[] = {
	PF_ROW("name", PF_STR, L, name, 0),
	PF_ROW("start_ns", PF_U64, L, start_ns, 0),
	PF_ROW("dur_ns", PF_U64, L, dur_ns, 0),
	PF_ROW("funcs", PF_U32, L, funcs, 0),
};
#undef L
const struct proto_struct proto_su_lib_desc =
	PF_STRUCT("a library's constructors", struct proto_su_lib, su_lib_fields);

#define D struct proto_su_dlopen
static const struct proto_field su_dlopen_fields[] = {
	PF_ROW("name", PF_STR, D, name, 0),
	PF_ROW("start_ns", PF_U64, D, start_ns, 0),
	PF_ROW("dur_ns", PF_U64, D, dur_ns, 0),
	PF_ROW("ok", PF_BOOL, D, ok, 0),
	PF_ROW("tid", PF_PID, D, tid, 0),
};
#undef D
const struct proto_struct proto_su_dlopen_desc =
	PF_STRUCT("a dlopen call", struct proto_su_dlopen, su_dlopen_fields);

#define C struct proto_su_change
static const struct proto_field su_change_fields[] = {
	PF_ROW("kind", PF_STR, C, kind, 0),
	PF_ROW("name", PF_STR, C, name, 0),
	PF_ROW("before_ns", PF_U64, C, before_ns, 0),
	PF_ROW("now_ns", PF_U64, C, now_ns, 0),
};
#undef C
const struct proto_struct proto_su_change_desc =
	PF_STRUCT("a startup change", struct proto_su_change, su_change_fields);

#define S struct proto_startup
static const struct proto_field startup_fields[] = {
	PF_ROW("time_ns", PF_U64, S, time_ns, 0),
	PF_ROW("attached", PF_BOOL, S, attached, 0),
	PF_ROW("exec_from", PF_STR, S, exec_from, 0),
	PF_ROW("exec_ns", PF_U64, S, exec_ns, 0),
	PF_ROW("loaded_ns", PF_U64, S, loaded_ns, 0),
	PF_ROW("agent_ns", PF_U64, S, agent_ns, 0),
	PF_ROW("ctors_ns", PF_U64, S, ctors_ns, 0),
	PF_ROW("main_ns", PF_U64, S, main_ns, 0),
	PF_ROW("wait_ns", PF_U64, S, wait_ns, 0),
	PF_ROW("wait_call", PF_STR, S, wait_call, 0),
	PF_ROW("frame_ns", PF_U64, S, frame_ns, 0),
	PF_ARR_ROW("libs", PF_OBJS, S, libs, nlibs, PROTO_MAX_SU_LIBS, &proto_su_lib_desc),
	PF_ROW("libs_lost", PF_U64, S, libs_lost, 0),
	PF_ARR_ROW("dlopens", PF_OBJS, S, dlopens, ndlopens, PROTO_MAX_SU_DLOPENS,
	    &proto_su_dlopen_desc),
	PF_ROW("dlopens_total", PF_U64, S, dlopens_total, 0),
	PF_ROW("baseline", PF_STR, S, baseline, 0),
	PF_ROW("noise_ns", PF_U64, S, noise_ns, 0),
	PF_ROW("noise_pct", PF_U32, S, noise_pct, 0),
	PF_ARR_ROW("slower", PF_OBJS, S, slower, nslower, PROTO_MAX_SU_CHANGES,
	    &proto_su_change_desc),
	PF_CONST_ROW("version", 1, 0),
};
#undef S
const struct proto_struct proto_startup_desc =
	PF_STRUCT("field \"startup\"", struct proto_startup, startup_fields);

/* Its row in the parts table (parts.h). */
const struct proto_part proto_part_startup = {
	PROTO_PART_PLACE(startup), .key = "startup", .ag_time = false, .desc = &proto_startup_desc,
};

/* See startup_wire.h. */
uint64_t proto_startup_origin(const struct proto_startup *s)
{
	const uint64_t pts[] = { s->exec_ns, s->loaded_ns, s->agent_ns, s->ctors_ns, s->main_ns };

	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
		if (pts[i] != 0)
			return pts[i];
	return 0;
}

/* A phase from a to b, or unknown (both 0) unless both are known and in order. */
static void su_phase(struct proto_su_phase *p, const char *name, uint64_t a, uint64_t b)
{
	p->name = name;
	p->start_ns = a != 0 && b >= a ? a : 0;
	p->end_ns = a != 0 && b >= a ? b : 0;
}

/* See startup_wire.h.  The constructors phase starts where loading ends;
 * without that point (the early hook did not run) at the agent's
 * constructor, which then bounds the constructors that ran before it. */
void proto_startup_phases(const struct proto_startup *s, struct proto_su_phase *out)
{
	uint64_t loaded = s->loaded_ns ? s->loaded_ns : s->agent_ns;

	su_phase(&out[PROTO_SU_LOAD], "load", s->exec_ns, loaded);
	su_phase(&out[PROTO_SU_CTORS], "constructors", loaded, s->ctors_ns);
	su_phase(&out[PROTO_SU_PROG_CTORS], "program constructors", s->ctors_ns, s->main_ns);
	su_phase(&out[PROTO_SU_TO_MAIN], "to main", s->exec_ns, s->main_ns);
	su_phase(&out[PROTO_SU_TO_WAIT], "to first wait", s->exec_ns, s->wait_ns);
	su_phase(&out[PROTO_SU_TO_FRAME], "to first frame", s->exec_ns, s->frame_ns);
}
