# tui-blocks.sh - UI-thread blocks in the interactive hookscope in tmux: the
# demo's event loop (--loop 1500, watched with run --ui-thread demo-loop)
# blocks 300 ms every 1.5 s, alternately sleeping and spinning; the blocks
# panel lists them with their top frame, the status bar flags them, and the
# detail view (key b) shows the symbolized stacks (function and file:line).
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-tui-blocks-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

start_daemon run --ui-thread demo-loop -- "$O/apps/demo" --loop 1500
wait_for 20 jq_once '[.blocks.list[] | select(.ended)] | length >= 2'
jq_once '.blocks.ui == "demo-loop" and .blocks.ui_tid > 0' >/dev/null ||
	fail "the UI thread is not demo-loop: $(once_json | jq -c '.blocks | {ui, ui_tid}')"

tm new-session -d -s hs -x 140 -y 45 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 20 hs grep -Eq 'UI-thread blocks: [0-9]+ \(over 100ms on demo-loop'
wait_screen 20 hs grep -Eq '[0-9:.]+ +3[0-9][0-9](\.[0-9])?ms +[0-9]+ samples +loop_(sleep|spin)_cb \([a-z.]+:[0-9]+\)'
wait_screen 20 hs grep -Eq 'BLOCK 3[0-9][0-9]'
echo "--- panel ---"
screen hs | head -n 8
tm send-keys -t hs b
wait_screen 10 hs grep -q 'UI-thread blocks and their stacks'
wait_screen 10 hs grep -Eq '#[0-9]+ +loop_spin_cb \([a-z.]+:[0-9]+\)'
wait_screen 10 hs grep -Eq '#[0-9]+ +loop_sleep_cb \([a-z.]+:[0-9]+\)'
screen hs | grep -Eq 'stack 1: [0-9]+ of [0-9]+ samples' || fail "no sample counts in the detail view"
echo "--- detail view ---"
screen hs | sed -n '1,30p'
echo "ok: blocks panel, status-bar flag and the stacks with file:line in tmux"
