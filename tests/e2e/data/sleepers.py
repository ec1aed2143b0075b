# sleepers.py sleep SECONDS: a worker thread runs a call-heavy loop (so the
# overhead budget demotes functions and opens sampling windows) while the
# main thread sleeps through libc's calls that a signal ends early with
# EINTR: usleep, nanosleep, poll, select, epoll_wait, and sigsuspend under
# a 30 ms interval timer (one that another signal ended returns with the
# timer still running).  Prints "calls N eintr K early P" (P: suspends
# that returned before their timer fired).
# sleepers.py load SECONDS LIB: the same sleeps, while a thread loads LIB
# (a library of the program's own, so the agent patches it at each load),
# calls its dl_many 100 times and unloads it, over and over.
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
no_signals = ctypes.create_string_buffer(128)      # an empty sigset_t
signal.signal(signal.SIGALRM, lambda *a: None)
# SIGALRM only ever reaches the main thread inside sigsuspend (threads
# started later inherit the mask): a pause that could miss its signal, or
# see it taken by another thread, would wait for ever.
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])


def suspend_30ms():
    signal.setitimer(signal.ITIMER_REAL, 0.03)
    libc.sigsuspend(no_signals)             # always -1, EINTR
    if signal.setitimer(signal.ITIMER_REAL, 0)[0] == 0:
        return 0
    if signal.SIGALRM in signal.sigpending():   # fired since: not the next one's
        signal.sigwait([signal.SIGALRM])
    return -2                               # ended before its timer


sleeps = [
    lambda: libc.usleep(30000),
    lambda: libc.nanosleep(ctypes.byref(Timespec(0, 30000000)), None),
    lambda: libc.poll(None, 0, 30),
    lambda: libc.select(0, None, None, None, ctypes.byref(Timeval(0, 30000))),
    lambda: libc.epoll_wait(ep.fileno(), ctypes.byref(ctypes.c_uint64()), 1, 30),
    suspend_30ms,
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
def load(path):
    import _ctypes
    while not stop:
        lib = ctypes.CDLL(path)
        for i in range(100):
            lib.dl_many(ctypes.c_long(i))
        _ctypes.dlclose(lib._handle)


threading.Thread(target=load if sys.argv[1] == "load" else work, args=sys.argv[3:],
                 daemon=True).start()
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
