#!/bin/sh
# demo.sh - what `make demo` runs: hookscoped with the demo target, and the TUI
# on it.  Quitting the TUI stops everything this script started.
O=${O:-build}
port=${HS_DEMO_PORT:-7070}
sock=${TMPDIR:-/tmp}/hookscope-demo-$$.sock
log=${TMPDIR:-/tmp}/hookscope-demo-$$.log
# the power scenario's sysfs files (demo_power.c, doc/power.md)
export HOOKSCOPE_POWER_SYSFS=${TMPDIR:-/tmp}/hookscope-demo-$$-sys

if ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then
	echo "demo: port $port is already in use (is another hookscoped running? try HS_DEMO_PORT=7071 make demo)" >&2
	exit 1
fi
if [ ! -t 0 ] || [ ! -t 1 ]; then
	echo "demo: the TUI needs a terminal; run 'make demo' from one" >&2
	exit 1
fi

# --render: a steady 100 frames per second with a slow frame every 30th,
# so the FPS panel shows jank.
"$O/hookscoped" --port "$port" --socket "$sock" run -- "$O/apps/demo" --render 100 >"$log" 2>&1 &
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
"$O/hookscope" "ws://127.0.0.1:$port"
