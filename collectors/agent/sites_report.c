/*
 * sites_report.c - the "sites" record: how many functions each hook
 * back-end hooks, how many the level switched off, and how many it skipped
 * and why.  Sent when the counts change, and on every new connection.
 *
 *   finstrument  functions seen through __cyg_profile_func_enter (the timing
 *                table minus the engine's sites): active when the level
 *                selects them (timing_select.c), else disabled; never
 *                skipped.  (A function switched off before its first call
 *                is not seen, so not counted.)
 *   patch        the hook engine, once it patched:
 *                relocated-prologue sites on and off, refusals by reason;
 *   nop          its compiler-assisted sites (5-byte NOP entries), when any;
 *   import       its import sites: the own modules' calls into system
 *                libraries, through their GOT entries (level 3 and up).
 */
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "engine.h"
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
static uintptr_t *sites_finstr_fns;   /* their addresses */
static size_t sites_finstr_cap;
static size_t sites_finstr_on;    /* of those, selected at the level */
static struct hook_stats sites_sent;
static size_t sites_sent_finstr, sites_sent_on;
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
		sites_classified = sites_finstr = sites_finstr_on = 0;
	for (; sites_classified < n; sites_classified++) {
		uintptr_t fn = tm_report_fn(sites_classified);

		if (hook_engine_has(fn))
			continue;
		if (sites_finstr == sites_finstr_cap) {
			sites_finstr_cap = sites_finstr_cap ? sites_finstr_cap * 2 : 256;
			sites_finstr_fns = xrealloc(sites_finstr_fns,
			    sites_finstr_cap * sizeof *sites_finstr_fns);
		}
		sites_finstr_fns[sites_finstr++] = fn;
	}
	sites_finstr_on = 0;
	for (size_t k = 0; sites_level >= 1 && k < sites_finstr; k++)
		sites_finstr_on += tm_select_on(sites_finstr_fns[k]);
}

/* Encode a sites record when a count changed, or on a new connection. */
static void sites_encode(msgpack_sbuffer *sb, bool resend_all)
{
	struct proto_site_reason why[HOOK_R_COUNT];
	struct proto_sites v[5];
	struct hook_stats st;
	size_t n = 0, nwhy = 0;

	sites_count_finstr();
	hook_engine_stats(&st);
	if (!resend_all && sites_finstr == sites_sent_finstr && sites_level == sites_sent_level &&
	    sites_finstr_on == sites_sent_on && memcmp(&st, &sites_sent, sizeof st) == 0)
		return;
	if (sites_finstr > 0)
		v[n++] = (struct proto_sites){
			.backend = "finstrument",
			.active = sites_finstr_on,
			.disabled = sites_finstr - sites_finstr_on,
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
		if (st.active + st.disabled + skipped > 0)
			v[n++] = (struct proto_sites){
				.backend = "patch", .active = st.active, .disabled = st.disabled,
				.skipped = skipped, .nreasons = nwhy, .reasons = why,
			};
		if (st.far_active + st.far_disabled > 0)
			v[n++] = (struct proto_sites){ .backend = "patch-far",
			    .active = st.far_active, .disabled = st.far_disabled };
		if (st.nop_active + st.nop_disabled > 0)
			v[n++] = (struct proto_sites){ .backend = "nop",
			    .active = st.nop_active, .disabled = st.nop_disabled };
		if (st.got_active + st.got_disabled > 0)
			v[n++] = (struct proto_sites){ .backend = "import",
			    .active = st.got_active, .disabled = st.got_disabled };
	}
	sites_sent = st;
	sites_sent_finstr = sites_finstr;
	sites_sent_on = sites_finstr_on;
	sites_sent_level = sites_level;
	if (n == 0 && !resend_all)
		return;
	proto_agent_encode(sb, &(struct proto_agent_rec){
	    .type = PROTO_AG_SITES, .nsites = n, .sites = v });
}

/* Fork child: the timing table starts over. */
static void sites_atfork_child(void)
{
	sites_classified = sites_finstr = sites_sent_finstr = sites_finstr_on = sites_sent_on = 0;
	sites_sent_level = -1;
}

const struct collector_ops sites_collector = {
	.name         = "sites",
	.init         = sites_init,
	.set_level    = sites_set_level,
	.encode       = sites_encode,
	.atfork_child = sites_atfork_child,
};
