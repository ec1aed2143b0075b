# metrics-promtool.sh - GET /metrics on the websocket port: Prometheus text
# exposition that `promtool check metrics` accepts, every family with HELP
# and TYPE, the demo's figures in it (FPS about 60, blocks, threads, calls;
# its IPC endpoint to the helper with the slow calls the JSON snapshot
# counts; its wakelocks, one held about a second, one leaked, priced; its
# sensor held and leaked), at most 10 functions and 11 IPC series per target (bounded
# labels); other paths are 404, and the websocket still works on the same port.
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
command -v promtool >/dev/null || fail "promtool is not installed (prometheus; run 'make deps')"
command -v curl >/dev/null || fail "curl is not installed (run 'make deps')"
start_report_demo_ipc_power
M=$HS_TMP/metrics.txt
curl -sS -D "$HS_TMP/headers" -o "$M" "http://127.0.0.1:$HS_PORT/metrics" || fail "GET /metrics failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$HS_TMP/headers" ||
	fail "wrong content type: $(cat "$HS_TMP/headers")"
promtool check metrics <"$M" >"$HS_TMP/promtool.out" 2>&1 || fail "promtool: $(cat "$HS_TMP/promtool.out")"
[ -s "$HS_TMP/promtool.out" ] && fail "promtool has remarks: $(cat "$HS_TMP/promtool.out")"
for f in hookscope_target_info hookscope_calls_total hookscope_fps hookscope_frames_total \
	hookscope_jank_frames_total hookscope_frame_time_seconds hookscope_blocks_total \
	hookscope_threads hookscope_function_self_seconds_total hookscope_ipc_endpoints \
	hookscope_ipc_calls_total hookscope_ipc_sent_bytes_total hookscope_ipc_received_bytes_total \
	hookscope_ipc_call_seconds_total hookscope_ipc_slow_calls_total hookscope_power_held \
	hookscope_power_held_seconds_total hookscope_power_acquisitions_total hookscope_power_leaks \
	hookscope_power_charge_mah_total; do
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
# Series per target (the demo's IPC helper is a target too): the most any has.
per_target() { grep "^$1{" "$M" | sed 's/^[^{]*{pid="\([0-9]*\)".*/\1/' | sort | uniq -c | sort -rn | awk 'NR == 1 {print $1}'; }
n=$(per_target hookscope_function_calls_total)
[ "${n:-0}" -ge 1 ] && [ "$n" -le 10 ] || fail "$n function series for one target (want 1 to 10)"
# One sample of the demo: family and the rest of its labels (a regex).
sample() { awk -v p="$DEMO_PID" -v f="$1" -v l="$2" 'index($1, f "{pid=\"" p "\",") == 1 && $1 ~ l {print $2}' "$M"; }
ep="endpoint=\"@hookscope-demo-$DEMO_PID\""
ipc_calls=$(sample hookscope_ipc_calls_total "$ep")
ipc_out=$(sample hookscope_ipc_sent_bytes_total "$ep")
ipc_in=$(sample hookscope_ipc_received_bytes_total "$ep")
ipc_s=$(sample hookscope_ipc_call_seconds_total "$ep")
ipc_slow=$(sample hookscope_ipc_slow_calls_total "$ep")
# the IPC scenario is over: the snapshot's count is the same
snap_slow=$(once_json --target "$DEMO_PID" | jq --arg n "@hookscope-demo-$DEMO_PID" \
	'.ipc.endpoints[] | select(.name == $n) | .slow')
awk -v c="${ipc_calls:-0}" -v o="${ipc_out:-0}" -v i="${ipc_in:-0}" -v s="${ipc_s:-0}" -v n="${ipc_slow:-0}" \
	'BEGIN {exit !(c >= 20 && o > 0 && i > 0 && n >= 2 && s >= n * 0.24)}' ||
	fail "IPC of the demo: calls '$ipc_calls', bytes out '$ipc_out' in '$ipc_in', seconds '$ipc_s', slow '$ipc_slow'"
[ "$ipc_slow" = "$snap_slow" ] || fail "hookscope_ipc_slow_calls_total $ipc_slow, the snapshot says $snap_slow"
n=$(per_target hookscope_ipc_calls_total)
[ "${n:-0}" -ge 1 ] && [ "$n" -le 11 ] || fail "$n IPC series for one target (want 1 to 11)"
held=$(sample hookscope_power_held 'category="sensor"') held_w=$(sample hookscope_power_held 'category="wakelock"')
leaks=$(sample hookscope_power_leaks 'category="sensor"') leaks_w=$(sample hookscope_power_leaks 'category="wakelock"')
acq=$(sample hookscope_power_acquisitions_total 'category="wakelock"')
[ "$held" = 1 ] && [ "$held_w" = 1 ] && [ "$leaks" = 1 ] && [ "$leaks_w" = 1 ] && [ "$acq" = 2 ] ||
	fail "power of the demo: held sensor '$held' wakelock '$held_w', leaks sensor '$leaks' wakelock '$leaks_w', wakelock acquisitions '$acq'"
# demo-leaked was taken with the sensor: the wakelocks' time is the sensor's + demo-wakelock's 1 s;
# priced at 28.6 mA (cpu.idle of the sample profile)
held_s=$(sample hookscope_power_held_seconds_total 'category="wakelock"')
sensor_s=$(sample hookscope_power_held_seconds_total 'category="sensor"')
mah=$(sample hookscope_power_charge_mah_total 'category="wakelock"')
awk -v s="${held_s:-0}" -v t="${sensor_s:-0}" -v m="${mah:-0}" 'BEGIN {d = m - s * 28.6 / 3600
	exit !(t >= 3 && s - t >= 0.9 && s - t <= 1.3 && d < 1e-9 && d > -1e-9)}' ||
	fail "wakelocks held '$held_s' s, sensor '$sensor_s' s, wakelocks' charge '$mah' mAh"
[ -z "$(sample hookscope_power_charge_mah_total 'category="sensor"')" ] || fail "the unpriced sensor has a charge"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HS_PORT/other")
[ "$code" = 404 ] || fail "GET /other answered $code"
jq_once '.pid > 0' >/dev/null || fail "the websocket no longer answers"
# Keep-alive: two scrapes on one connection.
curl -sS -o /dev/null -o /dev/null "http://127.0.0.1:$HS_PORT/metrics" "http://127.0.0.1:$HS_PORT/metrics" ||
	fail "a second request on the connection failed"
echo "ok: promtool clean, $(grep -c '^# TYPE' "$M") families, $(grep -vc '^#' "$M") samples; fps $fps, blocks $blocks, threads $threads (/proc: $live);" \
	"IPC $ipc_calls calls, $ipc_out/$ipc_in bytes, $ipc_s s, $ipc_slow slow; wakelocks $held_s s = $mah mAh, sensor $sensor_s s"
