/*
 * fuzz-cmd.c - client -> daemon messages (proto_decode_cmd).  What decodes
 * must encode and decode again to the same command.
 */
#include <assert.h>
#include <string.h>
#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_cmd c, again;
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN];

	memset(&c, 0, sizeof c);
	if (proto_decode_cmd(data, size, &c, err, sizeof err) < 0) {
		assert(err[0] != '\0');
		proto_cmd_free(&c);
		return 0;
	}
	msgpack_sbuffer_init(&sb);
	proto_encode_cmd(&sb, &c);
	memset(&again, 0, sizeof again);
	if (proto_decode_cmd(sb.data, sb.size, &again, err, sizeof err) < 0)
		__builtin_trap();       /* our own encoding refused */
	assert(again.id == c.id && again.argc == c.argc && strcmp(again.cmd, c.cmd) == 0);
	proto_cmd_free(&again);
	msgpack_sbuffer_destroy(&sb);
	proto_cmd_free(&c);
	return 0;
}
