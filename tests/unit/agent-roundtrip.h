/*
 * agent-roundtrip.h - the unit tests' trip of an agent record through the
 * wire: encode, check the length header, decode.
 */
#ifndef HS_TEST_AGENT_ROUNDTRIP_H
#define HS_TEST_AGENT_ROUNDTRIP_H

#include "protocol.h"

/* Encode r, decode it into out: 0 or -1 (err filled). */
static inline int agent_roundtrip(const struct proto_agent_rec *r, struct proto_agent_rec *out,
    char *err, size_t errlen)
{
	msgpack_sbuffer sb;
	int rc;

	msgpack_sbuffer_init(&sb);
	proto_agent_encode(&sb, r);
	assert_true(sb.size > PROTO_AGENT_HDR);
	assert_int_equal(proto_agent_len(sb.data), sb.size - PROTO_AGENT_HDR);
	rc = proto_agent_decode(sb.data + PROTO_AGENT_HDR, sb.size - PROTO_AGENT_HDR, out, err,
	    errlen);
	msgpack_sbuffer_destroy(&sb);
	return rc;
}

#endif
