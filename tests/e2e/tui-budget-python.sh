# tui-budget-python.sh - the overhead budget live on a real program nobody
# here wrote: Debian's /usr/bin/python3 at level 2 running the bench's
# call-heavy dict and string loop (tests/bench/real/calls.py), watched in a
# real TUI (tmux).  The status bar shows the hooks' cost against the budget
# (default 5%); `:budget 1`, `:budget off` and `:budget 20` each show in the
# status bar within two seconds, and the cost the agent measures follows:
# within the budget at 1%, more than 1% with the budget off (every selected
# function timed again), higher than at 1% but within the budget at 20%.  At 1% the functions view shows demoted
# functions (MODE) with estimated figures ('~'), and :sites lists them.
. tests/e2e/lib.sh

PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian package python3)"
command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-tui-budget-py-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT
W=py

start_daemon run --level 2 -- "$PY" tests/bench/real/calls.py 1000000000
wait_for 30 jq_once '.calls_total > 0 and .cost_ppm > 0'
tm new-session -d -s hs -n $W -x 170 -y 40 "env LANG=C.UTF-8 LC_ALL= '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 20 $W sh -c "head -1 | grep -Eq '│ level 2 │ cost [0-9.]+%/5% │'"

# The cost shown with budget $1, as a number of percent (empty if another budget shows).
cost_at() { screen $W | head -1 | sed -n "s|.*│ cost \([0-9.]*\)%/$1 │.*|\1|p"; }
# cost_is BUDGET AWK-CONDITION: the status bar's cost (as c) meets it; sets $cost.
cost_is() { cost=$(cost_at "$1"); [ -n "$cost" ] && awk -v c="$cost" "BEGIN { exit !($2) }"; }
budget() {   # BUDGET AS-SHOWN COST-CONDITION
	tm send-keys -t $W ":budget $1" Enter
	wait_screen 2 $W sh -c "head -1 | grep -Eq '│ cost [0-9.]+%/$2 │'"
	# The agent measures its cost over its window: the figure follows after it.
	wait_for 15 cost_is "$2" "$3"
	cost_is "$2" "$3" || fail "budget $1: the cost left the condition $3: $(screen $W | head -1)"
	echo "budget $1: $(screen $W | head -1 | grep -o 'cost [^ ]*')"
}
budget 1 '1%' 'c <= 1'
c1=$cost
wait_for 10 jq_once '.demoted > 0 and .budget_ppm == 10000'
tm send-keys -t $W 1
wait_screen 10 $W grep -q '^NAME .* MODE *$'
wait_screen 10 $W grep -Eq ' ~[0-9.]+.?s .* (counted|sampled) *$'
tm send-keys -t $W ':sites' Enter
wait_screen 5 $W grep -Eq '│ +(counted|sampled|off) +[0-9.]+[smh] '
tm send-keys -t $W Escape
# Off: every selected function timed again, whatever it costs; the agent still
# measures what (right after the tight budget, so a figure left from it shows).
budget off off "c > 1"
# A looser budget than 1%: the agent times more, within 20%.
budget 20 '20%' "c > $c1 && c <= 20"
[ -s "$HS_TMP/tui.err" ] && fail "the TUI wrote to stderr: $(cat "$HS_TMP/tui.err")"
echo "ok: python3: the status bar follows :budget 1, off and 20, and the cost with it"
