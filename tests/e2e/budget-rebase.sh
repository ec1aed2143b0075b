# budget-rebase.sh - a sampled function's count stays true when the set of
# exactly counted functions (the anchor) changes, without a sampling window
# of its own: tests/apps/tinyfuncs (plain cc -O2 -g: the hook engine) at
# level 4 starts under the default budget, which leaves its tiny functions
# counted and opens windows; `budget 0.5` then moves them from counted to
# sampled (or off).  Their estimates come from the windows they were counted in,
# against the new anchor: every one is marked and within 5% of the exact count
# (tinyfuncs' counts are known: ITER for work_N and dispatch, ITER * 250 for
# tiny_NN), and no window opens sooner than a second after the last one but
# after a restart of the ratios, or once per set of ratios, 100 ms after its
# first window with sampled calls, to confirm it (the agent's debug log,
# which says when each window opened and each restart).
. tests/e2e/lib.sh

ITER=12000
cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }
tinyfuncs_start $ITER
rows=$TF_ROWS
wait_for 30 sh -c "grep -q 'budget: a window of .*, the first' '$HS_TMP/daemon.log'"
wait_for 20 jq_once "$rows | map(select(.mode == \"counted\")) | length > 0" --top 200
cmd budget 0.5 >"$HS_TMP/out" || fail "budget 0.5 refused: $(cat "$HS_TMP/out")"
wait_for 20 jq_once "$rows | map(select(.mode == \"sampled\")) | length > 0" --top 200
wait_for 120 jq_once '.targets[0].state == "exited"'
once_json --top 200 >"$HS_TMP/end.json" || fail "hookscope --once --json failed"
stop_daemon

# Estimates: marked, within 5% of the exact counts.
jq -e --argjson iter $ITER "$TF_EXACT $rows"' as $all
	| [$all[] | select(.mode == "sampled")] as $s
	| ($s | length) > 0
	and all($all[]; tf_exact($iter) as $x
		| if .calls_est then ((.calls - $x) | fabs) <= 0.05 * $x else .calls == $x end)
	and all($s[]; .calls_est and .time_est)' "$HS_TMP/end.json" >/dev/null ||
	fail "counts not exact or estimates off by more than 5% after the anchor changed:
$(jq -c "$rows | map([.name, .mode, .calls, .calls_est])" "$HS_TMP/end.json")"

# Windows: one a second, or right after a restart of the ratios, or once per
# set of ratios (the first's, each restart's) 100 ms after the last (the
# confirmation).
grep -E 'budget: (a window of|the ratios restart|[0-9]+ functions changed mode)' "$HS_TMP/daemon.log" >"$HS_TMP/budget.log"
awk '
	/changed mode/ && seen { moved++ }
	/the ratios restart/ { restart = 1; confirmed = 0 }
	/a window of/ {
		seen = 1
		if (match($0, /[0-9]+ ms after the last/)) {
			gap = substr($0, RSTART, RLENGTH) + 0
			if (gap >= 90 && gap < 900 && !restart && !confirmed) confirmed = 1
			else if (gap < 900 && !restart) { print "a window " gap " ms after the last, no restart between"; bad = 1 }
		}
		restart = 0
	}
	END {
		if (!seen) { print "no window in the log"; bad = 1 }
		if (!moved) { print "no decision after the first window: the anchor never changed under one"; bad = 1 }
		exit bad
	}' "$HS_TMP/budget.log" >"$HS_TMP/why" || fail "$(cat "$HS_TMP/why"); the budget's log:
$(cat "$HS_TMP/budget.log")"
echo "ok: $(jq "$rows | map(select(.mode == \"sampled\")) | length" "$HS_TMP/end.json") functions sampled after 'budget 0.5', estimates within 5% (worst $(jq -r --argjson iter $ITER "$TF_EXACT $rows"' | map(select(.calls_est) | tf_exact($iter) as $x | ((.calls - $x) / $x * 1000 | round / 10)) | max_by(fabs) // "none"' "$HS_TMP/end.json")%); $(grep -c 'a window of' "$HS_TMP/budget.log") windows, $(grep -c 'changed mode' "$HS_TMP/budget.log") decisions, none sooner than 900 ms after the last without a restart but the confirmation"
