# budget-back.sh - a function the budget turned off and then brought back
# has a true count: the calls it made while off, unseen, are estimated once
# a window gives it a ratio again.  tests/apps/tinyfuncs (plain cc -O2 -g:
# the hook engine) at level 4: `budget 0.1` turns some of its tiny
# functions off, `budget 20` brings them back.  At the exit every function has
# its exact count (tinyfuncs' counts are known: ITER for work_N and
# dispatch, ITER * 250 for tiny_NN) or an estimate, marked, within 5% of it;
# and at least one of those off came back.
. tests/e2e/lib.sh

ITER=12000
cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }
tinyfuncs_start $ITER
back_log() { grep -E 'budget' "$HS_TMP/daemon.log"; }
HS_ON_FAIL=back_log
rows=$TF_ROWS
wait_for 30 sh -c "grep -q 'budget: a window of .*, the first' '$HS_TMP/daemon.log'"
cmd budget 0.1 >"$HS_TMP/out" || fail "budget 0.1 refused: $(cat "$HS_TMP/out")"
wait_for 20 sh -c "$O/hookscope --once --json --top 200 ws://127.0.0.1:$HS_PORT |
	jq -e '$rows | map(select(.mode == \"off\")) | length > 0' >/dev/null"
once_json --top 200 | jq -c "$rows | map(select(.mode == \"off\") | .name)" >"$HS_TMP/off.json" ||
	fail "hookscope --once --json failed"
cmd budget 20 >"$HS_TMP/out" || fail "budget 20 refused: $(cat "$HS_TMP/out")"
wait_for 20 sh -c "$O/hookscope --once --json --top 200 ws://127.0.0.1:$HS_PORT |
	jq -e --slurpfile off '$HS_TMP/off.json' '$rows | map(select(.mode != \"off\" and
	(.name as \$n | \$off[0] | index(\$n)))) | length > 0' >/dev/null"
wait_for 120 jq_once '.targets[0].state == "exited"'
once_json --top 200 >"$HS_TMP/end.json" || fail "hookscope --once --json failed"
stop_daemon

back=$(jq -r --slurpfile off "$HS_TMP/off.json" "$rows"' | map(select(.mode != "off" and
	(.name as $n | $off[0] | index($n)))) | length' "$HS_TMP/end.json")
[ "$back" -gt 0 ] || fail "none of the functions off after 'budget 0.1' ($(cat "$HS_TMP/off.json")) came back"
jq -e --argjson iter $ITER "$TF_EXACT $rows"' | all(.[]; tf_exact($iter) as $x
	| if .calls_est then ((.calls - $x) | fabs) <= 0.05 * $x else .calls == $x end)' \
	"$HS_TMP/end.json" >/dev/null ||
	fail "counts not exact or estimates off by more than 5% after functions came back from off:
$(jq -c --slurpfile off "$HS_TMP/off.json" "$rows | map([.name, .mode, .calls, .calls_est, (.name as \$n | \$off[0] | index(\$n) != null)])" "$HS_TMP/end.json")"
echo "ok: $back of the $(jq length "$HS_TMP/off.json") functions off came back; estimates within 5% (worst $(jq -r --argjson iter $ITER "$TF_EXACT $rows"' | map(select(.calls_est) | tf_exact($iter) as $x | ((.calls - $x) / $x * 1000 | round / 10)) | max_by(fabs) // "none"' "$HS_TMP/end.json")%)"
