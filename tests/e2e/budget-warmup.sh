# budget-warmup.sh - a sampled function's count stays true when the program
# leaves the phase of the budget's first window: tests/apps/phases (plain cc
# -O2 -g: the hook engine) at level 4 with a 20% budget (at the default,
# sampling all ten of a loop's tiny functions costs over it and some are turned
# off; under a sanitizer 30%, budget_for's scale 1.5: at 20% they went off, at
# 44% (its 2.2) counting half of them fitted, tiny_0_9 often among them, and
# nothing was estimated: 5 runs of 5 in one minute under ASan on one host, 0 of
# 26 at 30%), one hot spell of group 0
# that starts warming up: for its first 100 ms of CPU the group calls tiny_0_9
# 200 times per call, then 100 times, like the others.  The budget demotes the
# tiny functions and takes its first window within the warm-up; the ratios it
# estimated them by then would put tiny_0_9 at twice its calls.  The window
# confirming them comes after the warm-up: the ratios restart from it and the
# interval since the first is estimated again (the calls shown too many are
# held back from the next estimates: a count never goes down).  group_0 stays
# timed (a few calls a ms); the program prints how many of its calls were in
# the warm-up (N): every sampled (or off) tiny function's estimated count is within 5%
# of its exact one, 100 x group_0's calls (tiny_0_9: plus 100 x N).  The other
# direction (a function called more once warm: python3's memcmp as its
# dictionary fills) is checked on Debian's python3 against a `--budget off`
# run.
. tests/e2e/lib.sh

cc_prog tests/apps/phases/phases.c
export HOOKSCOPE_LEVEL=4 HOOKSCOPE_DEBUG=1
start_daemon --budget "$(budget_for 20 1.5)" run -- "$HS_TMP/phases" 1 300 3000 100
wait_for 120 jq_once '.targets[0].state == "exited"'
once_json --top 300 >"$HS_TMP/f.json" || fail "hookscope --once --json failed"
stop_daemon
warmup_log() { grep -E 'phases: group|budget:|calibration' "$HS_TMP/daemon.log"; }
HS_ON_FAIL=warmup_log

n=$(sed -n 's/^phases: group 0 warm until [0-9.]*, \([0-9]*\) calls$/\1/p' "$HS_TMP/daemon.log")
[ -n "$n" ] || fail "phases did not say how many calls its warm-up made"
jq -e '[.funcs[] | select(.name == "group_0" and (.mode == "timed" or .mode == "counted"))] | length == 1' \
	"$HS_TMP/f.json" >/dev/null ||
	fail "group_0 is not counted exactly: $(jq -c '[.funcs[] | select(.name == "group_0")]' "$HS_TMP/f.json")"
# The tiny functions: name, mode, count, its error against the exact count, in %.
jq -r --argjson n "$n" '([.funcs[] | select(.name == "group_0")][0].calls * 100) as $x |
	.funcs[] | select(.name | startswith("tiny_0_")) |
	(if .name == "tiny_0_9" then $x + 100 * $n else $x end) as $e |
	"\(.name) \(.mode) \(.calls) \((.calls - $e) / $e * 100 | . * 10 | round / 10)"' \
	"$HS_TMP/f.json" >"$HS_TMP/g0"
[ "$(wc -l <"$HS_TMP/g0")" -eq 10 ] || fail "group 0 has $(wc -l <"$HS_TMP/g0") tiny functions seen, not 10"
grep -q '^tiny_0_9 sampled ' "$HS_TMP/g0" ||
	fail "tiny_0_9 was not sampled (nothing estimated to check): $(tr '\n' ';' <"$HS_TMP/g0")"
awk '($2 == "sampled" || $2 == "off") && ($4 > 5 || $4 < -5) { bad = 1 } END { exit bad }' "$HS_TMP/g0" ||
	fail "an estimate of group 0 is over 5% off (name mode count error%; warm-up calls $n): $(tr '\n' ';' <"$HS_TMP/g0")"
echo "ok: group 0 (name mode count error%; warm-up calls $n): $(tr '\n' ';' <"$HS_TMP/g0")"
