/*
 * power_table.c - the declarative power API table (doc/power.md): one row
 * per line,
 *
 *   SYMBOL ROLE RESOURCE CATEGORY REFCOUNT ITEM [when=COND]... [timeout=V:UNIT] [power=F]
 *
 * '#' starts a comment.  A malformed row is reported with its line and
 * skipped; the rest of the file still loads.  Pure (no agent state), so the
 * fuzz target links this file alone.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "power_int.h"

#define POWER_FIELDS_MAX 12

static const char *const power_roles[] = {
	[POWER_ACQUIRE] = "acquire", [POWER_ACQUIRE_TIMEOUT] = "acquire-timeout",
	[POWER_RELEASE] = "release", [POWER_ONESHOT] = "oneshot",
};

/* See power.h. */
const char *power_role_name(enum power_role r)
{
	return (unsigned)r < sizeof power_roles / sizeof power_roles[0] ? power_roles[r] : "?";
}

/* Copy s (n bytes) into dst of size POWER_NAME_MAX; -1 if too long. */
static int power_copy(char *dst, size_t cap, const char *s, size_t n)
{
	if (n == 0 || n >= cap)
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* A whole decimal or 0x number; -1 if not one. */
static int power_num(const char *s, int64_t *v)
{
	char *end;

	if (*s == '\0')
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 0);
	return errno != 0 || *end != '\0' ? -1 : 0;
}

/* "argN" (N 0-5) at s: the index, and *rest past it; -1 if not. */
static int power_argn(const char *s, const char **rest)
{
	if (strncmp(s, "arg", 3) != 0 || s[3] < '0' || s[3] > '5')
		return -1;
	*rest = s + 4;
	return s[3] - '0';
}

/* RESOURCE: argN:KIND, ret:int, const:TEXT. */
static const char *power_parse_res(const char *s, struct power_val *v)
{
	static const char *const kinds[] = { [POWER_K_INT] = "int", [POWER_K_STR] = "str",
		[POWER_K_PTR] = "ptr", [POWER_K_BUF] = "buf", [POWER_K_PATH] = "path",
		[POWER_K_BINDER] = "binder" };
	const char *rest;
	int a;

	memset(v, 0, sizeof *v);
	if (strncmp(s, "const:", 6) == 0) {
		v->src = POWER_SRC_CONST;
		return power_copy(v->text, sizeof v->text, s + 6, strlen(s + 6)) < 0 ?
		    "const: needs a tag of 1-63 bytes" : NULL;
	}
	if (strcmp(s, "ret:int") == 0) {
		v->src = POWER_SRC_RET;
		v->kind = POWER_K_INT;
		return NULL;
	}
	if ((a = power_argn(s, &rest)) < 0 || *rest != ':')
		return "resource must be argN:KIND (N 0-5), ret:int or const:TAG";
	v->src = POWER_SRC_ARG;
	v->arg = a;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if (strcmp(rest + 1, kinds[k]) == 0) {
			v->kind = (enum power_kind)k;
			if (v->kind == POWER_K_BUF && a == 5)
				return "argN:buf needs its length in argN+1 (N 0-4)";
			return NULL;
		}
	return "resource kind must be int, str, ptr, buf, path or binder";
}

/* when=COND (see power.h). */
static const char *power_parse_cond(const char *s, struct power_cond *c)
{
	const char *rest;
	int a;

	memset(c, 0, sizeof *c);
	if (strncmp(s, "word", 4) == 0 && s[4] >= '0' && s[4] <= '9' && s[5] == '=') {
		c->src = POWER_SRC_WORD;
		c->arg = s[4] - '0';
		c->op = POWER_OP_STREQ;
		if (s[6] == '\0')
			return NULL;    /* "wordN=": the buffer has no word N */
		return power_copy(c->text, sizeof c->text, s + 6, strlen(s + 6)) < 0 ?
		    "condition text must be 1-127 bytes" : NULL;
	}
	if (strncmp(s, "ret", 3) == 0) {
		c->src = POWER_SRC_RET;
		rest = s + 3;
	} else if ((a = power_argn(s, &rest)) >= 0) {
		c->src = POWER_SRC_ARG;
		c->arg = a;
	} else {
		return "condition must start with argN or ret";
	}
	if (strncmp(rest, "==", 2) == 0 || strncmp(rest, "!=", 2) == 0 || strncmp(rest, ">=", 2) == 0) {
		c->op = rest[0] == '=' ? POWER_OP_EQ : rest[0] == '!' ? POWER_OP_NE : POWER_OP_GE;
		return power_num(rest + 2, &c->num) < 0 ? "condition value must be a number" : NULL;
	}
	if (c->src == POWER_SRC_RET)
		return "ret conditions are ret==V, ret!=V, ret>=V";
	if (rest[0] == '&') {
		c->op = POWER_OP_AND;
		return power_num(rest + 1, &c->num) < 0 || c->num == 0 ?
		    "argN&MASK needs a non-zero number" : NULL;
	}
	if (rest[0] == '=' || rest[0] == '@') {
		c->op = rest[0] == '=' ? POWER_OP_STREQ : POWER_OP_FD;
		return power_copy(c->text, sizeof c->text, rest + 1, strlen(rest + 1)) < 0 ?
		    "condition text must be 1-127 bytes" : NULL;
	}
	return "condition operator must be ==, !=, >=, &, = or @";
}

/* timeout=argN:UNIT or word1:UNIT (UNIT ns, us, ms, s). */
static const char *power_parse_timeout(const char *s, struct power_row *r)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	const char *rest = NULL;
	int a;

	if (strncmp(s, "word", 4) == 0 && s[4] >= '1' && s[4] <= '9') {
		r->timeout.src = POWER_SRC_WORD;
		r->timeout.arg = s[4] - '0';
		rest = s + 5;
	} else if ((a = power_argn(s, &rest)) >= 0) {
		r->timeout.src = POWER_SRC_ARG;
		r->timeout.arg = a;
	} else {
		return "timeout must be argN:UNIT or wordN:UNIT";
	}
	r->timeout.kind = POWER_K_INT;
	for (size_t k = 0; *rest == ':' && k < sizeof units / sizeof units[0]; k++)
		if (strcmp(rest + 1, units[k].name) == 0) {
			r->timeout_unit_ns = units[k].ns;
			return NULL;
		}
	return "timeout unit must be ns, us, ms or s";
}

/* Is s a category or item word: [A-Za-z0-9._-]+ (':' too when colon)? */
static bool power_word_c(const char *s, bool colon)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-' &&
		    !(colon && *s == ':'))
			return false;
	return true;
}
#define power_word(s) power_word_c(s, false)

/* A Binder method "binder:DESCRIPTOR:CODE" (CODE 1-16777215)? */
static bool power_binder_ok(const char *s)
{
	const char *c = strrchr(s, ':');
	int64_t code;

	return strncmp(s, "binder:", 7) == 0 && c != NULL && c > s + 7 &&
	    power_num(c + 1, &code) == 0 && code >= 1 && code <= 0xffffff;
}

/* Parse the fields of one row into r; NULL, or what is wrong. */
static const char *power_parse_row(char **f, int nf, struct power_row *r)
{
	const char *e;
	int k;

	if (nf < 6)
		return "a row needs SYMBOL ROLE RESOURCE CATEGORY REFCOUNT ITEM";
	if (power_copy(r->symbol, sizeof r->symbol, f[0], strlen(f[0])) < 0 ||
	    !power_word_c(f[0], strncmp(f[0], "binder:", 7) == 0))
		return "symbol must be 1-63 bytes of [A-Za-z0-9._-] (or binder:DESCRIPTOR:CODE)";
	if (strncmp(f[0], "binder:", 7) == 0 && !power_binder_ok(f[0]))
		return "a Binder method is binder:DESCRIPTOR:CODE with a numeric CODE";
	for (k = 0; k < (int)(sizeof power_roles / sizeof power_roles[0]); k++)
		if (strcmp(f[1], power_roles[k]) == 0)
			break;
	if (k == (int)(sizeof power_roles / sizeof power_roles[0]))
		return "role must be acquire, acquire-timeout, release or oneshot";
	r->role = (enum power_role)k;
	if ((e = power_parse_res(f[2], &r->res)) != NULL)
		return e;
	if (power_copy(r->category, sizeof r->category, f[3], strlen(f[3])) < 0 || !power_word(f[3]))
		return "category must be 1-63 bytes of [A-Za-z0-9._-]";
	if (strcmp(f[4], "ref") != 0 && strcmp(f[4], "noref") != 0)
		return "refcount must be ref or noref";
	r->refcount = f[4][0] == 'r';
	if (power_copy(r->item, sizeof r->item, f[5], strlen(f[5])) < 0 || !power_word(f[5]))
		return "item must be a power_profile item name or -";
	for (int i = 6; i < nf; i++) {
		if (strncmp(f[i], "when=", 5) == 0) {
			if (r->ncond == POWER_CONDS_MAX)
				return "at most 3 when= conditions";
			if ((e = power_parse_cond(f[i] + 5, &r->cond[r->ncond++])) != NULL)
				return e;
		} else if (strncmp(f[i], "timeout=", 8) == 0) {
			if ((e = power_parse_timeout(f[i] + 8, r)) != NULL)
				return e;
		} else if (strncmp(f[i], "power=", 6) == 0) {
			if (power_copy(r->power_fn, sizeof r->power_fn, f[i] + 6,
			    strlen(f[i] + 6)) < 0 || !power_word(f[i] + 6))
				return "power= needs a function name";
		} else {
			return "unknown option (when=, timeout=, power=)";
		}
	}
	if ((r->role == POWER_ACQUIRE_TIMEOUT) != (r->timeout.src != POWER_SRC_NONE))
		return "acquire-timeout rows, and only they, need timeout=";
	if (r->timeout.src == POWER_SRC_WORD && r->res.kind != POWER_K_BUF)
		return "timeout=wordN needs an argN:buf resource";
	if (r->res.kind == POWER_K_BINDER && strncmp(r->symbol, "binder:", 7) != 0)
		return "argN:binder is for Binder rows, and Binder rows take int, binder or const";
	if (strncmp(r->symbol, "binder:", 7) == 0 && r->res.src == POWER_SRC_ARG &&
	    r->res.kind != POWER_K_INT && r->res.kind != POWER_K_BINDER)
		return "argN:binder is for Binder rows, and Binder rows take int, binder or const";
	return NULL;
}

/* See power.h. */
void power_table_parse(struct power_table *t, const char *text, size_t len, const char *file,
    void (*err)(const char *file, int line, const char *msg, void *arg), void *arg)
{
	size_t pos = 0;
	int line = 0;

	while (pos < len) {
		size_t end = pos;
		char buf[1024], *f[POWER_FIELDS_MAX], *save = NULL, *tok;
		struct power_row r;
		const char *e = NULL;
		int nf = 0;

		while (end < len && text[end] != '\n')
			end++;
		line++;
		if (end - pos >= sizeof buf) {
			e = "line longer than 1023 bytes";
		} else {
			memcpy(buf, text + pos, end - pos);
			buf[end - pos] = '\0';
			if (memchr(buf, '\0', end - pos) != NULL)
				e = "NUL byte in the line";
			else if (strchr(buf, '#') != NULL)
				*strchr(buf, '#') = '\0';
		}
		pos = end + 1;
		for (tok = e ? NULL : strtok_r(buf, " \t\r", &save); tok != NULL && e == NULL;
		    tok = strtok_r(NULL, " \t\r", &save)) {
			if (nf == POWER_FIELDS_MAX)
				e = "too many fields";
			else
				f[nf++] = tok;
		}
		if (e == NULL && nf == 0)
			continue;
		memset(&r, 0, sizeof r);
		r.line = line;
		if (e == NULL)
			e = power_parse_row(f, nf, &r);
		if (e == NULL && t->nrows == POWER_ROWS_MAX)
			e = "more than 256 rows";
		if (e != NULL) {
			t->errors++;
			if (err != NULL)
				err(file, line, e, arg);
			continue;
		}
		if (t->nrows % 16 == 0) {
			struct power_row *n = realloc(t->rows, (size_t)(t->nrows + 16) * sizeof *n);

			if (n == NULL)
				abort();
			t->rows = n;
		}
		t->rows[t->nrows++] = r;
	}
}

/* See power.h. */
void power_table_free(struct power_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof *t);
}
