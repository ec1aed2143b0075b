# budget-counts.sh - the overhead budget keeps counts true: tests/apps/tinyfuncs
# (millions of tiny calls a second, known exact counts) at level 4 with the
# default budget (5%) and with 0.5%, built both ways the agent times code: plain
# `cc -O2 -g` (the hook engine's relocated prologues) and make's
# -finstrument-functions build.  Each budget must demote some functions, and
# 0.5% must leave some only sampled (their counts estimated; some may be
# turned off there, their counts estimated too): every tiny function counted costs
# 0.6-4% of tinyfuncs' CPU here, by the run's calibration of the counted
# path, so 1% could hold them all counted; every function
# timed or counted all along has the exact count; every estimated count (a
# function sampled or off, now or for a while) is within 5% of the exact count of a
# `--budget off` run of the same deterministic workload, and the JSON marks
# it (calls_est, time_est, the mode).
. tests/e2e/lib.sh

ITER=3000
cc_prog tests/apps/tinyfuncs/tinyfuncs.c
export HOOKSCOPE_LEVEL=4

# run BUDGET PROG OUT: the figures of PROG's whole run at BUDGET, as JSON.
run() {
	start_daemon --budget "$1" run -- "$2" $ITER
	wait_for 60 jq_once '.targets[0].state == "exited"'
	once_json --top 200 >"$3" || fail "hookscope --once --json failed"
	stop_daemon
}

# check PROG BUDGET_PCT JSON: demotions, exact counts, estimates within 5%.
check() {
	local prog=$1 pct=$2 on=$3 demoted ppm
	ppm=$(awk -v p="$pct" 'BEGIN { printf "%d", p * 10000 + 0.5 }')
	jq -e --argjson ppm "$ppm" '.budget_ppm == $ppm' "$on" >/dev/null ||
		fail "budget $pct%: budget_ppm $(jq .budget_ppm "$on"), not $ppm"
	# The budget demoted functions, and says so per row.
	demoted=$(jq '[.funcs[] | select(.mode != "timed")] | length' "$on")
	[ "$demoted" -gt 0 ] || fail "$prog: the budget of $pct% demoted nothing: $(jq -c '[.funcs[] | [.name, .mode, .calls]]' "$on")"
	# Timed and counted: exact.  Sampled and off: marked, within 5% of budget off's.
	jq -e --slurpfile off "$HS_TMP/off.json" '
		([$off[0].funcs[] | {(.name): .calls}] | add) as $exact
		| '"$TF_ROWS"' as $f
		| all($f[] | select(.calls_est | not); .calls == $exact[.name] and .mode != "sampled" and .mode != "off")
		and all($f[] | select(.mode == "counted"); .time_est)
		and all($f[] | select(.mode == "sampled" or .mode == "off"); .calls_est and .time_est)
		and all($f[] | select(.calls_est); ((.calls - $exact[.name]) | fabs) <= 0.05 * $exact[.name])' "$on" >/dev/null ||
		fail "$prog, budget $pct%: counts not exact or estimates off by more than 5%:
$(jq -c --slurpfile off "$HS_TMP/off.json" '([$off[0].funcs[] | {(.name): .calls}] | add) as $e
	| '"$TF_ROWS"' | map([.name, .mode, .calls, $e[.name], .calls_est])' "$on")"
	echo "ok: $prog, budget $pct%: $demoted functions demoted ($(jq -r '[.funcs[] | .mode] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' "$on")), cost $(jq .cost_ppm "$on") ppm; exact where timed or counted, estimates within 5%"
	echo "  worst estimate: $(jq -r --slurpfile off "$HS_TMP/off.json" '([$off[0].funcs[] | {(.name): .calls}] | add) as $e
		| [.funcs[] | select(.calls_est) | ((.calls - $e[.name]) / $e[.name] * 1000 | round / 10)] | max_by(fabs) // "none"' "$on")%"
}

for prog in "$HS_TMP/tinyfuncs" "$O/apps/tinyfuncs"; do
	run off "$prog" "$HS_TMP/off.json"
	# Budget off: every figure exact, every function timed.
	jq -e --argjson n $ITER "$TF_EXACT $TF_ROWS"' as $f
		| ($f | length) == 51
		and all($f[]; .mode == "timed" and (.calls_est | not) and (.time_est | not))
		and all($f[]; .calls == tf_exact($n))' \
		"$HS_TMP/off.json" >/dev/null ||
		fail "$prog, budget off: not every count exact and timed: $(jq -c '[.funcs[] | [.name, .mode, .calls]]' "$HS_TMP/off.json")"
	jq -e '.budget_ppm == 0' "$HS_TMP/off.json" >/dev/null || fail "budget off: budget_ppm is not 0"
	run 5 "$prog" "$HS_TMP/on.json"
	check "$prog" 5 "$HS_TMP/on.json"
	# 0.5%: some functions only sampled (a slower build, the sanitizers',
	# may have to turn some off as well).
	run 0.5 "$prog" "$HS_TMP/low.json"
	check "$prog" 0.5 "$HS_TMP/low.json"
	jq -e '[.funcs[] | select(.mode == "sampled" and .calls_est)] | length > 0' "$HS_TMP/low.json" >/dev/null ||
		fail "$prog, budget 0.5%: no function sampled with its count estimated: $(jq -c '[.funcs[] | [.name, .mode, .calls]]' "$HS_TMP/low.json")"
done
