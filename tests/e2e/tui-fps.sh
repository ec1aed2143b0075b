# tui-fps.sh - the FPS panel of the interactive hookscope in tmux: the demo
# renders (--render 100: 100 frames a second, every 30th frame 60 ms late);
# the panel shows the FPS as a number and in big digits, a sparkline of the
# last seconds, jank and dropped counts and the percentiles; `:threshold
# frame 5` (typed on the command line) changes the budget it shows; the same
# panel in an ASCII locale uses ASCII digits and an ASCII sparkline.
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"

TM_SOCK="hookscope-tui-fps-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

# The panel: "FPS <n>" with n > 0 in the title, and a sparkline: a run of
# at least 20 cells of the given character class (a second each; the big
# digits never make such a run) ending in 3 seconds with frames (a step
# above the lowest, $2).
panel_ok() {
	local scr
	scr=$(cat)
	echo "$scr" | grep -Eq '^ FPS [1-9][0-9]* ' &&
	echo "$scr" | LC_ALL=C.UTF-8 grep -Eq "$1{20,}$2{3}" &&
	echo "$scr" | grep -Eq 'jank [0-9]+ .*dropped [0-9]+' &&
	echo "$scr" | grep -Eq 'p50 .*p90 .*p99 .*max '
}

start_daemon run -- "$O/apps/demo" --render 100
wait_for 20 jq_once '.fps.streams[] | select(.name == "demo" and .fps > 0)'

tm new-session -d -s hs -x 120 -y 40 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
# The overview (the FPS box on the right half at 120 columns) ...
wait_screen 20 hs grep -Eq '│ FPS [1-9][0-9]* │ app demo'
screen hs | grep -q '^NAME' || fail "the functions table is not on the overview"
# ... and view 2, full screen.
tm send-keys -t hs 2
wait_screen 20 hs panel_ok '[▁▂▃▄▅▆▇█]' '[▂▃▄▅▆▇█]'
wait_screen 10 hs grep -Eq '^ +app +demo +[0-9]+ +[0-9.]+ +[0-9.]+K? +[0-9]+ '
screen hs | grep -q "█▀\|▀▀█" || { screen hs >&2; fail "no big digits on the screen"; }
screen hs | grep -q 'budget 16.7ms (60 Hz)' || fail "the default budget is not shown"
wait_screen 20 hs grep -Eq 'jank [1-9][0-9]* '

tm send-keys -t hs ':threshold frame 5' Enter
wait_screen 10 hs grep -q 'budget 5.00ms (200 Hz)'
fps=$(screen hs | awk '/^ FPS [0-9]+ / { print $2; exit }')
echo "UTF-8 panel: FPS $fps, sparkline and big digits shown; budget changed to 5 ms"
echo "--- screen ---"
screen hs | head -n 8

tm new-window -t hs -n ascii \
	"env LANG=C LC_ALL=C '$O/hookscope' ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/ascii.err'; exec sleep 600"
wait_screen 20 ascii grep -q '^NAME'
tm send-keys -t ascii 2
wait_screen 20 ascii panel_ok '[-.:=+*#@]' '[-:=+*#@]'
screen ascii | grep -q '|_|\|  |' || fail "no ASCII digits on the screen"
echo "ok: FPS panel with a number, big digits, a sparkline, counts and percentiles (UTF-8 and ASCII)"
