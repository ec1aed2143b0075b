/*
 * issue_sinks.c - the table of issue sinks (issue.h: struct issue_sink) and
 * the loops over it: start what the options ask for, hand each new or
 * changed issue to every sink started, report their state, stop them.
 * The store comes first: the upload keeps its queue in it, and the raise
 * order continues after the highest number it holds.
 */
#include <string.h>
#include "issue.h"

static const struct issue_sink *const sink_table[] = {
	&issue_sink_store, &issue_sink_syslog, &issue_sink_upload,
};
#define NSINKS (sizeof sink_table / sizeof sink_table[0])

static bool sink_on[NSINKS];
static struct proto_issue_sink sink_state[NSINKS];
static uint64_t sink_seq;

/* See issue.h. */
int
daemon_issue_sinks_start(const struct daemon_issue_opts *o, char *err, size_t errlen)
{
	for (size_t k = 0; k < NSINKS; k++) {
		if (!sink_table[k]->wanted(o))
			continue;
		if (sink_table[k]->start(o, err, errlen) < 0) {
			daemon_issue_sinks_stop();
			return -1;
		}
		sink_on[k] = true;
	}
	if (issue_store_current() != NULL)
		sink_seq = issue_store_max_seq(issue_store_current());
	return 0;
}

/* See issue.h. */
void
daemon_issue_sinks_stop(void)
{
	for (size_t k = NSINKS; k-- > 0;)
		if (sink_on[k]) {
			sink_table[k]->stop();
			sink_on[k] = false;
		}
}

/* See issue.h. */
void
issue_sinks_deliver(const struct proto_issue *i, bool fresh)
{
	for (size_t k = 0; k < NSINKS; k++) {
		if (!sink_on[k])
			continue;
		if (fresh)
			sink_table[k]->publish(i);
		else if (sink_table[k]->update != NULL)
			sink_table[k]->update(i);
	}
}

/* See issue.h. */
uint64_t
issue_sinks_next_seq(void)
{
	return ++sink_seq;
}

/* See issue.h. */
const struct proto_issue_sink *
daemon_issue_sinks_state(size_t *n)
{
	*n = 0;
	for (size_t k = 0; k < NSINKS; k++)
		if (sink_on[k]) {
			memset(&sink_state[*n], 0, sizeof sink_state[*n]);
			sink_table[k]->state(&sink_state[*n]);
			sink_state[*n].name = (char *)sink_table[k]->name;
			(*n)++;
		}
	return sink_state;
}
