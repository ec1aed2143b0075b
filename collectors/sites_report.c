/*
 * sites_report.c - the "sites" record: how many functions each hook
 * back-end hooks, how many the level switched off, and how many it skipped
 * and why.  Sent when the counts change, and on every new connection.
 *
 *   finstrument  functions seen through __cyg_profile_func_enter (the timing
 *                table minus the engine's sites): active at level >= 1,
 *                disabled at level 0; never skipped.
 *   patch        the hook engine (HOOKSCOPE_ENGINE=1), once it patched:
 *                relocated-prologue sites on and off, refusals by reason;
 *   nop          its compiler-assisted sites (5-byte NOP entries), when any.
 */
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "hook.h"
#include "hook_int.h"
#include "timing.h"

/* Short wire keys of the engine's refusal reasons (doc/protocol.md). */
static const char *const sites_keys[HOOK_R_COUNT] = {
	[HOOK_R_SHORT]  = "short",
	[HOOK_R_DECODE] = "decode",
	[HOOK_R_INTO]   = "branch-in",
	[HOOK_R_INSN]   = "insn",
	[HOOK_R_CALL]   = "call",
	[HOOK_R_RANGE]  = "range",
	[HOOK_R_BIG]    = "big",
	[HOOK_R_BUSY]   = "busy",
	[HOOK_R_NEAR]   = "near",
	[HOOK_R_STOP]   = "stop",
};

static int    sites_level;
static size_t sites_classified;   /* timing functions looked at so far */
static size_t sites_finstr;       /* of those, not engine sites */
static struct hook_stats sites_sent;
static size_t sites_sent_finstr;
static int    sites_sent_level = -1;

/* Collector init: always on (the counts may be zero). */
static int sites_init(void)
{
	return 0;
}

/* Remember the level: it splits finstrument functions into on and off. */
static void sites_set_level(int level)
{
	sites_level = level;
}

/* Classify the timing functions seen since the last call. */
static void sites_count_finstr(void)
{
	size_t n = tm_report_count();

	if (n < sites_classified)         /* the table was dropped (fork) */
		sites_classified = sites_finstr = 0;
	for (; sites_classified < n; sites_classified++)
		sites_finstr += !hook_engine_has(tm_report_fn(sites_classified));
}

/* Encode a sites record when a count changed, or on a new connection. */
static void sites_encode(msgpack_sbuffer *sb, bool resend_all)
{
	struct proto_site_reason why[HOOK_R_COUNT];
	struct proto_sites v[3];
	struct hook_stats st;
	size_t n = 0, nwhy = 0;

	sites_count_finstr();
	hook_engine_stats(&st);
	if (!resend_all && sites_finstr == sites_sent_finstr && sites_level == sites_sent_level &&
	    memcmp(&st, &sites_sent, sizeof st) == 0)
		return;
	if (sites_finstr > 0)
		v[n++] = (struct proto_sites){
			.backend = "finstrument",
			.active = sites_level >= 1 ? sites_finstr : 0,
			.disabled = sites_level >= 1 ? 0 : sites_finstr,
		};
	if (st.patched) {
		uint64_t skipped = 0;

		for (int r = 1; r < HOOK_R_COUNT; r++) {
			if (st.refused[r] == 0)
				continue;
			why[nwhy++] = (struct proto_site_reason){
				.key = (char *)(sites_keys[r] ? sites_keys[r] : "other"),
				.count = st.refused[r] };
			skipped += st.refused[r];
		}
		v[n++] = (struct proto_sites){
			.backend = "patch", .active = st.active, .disabled = st.disabled,
			.skipped = skipped, .nreasons = nwhy, .reasons = why,
		};
		if (st.nop_active + st.nop_disabled > 0)
			v[n++] = (struct proto_sites){ .backend = "nop",
			    .active = st.nop_active, .disabled = st.nop_disabled };
	}
	sites_sent = st;
	sites_sent_finstr = sites_finstr;
	sites_sent_level = sites_level;
	if (n == 0 && !resend_all)
		return;
	proto_agent_encode(sb, &(struct proto_agent_rec){
	    .type = PROTO_AG_SITES, .nsites = n, .sites = v });
}

/* Fork child: the timing table starts over. */
static void sites_atfork_child(void)
{
	sites_classified = sites_finstr = sites_sent_finstr = 0;
	sites_sent_level = -1;
}

const struct collector_ops sites_collector = {
	.name         = "sites",
	.init         = sites_init,
	.set_level    = sites_set_level,
	.encode       = sites_encode,
	.atfork_child = sites_atfork_child,
};
