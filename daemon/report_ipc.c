/*
 * report_ipc.c - the ipc section of reports (text for now; JSON, trace and
 * metrics forms are listed in doc/report-schema.md and doc/metrics.md).
 */
#include <stdlib.h>
#include "report.h"

static void
ipc_text(struct report_buf *b, const struct report_ctx *c)
{
	report_add_free(b, daemon_ipc_report(c->s));
}

const struct report_section report_section_ipc = {
	.name = "ipc",
	.text = ipc_text,
};
