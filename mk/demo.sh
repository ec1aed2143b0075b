#!/bin/sh
# demo.sh - what `make demo` runs: hookscoped with the demo target playing a
# scenario (SCENARIO=tour by default: each problem in turn; see
# tests/apps/demo/scenario.c), and the TUI on it.  With tmux, the demo's
# announcements ("demo: [2/6] jank: ...") show in a strip under the TUI so an
# audience knows what to look for (HS_DEMO_SPLIT=0: the TUI alone, the
# announcements in the log).  Quitting the TUI stops everything started here.
O=${O:-build}
scenario=${SCENARIO:-tour}
port=${HS_DEMO_PORT:-7070}
sock=${TMPDIR:-/tmp}/hookscope-demo-$$.sock
log=${TMPDIR:-/tmp}/hookscope-demo-$$.log
# the power scenario's sysfs files (demo_power.c, doc/power.md)
export HOOKSCOPE_POWER_SYSFS=${TMPDIR:-/tmp}/hookscope-demo-$$-sys

if ! "$O/apps/demo" --scenario list | grep -qx "${scenario%%:*}"; then
	echo "demo: no scenario '$scenario' (SCENARIO= one of: $("$O/apps/demo" --scenario list | tr '\n' ' '))" >&2
	exit 1
fi
if ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then
	echo "demo: port $port is already in use (is another hookscoped running? try HS_DEMO_PORT=7071 make demo)" >&2
	exit 1
fi
if [ ! -t 0 ] || [ ! -t 1 ]; then
	echo "demo: the TUI needs a terminal; run 'make demo' from one" >&2
	exit 1
fi

"$O/hookscoped" --port "$port" --socket "$sock" run -- "$O/apps/demo" --scenario "$scenario" \
	>"$log" 2>&1 &
dpid=$!
cleanup() {
	pkill -TERM -P "$dpid" 2>/dev/null     # the demo target
	kill -TERM "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	rm -f "$log"
	rm -rf "$HOOKSCOPE_POWER_SYSFS"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

i=0
until ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$dpid" 2>/dev/null; then
		echo "demo: hookscoped did not start; its log:" >&2
		cat "$log" >&2
		exit 1
	fi
	sleep 0.1
done
tui="'$O/hookscope' ws://127.0.0.1:$port"
if [ "${HS_DEMO_SPLIT:-1}" != 0 ] && command -v tmux >/dev/null; then
	tsock=hookscope-demo-$$
	env -u TMUX tmux -L "$tsock" -f /dev/null new-session -s demo "$tui; tmux -L $tsock kill-server" \; \
		set-option status off \; \
		split-window -v -l 3 "tail -n 3 -f '$log' | grep --line-buffered '^demo:'" \; \
		select-pane -t 0 ||
		:   # q kills the private tmux server, so the client reports "server exited"
else
	echo "demo: scenario $scenario; its announcements go to $log"
	sleep 1
	sh -c "$tui"
fi
