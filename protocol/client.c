/* client.c - the one client -> daemon message: a command with an id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* See protocol.h. */
void proto_encode_cmd(msgpack_sbuffer *sb, const struct proto_cmd *c)
{
	msgpack_packer pk;

	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 5);
	proto_pack_kv_u64(&pk, "v", PROTO_VERSION);
	proto_pack_kv_str(&pk, "t", "cmd");
	proto_pack_kv_u64(&pk, "id", c->id);
	proto_pack_kv_str(&pk, "cmd", c->cmd);
	proto_pack_str(&pk, "args");
	msgpack_pack_array(&pk, (size_t)c->argc);
	for (int i = 0; i < c->argc; i++)
		proto_pack_str(&pk, c->argv[i]);
}

/* Is the message's "t" field equal to want? */
static int client_expect_type(const msgpack_object *root, const char *want,
    char *err, size_t errlen)
{
	char *t = NULL;
	int r = proto_get_str(root, "t", true, &t, err, errlen);

	if (r == 0 && strcmp(t, want) != 0) {
		snprintf(err, errlen, "unknown message type \"%s\" (expected \"%s\")", t, want);
		r = -1;
	}
	free(t);
	return r;
}

/*
 * A message refused before its fields were read (a wrong version, say) still
 * gets its id echoed when the bytes are sound msgpack with a readable "id".
 */
static void client_salvage_id(const void *buf, size_t len, struct proto_cmd *c)
{
	char err[PROTO_ERR_LEN];
	msgpack_zone zone;
	msgpack_object root;
	size_t off = 0;

	if (proto_check(buf, len, PROTO_MAX_MSG, err, sizeof err) < 0)
		return;
	msgpack_zone_init(&zone, 2048);
	if (msgpack_unpack(buf, len, &off, &zone, &root) == MSGPACK_UNPACK_SUCCESS &&
	    off == len && root.type == MSGPACK_OBJECT_MAP &&
	    proto_get_u64(&root, "id", true, &c->id, err, sizeof err) == 0)
		c->has_id = true;
	msgpack_zone_destroy(&zone);
}

/*
 * See protocol.h.  On failure c->id and c->has_id are still set when the
 * message carried a readable id, so the daemon can answer with a reply rather
 * than an error.
 */
int proto_decode_cmd(const void *buf, size_t len, struct proto_cmd *c,
    char *err, size_t errlen)
{
	struct proto_doc doc;
	const msgpack_object_array *args = NULL;
	int r = -1;

	memset(c, 0, sizeof *c);
	if (proto_doc_parse(&doc, buf, len, PROTO_MAX_MSG, err, errlen) < 0) {
		client_salvage_id(buf, len, c);
		return -1;
	}
	if (proto_get_u64(&doc.root, "id", true, &c->id, err, errlen) < 0)
		goto out;
	c->has_id = true;
	if (client_expect_type(&doc.root, "cmd", err, errlen) < 0 ||
	    proto_get_str(&doc.root, "cmd", true, &c->cmd, err, errlen) < 0 ||
	    proto_get_array(&doc.root, "args", false, &args, err, errlen) < 0)
		goto out;
	if (c->cmd[0] == '\0') {
		snprintf(err, errlen, "empty command name");
		goto out;
	}
	if (args != NULL) {
		if (args->size > PROTO_MAX_ARGS) {
			snprintf(err, errlen, "too many arguments (%u, at most %d)", args->size, PROTO_MAX_ARGS);
			goto out;
		}
		for (uint32_t i = 0; i < args->size; i++) {
			const msgpack_object *a = &args->ptr[i];

			if (a->type != MSGPACK_OBJECT_STR) {
				snprintf(err, errlen, "argument %u must be a string", i + 1);
				goto out;
			}
			if (memchr(a->via.str.ptr, '\0', a->via.str.size) != NULL) {
				snprintf(err, errlen, "argument %u contains a NUL byte", i + 1);
				goto out;
			}
			c->argv[c->argc++] = xstrndup(a->via.str.ptr, a->via.str.size);
		}
	}
	r = 0;
out:
	proto_doc_free(&doc);
	if (r < 0) {
		uint64_t id = c->id;
		bool has_id = c->has_id;

		proto_cmd_free(c);
		c->id = id;
		c->has_id = has_id;
	}
	return r;
}

/* See protocol.h. */
void proto_cmd_free(struct proto_cmd *c)
{
	free(c->cmd);
	for (int i = 0; i < c->argc; i++)
		free(c->argv[i]);
	memset(c, 0, sizeof *c);
}
