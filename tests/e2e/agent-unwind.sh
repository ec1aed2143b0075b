# agent-unwind.sh - the agent takes stacks with libgcc_s's unwinder only,
# whatever the program links.  libunwind's local unwinder checks addresses
# through a pipe it opens once per process, whose numbers hold only in the
# descriptor table it was opened in: on an agent thread (a table of its own)
# they name the agent's own daemon socket, after the program reused them the
# program's files.  In a program linking libunwind (Debian's perf) the
# agent's backtrace() was libunwind's: its reporter, creating a thread,
# blocked reading its own socket while holding its lock, and perf's next
# fork() waited on that lock for good.
# 1. the agent's objects call neither backtrace() (which binds to
#    libunwind's where the program links it) nor libunwind's local unwinder,
#    but in memory_stack.c (program threads only, for its speed);
# 2. Debian's perf (checked to link libunwind) records Debian's python3
#    starting 4 threads (at 20 kHz, where an agent walking with libunwind hung
#    it every time), under `hookscoped run --level 2` with a harvest every
#    10 ms, 3 times: every run ends with exit status 0 and writes its data,
#    and the agent in python3 took the threads' creating stack through the
#    timed calls (its first frame PyThread_start_new_thread, the first three
#    in python3).
. tests/e2e/lib.sh
command -v jq >/dev/null || fail "jq is not installed (a test dependency: make deps)"
command -v perf >/dev/null || fail "perf is not installed (a test dependency: make deps)"
PERF=$(readlink -f "$(command -v perf)")
# Debian's /usr/bin/perf is a wrapper script naming the kernel's perf binary.
[ -x "$PERF" ] && head -c 4 "$PERF" | grep -q ELF ||
	PERF=$(ls /usr/bin/perf_* /usr/lib/linux-tools*/perf 2>/dev/null | head -1)
ldd "$PERF" | grep -q "libunwind" || fail "$PERF does not link libunwind: this test needs a program that does"

callers=$(nm -A "$O"/obj/collectors/*/*.o "$O"/obj/collectors/engine/*/*.o 2>/dev/null |
	grep -E ' U (backtrace|unw_backtrace|_UL[a-z0-9]+_[a-z_]+)$' | sed 's|.*/||; s|: .* U | |' | sort -u)
[ -n "$callers" ] || fail "no agent objects under $O/obj/collectors (build first)"
[ "$callers" = "memory_stack.o unw_backtrace" ] ||
	fail "the agent calls backtrace() or libunwind's local unwinder beyond memory_stack.c: $(echo $callers)"

export HOOKSCOPE_INTERVAL_MS=10
# perf and python3 are not ours: a sanitized agent's runtime would report
# their own leaks at exit (and change their exit status).
[ -n "$HS_SAN_RT" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
for run in 1 2 3; do
	rm -f "$HS_TMP/perf.data"
	start_daemon run --level 2 -- perf record -q -o "$HS_TMP/perf.data" -e cpu-clock -F 20000 -- \
		/usr/bin/python3 -c 'import threading, time
ts = [threading.Thread(target=time.sleep, args=(0.01,)) for i in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
time.sleep(0.3)'
	wait_for 20 jq_once '[.targets[] | select(.name == "perf")] | length == 1'
	perf_pid=$(once_json | jq -e '[.targets[] | select(.name == "perf")][0].pid') || fail "perf is not among the targets"
	wait_for 60 grep -q "target pid $perf_pid ended" "$HS_TMP/daemon.log"
	grep -q "target pid $perf_pid ended: exit status 0" "$HS_TMP/daemon.log" ||
		fail "run $run: perf under the agent: $(grep "pid $perf_pid ended" "$HS_TMP/daemon.log")"
	[ -s "$HS_TMP/perf.data" ] || fail "run $run: perf wrote no data"
	[ $run = 3 ] || stop_daemon
done
unset HOOKSCOPE_INTERVAL_MS
wait_for 20 jq_once '[.targets[] | select(.name == "python3" and .state == "exited")] | length == 1'
pid=$(once_json | jq -e '[.targets[] | select(.name == "python3")][-1].pid') ||
	fail "the daemon saw no python3: $(once_json | jq -c '[.targets[] | {name, state}]')"
"$O/hookscope" -t 10 "ws://127.0.0.1:$HS_PORT" --target "$pid" --dump - --format json >"$HS_TMP/r.json" ||
	fail "no report of python3 ($pid)"
jq -e '.sessions[0].threads.sites | map(select(.created == 4))[0].stack |
	.[0].name == "PyThread_start_new_thread" and length >= 3 and (.[0:3] | all(.module == "python3.11"))' \
	"$HS_TMP/r.json" >/dev/null ||
	fail "python3's thread-creation stack was not taken: $(jq -c '.sessions[0].threads.sites' "$HS_TMP/r.json" | cut -c1-600)"
echo "perf (linking libunwind) recorded python3 starting 4 threads 3 times under the agent: every run ended with status 0; python3's creating stack: $(jq -r '[.sessions[0].threads.sites | map(select(.created == 4))[0].stack[].name] | map(select(. != "")) | join(" < ")' "$HS_TMP/r.json" | cut -c1-200)"
