# tui-ipc.sh - the IPC panel of the interactive hookscope in tmux, with the
# demo's IPC scenario (demo --ipc: the main thread, the UI thread, asks a
# forked helper over the unix socket @hookscope-demo-PID ten times a second;
# every 4th answer takes 250 ms).  The JSON snapshot has the endpoint with
# its peer process and slow calls flagged UI with demo_ipc_fetch_settings on
# the stack; 5 shows the IPC view (the endpoint row flagged UI, its slow
# count); Enter shows the slow calls with the stack; :threshold ipc 300
# makes the 250 ms answers no longer slow; 1 goes back to the functions.
. tests/e2e/lib.sh
command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"

TM_SOCK="hookscope-tui-ipc-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

start_daemon run -- "$O/apps/demo" --ipc
wait_for 20 grep -q "demo: ipc scenario" "$HS_TMP/daemon.log"
wait_for 20 jq_once '[.targets[] | select(.name == "demo")] | length >= 1'
pid=$(once_json | jq -e '[.targets[] | select(.name == "demo")] | min_by(.pid) | .pid') || fail "no demo target"
# The helper's endpoint itself: the UI's slow calls may count other
# endpoints' first (a pipe read is slow too when the machine is busy).
unix_ok='.ipc.endpoints[] | select(.name | startswith("@hookscope-demo-")) |
	.kind == "unix" and .peer_comm == "demo" and .peer_pid > 0 and .peer_pid != '$pid' and .ui_calls > 0 and .slow >= 2'
wait_for 20 jq_once "$unix_ok" --target "$pid"
once_json --target "$pid" >"$HS_TMP/f.json"
jq -e "$unix_ok" "$HS_TMP/f.json" >/dev/null || fail "no unix endpoint to the helper with its peer, UI calls and slow calls: $(jq -c .ipc.endpoints "$HS_TMP/f.json")"
jq -e '.ipc.slow[0] | .ui and .op == "recv" and .dur_ns >= 240000000 and
	.stack.frames[0].func == "demo_ipc_fetch_settings"' "$HS_TMP/f.json" >/dev/null ||
	fail "the slow call is not a UI-thread recv of 250 ms in demo_ipc_fetch_settings: $(jq -c '.ipc.slow[0] | {op, ui, dur_ns, f: [.stack.frames[].func]}' "$HS_TMP/f.json")"

tm new-session -d -s hs -x 160 -y 40 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' --target $pid \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 20 hs grep -q '^NAME'
tm send-keys -t hs 5
wait_screen 10 hs grep -Eq 'IPC: [0-9]+ endpoints, [0-9]+ operations \([0-9]+ on the UI thread\), [0-9]+ slow over 100 ms'
wait_screen 10 hs grep -Eq '^ *KIND +ENDPOINT +METHOD +OPS +OPS/S +TOTAL +MAX +UI +SLOW +PEER'
wait_screen 10 hs grep -Eq '^ *unix +@hookscope-demo-[0-9]+ +- +[0-9.]+k? +[0-9.]+ +[0-9.]+m?s +2[5-9][0-9](\.[0-9]+)?ms +UI +[0-9]+ +[0-9]+ +demo\[[0-9]+\]'
echo "--- panel ---"
screen hs | sed -n '1,8p'
tm send-keys -t hs Enter
wait_screen 10 hs grep -q 'slow IPC calls on @hookscope-demo-'
wait_screen 10 hs grep -Eq 'recv 2[5-9][0-9](\.[0-9]+)?ms on unix @hookscope-demo-[0-9]+ \(thread [0-9]+\) +UI THREAD'
wait_screen 10 hs grep -Eq 'demo_ipc_fetch_settings\+0x[0-9a-f]+ \[demo\]'
wait_screen 10 hs grep -Eq 'demo_ipc_scenario\+0x[0-9a-f]+ \[demo\]'
echo "--- detail view ---"
screen hs | sed -n '1,14p'
tm send-keys -t hs q

# :threshold ipc 300: the 250 ms answers are not slow any more
slow=$(once_json --target "$pid" | jq '.ipc.slow_count')
tm send-keys -t hs ':threshold ipc 300' Enter
wait_for 10 jq_once '.ipc.threshold_ns == 300000000' --target "$pid"
sleep 1.5
now=$(once_json --target "$pid" | jq '.ipc.slow_count')
sleep 1.5
later=$(once_json --target "$pid" | jq '.ipc.slow_count')
[ "$later" = "$now" ] || fail "slow calls still counted over a 300 ms threshold ($now, then $later)"
tm send-keys -t hs 1
wait_screen 10 hs grep -q '^NAME'
echo "ok: IPC panel, UI flag, slow calls with stacks, threshold (slow count $slow, then $now = $later)"
