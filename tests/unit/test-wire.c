/*
 * test-wire.c - the field-table codecs (protocol/field.c) over every
 * described wire struct:
 *   - each table names every member of its C struct (only padding is left);
 *   - a struct with every field set comes back member by member through
 *     msgpack, and through JSON (parsed back here into msgpack and decoded);
 *   - the decoder refuses each truncation of a valid encoding, and a map
 *     missing a required field, naming the field; keys in any order, or
 *     twice, decode as the first of each;
 *   - the JSON writer never lets invalid UTF-8 through;
 *   - the collectors' parts table (parts.h) is consistent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "field.h"
#include "json.h"
#include "parts.h"

/* Every described struct a message carries. */
static const struct proto_struct *const wire_structs[] = {
	&proto_power_desc, &proto_pwr_res_desc, &proto_pwr_cat_desc,
	&proto_fps_desc, &proto_fps_stream_desc, &proto_fps_worst_desc,
	&proto_threads_desc, &proto_thr_thread_desc, &proto_thr_site_desc, &proto_thr_pool_desc,
	&proto_thr_frame_desc,
	&proto_blocks_desc, &proto_block_desc, &proto_block_stack_desc, &proto_block_frame_desc,
	&proto_ipc_desc, &proto_ipc_ep_desc, &proto_ipc_slow_desc,
	&proto_network_desc, &proto_net_ep_desc, &proto_net_dns_desc, &proto_net_http_desc,
	&proto_net_event_desc,
	&proto_startup_desc, &proto_su_lib_desc, &proto_su_dlopen_desc, &proto_su_change_desc,
	&proto_frame_desc, &proto_func_desc, &proto_target_desc,
	&proto_ag_sym_desc, &proto_ag_func_desc,
};
#define NSTRUCTS (sizeof wire_structs / sizeof wire_structs[0])

/* ---- what a table covers ---- */

/* Members a custom field codes, which the table cannot name itself. */
static const struct {
	const struct proto_struct *d;
	size_t off, size;
} wire_custom[] = {
	{ &proto_fps_stream_desc, offsetof(struct proto_fps_stream, nrecent),
	  sizeof(size_t) + 2 * sizeof(uint64_t *) },
	{ &proto_target_desc, offsetof(struct proto_target, state), sizeof(uint8_t) },
	{ &proto_func_desc, offsetof(struct proto_func, mode), sizeof(uint8_t) },
	{ &proto_frame_desc, offsetof(struct proto_frame, nsites),
	  sizeof(size_t) + sizeof(struct proto_sites *) },
};

static size_t field_size(const struct proto_field *f)
{
	switch (f->type) {
	case PF_U64: case PF_I64: case PF_F64: return 8;
	case PF_U32: case PF_I32: case PF_PID: return 4;
	case PF_U8: case PF_BOOL: return 1;
	case PF_STR: case PF_STRS: case PF_U32S: return sizeof(void *);
	case PF_OBJ: return f->sub->size;
	case PF_OBJS: return f->flags & PF_INLINE ? f->max * f->sub->size : sizeof(void *);
	default: return 0;
	}
}

static void mark(unsigned char *map, size_t size, size_t off, size_t n)
{
	assert_true(off + n <= size);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(map[off + i], 0);     /* two fields on one byte */
		map[off + i] = 1;
	}
}

/* Alignment of a field's C type (every nested struct here holds 8-byte members). */
static size_t field_align(const struct proto_field *f)
{
	size_t n = field_size(f);

	return f->type == PF_OBJ || f->type == PF_OBJS || n > 8 ? 8 : n ? n : 1;
}

/* An uncovered run is padding only when it ends where the next member's
 * alignment puts it and is shorter than that alignment: a missed member
 * shows, unless it is smaller than the padding it would sit in. */
static void test_tables_cover_structs(void **state)
{
	(void)state;
	for (size_t s = 0; s < NSTRUCTS; s++) {
		const struct proto_struct *d = wire_structs[s];
		unsigned char *map = calloc(1, d->size);
		size_t *align = calloc(d->size + 1, sizeof *align);

		align[d->size] = 8;
		for (size_t i = 0; i < d->nfields; i++) {
			const struct proto_field *f = &d->fields[i];

			if (f->type == PF_CONST || f->type == PF_CUSTOM)
				continue;
			mark(map, d->size, f->off, field_size(f));
			align[f->off] = field_align(f);
			if (f->type == PF_STRS || f->type == PF_U32S || f->type == PF_OBJS) {
				mark(map, d->size, f->cnt, sizeof(size_t));
				align[f->cnt] = sizeof(size_t);
			}
		}
		for (size_t i = 0; i < sizeof wire_custom / sizeof wire_custom[0]; i++)
			if (wire_custom[i].d == d) {
				mark(map, d->size, wire_custom[i].off, wire_custom[i].size);
				align[wire_custom[i].off] = wire_custom[i].size < 8 ? wire_custom[i].size : 8;
			}
		if (d == &proto_frame_desc)
			for (size_t i = 0; i < proto_nparts; i++) {
				mark(map, d->size, proto_parts[i]->frame_off, proto_parts[i]->desc->size);
				align[proto_parts[i]->frame_off] = 8;
			}
		for (size_t i = 0; i < d->size;) {
			size_t j = i;

			while (j < d->size && !map[j])
				j++;
			if (j > i && (align[j] == 0 || j - i >= align[j] || j % align[j] != 0))
				fail_msg("%s: bytes %zu..%zu are described by no field", d->name, i, j);
			i = j == i ? i + 1 : j;
		}
		free(align);
		free(map);
	}
}

#include "wire-fill.h"
#include "wire-json-reader.h"

#include "wire-decode.h"

/* msgpack and JSON round trips of every struct. */
static void test_round_trips(void **state)
{
	char err[PROTO_ERR_LEN];

	(void)state;
	for (size_t s = 0; s < NSTRUCTS; s++) {
		const struct proto_struct *d = wire_structs[s];
		void *in = xcalloc(1, d->size), *out = xcalloc(1, d->size), *cp = xcalloc(1, d->size);
		msgpack_sbuffer sb;
		msgpack_packer pk;
		struct proto_buf jb = { 0 };
		struct proto_json j = { .b = &jb, .digits = 17 };
		struct jr r;

		wire_fill(d, in);
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		proto_struct_pack(&pk, d, in);
		if (wire_decode(&sb, d, out, err, sizeof err) < 0)
			fail_msg("%s: msgpack: %s", d->name, err);
		wire_compare(d, in, out, false);
		proto_struct_free(d, out);

		/* The copy is deep: the original freed, the copy still compares. */
		proto_struct_copy(d, cp, in);
		msgpack_sbuffer_clear(&sb);
		proto_struct_json(&j, NULL, d, in);
		r.p = jb.p;
		r.pk = &pk;
		jr_value(&r, 0);
		jr_ws(&r);
		assert_int_equal(*r.p, '\0');
		if (wire_decode(&sb, d, out, err, sizeof err) < 0)
			fail_msg("%s: JSON: %s (%s)", d->name, err, jb.p);
		proto_struct_free(d, in);
		wire_compare(d, cp, out, true);
		proto_struct_free(d, out);
		proto_struct_free(d, cp);
		free(jb.p);
		msgpack_sbuffer_destroy(&sb);
		free(in);
		free(out);
		free(cp);
	}
}

/* Every proper prefix of a valid encoding is refused. */
static void test_truncations_refused(void **state)
{
	char err[PROTO_ERR_LEN];

	(void)state;
	for (size_t s = 0; s < NSTRUCTS; s++) {
		const struct proto_struct *d = wire_structs[s];
		void *in = xcalloc(1, d->size), *out = xcalloc(1, d->size);
		msgpack_sbuffer sb, cut;
		msgpack_packer pk;

		wire_fill(d, in);
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		proto_struct_pack(&pk, d, in);
		for (size_t len = 0; len < sb.size; len++) {
			cut.data = sb.data;
			cut.size = len;
			if (wire_decode(&cut, d, out, err, sizeof err) == 0)
				fail_msg("%s: a prefix of %zu of %zu bytes decoded", d->name, len, sb.size);
			proto_struct_free(d, out);
		}
		proto_struct_free(d, in);
		msgpack_sbuffer_destroy(&sb);
		free(in);
		free(out);
	}
}

/* The same through the real entry points: an agent record and a frame. */
static void test_truncated_messages_refused(void **state)
{
	struct proto_agent_rec rec = { .type = PROTO_AG_POWER }, rout;
	struct proto_frame fr;
	struct proto_server_msg m;
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN];

	(void)state;
	wire_fill(&proto_power_desc, &rec.power);
	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, &rec);
	assert_int_equal(proto_agent_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR,
	    &rout, err, sizeof err), 0);
	wire_compare(&proto_power_desc, &rec.power, &rout.power, false);
	proto_agent_rec_free(&rout);
	for (size_t len = 0; len < sb.size - PROTO_AGENT_HDR; len++)
		assert_int_equal(proto_agent_decode(sb.data + PROTO_AGENT_HDR, len, &rout, err,
		    sizeof err), -1);
	proto_power_free(&rec.power);
	msgpack_sbuffer_clear(&sb);

	memset(&fr, 0, sizeof fr);
	wire_fill(&proto_frame_desc, &fr);
	for (size_t i = 0; i < proto_nparts; i++)
		wire_fill(proto_parts[i]->desc, proto_part_in_frame(proto_parts[i], &fr));
	proto_encode_frame(&sb, &fr);
	assert_int_equal(proto_decode_server(sb.data, sb.size, &m, err, sizeof err), 0);
	assert_int_equal(m.type, PROTO_MSG_FRAME);
	wire_compare(&proto_frame_desc, &fr, &m.frame, false);
	for (size_t i = 0; i < proto_nparts; i++)
		wire_compare(proto_parts[i]->desc, proto_part_in_frame_c(proto_parts[i], &fr),
		    proto_part_in_frame_c(proto_parts[i], &m.frame), false);
	proto_server_msg_free(&m);
	for (size_t len = 0; len < sb.size; len++)
		assert_int_equal(proto_decode_server(sb.data, len, &m, err, sizeof err), -1);
	for (size_t i = 0; i < proto_nparts; i++)
		proto_part_free(proto_parts[i], proto_part_in_frame(proto_parts[i], &fr));
	proto_struct_free(&proto_frame_desc, &fr);
	msgpack_sbuffer_destroy(&sb);
}

/* A map without a required key is refused, and the error names the key. */
static void test_required_fields_named(void **state)
{
	char err[PROTO_ERR_LEN];
	int checked = 0;

	(void)state;
	for (size_t s = 0; s < NSTRUCTS; s++) {
		const struct proto_struct *d = wire_structs[s];

		for (size_t i = 0; i < d->nfields; i++) {
			struct proto_field *fields;
			struct proto_struct without = *d;
			void *in, *out;
			msgpack_sbuffer sb;
			msgpack_packer pk;

			if (!(d->fields[i].flags & PF_REQUIRED))
				continue;
			fields = xcalloc(d->nfields, sizeof *fields);
			memcpy(fields, d->fields, d->nfields * sizeof *fields);
			fields[i].flags |= PF_NOPACK;
			without.fields = fields;
			in = xcalloc(1, d->size);
			out = xcalloc(1, d->size);
			wire_fill(d, in);
			msgpack_sbuffer_init(&sb);
			msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
			proto_struct_pack(&pk, &without, in);
			err[0] = '\0';
			assert_int_equal(wire_decode(&sb, d, out, err, sizeof err), -1);
			if (strstr(err, d->fields[i].key) == NULL)
				fail_msg("%s without \"%s\": \"%s\" does not name it", d->name,
				    d->fields[i].key, err);
			checked++;
			proto_struct_free(d, out);
			proto_struct_free(d, in);
			msgpack_sbuffer_destroy(&sb);
			free(in);
			free(out);
			free(fields);
		}
	}
	assert_true(checked >= 15);
}

/* Invalid UTF-8 becomes U+FFFD; valid sequences pass; a NUL ends a string
 * even inside a sequence. */
static void test_json_utf8(void **state)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "ok", "\"ok\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "\xff", "\"\\ufffd\"" },
		{ "a\xc3", "\"a\\ufffd\"" },                 /* cut sequence */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },       /* overlong '/' */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },  /* a surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },  /* past U+10FFFF */
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
		{ "q\"b\\\x01", "\"q\\\"b\\\\\\u0001\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct proto_buf b = { 0 };
		struct proto_json j = { .b = &b };

		proto_json_str(&j, NULL, cases[i].in);
		if (strcmp(b.p, cases[i].want) != 0)
			fail_msg("case %zu: %s, want %s", i, b.p, cases[i].want);
		free(b.p);
	}
}

/* A function row whose name is not UTF-8 still writes valid JSON (the
 * reports' symbol names go through the same writer). */
static void test_json_bad_symbol(void **state)
{
	struct proto_func f = { .name = "\xe2\x82 bad\xff", .module = "m\x80" };
	struct proto_buf b = { 0 };
	struct proto_json j = { .b = &b };

	(void)state;
	proto_struct_json(&j, NULL, &proto_func_desc, &f);
	assert_non_null(strstr(b.p, "\"name\":\"\\ufffd\\ufffd bad\\ufffd\""));
	assert_non_null(strstr(b.p, "\"module\":\"m\\ufffd\""));
	free(b.p);
}

/* Map sizes come from the table: the packed map has exactly its keys. */
static void test_map_sizes(void **state)
{
	(void)state;
	for (size_t s = 0; s < NSTRUCTS; s++) {
		const struct proto_struct *d = wire_structs[s];
		void *in = xcalloc(1, d->size);
		msgpack_sbuffer sb;
		msgpack_packer pk;
		msgpack_zone zone;
		msgpack_object o;
		size_t off = 0, keys = 0;

		wire_fill(d, in);
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		proto_struct_pack(&pk, d, in);
		msgpack_zone_init(&zone, 4096);
		assert_int_equal(msgpack_unpack(sb.data, sb.size, &off, &zone, &o), MSGPACK_UNPACK_SUCCESS);
		assert_int_equal(off, sb.size);
		for (size_t i = 0; i < d->nfields; i++)
			keys += !(d->fields[i].flags & PF_NOPACK) && d->fields[i].type != PF_CUSTOM;
		assert_int_equal(o.type, MSGPACK_OBJECT_MAP);
		assert_true(o.via.map.size >= keys);
		for (size_t i = 0; i < d->nfields; i++)
			if (!(d->fields[i].flags & PF_NOPACK) && d->fields[i].type != PF_CUSTOM &&
			    !(d->fields[i].flags & PF_IFSET))
				assert_non_null(proto_map_get(&o, d->fields[i].key));
		msgpack_zone_destroy(&zone);
		proto_struct_free(d, in);
		msgpack_sbuffer_destroy(&sb);
		free(in);
	}
}

/* The parts table: each row findable, its codec writes its key, and its
 * member is the struct its table describes (in frames and records alike). */
static void test_parts(void **state)
{
	(void)state;
	/* The record types already on the wire keep their values; none is shared. */
	assert_int_equal(proto_part_find("fps")->ag_type, 9);
	assert_int_equal(proto_part_find("threads")->ag_type, 11);
	assert_int_equal(proto_part_find("blocks")->ag_type, 12);
	assert_int_equal(proto_part_find("ipc")->ag_type, 14);
	assert_int_equal(proto_part_find("power")->ag_type, 15);
	assert_int_equal(proto_part_find("network")->ag_type, 22);
	assert_int_equal(PROTO_AG_DETACH, 10);
	assert_int_equal(PROTO_AG_UI_THREAD, 13);
	for (size_t i = 0; i < proto_nparts; i++)
		for (size_t k = 0; k < i; k++)
			assert_int_not_equal(proto_parts[i]->ag_type, proto_parts[k]->ag_type);
	for (size_t i = 0; i < proto_nparts; i++) {
		const struct proto_part *p = proto_parts[i];
		struct proto_frame f;
		struct proto_buf jb = { 0 };
		struct proto_json j = { .b = &jb };
		msgpack_sbuffer sb;
		msgpack_packer pk;
		msgpack_zone zone;
		msgpack_object o;
		size_t off = 0;
		char key[64];

		assert_ptr_equal(proto_part_find(p->name), p);
		assert_ptr_equal(proto_part_of_record(p->ag_type), p);
		assert_true(p->frame_off + p->desc->size <= sizeof(struct proto_frame));
		assert_true(p->rec_off + p->desc->size <= sizeof(struct proto_agent_rec));
		memset(&f, 0, sizeof f);
		wire_fill(p->desc, proto_part_in_frame(p, &f));
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, 1);
		proto_part_pack(p, &pk, proto_part_in_frame_c(p, &f));
		msgpack_zone_init(&zone, 4096);
		assert_int_equal(msgpack_unpack(sb.data, sb.size, &off, &zone, &o), MSGPACK_UNPACK_SUCCESS);
		assert_non_null(proto_map_get(&o, p->key));
		msgpack_zone_destroy(&zone);
		proto_json_obj(&j, NULL);
		proto_part_json(p, &j, proto_part_in_frame_c(p, &f));
		proto_json_end_obj(&j);
		snprintf(key, sizeof key, "{\"%s\":{", p->key);
		assert_memory_equal(jb.p, key, strlen(key));
		free(jb.p);
		msgpack_sbuffer_destroy(&sb);
		proto_part_free(p, proto_part_in_frame(p, &f));
	}
	assert_null(proto_part_find("nope"));
	assert_null(proto_part_of_record(PROTO_AG_HELLO));
}

/* Agent records through the real encoder: each type's table round trips;
 * "attached" is sent only when true; a level past 4 is refused by name. */
/* Keys in any order decode as in the table's order; a duplicated key
 * decodes as its first occurrence, as proto_map_get finds it. */
static void test_key_order(void **state)
{
	/* keys of a func: addr calls total_ns self_ns, then unknown, shuffled
	 * and duplicated */
	static const struct { const char *k; uint64_t v; } maps[][7] = {
		{ { "addr", 1 }, { "calls", 2 }, { "total_ns", 3 }, { "self_ns", 4 }, { "max_ns", 5 } },
		{ { "self_ns", 4 }, { "max_ns", 5 }, { "addr", 1 }, { "total_ns", 3 }, { "calls", 2 } },
		{ { "calls", 2 }, { "addr", 1 }, { "calls", 9 }, { "total_ns", 3 }, { "self_ns", 4 },
		  { "max_ns", 5 }, { "addr", 9 } },
		{ { "addr", 1 }, { "zzz", 9 }, { "calls", 2 }, { "total_ns", 3 }, { "addr", 9 },
		  { "self_ns", 4 }, { "max_ns", 5 } },
		{ { "addr", 1 }, { "calls", 2 }, { "total_ns", 3 }, { "self_ns", 4 }, { "max_ns", 5 },
		  { "calls", 9 }, { "self_ns", 9 } },
	};
	char err[PROTO_ERR_LEN];

	(void)state;
	for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++) {
		struct proto_ag_func f;
		msgpack_sbuffer sb;
		msgpack_packer pk;
		uint32_t n = 0;

		while (n < 7 && maps[m][n].k != NULL)
			n++;
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, n);
		for (uint32_t i = 0; i < n; i++)
			proto_pack_kv_u64(&pk, maps[m][i].k, maps[m][i].v);
		assert_int_equal(wire_decode(&sb, &proto_ag_func_desc, &f, err, sizeof err), 0);
		assert_int_equal(f.addr, 1);
		assert_int_equal(f.calls, 2);
		assert_int_equal(f.total_ns, 3);
		assert_int_equal(f.self_ns, 4);
		assert_int_equal(f.max_ns, 5);
		assert_int_equal(f.slow, 0);
		msgpack_sbuffer_destroy(&sb);
	}
}

static void test_agent_records(void **state)
{
	struct proto_ag_sym sym = { .addr = 0x1000, .name = "main", .module = "/bin/x", .offset = 16,
	    .size = 32 };
	struct proto_ag_func fn = { .addr = 0x1000, .calls = 3, .total_ns = 30, .self_ns = 20,
	    .max_ns = 15, .slow = 1, .running_ns = 5 };
	struct proto_agent_rec in[] = {
		{ .type = PROTO_AG_HELLO, .hello = { .pid = 42, .exe = "/bin/x", .build_id = "ab",
		  .cmdline = "x -v", .level = 3, .overhead_ps = 900, .attached = true } },
		{ .type = PROTO_AG_HELLO, .hello = { .pid = 43, .exe = "/bin/y", .level = 1 } },
		{ .type = PROTO_AG_SYMS, .nsyms = 1, .syms = &sym },
		{ .type = PROTO_AG_FUNCS, .time_ns = 77, .threads = 4, .dropped = 2, .nfuncs = 1, .funcs = &fn },
		{ .type = PROTO_AG_LEVEL, .level = 4 },
		{ .type = PROTO_AG_THRESHOLD, .name = "slow", .value = -5 },
		{ .type = PROTO_AG_UI_THREAD, .name = "gui" },
		{ .type = PROTO_AG_RESET },
	};
	struct proto_agent_rec out, bad = { .type = PROTO_AG_LEVEL, .level = 5 };
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN];

	(void)state;
	msgpack_sbuffer_init(&sb);
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		msgpack_sbuffer_clear(&sb);
		proto_agent_encode(&sb, &in[i]);
		assert_int_equal(memmem(sb.data, sb.size, "attached", 8) != NULL,
		    in[i].type == PROTO_AG_HELLO && in[i].hello.attached);
		if (proto_agent_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR, &out, err,
		    sizeof err) < 0)
			fail_msg("record %zu: %s", i, err);
		assert_int_equal(out.type, in[i].type);
		switch (in[i].type) {
		case PROTO_AG_HELLO:
			assert_int_equal(out.hello.pid, in[i].hello.pid);
			assert_string_equal(out.hello.exe, in[i].hello.exe);
			assert_string_equal(out.hello.build_id, in[i].hello.build_id ? in[i].hello.build_id : "");
			assert_string_equal(out.hello.cmdline, in[i].hello.cmdline ? in[i].hello.cmdline : "");
			assert_int_equal(out.hello.level, in[i].hello.level);
			assert_int_equal(out.hello.overhead_ps, in[i].hello.overhead_ps);
			assert_int_equal(out.hello.attached, in[i].hello.attached);
			break;
		case PROTO_AG_SYMS:
			assert_int_equal(out.nsyms, 1);
			wire_compare(&proto_ag_sym_desc, &sym, &out.syms[0], false);
			break;
		case PROTO_AG_FUNCS:
			assert_int_equal(out.time_ns, 77);
			assert_int_equal(out.threads, 4);
			assert_int_equal(out.dropped, 2);
			assert_int_equal(out.nfuncs, 1);
			wire_compare(&proto_ag_func_desc, &fn, &out.funcs[0], false);
			break;
		case PROTO_AG_LEVEL:
			assert_int_equal(out.level, 4);
			break;
		case PROTO_AG_THRESHOLD:
			assert_string_equal(out.name, "slow");
			assert_int_equal(out.value, -5);
			break;
		case PROTO_AG_UI_THREAD:
			assert_string_equal(out.name, "gui");
			break;
		default:
			break;
		}
		proto_agent_rec_free(&out);
		for (size_t len = 0; len < sb.size - PROTO_AGENT_HDR; len++)
			assert_int_equal(proto_agent_decode(sb.data + PROTO_AGENT_HDR, len, &out, err,
			    sizeof err), -1);
	}
	msgpack_sbuffer_clear(&sb);
	proto_agent_encode(&sb, &bad);
	assert_int_equal(proto_agent_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR, &out,
	    err, sizeof err), -1);
	assert_non_null(strstr(err, "level"));
	msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_cover_structs),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_truncations_refused),
		cmocka_unit_test(test_truncated_messages_refused),
		cmocka_unit_test(test_required_fields_named),
		cmocka_unit_test(test_json_utf8),
		cmocka_unit_test(test_json_bad_symbol),
		cmocka_unit_test(test_map_sizes),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_agent_records),
		cmocka_unit_test(test_key_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
