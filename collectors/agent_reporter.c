/*
 * agent_reporter.c - the agent's own thread ("hookscope"): every interval it
 * harvests the collectors and sends what changed; between intervals it
 * sleeps in poll() on the daemon socket (commands apply at once) and on an
 * eventfd (flush and stop requests).  It never runs target code: its TLS
 * guard is set for good, and it blocks every signal.
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
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "hook.h"
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

	int               wakefd;         /* eventfd: flush or stop requested */
	pthread_t         thread;
	bool              running;        /* thread started and not joined */
	bool              delay_first;    /* first report after one interval */
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
	rep.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return rep.wakefd < 0 ? -1 : 0;
}

/* Wake the thread (a flush or a stop is pending). */
static void rep_wake(void)
{
	uint64_t one = 1;

	if (write(rep.wakefd, &one, sizeof one) < 0 && errno != EAGAIN)
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

/* The thread: report every interval, on request, and once more at stop. */
static void *rep_main(void *arg)
{
	uint64_t interval = (uint64_t)agent_cfg.interval_ms * MS;
	uint64_t next = proto_now_ns() + (rep.delay_first ? interval : 0);

	(void)arg;
	timing_guard_forever();
	hook_stop_exempt();     /* never runs target code; blocks the stop signal */
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = rep.wakefd, .events = POLLIN },
			{ .fd = rep.link.fd, .events = POLLIN },
		};
		uint64_t now = proto_now_ns(), req, done;
		int timeout = next > now ? (int)((next - now + MS - 1) / MS) : 0;
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
		if (req == done && now < next)
			continue;
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
	return NULL;
}

/* See agent.h: start the thread with every signal blocked. */
int agent_reporter_start(bool delay_first)
{
	sigset_t all, old;
	pthread_attr_t attr;
	int err;

	rep.delay_first = delay_first;
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 1u << 20);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&rep.thread, &attr, rep_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err != 0) {
		agent_warn("cannot start the reporter thread: %s (nothing will be reported)",
		    strerror(err));
		return -1;
	}
	pthread_setname_np(rep.thread, "hookscope");
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
	agent_link_close(&rep.link);
	msgpack_sbuffer_clear(&rep.sb);
	if (rep.wakefd >= 0)
		close(rep.wakefd);
	rep.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rep.stop = false;
	rep.flush_req = rep.flush_done = 0;
	rep.next_connect_ns = 0;
	rep.sends_failed = 0;
	rep.running = false;
}
