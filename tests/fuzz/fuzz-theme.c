/*
 * fuzz-theme.c - TUI theme files (tui_theme_parse).
 */
#include <stdlib.h>
#include <string.h>
#include "tui.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tui_theme t;
	char err[PROTO_ERR_LEN], *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	tui_theme_defaults(&t);
	if (tui_theme_parse(&t, text, "fuzz.theme", err, sizeof err) < 0 && err[0] == '\0')
		__builtin_trap();
	free(text);
	return 0;
}
