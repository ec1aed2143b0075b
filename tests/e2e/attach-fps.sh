# attach-fps.sh - frame rate of a program hookscope did not start: Debian's
# glxgears runs under a private Xvfb without the agent, is attached after
# its first "N frames in 5.0 seconds" line, and hookscope's FPS must agree
# with glxgears' own within 2% over the two 5-second windows that lie wholly
# after the attach (data/fps-windows.awk, as fps-glxgears.sh).  Then it is
# detached: glxgears keeps running and printing, and /proc/PID/maps has no
# agent.
. tests/e2e/lib.sh

for tool in Xvfb glxgears; do
	command -v "$tool" >/dev/null || fail "$tool is not installed (packages xvfb, mesa-utils; run 'make deps')"
done

start_xvfb
start_daemon

out=$HS_TMP/gears.out
lines() { grep -c ' frames in .* seconds = ' "$out" 2>/dev/null; }
lines_at_least() { [ "$(lines)" -ge "$1" ]; }
history_covers() {
	jq_once "[.fps.streams[] | select(.api == \"glx\")][0].bins_end_ns > $2" --target "$1"
}

if [ -n "$HS_SAN_RT" ]; then
	env LD_PRELOAD="$HS_SAN_RT" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" glxgears \
		> >("$O/tools/hs-linestamp" >"$out") 2>"$HS_TMP/gears.err" &
else
	glxgears > >("$O/tools/hs-linestamp" >"$out") 2>"$HS_TMP/gears.err" &
fi
GP=$!
HS_PIDS="$HS_PIDS $GP"
wait_for 30 lines_at_least 1
"$O/hookscoped" --socket "$HS_SOCK" attach "$GP" --level 1 >"$HS_TMP/attach.txt" 2>&1 ||
	fail "attach failed: $(cat "$HS_TMP/attach.txt")"
wait_for 20 jq_once "[.targets[] | select(.pid == $GP and .state == \"live\" and .level == 1)] | length == 1"
# The first line after the attach closes a window that began before it:
# the windows compared start there.
first=$(( $(lines) + 1 ))
wait_for 45 lines_at_least $(( first + 2 ))
t3=$(grep ' frames in .* seconds = ' "$out" | sed -n "$(( first + 2 ))p" | cut -d' ' -f1)
wait_for 10 history_covers "$GP" "$(( t3 + 100000000 ))"
once_json --target "$GP" | jq -c '[.fps.streams[] | select(.api == "glx")][0]' >"$HS_TMP/gears.json" ||
	fail "no glx stream after the attach"
grep ' frames in .* seconds = ' "$out" | sed -n "${first},$(( first + 2 ))p" |
	awk -v name="glxgears (attached)" -v json="$(cat "$HS_TMP/gears.json")" -f tests/e2e/data/fps-windows.awk ||
	fail "hookscope's FPS after the attach is more than 2% off glxgears' own (see above)"

"$O/hookscoped" detach "$GP" >"$HS_TMP/detach.txt" 2>&1 ||
	fail "detach failed: $(cat "$HS_TMP/detach.txt"); glxgears said: $(grep hookscope "$HS_TMP/gears.err")"
cat "$HS_TMP/detach.txt"
grep -q libhookscope "/proc/$GP/maps" && fail "the agent is still mapped after the detach"
n=$(lines)
wait_for 15 lines_at_least $(( n + 2 ))
kill -0 "$GP" 2>/dev/null || fail "glxgears is gone after the detach"
grep -q libhookscope "/proc/$GP/maps" && fail "the agent is mapped again"
stop_daemon
echo "attach-fps: ok (glxgears printed $(( $(lines) - n )) lines after the detach)"
