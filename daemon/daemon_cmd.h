/*
 * daemon_cmd.h - the daemon's commands: one cmd-NAME.c per command, each an
 * entry of cmd.c's table (tmux's cmd_table), run for a client's view.
 */
#ifndef HOOKSCOPE_DAEMON_DAEMON_CMD_H
#define HOOKSCOPE_DAEMON_DAEMON_CMD_H

#include "daemon.h"

struct daemon_cmdctx {
	struct daemon_state   *d;
	struct daemon_view    *view;  /* the client's selection */
	struct daemon_session *s;     /* its target, or NULL */
	int    argc;
	char **argv;
	uint64_t now_ns;
	char  *msg;                   /* reply text (heap) */
	char  *data;                  /* optional reply payload (heap) */
	size_t data_len;
};

#define DAEMON_CMD_TARGET  0x1    /* needs a target session */
#define DAEMON_CMD_LIVE    0x2    /* needs the target's agent connected */

struct daemon_cmd_entry {
	const char *name;
	const char *usage;            /* arguments, for messages */
	int   min_args, max_args;
	unsigned flags;
	int (*exec)(struct daemon_cmdctx *x);  /* 0 = ok, -1 = error (msg set) */
};

extern const struct daemon_cmd_entry daemon_cmd_level_entry;
extern const struct daemon_cmd_entry daemon_cmd_budget_entry;
extern const struct daemon_cmd_entry daemon_cmd_reset_entry;
extern const struct daemon_cmd_entry daemon_cmd_dump_entry;
extern const struct daemon_cmd_entry daemon_cmd_threshold_entry;
extern const struct daemon_cmd_entry daemon_cmd_target_entry;
extern const struct daemon_cmd_entry daemon_cmd_sort_entry;
extern const struct daemon_cmd_entry daemon_cmd_top_entry;
extern const struct daemon_cmd_entry daemon_cmd_filter_entry;
extern const struct daemon_cmd_entry daemon_cmd_forget_entry;
extern const struct daemon_cmd_entry daemon_cmd_targets_entry;
extern const struct daemon_cmd_entry daemon_cmd_attach_entry;
extern const struct daemon_cmd_entry daemon_cmd_detach_entry;
extern const struct daemon_cmd_entry daemon_cmd_ps_entry;
extern const struct daemon_cmd_entry daemon_cmd_ui_thread_entry;
extern const struct daemon_cmd_entry daemon_cmd_leaks_entry;

/* Run one command for a client view; fills r (msg/data on the heap). */
void daemon_cmd_run(struct daemon_state *d, struct daemon_view *view,
    const struct proto_cmd *c, struct proto_reply *r);
/* Set the reply text; daemon_cmd_error also returns -1. */
void daemon_cmd_msg(struct daemon_cmdctx *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int  daemon_cmd_error(struct daemon_cmdctx *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
