/*
 * agent_reporter.c - the agent's own thread ("hookscope"): every interval it
 * harvests the collectors and sends what changed; between intervals it
 * sleeps in poll() on the daemon socket (commands apply at once) and on an
 * eventfd (flush and stop requests).  It never runs target code: its TLS
 * guard is set for good, and it blocks every signal.
 *
 * An attached agent (agent_attach.c) also leaves from here: on a detach
 * request, or when the daemon has been unreachable for the grace period,
 * the loop ends with agent_detach_begin, the final report goes out, and
 * agent_detach_finish unloads the agent (agent_detach.c).
 *
 * Locks: cycle_lock covers the collectors' reporter state and the link
 * (held for one harvest + send, bounded by the send deadline); lock covers
 * the request flags.  Never both at once except in the fork prepare handler,
 * which takes cycle_lock then lock.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "collector.h"
#include "timing.h"

#define MS  1000000ull            /* ns per ms */

static struct {
	pthread_mutex_t   cycle_lock;
	struct agent_link link;
	msgpack_sbuffer   sb;
	uint64_t          next_connect_ns;
	uint64_t          sends_failed;   /* cycles whose records were lost */

	pthread_mutex_t   lock;
	pthread_cond_t    cond;           /* flush_done advanced */
	bool              stop;
	uint64_t          flush_req, flush_done;

	int               wakefd;         /* eventfd: flush or stop requested (in the
	                                   * program's table and the thread's) */
	bool              fds_private;    /* the thread's descriptors are its own */
	pthread_t         thread;
	bool              running;        /* thread started and not joined */
	bool              delay_first;    /* first report after one interval */
	int               detach_req;     /* atomic: agent_reporter_detach() was called */
	uint64_t          down_since_ns;  /* attached: link down since (0 = up) */
} rep = {
	.cycle_lock = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wakefd = -1,
};

/* Initialise the condition variable on the monotonic clock. */
static void rep_cond_init(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&rep.cond, &ca);
	pthread_condattr_destroy(&ca);
}

/* See agent.h: the state the thread needs, once at start. */
int agent_reporter_init(void)
{
	agent_link_init(&rep.link);
	msgpack_sbuffer_init(&rep.sb);
	rep_cond_init();
	rep.wakefd = agent_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	return rep.wakefd < 0 ? -1 : 0;
}

/* Wake the thread (a flush or a stop is pending). */
static void rep_wake(void)
{
	uint64_t one = 1;

	if (rep.wakefd >= 0 && write(rep.wakefd, &one, sizeof one) < 0 && errno != EAGAIN)
		agent_log("cannot wake the reporter: %s", strerror(errno));
}

/* One report: connect if due, harvest, send what changed (everything on a
 * new connection), and bye if final.  Errors close the link for a later
 * retry: figures are cumulative, so nothing is lost but timeliness. */
static void rep_cycle(bool final, bool force_connect)
{
	uint64_t now;
	bool fresh = false;

	pthread_mutex_lock(&rep.cycle_lock);
	now = proto_now_ns();
	if (rep.link.fd < 0 && (force_connect || now >= rep.next_connect_ns)) {
		if (agent_link_connect(&rep.link, agent_cfg.socket_path) == 0) {
			fresh = true;
			agent_log("connected to %s", agent_cfg.socket_path);
		} else {
			rep.next_connect_ns = now + AGENT_RETRY_MS * MS;
		}
	}
	collector_harvest_all();
	if (rep.link.fd >= 0) {
		msgpack_sbuffer_clear(&rep.sb);
		if (fresh)
			agent_info_hello(&rep.sb);
		collector_encode_all(&rep.sb, fresh);
		if (final)
			proto_agent_encode(&rep.sb, &(struct proto_agent_rec){ .type = PROTO_AG_BYE });
		if (agent_link_send(&rep.link, rep.sb.data, rep.sb.size,
		    now + (final ? AGENT_EXIT_BUDGET_MS / 2 : AGENT_SEND_BUDGET_MS) * MS) < 0) {
			rep.sends_failed++;
			agent_link_close(&rep.link);
			rep.next_connect_ns = now + AGENT_RETRY_MS * MS;
		}
		if (rep.sb.alloc > (4u << 20)) {  /* do not keep a huge buffer */
			msgpack_sbuffer_destroy(&rep.sb);
			msgpack_sbuffer_init(&rep.sb);
		}
	}
	if (final)
		agent_link_close(&rep.link);
	pthread_mutex_unlock(&rep.cycle_lock);
}

/* Read and apply the daemon's records; close the link if it broke. */
static void rep_receive(void)
{
	pthread_mutex_lock(&rep.cycle_lock);
	if (rep.link.fd >= 0 && agent_link_receive(&rep.link) < 0) {
		agent_link_close(&rep.link);
		rep.next_connect_ns = proto_now_ns() + AGENT_RETRY_MS * MS;
	}
	pthread_mutex_unlock(&rep.cycle_lock);
}

/* Attached agent: the level asked for at attach, applied here rather than
 * inside the injected dlopen (patching takes a while). */
static void rep_attach_level(void)
{
	int level = agent_attach_take_level();

	if (level < 0)
		return;
	pthread_mutex_lock(&rep.cycle_lock);
	agent_cfg.level = level;
	agent_set_level(level);
	pthread_mutex_unlock(&rep.cycle_lock);
}

/* Attached agent: is it time to leave (asked to, or the daemon has been
 * gone longer than the grace period)?  If so and the hooks came out, true. */
static bool rep_detach_due(uint64_t now)
{
	unsigned grace = agent_attach_grace_ms();
	char err[256];
	bool asked = __atomic_exchange_n(&rep.detach_req, 0, __ATOMIC_ACQ_REL) != 0;

	if (!agent_attached())
		return false;
	if (rep.link.fd >= 0)
		rep.down_since_ns = 0;
	else if (rep.down_since_ns == 0)
		rep.down_since_ns = now;
	if (!asked && (grace == 0 || rep.down_since_ns == 0 ||
	    now - rep.down_since_ns < (uint64_t)grace * MS))
		return false;
	if (!asked)
		agent_warn("no daemon for %u ms: detaching", grace);
	pthread_mutex_lock(&rep.cycle_lock);
	if (agent_detach_begin(err, sizeof err) < 0) {
		pthread_mutex_unlock(&rep.cycle_lock);
		agent_warn("cannot detach: %s", err);
		rep.down_since_ns = 0;    /* retry after another grace period */
		return false;
	}
	pthread_mutex_unlock(&rep.cycle_lock);
	return true;
}

/* After the final report of a detach: drop the link's and the loop's
 * resources, then unload (agent_detach.c). */
static void rep_detach_finish(void)
{
	agent_link_close(&rep.link);
	free(rep.link.rbuf);
	rep.link.rbuf = NULL;
	msgpack_sbuffer_destroy(&rep.sb);
	msgpack_sbuffer_init(&rep.sb);
	if (rep.wakefd >= 0)
		close(rep.wakefd);
	rep.wakefd = -1;
	agent_detach_finish();
}

/* The thread: report every interval, on request, and once more at stop. */
static void *rep_main(void *arg)
{
	uint64_t interval = (uint64_t)agent_cfg.interval_ms * MS;
	uint64_t next = proto_now_ns() + (rep.delay_first ? interval : 0);
	uint64_t budget_next = 0;     /* the overhead budget's next tick */
	bool detach = false, gone = false;

	(void)arg;
	timing_guard_forever();
	pthread_mutex_lock(&rep.cycle_lock);
	rep.fds_private = agent_thread_begin("hookscope", rep.wakefd);
	pthread_mutex_unlock(&rep.cycle_lock);
	rep_attach_level();
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = rep.wakefd, .events = POLLIN },
			{ .fd = rep.link.fd, .events = POLLIN },
		};
		uint64_t now = proto_now_ns(), req, done;
		uint64_t due = budget_next < next ? budget_next : next;
		int timeout = due > now ? (int)((due - now + MS - 1) / MS) : 0;
		bool stop;

		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, timeout) > 0) {
			uint64_t v;

			if (pfd[0].revents & POLLIN)
				while (read(rep.wakefd, &v, sizeof v) > 0)
					;
			if (pfd[1].fd >= 0 && pfd[1].revents)
				rep_receive();
		}
		pthread_mutex_lock(&rep.lock);
		stop = rep.stop;
		req = rep.flush_req;
		done = rep.flush_done;
		pthread_mutex_unlock(&rep.lock);
		if (stop)
			break;
		now = proto_now_ns();
		if ((detach = rep_detach_due(now)))
			break;
		if (now >= budget_next) {
			pthread_mutex_lock(&rep.cycle_lock);
			budget_next = timing_budget_tick(now);
			pthread_mutex_unlock(&rep.cycle_lock);
		}
		if (req == done && now < next)
			continue;
		if ((gone = agent_program_gone()))
			break;
		rep_cycle(false, req != done);
		if (now >= next)
			next = now + interval;
		if (req != done) {
			pthread_mutex_lock(&rep.lock);
			rep.flush_done = req;
			pthread_cond_broadcast(&rep.cond);
			pthread_mutex_unlock(&rep.lock);
		}
	}
	rep_cycle(true, true);
	if (detach)
		rep_detach_finish();
	if (gone) {
		agent_log("the program's last thread has exited: exit(0), as glibc would have");
		exit(0);                      /* the destructors run here: agent_reporter_stop knows */
	}
	return NULL;
}

/* See agent.h. */
void agent_reporter_detach(void)
{
	__atomic_store_n(&rep.detach_req, 1, __ATOMIC_RELEASE);
	rep_wake();
}

/* See agent.h: start the thread with every signal blocked. */
int agent_reporter_start(bool in_child)
{
	rep.delay_first = in_child;
	if (agent_thread_start(&rep.thread, 1u << 20, 0, !in_child, rep_main, NULL) < 0) {
		agent_warn("cannot start the reporter thread: %s (nothing will be reported)",
		    strerror(errno));
		return -1;
	}
	rep.running = true;
	return 0;
}

/* See agent.h: final report and bye, then join; the caller waits at most
 * budget_ms.  Without a thread the final report is sent from here. */
void agent_reporter_stop(unsigned budget_ms)
{
	struct timespec ts;

	if (!rep.running) {
		rep_cycle(true, true);
		return;
	}
	if (pthread_equal(pthread_self(), rep.thread)) {   /* its exit(0): the last report went */
		rep.running = false;
		return;
	}
	pthread_mutex_lock(&rep.lock);
	rep.stop = true;
	pthread_cond_broadcast(&rep.cond);      /* release flush waiters */
	pthread_mutex_unlock(&rep.lock);
	rep_wake();
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += budget_ms / 1000;
	ts.tv_nsec += (long)(budget_ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	if (pthread_timedjoin_np(rep.thread, NULL, &ts) == 0)
		rep.running = false;
	else
		agent_log("reporter did not finish within %u ms at exit", budget_ms);
}

/* See agent.h: ask for a report now and wait until it went out. */
void agent_reporter_flush(unsigned timeout_ms)
{
	struct timespec ts;
	uint64_t req;

	if (!rep.running)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&rep.lock);
	req = ++rep.flush_req;
	rep_wake();
	while (rep.flush_done < req && !rep.stop &&
	    pthread_cond_timedwait(&rep.cond, &rep.lock, &ts) == 0)
		;
	pthread_mutex_unlock(&rep.lock);
}

/* fork(): hold both locks so the child gets them in a known state. */
void agent_reporter_atfork_prepare(void)
{
	pthread_mutex_lock(&rep.cycle_lock);
	pthread_mutex_lock(&rep.lock);
}

/* fork() in the parent: carry on. */
void agent_reporter_atfork_parent(void)
{
	pthread_mutex_unlock(&rep.lock);
	pthread_mutex_unlock(&rep.cycle_lock);
}

/* fork() in the child: the thread is gone and the connection is the
 * parent's; drop both (without a word on the parent's socket) and start
 * over.  The caller restarts the thread. */
void agent_reporter_atfork_child(void)
{
	pthread_mutex_unlock(&rep.lock);
	pthread_mutex_unlock(&rep.cycle_lock);
	rep_cond_init();
	if (rep.fds_private)
		agent_link_forget(&rep.link);   /* the parent thread's table: not here */
	else
		agent_link_close(&rep.link);
	rep.fds_private = false;
	msgpack_sbuffer_clear(&rep.sb);
	if (rep.wakefd >= 0)
		close(rep.wakefd);
	rep.wakefd = agent_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	rep.stop = false;
	rep.flush_req = rep.flush_done = 0;
	rep.next_connect_ns = 0;
	rep.sends_failed = 0;
	rep.running = false;
}
