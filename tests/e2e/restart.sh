# restart.sh - SIGKILL of hookscoped leaves the demo running normally; a new
# hookscoped on the same socket gets the demo back without restarting it.
. tests/e2e/lib.sh

calls_of() {   # function name -> its call count in a fresh frame
	once_json --top 200 | jq -e --arg n "$1" '.funcs[] | select(.name == $n) | .calls'
}

start_daemon run -- "$O/apps/demo" --period-ms 20
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work" and .calls > 5)'
demo=$(once_json | jq -e '.pid') || fail "no target pid"
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=""
HS_PIDS="$HS_PIDS $demo"     # the orphaned demo is ours to stop at the end

# The demo goes on: it keeps using CPU and stays in a normal state.
t0=$(awk '{print $14 + $15}' "/proc/$demo/stat")
sleep_until=$(( $(date +%s) + 1 ))
wait_for 10 sh -c "[ \$(date +%s) -gt $sleep_until ] && [ \$(awk '{print \$14 + \$15}' /proc/$demo/stat) -gt $t0 ]"
state=$(awk '{print $3}' "/proc/$demo/stat")
case $state in R|S) ;; *) fail "demo is in state $state after the daemon died" ;; esac

# A new daemon on the same socket (the old one left it behind): the agent comes back.
start_daemon
wait_for 20 jq_once ".pid == $demo and .targets[0].state == \"live\""
c1=$(calls_of slow_work) || fail "slow_work missing after the restart"
wait_for 10 sh -c "[ \$(\"$O/hookscope\" --once --json --top 200 ws://127.0.0.1:$HS_PORT | jq '.funcs[] | select(.name == \"slow_work\") | .calls') -gt $((c1 + 10)) ]"
# Counts carry on from before the kill: the agent's figures are cumulative.
[ "$c1" -gt 5 ] || fail "counts restarted from zero ($c1)"
kill -0 "$demo" || fail "demo died"
echo "ok: demo $demo survived SIGKILL of hookscoped and came back (slow_work at $c1 and counting)"
