# report-tui.sh - `:dump` in the interactive hookscope (tmux): the format
# comes from -f or from the file name, the TUI saves the report on its host
# and says so, the daemon keeps its copy; a bad format is a usage message.
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-report-tui-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT
start_report_demo
tm new-session -d -s hs -x 160 -y 40 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 20 hs grep -q slow_work
tm send-keys -t hs ":dump $HS_TMP/t.json" Enter
wait_screen 10 hs grep -q "report saved to $HS_TMP/t.json"
jq -e '.schema == "hookscope-report"' "$HS_TMP/t.json" >/dev/null || fail "t.json is not a JSON report"
tm send-keys -t hs ":dump -f folded $HS_TMP/t.out" Enter
wait_screen 10 hs grep -q "report saved to $HS_TMP/t.out"
grep -Eq '^[^ ].* [0-9]+$' "$HS_TMP/t.out" || fail "t.out is not folded stacks: $(head -3 "$HS_TMP/t.out")"
tm send-keys -t hs ":dump -f $HS_TMP/t.trace.json" Enter
wait_screen 10 hs grep -q "usage: dump"
tm send-keys -t hs ":dump -a $HS_TMP/all.trace.json" Enter
wait_screen 10 hs grep -q "report saved to $HS_TMP/all.trace.json"
jq -e '.traceEvents | map(select(.ph == "X" and .name == "block")) | length >= 1' \
	"$HS_TMP/all.trace.json" >/dev/null || fail "the trace has no block slice"
ls "$HS_TMP/reports" | grep -q '^hookscope-all-.*\.trace\.json$' || fail "the daemon kept no copy"
echo "ok: :dump by extension, by -f, -a; bad usage reported"
