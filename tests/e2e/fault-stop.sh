# fault-stop.sh - SIGSTOP of hookscoped while a target runs: the target keeps
# its pace (the agent's sends are bounded, never the target's threads), a
# connected client gets frames again after SIGCONT, and the agent's session
# goes on; then SIGKILL and a new daemon: the target is unharmed and back.
. tests/e2e/lib.sh

ticks() { grep -c '^tick' "$HS_TMP/ticks"; }
work_calls() {
	once_json --target "$tgt" | jq -e '.funcs[] | select(.name == "work") | .calls'
}
work_over() { [ "$(work_calls)" -gt "$1" ]; }
live() { once_json --target "$tgt" | jq -e ".targets[] | select(.pid == $tgt) | .state == \"live\"" >/dev/null; }
frames() { grep -c '"t":"frame"' "$HS_TMP/client"; }

start_daemon
spawn env LD_PRELOAD="$HS_PRELOAD" HOOKSCOPE_SOCKET="$HS_SOCK" HOOKSCOPE_LEVEL=4 "$O/apps/faulty" tick 10 >"$HS_TMP/ticks"
tgt=$SPAWNED
wait_for 20 work_over 20
"$O/tools/hs-wsclient" -p "$HS_PORT" -n 100000 -t 40 >"$HS_TMP/client" 2>&1 &
client=$!
HS_PIDS="$HS_PIDS $client"
wait_for 10 grep -q '"t":"frame"' "$HS_TMP/client"

# Stopped for 4 s: the target ticks on at about its pace (100/s).
kill -STOP "$DAEMON_PID"
t0=$(ticks)
stop_at=$(date +%s%N)
wait_for 20 sh -c "[ \$(( \$(date +%s%N) - $stop_at )) -ge 4000000000 ]"
t1=$(ticks)
[ $((t1 - t0)) -ge 200 ] || fail "target ticked $((t1 - t0)) times in 4 s with the daemon stopped (want >= 200 of 400)"
stopped_ticks=$((t1 - t0))
state=$(awk '{print $3}' "/proc/$tgt/stat")
case $state in R|S) ;; *) fail "target in state $state while the daemon is stopped" ;; esac
frames_before=$(frames)

kill -CONT "$DAEMON_PID"
wait_for 20 work_calls
c1=$(work_calls) || fail "no work row after SIGCONT: $(once_json --target $tgt)"
wait_for 20 sh -c "[ \$(grep -c '\"t\":\"frame\"' '$HS_TMP/client') -gt $((frames_before + 5)) ]"
wait_for 20 live
wait_for 20 work_over $((c1 + 50))
kill -0 "$client" || fail "the client died while the daemon was stopped"

# SIGKILL: the target goes on; a new daemon gets it back with its counts.
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=""
t0=$(ticks)
wait_for 10 sh -c "[ \$(grep -c '^tick' '$HS_TMP/ticks') -gt $((t0 + 100)) ]"
start_daemon
wait_for 20 work_over "$c1"
kill -0 "$tgt" || fail "target died"
echo "ok: target ticked $stopped_ticks times in 4 s of SIGSTOP, client resumed after SIGCONT, target survived SIGKILL and came back"
