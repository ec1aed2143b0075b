#!/bin/sh
# readme-capture.sh - refresh the screen capture in README.md from a real
# run: hookscoped with the demo playing every problem (--scenario all), the
# TUI in a detached tmux of 100x28, captured with tmux capture-pane once
# every overview box shows data, and put between the README's
# "<!-- capture:begin -->" and "<!-- capture:end -->" lines.
#   O=build sh mk/readme-capture.sh [README]
set -u
O=${O:-build}
readme=${1:-README.md}
tmp=$(mktemp -d /tmp/hookscope-capture.XXXXXX)
port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 30000 ))
tsock=hookscope-capture-$$

# The power scenario's wakelocks go to a scratch sysfs (doc/power.md).
export HOOKSCOPE_POWER_SYSFS=$tmp/sys
"$O/hookscoped" --port "$port" --socket "$tmp/agent.sock" --report-dir "$tmp" \
	run -- "$O/apps/demo" --scenario all:6 >"$tmp/daemon.log" 2>&1 &
dpid=$!
cleanup() {
	tmux -L "$tsock" kill-server 2>/dev/null
	pkill -TERM -P "$dpid" 2>/dev/null
	kill -TERM "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tmux -L "$tsock" -f /dev/null new-session -d -s cap -x 100 -y 28 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$tmp' '$O/hookscope' ws://127.0.0.1:$port; sleep 600"
# Every box with data: a block with its frame, FPS, the hot function, threads,
# IPC and power (their scenarios come every 6 s).
i=0
until tmux -L "$tsock" capture-pane -p -t cap >"$tmp/screen" 2>/dev/null &&
	grep -q 'load_config_sync (' "$tmp/screen" && grep -Eq ' FPS [1-9]' "$tmp/screen" &&
	grep -q '^recompute_checksums' "$tmp/screen" && grep -Eq 'threads: [0-9]+ live, [1-9]' "$tmp/screen" &&
	grep -Eq 'IPC: [1-9]' "$tmp/screen" && grep -Eq 'power: [1-9][0-9]* held' "$tmp/screen"; do
	i=$((i + 1))
	if [ $i -gt 600 ]; then
		echo "readme-capture: the demo did not fill the screen in 60 s; last screen:" >&2
		cat "$tmp/screen" >&2
		exit 1
	fi
	sleep 0.1
done
sleep 3            # a few seconds of history in the sparklines
tmux -L "$tsock" capture-pane -p -t cap | sed 's/ *$//' >"$tmp/screen"
awk -v cap="$tmp/screen" '
	/<!-- capture:begin -->/ { print; print "```"; while ((getline l < cap) > 0) print l; print "```"; skip = 1; next }
	/<!-- capture:end -->/ { skip = 0 }
	!skip' "$readme" >"$tmp/readme"
grep -q '<!-- capture:begin -->' "$readme" || { echo "readme-capture: no capture markers in $readme" >&2; exit 1; }
cp "$tmp/readme" "$readme"
echo "readme-capture: $readme updated ($(wc -l <"$tmp/screen") lines)"
