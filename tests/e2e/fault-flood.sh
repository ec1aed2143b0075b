# fault-flood.sh - an agent floods the daemon with records (10000 functions
# in records of 4096 as the agent sends them, back to back, for 8 s) next to
# a real target: the daemon's
# memory stays bounded, the real target's session stays current, clients
# keep getting frames; the flooder is slowed by the socket (backpressure),
# not buffered.  Then a target that overflows the agent's own limits
# (recursion deeper than its shadow stack): the events it could not time are
# counted as dropped and shown in the frame and the TUI.
. tests/e2e/lib.sh
# Memory is measured: a sanitized daemon keeps freed blocks in a quarantine
# (256 MiB by default), which is the sanitizer's memory, not the daemon's.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=4:thread_local_quarantine_size_kb=64"
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$DAEMON_PID/status"; }
age_ok() {   # the demo's figures are fresh
	once_json --target "$demo" | jq -e '.agent_age_ms < 1500' >/dev/null
}

start_daemon run -- "$O/apps/demo" --period-ms 20
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work")'
demo=$(once_json | jq -e .pid) || fail "no target"
"$O/tools/hs-wsclient" -p "$HS_PORT" -n 100000 -t 12 >"$HS_TMP/bystander" 2>&1 &
HS_PIDS="$HS_PIDS $!"

base=$(rss_kb)
"$O/tools/hs-fakeagent" --socket "$HS_SOCK" --pid 999980 --funcs 10000 --report-hz 100000 \
	--duration 8 >/dev/null 2>&1 &
flood=$!
HS_PIDS="$HS_PIDS $flood"
max=$base
stale=0
for i in $(seq 1 8); do
	sleep 1
	r=$(rss_kb)
	[ "$r" -gt "$max" ] && max=$r
	age_ok || stale=$((stale + 1))
done
wait "$flood" || fail "the flooding agent failed"
kill -0 "$DAEMON_PID" || fail "hookscoped died under the flood"
# (ThreadSanitizer's shadow memory is several times the heap it shadows.)
limit=32768
[ "${SAN:-}" = tsan ] && limit=$((limit * 4))
[ $((max - base)) -lt $limit ] || fail "daemon RSS grew by $(( (max - base) / 1024 )) MiB under the flood"
[ "$stale" -le 1 ] || fail "the demo's figures were stale in $stale of 8 samples during the flood"
jq_once '.targets[] | select(.pid == 999980)' >/dev/null || fail "the flooder has no session"
n=$(once_json --target 999980 --top 10 | jq '.nfuncs_seen')
[ "$n" -eq 10000 ] || fail "the flooder's session has $n functions (want 10000)"
frames=$(grep -c '"t":"frame"' "$HS_TMP/bystander")
want=60
[ -n "${SAN:-}" ] && want=30    # a sanitized daemon under a flood is slower
[ "$frames" -ge $want ] || fail "the bystander got $frames frames in ~12 s (want >= $want at 10/s)"

# Drops: recursion 5000 deep passes the agent's shadow stack.
env LD_PRELOAD="$HS_PRELOAD" HOOKSCOPE_SOCKET="$HS_SOCK" HOOKSCOPE_LEVEL=4 \
	"$O/apps/faulty" stress 8 >"$HS_TMP/stress" 2>&1 &
deep=$!
wait "$deep" || fail "faulty stress failed: $(cat "$HS_TMP/stress")"
wait_for 10 sh -c "'$O/hookscope' --once --json --target $deep ws://127.0.0.1:$HS_PORT | jq -e '.dropped > 0'"
dropped=$(once_json --target "$deep" | jq .dropped)
calls=$(once_json --target "$deep" --top 100 | jq '.funcs[] | select(.name == "recurse") | .calls')
# 8 threads x 21 + 5001 calls, plus those of the signal handler: timed or dropped.
[ $((calls + dropped)) -ge $((8 * 21 + 5001)) ] || fail "recurse: $calls timed + $dropped dropped < $((8 * 21 + 5001))"
"$O/hookscope" --once --target "$deep" "ws://127.0.0.1:$HS_PORT" | grep -q "$dropped dropped" ||
	fail "the dropped count is not shown in the table output"
echo "ok: flood of 10000-function records: daemon RSS +$(( (max - base) / 1024 )) MiB, demo fresh, $frames frames to a bystander; $dropped events dropped and shown"
