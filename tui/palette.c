/*
 * palette.c - theme colours to curses attributes.
 *
 * A theme names colours as 0-255 (xterm numbering) or #rrggbb; the terminal
 * may have 8, 16, 256 or direct colours.  Anything the terminal lacks is
 * mapped to its nearest colour (squared RGB distance) among those it has.
 */
#include "tui.h"

/* After tui.h: term.h defines macros such as "lines" and "hangup". */
#include <curses.h>
#include <term.h>

struct palette_rgb {
	int r, g, b;
};

/* xterm's first 16 colours. */
static const struct palette_rgb palette_basic[16] = {
	{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
	{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
	{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
	{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
};

/* RGB of an xterm colour number. */
static struct palette_rgb palette_xterm(int n)
{
	struct palette_rgb c;

	if (n < 16)
		return palette_basic[n];
	if (n >= 232) {
		c.r = c.g = c.b = 8 + 10 * (n - 232);
		return c;
	}
	n -= 16;
	c.r = n / 36 ? 55 + 40 * (n / 36) : 0;
	c.g = (n / 6) % 6 ? 55 + 40 * ((n / 6) % 6) : 0;
	c.b = n % 6 ? 55 + 40 * (n % 6) : 0;
	return c;
}

/* Squared RGB distance. */
static int palette_dist(struct palette_rgb a, struct palette_rgb b)
{
	return (a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) + (a.b - b.b) * (a.b - b.b);
}

/* Nearest colour number among the first n xterm colours. */
static int palette_nearest(struct palette_rgb want, int n)
{
	int best = 0, bestd = -1;

	for (int i = 0; i < n; i++) {
		int d = palette_dist(want, palette_xterm(i));

		if (bestd < 0 || d < bestd) {
			best = i;
			bestd = d;
		}
	}
	return best;
}

/* Does the terminal take 24-bit colours as colour numbers? */
static bool palette_direct(void)
{
	return COLORS >= 0x1000000 && tigetflag("RGB") > 0;
}

/* Terminal colour number for a theme colour; -1 = terminal default. */
static int palette_map(const struct tui_colour *c, bool fg, bool have_default)
{
	struct palette_rgb rgb;
	int ncol = COLORS >= 256 ? 256 : COLORS >= 16 ? 16 : 8;

	if (c->kind == TUI_C_DEFAULT)
		return have_default ? -1 : fg ? COLOR_WHITE : COLOR_BLACK;
	if (c->kind == TUI_C_INDEX) {
		if (c->index < 8 || (c->index < ncol && !palette_direct()))
			return c->index;
		rgb = palette_xterm(c->index);
	} else {
		rgb.r = c->r;
		rgb.g = c->g;
		rgb.b = c->b;
	}
	if (palette_direct())
		return rgb.r << 16 | rgb.g << 8 | rgb.b;
	return palette_nearest(rgb, ncol);
}

/* TUI_A_* to curses attributes. */
static attr_t palette_attrs(unsigned a)
{
	attr_t r = A_NORMAL;

	if (a & TUI_A_BOLD)      r |= A_BOLD;
	if (a & TUI_A_DIM)       r |= A_DIM;
	if (a & TUI_A_UNDERLINE) r |= A_UNDERLINE;
	if (a & TUI_A_REVERSE)   r |= A_REVERSE;
	if (a & TUI_A_STANDOUT)  r |= A_STANDOUT;
	if (a & TUI_A_ITALIC)    r |= A_ITALIC;
	if (a & TUI_A_BLINK)     r |= A_BLINK;
	return r;
}

/* See tui.h.  Pair number el + 1 belongs to element el. */
void tui_theme_apply(const struct tui_theme *t, bool colour, unsigned long *attr)
{
	bool have_default = colour && use_default_colors() == OK;

	for (int el = 0; el < TUI_EL_COUNT; el++) {
		const struct tui_style *s = &t->el[el];

		if (!colour || el + 1 >= COLOR_PAIRS) {
			attr[el] = palette_attrs(s->mono);
			continue;
		}
		init_extended_pair(el + 1, palette_map(&s->fg, true, have_default),
		    palette_map(&s->bg, false, have_default));
		attr[el] = palette_attrs(s->attrs) | COLOR_PAIR(el + 1);
	}
}
