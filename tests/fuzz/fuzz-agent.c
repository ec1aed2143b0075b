/*
 * fuzz-agent.c - agent -> daemon records (proto_agent_decode), the body
 * after the length prefix.  A decoded record must encode and decode again.
 */
#include <string.h>
#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_agent_rec r, again;
	msgpack_sbuffer sb;
	char err[PROTO_ERR_LEN];

	memset(&r, 0, sizeof r);
	if (proto_agent_decode(data, size, &r, err, sizeof err) < 0) {
		if (err[0] == '\0')
			__builtin_trap();
		proto_agent_rec_free(&r);
		return 0;
	}
	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, &r);
	memset(&again, 0, sizeof again);
	if (sb.size < PROTO_AGENT_HDR || proto_agent_len(sb.data) != sb.size - PROTO_AGENT_HDR ||
	    proto_agent_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR, &again,
	    err, sizeof err) < 0 || again.type != r.type)
		__builtin_trap();
	proto_agent_rec_free(&again);
	msgpack_sbuffer_destroy(&sb);
	proto_agent_rec_free(&r);
	return 0;
}
