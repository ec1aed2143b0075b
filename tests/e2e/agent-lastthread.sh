# agent-lastthread.sh - a process whose last thread exits ends, as it does
# without the agent: glibc's last thread calls exit(0), and the agent's own
# threads (which count) must not keep it alive.  tests/e2e/data/lastthread.c:
# main calling pthread_exit with a thread still running, and a thread that
# forks and returns in the child; then Debian's python3 doing the latter
# through its threading module (CPython's own test_threading
# test_main_thread_after_fork_from_nonmain_thread hung under the agent:
# the child stayed, a zombie leader and the agent's threads).  Each under a
# daemon at level 2: it must end within 5 s with status 0 and its output.
. tests/e2e/lib.sh
[ -x /usr/bin/python3 ] || fail "/usr/bin/python3 is missing: apt-get install python3"

cc -O2 -g -pthread -o "$HS_TMP/lastthread" tests/e2e/data/lastthread.c || fail "cannot build lastthread.c"
start_daemon
export HOOKSCOPE_LEVEL=2 HOOKSCOPE_SOCKET=$HS_SOCK
# A sanitizer build preloads its runtime into these programs: its leak check
# at their exit cannot suspend the zombie leader ("False leaks are
# possible"), and python3 leaks at exit by design.
[ -n "$HS_SAN_RT" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

# ends PROG...: run it preloaded; it must end within 5 s; its output in $HS_TMP/out
ends() {
	rm -f "$HS_TMP/rc"
	(LD_PRELOAD=$HS_PRELOAD "$@" >"$HS_TMP/out" 2>&1; echo $? >"$HS_TMP/rc") &
	wait_until 5 test -s "$HS_TMP/rc" || {
		pkill -KILL -f "$1" 2>/dev/null
		fail "$* did not end within 5 s (output: $(tr '\n' ' ' <"$HS_TMP/out"))"
	}
	[ "$(cat "$HS_TMP/rc")" = 0 ] || fail "$* ended with status $(cat "$HS_TMP/rc"): $(tr '\n' ' ' <"$HS_TMP/out")"
}

ends "$HS_TMP/lastthread" main
grep -qx "thread done" "$HS_TMP/out" || fail "main's thread did not finish: $(cat "$HS_TMP/out")"
ends "$HS_TMP/lastthread" fork
grep -qx "child done" "$HS_TMP/out" && grep -qx "child status 0" "$HS_TMP/out" ||
	fail "the fork child did not end by itself: $(tr '\n' ' ' <"$HS_TMP/out")"
echo "ok: pthread_exit in main and a fork child's returning thread end the process"

ends /usr/bin/python3 -c '
import os, sys, threading
def func():
    pid = os.fork()
    if pid == 0:
        main = threading.main_thread()
        print(main.name)      # the forking thread: the main one of the child
        print(main.ident == threading.current_thread().ident)
        sys.stdout.flush()
    else:
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
th = threading.Thread(target=func)
th.start()
th.join()
'
[ "$(tr '\n' ' ' <"$HS_TMP/out")" = "Thread-1 (func) True child 0 " ] ||
	fail "python3's fork from a thread: $(tr '\n' ' ' <"$HS_TMP/out")"
echo "ok: python3 forking in a thread: the child ends with status 0"
