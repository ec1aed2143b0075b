/*
 * fuzz-power-table.c - libFuzzer target for the power API table parser
 * (collectors/power/power_table.c): any bytes are a table file; malformed rows
 * must be reported (with a line number in range) and skipped, never crash.
 * Build by hand:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Iprotocol -Icollectors/include -Icollectors/power \
 *     tests/fuzz/fuzz-power-table.c collectors/power/power_table.c -o fuzz-power-table
 *   ./fuzz-power-table -max_total_time=300 tests/fuzz/corpus/power-table
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "power_int.h"

static int fuzz_lines;

/* Each error names a line of the input. */
static void fuzz_err(const char *file, int line, const char *msg, void *arg)
{
	(void)file;
	(void)arg;
	if (line < 1 || line > fuzz_lines || msg == NULL || msg[0] == '\0')
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct power_table t = { 0 };

	fuzz_lines = 1;
	for (size_t i = 0; i < size; i++)
		fuzz_lines += data[i] == '\n';
	power_table_parse(&t, (const char *)data, size, "fuzz", fuzz_err, NULL);
	for (int i = 0; i < t.nrows; i++)
		if (t.rows[i].ncond > POWER_CONDS_MAX || t.rows[i].line < 1 ||
		    t.rows[i].line > fuzz_lines)
			abort();
	power_table_free(&t);
	return 0;
}
