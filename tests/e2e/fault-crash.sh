# fault-crash.sh - one target crashes (SIGSEGV) and another forks children
# that exec, _exit, and exit() from a second thread mid-report, all on one
# daemon: the daemon keeps serving, the untouched target stays live and
# counting, and the ended targets keep their final figures.
. tests/e2e/lib.sh

calls() {   # PID FUNC -> calls of FUNC in PID's session
	once_json --target "$1" --top 100 | jq -e --arg f "$2" '.funcs[] | select(.name == $f) | .calls'
}
state() {   # PID -> its session state
	once_json --target "$1" | jq -r --argjson p "$1" '.targets[] | select(.pid == $p) | .state'
}
is_state() { [ "$(state "$1")" = "$2" ]; }
calls_over() { [ "$(calls "$1" "$2")" -gt "$3" ]; }
# Always run in the background (a subshell): exec keeps its pid.
faulty() { exec env LD_PRELOAD="$HS_PRELOAD" HOOKSCOPE_SOCKET="$HS_SOCK" HOOKSCOPE_LEVEL=4 "$O/apps/faulty" "$@"; }

start_daemon
spawn faulty tick 20 >/dev/null
steady=$SPAWNED
wait_for 20 calls "$steady" work

# The crash: a SIGSEGV after 1.5 s of work (a sanitizer must let it through).
ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:handle_segv=0" \
	TSAN_OPTIONS="${TSAN_OPTIONS:-}:handle_segv=0" \
	faulty crash 1500 >/dev/null 2>&1 &
crasher=$!
wait "$crasher"
rc=$?
[ $rc -eq 139 ] || fail "the crasher exited $rc (want 139, SIGSEGV)"
# Its session ends (the agent never said bye: lost, then exited) and keeps
# the figures it had: work was called about 75 times (every 20 ms).
wait_for 10 is_state "$crasher" exited
n=$(calls "$crasher" work) || fail "the crashed target's figures are gone"
[ "$n" -ge 30 ] || fail "the crashed target shows $n calls of work (want >= 30)"

# fork + exec, fork + _exit, fork + exit() from a thread, 20 rounds.
# ThreadSanitizer does not support threads after a multi-threaded fork
# ("dup thread with used id"): the plain and ASan builds run this part.
if [ "${SAN:-}" = tsan ]; then
	echo "  (fork part not run under ThreadSanitizer: TSan cannot follow threads after fork)"
	forker=""
else
	# (LeakSanitizer cannot stop the threads of a child that exits from a thread.)
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" faulty forks 20 >"$HS_TMP/forks" 2>&1 &
	forker=$!
	wait "$forker" || fail "faulty forks failed: $(cat "$HS_TMP/forks")"
	grep -q 'forks: done' "$HS_TMP/forks" || fail "faulty forks: $(cat "$HS_TMP/forks")"
	# The parent called work once per round: final figures, exact.
	wait_for 10 is_state "$forker" exited
	n=$(calls "$forker" work) || fail "the forker's figures are gone"
	[ "$n" -eq 20 ] || fail "the forker's final figures: work called $n times (want 20)"
	[ "$(calls "$forker" mode_forks)" -eq 1 ] || fail "mode_forks not counted once"

fi
kill -0 "$DAEMON_PID" || fail "hookscoped died"
c=$(calls "$steady" work)
wait_for 10 calls_over "$steady" work $((c + 10))
[ "$(state "$steady")" = live ] || fail "the steady target is not live"
sessions=$(once_json | jq '.targets | length')
echo "ok: crash (139) kept $(calls "$crasher" work) calls; forker ${forker:+exact (20)}${forker:-not run}; steady target live; $sessions sessions"
