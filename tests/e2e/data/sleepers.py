# sleepers.py sleep SECONDS: a worker thread runs a call-heavy loop (so the
# overhead budget demotes functions and opens sampling windows) while the
# main thread sleeps through libc's calls that a signal ends early with
# EINTR: usleep, nanosleep, poll, select, epoll_wait, and pause under a
# 30 ms interval timer (a pause the timer did not end returns with its
# handler not run).  Prints "calls N eintr K early P" (P: pauses that
# returned before their timer fired).
# sleepers.py wake SECONDS: six threads each sleep 0-2 ms and wake to run
# 200 dictionary updates, over and over (threads wake while entries are
# written); prints "sums S" (each thread's total: a multiple of 200).
import ctypes, random, select, signal, sys, threading, time

libc = ctypes.CDLL(None, use_errno=True)
EINTR = 4


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class Timeval(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long)]


stop = False


def work():
    d, i = {}, 0
    while not stop:
        k = str(i % 5000)
        d[k] = d.get(k, 0) + i
        i += 1


ep = select.epoll()
fired = []
signal.signal(signal.SIGALRM, lambda *a: fired.append(1))


def pause_30ms():
    n = len(fired)
    signal.setitimer(signal.ITIMER_REAL, 0.03)
    signal.pause()
    return 0 if len(fired) > n else -2     # -2: ended before the timer


sleeps = [
    lambda: libc.usleep(30000),
    lambda: libc.nanosleep(ctypes.byref(Timespec(0, 30000000)), None),
    lambda: libc.poll(None, 0, 30),
    lambda: libc.select(0, None, None, None, ctypes.byref(Timeval(0, 30000))),
    lambda: libc.epoll_wait(ep.fileno(), ctypes.byref(ctypes.c_uint64()), 1, 30),
    pause_30ms,
]
def waker(k, end, sums):
    d, i, r = {}, 0, random.Random(k)
    while time.monotonic() < end:
        libc.usleep(r.randrange(0, 2000))
        for _ in range(200):
            s = str(i % 997)
            d[s] = d.get(s, 0) + 1
            i += 1
    sums[k] = sum(d.values())


if sys.argv[1] == "wake":
    sums = [0] * 6
    end = time.monotonic() + float(sys.argv[2])
    ts = [threading.Thread(target=waker, args=(k, end, sums)) for k in range(6)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    print("sums", *sums)
    sys.exit(0)
threading.Thread(target=work, daemon=True).start()
calls = eintr = early = 0
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    for f in sleeps:
        ctypes.set_errno(0)
        r = f()
        calls += 1
        if r == -2:
            early += 1
        elif r < 0 and ctypes.get_errno() == EINTR:
            eintr += 1
stop = True
print("calls", calls, "eintr", eintr, "early", early)
