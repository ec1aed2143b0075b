# report-folded.sh - folded stacks (flamegraph.pl / speedscope), weighted in
# microseconds: every line "a;b;c N"; the UI-thread block samples' lines
# (under "[ui blocks]") add up to the samples the blocks took times the
# sampling interval, and the call paths' lines to the paths' self time
# (from the JSON report of the same moment: the target is stopped, so
# nothing changes in between).
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
start_report_demo
wait_for 30 jq_once '[.blocks.list[] | select(.ended)] | length >= 2'
# Under the budget the call paths come on once a decision after the
# start-up finds them affordable (doc/architecture.md, "the overhead
# budget"): a report has them some seconds in.
paths_reported() {
	"$O/hookscope" --dump "$HS_TMP/p.json" "ws://127.0.0.1:$HS_PORT" >/dev/null 2>&1 &&
		jq -e '[.sessions[0].functions.paths[] | select(.self_ns >= 500)] | length > 0' "$HS_TMP/p.json"
}
wait_for 30 paths_reported
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
sum=$(awk '/^\[ui blocks\];/ {n += $NF} END {print n + 0}' "$HS_TMP/r.folded")
want=$(jq '(.sessions[0].blocks.sample_ns / 1000) as $us | [.sessions[0].blocks.list[].samples] | add * $us' \
	"$HS_TMP/r.json")
[ "$sum" = "$want" ] && [ "$sum" -gt 0 ] || fail "folded block lines sum to $sum us, the blocks took $want us of samples"
psum=$(awk '!/^\[(ui blocks|heap)\];/ {n += $NF} END {print n + 0}' "$HS_TMP/r.folded")
pwant=$(jq '[.sessions[0].functions.paths[] | (.self_ns + 500) / 1000 | floor | select(. > 0)] | add' \
	"$HS_TMP/r.json")
[ "$psum" = "$pwant" ] && [ "$psum" -gt 0 ] ||
	fail "folded call-path lines sum to $psum us, the paths' self time is $pwant us"
# The demo's main never returns: the JSON still lists it, as the parent its
# children name (every parent id is a listed path).
jq -e '.sessions[0].functions.paths | [.[].id] as $ids | all(.[]; .parent == null or (.parent as $p | $ids | index($p)))' \
	"$HS_TMP/r.json" >/dev/null || fail "a path's parent is not among the JSON's paths"
jq -e '[.sessions[0].functions.paths[] | select(.func == "main" and .parent == null)] | length == 1' \
	"$HS_TMP/r.json" >/dev/null || fail "main is not the JSON tree's root"
grep -Eq '(^|;)loop_(sleep|spin)_cb(;| )' "$HS_TMP/r.folded" || fail "no loop callback in the stacks"
grep -q '^[^;]*;' "$HS_TMP/r.folded" || fail "no multi-frame stack"
echo "ok: $(wc -l <"$HS_TMP/r.folded") folded lines, blocks $sum us = their samples' $want us," \
	"call paths $psum us = their self time"
