# startup-compare.sh - `hookscoped run` twice (then a third time) on the
# startup app with the same report directory: the second run's linked
# library sleeps 300 ms in its constructor instead of 100 ms, so its report
# says the library's constructors got slower (before and now within 5% of
# what the program measured around its own sleeps), the time to main too
# and a slow-startup issue names "to main", and the dlopen of the unchanged
# plugin did not (when the program measured its sleep within 3% of the first
# run's).  A third run like the second finds the library no slower.  Under a
# sanitizer the agent's own constructor varies by hundreds of ms from run to
# run, more than the change: there only the library's row is checked.
. tests/e2e/lib.sh

# run_once MS N: a daemon running the app with a MS constructor, until its
# first wait; its frame in runN.json, the program's figures in own_N_*.
run_once() {
	HS_SLOWINIT_MS=$1 start_daemon run -- "$O/apps/startup" --stay 600000
	wait_for 20 jq_once '.startup.wait_ns > 0'
	wait_for 10 sh -c "[ \$(grep -c slowinit_ctor_ns= '$HS_TMP/daemon.log') -ge $2 ]"
	once_json >"$HS_TMP/run$2.json" || fail "no frame of run $2"
	eval "$(grep -o "slowinit_ctor_ns=.*" "$HS_TMP/daemon.log" | sed -n "$2p" | tr ' ' '\n' |
		grep -E '^[a-z_]+=[0-9]+$' | sed "s/^/own_$2_/")"
}

run_once 100 1
P1=$(jq .pid "$HS_TMP/run1.json")
jq -e '.startup.baseline == "" and .startup.slower == []' "$HS_TMP/run1.json" >/dev/null ||
	fail "a first run compared with something: $(jq -c '.startup | {baseline, slower}' "$HS_TMP/run1.json")"
stop_daemon

run_once 300 2
jq -e --arg p1 "pid $P1, " --argjson b "$own_1_slowinit_ctor_ns" --argjson n "$own_2_slowinit_ctor_ns" \
	'.startup as $s | def within5($v; $want): $v >= $want and $v <= $want * 1.05;
	($s.baseline | startswith($p1)) and $s.noise_ns == 5e6 and $s.noise_pct == 10 and
	($s.slower[] | select(.kind == "constructors" and (.name | endswith("/libhs-slowinit.so"))) |
		within5(.before_ns; $b) and within5(.now_ns; $n)) and
	($s.slower | map(.now_ns - .before_ns) | . == (sort | reverse))' "$HS_TMP/run2.json" >/dev/null ||
	fail "second run's comparison wrong: $(jq -c '.startup | {baseline, slower}' "$HS_TMP/run2.json")"
if [ -z "$HS_SAN_RT" ]; then
	jq -e 'any(.startup.slower[]; .kind == "phase" and .name == "to main" and .now_ns - .before_ns > 150e6)' \
		"$HS_TMP/run2.json" >/dev/null || fail "to main not slower: $(jq -c '.startup.slower' "$HS_TMP/run2.json")"
	jq -e '.issues.list[] | select(.type == "slow-startup" and .where == "to main" and .value > .threshold)' \
		"$HS_TMP/run2.json" >/dev/null || fail "no slow-startup issue: $(jq -c '.issues.list' "$HS_TMP/run2.json")"
	if [ $(( own_2_plugin_ctor_ns * 100 / own_1_plugin_ctor_ns )) -le 103 ]; then
		jq -e 'all(.startup.slower[]; (.name | endswith("libhs-plugin.so")) | not)' "$HS_TMP/run2.json" \
			>/dev/null || fail "the unchanged plugin counted as slower: $(jq -c '.startup.slower' "$HS_TMP/run2.json")"
	fi
fi
"$O/hookscope" --dump "$HS_TMP/r2.txt" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "dump failed"
grep -q "^slower than the previous run (pid $P1, " "$HS_TMP/r2.txt" || fail "the text report does not compare"
grep -Eq "^  constructors +/.*/libhs-slowinit.so +[0-9.]+ ms -> [0-9.]+ ms" "$HS_TMP/r2.txt" ||
	fail "the text report does not say the library got slower: $(sed -n '/^slower than/,$p' "$HS_TMP/r2.txt")"
stop_daemon

run_once 300 3
if [ $(( own_3_slowinit_ctor_ns * 100 / own_2_slowinit_ctor_ns )) -le 105 ]; then
	jq -e '.startup.slower | all((.name | endswith("libhs-slowinit.so")) | not)' "$HS_TMP/run3.json" >/dev/null ||
		fail "the same delay counted as slower: $(jq -c '.startup.slower' "$HS_TMP/run3.json")"
fi
echo "startup-compare: ok"
