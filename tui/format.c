/*
 * format.c - numbers with scaling units, and text fitted to a column.
 *
 * Every figure fits in 7 columns: times in ns/us/ms/s with three
 * significant digits, counts plain below 10000 then K/M/G/T.
 */
#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <string.h>
#include <wchar.h>

#include "tui.h"

/* Scale v by 1000 until it is under 1000; print 3 significant digits. */
static void fmt_scaled(double v, const char *const *units, int nunits, char *buf, size_t len)
{
	int u = 0;

	while (v >= 999.5 && u < nunits - 1) {
		v /= 1000;
		u++;
	}
	if (v < 9.995)
		snprintf(buf, len, "%.2f%s", v, units[u]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f%s", v, units[u]);
	else
		snprintf(buf, len, "%.0f%s", v, units[u]);
}

/* See tui.h.  Past 99999 s: minutes, hours, then days (7 columns at most). */
void tui_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	static const char *const units[] = { "us", "ms", "s" };
	double s = (double)ns / 1e9;

	if (ns == 0)
		snprintf(buf, len, "0");
	else if (ns < 1000)
		snprintf(buf, len, "%uns", (unsigned)ns);
	else if (s < 99999.5)
		fmt_scaled((double)ns / 1000, units, 3, buf, len);
	else if (s / 60 < 99999.5)
		snprintf(buf, len, "%.0fm", s / 60);
	else if (s / 3600 < 99999.5)
		snprintf(buf, len, "%.0fh", s / 3600);
	else
		snprintf(buf, len, "%.0fd", s / 86400);
}

/* See tui.h. */
void tui_fmt_count(uint64_t n, char *buf, size_t len)
{
	static const char *const units[] = { "", "K", "M", "G", "T", "P" };
	double v = (double)n;
	int u = 0;

	if (n < 10000) {
		snprintf(buf, len, "%u", (unsigned)n);
		return;
	}
	while (v >= 999.5 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, v < 99.95 ? "%.1f%s" : "%.0f%s", v, units[u]);
}

/* See tui.h. */
void tui_fmt_rate(double r, char *buf, size_t len)
{
	if (!(r >= 0) || isinf(r))
		snprintf(buf, len, "-");
	else if (r == 0)
		snprintf(buf, len, "0");
	else if (r < 9.95)
		snprintf(buf, len, "%.1f", r);
	else if (r < 9999.5)
		snprintf(buf, len, "%.0f", r);
	else
		tui_fmt_count((uint64_t)(r + 0.5), buf, len);
}

/* See tui.h. */
void tui_fmt_share(double share, char *buf, size_t len)
{
	if (!(share >= 0) || isinf(share))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", share > 1 ? 100.0 : share * 100);
}

/* See tui.h. */
void tui_fmt_cost(const struct proto_frame *f, char *buf, size_t len)
{
	char cost[16], budget[16];

	snprintf(buf, len, "cost %s/%s", proto_ppm_str(f->cost_ppm, cost, sizeof cost),
	    proto_budget_str(f->budget_ppm, budget, sizeof budget));
}

/* See tui.h. */
void tui_fmt_age(uint64_t ms, char *buf, size_t len)
{
	if (ms < 10000)
		snprintf(buf, len, "%.1fs", (double)ms / 1000);
	else if (ms < 120000)
		snprintf(buf, len, "%us", (unsigned)(ms / 1000));
	else if (ms < 7200000)
		snprintf(buf, len, "%um", (unsigned)(ms / 60000));
	else
		snprintf(buf, len, "%lluh", (unsigned long long)(ms / 3600000));
}

/*
 * Decode the next display unit of s: its bytes (*nbytes) and columns.
 * Returns the columns, or -1 when the unit must be shown as '?'
 * (control character, invalid UTF-8, non-ASCII in ASCII mode).
 */
static int fmt_unit(const unsigned char *s, bool utf8, size_t *nbytes)
{
	unsigned c = s[0];
	unsigned need, cp;
	int w;

	*nbytes = 1;
	if (c < 0x80)
		return (c < 0x20 || c == 0x7f) ? -1 : 1;
	if (!utf8)
		return -1;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		cp = c & 0x07;
	} else {
		return -1;
	}
	for (unsigned i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return -1;              /* overlong or surrogate */
	*nbytes = need + 1;
	w = wcwidth((wchar_t)cp);
	return w < 0 ? -1 : w;
}

/* See tui.h. */
int tui_fmt_width(const char *s, bool utf8)
{
	const unsigned char *p = (const unsigned char *)s;
	int total = 0;

	while (*p) {
		size_t n;
		int w;

		if (*p < 0x80) {        /* ASCII, printable or shown as one '?': one column */
			total++;
			p++;
			continue;
		}
		w = fmt_unit(p, utf8, &n);
		total += w < 0 ? 1 : w;
		p += n;
	}
	return total;
}

/* Append n bytes to out if they fit. */
static void fmt_put(char *out, size_t outlen, size_t *pos, const void *b, size_t n)
{
	if (*pos + n < outlen) {
		memcpy(out + *pos, b, n);
		*pos += n;
	}
}

/* See tui.h. */
void tui_fmt_fit(const char *s, int width, bool utf8, bool left, char *out, size_t outlen)
{
	const char *ell = utf8 ? "\u2026" : "~";
	int total = tui_fmt_width(s, utf8);
	int room = total > width ? width - 1 : width;  /* keep one for the ellipsis */
	const unsigned char *p = (const unsigned char *)s;
	size_t pos = 0;
	int used = 0;

	if (outlen == 0)
		return;
	if (width <= 0) {
		out[0] = '\0';
		return;
	}
	if (!left && total < width)
		for (int i = total; i < width; i++)
			fmt_put(out, outlen, &pos, " ", 1);
	while (*p) {
		size_t n;
		int w = fmt_unit(p, utf8, &n);

		if (used + (w < 0 ? 1 : w) > room)
			break;
		if (w < 0)
			fmt_put(out, outlen, &pos, "?", 1);
		else
			fmt_put(out, outlen, &pos, p, n);
		used += w < 0 ? 1 : w;
		p += n;
	}
	if (total > width) {
		fmt_put(out, outlen, &pos, ell, strlen(ell));
		used++;
	}
	while (used < width && (left || total > width)) {
		fmt_put(out, outlen, &pos, " ", 1);
		used++;
	}
	out[pos] = '\0';
}

/* See tui.h.  The tail gets half the room left by the ellipsis (the head
 * the rest): names sharing a long prefix differ at their end. */
void tui_fmt_fit_middle(const char *s, int width, bool utf8, char *out, size_t outlen)
{
	const char *ell = utf8 ? "\u2026" : "~";
	int total = tui_fmt_width(s, utf8), room, tail_room, used = 0, skip;
	const unsigned char *p = (const unsigned char *)s;
	size_t pos = 0;

	if (outlen == 0)
		return;
	if (width < 3 || total <= width) {  /* no room for head and tail, or no cut */
		tui_fmt_fit(s, width, utf8, true, out, outlen);
		return;
	}
	room = width - 1;
	tail_room = room / 2;
	/* Head: units while they fit in room - tail_room columns. */
	while (*p) {
		size_t n;
		int w = fmt_unit(p, utf8, &n), cw = w < 0 ? 1 : w;

		if (used + cw > room - tail_room)
			break;
		if (w < 0)
			fmt_put(out, outlen, &pos, "?", 1);
		else
			fmt_put(out, outlen, &pos, p, n);
		used += cw;
		p += n;
	}
	fmt_put(out, outlen, &pos, ell, strlen(ell));
	used++;
	/* Tail: skip units until what remains fits in the columns left. */
	skip = tui_fmt_width((const char *)p, utf8) - (width - used);
	while (*p && skip > 0) {
		size_t n;
		int w = fmt_unit(p, utf8, &n);

		skip -= w < 0 ? 1 : w;
		p += n;
	}
	while (*p) {
		size_t n;
		int w = fmt_unit(p, utf8, &n);

		if (w < 0)
			fmt_put(out, outlen, &pos, "?", 1);
		else
			fmt_put(out, outlen, &pos, p, n);
		used += w < 0 ? 1 : w;
		p += n;
	}
	while (used < width) {            /* a wide character skipped past the cut */
		fmt_put(out, outlen, &pos, " ", 1);
		used++;
	}
	out[pos] = '\0';
}

/* See tui.h: does the locale (set by main) speak UTF-8? */
bool tui_locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs != NULL && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

/* See tui.h. */
char *tui_fmt_clean(const char *s, bool keep_newlines)
{
	char *out = xstrdup(s);

	for (char *p = out; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if ((c < 0x20 && !(keep_newlines && (c == '\n' || c == '\t'))) || c == 0x7f)
			*p = '?';
	}
	return out;
}

/* See tui.h: the sites of every back-end summed, "120 on/15 off/7 skipped". */
bool tui_fmt_sites(const struct proto_frame *f, char *buf, size_t len)
{
	uint64_t on = 0, off = 0, skipped = 0;

	for (size_t i = 0; i < f->nsites; i++) {
		on += f->sites[i].active;
		off += f->sites[i].disabled;
		skipped += f->sites[i].skipped;
	}
	snprintf(buf, len, "%llu on/%llu off/%llu skipped", (unsigned long long)on,
	    (unsigned long long)off, (unsigned long long)skipped);
	return f->nsites > 0;
}

/* See tui.h: one block per back-end, then one line per skip reason. */
void tui_fmt_sites_why(const struct proto_frame *f, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (f->nsites == 0)
		snprintf(buf, len, "no hook-site figures from this target yet\n"
		    "(the agent sends them once it has hooked something)");
	for (size_t i = 0; i < f->nsites && off < len; i++) {
		const struct proto_sites *s = &f->sites[i];

		off += (size_t)snprintf(buf + off, len - off,
		    "%s%s: %llu active, %llu disabled by the level, %llu skipped%s",
		    i ? "\n" : "", s->backend, (unsigned long long)s->active,
		    (unsigned long long)s->disabled, (unsigned long long)s->skipped,
		    s->nreasons ? ":" : "");
		for (size_t k = 0; k < s->nreasons && off < len; k++)
			off += (size_t)snprintf(buf + off, len - off, "\n  %-12s %llu",
			    s->reasons[k].key, (unsigned long long)s->reasons[k].count);
	}
}

/* See tui.h: what the budget costs, then each demoted row: mode, since
 * when, why (timing's cost when the mode was chosen), calls/s, average. */
void tui_fmt_demoted(const struct proto_frame *f, char *buf, size_t len)
{
	char cost[48], why[16], age[16], num[16], rate[20], avg[20];
	size_t off = 0;
	bool first = true;

	if (len == 0)
		return;
	buf[0] = '\0';
	tui_fmt_cost(f, cost, sizeof cost);
	off += (size_t)snprintf(buf + off, len - off, "\n\noverhead budget: %s of the target's "
	    "CPU; %llu function%s demoted%s", cost, (unsigned long long)f->demoted,
	    f->demoted == 1 ? "" : "s", f->budget_ppm ? "" : " (budget off: all timed)");
	for (size_t i = 0; i < f->nfuncs && off < len; i++) {
		const struct proto_func *p = &f->funcs[i];

		if (p->mode == PROTO_FMODE_TIMED || proto_fmode_name(p->mode) == NULL)
			continue;
		if (first)
			off += (size_t)snprintf(buf + off, len - off, "; those in the rows shown\n"
			    "(WHY: what timing the function cost, share of the CPU, when chosen):\n"
			    "  %-8s %7s %7s %7s %7s  %s", "MODE", "SINCE", "WHY", "CALLS/S", "AVG", "NAME");
		first = false;
		tui_fmt_age(p->mode_age_ms, age, sizeof age);
		tui_fmt_rate(p->calls_per_s, num, sizeof num);
		snprintf(rate, sizeof rate, "%s%s", p->calls_est ? "~" : "", num);
		tui_fmt_ns(p->avg_ns, num, sizeof num);
		snprintf(avg, sizeof avg, "%s%s", p->time_est || p->calls_est ? "~" : "", num);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "\n  %-8s %7s %7s %7s %7s  %s",
			    proto_fmode_name(p->mode), p->mode_age_ms ? age : "-",
			    p->hook_ppm ? proto_ppm_str(p->hook_ppm, why, sizeof why) : "-",
			    rate, avg, p->name);
	}
}

/* See tui.h. */
void tui_fmt_clock(uint64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms == 0 || localtime_r(&t, &tm) == NULL || strftime(buf, len, "%H:%M:%S", &tm) == 0)
		snprintf(buf, len, "-");
}

/* See tui.h. */
void tui_fmt_stack(FILE *m, const struct proto_block_stack *st)
{
	for (size_t k = 0; k < st->nframes; k++) {
		const struct proto_block_frame *f = &st->frames[k];

		fprintf(m, "  %s+0x%llx [%s]", f->func[0] ? f->func : "??",
		    (unsigned long long)f->off, f->module[0] ? f->module : "?");
		if (f->file[0])
			fprintf(m, " %s:%u", f->file, f->line);
		fputc('\n', m);
	}
}
