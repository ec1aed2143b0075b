# startup-glxgears.sh - the real glxgears under a private Xvfb, run by
# `hookscoped run`: the time to its first frame (its first glXSwapBuffers)
# shows, after main, with the GLX stream the fps collector counts; the
# constructors of its GL libraries are timed; the text report has the phase.
. tests/e2e/lib.sh

for tool in Xvfb glxgears; do
	command -v "$tool" >/dev/null || fail "$tool is not installed (packages xvfb, mesa-utils; run 'make deps')"
done
exec 5>"$HS_TMP/display"
spawn Xvfb -displayfd 5 -nolisten tcp -noreset -screen 0 1280x1024x24 2>"$HS_TMP/xvfb.log"
exec 5>&-
wait_for 20 test -s "$HS_TMP/display"
DISPLAY=:$(cat "$HS_TMP/display")
export DISPLAY

start_daemon run -- glxgears
wait_for 30 jq_once '.startup.frame_ns > 0 and (.fps.streams | length) > 0'
once_json >"$HS_TMP/once.json"
jq -e '.startup as $s | $s.exec_from == "run" and $s.main_ns > $s.exec_ns and
	$s.frame_ns > $s.main_ns and ($s.frame_ns - $s.exec_ns) < 30e9 and
	any($s.libs[]; .name | test("libGLX?[._]")) and
	(.fps.streams[0].api == "glx")' "$HS_TMP/once.json" >/dev/null ||
	fail "glxgears start wrong: $(jq -c '{startup: .startup | del(.libs), libs: [.startup.libs[].name], fps: [.fps.streams[] | {api, frames}]}' "$HS_TMP/once.json")"
jq -r '.startup | "glxgears: to main \((.main_ns - .exec_ns) / 1e6) ms, to first frame \((.frame_ns - .exec_ns) / 1e6) ms, \(.libs | length) libraries timed"' "$HS_TMP/once.json"
# The report's phase.
"$O/hookscope" --dump "$HS_TMP/r.txt" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "dump failed"
grep -Eq "^  to first frame +[0-9.]+ (ms|s)" "$HS_TMP/r.txt" || fail "no time to first frame in the report: $(sed -n '/^Startup/,/^library/p' "$HS_TMP/r.txt")"
echo "startup-glxgears: ok"
