# report-folded.sh - folded stacks (flamegraph.pl / speedscope) from the
# UI-thread block samples: every line "a;b;c N", and the counts add up to
# the samples the blocks took (from the JSON report of the same moment: the
# target is stopped, so nothing changes in between).
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
start_report_demo
wait_for 30 jq_once '[.blocks.list[] | select(.ended)] | length >= 2'
kill -STOP "$DEMO_PID"
t=$(date +%s%3N)
sleep 0.5        # an agent report in flight when it stopped lands first
dump "$HS_TMP/r.folded"
dump "$HS_TMP/r.json"
kill -CONT "$DEMO_PID"
[ -s "$HS_TMP/r.folded" ] || fail "empty folded report"
bad=$(grep -Ev '^[^; ][^;]*(;[^;]+)* [0-9]+$' "$HS_TMP/r.folded")
[ -z "$bad" ] || fail "lines not in folded format: $bad"
# (the heap's lines, under "[heap]", count bytes: tests/e2e/memory-report.sh)
sum=$(grep -v '^\[heap\];' "$HS_TMP/r.folded" | awk '{n += $NF} END {print n + 0}')
want=$(jq '[.sessions[0].blocks.list[].samples] | add' "$HS_TMP/r.json")
[ "$sum" = "$want" ] && [ "$sum" -gt 0 ] || fail "folded counts sum to $sum, the blocks took $want samples"
grep -Eq '(^|;)loop_(sleep|spin)_cb(;| )' "$HS_TMP/r.folded" || fail "no loop callback in the stacks"
grep -q '^[^;]*;' "$HS_TMP/r.folded" || fail "no multi-frame stack"
echo "ok: $(wc -l <"$HS_TMP/r.folded") folded lines, $sum samples = the blocks' $want"
