/*
 * test-wire-raw.c - the decoder's fast path (protocol/raw.c) against the
 * tree decoder it stands in for: on an agent's funcs records as the agent
 * encodes them it decodes, and on every truncation, every byte of them
 * replaced by each of a set of troublesome values, and keys reordered,
 * duplicated or unknown, whenever it takes a message the tree decoder takes
 * it too, with the same result; the same for a map of booleans, doubles and
 * ranged unsigned fields.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "field.h"
#include "parts.h"

/* The funcs record's keys, as protocol/agent.c describes them: the tree
 * decoder is run over the same table the fast path reads. */
#define R struct proto_agent_rec
static const struct proto_field funcs_fields[] = {
	PF_ROW("time_ns", PF_U64, R, time_ns, 0),
	PF_ROW("threads", PF_U32, R, threads, 0),
	PF_ROW("dropped", PF_U64, R, dropped, 0),
	PF_ARR_ROW("funcs", PF_OBJS, R, funcs, nfuncs, UINT32_MAX, &proto_ag_func_desc),
};
static const struct proto_struct funcs_desc = PF_STRUCT("a funcs record", R, funcs_fields);
#undef R

/* The tree decoder: 0 and *r, or -1. */
static int
tree_decode(const void *buf, size_t len, struct proto_agent_rec *r)
{
	struct proto_doc doc;
	char err[PROTO_ERR_LEN], *t = NULL;
	int rc = -1;

	memset(r, 0, sizeof *r);
	if (proto_doc_parse(&doc, buf, len, PROTO_MAX_MSG, err, sizeof err) < 0)
		return -1;
	if (proto_get_str(&doc.root, "t", true, &t, err, sizeof err) == 0 &&
	    strcmp(t, "funcs") == 0)
		rc = proto_struct_decode(&doc.root, &funcs_desc, r, err, sizeof err);
	free(t);
	proto_doc_free(&doc);
	if (rc < 0)
		proto_struct_free(&funcs_desc, r);
	return rc;
}

static void
assert_same(const struct proto_agent_rec *a, const struct proto_agent_rec *b)
{
	assert_int_equal(a->time_ns, b->time_ns);
	assert_int_equal(a->threads, b->threads);
	assert_int_equal(a->dropped, b->dropped);
	assert_int_equal(a->nfuncs, b->nfuncs);
	for (size_t i = 0; i < a->nfuncs; i++)
		assert_memory_equal(&a->funcs[i], &b->funcs[i], sizeof a->funcs[i]);
}

/* Fast path on buf: when it takes it, the tree decoder must agree.
 * Returns whether the fast path took it. */
static bool
check_one(const void *buf, size_t len)
{
	struct proto_agent_rec a, b;
	bool fast = proto_raw_decode(buf, len, PROTO_MAX_MSG, "funcs", &funcs_desc, &a) == 0;

	if (fast) {
		if (tree_decode(buf, len, &b) != 0)
			fail_msg("the fast path took a message of %zu bytes the tree decoder refuses", len);
		assert_same(&a, &b);
		proto_struct_free(&funcs_desc, &b);
	} else {
		/* refused: left as an empty record */
		assert_int_equal(a.nfuncs, 0);
		assert_null(a.funcs);
	}
	proto_struct_free(&funcs_desc, &a);
	return fast;
}

/* A funcs record as the agent encodes it (without the length prefix). */
static void
encode(msgpack_sbuffer *sb, size_t n)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 255, 256, 65535, 65536,
		UINT32_MAX, (uint64_t)UINT32_MAX + 1, UINT64_MAX };
	struct proto_ag_func *f = calloc(n ? n : 1, sizeof *f);
	struct proto_agent_rec r = { .type = PROTO_AG_FUNCS, .time_ns = 123456789,
		.threads = 7, .dropped = 65536, .nfuncs = n, .funcs = f };
	const size_t nv = sizeof vals / sizeof vals[0];

	for (size_t i = 0; i < n; i++)
		f[i] = (struct proto_ag_func){ .addr = 0x400000 + 16 * i, .calls = vals[i % nv],
			.total_ns = vals[(i + 3) % nv], .self_ns = vals[(i + 5) % nv],
			.max_ns = vals[(i + 7) % nv], .slow = i, .running_ns = vals[(i + 1) % nv] };
	msgpack_sbuffer_clear(sb);
	proto_agent_encode(sb, &r);
	free(f);
}

/* The agent's own records: taken, and equal. */
static void
test_raw_takes_agent_records(void **state)
{
	msgpack_sbuffer sb;

	(void)state;
	msgpack_sbuffer_init(&sb);
	for (size_t n = 0; n <= 40; n += 4) {
		encode(&sb, n);
		assert_true(check_one(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR));
	}
	encode(&sb, 5000);             /* array16, 16-bit lengths */
	assert_true(check_one(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR));
	encode(&sb, 20000);            /* over the limits: refused by both */
	assert_false(check_one(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR));
	{
		struct proto_agent_rec r;

		assert_int_equal(tree_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR,
		    &r), -1);
	}
	msgpack_sbuffer_destroy(&sb);
}

/* Every truncation, and every byte replaced by each troublesome value. */
static void
test_raw_mutations(void **state)
{
	static const uint8_t subst[] = { 0x00, 0x01, 0x7f, 0x80, 0x81, 0x8f, 0x90, 0x9f, 0xa0,
		0xa1, 0xbf, 0xc0, 0xc1, 0xc2, 0xc4, 0xc7, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
		0xd0, 0xd3, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff };
	msgpack_sbuffer sb;
	unsigned char *buf;
	size_t len, taken = 0, tried = 0;

	(void)state;
	msgpack_sbuffer_init(&sb);
	encode(&sb, 12);
	len = sb.size - PROTO_AGENT_HDR;
	buf = malloc(len);
	memcpy(buf, sb.data + PROTO_AGENT_HDR, len);
	for (size_t k = 0; k < len; k++)
		assert_false(check_one(buf, k));
	for (size_t i = 0; i < len; i++) {
		uint8_t orig = buf[i];

		for (size_t j = 0; j < sizeof subst; j++) {
			if (subst[j] == orig)
				continue;
			buf[i] = subst[j];
			taken += check_one(buf, len);
			tried++;
		}
		buf[i] = orig ^ 0x01;
		taken += check_one(buf, len);
		buf[i] = orig;
	}
	/* Changed values within their encoding are still taken. */
	assert_true(taken > 0 && taken < tried);
	free(buf);
	msgpack_sbuffer_destroy(&sb);
}

/* Maps built by hand: keys out of order, twice, unknown (nested), v and t
 * elsewhere. */
static void
test_raw_key_shapes(void **state)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	int shape;

	(void)state;
	msgpack_sbuffer_init(&sb);
	for (shape = 0; shape < 8; shape++) {
		bool want_fast = shape <= 2 || shape == 6;

		msgpack_sbuffer_clear(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, shape == 6 ? 5 : 6);
		if (shape == 5) {                   /* t before v */
			proto_pack_kv_str(&pk, "t", "funcs");
			proto_pack_kv_u64(&pk, "v", PROTO_VERSION);
		} else {
			proto_pack_kv_u64(&pk, "v", PROTO_VERSION);
			proto_pack_kv_str(&pk, "t", shape == 7 ? "syms" : "funcs");
		}
		if (shape == 1) {                   /* out of order */
			proto_pack_kv_u64(&pk, "dropped", 3);
			proto_pack_kv_u64(&pk, "time_ns", 1);
		} else {
			proto_pack_kv_u64(&pk, "time_ns", 1);
			proto_pack_kv_u64(&pk, shape == 3 ? "time_ns" : "dropped", 3);   /* 3: twice */
		}
		if (shape == 2) {                   /* unknown, nested */
			proto_pack_str(&pk, "extra");
			msgpack_pack_array(&pk, 2);
			msgpack_pack_map(&pk, 1);
			proto_pack_kv_str(&pk, "x", "y");
			msgpack_pack_double(&pk, 1.5);
		} else if (shape == 4) {            /* a second v */
			proto_pack_kv_u64(&pk, "v", 2);
		} else if (shape != 6) {
			proto_pack_kv_u64(&pk, "threads", 2);
		}
		proto_pack_str(&pk, "funcs");
		msgpack_pack_array(&pk, 1);
		msgpack_pack_map(&pk, 4);
		proto_pack_kv_u64(&pk, "self_ns", 4);
		proto_pack_kv_u64(&pk, "addr", 9);
		proto_pack_kv_u64(&pk, "calls", 2);
		proto_pack_kv_u64(&pk, "total_ns", 8);
		if (check_one(sb.data, sb.size) != want_fast)
			fail_msg("shape %d: the fast path %s it", shape, want_fast ? "refused" : "took");
	}
	msgpack_sbuffer_destroy(&sb);
}

/* A struct of the other types the fast path takes. */
struct mixed {
	uint8_t  u8;
	bool     b;
	double   d;
	uint32_t u32;
};
#define M struct mixed
static const struct proto_field mixed_fields[] = {
	PF_ROW("u8", PF_U8, M, u8, PF_REQUIRED),
	PF_ROW("b", PF_BOOL, M, b, 0),
	PF_F64_ROW("d", M, d, 2.5),
	PF_ROW("u32", PF_U32, M, u32, 0),
};
#undef M
static const struct proto_struct mixed_desc = PF_STRUCT("a mixed map", struct mixed, mixed_fields);

/* Booleans, doubles and ranged unsigned fields: every byte mutation of a
 * message of them, fast path against tree. */
static void
test_raw_other_types(void **state)
{
	static const uint8_t subst[] = { 0x00, 0x7f, 0xc2, 0xc3, 0xca, 0xcb, 0xcc, 0xcd, 0xce,
		0xcf, 0xd0, 0x7f, 0xf0, 0xff };
	msgpack_sbuffer sb;
	msgpack_packer pk;
	size_t taken = 0;

	(void)state;
	for (int shape = 0; shape < 3; shape++) {
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, shape == 2 ? 3 : 6);
		proto_pack_kv_u64(&pk, "v", PROTO_VERSION);
		proto_pack_kv_str(&pk, "t", "mixed");
		proto_pack_kv_u64(&pk, "u8", 200);
		if (shape != 2) {
			proto_pack_kv_bool(&pk, "b", shape == 0);
			proto_pack_kv_f64(&pk, "d", shape == 0 ? -1.25e300 : 0.0);
			proto_pack_kv_u64(&pk, "u32", shape == 0 ? UINT32_MAX : 7);
		}
		for (size_t i = 0; i <= sb.size; i++) {
			for (size_t j = 0; j <= sizeof subst; j++) {
				unsigned char *buf = malloc(sb.size);
				size_t len = j == sizeof subst ? i : sb.size;   /* last: truncated at i */
				struct mixed a, b;
				struct proto_doc doc;
				char err[PROTO_ERR_LEN];

				memcpy(buf, sb.data, sb.size);
				if (j < sizeof subst && i < sb.size)
					buf[i] = subst[j];
				if (proto_raw_decode(buf, len, PROTO_MAX_MSG, "mixed", &mixed_desc, &a) == 0) {
					const msgpack_object *t;

					taken++;
					assert_int_equal(proto_doc_parse(&doc, buf, len, PROTO_MAX_MSG, err,
					    sizeof err), 0);
					t = proto_map_get(&doc.root, "t");
					assert_non_null(t);
					assert_int_equal(t->via.str.size, 5);
					assert_memory_equal(t->via.str.ptr, "mixed", 5);
					assert_int_equal(proto_struct_decode(&doc.root, &mixed_desc, &b, err,
					    sizeof err), 0);
					proto_doc_free(&doc);
					assert_int_equal(a.u8, b.u8);
					assert_int_equal(a.b, b.b);
					assert_memory_equal(&a.d, &b.d, sizeof a.d);
					assert_int_equal(a.u32, b.u32);
				} else {
					assert_true(a.d == 2.5);        /* left initialised */
				}
				free(buf);
			}
		}
		msgpack_sbuffer_destroy(&sb);
	}
	assert_true(taken > 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_takes_agent_records),
		cmocka_unit_test(test_raw_mutations),
		cmocka_unit_test(test_raw_key_shapes),
		cmocka_unit_test(test_raw_other_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
