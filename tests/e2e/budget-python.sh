# budget-python.sh - estimated counts stay true on a real program nobody here
# wrote: Debian's /usr/bin/python3 at level 4 on the bench's call-heavy loop
# (tests/bench/real/calls.py, 3 million iterations, PYTHONHASHSEED=0: the
# same calls every run), once with `--budget off` (every call timed) and
# once with the default budget.  Every function the loop calls 100000 times
# or more and the budget sampled (or turned off) has an estimated count
# within 5% of the budget-off run's exact one.  Its first window comes as the loop starts,
# while the dictionary fills: memcmp, called once a lookup finds its key,
# is called there at a fraction of its rate once the dictionary is full.
# The memory collector stays sampled in both runs (level 4 would track
# every allocation with its stack with the budget off).
. tests/e2e/lib.sh

PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian package python3)"
export HOOKSCOPE_LEVEL=4 HOOKSCOPE_MEMORY=sampled PYTHONHASHSEED=0

# run BUDGET OUT: the figures of the whole run at BUDGET, as JSON.
run() {
	start_daemon --budget "$1" run -- "$PY" tests/bench/real/calls.py 3000000
	wait_for 120 jq_once '.targets[0].state == "exited"'
	once_json --top 300 >"$2" || fail "hookscope --once --json failed"
	stop_daemon
}
run off "$HS_TMP/off.json"
jq -e '.budget_ppm == 0 and all(.funcs[]; .mode == "timed" and (.calls_est | not))' "$HS_TMP/off.json" \
	>/dev/null || fail "budget off: not every function timed and exact"
HOOKSCOPE_DEBUG=1 run 5 "$HS_TMP/on.json"
budget_log() { grep -E 'budget:|calibration' "$HS_TMP/daemon.log"; }
HS_ON_FAIL=budget_log

# The loop's sampled and off functions: name, count, exact count, error in %.
jq -r --slurpfile off "$HS_TMP/off.json" '
	([$off[0].funcs[] | select(.calls >= 100000) | {(.name): .calls}] | add) as $x
	| .funcs[] | select($x[.name] != null and (.mode == "sampled" or .mode == "off"))
	| "\(.name) \(.calls) \($x[.name]) \((.calls - $x[.name]) / $x[.name] * 100 | . * 10 | round / 10) \(.calls_est)"' \
	"$HS_TMP/on.json" >"$HS_TMP/est"
[ "$(wc -l <"$HS_TMP/est")" -ge 3 ] ||
	fail "fewer than 3 of the loop's functions sampled (nothing much estimated): $(jq -c '[.funcs[] | select(.calls >= 100000) | [.name, .mode, .calls]]' "$HS_TMP/on.json")"
awk '$5 != "true" { bad = 1 } END { exit bad }' "$HS_TMP/est" ||
	fail "a sampled count is not marked estimated: $(tr '\n' ';' <"$HS_TMP/est")"
awk '$4 > 5 || $4 < -5 { bad = 1 } END { exit bad }' "$HS_TMP/est" ||
	fail "an estimate is over 5% off budget off's exact count (name count exact error% est): $(tr '\n' ';' <"$HS_TMP/est")"
echo "ok: $(wc -l <"$HS_TMP/est") sampled or off functions within 5% (name count exact error% est): $(tr '\n' ';' <"$HS_TMP/est")"
