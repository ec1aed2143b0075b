# budget-probe.sh - the overhead budget on a loop whose every hot function
# is small and as hot as the others (tests/e2e/data/tinyeq.c: 3 functions,
# each called 2 x ITER times, about 10 ns a call): counting any of them
# costs 2-10% of the CPU by the agent's calibration (1.3-3 ns a count from
# one start to the next; fewer calls per CPU-ns in this VM's slow phases;
# the count is the block's own instructions, no sanitizer's), more than
# half a 1.5% budget (3.3% under a sanitizer: budget_for), so none can be
# the anchor whose exact calls estimate the sampled ones, and an anchor the
# first decision keeps counted (judged while every function was timed and
# the loop ran several times slower) puts the cost over it (at 2.5% a low
# calibration in a slow phase left it within: no probe, 1 run in 5);
# sampling windows over all three cost under 1% (2%
# under a sanitizer, whose timed calls cost twice as much), within it even
# when a loaded machine delays the reporter's tick that closes them.  The budget names a probe instead
# (counted in short spells, its calls between them from the CPU time):
# every sampled function's estimated count is within 15% of the exact one,
# marked (a rate over CPU time rests on the count's calibrated cost and the
# machine's pace: doc/architecture.md, "The probe"; with no probe the
# estimates were 99% low here); the run has no window that lost its anchor,
# and no more windows than one a second (plus the first's confirmation).  Level 2, the agent's
# log (HOOKSCOPE_DEBUG) in the daemon's.
. tests/e2e/lib.sh

ITER=100000000
cc -O2 -g -pthread -o "$HS_TMP/tinyeq" tests/e2e/data/tinyeq.c || fail "cannot build tinyeq.c"
export HOOKSCOPE_LEVEL=2 HOOKSCOPE_DEBUG=1
t0=$(date +%s)
start_daemon --budget "$(budget_for 1.5)" run -- "$HS_TMP/tinyeq" $ITER
wait_for 120 jq_once '.targets[0].state == "exited"'
secs=$(( $(date +%s) - t0 + 1 ))
once_json --top 200 >"$HS_TMP/on.json" || fail "hookscope --once --json failed"
stop_daemon
log=$HS_TMP/daemon.log
grep -q "^done $((2 * ITER))\$" "$log" || fail "tinyeq did not finish: $(tail -5 "$log")"

rows=$(jq -c '[.funcs[] | select(.name | test("^(f[01]|work)$")) | [.name, .mode, .calls, .calls_est]]' "$HS_TMP/on.json")
jq -e '[.funcs[] | select(.name | test("^(f[01]|work)$"))] | length == 3' "$HS_TMP/on.json" >/dev/null ||
	fail "not 3 functions in the report: $rows"
grep -q "is the probe" "$log" || fail "the budget named no probe: $(grep 'budget:' "$log" | head -20)"
jq -e '[.funcs[] | select(.name | test("^(f[01]|work)$")) | select(.mode == "sampled")] | length >= 1' \
	"$HS_TMP/on.json" >/dev/null || fail "no function sampled: $rows"
# Exact where timed or counted all along; within 15% where estimated, marked
# (sampled, or off: under a sanitizer a window lasts until the slow reporter
# closes it, 13 ms seen, and the rule charges sampling that much).
jq -e --argjson n $((2 * ITER)) '[.funcs[] | select(.name | test("^(f[01]|work)$"))]
	| all(.[] | select(.mode == "sampled" or .mode == "off"); .calls_est)
	and all(.[] | select(.calls_est | not); .calls == $n)
	and all(.[] | select(.calls_est); ((.calls - $n) | fabs) <= 0.15 * $n)' "$HS_TMP/on.json" >/dev/null ||
	fail "counts not exact or estimates off by more than 15% of $((2 * ITER)): $rows
$(grep -E "budget: [^a]|the anchor|probe" "$log" | head -30)"
lost=$(grep -c "the anchor lost" "$log")
wins=$(grep -c "budget: a window of" "$log")
spells=$(grep -c "budget: a spell of" "$log")
[ "$lost" -eq 0 ] || fail "$lost windows lost their anchor: $(grep -E 'budget: (a window|the anchor|[0-9]+ functions changed)' "$log" | head -20)"
[ "$wins" -le $((secs + 2)) ] || fail "$wins windows in $secs s: $(grep 'budget:' "$log" | head -20)"
[ "$spells" -ge 1 ] || fail "no spell of the probe"
echo "ok: $wins windows and $spells spells in about $secs s, none lost; $(jq -r '[.funcs[] | select(.name | test("^(f[01]|work)$")) | .mode] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' "$HS_TMP/on.json"); cost $(jq .cost_ppm "$HS_TMP/on.json") ppm"
echo "  worst estimate: $(jq -r --argjson n $((2 * ITER)) '[.funcs[] | select(.name | test("^(f[01]|work)$")) | select(.calls_est) | ((.calls - $n) / $n * 1000 | round / 10)] | max_by(fabs) // "none"' "$HS_TMP/on.json")%"
