/*
 * once.c - the non-interactive modes, for scripts and tests (no curses):
 *   --once [--json]   print one frame (a table, or one JSON object)
 *   --dump FILE       save a report
 *   --cmd "CMD ARGS"  send commands, print their replies
 *
 * Sequence: connect (retrying until the deadline), wait for the hello (and
 * with --wait-pid until that pid shows up in a target list), send every
 * command at once (--target, --sort, --top, --filter, then --cmd, then
 * dump), wait for all replies, then for --once print the first frame that
 * arrives after the last reply.  The daemon answers in order and builds a
 * frame when it writes it, after the replies queued before it, so that
 * frame reflects every command.  Exit 0, or 1 with the reason on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui.h"

#define ONCE_RETRY_MS 200

enum once_kind { ONCE_SETUP, ONCE_CMD, ONCE_DUMP };

struct once {
	const struct tui_opts *o;
	struct tui_loop  *loop;
	struct tui_conn  *conn;
	struct tui_timer *deadline;
	int               status;
	bool              done;
	bool              hello;          /* the daemon said hello */
	bool              sent;           /* commands are out */
	int               waiting;        /* replies still to come */
	bool              failed;         /* a --cmd failed */
	bool              need_frame;     /* --once */
	bool              utf8;
};

/* A command in flight. */
struct once_req {
	struct once   *s;
	enum once_kind kind;
	char           text[256];         /* as the user would type it */
};

/* Stop the loop with this exit status. */
static void once_finish(struct once *s, int status)
{
	if (s->done)
		return;
	s->done = true;
	s->status = status;
	tui_loop_stop(s->loop);
}

/* Save dump data to --dump FILE ("-": standard output); 0 or -1 (message
 * printed). */
static int once_save(const char *path, const char *data, size_t len)
{
	char err[PROTO_ERR_LEN + 1024];

	if (strcmp(path, "-") == 0) {
		if (fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0)
			return 0;
		fprintf(stderr, "hookscope: cannot write the report to standard output: %s\n",
		    strerror(errno));
		return -1;
	}
	if (tui_dump_save(path, data, len, err, sizeof err) == 0)
		return 0;
	fprintf(stderr, "hookscope: %s\n", err);
	return -1;
}

/* Print text from the daemon with control characters made harmless. */
static void once_puts(FILE *f, const char *prefix, const char *text, const char *suffix)
{
	char *clean = tui_fmt_clean(text, true);

	fprintf(f, "%s%s%s", prefix, clean, suffix);
	free(clean);
}

/* Everything answered: finish, or wait for the frame. */
static void once_all_replied(struct once *s)
{
	if (s->failed)
		once_finish(s, 1);
	else if (!s->need_frame)
		once_finish(s, 0);
}

/* A reply arrived (r NULL: the connection went first). */
static void once_reply(void *arg, const struct proto_reply *r)
{
	struct once_req *q = arg;
	struct once *s = q->s;

	s->waiting--;
	if (s->done) {
		/* Finished already (an earlier failure): nothing more to say. */
	} else if (r == NULL) {
		fprintf(stderr, "hookscope: connection to %s lost before the reply to '%s'\n",
		    s->o->url.text, q->text);
		once_finish(s, 1);
	} else if (q->kind == ONCE_DUMP) {
		/* A report that could not be saved on the device still comes along. */
		if (r->data == NULL) {
			once_puts(stderr, r->ok ? "hookscope: dump: the daemon sent no report: " :
			    "hookscope: dump: ", r->msg, "\n");
			s->failed = true;
		} else if (once_save(s->o->dump_file, r->data, r->data_len) < 0) {
			s->failed = true;
		} else if (strcmp(s->o->dump_file, "-") != 0) {
			printf("saved %s (%zu bytes)", s->o->dump_file, r->data_len);
			once_puts(stdout, r->ok ? "; " : "", r->ok ? r->msg : "", "\n");
			if (fflush(stdout) != 0)
				s->failed = true;
		}
		if (!r->ok && r->data != NULL) {
			once_puts(stderr, "hookscope: dump: ", r->msg, "\n");
			s->failed = true;
		}
	} else if (!r->ok) {
		fprintf(stderr, "hookscope: %s: ", q->text);
		once_puts(stderr, "", r->msg, "\n");
		s->failed = true;
		if (q->kind == ONCE_SETUP)
			once_finish(s, 1);
	} else if (q->kind == ONCE_CMD) {
		once_puts(stdout, "", r->msg, "\n");
		if (r->data != NULL && r->data_len > 0) {
			/* A terminal gets it cleaned, a pipe or file gets it as is. */
			if (isatty(STDOUT_FILENO))
				once_puts(stdout, "", r->data, "");
			else
				fwrite(r->data, 1, r->data_len, stdout);
			if (r->data[r->data_len - 1] != '\n')
				putchar('\n');
		}
		fflush(stdout);
	}
	free(q);
	if (s->waiting == 0 && !s->done)
		once_all_replied(s);
}

/* Send one command given as words. */
static int once_send(struct once *s, enum once_kind kind, int argc, const char *const *argv)
{
	struct once_req *q = xcalloc(1, sizeof *q);
	char err[PROTO_ERR_LEN];

	q->s = s;
	q->kind = kind;
	for (int i = 0; i < argc; i++)
		snprintf(q->text + strlen(q->text), sizeof q->text - strlen(q->text), "%s%s",
		    i ? " " : "", argv[i]);
	if (tui_conn_send(s->conn, argc, argv, once_reply, q, err, sizeof err) < 0) {
		fprintf(stderr, "hookscope: %s: %s\n", q->text, err);
		free(q);
		once_finish(s, 1);
		return -1;
	}
	s->waiting++;
	return 0;
}

/* Send everything the options ask for, in order. */
static void once_send_all(struct once *s)
{
	const struct tui_opts *o = s->o;
	char num[24], err[PROTO_ERR_LEN];
	const char *argv[PROTO_MAX_ARGS + 1];

	s->sent = true;
	if (o->target || o->wait_pid) {
		snprintf(num, sizeof num, "%d", (int)(o->target ? o->target : o->wait_pid));
		argv[0] = "target";
		argv[1] = num;
		if (once_send(s, ONCE_SETUP, 2, argv) < 0)
			return;
	}
	if (o->sort != NULL) {
		argv[0] = "sort";
		argv[1] = o->sort;
		if (once_send(s, ONCE_SETUP, 2, argv) < 0)
			return;
	}
	if (o->top > 0) {
		snprintf(num, sizeof num, "%ld", o->top);
		argv[0] = "top";
		argv[1] = num;
		if (once_send(s, ONCE_SETUP, 2, argv) < 0)
			return;
	}
	if (o->filter != NULL) {
		argv[0] = "filter";
		argv[1] = o->filter;
		if (once_send(s, ONCE_SETUP, o->filter[0] ? 2 : 1, argv) < 0)
			return;
	}
	for (int i = 0; i < o->ncmds; i++) {
		char *words[PROTO_MAX_ARGS + 1];
		int n = tui_cmd_split(o->cmds[i], words, PROTO_MAX_ARGS + 1, err, sizeof err), rc;

		if (n <= 0) {
			fprintf(stderr, "hookscope: --cmd \"%s\": %s\n", o->cmds[i],
			    n < 0 ? err : "empty command");
			once_finish(s, 2);
			return;
		}
		rc = once_send(s, ONCE_CMD, n, (const char *const *)words);
		tui_cmd_split_free(words, n);
		if (rc < 0)
			return;
	}
	if (o->dump_file != NULL) {
		const char *dump[] = { "dump", "-f", o->dump_format ? o->dump_format :
		    tui_dump_format(o->dump_file), "-a" };

		if (once_send(s, ONCE_DUMP, o->dump_all ? 4 : 3, dump) < 0)
			return;
	}
	if (s->waiting == 0)
		once_all_replied(s);
}

/* Is pid among these targets? */
static bool once_has_pid(const struct proto_target *t, size_t n, int32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].pid == pid)
			return true;
	return false;
}

/* Does the frame show what the options asked for? */
static bool once_frame_fits(const struct once *s, const struct proto_frame *f)
{
	const struct tui_opts *o = s->o;
	int32_t pid = o->target ? o->target : o->wait_pid;

	if (pid != 0 && f->pid != pid)
		return false;
	if (o->sort != NULL && strcmp(f->sort, o->sort) != 0)
		return false;
	return o->top == 0 || f->nfuncs <= (size_t)o->top;
}

/* Print the frame as JSON or as a table. */
static void once_print(struct once *s, const struct proto_frame *f)
{
	if (s->o->json) {
		size_t len;
		char *j = tui_json_frame(f, &len);

		fwrite(j, 1, len, stdout);
		putchar('\n');
		free(j);
	} else {
		tui_columns_print(stdout, f, s->utf8);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "hookscope: cannot write the output: %s\n", strerror(errno));
		once_finish(s, 1);
		return;
	}
	once_finish(s, 0);
}

/* Commands go out once the hello came and, with --wait-pid, the pid is known. */
static void once_maybe_send(struct once *s, const struct proto_target *t, size_t n)
{
	if (s->sent || !s->hello)
		return;
	if (s->o->wait_pid != 0 && !once_has_pid(t, n, s->o->wait_pid))
		return;
	once_send_all(s);
}

/* conn: hello, frame or error. */
static void once_message(void *owner, struct proto_server_msg *m)
{
	struct once *s = owner;

	if (s->done) {
		tui_msg_free(m);
		return;
	}
	switch (m->type) {
	case PROTO_MSG_HELLO:
		s->hello = true;
		once_maybe_send(s, m->targets, m->ntargets);
		break;
	case PROTO_MSG_FRAME:
		if (!s->sent)
			once_maybe_send(s, m->frame.targets, m->frame.ntargets);
		else if (s->waiting == 0 && s->need_frame && once_frame_fits(s, &m->frame))
			once_print(s, &m->frame);
		break;
	default:
		once_puts(stderr, "hookscope: hookscoped: ", m->error ? m->error : "error", "\n");
		once_finish(s, 1);
		break;
	}
	tui_msg_free(m);
}

/* conn: state changed.  Before anything was sent, keep retrying. */
static void once_state(void *owner)
{
	struct once *s = owner;

	if (tui_conn_state(s->conn) == TUI_CONN_RETRY && s->sent && !s->done) {
		fprintf(stderr, "hookscope: %s\n", tui_conn_error(s->conn));
		once_finish(s, 1);
	}
	if (tui_conn_state(s->conn) == TUI_CONN_RETRY)
		s->hello = false;
}

/* conn: an unreadable message. */
static void once_warn(void *owner, const char *text)
{
	(void)owner;
	once_puts(stderr, "hookscope: ", text, "\n");
}

static const struct tui_conn_ops once_conn_ops = {
	.state = once_state,
	.message = once_message,
	.warn = once_warn,
};

/* The deadline passed: say what we were waiting for. */
static void once_timeout(void *arg)
{
	struct once *s = arg;
	const struct tui_opts *o = s->o;
	const char *url = o->url.text;

	if (tui_conn_state(s->conn) != TUI_CONN_UP)
		fprintf(stderr, "hookscope: no connection within %g s: %s (is hookscoped running? "
		    "see --help)\n", o->timeout_s, tui_conn_error(s->conn)[0] ?
		    tui_conn_error(s->conn) : url);
	else if (!s->hello)
		fprintf(stderr, "hookscope: %s sent no hello within %g s (is it hookscoped?)\n",
		    url, o->timeout_s);
	else if (!s->sent)
		fprintf(stderr, "hookscope: pid %d did not show up at %s within %g s\n",
		    (int)o->wait_pid, url, o->timeout_s);
	else if (s->waiting > 0)
		fprintf(stderr, "hookscope: %d command(s) got no reply from %s within %g s\n",
		    s->waiting, url, o->timeout_s);
	else
		fprintf(stderr, "hookscope: no frame%s from %s within %g s\n",
		    o->target || o->wait_pid ? " for the target" : "", url, o->timeout_s);
	once_finish(s, 1);
}

/* See tui.h. */
int tui_once_run(const struct tui_opts *o)
{
	struct once s;
	char err[PROTO_ERR_LEN + 64];

	memset(&s, 0, sizeof s);
	s.o = o;
	s.status = 1;
	s.need_frame = o->once;
	s.utf8 = !o->ascii && tui_locale_utf8();
	s.loop = tui_loop_new(o->verbose, err, sizeof err);
	if (s.loop == NULL) {
		fprintf(stderr, "hookscope: %s\n", err);
		return 1;
	}
	s.conn = tui_conn_new(s.loop, &o->url, ONCE_RETRY_MS, &once_conn_ops, &s);
	s.deadline = tui_timer_new(s.loop, once_timeout, &s);
	tui_timer_start(s.deadline, (uint64_t)(o->timeout_s * 1000 + 0.5));
	tui_conn_start(s.conn);
	if (!s.done)
		tui_loop_run(s.loop);
	tui_conn_free(s.conn);
	tui_timer_free(s.deadline);
	tui_loop_free(s.loop);
	return s.status;
}
