/*
 * power_profile.c - Android's power_profile.xml, plain or compiled (the
 * binary XML aapt writes into framework-res.apk or an overlay apk; extract
 * it with `unzip -p framework-res.apk res/xml/power_profile.xml`).  Both
 * give the same list: every <item name="N">V</item> as N = V and every
 * <array name="N"><value>V</value>...</array> as N[0], N[1], ... (mA).
 * Pure (no daemon state): the fuzz target links this file alone.
 * doc/power.md.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "power_profile.h"

#define AXML_FILE       0x0003
#define AXML_STRINGS    0x0001
#define AXML_START_ELEM 0x0102
#define AXML_END_ELEM   0x0103
#define AXML_CDATA      0x0104
#define AXML_UTF8       0x0100
#define PP_TEXT_MAX     256

/* Add name (or name[idx] when idx >= 0) = text, if text is a number. */
static void pp_add(struct power_profile *p, const char *name, int idx, const char *text)
{
	char *end;
	double v;

	while (isspace((unsigned char)*text))
		text++;
	v = strtod(text, &end);
	if (end == text || p->n == PP_ITEMS_MAX)
		return;
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '\0')
		return;
	if (idx >= 0)
		snprintf(p->items[p->n].name, sizeof p->items[p->n].name, "%s[%d]", name, idx);
	else
		snprintf(p->items[p->n].name, sizeof p->items[p->n].name, "%s", name);
	p->items[p->n++].ma = v;
}

/* The element walker both formats feed: start (tag, name attribute),
 * text, end. */
struct pp_walk {
	struct power_profile *p;
	char array[PP_NAME_MAX];          /* inside <array name=...> */
	int  idx;
	char item[PP_NAME_MAX];           /* inside <item name=...> or <value> */
	bool in_item, in_value;
	char text[PP_TEXT_MAX];
	size_t tlen;
};

static void pp_start(struct pp_walk *w, const char *tag, const char *name)
{
	w->tlen = 0;
	w->text[0] = '\0';
	if (strcmp(tag, "array") == 0 && name != NULL) {
		snprintf(w->array, sizeof w->array, "%s", name);
		w->idx = 0;
	} else if (strcmp(tag, "item") == 0 && name != NULL) {
		snprintf(w->item, sizeof w->item, "%s", name);
		w->in_item = true;
	} else if (strcmp(tag, "value") == 0 && w->array[0] != '\0') {
		w->in_value = true;
	}
}

static void pp_text(struct pp_walk *w, const char *s, size_t n)
{
	if (!w->in_item && !w->in_value)
		return;
	if (n > sizeof w->text - 1 - w->tlen)
		n = sizeof w->text - 1 - w->tlen;
	memcpy(w->text + w->tlen, s, n);
	w->tlen += n;
	w->text[w->tlen] = '\0';
}

static void pp_end(struct pp_walk *w, const char *tag)
{
	if (strcmp(tag, "item") == 0 && w->in_item) {
		pp_add(w->p, w->item, -1, w->text);
		w->in_item = false;
	} else if (strcmp(tag, "value") == 0 && w->in_value) {
		pp_add(w->p, w->array, w->idx++, w->text);
		w->in_value = false;
	} else if (strcmp(tag, "array") == 0) {
		w->array[0] = '\0';
	}
	w->tlen = 0;
	w->text[0] = '\0';
}

/* ---- plain XML: the subset power_profile.xml uses (elements, name
 * attributes, text, comments, the <?xml?> declaration) ---- */
static int pp_plain(struct pp_walk *w, const char *s, size_t len, char *err, size_t errlen)
{
	size_t i = 0;
	int line = 1;

	while (i < len) {
		if (s[i] != '<') {
			size_t k = i;

			while (k < len && s[k] != '<')
				line += s[k++] == '\n';
			pp_text(w, s + i, k - i);
			i = k;
			continue;
		}
		if (len - i >= 4 && memcmp(s + i, "<!--", 4) == 0) {
			const char *e = memmem(s + i + 4, len - i - 4, "-->", 3);

			if (e == NULL)
				goto bad;
			for (const char *c = s + i; c < e; c++)
				line += *c == '\n';
			i = (size_t)(e - s) + 3;
			continue;
		}
		const char *gt = memchr(s + i, '>', len - i);
		char tag[PP_NAME_MAX], name[PP_NAME_MAX], buf[512];
		bool end = false, empty = false;
		size_t n;

		if (gt == NULL || (n = (size_t)(gt - (s + i)) - 1) >= sizeof buf)
			goto bad;
		memcpy(buf, s + i + 1, n);
		buf[n] = '\0';
		for (char *c = buf; *c; c++)
			line += *c == '\n';
		i = (size_t)(gt - s) + 1;
		if (buf[0] == '?' || buf[0] == '!')
			continue;
		if (buf[0] == '/')
			end = true;
		if (n > 0 && buf[n - 1] == '/') {
			empty = true;
			buf[n - 1] = '\0';
		}
		if (sscanf(buf + end, "%63[A-Za-z0-9_.:-]", tag) != 1)
			goto bad;
		if (end) {
			pp_end(w, tag);
			continue;
		}
		const char *na = strstr(buf, " name=\"");
		name[0] = '\0';
		if (na == NULL)
			na = strstr(buf, "\tname=\"");
		if (na != NULL && sscanf(na + 7, "%63[^\"]", name) != 1)
			name[0] = '\0';
		pp_start(w, tag, name[0] ? name : NULL);
		if (empty)
			pp_end(w, tag);
	}
	return 0;
bad:
	snprintf(err, errlen, "line %d: malformed XML markup", line);
	return -1;
}

/* ---- binary XML (AXML): a string pool then element chunks ---- */
struct pp_pool {
	const uint8_t *base;              /* the pool chunk */
	size_t size;
	uint32_t count, strings;          /* strings, offset of their data */
	const uint8_t *offs;
	bool utf8;
};

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	(uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* String idx of the pool into out (ASCII kept, the rest '?'); -1 if bad. */
static int pp_str(const struct pp_pool *sp, uint32_t idx, char *out, size_t cap)
{
	size_t off, n, k = 0;

	if (sp->base == NULL || idx >= sp->count)
		return -1;
	off = (size_t)sp->strings + rd32(sp->offs + 4 * (size_t)idx);
	if (off >= sp->size)
		return -1;
	if (sp->utf8) {
		const uint8_t *p = sp->base + off, *e = sp->base + sp->size;

		if (p < e && (*p & 0x80))
			p++;                    /* char count, two bytes */
		if (++p >= e)
			return -1;
		n = *p & 0x7f;
		if (*p & 0x80) {
			if (p + 1 >= e)
				return -1;
			n = (size_t)(*p & 0x7f) << 8 | p[1];
			p++;
		}
		p++;
		if (n > (size_t)(e - p))
			return -1;
		for (; k < n && k + 1 < cap; k++)
			out[k] = (char)(p[k] & 0x80 ? '?' : p[k]);
	} else {
		if (off + 2 > sp->size)
			return -1;
		n = rd16(sp->base + off);
		off += 2;
		if (n & 0x8000) {
			if (off + 2 > sp->size)
				return -1;
			n = (n & 0x7fff) << 16 | rd16(sp->base + off);
			off += 2;
		}
		if (n > (sp->size - off) / 2)
			return -1;
		for (; k < n && k + 1 < cap; k++) {
			uint16_t c = rd16(sp->base + off + 2 * k);

			out[k] = (char)(c < 0x80 ? c : '?');
		}
	}
	out[k] = '\0';
	return 0;
}

static int pp_binary(struct pp_walk *w, const uint8_t *b, size_t len, char *err, size_t errlen)
{
	struct pp_pool sp = { 0 };
	size_t off;

	if (len < 8 || rd16(b) != AXML_FILE || rd32(b + 4) > len || rd16(b + 2) < 8) {
		snprintf(err, errlen, "not an Android binary XML file (bad header)");
		return -1;
	}
	len = rd32(b + 4);
	for (off = rd16(b + 2); off + 8 <= len;) {
		uint16_t type = rd16(b + off), hsize = rd16(b + off + 2);
		uint32_t size = rd32(b + off + 4);
		const uint8_t *c = b + off;
		char tag[PP_NAME_MAX], name[PP_NAME_MAX], text[PP_TEXT_MAX];

		if (size < 8 || size > len - off || hsize < 8 || hsize > size) {
			snprintf(err, errlen, "binary XML: chunk at offset %zu overruns the file", off);
			return -1;
		}
		if (type == AXML_STRINGS && sp.base == NULL) {
			if (hsize < 28) {
				snprintf(err, errlen, "binary XML: string pool header too short");
				return -1;
			}
			sp.base = c;
			sp.size = size;
			sp.count = rd32(c + 8);
			sp.utf8 = (rd32(c + 16) & AXML_UTF8) != 0;
			sp.strings = rd32(c + 20);
			sp.offs = c + hsize;
			if (sp.count > (size - hsize) / 4 || sp.strings > size) {
				snprintf(err, errlen, "binary XML: string pool counts overrun it");
				return -1;
			}
		} else if ((type == AXML_START_ELEM || type == AXML_END_ELEM) && size >= hsize + 8u) {
			const uint8_t *x = c + hsize;

			if (pp_str(&sp, rd32(x + 4), tag, sizeof tag) < 0) {
				snprintf(err, errlen, "binary XML: element name is not in the string pool");
				return -1;
			}
			name[0] = '\0';
			if (type == AXML_START_ELEM && size >= hsize + 20u) {
				uint16_t start = rd16(x + 8), asz = rd16(x + 10), cnt = rd16(x + 12);

				for (uint32_t i = 0; i < cnt; i++) {
					size_t a = hsize + (size_t)start + (size_t)i * asz;
					char an[PP_NAME_MAX];

					if (asz < 20 || a + 20 > size)
						break;
					if (pp_str(&sp, rd32(c + a + 4), an, sizeof an) == 0 &&
					    strcmp(an, "name") == 0 &&
					    pp_str(&sp, rd32(c + a + 8), name, sizeof name) < 0)
						name[0] = '\0';
				}
			}
			if (type == AXML_START_ELEM)
				pp_start(w, tag, name[0] ? name : NULL);
			else
				pp_end(w, tag);
		} else if (type == AXML_CDATA && size >= hsize + 4u) {
			if (pp_str(&sp, rd32(c + hsize), text, sizeof text) == 0)
				pp_text(w, text, strlen(text));
		}
		off += size;
	}
	return 0;
}

/* See power_profile.h. */
int power_profile_parse(struct power_profile *p, const void *buf, size_t len,
    char *err, size_t errlen)
{
	struct pp_walk w = { .p = p };
	const uint8_t *b = buf;
	int r;

	memset(p, 0, sizeof *p);
	if (len >= 2 && rd16(b) == AXML_FILE)
		r = pp_binary(&w, b, len, err, errlen);
	else
		r = pp_plain(&w, buf, len, err, errlen);
	if (r < 0)
		return -1;
	if (p->n == 0) {
		snprintf(err, errlen, "no <item> or <array> values found (is it a power_profile.xml?)");
		return -1;
	}
	p->dummy = true;           /* AOSP's default: every value 0.1 (or 0) */
	for (size_t i = 0; i < p->n; i++)
		if (p->items[i].ma != 0.1 && p->items[i].ma != 0)
			p->dummy = false;
	return 0;
}

/* See power_profile.h. */
double power_profile_get(const struct power_profile *p, const char *name)
{
	char idx[PP_NAME_MAX + 4];

	snprintf(idx, sizeof idx, "%s[0]", name);
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->items[i].name, name) == 0 || strcmp(p->items[i].name, idx) == 0)
			return p->items[i].ma;
	return -1;
}
