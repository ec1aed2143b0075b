/*
 * power.c - the "power" map, shared by the agent's "power" record (the
 * ledger) and the daemon's frames (the ledger priced: mAh per resource and
 * per category, the profile used and its warning).  doc/protocol.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

#define PWR_MAX_STACK 16

/* Pack an array of strings. */
static void pwr_pack_strs(msgpack_packer *pk, const char *key, char **v, size_t n)
{
	proto_pack_str(pk, key);
	msgpack_pack_array(pk, n);
	for (size_t i = 0; i < n; i++)
		proto_pack_str(pk, v[i] ? v[i] : "");
}

/* Pack one resource. */
static void pwr_pack_res(msgpack_packer *pk, const struct proto_pwr_res *r)
{
	msgpack_pack_map(pk, 24);
	proto_pack_kv_str(pk, "category", r->category ? r->category : "");
	proto_pack_kv_str(pk, "name", r->name ? r->name : "");
	proto_pack_kv_str(pk, "api", r->api ? r->api : "");
	proto_pack_kv_str(pk, "item", r->item ? r->item : "");
	proto_pack_kv_f64(pk, "ma", r->ma);
	proto_pack_kv_bool(pk, "refcount", r->refcount);
	proto_pack_kv_bool(pk, "held", r->held);
	proto_pack_kv_bool(pk, "leaked", r->leaked);
	proto_pack_kv_i64(pk, "refs", r->refs);
	proto_pack_kv_u64(pk, "held_ns", r->held_ns);
	proto_pack_kv_u64(pk, "total_ns", r->total_ns);
	proto_pack_kv_u64(pk, "longest_ns", r->longest_ns);
	proto_pack_kv_u64(pk, "acquires", r->acquires);
	proto_pack_kv_u64(pk, "releases", r->releases);
	proto_pack_kv_u64(pk, "timeouts", r->timeouts);
	proto_pack_kv_u64(pk, "unmatched", r->unmatched);
	proto_pack_kv_u64(pk, "oneshots", r->oneshots);
	proto_pack_kv_i64(pk, "holder_tid", r->holder_tid);
	proto_pack_kv_i64(pk, "releaser_tid", r->releaser_tid);
	pwr_pack_strs(pk, "holder", r->holder, r->nholder);
	pwr_pack_strs(pk, "releaser", r->releaser, r->nreleaser);
	proto_pack_kv_f64(pk, "mah", r->mah);
	proto_pack_kv_f64(pk, "price_ma", r->price_ma);
	proto_pack_kv_str(pk, "price_from", r->price_from ? r->price_from : "");
}

/* See protocol.h. */
void proto_pack_power(msgpack_packer *pk, const struct proto_power *p)
{
	proto_pack_str(pk, "power");
	msgpack_pack_map(pk, 13);
	proto_pack_kv_u64(pk, "time_ns", p->time_ns);
	proto_pack_kv_u64(pk, "hold_ns", p->hold_ns);
	proto_pack_kv_bool(pk, "exited", p->exited);
	proto_pack_kv_str(pk, "table", p->table ? p->table : "");
	proto_pack_kv_u64(pk, "rows", p->rows);
	proto_pack_kv_u64(pk, "errors", p->errors);
	proto_pack_kv_u64(pk, "lost", p->lost);
	proto_pack_kv_str(pk, "profile", p->profile ? p->profile : "");
	proto_pack_kv_str(pk, "warning", p->warning ? p->warning : "");
	proto_pack_kv_f64(pk, "cpu_ma", p->cpu_ma);
	proto_pack_str(pk, "resources");
	msgpack_pack_array(pk, p->nres);
	for (size_t i = 0; i < p->nres; i++)
		pwr_pack_res(pk, &p->res[i]);
	proto_pack_str(pk, "categories");
	msgpack_pack_array(pk, p->ncats);
	for (size_t i = 0; i < p->ncats; i++) {
		const struct proto_pwr_cat *c = &p->cats[i];

		msgpack_pack_map(pk, 5);
		proto_pack_kv_str(pk, "category", c->category ? c->category : "");
		proto_pack_kv_f64(pk, "mah", c->mah);
		proto_pack_kv_u64(pk, "total_ns", c->total_ns);
		proto_pack_kv_u64(pk, "held", c->held);
		proto_pack_kv_u64(pk, "leaks", c->leaks);
	}
	proto_pack_kv_u64(pk, "version", 1);
}

/* An array of at most PWR_MAX_STACK strings. */
static int pwr_strs(const msgpack_object *o, const char *key, char ***out, size_t *n,
    char *err, size_t errlen)
{
	const msgpack_object_array *a;

	if (proto_get_array_max(o, key, PWR_MAX_STACK, &a, err, errlen) < 0)
		return -1;
	if (a == NULL)
		return 0;
	*out = xcalloc(a->size ? a->size : 1, sizeof **out);
	for (uint32_t i = 0; i < a->size; i++) {
		const msgpack_object *s = &a->ptr[i];

		if (s->type != MSGPACK_OBJECT_STR || memchr(s->via.str.ptr, '\0', s->via.str.size)) {
			snprintf(err, errlen, "entry %u of \"%s\" must be a string", i, key);
			return -1;
		}
		(*out)[i] = xstrndup(s->via.str.ptr, s->via.str.size);
		*n = i + 1;
	}
	return 0;
}

/* Decode one resource map. */
static int pwr_decode_res(const msgpack_object *o, struct proto_pwr_res *r, char *err, size_t errlen)
{
	r->ma = r->mah = r->price_ma = -1;
	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "a power resource must be a map");
		return -1;
	}
	if (proto_get_str_or_empty(o, "category", &r->category, err, errlen) < 0 ||
	    proto_get_str_or_empty(o, "name", &r->name, err, errlen) < 0 ||
	    proto_get_str_or_empty(o, "api", &r->api, err, errlen) < 0 ||
	    proto_get_str_or_empty(o, "item", &r->item, err, errlen) < 0 ||
	    proto_get_f64(o, "ma", false, &r->ma, err, errlen) < 0 ||
	    proto_get_bool(o, "refcount", false, &r->refcount, err, errlen) < 0 ||
	    proto_get_bool(o, "held", false, &r->held, err, errlen) < 0 ||
	    proto_get_bool(o, "leaked", false, &r->leaked, err, errlen) < 0 ||
	    proto_get_i64(o, "refs", false, &r->refs, err, errlen) < 0 ||
	    proto_get_u64(o, "held_ns", false, &r->held_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "total_ns", false, &r->total_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "longest_ns", false, &r->longest_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "acquires", false, &r->acquires, err, errlen) < 0 ||
	    proto_get_u64(o, "releases", false, &r->releases, err, errlen) < 0 ||
	    proto_get_u64(o, "timeouts", false, &r->timeouts, err, errlen) < 0 ||
	    proto_get_u64(o, "unmatched", false, &r->unmatched, err, errlen) < 0 ||
	    proto_get_u64(o, "oneshots", false, &r->oneshots, err, errlen) < 0 ||
	    proto_get_pid(o, "holder_tid", &r->holder_tid, err, errlen) < 0 ||
	    proto_get_pid(o, "releaser_tid", &r->releaser_tid, err, errlen) < 0 ||
	    pwr_strs(o, "holder", &r->holder, &r->nholder, err, errlen) < 0 ||
	    pwr_strs(o, "releaser", &r->releaser, &r->nreleaser, err, errlen) < 0 ||
	    proto_get_f64(o, "mah", false, &r->mah, err, errlen) < 0 ||
	    proto_get_f64(o, "price_ma", false, &r->price_ma, err, errlen) < 0 ||
	    proto_get_str_or_empty(o, "price_from", &r->price_from, err, errlen) < 0)
		return -1;
	return 0;
}

/* Decode one category map. */
static int pwr_decode_cat(const msgpack_object *o, struct proto_pwr_cat *c, char *err, size_t errlen)
{
	uint64_t held = 0, leaks = 0;

	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "a power category must be a map");
		return -1;
	}
	if (proto_get_str_or_empty(o, "category", &c->category, err, errlen) < 0 ||
	    proto_get_f64(o, "mah", false, &c->mah, err, errlen) < 0 ||
	    proto_get_u64(o, "total_ns", false, &c->total_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "held", false, &held, err, errlen) < 0 ||
	    proto_get_u64(o, "leaks", false, &leaks, err, errlen) < 0)
		return -1;
	if (held > UINT32_MAX || leaks > UINT32_MAX) {
		snprintf(err, errlen, "power category counts out of range");
		return -1;
	}
	c->held = (uint32_t)held;
	c->leaks = (uint32_t)leaks;
	return 0;
}

/* See protocol.h. */
int proto_decode_power(const msgpack_object *root, struct proto_power *p, char *err, size_t errlen)
{
	const msgpack_object *o = proto_map_get(root, "power");
	const msgpack_object_array *a;

	memset(p, 0, sizeof *p);
	p->cpu_ma = -1;
	if (o == NULL)
		return 0;
	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "field \"power\" must be a map");
		return -1;
	}
	if (proto_get_u64(o, "time_ns", false, &p->time_ns, err, errlen) < 0 ||
	    proto_get_u64(o, "hold_ns", false, &p->hold_ns, err, errlen) < 0 ||
	    proto_get_bool(o, "exited", false, &p->exited, err, errlen) < 0 ||
	    proto_get_str_or_empty(o, "table", &p->table, err, errlen) < 0 ||
	    proto_get_u64(o, "rows", false, &p->rows, err, errlen) < 0 ||
	    proto_get_u64(o, "errors", false, &p->errors, err, errlen) < 0 ||
	    proto_get_u64(o, "lost", false, &p->lost, err, errlen) < 0 ||
	    proto_get_str_or_empty(o, "profile", &p->profile, err, errlen) < 0 ||
	    proto_get_str_or_empty(o, "warning", &p->warning, err, errlen) < 0 ||
	    proto_get_f64(o, "cpu_ma", false, &p->cpu_ma, err, errlen) < 0 ||
	    proto_get_array_max(o, "resources", PROTO_MAX_PWR_RES, &a, err, errlen) < 0)
		return -1;
	if (a != NULL) {
		p->res = xcalloc(a->size ? a->size : 1, sizeof *p->res);
		for (uint32_t i = 0; i < a->size; i++) {
			p->nres = i + 1;
			if (pwr_decode_res(&a->ptr[i], &p->res[i], err, errlen) < 0)
				return -1;
		}
	}
	if (proto_get_array_max(o, "categories", PROTO_MAX_PWR_CATS, &a, err, errlen) < 0)
		return -1;
	if (a != NULL) {
		p->cats = xcalloc(a->size ? a->size : 1, sizeof *p->cats);
		for (uint32_t i = 0; i < a->size; i++) {
			p->ncats = i + 1;
			if (pwr_decode_cat(&a->ptr[i], &p->cats[i], err, errlen) < 0)
				return -1;
		}
	}
	return 0;
}

/* Copy an array of strings. */
static char **pwr_copy_strs(char **v, size_t n)
{
	char **out = xcalloc(n ? n : 1, sizeof *out);

	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i] ? v[i] : "");
	return out;
}

/* xstrdup that keeps NULL as "". */
static char *pwr_dup(const char *s)
{
	return xstrdup(s ? s : "");
}

/* See protocol.h. */
void proto_power_copy(struct proto_power *dst, const struct proto_power *src)
{
	*dst = *src;
	dst->table = pwr_dup(src->table);
	dst->profile = pwr_dup(src->profile);
	dst->warning = pwr_dup(src->warning);
	dst->res = xcalloc(src->nres ? src->nres : 1, sizeof *dst->res);
	for (size_t i = 0; i < src->nres; i++) {
		struct proto_pwr_res *d = &dst->res[i];
		const struct proto_pwr_res *s = &src->res[i];

		*d = *s;
		d->category = pwr_dup(s->category);
		d->name = pwr_dup(s->name);
		d->api = pwr_dup(s->api);
		d->item = pwr_dup(s->item);
		d->price_from = pwr_dup(s->price_from);
		d->holder = pwr_copy_strs(s->holder, s->nholder);
		d->releaser = pwr_copy_strs(s->releaser, s->nreleaser);
	}
	dst->cats = xcalloc(src->ncats ? src->ncats : 1, sizeof *dst->cats);
	for (size_t i = 0; i < src->ncats; i++) {
		dst->cats[i] = src->cats[i];
		dst->cats[i].category = pwr_dup(src->cats[i].category);
	}
}

/* See protocol.h. */
void proto_power_free(struct proto_power *p)
{
	for (size_t i = 0; i < p->nres; i++) {
		struct proto_pwr_res *r = &p->res[i];

		free(r->category);
		free(r->name);
		free(r->api);
		free(r->item);
		free(r->price_from);
		for (size_t k = 0; k < r->nholder; k++)
			free(r->holder[k]);
		for (size_t k = 0; k < r->nreleaser; k++)
			free(r->releaser[k]);
		free(r->holder);
		free(r->releaser);
	}
	free(p->res);
	for (size_t i = 0; i < p->ncats; i++)
		free(p->cats[i].category);
	free(p->cats);
	free(p->table);
	free(p->profile);
	free(p->warning);
	memset(p, 0, sizeof *p);
	p->cpu_ma = -1;
}
