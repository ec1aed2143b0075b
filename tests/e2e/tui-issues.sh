# tui-issues.sh - the issues view in the interactive hookscope in tmux: the
# demo's event loop blocks 300 ms every 1.5 s (3x the 100 ms threshold: a
# major ui-block issue of loop_sleep_cb and one of loop_spin_cb, their
# counts growing, not new issues); `:issues` shows them with the store's
# state, and Enter shows the selected one with its figures and stack.
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-tui-issues-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

start_daemon --issue-dir "$HS_TMP/issues" run --ui-thread demo-loop -- "$O/apps/demo" --loop 1500
wait_for 20 jq_once '[.issues.list[] | select(.type == "ui-block" and .count >= 2)] | length >= 1'
# the daemon's own view: one issue per place, counted, newest first, graded
once_json | jq -e '[.issues.list[] | select(.type == "ui-block")] as $b |
	($b | map(.where) | unique | length) == ($b | length) and
	([.issues.list[].last_ms] | . == (sort | reverse)) and
	($b | all(.severity == "major" and .over >= 2 and .over < 5))' >/dev/null ||
	fail "issues not de-duplicated, ordered or graded: $(once_json | jq -c '.issues.list')"

tm new-session -d -s hs -x 160 -y 45 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 20 hs grep -q 'hot functions'
tm send-keys -t hs : issues Enter
wait_screen 10 hs grep -Eq '^ issues: [0-9]+ of [0-9]+ raised, most recently seen first'
wait_screen 10 hs grep -Eq "^ store +$HS_TMP/issues: files [0-9]+, sent [0-9]+, failed 0, dropped 0"
wait_screen 10 hs grep -Eq '^ [0-9:]{8} +major +ui-block +[0-9]+ +UI thread demo-loop blocked 3[0-9][0-9] ms in loop_(sleep|spin)_cb \(demo\)'
echo "--- issues view ---"
screen hs | head -n 12
# Enter: the first (most recently seen) issue whole
tm send-keys -t hs Home Enter
wait_screen 10 hs grep -Eq 'issue [0-9a-f]{16}'
wait_screen 10 hs grep -q 'stack:'
screen hs | grep -Eq 'dur [0-9.e+]+ ns' || fail "no figures in the issue's detail"
screen hs | grep -Eq '(loop_sleep_cb|loop_spin_cb|janky|frames)' || fail "no top frame in the detail"
echo "--- detail ---"
screen hs | sed -n '1,30p'
ls "$HS_TMP/issues"/*.json >/dev/null || fail "no issue file in the store"
echo "ok: the issues view lists the demo's blocks once each with the store's state; Enter shows the stack"
