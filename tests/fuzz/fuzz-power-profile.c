/*
 * fuzz-power-profile.c - libFuzzer target for the power_profile.xml parser
 * (daemon/power_profile.c), plain XML and Android binary XML (input starting
 * with 03 00 takes the binary path).  It either fills the profile or fails
 * with a reason; never reads outside the input.  Build by hand:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Iprotocol -Icollectors -Idaemon \
 *     tests/fuzz/fuzz-power-profile.c daemon/power_profile.c -o fuzz-power-profile
 *   ./fuzz-power-profile -max_total_time=300 tests/fuzz/corpus/power-profile
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct power_profile p;
	uint8_t *copy = malloc(size ? size : 1);   /* exact size: ASan sees any overread */
	char err[256] = "";

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	if (power_profile_parse(&p, copy, size, err, sizeof err) != 0) {
		if (err[0] == '\0')
			abort();
	} else if (p.n == 0 || p.n > PP_ITEMS_MAX) {
		abort();
	}
	free(copy);
	return 0;
}
