/*
 * ipc.c - the IPC collector (reporter thread): sums every thread's block
 * into per-endpoint totals (minus the reset baseline), drains the threads'
 * slow-call rings (stacks symbolized with the block collector's
 * symbolizer), finds the peer process of pipes and FIFOs, and sends one
 * "ipc" record when something changed: every endpoint with activity and
 * the slow calls not sent yet (all kept ones on a new connection).
 * Always on (all levels).  Threshold "ipc" (ns).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"
#include "bind.h"
#include "collector.h"
#include "ipc_int.h"

#define IPC_KEEP_SLOW 16                  /* slow calls the agent keeps and resends */
#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)

static struct ipc_tstat ipc_tot[IPC_MAX_EP];   /* last harvest, baseline removed */
static struct ipc_tstat ipc_base[IPC_MAX_EP];  /* raw sums at the last reset */
static struct ipc_tstat ipc_sent[IPC_MAX_EP];  /* what the last record said */
static uint8_t ipc_peer_scans[IPC_MAX_EP];   /* /proc scans done per pipe endpoint */
static struct proto_ipc_slow ipc_slow_kept[IPC_KEEP_SLOW];   /* newest first */
static size_t ipc_nslow, ipc_nslow_new;
static uint32_t ipc_slow_id;
static uint64_t ipc_slow_count;
static bool ipc_cfg_changed = true;

/* Agent start: hot-path state ready before the wrappers count. */
static int ipc_init(void)
{
	ipc_hot_init();
	bind_add(&ipc_bind);
	return 0;
}

/* Raw per-endpoint sums over every thread block. */
static void ipc_sum(struct ipc_tstat *out, uint32_t n)
{
	memset(out, 0, n * sizeof *out);
	for (struct ipc_thread *t = ipc_threads(); t; t = t->next)
		for (uint32_t i = 0; i < n; i++) {
			const struct ipc_tstat *s = &t->st[i];
			struct ipc_tstat *o = &out[i];
			uint64_t mx = LOAD(&s->max_ns);

			o->sends += LOAD(&s->sends);
			o->recvs += LOAD(&s->recvs);
			o->calls += LOAD(&s->calls);
			o->connects += LOAD(&s->connects);
			o->bytes_out += LOAD(&s->bytes_out);
			o->bytes_in += LOAD(&s->bytes_in);
			o->total_ns += LOAD(&s->total_ns);
			o->ui_calls += LOAD(&s->ui_calls);
			o->ui_ns += LOAD(&s->ui_ns);
			o->slow += LOAD(&s->slow);
			if (mx > o->max_ns)
				o->max_ns = mx;
		}
}

/* Keep one slow call (symbolized now: the reporter owns the symbolizer). */
static void ipc_keep_slow(const struct ipc_slow_rec *r)
{
	struct proto_ipc_slow s = { .id = ++ipc_slow_id, .ep = r->ep, .tid = r->tid, .ui = r->ui,
		.start_ns = r->start_ns, .dur_ns = r->dur_ns };

	s.op = xstrdup(r->op < IPC_OP_COUNT ? ipc_op_names[r->op] : "?");
	s.stack.samples = 1;
	s.stack.nframes = r->n;
	s.stack.frames = xcalloc(r->n ? r->n : 1, sizeof *s.stack.frames);
	for (uint32_t k = 0; k < r->n; k++)
		sym_frame_fill(r->pc[k], true, &s.stack.frames[k]);
	if (ipc_nslow == IPC_KEEP_SLOW)
		proto_ipc_slow_free(&ipc_slow_kept[--ipc_nslow]);
	memmove(&ipc_slow_kept[1], &ipc_slow_kept[0], ipc_nslow * sizeof ipc_slow_kept[0]);
	ipc_slow_kept[0] = s;
	ipc_nslow++;
	if (ipc_nslow_new < IPC_KEEP_SLOW)
		ipc_nslow_new++;
	ipc_slow_count++;
}

/* Take the slow calls each thread wrote since the last harvest (those
 * overwritten in its ring meanwhile are lost). */
static void ipc_drain_slow(void)
{
	for (struct ipc_thread *t = ipc_threads(); t; t = t->next) {
		uint64_t top = __atomic_load_n(&t->slow_seq, __ATOMIC_ACQUIRE), from = t->slow_taken + 1;

		if (top >= IPC_SLOW_RING && from <= top - IPC_SLOW_RING)
			from = top - IPC_SLOW_RING + 1;
		for (uint64_t q = from; q <= top; q++) {
			const struct ipc_slow_rec *src = &t->slow[q % IPC_SLOW_RING];
			struct ipc_slow_rec r;

			if (__atomic_load_n(&src->seq, __ATOMIC_ACQUIRE) != q)
				continue;
			r.ep = LOAD(&src->ep);
			r.op = LOAD(&src->op);
			r.ui = LOAD(&src->ui);
			r.tid = LOAD(&src->tid);
			r.start_ns = LOAD(&src->start_ns);
			r.dur_ns = LOAD(&src->dur_ns);
			r.n = LOAD(&src->n);
			if (r.n > IPC_FRAMES)
				r.n = IPC_FRAMES;
			for (uint32_t k = 0; k < r.n; k++)
				r.pc[k] = LOAD(&src->pc[k]);
			if (__atomic_load_n(&src->seq, __ATOMIC_ACQUIRE) == q)
				ipc_keep_slow(&r);
		}
		t->slow_taken = top;
	}
}

static void ipc_peer_scan(void);

/* Gather the threads' figures. */
static void ipc_harvest(void)
{
	struct ipc_tstat raw[IPC_MAX_EP];

	ipc_sum(raw, IPC_MAX_EP);
	for (uint32_t i = 0; i < IPC_MAX_EP; i++) {
		struct ipc_tstat *t = &ipc_tot[i];
		const struct ipc_tstat *r = &raw[i], *b = &ipc_base[i];

		t->sends = r->sends - b->sends;
		t->recvs = r->recvs - b->recvs;
		t->calls = r->calls - b->calls;
		t->connects = r->connects - b->connects;
		t->bytes_out = r->bytes_out - b->bytes_out;
		t->bytes_in = r->bytes_in - b->bytes_in;
		t->total_ns = r->total_ns - b->total_ns;
		t->ui_calls = r->ui_calls - b->ui_calls;
		t->ui_ns = r->ui_ns - b->ui_ns;
		t->slow = r->slow - b->slow;
		t->max_ns = r->max_ns;
	}
	ipc_drain_slow();
	ipc_peer_scan();
}

/* Did endpoint i do anything? */
static bool ipc_active(const struct ipc_tstat *t)
{
	return t->sends || t->recvs || t->calls || t->connects;
}

/* One "ipc" record when figures changed or slow calls came (everything on
 * a new connection). */
static void ipc_encode(msgpack_sbuffer *sb, bool resend_all)
{
	struct proto_ipc_ep *eps = xcalloc(IPC_MAX_EP, sizeof *eps);
	uint32_t n = ipc_ep_count();
	size_t ne = 0, ns;
	bool changed = resend_all || ipc_cfg_changed || ipc_nslow_new > 0;

	if (ipc_tot[IPC_MAX_EP - 1].sends || ipc_tot[IPC_MAX_EP - 1].recvs ||
	    ipc_tot[IPC_MAX_EP - 1].calls || ipc_tot[IPC_MAX_EP - 1].connects)
		n = IPC_MAX_EP;
	for (uint32_t i = 0; i < n; i++) {
		const struct ipc_tstat *t = &ipc_tot[i];
		const struct ipc_ep *e = ipc_ep_at(i);

		if (memcmp(t, &ipc_sent[i], sizeof *t) != 0)
			changed = true;
		if (!ipc_active(t) || e == NULL || e->kind == IPC_K_NONE)
			continue;
		eps[ne++] = (struct proto_ipc_ep){ .id = i, .kind = (char *)ipc_kind_names[e->kind],
		    .name = (char *)e->name, .method = (char *)e->method, .peer_pid = e->peer_pid,
		    .peer_comm = (char *)e->peer_comm, .sends = t->sends, .recvs = t->recvs,
		    .calls = t->calls, .connects = t->connects, .bytes_out = t->bytes_out,
		    .bytes_in = t->bytes_in, .total_ns = t->total_ns, .max_ns = t->max_ns,
		    .ui_calls = t->ui_calls, .ui_ns = t->ui_ns, .slow = t->slow };
	}
	if (changed) {
		ns = resend_all ? ipc_nslow : ipc_nslow_new;
		proto_agent_encode(sb, &(struct proto_agent_rec){ .type = PROTO_AG_IPC,
		    .time_ns = proto_now_ns(), .ipc = { .threshold_ns = ipc_threshold_ns(),
		    .slow_count = ipc_slow_count, .neps = ne, .eps = eps, .nslow = ns,
		    .slow = ipc_slow_kept } });
		memcpy(ipc_sent, ipc_tot, sizeof ipc_sent);
		ipc_nslow_new = 0;
		ipc_cfg_changed = false;
	}
	free(eps);
}

/* "ipc": the slow-call threshold in ns (1 ms .. 1 h). */
static int ipc_set_threshold(const char *name, int64_t value)
{
	if (strcmp(name, "ipc") != 0)
		return 1;
	if (value < 1000000 || value > 3600000000000ll)
		return -1;
	ipc_set_threshold_ns((uint64_t)value);
	ipc_cfg_changed = true;
	return 0;
}

/* Zero the figures: the current sums become the baseline. */
static void ipc_reset(void)
{
	ipc_sum(ipc_base, IPC_MAX_EP);
	ipc_hot_reset_max();
	memset(ipc_tot, 0, sizeof ipc_tot);
	for (size_t i = 0; i < ipc_nslow; i++)
		proto_ipc_slow_free(&ipc_slow_kept[i]);
	ipc_nslow = ipc_nslow_new = 0;
	ipc_slow_count = 0;
	ipc_cfg_changed = true;
}

/* Fork child: a new session, which starts from zero; locks another thread
 * held at the fork start free. */
static void ipc_atfork_child(void)
{
	ipc_ep_atfork_child();
	ipc_dbus_atfork_child();
	ipc_reset();
}

/* The access mode of /proc/PID/fd/FD (its fdinfo flags), -1 if unknown. */
static int ipc_fd_mode(int32_t pid, const char *fd)
{
	char path[300], buf[256];
	const char *p;
	ssize_t n;
	int f;

	snprintf(path, sizeof path, "/proc/%d/fdinfo/%s", (int)pid, fd);
	if ((f = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = pread(f, buf, sizeof buf - 1, 0);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "flags:");
	return p ? (int)(strtol(p + 6, NULL, 8) & O_ACCMODE) : -1;
}

/* One walk of every other process's descriptors for the endpoints
 * want[0..n): pid[k] becomes the first process holding an fd whose /proc
 * link reads endpoint want[k]'s name with an access mode other than its
 * own (the other end of a pipe; any mode if ours is unknown or both). */
static void ipc_peer_find(const uint32_t *want, uint32_t n, int32_t *pid)
{
	DIR *d = opendir("/proc"), *fdd;
	struct dirent *p, *f;
	int32_t self = (int32_t)getpid();
	uint32_t left = n;
	char path[300], link[300];

	memset(pid, 0, n * sizeof *pid);
	if (d == NULL)
		return;
	while (left > 0 && (p = readdir(d)) != NULL) {
		int32_t id = (int32_t)atoi(p->d_name);

		if (id <= 0 || id == self)
			continue;
		snprintf(path, sizeof path, "/proc/%d/fd", (int)id);
		if ((fdd = opendir(path)) == NULL)
			continue;
		while (left > 0 && (f = readdir(fdd)) != NULL) {
			ssize_t len;

			snprintf(path, sizeof path, "/proc/%d/fd/%s", (int)id, f->d_name);
			if ((len = readlink(path, link, sizeof link - 1)) <= 0)
				continue;
			link[len] = '\0';
			for (uint32_t k = 0; k < n; k++) {
				const struct ipc_ep *e = ipc_ep_at(want[k]);
				int acc = __atomic_load_n(&e->acc, __ATOMIC_RELAXED) - 1;

				if (pid[k] != 0 || strcmp(link, e->name) != 0)
					continue;
				if (acc < 0 || acc == O_RDWR || ipc_fd_mode(id, f->d_name) != acc) {
					pid[k] = id;
					left--;
				}
			}
		}
		closedir(fdd);
	}
	closedir(d);
}

/* Endpoint i's peer is process pid: note it with its command. */
static void ipc_peer_set(uint32_t i, int32_t pid)
{
	char comm[16], path[64];
	int fd;

	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	comm[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t k = pread(fd, comm, sizeof comm - 1, 0);

		comm[k > 0 ? k : 0] = '\0';
		if (k > 0 && comm[k - 1] == '\n')
			comm[k - 1] = '\0';
		close(fd);
	}
	ipc_ep_set_peer(i, pid, comm);
}

/* The other end of each pipe or FIFO endpoint, in its first 5 harvests
 * (about a second): looked for in one walk of /proc for all the endpoints
 * still without one (the walk reads every descriptor of every process:
 * once per harvest, not once per endpoint); once found, only its command
 * is read again (a peer forked by a shell shows its own command only once
 * it has exec'd). */
static void ipc_peer_scan(void)
{
	uint32_t n = ipc_ep_count(), want[IPC_MAX_EP], nwant = 0;
	int32_t pid[IPC_MAX_EP];

	for (uint32_t i = 0; i < n && i < IPC_MAX_EP; i++) {
		const struct ipc_ep *e = ipc_ep_at(i);

		if (ipc_peer_scans[i] >= 5 || (e->kind != IPC_K_PIPE && e->kind != IPC_K_FIFO))
			continue;
		ipc_peer_scans[i]++;
		if (e->peer_pid != 0)
			ipc_peer_set(i, e->peer_pid);
		else
			want[nwant++] = i;
	}
	if (nwant == 0)
		return;
	ipc_peer_find(want, nwant, pid);
	for (uint32_t k = 0; k < nwant; k++)
		if (pid[k] != 0)
			ipc_peer_set(want[k], pid[k]);
}

const struct collector_ops ipc_collector = {
	.name          = "ipc",
	.init          = ipc_init,
	.set_threshold = ipc_set_threshold,
	.reset         = ipc_reset,
	.harvest       = ipc_harvest,
	.encode        = ipc_encode,
	.atfork_child  = ipc_atfork_child,
};
