# metrics-promtool.sh - GET /metrics on the websocket port: Prometheus text
# exposition that `promtool check metrics` accepts, every family with HELP
# and TYPE, the demo's figures in it (FPS about 60, blocks, threads, calls),
# at most 10 functions per target (bounded labels); other paths are 404,
# and the websocket still works on the same port.
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
command -v promtool >/dev/null || fail "promtool is not installed (prometheus; run 'make deps')"
command -v curl >/dev/null || fail "curl is not installed (run 'make deps')"
start_report_demo
M=$HS_TMP/metrics.txt
curl -sS -D "$HS_TMP/headers" -o "$M" "http://127.0.0.1:$HS_PORT/metrics" || fail "GET /metrics failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$HS_TMP/headers" ||
	fail "wrong content type: $(cat "$HS_TMP/headers")"
promtool check metrics <"$M" >"$HS_TMP/promtool.out" 2>&1 || fail "promtool: $(cat "$HS_TMP/promtool.out")"
[ -s "$HS_TMP/promtool.out" ] && fail "promtool has remarks: $(cat "$HS_TMP/promtool.out")"
for f in hookscope_target_info hookscope_calls_total hookscope_fps hookscope_frames_total \
	hookscope_jank_frames_total hookscope_frame_time_seconds hookscope_blocks_total \
	hookscope_threads hookscope_function_self_seconds_total; do
	grep -q "^# HELP $f " "$M" && grep -q "^# TYPE $f " "$M" || fail "no HELP/TYPE for $f"
done
fps=$(awk -v p="$DEMO_PID" '$1 ~ "^hookscope_fps[{]pid=\"" p "\"" && /stream="demo"/ {print $2}' "$M")
awk -v f="${fps:-0}" 'BEGIN {exit !(f >= 40 && f <= 70)}' || fail "hookscope_fps of the demo is '$fps'"
blocks=$(awk -v p="$DEMO_PID" '$1 ~ "^hookscope_blocks_total[{]pid=\"" p "\"" {print $2}' "$M")
[ "${blocks:-0}" -ge 1 ] || fail "hookscope_blocks_total is '$blocks'"
threads=$(awk -v p="$DEMO_PID" '$1 ~ "^hookscope_threads[{]pid=\"" p "\"" {print $2}' "$M")
live=$(ls /proc/"$DEMO_PID"/task | wc -l)
# The agent's own threads are not the target's: live counts the target's.
[ "${threads:-0}" -ge 3 ] && [ "$threads" -le "$live" ] || fail "hookscope_threads $threads, /proc says $live tasks"
n=$(grep -c '^hookscope_function_calls_total{' "$M")
[ "$n" -ge 1 ] && [ "$n" -le 10 ] || fail "$n function series (want 1 to 10)"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HS_PORT/other")
[ "$code" = 404 ] || fail "GET /other answered $code"
jq_once '.pid > 0' >/dev/null || fail "the websocket no longer answers"
# Keep-alive: two scrapes on one connection.
curl -sS -o /dev/null -o /dev/null "http://127.0.0.1:$HS_PORT/metrics" "http://127.0.0.1:$HS_PORT/metrics" ||
	fail "a second request on the connection failed"
echo "ok: promtool clean, $(grep -c '^# TYPE' "$M") families, $(grep -vc '^#' "$M") samples; fps $fps, blocks $blocks, threads $threads (/proc: $live)"
