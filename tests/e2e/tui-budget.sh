# tui-budget.sh - the overhead budget in a real terminal (tmux), fed by
# hs-fakeagent (known modes and cost, so every figure is known): the status
# bar shows the hooks' cost against the budget and follows :budget within two
# seconds; the functions view marks estimated figures with '~' and shows a
# demoted function's MODE; :sites lists the demotions; :budget refuses bad
# values on the spot and completes its arguments.  The same on a real
# python3: tui-budget-python.sh.
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-tui-budget-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT
W=b

start_daemon
spawn env -u HOOKSCOPE_BUDGET "$O/tools/hs-fakeagent" --socket "$HS_SOCK" --pid 999982 --funcs 4 \
	--modes timed,counted,sampled,off --cost-pct 3 >"$HS_TMP/fake.out"
wait_for 20 jq_once '(.funcs | length) == 4'

tm new-session -d -s hs -n $W -x 150 -y 30 "env LANG=C.UTF-8 LC_ALL= '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
bar() { wait_screen "$1" $W sh -c "head -1 | grep -q '$2'"; }
bar 20 '│ level 2 │ cost 3%/5% │'
tm send-keys -t $W 1
wait_screen 10 $W grep -q '^NAME .* SHARE% .* MODE *$'
# Rows: counted = exact calls, '~' times; sampled = '~' calls and times; off and timed: exact.
wait_screen 10 $W grep -Eq '^fake_fn_1 +[0-9]+ +[0-9.]+ +~[0-9.]+.?s +~[0-9.]+.?s .* counted *$'
wait_screen 10 $W grep -Eq '^fake_fn_2 +~[0-9]+ +~[0-9.]+ +~[0-9.]+.?s +~[0-9.]+.?s .* sampled *$'
wait_screen 10 $W grep -Eq '^fake_fn_3 +[0-9]+ +[0-9.]+ +[0-9.]+.?s +[0-9.]+.?s [^~]* off *$'
wait_screen 10 $W grep -Eq '^fake_fn_0 [^~]*$'

# Enter on the first row (off): its mode, since when, why, which figures are estimates.
sel=$(screen $W | sed -n 4p | awk '{ print $1 }')
[ "$sel" = fake_fn_3 ] || fail "the first row is $sel, not fake_fn_3 (rows: total descending)"
tm send-keys -t $W Enter
wait_screen 5 $W grep -Eq '^fake_fn_3 \[fake-target 0x401030\]: off for [0-9.]+s \(timing cost 0.4% of the CPU; calls exact, times measured\); [0-9]+ calls '

# :budget: refused on the spot, else sent; the status bar follows in two seconds.
tm send-keys -t $W ':budget abc' Enter
wait_screen 5 $W sh -c "tail -n 2 | grep -q \"budget: bad budget 'abc' (expected a share of the target's CPU over 0 up to 100 percent\""
tm send-keys -t $W ':budget 2' Enter
bar 2 '│ cost 2%/2% │'
tm send-keys -t $W ':budget off' Enter
bar 2 '│ cost 3%/off │'
tm send-keys -t $W ':budget 20' Enter
bar 2 '│ cost 3%/20% │'
grep -c '"t":"budget"' "$HS_TMP/fake.out" | grep -qx 3 || fail "the agent did not get the three budgets: $(cat "$HS_TMP/fake.out")"

# Tab completes the command and its argument.
tm send-keys -t $W ':budg' Tab 'o' Tab
wait_screen 5 $W sh -c "tail -n 1 | grep -q '^:budget off *$'"
tm send-keys -t $W Escape
wait_screen 5 $W sh -c "tail -n 1 | grep -q '^ q quit'"

# :sites: the cost, then each demoted row with mode, since, why, calls/s and avg.
tm send-keys -t $W ':sites' Enter
wait_screen 5 $W grep -q 'overhead budget: cost 3%/20% of the target.s CPU; 3 functions demoted'
wait_screen 5 $W grep -Eq '│ +counted +[0-9.]+s +0.2% +[0-9.]+ +~2.00us +fake_fn_1 '
wait_screen 5 $W grep -Eq '│ +sampled +[0-9.]+s +0.3% +~[0-9.]+ +~3.00us +fake_fn_2 '
wait_screen 5 $W grep -Eq '│ +off +[0-9.]+s +0.4% +[0-9.]+ +4.00us +fake_fn_3 '
screen $W | grep -Eq '│ +[a-z]+ +[0-9.]+s .*fake_fn_0 ' && fail ":sites lists a timed function: $(screen $W)"
[ -s "$HS_TMP/tui.err" ] && fail "the TUI wrote to stderr: $(cat "$HS_TMP/tui.err")"
echo "ok: status bar cost/budget follows :budget; '~' estimates, MODE, :sites demotions, completion"
