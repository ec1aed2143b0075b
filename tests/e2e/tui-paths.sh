# tui-paths.sh - the call paths in the TUI's functions view, in tmux at
# 80x24 and 120x40, on tests/e2e/data/callgraph.c (-finstrument-functions,
# level 4, budget off: its known tree: checksum called from parse, render
# and draw; spin below everything):
#   1. Enter on checksum opens a pane of its callers, heaviest first (parse,
#      render, draw: their work through it is 66, 25 and 10 units a round)
#      and its callee (spin), each with calls, time and share; Esc closes it;
#   2. c shows the call tree: main at the top, collapsed; Enter expands it
#      (round_ below it, two columns in), Down and Enter expand round_
#      (parse and render), Left collapses round_ again; c goes back to the
#      list.
. tests/e2e/lib.sh
TM_SOCK="hookscope-tui-paths-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

cc -O2 -g -finstrument-functions -o "$HS_TMP/cg" tests/e2e/data/callgraph.c ||
	fail "cannot build tests/e2e/data/callgraph.c with -finstrument-functions"
start_daemon --budget off run --level 4 -- "$HS_TMP/cg" 100000000
wait_for 30 jq_once '[.funcs[] | select(.name == "checksum")] | length == 1'
pid=$(once_json | jq -e '.pid') || fail "no target"

press() { tm send-keys -t "$W" "$@"; }
see() { wait_screen 10 "$W" grep -Eq "$1"; }
gone() { wait_screen 10 "$W" sh -c "! grep -Eq '$1'"; }
# The names of the rows under the header matching $1 (rows start with their
# calls; the name is the last field).
UNDER='on && !/^ +[0-9]/ { exit } on { print $NF } $0 ~ h { on = 1 }'
under() { screen "$W" | awk -v h="$1" "$UNDER"; }
# The column the tree's row of function $1 starts its name at.
name_col() { screen "$W" | awk -v n="$1" 'match($0, " " n "$") { print RSTART; exit }'; }

check_size() {   # columns rows
	W=p$1
	tm new-session -d -s "hs$1" -n "$W" -x "$1" -y "$2" \
		"env LANG=C.UTF-8 '$O/hookscope' ws://127.0.0.1:$HS_PORT; exec sleep 600"
	wait_screen 20 "$W" grep -q '^ hot functions: '
	press 1; wait_screen 10 "$W" sh -c 'sed -n 3p | grep -q "^NAME "'
	press /; press -l checksum; press Enter; see 'filter "checksum"'
	wait_screen 10 "$W" awk 'NR == 4 && /^checksum / { ok = 1 } END { exit !ok }'
	press Enter
	see 'callers of checksum'
	see 'callees of checksum'
	wait_screen 10 "$W" sh -c "[ \"\$(awk -v h='callers of checksum' '$UNDER' | tr '\n' ' ')\" = 'parse render draw ' ]"
	[ "$(under 'callees of checksum' | tr '\n' ' ')" = "spin " ] ||
		fail "callees of checksum: $(under 'callees of checksum' | tr '\n' ' ')"
	screen "$W" | grep -E ' parse$' | grep -Eq '^ +[0-9.]+[kKMG]? +[0-9.]+ ?[nmu]?s .*[0-9.]+%' ||
		fail "the parse row has no calls, time and share: $(screen "$W" | grep -E ' parse$')"
	echo "${1}x$2: callers of checksum: $(under 'callers of checksum' | tr '\n' ' ')callees: $(under 'callees of checksum')"
	press Escape; gone 'callers of checksum'
	press /; press C-u; press Enter; see 'filter cleared'

	press c; see 'call tree'
	wait_screen 10 "$W" grep -Eq ' [▸+] main$'
	press Enter; wait_screen 10 "$W" grep -Eq ' [▸+] round_$'
	m=$(name_col main); r=$(name_col round_)
	[ -n "$m" ] && [ -n "$r" ] && [ "$r" -eq $((m + 2)) ] || fail "round_ is not one level under main ($m, $r)"
	press Down Enter; see ' [▸+] parse$'; see ' [▸+] render$'
	press Left; gone ' parse$'
	screen "$W" | sed -n '3,8p'
	press c; gone 'call tree'; wait_screen 10 "$W" sh -c 'sed -n 3p | grep -q "^NAME "'
	echo "${1}x$2: the call tree expands and collapses"
}
check_size 80 24
check_size 120 40
kill "$pid" 2>/dev/null
echo "ok: callers and callees pane and the call tree at 80x24 and 120x40"
