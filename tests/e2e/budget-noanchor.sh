# budget-noanchor.sh - a budget so low that no function called stays counted
# exactly: a sampling window then has no anchor (no exact calls to weigh the
# sampled functions' calls against), and waiting for one cannot help.
# - tests/apps/tinyfuncs (plain cc -O2 -g, level 4) with a budget of 0.001% in
#   its environment (so it holds from the start): the tiny functions are
#   turned off, work_0..work_9 and dispatch sampled or off, nothing timed or
#   counted but main (which returns at the end);
# - Debian's /usr/bin/python3 on the bench's loop (tests/bench/real/calls.py)
#   at level 2 with a budget of 0.5%: the loop's functions end sampled or off
#   (in most runs all of them: how far the budget's decisions get before the
#   loop ends varies with the machine's load).
# A window without an anchor call, after none between the windows either,
# closes after its minimum (10 ms; the agent's debug log says how long each
# lasted and its anchor calls), where it waited up to 200 ms for an anchor
# with every sampled function timed.  None longer than 150 ms (a loaded
# machine delays the budget's ticks by tens of ms); at least one such window
# in tinyfuncs' run.
. tests/e2e/lib.sh

ITER=6000
PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian package python3)"
command -v cc >/dev/null || fail "no C compiler (cc) to build tests/apps/tinyfuncs"
cc -O2 -g -o "$HS_TMP/tinyfuncs" tests/apps/tinyfuncs/tinyfuncs.c ||
	fail "cannot build tests/apps/tinyfuncs with cc -O2 -g"

# run NAME BUDGET LEVEL NEED PROG ARGS...: PROG's whole run at BUDGET (from
# its environment) with the agent's debug log; NAME.json its figures, NAME.win
# its windows; NEED 1: a window without an anchor must come.
run() {
	local name=$1 pct=$2 level=$3 need=$4 ppm
	shift 4
	: >"$HS_TMP/daemon.log"
	HOOKSCOPE_BUDGET=$pct HOOKSCOPE_DEBUG=1 HOOKSCOPE_LEVEL=$level start_daemon run -- "$@"
	wait_for 120 jq_once '.targets[0].state == "exited"'
	once_json --top 1000 >"$HS_TMP/$name.json" || fail "hookscope --once --json failed"
	stop_daemon
	ppm=$(awk -v p="$pct" 'BEGIN { printf "%d", p * 10000 + 0.5 }')
	jq -e --argjson ppm "$ppm" '.budget_ppm == $ppm' "$HS_TMP/$name.json" >/dev/null ||
		fail "$name: HOOKSCOPE_BUDGET=$pct gave budget_ppm $(jq .budget_ppm "$HS_TMP/$name.json"), not $ppm"
	grep 'budget: a window of' "$HS_TMP/daemon.log" >"$HS_TMP/$name.win" ||
		fail "$name: no sampling window in the agent's debug log:
$(grep 'budget' "$HS_TMP/daemon.log" | head -5)"
	grep -q ', 0 anchor calls$' "$HS_TMP/$name.win" || [ "$need" = 0 ] ||
		fail "$name at $pct%: every window had an anchor: $(cat "$HS_TMP/$name.win")"
	long=$(sed -n 's/.*a window of \([0-9.]*\) ms .*, 0 anchor calls$/\1/p' "$HS_TMP/$name.win" |
		awk '$1 > 150')
	[ -z "$long" ] || fail "$name: a window without an anchor stayed open $long ms (its minimum is 10 ms, 200 the most a window waits for an anchor):
$(cat "$HS_TMP/$name.win")"
	echo "ok: $name at $pct%: $(wc -l <"$HS_TMP/$name.win") window(s), $(grep -c ', 0 anchor calls$' "$HS_TMP/$name.win") without an anchor, the longest of those $(sed -n 's/.*a window of \([0-9.]*\) ms .*, 0 anchor calls$/\1/p' "$HS_TMP/$name.win" | sort -n | tail -1) ms"
}

run tinyfuncs 0.001 4 1 "$HS_TMP/tinyfuncs" $ITER
run python3 0.5 2 0 "$PY" tests/bench/real/calls.py 3000000
