# tui-keys.sh - every key the help screen lists, pressed in a real TUI in
# tmux, with its effect checked on the screen.  The list of keys comes from
# the help screen itself (the Keys and Views sections): a key this test
# does not know how to check fails it, so a new key needs a check here.
# Two targets (the demo playing every problem, and a second demo) so t/T
# have somewhere to go; mouse clicks are sent as the terminal's own mouse
# reports (X10 encoding, what tmux-256color's kmous announces).  Also:
# Tab completion of commands and their arguments (themes, views, pids,
# functions), the history kept across runs in $XDG_STATE_HOME, and a
# target that exits staying in the targets view as exited.
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-tui-keys-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT
ROWS=80
COLS=200

start_daemon run -- "$O/apps/demo" --scenario all
wait_for 30 jq_once '(.blocks.list | length) >= 1'
first=$(once_json | jq -e '.pid') || fail "no target shown"
spawn env HOOKSCOPE_SOCKET="$HS_SOCK" LD_PRELOAD="$HS_PRELOAD" "$O/apps/demo" --scenario hot \
	>/dev/null 2>&1
second=$SPAWNED
wait_for 30 jq_once "[.targets[] | select(.state == \"live\")] | length == 2"

# The history goes to $XDG_STATE_HOME/hookscope/history (no HOOKSCOPE_STATE_DIR).
start_tui() {   # window name
	local cmd="env -u HOOKSCOPE_STATE_DIR XDG_STATE_HOME='$HS_TMP/xdg' LANG=C.UTF-8 LC_ALL= \
		'$O/hookscope' --target $first ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/$1.err'; \
		echo \$? >'$HS_TMP/$1.rc'; exec sleep 600"
	if tm has-session -t hs 2>/dev/null; then
		tm new-window -t hs -n "$1" "$cmd"
	else
		tm new-session -d -s hs -n "$1" -x $COLS -y $ROWS "$cmd"
	fi
	wait_screen 20 "$1" grep -q "demo $first .*live"
	wait_screen 20 "$1" grep -q '^ hot functions: '
}
start_tui k
W=k

press() { tm send-keys -t $W "$@"; }
see() { wait_screen 10 $W grep -Eq "$1"; }
gone() { wait_screen 10 $W sh -c "! grep -Eq '$1'"; }
row() { screen $W | sed -n "${1}p"; }
# The name the details of the selection put on the message line.
details_name() { press Enter; sleep 0.3; row $((ROWS - 1)) | sed -n 's/^\([^ ]*\) \[.*\]: .* calls .*/\1/p'; }
# The functions of view 1, in the order shown (rows from 4 until a blank one).
func_names() { screen $W | awk 'NR >= 4 && /^ *$/ { exit } NR >= 4 { print $1 }'; }
# A left click at column $1, row $2 (0-based), as X10 mouse reports: a
# press and a release ($3 times: 2 is a double click) in one write, as a
# terminal sends them (ncurses makes a click of a press and a release only
# within its mouseinterval, which two tmux calls on a loaded machine miss).
click() {
	local x y ev="" i
	x=$(printf "\\$(printf %03o $(( 33 + $1 )))")
	y=$(printf "\\$(printf %03o $(( 33 + $2 )))")
	for i in $(seq 1 "${3:-1}"); do ev="$ev$(printf '\033[M ')$x$y$(printf '\033[M#')$x$y"; done
	tm send-keys -t $W -l "$ev"
}
# Column of the first match of $2 on row $1 (1-based rows, 0-based columns).
col_of() { row "$1" | awk -v s="$2" '{ i = index($0, s); print i ? i - 1 : -1 }'; }
view_is() {   # the view of key $1 is on the screen
	case $1 in
	0) see '^ hot functions: .*\[1\] │' ;;
	1) wait_screen 10 $W sh -c 'sed -n 3p | grep -q "^NAME "' ;;
	2) see '^ FPS [0-9]+ .*\[2\]$' ;;
	3) see '^ UI-thread blocks: [0-9]+ .*\[3\]$' ;;
	4) see '^ +THREAD +TID +STATE' ;;
	5) see '^ IPC +\[5\]$' ;;
	6) see '^ power +\[6\]$' ;;
	7) see '^ targets: 2 ' ;;
	8) see '^ issues: [0-9]+ of [0-9]+ raised' ;;
	9) see '^ Memory +\[9\]$' ;;
	n) see '^ Network +\[n\]$' ;;
	u) see '^ startup +\[u\]$' ;;
	*) fail "no check for view $1" ;;
	esac
}

# The help screen (over view 7, which leaves the screen around it blank):
# its keys and views.
press 7
view_is 7
press '?'
see 'hookscope help'
screen $W >"$HS_TMP/help"
press Escape
gone 'hookscope help'
sed -n 's/^[^│]*│ \(.*\)│ *$/\1/p' "$HS_TMP/help" >"$HS_TMP/help.items"
awk '/^Keys/ { on = 1; next } /^ *$/ { on = 0 } on { l = substr($0, 3, 22); sub(/ +$/, "", l); print l }' \
	"$HS_TMP/help.items" >"$HS_TMP/keys"
awk '/^Views/ { on = 1; next } /^ *$/ { on = 0 } on { print substr($0, 3, 22) }' \
	"$HS_TMP/help.items" | tr -d ', ' >"$HS_TMP/views"
[ "$(wc -l <"$HS_TMP/keys")" -ge 20 ] || { cat "$HS_TMP/help"; fail "the help lists too few keys"; }
[ "$(wc -l <"$HS_TMP/views")" -eq 12 ] || { cat "$HS_TMP/help"; fail "the help does not list 12 views"; }
grep -q '^:theme NAME|PATH' "$HS_TMP/help.items" || sed -n '/^Commands/,$p' "$HS_TMP/help.items" |
	grep -q ':theme' || fail "the help does not list the commands"

checked=""
check_key() {   # label as the help shows it
	case $1 in
	"q, F10") return 0 ;;              # last, below
	"?, h, F1")
		for k in '?' h F1; do press "$k"; see 'hookscope help'; press Escape; gone 'hookscope help'; done ;;
	":")
		press :; wait_screen 5 $W sh -c "tail -n 1 | grep -q '^:'"
		press Escape; wait_screen 5 $W sh -c "tail -n 1 | grep -q '^ q quit'"
		# Tab completes a command, then its arguments: themes, views, pids, functions.
		press :; press -l the; press Tab; press -l hi; press Tab
		wait_screen 5 $W sh -c "tail -n 1 | grep -q '^:theme high-contrast$'"
		press C-u; press -l 'view ta'; press Tab; wait_screen 5 $W sh -c "tail -n 1 | grep -q '^:view targets$'"
		# the shortest prefix of the second pid that the first does not share
		uniq=$(awk -v a="$second" -v b="$first" 'BEGIN { for (i = 1; i < length(a); i++) {
			p = substr(a, 1, i); if (index(b, p) != 1) { print p; exit } } print a }')
		press C-u; press -l "target $uniq"; press Tab
		wait_screen 5 $W sh -c "tail -n 1 | grep -q '^:target $second$'"
		press C-u; press -l 'filter recomp'; press Tab
		wait_screen 5 $W sh -c "tail -n 1 | grep -q '^:filter recompute_checksums$'"
		press Escape; wait_screen 5 $W sh -c "tail -n 1 | grep -q '^ q quit'" ;;
	"/, F3")
		press 1; view_is 1
		press /; wait_screen 5 $W sh -c "tail -n 1 | grep -q '^/'"
		press -l recompute; press Enter
		see 'filter "recompute"'
		wait_screen 10 $W awk 'NR == 4 && /^recompute_checksums / { a = 1 }
			NR == 5 && /^ *$/ { b = 1 } END { exit !(a && b) }'
		press F3; wait_screen 5 $W sh -c "tail -n 1 | grep -q '^/recompute'"
		press C-u Enter; see 'filter cleared'; see '^draw_frame ' ;;
	"s, F6")
		h0=$(row 3); press s; see 'sort by self'; [ "$(row 3)" != "$h0" ] || fail "s did not move the sort mark"
		press F6; see 'sort by calls'; see 'CALLS▼' ;;
	"S")
		press S; see 'sort by self'; see 'SELF▼'; press S; see 'sort by total'; see 'TOTAL▼' ;;
	"p")
		press p; see '^ hookscope  PAUSED '
		press p; gone 'PAUSED' ;;
	"+, -")
		press +; see 'refresh every 0.5 s'; see 'refresh 0.5s'
		press -; see 'refresh every 1 s'; see 'refresh 1s' ;;
	"Tab, S-Tab")
		press 0; view_is 0; press Tab; view_is 1; press BTab; view_is 0 ;;
	"0-9, n, u")
		while read -r k <&4; do
			case $k in
			[0-9nu]) press "$k"; view_is "$k" ;;
			[0-9]F[0-9]*) press "${k#?}"; view_is "${k%%F*}"; press "${k%%F*}"; view_is "${k%%F*}" ;;
			*) fail "help lists view key '$k' that this test does not check" ;;
			esac
		done 4<"$HS_TMP/views" ;;
	"Esc")
		press 7; view_is 7; press Escape; view_is 0 ;;
	"Enter"|"Up, k"|"Down, j"|"PgUp, ^B"|"PgDn, ^F, Space"|"Home, g"|"End, G")
		# One pass over all the moves, on a paused view 1 (rows hold still).
		case " $checked " in *" moves "*) return 0 ;; esac
		checked="$checked moves"
		press 1; view_is 1; press p; see PAUSED
		names=$(func_names); n1=$(echo "$names" | sed -n 1p); n2=$(echo "$names" | sed -n 2p)
		nl=$(echo "$names" | tail -n 1)
		[ -n "$n1" ] && [ -n "$n2" ] && [ "$n1" != "$nl" ] || fail "too few functions: $names"
		for k in Home g; do press "$k"; [ "$(details_name)" = "$n1" ] || fail "$k: not the first row"; done
		for k in Down j; do press Home "$k"; [ "$(details_name)" = "$n2" ] || fail "$k: not the 2nd row"; done
		for k in Up k; do press Home Down "$k"; [ "$(details_name)" = "$n1" ] || fail "$k: not the 1st row"; done
		for k in End G; do press Home "$k"; [ "$(details_name)" = "$nl" ] || fail "$k: not the last row"; done
		for k in NPage C-f Space; do press Home "$k"; [ "$(details_name)" = "$nl" ] || fail "$k: not a page down"; done
		for k in PPage C-b; do press End "$k"; [ "$(details_name)" = "$n1" ] || fail "$k: not a page up"; done
		press p; gone PAUSED ;;
	"<, >, F7, F8")
		see 'level 2'; press '>'; see '│ level 3'; press '<'; see '│ level 2'
		press F8; see '│ level 3'; press F7; see '│ level 2' ;;
	"t, T")
		press t; see "demo $second "; press T; see "demo $first " ;;
	"H")
		press H; view_is 4; press H; view_is 1 ;;
	"b")
		press b; see 'UI-thread blocks and their stacks'; press Escape; gone 'and their stacks' ;;
	"m")
		press 1; view_is 1; press m; see 'MODULE'; press m; gone 'MODULE' ;;
	"c")
		press 0; view_is 0; press c; see 'call tree'; see ' main$'; press c; gone 'call tree'
		view_is 1 ;;
	"^L")
		press C-l; see '^ hookscope  connected'; wait_screen 5 $W sh -c "tail -n 1 | grep -q '^ q quit'" ;;
	"mouse")
		press 0; view_is 0
		y=$(screen $W | grep -n '│ FPS [0-9]' | head -n 1 | cut -d: -f1)
		x=$(col_of "$y" 'FPS')
		click "$x" $((y - 1)); view_is 2
		x=$(col_of $ROWS '7 targets'); click "$x" $((ROWS - 1)); view_is 7
		y=$(screen $W | grep -n " $second demo " | cut -d: -f1)
		[ -n "$y" ] || fail "no row of target $second in view 7"
		click 10 $((y - 1)) 2
		see "demo $second .*live"
		press t; see "demo $first " ;;
	*) fail "the help lists key '$1' that this test does not check" ;;
	esac
	checked="$checked|$1"
	echo "checked: $1"
}

while IFS= read -r label <&3; do
	check_key "$label"
done 3<"$HS_TMP/keys"

# A target that exits stays in the list, as exited.
kill -TERM "$second"
press 7
wait_screen 20 $W grep -Eq " $second demo +exited "
echo "checked: an exited target stays listed"

# q and F10 quit, each in a TUI of its own; the terminal is restored; the
# command history outlives the first one.
press :; press -l 'pause off'; press Enter
see resumed
press q
wait_for 5 test -e "$HS_TMP/k.rc"
[ "$(cat "$HS_TMP/k.rc")" = 0 ] || fail "q: exit status $(cat "$HS_TMP/k.rc")"
start_tui f10
W=f10
grep -qx 'pause off' "$HS_TMP/xdg/hookscope/history" || fail "no history in \$XDG_STATE_HOME/hookscope"
press : Up
wait_screen 5 $W sh -c "tail -n 1 | grep -q '^:pause off'"
press Escape
wait_screen 5 $W sh -c "tail -n 1 | grep -q '^ q quit'"
press F10
wait_for 5 test -e "$HS_TMP/f10.rc"
[ "$(cat "$HS_TMP/f10.rc")" = 0 ] || fail "F10: exit status $(cat "$HS_TMP/f10.rc")"
echo "ok: every key of the help checked ($(wc -l <"$HS_TMP/keys") rows, 12 views), q and F10 quit"
