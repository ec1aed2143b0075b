# tui-power.sh - the power panel of the interactive hookscope in tmux, with
# the demo's power scenario (--power 8: a kernel wakelock held 4 s then
# released, an IIO sensor buffer enabled and never disabled; the sysfs
# files under a scratch HOOKSCOPE_POWER_SYSFS): 6 (the power view) shows the held wakelock
# with its held-for ticking (two screens a second apart show a longer hold
# while the agent has sent nothing new), then released; `threshold hold 2`
# turns the sensor still held into a leak (LEAK, in the alert colour);
# Enter shows the holder stack; 1 goes back to the functions.
. tests/e2e/lib.sh
command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"

TM_SOCK="hookscope-tui-power-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT
export HOOKSCOPE_POWER_SYSFS=$HS_TMP/sys

start_daemon run -- "$O/apps/demo" --power 8
tm new-session -d -s hs -x 160 -y 40 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 20 hs grep -q '^NAME'
tm send-keys -t hs 6
wait_screen 20 hs grep -Eq 'wakelock +demo-wakelock +[^ ]+ +[0-9.]+s'
held() { screen hs | awk '/demo-wakelock/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+s$/) { print $i + 0; exit } }'; }
a=$(held)
sleep 1.2
b=$(held)
echo "held for: $a s, then $b s"
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b >= a + 0.8 && b <= a + 1.8) }' ||
	{ screen hs >&2; fail "the wakelock's held-for did not tick ($a s, then $b s)"; }
screen hs | grep -Eq 'power: [0-9]+ held' || fail "no summary row"
wait_screen 10 hs grep -Eq 'wakelock +demo-wakelock +[^ ]+ +released +4\.[0-9]s +1/1'
wait_screen 5 hs grep -Eq 'est\. mAh: .*wakelock 0\.0[0-9]+'
"$O/hookscope" --cmd "threshold hold 2" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "threshold hold refused"
wait_screen 10 hs grep -Eq 'sensor +\.\.\..*buffer/enable .* LEAK'
wait_screen 10 hs grep -Eq 'wakelock +demo-leaked .* LEAK'
# the leak's row is drawn with the error element (the alert colour): its attributes differ from a plain row's
tm capture-pane -e -p -t hs | grep 'LEAK' | grep -q $'\033\\[' || fail "the leak row has no colour of its own"
row=$(screen hs | grep -n 'buffer/enable' | head -n 1 | cut -d: -f1)
first=$(screen hs | grep -n 'CATEGORY' | cut -d: -f1)
for _ in $(seq 1 $(( row - first - 1 ))); do tm send-keys -t hs Down; done
tm send-keys -t hs Enter
wait_screen 10 hs grep -q 'holder (tid'
wait_screen 10 hs grep -Eq 'demo_power_scenario\+0x[0-9a-f]+'
tm send-keys -t hs q
tm send-keys -t hs 1
wait_screen 10 hs grep -q '^NAME'
echo "tui-power: ok"
