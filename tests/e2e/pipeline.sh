# pipeline.sh - the whole pipeline with a real daemon and the real demo:
# exact call counts, the known hot function ranking first, the final figures
# of an exited target kept.
. tests/e2e/lib.sh
K=25

# Per cycle the demo makes: slow_work 1, fast_hash 1050, parse_record 10, worker_step 20.
check_counts() {   # json file
	jq -e --argjson k $K '
		(.funcs | map({(.name): .calls}) | add) as $c
		| $c.slow_work == $k and $c.fast_hash == 1050 * $k
		  and $c.parse_record == 10 * $k and $c.worker_step == 20 * $k' "$1" >/dev/null ||
		fail "call counts are not exact after $K cycles: $(jq -c '[.funcs[] | {name, calls}]' "$1")"
}

start_daemon run -- "$O/apps/demo" --cycles $K --period-ms 20
wait_for 30 jq_once ".funcs[] | select(.name == \"slow_work\" and .calls == $K)" --top 200
once_json --top 200 >"$HS_TMP/f.json" || fail "hookscope --once --json failed"
check_counts "$HS_TMP/f.json"
jq -e '.targets | length == 1 and .[0].state == "live" and .[0].name == "demo"' "$HS_TMP/f.json" >/dev/null ||
	fail "target list is wrong: $(jq -c .targets "$HS_TMP/f.json")"

# By self time, the ~1 ms function ranks first; its average is about 1 ms.
once_json --sort self --top 5 >"$HS_TMP/s.json" || fail "--sort self failed"
jq -e '.sort == "self" and .funcs[0].name == "slow_work"' "$HS_TMP/s.json" >/dev/null ||
	fail "slow_work does not rank first by self time: $(jq -c '[.funcs[] | {name, self_ns}]' "$HS_TMP/s.json")"
jq -e '.funcs[0].avg_ns >= 900000 and .funcs[0].avg_ns < 50000000' "$HS_TMP/s.json" >/dev/null ||
	fail "slow_work's average is not about 1 ms: $(jq -c '.funcs[0]' "$HS_TMP/s.json")"
# Self time never exceeds total time, and shares add up to at most 1.
jq -e '(.funcs | all(.self_ns <= .total_ns)) and ((.funcs | map(.share) | add) <= 1.0001)' \
	"$HS_TMP/f.json" >/dev/null || fail "self/total/share are inconsistent"
stop_daemon

# A target that exits: its session stays, exited, with the final figures.
start_daemon run -- "$O/apps/demo" --cycles $K --period-ms 10 --exit
wait_for 30 jq_once '.targets[0].state == "exited"'
once_json --top 200 >"$HS_TMP/e.json" || fail "no frame for the exited target"
check_counts "$HS_TMP/e.json"
jq -e '.targets[0].ended_ms > 0' "$HS_TMP/e.json" >/dev/null || fail "exited target has no end time"
echo "ok: exact counts for $K cycles, slow_work first by self time, exited session kept"
