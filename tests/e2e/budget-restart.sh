# budget-restart.sh - a sampled function's count stays true across a change
# of phase: tests/apps/phases (plain cc -O2 -g: the hook engine) at level 4
# (the default 5% budget; budget_for scales it under a sanitizer) runs
# group 0's ten tiny functions hot, where the budget demotes them and
# takes its first sampling window, then a quiet spell, then group 1's.  The
# window saw none of group 1's calls; when the budget samples them, the
# ratios it would estimate them by are taken in another phase: they must
# restart with a window of group 1's own.  Every tiny function of a group is
# called 100 times per call of its group function, which stays timed (a few
# calls a ms): each of group 1's sampled (or off) functions has an estimated count
# within 5% of 100 times group_1's exact one.
. tests/e2e/lib.sh

cc_prog tests/apps/phases/phases.c
export HOOKSCOPE_LEVEL=4 HOOKSCOPE_DEBUG=1
start_daemon --budget "$(budget_for 5)" run -- "$HS_TMP/phases" 2 600 300
wait_for 120 jq_once '.targets[0].state == "exited"'
once_json --top 300 >"$HS_TMP/f.json" || fail "hookscope --once --json failed"
stop_daemon
restart_log() { grep -E 'phases: group|budget:|calibration' "$HS_TMP/daemon.log"; }
HS_ON_FAIL=restart_log

jq -e '[.funcs[] | select(.name == "group_1" and (.mode == "timed" or .mode == "counted"))] | length == 1' \
	"$HS_TMP/f.json" >/dev/null ||
	fail "group_1 is not counted exactly: $(jq -c '[.funcs[] | select(.name == "group_1")]' "$HS_TMP/f.json")"
# Group 1's functions: name, mode, count, its error against 100 x group_1's, in %.
jq -r '([.funcs[] | select(.name == "group_1")][0].calls * 100) as $x |
	.funcs[] | select(.name | startswith("tiny_1_")) |
	"\(.name) \(.mode) \(.calls) \((.calls - $x) / $x * 100 | . * 10 | round / 10)"' \
	"$HS_TMP/f.json" >"$HS_TMP/g1"
[ "$(wc -l <"$HS_TMP/g1")" -eq 10 ] || fail "group 1 has $(wc -l <"$HS_TMP/g1") tiny functions seen, not 10"
awk '$2 == "sampled" { n++ } END { exit n == 0 }' "$HS_TMP/g1" ||
	fail "no function of group 1 was sampled (nothing estimated to check): $(tr '\n' ';' <"$HS_TMP/g1")"
awk '($2 == "sampled" || $2 == "off") && ($4 > 5 || $4 < -5) { bad = 1 } END { exit bad }' "$HS_TMP/g1" ||
	fail "an estimate of group 1 is over 5% off (name mode count error%): $(tr '\n' ';' <"$HS_TMP/g1")"
echo "ok: group 1 (name mode count error%): $(tr '\n' ';' <"$HS_TMP/g1")"
