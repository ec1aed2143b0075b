/*
 * sites.c - hook-site statistics per back-end, shared by the agent's
 * "sites" record and the daemon's frames: a map from back-end name to
 * {active, disabled, skipped, reasons: {key: count}} (doc/protocol.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "json.h"

/* See protocol.h. */
void proto_pack_sites(msgpack_packer *pk, const struct proto_sites *s, size_t n)
{
	proto_pack_str(pk, "sites");
	proto_pack_sites_value(pk, s, n);
}

/* See protocol.h. */
void proto_pack_sites_value(msgpack_packer *pk, const struct proto_sites *s, size_t n)
{
	msgpack_pack_map(pk, n);
	for (size_t i = 0; i < n; i++) {
		proto_pack_str(pk, s[i].backend);
		msgpack_pack_map(pk, 4);
		proto_pack_kv_u64(pk, "active", s[i].active);
		proto_pack_kv_u64(pk, "disabled", s[i].disabled);
		proto_pack_kv_u64(pk, "skipped", s[i].skipped);
		proto_pack_str(pk, "reasons");
		msgpack_pack_map(pk, s[i].nreasons);
		for (size_t k = 0; k < s[i].nreasons; k++) {
			proto_pack_str(pk, s[i].reasons[k].key);
			msgpack_pack_uint64(pk, s[i].reasons[k].count);
		}
	}
}

/* A map key as a fresh string; -1 unless it is a NUL-free string. */
static int sites_key(const msgpack_object *k, char **out, const char *what,
    char *err, size_t errlen)
{
	if (k->type != MSGPACK_OBJECT_STR || k->via.str.size == 0 ||
	    memchr(k->via.str.ptr, '\0', k->via.str.size) != NULL) {
		snprintf(err, errlen, "%s names must be non-empty strings", what);
		return -1;
	}
	*out = xstrndup(k->via.str.ptr, k->via.str.size);
	return 0;
}

/* Decode one back-end's {active, disabled, skipped, reasons}. */
static int sites_decode_one(const msgpack_object *o, struct proto_sites *s,
    char *err, size_t errlen)
{
	const msgpack_object *r;

	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "sites of \"%s\" must be a map", s->backend);
		return -1;
	}
	if (proto_get_u64(o, "active", false, &s->active, err, errlen) < 0 ||
	    proto_get_u64(o, "disabled", false, &s->disabled, err, errlen) < 0 ||
	    proto_get_u64(o, "skipped", false, &s->skipped, err, errlen) < 0)
		return -1;
	r = proto_map_get(o, "reasons");
	if (r == NULL)
		return 0;
	if (r->type != MSGPACK_OBJECT_MAP || r->via.map.size > PROTO_MAX_REASONS) {
		snprintf(err, errlen, "field \"reasons\" must be a map of at most %d entries",
		    PROTO_MAX_REASONS);
		return -1;
	}
	s->reasons = xcalloc(r->via.map.size ? r->via.map.size : 1, sizeof *s->reasons);
	for (uint32_t k = 0; k < r->via.map.size; k++) {
		const msgpack_object_kv *kv = &r->via.map.ptr[k];

		if (sites_key(&kv->key, &s->reasons[k].key, "reason", err, errlen) < 0)
			return -1;
		s->nreasons = k + 1;
		if (kv->val.type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
			snprintf(err, errlen, "reason \"%s\" must have a non-negative count",
			    s->reasons[k].key);
			return -1;
		}
		s->reasons[k].count = kv->val.via.u64;
	}
	return 0;
}

/* See protocol.h. */
int proto_decode_sites(const msgpack_object *root, struct proto_sites **out, size_t *n,
    char *err, size_t errlen)
{
	const msgpack_object *m = proto_map_get(root, "sites");
	struct proto_sites *v;

	*out = NULL;
	*n = 0;
	if (m == NULL)
		return 0;
	if (m->type != MSGPACK_OBJECT_MAP || m->via.map.size > PROTO_MAX_BACKENDS) {
		snprintf(err, errlen, "field \"sites\" must be a map of at most %d back-ends",
		    PROTO_MAX_BACKENDS);
		return -1;
	}
	v = xcalloc(m->via.map.size ? m->via.map.size : 1, sizeof *v);
	*out = v;
	for (uint32_t i = 0; i < m->via.map.size; i++) {
		if (sites_key(&m->via.map.ptr[i].key, &v[i].backend, "back-end", err, errlen) < 0)
			return -1;
		*n = i + 1;
		if (sites_decode_one(&m->via.map.ptr[i].val, &v[i], err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* See protocol.h. */
struct proto_sites *proto_sites_dup(const struct proto_sites *s, size_t n)
{
	struct proto_sites *v = xcalloc(n ? n : 1, sizeof *v);

	for (size_t i = 0; i < n; i++) {
		v[i] = s[i];
		v[i].backend = xstrdup(s[i].backend);
		v[i].reasons = xcalloc(s[i].nreasons ? s[i].nreasons : 1, sizeof *v[i].reasons);
		for (size_t k = 0; k < s[i].nreasons; k++) {
			v[i].reasons[k].key = xstrdup(s[i].reasons[k].key);
			v[i].reasons[k].count = s[i].reasons[k].count;
		}
	}
	return v;
}

/* See protocol.h. */
void proto_sites_free(struct proto_sites *s, size_t n)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < s[i].nreasons; k++)
			free(s[i].reasons[k].key);
		free(s[i].reasons);
		free(s[i].backend);
	}
	free(s);
}

/* See protocol.h: the same shape as the msgpack map. */
void proto_sites_json(struct proto_json *j, const char *key, const struct proto_sites *s, size_t n)
{
	proto_json_obj(j, key);
	for (size_t i = 0; i < n; i++) {
		proto_json_obj(j, s[i].backend);
		proto_json_u64(j, "active", s[i].active);
		proto_json_u64(j, "disabled", s[i].disabled);
		proto_json_u64(j, "skipped", s[i].skipped);
		proto_json_obj(j, "reasons");
		for (size_t k = 0; k < s[i].nreasons; k++)
			proto_json_u64(j, s[i].reasons[k].key, s[i].reasons[k].count);
		proto_json_end_obj(j);
		proto_json_end_obj(j);
	}
	proto_json_end_obj(j);
}
