# tui.sh - the interactive hookscope in a real terminal (a detached tmux of
# fixed size): the demo's functions show (on the overview, then full screen
# in view 1), `:level 3` reaches the daemon,
# SIGKILL + restart of hookscoped shows "reconnecting" and then live rows
# again with neither the TUI nor the demo restarted, resizes leave a sane
# screen, `q` quits with the terminal restored; then the same TUI through a
# TCP forwarder (what adb forward does), in an ASCII locale, with a broken
# theme that must be reported and survived.
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
command -v socat >/dev/null || fail "socat is not installed (run 'make deps')"

TM_SOCK="hookscope-tui-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

# Calls of slow_work as the table on window $1 shows them (plain below 10000).
slow_calls() { screen "$1" | awk '$1 == "slow_work" { print $2; exit }'; }

# A sane screen of $1 rows in view 1: status bar, info, header, slow_work,
# key hints and view tabs last.
sane() {
	awk -v rows="$1" '
		NR == 1 && !/^ hookscope +connected/ { bad = "status bar" }
		NR == 3 && !/^NAME/                  { bad = "header" }
		/^slow_work /                        { rows_ok = 1 }
		{ last = $0; n = NR }
		END {
			if (bad == "" && !rows_ok) bad = "slow_work row"
			if (bad == "" && n != rows) bad = "row count " n
			if (bad == "" && last !~ /^ q quit.* 1 (funcs|functions) /) bad = "hint line"
			if (bad != "") { print "screen not sane: " bad > "/dev/stderr"; exit 1 }
		}'
}

start_daemon run -- "$O/apps/demo"
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work")'
demo=$(once_json | jq -e '.pid') || fail "no target pid"

# ---- 1. direct, UTF-8, 120x40 ----
tm new-session -d -s hs -x 120 -y 40 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; echo \$? >'$HS_TMP/tui.rc'; \
	echo 'hookscope exited'; exec sleep 600"
wait_screen 15 hs grep -q '^slow_work '
wait_screen 5 hs grep -q "demo $demo .*live"
screen hs | grep -q "TOTAL▼" || fail "sort column not marked (UTF-8)"
screen hs | grep -q '^ hot functions: .*\[1\] │' || fail "no functions box on the overview"
tm send-keys -t hs 1
wait_screen 5 hs sane 40

# A command typed on the `:` line reaches the daemon.
tm send-keys -t hs ':level 3' Enter
wait_for 10 jq_once ".targets[] | select(.pid == $demo) | .level == 3"
wait_screen 5 hs grep -q 'level 3'

# SIGKILL the daemon: the TUI says so and keeps trying.
before=$(slow_calls hs)
[ -n "$before" ] || fail "no slow_work count on the screen"
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=""
HS_PIDS="$HS_PIDS $demo"            # the orphaned demo is ours to stop
wait_screen 10 hs grep -q 'reconnecting'
[ ! -e "$HS_TMP/tui.rc" ] || fail "hookscope exited when the daemon died: $(cat "$HS_TMP/tui.err")"

# Same port and socket: the agent and the TUI both come back by themselves.
start_daemon
wait_screen 20 hs grep -q '^ hookscope  connected'
wait_screen 20 hs sh -c "awk '\$1 == \"slow_work\" && \$2 + 0 > $before { ok = 1 } END { exit !ok }'"
kill -0 "$demo" 2>/dev/null || fail "the demo died"
[ ! -e "$HS_TMP/tui.rc" ] || fail "hookscope restarted or exited"

# Resizes: smaller, then larger; the screen is redrawn whole each time.
tm resize-window -t hs -x 80 -y 24
wait_screen 5 hs sane 24
tm resize-window -t hs -x 132 -y 50
wait_screen 5 hs sane 50

# q quits; the shell after it prints on a restored terminal.
tm send-keys -t hs q
wait_for 5 test -e "$HS_TMP/tui.rc"
[ "$(cat "$HS_TMP/tui.rc")" = 0 ] || fail "hookscope exit status $(cat "$HS_TMP/tui.rc"): $(cat "$HS_TMP/tui.err")"
wait_screen 5 hs grep -q '^hookscope exited'
screen hs | grep -q 'slow_work' && fail "the table is still on the screen after q"

# ---- 2. through a TCP forwarder, ASCII locale, broken theme ----
fwd_port=$(free_port)
spawn socat "TCP-LISTEN:$fwd_port,bind=127.0.0.1,fork,reuseaddr" "TCP:127.0.0.1:$HS_PORT"
wait_for 10 port_listening "$fwd_port"
printf 'row = default default\nrow = purplish default\n' >"$HS_TMP/bad.theme"
tm new-window -t hs -n fw \
	"env LANG=C LC_ALL=C '$O/hookscope' --theme '$HS_TMP/bad.theme' 127.0.0.1:$fwd_port \
	2>'$HS_TMP/fw.err'; echo \$? >'$HS_TMP/fw.rc'; exec sleep 600"
wait_screen 15 fw grep -q '^slow_work '
wait_screen 5 fw grep -q "127.0.0.1:$fwd_port"
screen fw | grep -q 'TOTALv' || fail "sort column not marked (ASCII)"
screen fw | grep -q 'bad.theme:2: unknown colour' || fail "broken theme not reported"
tm send-keys -t fw q
wait_for 5 test -e "$HS_TMP/fw.rc"
[ "$(cat "$HS_TMP/fw.rc")" = 0 ] || fail "hookscope via the forwarder: exit $(cat "$HS_TMP/fw.rc")"
echo "ok: TUI live rows, :level 3, reconnect after SIGKILL (slow_work $before -> more), resizes, q; via forwarder port $fwd_port"
