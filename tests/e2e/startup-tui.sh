# startup-tui.sh - the startup view and the overview's startup box in tmux,
# at 80x24 and 160x40, on the startup app run by `hookscoped run`: the box's
# summary (to main, first wait, exec from run), the view's timeline rows with
# the slow library's constructors and the plugin's dlopen at their lengths
# (within 5% of what the program measured around its own sleeps, as the
# view formats them: whole ms), Enter's details, and the overview with
# every box's title whole.
. tests/e2e/lib.sh
command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-startup-tui-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

start_daemon run -- "$O/apps/startup" --stay 600000
wait_for 20 jq_once '.startup.wait_ns > 0'

W=hs
tm new-session -d -s hs -x 80 -y 24 "env LANG=C.UTF-8 LC_ALL= '$O/hookscope' ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"

# The overview at 80x24: the box's title and summary, the other boxes' titles.
wait_screen 20 $W grep -Eq '^ startup +\[u\]$'
wait_screen 5 $W grep -Eq '^ startup: to main [0-9.]+m?s \| first wait [0-9.]+m?s \| first frame - \| exec from run'
wait_screen 5 $W grep -Eq '^ FPS .*\[2\]$'
wait_screen 5 $W grep -Eq '^ hot functions.*\[1\]$'
echo "--- overview at 80x24 ---"; screen $W

# The view: its rows at 80x24; at 160x40 (every row of a sanitized agent's
# libraries fits) the two delays at their lengths.
OWN=$(grep -o "slowinit_ctor_ns=.*" "$HS_TMP/daemon.log" | head -1)
eval "$(echo "$OWN" | tr ' ' '\n' | grep -E '^[a-z_]+=[0-9]+$')"
# "NNNms" within [own, own + 5%] (the view shows whole ms from 100 ms)
ms_re() { awk -v a="$1" 'BEGIN { lo = int(a / 1e6); hi = int(a * 1.05 / 1e6); s = lo
	for (i = lo + 1; i <= hi; i++) s = s "|" i; print "(" s ")ms" }'; }
tm send-keys -t $W u
wait_screen 10 $W grep -Eq '^ KIND +NAME +AT +LENGTH +SLOWER'
wait_screen 5 $W grep -Eq '^ phase +to main +0 +[0-9.]+m?s'
echo "--- startup view at 80x24 ---"; screen $W
tm resize-window -t $W -x 160 -y 40
wait_screen 5 $W grep -Eq "^ constructors +.*slowinit\.so +[0-9.]+m?s +$(ms_re "$slowinit_ctor_ns") "
wait_screen 10 $W grep -Eq "^ dlopen +.*libhs-plugin\.so +[0-9.]+m?s +$(ms_re "$plugin_ctor_ns") +- +=+ *\$"
wait_screen 5 $W grep -Eq '^ KIND +NAME +AT +LENGTH +SLOWER +TIMELINE$'
echo "--- startup view at 160x40 ---"; screen $W

# Enter: the selected row's details (the first row: the load phase).
tm send-keys -t $W Enter
wait_screen 5 $W grep -q 'phase load: '
wait_screen 5 $W grep -q 'no previous run of this program to compare with'
tm send-keys -t $W Escape
tm send-keys -t $W 0
wait_screen 10 $W grep -Eq '│ startup +\[u\]$'
wait_screen 5 $W grep -Eq '│ phase +to first wait +0 +[0-9.]+m?s'
echo "--- overview at 160x40 ---"; screen $W
[ -s "$HS_TMP/tui.err" ] && fail "the TUI wrote to stderr: $(cat "$HS_TMP/tui.err")"
echo "startup-tui: ok"
