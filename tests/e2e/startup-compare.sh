# startup-compare.sh - `hookscoped run` twice (then a third time) on the
# startup app with the same report directory: the second run's linked
# library sleeps 300 ms in its constructor instead of 100 ms, so its report
# says the library's constructors, the constructors phase and the time to
# main got slower (before and now within 5% of the delays), the dlopen of
# the unchanged plugin did not, and a slow-startup issue names "to main".  A
# third run like the second finds nothing slower beyond the noise in the
# library.
. tests/e2e/lib.sh

# run_once MS: a daemon running the app with a MS constructor, until its first wait.
run_once() {
	HS_SLOWINIT_MS=$1 start_daemon run -- "$O/apps/startup" --stay 600000
	wait_for 20 jq_once '.startup.wait_ns > 0'
	once_json >"$HS_TMP/run$2.json" || fail "no frame of run $2"
}

run_once 100 1
P1=$(jq .pid "$HS_TMP/run1.json")
jq -e '.startup.baseline == "" and .startup.slower == []' "$HS_TMP/run1.json" >/dev/null ||
	fail "a first run compared with something: $(jq -c '.startup | {baseline, slower}' "$HS_TMP/run1.json")"
stop_daemon

run_once 300 2
jq -e --arg p1 "pid $P1, " '.startup as $s | def within5($v; $want): ($v - $want | fabs) <= $want * 0.05;
	($s.baseline | startswith($p1)) and $s.noise_ns == 5e6 and $s.noise_pct == 10 and
	($s.slower[] | select(.kind == "constructors" and (.name | endswith("/libhs-slowinit.so"))) |
		within5(.before_ns; 100e6) and within5(.now_ns; 300e6)) and
	any($s.slower[]; .kind == "phase" and .name == "to main" and .now_ns - .before_ns > 150e6) and
	any($s.slower[]; .kind == "phase" and .name == "constructors") and
	all($s.slower[]; (.name | endswith("libhs-plugin.so")) | not) and
	($s.slower | map(.now_ns - .before_ns) | . == (sort | reverse))' "$HS_TMP/run2.json" >/dev/null ||
	fail "second run's comparison wrong: $(jq -c '.startup | {baseline, slower}' "$HS_TMP/run2.json")"
jq -e '.issues.list[] | select(.type == "slow-startup" and .where == "to main" and .value > .threshold)' \
	"$HS_TMP/run2.json" >/dev/null || fail "no slow-startup issue: $(jq -c '.issues.list' "$HS_TMP/run2.json")"
"$O/hookscope" --dump "$HS_TMP/r2.txt" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "dump failed"
grep -q "^slower than the previous run (pid $P1, " "$HS_TMP/r2.txt" || fail "the text report does not compare"
grep -Eq "^  constructors +/.*/libhs-slowinit.so +(9[5-9]|10[0-5])\.[0-9]+ ms -> (28[5-9]|29[0-9]|30[0-9]|31[0-5])\.[0-9]+ ms" \
	"$HS_TMP/r2.txt" || fail "the text report does not say the library got slower: $(sed -n '/^slower than/,$p' "$HS_TMP/r2.txt")"
stop_daemon

run_once 300 3
jq -e '.startup.slower | all((.name | endswith("libhs-slowinit.so")) | not)' "$HS_TMP/run3.json" >/dev/null ||
	fail "the same delay counted as slower: $(jq -c '.startup.slower' "$HS_TMP/run3.json")"
echo "startup-compare: ok"
