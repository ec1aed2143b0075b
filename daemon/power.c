/*
 * power.c - the power state of a session: each agent "power" record
 * replaces the last (its figures are absolute); the daemon prices it with
 * the power profile (HOOKSCOPE_POWER_PROFILE, else the installed sample)
 * and sums the charge per category.  Every figure in mAh is an estimate:
 * held time x the profile's current, mAh = ms x mA / 3,600,000.
 * Frames carry it as "power"; the report has a power section.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon_collector.h"
#include "report.h"
#include "issue.h"
#include "power_profile.h"

#ifndef HS_DATA_DIR
#define HS_DATA_DIR "/usr/local/share/hookscope"
#endif

static struct power_profile pwr_profile;
static char pwr_profile_path[512], pwr_warning[1024];
static bool pwr_loaded;

/* Load the profile once (the first record that needs it). */
static void pwr_profile_load(void)
{
	const char *env = getenv("HOOKSCOPE_POWER_PROFILE");
	char err[256], buf0[400];
	size_t len = 0, n;
	char *buf;
	FILE *f;

	if (pwr_loaded)
		return;
	pwr_loaded = true;
	snprintf(pwr_profile_path, sizeof pwr_profile_path, "%s",
	    env != NULL && *env ? env : HS_DATA_DIR "/power_profile.sample.xml");
	if ((env == NULL || !*env) && access(pwr_profile_path, R_OK) != 0) {
		/* a build directory: build/hookscoped -> daemon/power_profile.sample.xml */
		ssize_t k = readlink("/proc/self/exe", buf0, sizeof buf0 - 1);
		char *slash;

		if (k > 0) {
			buf0[k] = '\0';
			if ((slash = strrchr(buf0, '/')) != NULL) {
				*slash = '\0';
				snprintf(pwr_profile_path, sizeof pwr_profile_path,
				    "%s/../daemon/power_profile.sample.xml", buf0);
			}
		}
	}
	if ((f = fopen(pwr_profile_path, "rb")) == NULL) {
		snprintf(pwr_warning, sizeof pwr_warning, "no power profile: cannot read %s: %s "
		    "(set HOOKSCOPE_POWER_PROFILE); charge not estimated", pwr_profile_path,
		    strerror(errno));
		daemon_log(DLOG_WARN, "%s", pwr_warning);
		pwr_profile_path[0] = '\0';
		return;
	}
	buf = xmalloc(4u << 20);
	while ((n = fread(buf + len, 1, (4u << 20) - len, f)) > 0)
		len += n;
	fclose(f);
	if (power_profile_parse(&pwr_profile, buf, len, err, sizeof err) < 0) {
		snprintf(pwr_warning, sizeof pwr_warning, "power profile %s: %s; charge not "
		    "estimated", pwr_profile_path, err);
		daemon_log(DLOG_WARN, "%s", pwr_warning);
		pwr_profile.n = 0;
	} else if (pwr_profile.dummy) {
		snprintf(pwr_warning, sizeof pwr_warning, "power profile %s is the AOSP dummy "
		    "(every value 0.1 mA): charge figures are meaningless; use the device's own "
		    "power_profile.xml", pwr_profile_path);
		daemon_log(DLOG_WARN, "%s", pwr_warning);
	}
	free(buf);
}

/* The current of resource r: its own (a sensor's power), else its row's
 * item, else for Bluetooth the deprecated bluetooth.on.  -1: unpriced. */
static double pwr_price(const struct proto_pwr_res *r, const char **from)
{
	double v;

	if (r->ma >= 0) {
		*from = "own power";
		return r->ma;
	}
	if (pwr_profile.n == 0 || r->item == NULL || strcmp(r->item, "-") == 0) {
		*from = "";
		return -1;
	}
	if ((v = power_profile_get(&pwr_profile, r->item)) >= 0) {
		*from = r->item;
		return v;
	}
	if (strcmp(r->item, "gps.on") == 0 &&          /* newer profiles: per signal quality */
	    (v = power_profile_get(&pwr_profile, "gps.signalqualitybased")) >= 0) {
		*from = "gps.signalqualitybased[0]";
		return v;
	}
	if (strncmp(r->item, "bluetooth.", 10) == 0 &&
	    (v = power_profile_get(&pwr_profile, "bluetooth.on")) >= 0) {
		*from = "bluetooth.on";
		return v;
	}
	*from = "";
	return -1;
}

/* See daemon.h. */
void daemon_session_power(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns)
{
	proto_power_free(&s->power_raw);
	proto_power_copy(&s->power_raw, &r->power);
	s->power_rx_ns = now_ns;
	s->power_priced = false;
	daemon_session_power_tick(s, now_ns);
	daemon_power_hist_add(s, r->power.time_ns != 0 ? r->power.time_ns : now_ns);
}

/* See daemon.h: s->power = the record, held times advanced by the time
 * since it arrived (not after the final one), priced, summed per category. */
void daemon_session_power_tick(struct daemon_session *s, uint64_t now_ns)
{
	struct proto_power p;
	uint64_t dt = now_ns > s->power_rx_ns ? now_ns - s->power_rx_ns : 0;
	size_t ncat = 0;

	if (s->power_rx_ns == 0)
		return;
	if (s->power_priced) {      /* the same as last time unless something is held */
		bool held = false;

		for (size_t i = 0; i < s->power_raw.nres && !held; i++)
			held = s->power_raw.res[i].held;
		if (!held)
			return;
	}
	s->power_priced = true;
	pwr_profile_load();
	proto_power_copy(&p, &s->power_raw);
	if (p.exited || s->state != PROTO_TARGET_LIVE)
		dt = 0;
	free(p.profile);
	free(p.warning);
	p.profile = xstrdup(pwr_profile_path);
	p.warning = xstrdup(pwr_warning);
	p.cpu_ma = pwr_profile.n ? power_profile_get(&pwr_profile, "cpu.active") : -1;
	free(p.cats);
	p.cats = xcalloc(p.nres ? p.nres : 1, sizeof *p.cats);
	for (size_t i = 0; i < p.nres; i++) {
		struct proto_pwr_res *x = &p.res[i];
		const char *from;
		size_t k;

		if (x->held) {
			x->held_ns += dt;
			x->total_ns += dt;
			if (x->held_ns > x->longest_ns)
				x->longest_ns = x->held_ns;
			x->leaked |= p.hold_ns > 0 && x->held_ns >= p.hold_ns;
		}
		x->price_ma = pwr_price(x, &from);
		free(x->price_from);
		x->price_from = xstrdup(from);
		x->mah = x->price_ma >= 0 ? (double)x->total_ns / 1e6 * x->price_ma / 3.6e6 : -1;
		for (k = 0; k < ncat; k++)
			if (strcmp(p.cats[k].category, x->category) == 0)
				break;
		if (k == ncat) {
			if (ncat == PROTO_MAX_PWR_CATS)
				continue;
			p.cats[ncat++].category = xstrdup(x->category);
		}
		if (x->mah > 0)
			p.cats[k].mah += x->mah;
		p.cats[k].total_ns += x->total_ns;
		p.cats[k].held += x->held;
		p.cats[k].leaks += x->leaked;
	}
	p.ncats = ncat;
	proto_power_free(&s->power);
	s->power = p;
}

/* One stack, indented. */
static void pwr_report_stack(FILE *m, const char *what, int32_t tid, char **v, size_t n)
{
	if (n == 0)
		return;
	fprintf(m, "    %s (tid %d):\n", what, (int)tid);
	for (size_t i = 0; i < n; i++)
		fprintf(m, "      %s\n", v[i]);
}

/* See daemon.h: the report's power section. */
char *daemon_power_report(const struct daemon_session *s)
{
	const struct proto_power *p = &s->power;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (m == NULL)
		return xstrdup("power: (out of memory)\n");
	fprintf(m, "power\n\n");
	fprintf(m, "API table %s: %" PRIu64 " rows, %" PRIu64 " malformed; leak threshold %.0f s\n",
	    p->table && *p->table ? p->table : "(none reported)", p->rows, p->errors,
	    (double)p->hold_ns / 1e9);
	fprintf(m, "power profile: %s (charge figures are estimates: held time x the profile's "
	    "current)\n", p->profile && *p->profile ? p->profile : "none");
	if (p->warning && *p->warning)
		fprintf(m, "warning: %s\n", p->warning);
	fprintf(m, "\n%-15s %10s %12s %6s %6s\n", "category", "est. mAh", "held total", "held", "leaks");
	for (size_t i = 0; i < p->ncats; i++)
		fprintf(m, "%-15s %10.4f %10.3f s %6u %6u\n", p->cats[i].category, p->cats[i].mah,
		    (double)p->cats[i].total_ns / 1e9, p->cats[i].held, p->cats[i].leaks);
	fprintf(m, "\nresources\n");
	for (size_t i = 0; i < p->nres; i++) {
		const struct proto_pwr_res *r = &p->res[i];

		fprintf(m, "  %s %s%s%s: %s, held now %.3f s, total %.3f s, longest %.3f s, "
		    "acquires %" PRIu64 ", releases %" PRIu64 ", timeouts %" PRIu64 ", unmatched "
		    "releases %" PRIu64 "%s", r->category, r->name, r->refcount ? " (ref-counted)" : "",
		    r->leaked ? " LEAKED" : "", r->held ? "held" : "released",
		    (double)r->held_ns / 1e9, (double)r->total_ns / 1e9, (double)r->longest_ns / 1e9,
		    r->acquires, r->releases, r->timeouts, r->unmatched,
		    r->oneshots ? "" : "\n");
		if (r->oneshots)
			fprintf(m, ", one-shot calls %" PRIu64 "\n", r->oneshots);
		if (r->mah >= 0)
			fprintf(m, "    estimated %.6f mAh at %.3f mA (%s)\n", r->mah, r->price_ma,
			    r->price_from);
		else
			fprintf(m, "    not priced (no current for item %s)\n", r->item);
		fprintf(m, "    api %s\n", r->api);
		pwr_report_stack(m, "holder", r->holder_tid, r->holder, r->nholder);
		pwr_report_stack(m, "releaser", r->releaser_tid, r->releaser, r->nreleaser);
	}
	if (p->nres == 0)
		fprintf(m, "  (no power API called)\n");
	fprintf(m, "\n");
	fclose(m);
	return out;
}

/* The held-resources history restarts; the snapshot stays until the next
 * record replaces it. */
static void pwr_reset(struct daemon_session *s, uint64_t now_ns)
{
	(void)now_ns;
	daemon_power_hist_free(s);
}

/* "func+0xoff (module)" into a frame (strings borrowed from buf). */
static void pwr_frame_parse(struct proto_block_frame *f, char *buf)
{
	char *plus = strstr(buf, "+0x"), *paren = strstr(buf, " (");

	memset(f, 0, sizeof *f);
	f->func = buf;
	f->module = f->file = "";
	if (paren != NULL) {
		*paren = '\0';
		f->module = paren + 2;
		f->module[strcspn(f->module, ")")] = '\0';
	}
	if (plus != NULL && (paren == NULL || plus < paren)) {
		*plus = '\0';
		f->off = strtoull(plus + 3, NULL, 16);
	}
}

/* A leaked resource (held past the hold threshold, or at exit) is a
 * "wakelock-leak", "sensor-leak" or "power-leak" issue; each acquire that
 * leaks is an occurrence. */
static void pwr_detect(struct daemon_session *s, uint64_t now_ns)
{
	const struct proto_power *p = &s->power;

	for (size_t i = 0; i < p->nres; i++) {
		const struct proto_pwr_res *r = &p->res[i];
		struct proto_block_frame fr[PROTO_BLOCK_FRAMES];
		char where[512], title[768], bufs[PROTO_BLOCK_FRAMES][256];
		struct proto_block_stack st = { .frames = fr };
		uint64_t v = r->held_ns > r->longest_ns ? r->held_ns : r->longest_ns;
		const char *type = strcmp(r->category, "wakelock") == 0 ? "wakelock-leak" :
		    strcmp(r->category, "sensor") == 0 ? "sensor-leak" : "power-leak";

		if (!r->leaked)
			continue;
		for (size_t k = 0; k < r->nholder && st.nframes < PROTO_BLOCK_FRAMES; k++) {
			snprintf(bufs[st.nframes], sizeof bufs[0], "%s", r->holder[k]);
			pwr_frame_parse(&fr[st.nframes], bufs[st.nframes]);
			st.nframes++;
		}
		snprintf(where, sizeof where, "%s %s", r->category, r->name);
		snprintf(title, sizeof title, "%s %s %s: held %.1f s (leak threshold %.0f s)%s",
		    r->category, r->name, r->held ? "still held" : "was held", (double)v / 1e9,
		    (double)p->hold_ns / 1e9, p->exited && r->held ? " at exit" : "");
		const struct proto_issue_fig figs[] = {
			{ "held", (double)v, "ns" },
			{ "threshold", (double)p->hold_ns, "ns" },
			{ "acquires", (double)r->acquires, "count" },
			{ "releases", (double)r->releases, "count" },
			{ "mah", r->mah, "mAh" },
		};
		const struct daemon_issue_in in = {
			.type = type, .where = where, .title = title, .value = v,
			.threshold = p->hold_ns, .unit = "ns", .occ = r->acquires ? r->acquires : 1,
			.tid = r->holder_tid, .figs = figs, .nfigs = 5, .stack = &st,
		};
		daemon_issue_raise(s, &in, now_ns);
	}
}

static void pwr_free(struct daemon_session *s)
{
	proto_power_free(&s->power);
	proto_power_free(&s->power_raw);
	daemon_power_hist_free(s);
}

static void pwr_frame(struct daemon_session *s, struct proto_frame *f)
{
	f->power = s->power;
}

static const struct daemon_threshold pwr_thresholds[] = {
	{ .name = "hold", .unit = "s", .ns_per_unit = 1e9, .min = 0.001, .max = 864000,
	  .help = "power resources held longer are leaks" },
};

extern const struct report_section report_section_power;   /* report_power.c */

const struct daemon_collector daemon_collector_power = {
	.name = "power",
	.part = &proto_part_power,
	.on_record = daemon_session_power,
	.tick = daemon_session_power_tick,
	.reset = pwr_reset,
	.detect = pwr_detect,
	.free = pwr_free,
	.fill_frame = pwr_frame,
	.report = &report_section_power,
	.thresholds = pwr_thresholds,
	.nthresholds = sizeof pwr_thresholds / sizeof pwr_thresholds[0],
};
