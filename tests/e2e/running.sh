# running.sh - time of calls that have not returned yet: a function stuck in a
# 4 s call shows its time so far (running_ns) before it returns, ranks by
# total above the hot functions while stuck (only main and worker_main, which
# never return, rank above it), then lands in total_ns when it returns; main's
# running time grows from frame to frame.
. tests/e2e/lib.sh
STALL_MS=4000

start_daemon run -- "$O/apps/demo" --period-ms 20 --stall-ms $STALL_MS

# While stuck: no call counted yet, more than a second of running time.
stuck='.funcs[] | select(.name == "stuck_work" and .calls == 0 and .running_ns > 1e9)'
wait_for 20 jq_once "$stuck" --top 200

# Still while stuck: by total (returned + running) it outranks every function
# but main and worker_main; avg and max are figures of returned calls only.
once_json --sort total --top 200 >"$HS_TMP/t.json" || fail "hookscope --once --json failed"
jq -e "$stuck" "$HS_TMP/t.json" >/dev/null ||
	fail "stuck_work returned before its ranking could be checked (machine too slow?): $(jq -c '.funcs[] | select(.name == "stuck_work")' "$HS_TMP/t.json")"
jq -e '.sort == "total"
	and ([.funcs[].name] | index("stuck_work")) as $k
	| ([.funcs[:$k][].name] - ["main", "worker_main"]) == []
	  and ([.funcs[].name] | index("slow_work")) > $k' "$HS_TMP/t.json" >/dev/null ||
	fail "stuck_work does not rank first by total while stuck: $(jq -c '[.funcs[] | {name, total_ns, running_ns}]' "$HS_TMP/t.json")"
jq -e '.funcs[] | select(.name == "stuck_work") | .avg_ns == 0 and .max_ns == 0 and .total_ns == 0' \
	"$HS_TMP/t.json" >/dev/null ||
	fail "a call in flight changed total, avg or max: $(jq -c '.funcs[] | select(.name == "stuck_work")' "$HS_TMP/t.json")"

# The plain table marks a total that includes running time with a '+'.
"$O/hookscope" --once --sort total "ws://127.0.0.1:$HS_PORT" >"$HS_TMP/t.txt" || fail "hookscope --once failed"
awk '$1 == "main" && $4 ~ /\+$/ { ok = 1 } END { exit !ok }' "$HS_TMP/t.txt" ||
	fail "main's TOTAL has no running marker: $(cat "$HS_TMP/t.txt")"

# main never returns: its running time grows from one frame to a later one.
r1=$(jq -e '.funcs[] | select(.name == "main" and .calls == 0) | .running_ns' "$HS_TMP/t.json") ||
	fail "main is not listed with running time: $(jq -c '[.funcs[].name]' "$HS_TMP/t.json")"
wait_for 5 jq_once ".funcs[] | select(.name == \"main\" and .running_ns > $r1)" --top 200

# After it returns: one call of at least the stall, nothing running.
wait_for 20 jq_once '.funcs[] | select(.name == "stuck_work" and .calls == 1 and .running_ns == 0)' --top 200
once_json --top 200 >"$HS_TMP/r.json" || fail "hookscope --once --json failed"
jq -e --argjson ns $((STALL_MS * 1000000)) '.funcs[] | select(.name == "stuck_work")
	| .calls == 1 and .running_ns == 0 and .total_ns >= $ns and .max_ns >= $ns' "$HS_TMP/r.json" >/dev/null ||
	fail "stuck_work after it returned: $(jq -c '.funcs[] | select(.name == "stuck_work")' "$HS_TMP/r.json")"

# The report has a running column (main is still in flight).
"$O/hookscope" --dump "$HS_TMP/report.txt" "ws://127.0.0.1:$HS_PORT" || fail "--dump failed"
grep -q ' running ' "$HS_TMP/report.txt" || fail "the report has no running column"
# rank, calls 0, total "0 ns", running "N unit", ... "main [demo]"
grep -Eq '^ *[0-9]+ +0 +0 ns +[0-9.]+ (ns|us|ms|s) .* main \[demo\]$' "$HS_TMP/report.txt" ||
	fail "the report shows no running time for main: $(cat "$HS_TMP/report.txt")"
echo "ok: stuck_work ran $(jq '.funcs[] | select(.name == "stuck_work") | .total_ns' "$HS_TMP/r.json") ns," \
	"shown while running and ranked by total; main's running time grows"
