# fps-glxgears.sh - hookscope's frame rate against the programs' own: the
# real glxgears (glXSwapBuffers) at its default size and at 1600x1000 (a
# clearly lower rate), and es2gears_x11 (eglSwapBuffers), each under a
# private Xvfb for about 16 s.  They print "N frames in 5.0 seconds = X FPS"
# every 5 s; hs-linestamp stamps each line with the monotonic clock the agent
# stamps frames with; data/fps-windows.awk compares: hookscope's FPS must
# agree with the printed FPS within 2% for the two full windows after the
# first (the first includes start-up).
. tests/e2e/lib.sh

for tool in Xvfb glxgears es2gears_x11; do
	command -v "$tool" >/dev/null || fail "$tool is not installed (packages xvfb, mesa-utils; run 'make deps')"
done
STDBUF_LIB=/usr/libexec/coreutils/libstdbuf.so
[ -f "$STDBUF_LIB" ] || fail "$STDBUF_LIB is missing (coreutils)"

start_xvfb

start_daemon

# Lines of $1 that report a 5-second count.
fps_lines() { grep -c ' frames in .* seconds = ' "$1" 2>/dev/null; }
# Does the target's stream of api $2 have history up to monotonic ns $3?
history_covers() {
	jq_once "[.fps.streams[] | select(.api == \"$2\")][0].bins_end_ns > $3" --target "$1"
}

# run_case NAME API CMD...: run it with the agent, compare, report.
run_case() {
	local name=$1 api=$2 pid t3 out=$HS_TMP/$1.out
	shift 2
	# libstdbuf makes es2gears flush each line (glxgears does it itself);
	# it goes after the agent so a sanitizer runtime stays first.
	env LD_PRELOAD="$HS_PRELOAD:$STDBUF_LIB" _STDBUF_O=L HOOKSCOPE_SOCKET="$HS_SOCK" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$@" \
		> >("$O/tools/hs-linestamp" >"$out") 2>"$HS_TMP/$name.err" &
	pid=$!
	HS_PIDS="$HS_PIDS $pid"
	wait_for 45 sh -c "[ \$(grep -c ' frames in .* seconds = ' '$out') -ge 3 ]"
	t3=$(grep ' frames in .* seconds = ' "$out" | sed -n 3p | cut -d' ' -f1)
	wait_for 10 history_covers "$pid" "$api" "$((t3 + 100000000))"
	once_json --target "$pid" | jq -c "[.fps.streams[] | select(.api == \"$api\")][0]" \
		>"$HS_TMP/$name.json" || fail "$name: no $api stream"
	kill -TERM "$pid" 2>/dev/null
	# Window k runs from line k to line k+1 (k = 1, 2): printed FPS vs ours.
	grep ' frames in .* seconds = ' "$out" | head -n 3 | awk -v name="$name" \
		-v json="$(cat "$HS_TMP/$name.json")" -f tests/e2e/data/fps-windows.awk ||
		fail "$name: hookscope's FPS is more than 2% off the program's own (see above)"
	echo "$name: $(jq -r '"\(.frames) frames, jank \(.jank), p50 \(.p50_ns) ns, api \(.api)"' "$HS_TMP/$name.json")"
}

run_case glxgears glx glxgears
run_case glxgears-1600x1000 glx glxgears -geometry 1600x1000
run_case es2gears egl es2gears_x11
echo "ok: glxgears (two sizes) and es2gears_x11 agree with hookscope within 2%"
