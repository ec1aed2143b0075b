# budget-sampled.sh - the agent's cost as its pc samples measure it, checked
# against perf on a real program nobody here wrote: Debian's /usr/bin/python3
# at level 2 (default budget: functions demoted, so the self-time samples
# run) on the bench's call-heavy loop (tests/bench/real/calls.py).  Once the
# agent has 1000 samples, `perf record -e cpu-clock -p PID` watches the same
# process for 10 s; perf's share of python's samples in the agent's code (the
# agent's library and its blocks, anonymous code perf names [JIT]) must be
# within 1.5 percentage points of the agent's cost_sampled_ppm, which must
# also appear in the frame, the JSON report and /metrics.
. tests/e2e/lib.sh

PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian package python3)"
command -v perf >/dev/null 2>&1 || fail "perf is not installed (apt-get install linux-perf; mk/deps.sh lists it)"

start_daemon run --level 2 -- "$PY" tests/bench/real/calls.py 1000000000
wait_for 20 jq_once '.targets[0].state == "live" and .targets[0].pid > 0'
pid=$(once_json | jq '.targets[0].pid')
# 100 samples per second of CPU: about 10 s.
wait_for 60 jq_once '.cost_samples >= 1000 and .demoted > 0' --target "$pid"

perf record -q -e cpu-clock -F 1000 -p "$pid" -o "$HS_TMP/perf.data" -- sleep 10 \
	>"$HS_TMP/perf.out" 2>"$HS_TMP/perf.err" || fail "perf record -p $pid failed: $(cat "$HS_TMP/perf.err")"
once_json --target "$pid" >"$HS_TMP/frame.json"
a=$(jq '.cost_sampled_ppm' "$HS_TMP/frame.json")
[ "$a" -gt 0 ] 2>/dev/null || fail "no sampled cost in the frame: $(jq -c 'del(.funcs, .paths)' "$HS_TMP/frame.json")"

# perf: python's thread only (the agent's threads are named hookscope*).
perf report -i "$HS_TMP/perf.data" --comm python3 --sort dso -n --no-children --stdio \
	2>"$HS_TMP/report.err" >"$HS_TMP/report.txt" || fail "perf report failed: $(cat "$HS_TMP/report.err")"
set -- $(awk '$1 ~ /%$/ { all += $2; if ($3 == "libhookscope.so" || $3 == "[JIT]") agent += $2 }
	END { printf "%d %d\n", all, agent }' "$HS_TMP/report.txt")
all=$1 agent=$2
[ "$all" -ge 3000 ] || fail "perf took only $all samples of python3 in 10 s: $(head -20 "$HS_TMP/report.txt")"
p=$((agent * 1000000 / all))
d=$((a > p ? a - p : p - a))
echo "agent: $a ppm of its last $(jq .cost_samples "$HS_TMP/frame.json") samples in its code; perf: $agent of $all samples = $p ppm"
[ "$d" -le 15000 ] || fail "the agent's sampled cost ($a ppm) is not perf's ($p ppm) within 1.5 points:
$(grep -v '^#' "$HS_TMP/report.txt" | head -8)"

# The report and /metrics carry it too.
"$O/hookscope" --cmd "dump -f json -n sampled" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "dump -f json failed"
jq -e '.sessions[0].functions | .cost_sampled_ppm > 0 and .cost_samples >= 1000' \
	"$(ls "$HS_TMP"/reports/sampled-*.json)" >/dev/null || fail "JSON report: no sampled cost"
curl -sS "http://127.0.0.1:$HS_PORT/metrics" >"$HS_TMP/metrics" || fail "GET /metrics failed"
grep -Eq "^hookscope_agent_sampled_cost_ratio\{pid=\"$pid\"" "$HS_TMP/metrics" ||
	fail "/metrics has no hookscope_agent_sampled_cost_ratio for $pid"
kill "$pid"
echo "ok: python3: the agent's sampled cost is perf's within 1.5 points"
