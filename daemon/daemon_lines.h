/*
 * daemon_lines.h - source lines of the stack frames agents send.  An agent
 * names each frame (function + offset, module) from its own symbol
 * catalogue but reads no debug information: the daemon fills file:line in
 * on receipt, from the same files, so the target never pays for reading
 * (often compressed) DWARF.  Event loop thread only.
 */
#ifndef HOOKSCOPE_DAEMON_DAEMON_LINES_H
#define HOOKSCOPE_DAEMON_DAEMON_LINES_H

#include "daemon.h"

/* Fill file:line into every frame of record r, which process pid sent
 * (the daemon's view of its pid).  Frames that already carry a file and
 * addresses outside any module (the engine's trampolines) are left alone. */
void daemon_lines_fill(struct daemon_session *s, int32_t pid, struct proto_agent_rec *r);
/* Drop the session's debug information and cache (its agent is gone). */
void daemon_lines_free(struct daemon_session *s);

#endif
