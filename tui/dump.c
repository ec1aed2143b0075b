/*
 * dump.c - the report format a dump asks for: -f FORMAT, else the file
 * name's extension (.trace.json or .trace: trace, .json: json, .folded:
 * folded, anything else: text).  The daemon checks the name again.
 */
#include <string.h>

#include "tui.h"

/* Does s end with suffix? */
static bool dump_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* See tui.h. */
const char *tui_dump_format(const char *path)
{
	if (path == NULL)
		return "text";
	if (dump_ends(path, ".trace.json") || dump_ends(path, ".trace"))
		return "trace";
	if (dump_ends(path, ".json"))
		return "json";
	if (dump_ends(path, ".folded"))
		return "folded";
	return "text";
}

/* See tui.h. */
const char *tui_dump_ext(const char *format)
{
	if (strcmp(format, "trace") == 0)
		return ".trace.json";
	if (strcmp(format, "json") == 0)
		return ".json";
	if (strcmp(format, "folded") == 0)
		return ".folded";
	return ".txt";
}

/* See tui.h. */
bool tui_dump_format_ok(const char *format)
{
	return strcmp(format, "text") == 0 || strcmp(format, "json") == 0 ||
	    strcmp(format, "trace") == 0 || strcmp(format, "folded") == 0;
}
