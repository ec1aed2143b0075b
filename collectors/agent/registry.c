/*
 * registry.c - the table of collectors and the loops that drive them.
 *
 * Adding a collector: write collectors/NAME/ exporting a const
 * struct collector_ops NAME_collector and add NAME to COLLECTORS below.
 */
#include <stdbool.h>
#include <stddef.h>

#include "collector.h"

/* In the order the ops run: hook after timing (its sites feed timing's
 * table); sites last (it counts what the others hooked). */
#define COLLECTORS(X) X(timing) X(hook) X(fps) X(threads) X(block) X(ipc) X(power) X(memory) X(net) X(startup) \
	X(sites)

#define COLLECTOR_DECL(n) extern const struct collector_ops n##_collector;
#define COLLECTOR_ROW(n) &n##_collector,
COLLECTORS(COLLECTOR_DECL)
static const struct collector_ops *const collector_table[] = { COLLECTORS(COLLECTOR_ROW) };
#define COLLECTOR_COUNT (sizeof collector_table / sizeof collector_table[0])

/* Which collectors passed init; only those get the other ops. */
static bool collector_live[COLLECTOR_COUNT];

/* Run every collector's init; 0 if at least one is live. */
int collector_init_all(void)
{
	int live = 0;

	for (size_t i = 0; i < COLLECTOR_COUNT; i++) {
		/* No init: nothing can fail, the collector is live. */
		collector_live[i] = !collector_table[i]->init || collector_table[i]->init() == 0;
		live += collector_live[i];
	}
	return live ? 0 : -1;
}

/* Tell every live collector the new monitoring level. */
void collector_set_level_all(int level)
{
	for (size_t i = 0; i < COLLECTOR_COUNT; i++)
		if (collector_live[i] && collector_table[i]->set_level)
			collector_table[i]->set_level(level);
}

/* Offer a named threshold to each collector until one takes it: 0 applied,
 * -1 bad value, 1 no collector knows the name. */
int collector_set_threshold(const char *name, int64_t value)
{
	for (size_t i = 0; i < COLLECTOR_COUNT; i++) {
		int r;

		if (!collector_live[i] || !collector_table[i]->set_threshold)
			continue;
		r = collector_table[i]->set_threshold(name, value);
		if (r <= 0)
			return r;
	}
	return 1;
}

/* Run the collector's job of that name: 0, or 1 when no collector has it. */
int collector_request(const char *name)
{
	for (size_t i = 0; i < COLLECTOR_COUNT; i++)
		if (collector_live[i] && collector_table[i]->request &&
		    collector_table[i]->request(name) == 0)
			return 0;
	return 1;
}

/* Zero every live collector's figures. */
void collector_reset_all(void)
{
	for (size_t i = 0; i < COLLECTOR_COUNT; i++)
		if (collector_live[i] && collector_table[i]->reset)
			collector_table[i]->reset();
}

/* Gather per-thread data of every live collector. */
void collector_harvest_all(void)
{
	for (size_t i = 0; i < COLLECTOR_COUNT; i++)
		if (collector_live[i] && collector_table[i]->harvest)
			collector_table[i]->harvest();
}

/* Append the records of every live collector. */
void collector_encode_all(msgpack_sbuffer *sb, bool resend_all)
{
	for (size_t i = 0; i < COLLECTOR_COUNT; i++)
		if (collector_live[i] && collector_table[i]->encode)
			collector_table[i]->encode(sb, resend_all);
}

/* Let every live collector fill its hello fields. */
void collector_hello_all(struct proto_ag_hello *h)
{
	for (size_t i = 0; i < COLLECTOR_COUNT; i++)
		if (collector_live[i] && collector_table[i]->hello)
			collector_table[i]->hello(h);
}

/* Fork child: every live collector drops the parent's data. */
void collector_atfork_child_all(void)
{
	for (size_t i = 0; i < COLLECTOR_COUNT; i++)
		if (collector_live[i] && collector_table[i]->atfork_child)
			collector_table[i]->atfork_child();
}

/* Exit: every live collector finishes, in reverse order. */
void collector_fini_all(void)
{
	for (size_t i = COLLECTOR_COUNT; i-- > 0;)
		if (collector_live[i] && collector_table[i]->fini)
			collector_table[i]->fini();
}
