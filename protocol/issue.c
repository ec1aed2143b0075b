/*
 * issue.c - the "issues" map of frames (doc/protocol.md): a target's issues
 * with their figures and stacks, and the state of the daemon's issue sinks.
 * The same field table writes an issue's JSON for the local store, the
 * upload and the report, so every form has the same keys.
 */
#include "protocol.h"
#include "field.h"
#include "parts.h"

#define G struct proto_issue_fig
static const struct proto_field issue_fig_fields[] = {
	PF_ROW("name", PF_STR, G, name, PF_REQUIRED),
	PF_F64_ROW("value", G, value, 0),
	PF_ROW("unit", PF_STR, G, unit, 0),
};
#undef G
const struct proto_struct proto_issue_fig_desc =
	PF_STRUCT("an issue figure", struct proto_issue_fig, issue_fig_fields);

#define I struct proto_issue
static const struct proto_field issue_fields[] = {
	PF_ROW("id", PF_STR, I, id, PF_REQUIRED),
	PF_ROW("seq", PF_U64, I, seq, 0),
	PF_ROW("type", PF_STR, I, type, PF_REQUIRED),
	PF_ROW("severity", PF_STR, I, severity, 0),
	PF_F64_ROW("over", I, over, 0),
	PF_ROW("value", PF_U64, I, value, 0),
	PF_ROW("threshold", PF_U64, I, threshold, 0),
	PF_ROW("unit", PF_STR, I, unit, 0),
	PF_ROW("count", PF_U64, I, count, 0),
	PF_ROW("occurrence", PF_U64, I, occ, 0),
	PF_ROW("first_ms", PF_U64, I, first_ms, 0),
	PF_ROW("last_ms", PF_U64, I, last_ms, 0),
	PF_ROW("pid", PF_PID, I, pid, 0),
	PF_ROW("exe", PF_STR, I, exe, 0),
	PF_ROW("build_id", PF_STR, I, build_id, 0),
	PF_ROW("tid", PF_PID, I, tid, 0),
	PF_ROW("thread", PF_STR, I, thread, 0),
	PF_ROW("title", PF_STR, I, title, 0),
	PF_ROW("where", PF_STR, I, where, 0),
	PF_ARR_ROW("figures", PF_OBJS, I, figs, nfigs, PROTO_ISSUE_FIGS, &proto_issue_fig_desc),
	PF_OBJ_ROW("stack", I, stack, &proto_block_stack_desc),
};
#undef I
const struct proto_struct proto_issue_desc = PF_STRUCT("an issue", struct proto_issue, issue_fields);

#define K struct proto_issue_sink
static const struct proto_field issue_sink_fields[] = {
	PF_ROW("name", PF_STR, K, name, PF_REQUIRED),
	PF_ROW("dest", PF_STR, K, dest, 0),
	PF_ROW("queued", PF_U64, K, queued, 0),
	PF_ROW("sent", PF_U64, K, sent, 0),
	PF_ROW("failed", PF_U64, K, failed, 0),
	PF_ROW("dropped", PF_U64, K, dropped, 0),
	PF_ROW("error", PF_STR, K, error, 0),
};
#undef K
const struct proto_struct proto_issue_sink_desc =
	PF_STRUCT("an issue sink", struct proto_issue_sink, issue_sink_fields);

#define L struct proto_issues
static const struct proto_field issues_fields[] = {
	PF_ROW("raised", PF_U64, L, raised, 0),
	PF_ARR_ROW("list", PF_OBJS, L, list, nlist, PROTO_MAX_ISSUES, &proto_issue_desc),
	PF_ARR_ROW("sinks", PF_OBJS, L, sinks, nsinks, PROTO_MAX_ISSUE_SINKS, &proto_issue_sink_desc),
};
#undef L
const struct proto_struct proto_issues_desc =
	PF_STRUCT("field \"issues\"", struct proto_issues, issues_fields);

/* See issue_wire.h. */
void proto_issue_copy(struct proto_issue *dst, const struct proto_issue *src)
{
	proto_struct_copy(&proto_issue_desc, dst, src);
}

/* See issue_wire.h. */
void proto_issue_free(struct proto_issue *i)
{
	proto_struct_free(&proto_issue_desc, i);
}

/* See issue_wire.h. */
void proto_issues_free(struct proto_issues *l)
{
	proto_struct_free(&proto_issues_desc, l);
}

/* Its row in the parts table (parts.h): an agent may raise issues itself
 * with an "issues" record; the daemon's collectors raise theirs. */
const struct proto_part proto_part_issues = {
	PROTO_PART_PLACE(issues), .key = "issues", .ag_time = false, .desc = &proto_issues_desc,
};
