# threads-count.sh - the threads collector counts what the kernel sees.
#   1. build/apps/threads (per-task threads, a hand-written pool, detached,
#      C11, a leaked thread, idle ones): hookscope's created count equals the
#      clone(CLONE_THREAD) calls strace -f sees in an identical run and the
#      program's own count; at the "ready" moment the live count (+ the
#      agent's own threads + those of unknown origin) equals /proc/PID/task;
#      start routines and creation sites are named; states are right.
#   2. Debian's xz -T2 compressing a generated file: created equals strace's
#      clone(CLONE_THREAD) count; while xz waits on its input (a FIFO held
#      open) the live count matches /proc/PID/task and each thread's CPU time
#      the kernel's (schedstat).
. tests/e2e/lib.sh
command -v strace >/dev/null || fail "strace is not installed (a test dependency: make deps)"
command -v xz >/dev/null || fail "xz is not installed (xz-utils, a test dependency: make deps)"

# clone(CLONE_THREAD) calls of CMD... under strace -f (clone and clone3).
# (LeakSanitizer cannot run under a tracer: off for this run.)
strace_threads() {
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
	strace -f -qq -e trace=clone,clone3 -o "$HS_TMP/strace.out" "$@" >/dev/null 2>&1 ||
		fail "strace $* failed"
	grep -c 'CLONE_THREAD' "$HS_TMP/strace.out"
}

# Threads the kernel lists for pid $1.
tasks_of() { ls "/proc/$1/task" | wc -l; }

# The threading figure $2 of target $1.
thr() { once_json --target "$1" | jq -r ".threading.$2"; }

# 1. the test program.  Under a sanitizer runtime no start routine names are
# checked (HS_SAN_THREADS, lib.sh: counts and states are).  Under
# ThreadSanitizer (make SAN=tsan) also no C11 threads (gcc 12's libtsan does
# not intercept thrd_create: a thread it did not see start crashes in its
# first instrumented function, with or without the agent), no report of the
# thread leaked on purpose, and libtsan's own background thread is one more
# clone for strace.
c11=2 c11_fn=c11_main rt_threads=0
case ${HS_SAN_RT:-} in
*tsan*)
	c11=0 c11_fn="" rt_threads=1
	export TSAN_OPTIONS="${TSAN_OPTIONS:-}:report_thread_leaks=0" ;;
esac
args="--tasks 5 --pool 3 --pool-tasks 60 --detached 2 --c11 $c11 --leak --idle 2"
start_daemon run -- "$O/apps/threads" $args --wait-file "$HS_TMP/go"
wait_for 20 grep -q "threads: ready" "$HS_TMP/daemon.log"
# The program can say it is ready before its agent's hello reaches the daemon.
wait_for 20 jq_once '[.targets[] | select(.name == "threads")] | length == 1'
pid=$(once_json | jq -e '[.targets[] | select(.name == "threads")][0].pid') || fail "no threads target"
wait_for 10 jq_once ".threading.created == $((13 + c11)) and .threading.exited == $((11 + c11))" --target "$pid"
live=$(thr "$pid" "live + .threading.agent_live + .threading.other_live")
kernel=$(tasks_of "$pid")
echo "threads app at ready: hookscope live $(thr "$pid" live) + agent $(thr "$pid" agent_live) + unknown $(thr "$pid" other_live) = $live, /proc/$pid/task $kernel"
[ "$live" = "$kernel" ] || fail "hookscope counts $live live threads, the kernel $kernel"
[ "$(thr "$pid" other_live)" = 0 ] || fail "threads of unknown origin in a program started under the agent"
once_json --target "$pid" >"$HS_TMP/f.json"
if [ -z "$HS_SAN_THREADS" ]; then
	for fn in task_main pool_worker detached_main $c11_fn leaked_main idle_main; do
		jq -e --arg f "$fn" '.threading.sites[] | select(.start.name == $f)' "$HS_TMP/f.json" >/dev/null ||
			fail "no creation site with start routine $fn"
	done
	jq -e '.threading.sites[] | select(.start.name == "pool_worker") | .created == 3 and
		.stack[0].name == "make" and .stack[1].name == "run_pool" and .stack[2].name == "main"' \
		"$HS_TMP/f.json" >/dev/null || fail "the pool's creation site is not make <- run_pool <- main"
fi
jq -e '[.threading.threads[] | select(.name | startswith("pool-"))] | length == 3' \
	"$HS_TMP/f.json" >/dev/null || fail "pthread_setname_np names missing"
jq -e '[.threading.threads[] | select(.name | startswith("idle-")) | .state] == ["running","running"]' \
	"$HS_TMP/f.json" >/dev/null || fail "prctl(PR_SET_NAME) names or idle states wrong"
jq -e '[.threading.threads[] | select(.state == "exited")] | length == 2' "$HS_TMP/f.json" \
	>/dev/null || fail "the 2 detached threads are not exited"
wait_for 10 jq_once '[.threading.threads[] | select(.state == "leaked")] | length == 1' --target "$pid"
touch "$HS_TMP/go"
wait_for 20 grep -q "threads: created $((13 + c11))" "$HS_TMP/daemon.log"
wait_for 20 jq_once ".targets[] | select(.pid == $pid) | .state == \"exited\""
created=$(thr "$pid" created)
traced=$(strace_threads "$O/apps/threads" $args --wait-file /dev/null)
echo "threads app: hookscope created $created, strace clone(CLONE_THREAD) $traced"
[ "$((created + rt_threads))" = "$traced" ] ||
	fail "hookscope says $created threads were created (+$rt_threads of the sanitizer), strace saw $traced"
stop_daemon

# 2. xz -T2 on a generated file (compressible, several blocks).
head -c 3000000 /dev/urandom | od -An -tx1 >"$HS_TMP/data.txt"
mkfifo "$HS_TMP/in"
start_daemon
HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD xz -T2 --block-size=1MiB -c \
	<"$HS_TMP/in" >"$HS_TMP/out.xz" &
xzpid=$!
HS_PIDS="$HS_PIDS $xzpid"
exec 3>"$HS_TMP/in"
head -c 4000000 "$HS_TMP/data.txt" >&3          # some blocks; xz then waits for more
wait_for 20 jq_once ".threading.created >= 2" --target "$xzpid"
sleep 0.5
wait_for 10 sh -c "[ \$('$O/hookscope' --once --json --target $xzpid ws://127.0.0.1:$HS_PORT |
	jq '.threading.live + .threading.agent_live + .threading.other_live') = \$(ls /proc/$xzpid/task | wc -l) ]"
echo "xz while waiting for input: hookscope live $(thr "$xzpid" live) + agent $(thr "$xzpid" agent_live) + unknown $(thr "$xzpid" other_live), /proc/$xzpid/task $(tasks_of "$xzpid")"
# Each of xz's threads, idle now, has the CPU time the kernel counts for it
# (its schedstat's run time, in ns: within a millisecond).
sleep 0.3                                        # a harvest after the last work
once_json --target "$xzpid" >"$HS_TMP/xz.json"
jq -r '.threading.threads[] | select(.state == "running" and (.name | startswith("hookscope") | not)) |
	"\(.tid) \(.cpu_ns)"' "$HS_TMP/xz.json" >"$HS_TMP/xz.cpu"
[ -s "$HS_TMP/xz.cpu" ] || fail "xz: no running thread listed"
busy=0
while read -r tid ns; do
	[ -r "/proc/$xzpid/task/$tid/schedstat" ] || fail "no /proc/$xzpid/task/$tid/schedstat (CONFIG_SCHED_INFO)"
	kern=$(cut -d' ' -f1 "/proc/$xzpid/task/$tid/schedstat")
	echo "xz thread $tid: hookscope cpu $((ns / 1000)) us, schedstat $((kern / 1000)) us"
	d=$((ns - kern)); [ "$d" -lt 0 ] && d=$((-d))
	[ "$d" -le 1000000 ] || fail "xz thread $tid: hookscope says $ns ns of CPU, the kernel $kern"
	[ "$ns" -ge 100000000 ] && busy=$((busy + 1))
done <"$HS_TMP/xz.cpu"
[ "$busy" -ge 1 ] || fail "xz: no thread with 100 ms of CPU after compressing 4 MB"
tail -c +4000001 "$HS_TMP/data.txt" >&3
exec 3>&-
wait "$xzpid" || fail "xz failed"
wait_for 10 jq_once ".targets[] | select(.pid == $xzpid) | .state == \"exited\""
created=$(thr "$xzpid" created)
traced=$(strace_threads sh -c "xz -T2 --block-size=1MiB -c <'$HS_TMP/data.txt' >/dev/null")
echo "xz -T2: hookscope created $created, strace clone(CLONE_THREAD) $traced"
[ "$created" = "$traced" ] || fail "xz: hookscope says $created threads were created, strace saw $traced"
stop_daemon
echo "ok"
