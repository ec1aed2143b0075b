/*
 * json.c - a frame as one JSON object, for scripts (--once --json): the
 * frame's and the collectors' field tables (parts.h) written by the
 * protocol's JSON writer, so the keys are the wire keys (doc/protocol.md).
 */

#include "tui.h"
#include "json.h"
#include "parts.h"

/* See tui.h. */
char *tui_json_frame(const struct proto_frame *f, size_t *len)
{
	struct proto_buf b = { 0 };
	struct proto_json j = { .b = &b, .digits = 10 };

	proto_json_obj(&j, NULL);
	proto_json_u64(&j, "v", PROTO_VERSION);
	proto_json_str(&j, "t", "frame");
	proto_struct_json_fields(&j, &proto_frame_desc, f);
	for (size_t i = 0; i < proto_nparts; i++)
		proto_part_json(proto_parts[i], &j, proto_part_in_frame_c(proto_parts[i], f));
	proto_json_end_obj(&j);
	if (len != NULL)
		*len = b.len;
	return b.p;
}
