/*
 * budget.c - the overhead budget as people write it ("5", "0.5%", "off")
 * and as the wire carries it (per million of the target's CPU time, 0 =
 * off): one parser for the daemon's --budget, the budget command and the
 * agent's HOOKSCOPE_BUDGET, one printer for every display.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* See protocol.h. */
int proto_budget_parse(const char *s, uint32_t *ppm, char *err, size_t errlen)
{
	char *end;
	double pct;

	if (s != NULL && strcmp(s, "off") == 0) {
		*ppm = 0;
		return 0;
	}
	errno = 0;
	pct = s != NULL && *s != '\0' && *s != ' ' ? strtod(s, &end) : NAN;
	if (!isnan(pct) && *end == '%')
		end++;
	/* 1 ppm is the finest step the wire carries. */
	if (isnan(pct) || errno != 0 || *end != '\0' || !(pct * 1e4 >= 0.5) || pct > 100) {
		snprintf(err, errlen, "bad budget '%.40s' (expected a share of the target's CPU "
		    "over 0 up to 100 percent, e.g. 5 or 0.5, or off)", s ? s : "");
		return -1;
	}
	*ppm = (uint32_t)(pct * 1e4 + 0.5);
	return 0;
}

/* See protocol.h. */
const char *proto_budget_str(uint32_t ppm, char *buf, size_t len)
{
	if (ppm == 0)
		snprintf(buf, len, "off");
	else
		proto_ppm_str(ppm, buf, len);
	return buf;
}

/* See protocol.h: two significant figures below 10%, whole percents above. */
const char *proto_ppm_str(uint32_t ppm, char *buf, size_t len)
{
	double pct = ppm / 1e4;

	if (pct >= 9.95 || pct == floor(pct))
		snprintf(buf, len, "%.0f%%", pct);
	else if (pct >= 0.995)
		snprintf(buf, len, "%.1f%%", pct);
	else
		snprintf(buf, len, "%.2g%%", pct);
	return buf;
}

/* See protocol.h. */
int proto_fmode_parse(const char *name)
{
	for (int m = 0; m < PROTO_FMODE_N; m++)
		if (strcmp(name, proto_fmode_name((unsigned)m)) == 0)
			return m;
	return -1;
}
