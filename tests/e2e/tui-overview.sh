# tui-overview.sh - the overview (the start screen) in tmux with the demo
# playing every problem at once (--scenario all): at 80x24, 120x40 and
# 200x60 every box is there, in order, each title row whole, and the boxes
# listed in FILLED show data from the demo; at 60x20 the same boxes draw
# without overlapping; after resizes between those sizes the screen has the
# same shape as a TUI started fresh at that size (no leftovers).
#
# FILLED: the boxes that must show data (all of them by default).
. tests/e2e/lib.sh

FILLED=${HS_OVERVIEW_FILLED:-"funcs fps blocks threads ipc power"}
# The demo's power scenario writes its wakelock into a scratch sysfs.
export HOOKSCOPE_POWER_SYSFS=$HS_TMP/sys

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-tui-overview-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

start_daemon run -- "$O/apps/demo" --scenario all
wait_for 30 jq_once '(.blocks.list | length) >= 2 and .threading.created >= 24 and
	(.fps.streams | length) >= 1 and ([.funcs[] | select(.name == "recompute_checksums")] | length == 1) and
	(.ipc.endpoints | length) >= 1 and (.power.resources | length) >= 1'

# A TUI in window $1 of $2 x $3.
tui_window() {
	local opt="-t hs"
	tm has-session -t hs 2>/dev/null || opt="-d -s hs -x $2 -y $3"
	if [ "$opt" = "-t hs" ]; then
		tm new-window -t hs -n "$1" "env LANG=C.UTF-8 LC_ALL= '$O/hookscope' \
			ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/$1.err'; exec sleep 600"
		tm resize-window -t "$1" -x "$2" -y "$3"
	else
		tm new-session $opt -n "$1" "env LANG=C.UTF-8 LC_ALL= '$O/hookscope' \
			ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/$1.err'; exec sleep 600"
	fi
}

# Boxes in order, each title row whole (text ... [key] at the right edge
# of its box, or the IPC and power titles side by side), on a screen of
# $1 rows.  Titles that share a row with another box (the wide layout)
# end at the column separator.
boxes_ok() {
	awk -v rows="$1" '
		function at(name, re) { if ($0 ~ re && !(name in row)) row[name] = NR }
		{ at("funcs", "^ hot functions.*\\[1\\]( │|$)")
		  at("fps", "(^|│) FPS.*\\[2\\]$")
		  at("blocks", "(^|│) UI-thread blocks.*\\[3\\]$")
		  at("threads", "(^|│) threads.*\\[4\\]$")
		  at("ipc", "(^|│) IPC +(\\[5\\]$|\\[5\\] +power +\\[6\\]$)")
		  at("power", "(^|│| ) power +\\[6\\]$")
		  last = $0; n = NR }
		END {
			split("funcs fps blocks threads ipc power", k, " ")
			for (i = 1; i <= 6; i++) if (!(k[i] in row)) { print "no whole title: " k[i] > "/dev/stderr"; exit 1 }
			if (!(row["fps"] < row["blocks"] && row["blocks"] < row["threads"] &&
			    row["threads"] < row["ipc"] && row["ipc"] <= row["power"])) {
				print "boxes out of order" > "/dev/stderr"; exit 1 }
			if (n != rows) { print "rows " n > "/dev/stderr"; exit 1 }
			if (last !~ /^ q quit/) { print "hint line" > "/dev/stderr"; exit 1 }
		}'
}

# The boxes of FILLED show the demo's data.
filled_ok() {
	local scr b
	scr=$(cat)
	for b in $FILLED; do
		case $b in
		# whole, or cut in the middle (head…tail) where the column is narrow
		funcs)   echo "$scr" | grep -Eq '^recompute(_checksums|[a-z_]*…[a-z_]*ums) +[0-9.]+K? ' || return 1 ;;
		fps)     echo "$scr" | grep -Eq '(^|│) FPS [1-9][0-9]* │ app ui' &&
		         echo "$scr" | grep -Eq 'jank [0-9]+' || return 1 ;;
		blocks)  echo "$scr" | grep -Eq 'UI-thread blocks: [1-9][0-9]* \(over' &&
		         echo "$scr" | grep -Eq '[0-9:.]+ +[0-9.]+ms .*(load_config_sync|relayout_every|recompute_check|draw_frame|decode_image)' || return 1 ;;
		threads) echo "$scr" | grep -Eq 'threads: [0-9]+ live, [1-9][0-9]* created' || return 1 ;;
		ipc)     echo "$scr" | grep -Eq 'IPC: [1-9][0-9]* endpoints?, [1-9][0-9]* operations' || return 1 ;;
		power)   echo "$scr" | grep -Eq 'power: [1-9][0-9]* held, [0-9]+ leaked' || return 1 ;;
		*)       fail "unknown box '$b' in FILLED" ;;
		esac
	done
}

# A screen without its status and info rows and its message row (they
# change with time, not with the frame), its figures and graph cells
# masked: the daemon, stopped, may have sent its last frame to one TUI and
# not yet to the other, so the two can show neighbouring frames.  What a
# resize could break (boxes, titles, columns, rows, leftovers) stays.
body() {
	sed '1,2d' | awk -v rows="$1" 'NR != rows - 3' |
		perl -CS -pe 's/[0-9]/#/g; s/[\x{2580}-\x{259F}]/%/g'
}

for size in "80 24" "120 40" "200 60"; do
	set -- $size
	w=s$1
	tui_window "$w" "$1" "$2"
	wait_screen 20 "$w" filled_ok
	wait_screen 5 "$w" boxes_ok "$2"
	echo "--- overview at $1x$2 ---"
	screen "$w"
done

# 60x20: the same boxes, still not drawn over each other.
tui_window s60 60 20
wait_screen 20 s60 boxes_ok 20
echo "--- overview at 60x20 ---"
screen s60

# Resizes: the window of 200x60 goes through every size, and each time its
# screen is the same as the one started at that size.  For the same frame
# on both, the daemon is stopped (SIGSTOP) once every TUI shows each frame
# at once (refresh 0.1 s): they keep the last one it sent them, which they
# have drawn once no screen changes for a second (freeze).  The daemon may
# have sent its last frame to one TUI and not yet to the other: when the two
# differ, it runs on for a moment and is frozen again, a few times, before
# the difference counts (a resize bug stays, a neighbouring frame goes).
for w in s80 s120 s200 s60; do
	tm send-keys -t "$w" ':refresh 0.1' Enter
	wait_screen 10 "$w" grep -q 'refresh every 0.1 s'
done
trap 'kill -CONT "$DAEMON_PID" 2>/dev/null; tm kill-server 2>/dev/null; hs_cleanup' EXIT
screens() { for w in s80:24 s120:40 s200:60 s60:20; do screen "${w%:*}" | body "${w#*:}"; done; }
freeze() {
	local end was now
	kill -STOP "$DAEMON_PID"
	end=$(( $(date +%s) + 15 ))
	was=$(screens)
	while sleep 1; now=$(screens); [ "$now" != "$was" ]; do
		[ "$(date +%s)" -lt "$end" ] || fail "the TUIs' screens still change 15 s after the daemon stopped"
		was=$now
	done
}
freeze
for size in "80 24 s80" "60 20 s60" "120 40 s120" "200 60 s200" "80 24 s80"; do
	set -- $size
	tm resize-window -t s200 -x "$1" -y "$2"
	wait_screen 10 s200 boxes_ok "$2"
	tries=0
	until [ "$(screen s200 | body "$2")" = "$(screen "$3" | body "$2")" ]; do
		tries=$((tries + 1))
		if [ "$tries" -gt 5 ]; then
			screen s200 | body "$2" | diff - "$(screen "$3" | body "$2" >"$HS_TMP/fresh";
				echo "$HS_TMP/fresh")" >&2
			fail "after a resize to $1x$2 the screen differs from a fresh one (5 frames)"
		fi
		kill -CONT "$DAEMON_PID"
		sleep 0.5
		freeze
	done
	echo "resized to $1x$2: the same as a TUI started at that size"
done
kill -CONT "$DAEMON_PID"
echo "ok: overview filled ($FILLED) at 80x24, 120x40, 200x60; 60x20 without overlap; resizes leave no garbage"
