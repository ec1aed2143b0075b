/*
 * fuzz-frame.c - daemon -> client messages as the TUI decodes them
 * (proto_decode_server): hello, frame, reply, error.  A decoded frame must
 * encode and decode again.
 */
#include <string.h>
#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_server_msg m, again;
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN];

	memset(&m, 0, sizeof m);
	if (proto_decode_server(data, size, &m, err, sizeof err) < 0) {
		if (err[0] == '\0')
			__builtin_trap();       /* an error must say why */
		proto_server_msg_free(&m);
		return 0;
	}
	if (m.type == PROTO_MSG_FRAME) {
		msgpack_sbuffer_init(&sb);
		proto_encode_frame(&sb, &m.frame);
		memset(&again, 0, sizeof again);
		if (proto_decode_server(sb.data, sb.size, &again, err, sizeof err) < 0 ||
		    again.frame.nfuncs != m.frame.nfuncs || again.frame.seq != m.frame.seq)
			__builtin_trap();       /* our own encoding refused or changed */
		proto_server_msg_free(&again);
		msgpack_sbuffer_destroy(&sb);
	}
	proto_server_msg_free(&m);
	return 0;
}
