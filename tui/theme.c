/*
 * theme.c - theme files: the element table, the parser and the search path.
 *
 * A theme is lines `element = fg bg [attribute...]` (doc/themes.md).  Every
 * theme starts from the built-in defaults below, which are written in the
 * same syntax, so a file only needs the elements it changes.  Panel code
 * never names a colour: it asks for an element.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui.h"

#define THEME_MAX_SIZE (64 * 1024)

/* name, default colours (theme syntax), attributes without colours. */
static const struct {
	const char *name;
	const char *spec;
	unsigned    mono;
} theme_els[TUI_EL_COUNT] = {
	[TUI_EL_STATUS]       = { "status",       "black cyan",              TUI_A_REVERSE },
	[TUI_EL_STATUS_OK]    = { "status_ok",    "black green bold",        TUI_A_REVERSE | TUI_A_BOLD },
	[TUI_EL_STATUS_WARN]  = { "status_warn",  "black yellow bold",       TUI_A_REVERSE | TUI_A_BOLD },
	[TUI_EL_STATUS_ERROR] = { "status_error", "brightwhite red bold",    TUI_A_REVERSE | TUI_A_BOLD | TUI_A_UNDERLINE },
	[TUI_EL_INFO]         = { "info",         "cyan default",            0 },
	[TUI_EL_HEADER]       = { "header",       "black green",             TUI_A_REVERSE },
	[TUI_EL_SORT]         = { "sort",         "black cyan bold",         TUI_A_BOLD | TUI_A_UNDERLINE },
	[TUI_EL_ROW]          = { "row",          "default default",         0 },
	[TUI_EL_ROW_IDLE]     = { "row_idle",     "brightblack default",     TUI_A_DIM },
	[TUI_EL_SELECTED]     = { "selected",     "black cyan",              TUI_A_REVERSE | TUI_A_BOLD },
	[TUI_EL_BAR]          = { "bar",          "green default",           TUI_A_BOLD },
	[TUI_EL_MESSAGE]      = { "message",      "default default",         0 },
	[TUI_EL_ERROR]        = { "error",        "brightred default bold",  TUI_A_BOLD },
	[TUI_EL_PROMPT]       = { "prompt",       "yellow default bold",     TUI_A_BOLD },
	[TUI_EL_CMDLINE]      = { "cmdline",      "default default",         0 },
	[TUI_EL_HINT]         = { "hint",         "black cyan",              TUI_A_REVERSE },
	[TUI_EL_HELP]         = { "help",         "brightwhite blue",        0 },
	[TUI_EL_HELP_TITLE]   = { "help_title",   "brightyellow blue bold",  TUI_A_BOLD | TUI_A_UNDERLINE },
	[TUI_EL_FPS]          = { "fps",          "brightgreen default bold", TUI_A_BOLD },
	[TUI_EL_FPS_MISSED]   = { "fps_missed",   "brightred default bold",  TUI_A_BOLD | TUI_A_REVERSE },
	[TUI_EL_TITLE]        = { "title",        "black green bold",        TUI_A_REVERSE | TUI_A_BOLD },
	[TUI_EL_ALERT]        = { "alert",        "brightred default bold",  TUI_A_BOLD | TUI_A_UNDERLINE },
	[TUI_EL_PAUSED]       = { "paused",       "black brightyellow bold", TUI_A_REVERSE | TUI_A_BLINK },
	[TUI_EL_DEMOTED]      = { "demoted",      "magenta default",         TUI_A_ITALIC },
};

static const char *const theme_colour_names[16] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
	"brightblack", "brightred", "brightgreen", "brightyellow",
	"brightblue", "brightmagenta", "brightcyan", "brightwhite",
};

static const struct {
	const char *name;
	unsigned    bit;
} theme_attrs[] = {
	{ "bold", TUI_A_BOLD }, { "dim", TUI_A_DIM }, { "underline", TUI_A_UNDERLINE },
	{ "reverse", TUI_A_REVERSE }, { "standout", TUI_A_STANDOUT },
	{ "italic", TUI_A_ITALIC }, { "blink", TUI_A_BLINK }, { "normal", 0 },
};

/* See tui.h. */
const char *tui_theme_el_name(int el)
{
	return el >= 0 && el < TUI_EL_COUNT ? theme_els[el].name : "?";
}

/* Parse a colour word: name, 0-255 or #rrggbb. */
static int theme_colour(const char *w, struct tui_colour *c)
{
	char *end;
	long v;

	memset(c, 0, sizeof *c);
	if (strcmp(w, "default") == 0) {
		c->kind = TUI_C_DEFAULT;
		return 0;
	}
	if (strcmp(w, "gray") == 0 || strcmp(w, "grey") == 0)
		w = "brightblack";
	for (int i = 0; i < 16; i++) {
		if (strcmp(w, theme_colour_names[i]) == 0) {
			c->kind = TUI_C_INDEX;
			c->index = (uint8_t)i;
			return 0;
		}
	}
	if (w[0] == '#') {
		if (strlen(w) != 7 || strspn(w + 1, "0123456789abcdefABCDEF") != 6)
			return -1;
		v = strtol(w + 1, NULL, 16);
		c->kind = TUI_C_RGB;
		c->r = (uint8_t)(v >> 16);
		c->g = (uint8_t)(v >> 8);
		c->b = (uint8_t)v;
		return 0;
	}
	if (w[0] < '0' || w[0] > '9')
		return -1;
	errno = 0;
	v = strtol(w, &end, 10);
	if (errno != 0 || *end != '\0' || v > 255)
		return -1;
	c->kind = TUI_C_INDEX;
	c->index = (uint8_t)v;
	return 0;
}

/* Parse "fg bg [attr...]" of an element whose monochrome attributes are
 * builtin_mono into s; -1 with the reason in why (s untouched). */
static int theme_spec(char *text, unsigned builtin_mono, struct tui_style *s, char *why,
    size_t whylen)
{
	struct tui_style tmp = *s;
	char *save = NULL, *w;
	int n = 0;
	bool any_attr = false;

	tmp.attrs = 0;
	for (w = strtok_r(text, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save), n++) {
		size_t i;

		if (n < 2) {
			if (theme_colour(w, n == 0 ? &tmp.fg : &tmp.bg) < 0) {
				snprintf(why, whylen, "unknown colour '%.40s' (use default, a name such "
				    "as red or brightblue, a number 0-255, or #rrggbb)", w);
				return -1;
			}
			continue;
		}
		for (i = 0; i < sizeof theme_attrs / sizeof theme_attrs[0]; i++)
			if (strcmp(w, theme_attrs[i].name) == 0)
				break;
		if (i == sizeof theme_attrs / sizeof theme_attrs[0]) {
			snprintf(why, whylen, "unknown attribute '%.40s' (bold, dim, underline, "
			    "reverse, standout, italic, blink or normal)", w);
			return -1;
		}
		tmp.attrs |= theme_attrs[i].bit;
		any_attr = true;
	}
	if (n < 2) {
		snprintf(why, whylen, "expected a foreground and a background colour");
		return -1;
	}
	/* Without colours: a colourless line says exactly how the element
	 * looks; a coloured one adds its attributes to the built-in ones. */
	if (tmp.fg.kind == TUI_C_DEFAULT && tmp.bg.kind == TUI_C_DEFAULT && any_attr)
		tmp.mono = tmp.attrs;
	else
		tmp.mono = builtin_mono | tmp.attrs;
	*s = tmp;
	return 0;
}

/* See tui.h. */
void tui_theme_defaults(struct tui_theme *t)
{
	char why[PROTO_ERR_LEN], spec[128];
	int r;

	memset(t, 0, sizeof *t);
	snprintf(t->source, sizeof t->source, "built-in");
	for (int i = 0; i < TUI_EL_COUNT; i++) {
		snprintf(spec, sizeof spec, "%s", theme_els[i].spec);
		r = theme_spec(spec, theme_els[i].mono, &t->el[i], why, sizeof why);
		assert(r == 0);
		(void)r;
	}
}

/* Is p the start of a #rrggbb colour word? */
static bool theme_is_rgb(const char *p)
{
	return p[0] == '#' && strspn(p + 1, "0123456789abcdefABCDEF") == 6 &&
	    (p[7] == '\0' || p[7] == ' ' || p[7] == '\t' || p[7] == '\r');
}

/* Cut a comment: '#' at the start of the line, or after a blank when it
 * does not start a #rrggbb colour. */
static void theme_strip_comment(char *line)
{
	char *k = line + strspn(line, " \t");

	if (*k == '#') {
		*k = '\0';
		return;
	}
	for (char *p = k; (p = strchr(p, '#')) != NULL; p++) {
		if ((p[-1] == ' ' || p[-1] == '\t') && !theme_is_rgb(p)) {
			*p = '\0';
			return;
		}
	}
}

/* Find an element by name. */
static int theme_el_find(const char *name)
{
	for (int i = 0; i < TUI_EL_COUNT; i++)
		if (strcmp(name, theme_els[i].name) == 0)
			return i;
	return -1;
}

/* See tui.h. */
int tui_theme_parse(struct tui_theme *t, const char *text, const char *fname,
    char *err, size_t errlen)
{
	const char *p = text;
	int lineno = 0;

	while (*p) {
		char line[1024], why[PROTO_ERR_LEN], *eq, *k, *v, *e;
		size_t n = strcspn(p, "\n");
		int el;

		lineno++;
		if (n >= sizeof line) {
			snprintf(err, errlen, "%s:%d: line too long (over %zu bytes)", fname, lineno,
			    sizeof line - 1);
			return -1;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (p[n] == '\n');
		theme_strip_comment(line);
		k = line + strspn(line, " \t\r");
		for (e = k + strlen(k); e > k && strchr(" \t\r", e[-1]); e--)
			e[-1] = '\0';
		if (*k == '\0')
			continue;
		eq = strchr(k, '=');
		if (eq == NULL) {
			snprintf(err, errlen, "%s:%d: expected 'element = foreground background "
			    "[attributes]'", fname, lineno);
			return -1;
		}
		v = eq + 1;
		for (e = eq; e > k && strchr(" \t", e[-1]); e--)
			;
		*e = '\0';
		el = theme_el_find(k);
		if (el < 0) {
			char known[512] = "";

			for (int i = 0; i < TUI_EL_COUNT; i++)
				snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
				    i ? ", " : "", theme_els[i].name);
			snprintf(err, errlen, "%s:%d: unknown element '%.40s' (elements: %s)", fname,
			    lineno, k, known);
			return -1;
		}
		if (theme_spec(v, theme_els[el].mono, &t->el[el], why, sizeof why) < 0) {
			snprintf(err, errlen, "%s:%d: %s", fname, lineno, why);
			return -1;
		}
	}
	return 0;
}

/* The directories searched for NAME.theme, in order; returns how many. */
static int theme_dirs(char dirs[][PATH_MAX], int max)
{
	const char *env = getenv("HOOKSCOPE_THEMES");
	char exe[PATH_MAX];
	ssize_t n;
	int nd = 0;

	while (env != NULL && *env && nd < max - 3) {
		size_t len = strcspn(env, ":");

		if (len > 0 && len < PATH_MAX) {
			memcpy(dirs[nd], env, len);
			dirs[nd++][len] = '\0';
		}
		env += len + (env[len] == ':');
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(dirs[nd++], PATH_MAX, "%.*s/themes", PATH_MAX - 8, exe);
			/* an installed tree moved as a whole: PREFIX/bin -> PREFIX/share */
			snprintf(dirs[nd++], PATH_MAX, "%.*s/../share/hookscope/themes",
			    PATH_MAX - 32, exe);
		}
	}
	snprintf(dirs[nd++], PATH_MAX, "%s", HS_THEMES_DIR);
	return nd;
}

/* qsort order of theme names. */
static int theme_name_cmp(const void *x, const void *y)
{
	return strcmp(x, y);
}

/* See tui.h: NAME of every NAME.theme in the search path, sorted, each
 * once (as --theme finds them). */
int tui_theme_names(char names[][64], int max)
{
	char dirs[8][PATH_MAX];
	int nd = theme_dirs(dirs, 8), n = 0;

	for (int i = 0; i < nd; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		while (d != NULL && (e = readdir(d)) != NULL && n < max) {
			size_t len = strlen(e->d_name);
			int k;

			if (len <= 6 || len - 6 >= 64 || strcmp(e->d_name + len - 6, ".theme") != 0)
				continue;
			snprintf(names[n], 64, "%.*s", (int)(len - 6), e->d_name);
			for (k = 0; k < n && strcmp(names[k], names[n]) != 0; k++)
				;
			n += k == n;
		}
		if (d != NULL)
			closedir(d);
	}
	qsort(names, (size_t)n, sizeof names[0], theme_name_cmp);
	return n;
}

/* Read a whole theme file (at most THEME_MAX_SIZE) into a heap string. */
static char *theme_read(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;

	if (f == NULL) {
		snprintf(err, errlen, "cannot read theme %s: %s", path, strerror(errno));
		return NULL;
	}
	text = xmalloc(THEME_MAX_SIZE + 1);
	n = fread(text, 1, THEME_MAX_SIZE + 1, f);
	if (ferror(f) || n > THEME_MAX_SIZE || memchr(text, '\0', n) != NULL) {
		snprintf(err, errlen, "cannot read theme %s: %s", path, ferror(f) ? strerror(errno) :
		    n > THEME_MAX_SIZE ? "larger than 64 KiB" : "not a text file");
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	text[n] = '\0';
	return text;
}

/* Resolve NAME or PATH to a file; -1 when not found (err says where we looked). */
static int theme_find(const char *name, char *path, size_t pathlen, char *err, size_t errlen)
{
	char dirs[8][PATH_MAX], looked[1024] = "";
	size_t nlen = strlen(name);
	int nd;

	if (strchr(name, '/') != NULL ||
	    (nlen > 6 && strcmp(name + nlen - 6, ".theme") == 0 && access(name, F_OK) == 0)) {
		snprintf(path, pathlen, "%s", name);
		return 0;
	}
	nd = theme_dirs(dirs, 8);
	for (int i = 0; i < nd; i++) {
		size_t used = strlen(looked);

		if ((size_t)snprintf(path, pathlen, "%s/%s.theme", dirs[i], name) < pathlen &&
		    access(path, F_OK) == 0)
			return 0;
		if ((size_t)snprintf(looked + used, sizeof looked - used, "%s%s", i ? ", " : "",
		    dirs[i]) >= sizeof looked - used)
			looked[sizeof looked - 1] = '\0';
	}
	snprintf(err, errlen, "theme '%s' not found (looked for %s.theme in %s; "
	    "set HOOKSCOPE_THEMES or give a path)", name, name, looked);
	return -1;
}

/* See tui.h. */
int tui_theme_load(struct tui_theme *t, const char *name, char *err, size_t errlen)
{
	struct tui_theme tmp;
	char path[PATH_MAX], *text;
	bool implicit = name == NULL;

	tui_theme_defaults(t);
	if (implicit)
		name = "default";
	if (theme_find(name, path, sizeof path, err, errlen) < 0)
		return implicit ? 0 : -1;
	text = theme_read(path, err, errlen);
	if (text == NULL)
		return -1;
	tui_theme_defaults(&tmp);
	if (tui_theme_parse(&tmp, text, path, err, errlen) < 0) {
		free(text);
		return -1;
	}
	free(text);
	if ((size_t)snprintf(tmp.source, sizeof tmp.source, "%s", path) >= sizeof tmp.source)
		tmp.source[sizeof tmp.source - 1] = '\0';
	*t = tmp;
	return 0;
}

/* See tui.h. */
int tui_theme_check(const char *name)
{
	struct tui_theme t;
	char err[PROTO_ERR_LEN + 512];

	if (tui_theme_load(&t, name, err, sizeof err) < 0) {
		fprintf(stderr, "hookscope: %s\n", err);
		return 1;
	}
	printf("theme %s: ok\n", t.source);
	return 0;
}
