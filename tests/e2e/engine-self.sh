# engine-self.sh - the hook engine (on by default) at
# level 4 inside our own -O2 programs: hookscoped and hookscope are plain
# builds with hundreds of functions (lws and msgpack callbacks, static
# helpers gcc optimizes across with -fipa-ra), so every register the stubs
# could disturb is in use somewhere.  The daemon serves the demo, and five
# TUI snapshots (each patched too) must read sane frames from it.
. tests/e2e/lib.sh

E="env HOOKSCOPE_SOCKET=$HS_TMP/none.sock HOOKSCOPE_LEVEL=4 LD_PRELOAD=$HS_PRELOAD"
mkdir -p "$HS_TMP/reports"
spawn $E "$O/hookscoped" --port "$HS_PORT" --socket "$HS_SOCK" --report-dir "$HS_TMP/reports" \
	run -- "$O/apps/demo" --period-ms 10 >>"$HS_TMP/daemon.log" 2>&1
DAEMON_PID=$SPAWNED
wait_for 20 port_listening "$HS_PORT"
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work" and .calls > 3)'
for i in 1 2 3 4 5; do
	$E "$O/hookscope" --once --json --top 5 "ws://127.0.0.1:$HS_PORT" >"$HS_TMP/o.json" ||
		fail "hookscope --once under the engine failed"
	jq -e '[.funcs[].name] | index("slow_work") != null' "$HS_TMP/o.json" >/dev/null ||
		fail "hookscope under the engine read a bad frame: $(cat "$HS_TMP/o.json")"
done
$E "$O/hookscope" --cmd "level 1" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "level 1 was refused"
wait_for 10 jq_once '.targets[0].level == 1'
kill -0 "$DAEMON_PID" 2>/dev/null || fail "hookscoped died under the engine"
echo "ok: hookscoped and hookscope run patched at level 4 and serve/read frames"
