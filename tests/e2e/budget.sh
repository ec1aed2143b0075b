# budget.sh - the overhead budget through the daemon, fed by hs-fakeagent
# (four functions: timed, counted, sampled, off; hooks that would cost 3% of
# the CPU): --budget reaches agents on connect and `run` targets through
# HOOKSCOPE_BUDGET; frames, --once --json, the reports and /metrics carry
# each function's mode, which figures are estimates, since when and why, and
# the agent's cost (calibrated, and as its pc samples measure it) and budget;
# the budget command sets it live, replies with what it set and refuses bad
# values and targets that are not live.
. tests/e2e/lib.sh

cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }
FAKE=999981

"$O/hookscoped" --help | grep -q -- "--budget PCT|off" || fail "hookscoped --help does not list --budget"
for bad in 0 101 abc -1 "" 5x; do
	"$O/hookscoped" --budget "$bad" --port "$HS_PORT" >"$HS_TMP/out" 2>&1 && fail "--budget '$bad' was accepted"
	grep -q "budget" "$HS_TMP/out" || fail "--budget '$bad': no clear message: $(cat "$HS_TMP/out")"
done

# A run target gets the budget in its environment, as --budget wrote it.
for b in 0.5 off; do
	start_daemon --budget "$b" run -- sh -c "printf '%s' \"\$HOOKSCOPE_BUDGET\" >'$HS_TMP/env-$b'"
	wait_for 10 test -s "$HS_TMP/env-$b"
	[ "$(cat "$HS_TMP/env-$b")" = "$b" ] || fail "run --budget $b: HOOKSCOPE_BUDGET='$(cat "$HS_TMP/env-$b")'"
	stop_daemon
done

start_daemon --budget 2
cmd budget 5 >"$HS_TMP/out" 2>&1 && fail "budget with no target was accepted"
grep -q "no target" "$HS_TMP/out" || fail "budget with no target: $(cat "$HS_TMP/out")"

# The agent starts at its default (5%); the daemon's --budget 2 comes on connect.
env -u HOOKSCOPE_BUDGET "$O/tools/hs-fakeagent" --socket "$HS_SOCK" --pid $FAKE --funcs 4 \
	--modes timed,counted,sampled,off --cost-pct 3 --ip-samples 400,18 >"$HS_TMP/fake.out" &
FAKE_JOB=$!
HS_PIDS="$HS_PIDS $FAKE_JOB"
wait_for 10 grep -q '"t":"budget","budget_ppm":20000' "$HS_TMP/fake.out"
wait_for 10 jq_once '.budget_ppm == 20000 and .cost_ppm == 20000 and .demoted == 3' --target $FAKE

wait_for 10 jq_once "(.funcs | length) == 4" --target $FAKE
once_json --target $FAKE >"$HS_TMP/frame.json"
row() { jq -ec --arg n "$1" '.funcs[] | select(.name == $n) | [.mode, .calls_est, .time_est, .hook_ppm, (.mode_age_ms > 0)]' "$HS_TMP/frame.json"; }
[ "$(row fake_fn_0)" = '["timed",false,false,0,false]' ] || fail "timed row: $(row fake_fn_0)"
[ "$(row fake_fn_1)" = '["counted",false,true,2000,true]' ] || fail "counted row: $(row fake_fn_1)"
[ "$(row fake_fn_2)" = '["sampled",true,true,3000,true]' ] || fail "sampled row: $(row fake_fn_2)"
[ "$(row fake_fn_3)" = '["off",false,false,4000,true]' ] || fail "off row: $(row fake_fn_3)"

# The reports and /metrics say the same.
cmd dump -f json -n budget >/dev/null || fail "dump -f json failed"
R=$(ls "$HS_TMP"/reports/budget-*.json)
jq -e '.sessions[0].functions | .budget_ppm == 20000 and .cost_ppm == 20000 and .demoted == 3 and
	.cost_sampled_ppm == 45000 and .cost_samples == 400 and
	.modes == {"timed": 1, "counted": 1, "sampled": 1, "off": 1} and
	([.list[] | select(.name == "fake_fn_2")][0] | .mode == "sampled" and .calls_est and .time_est and
	 .hook_ppm == 3000 and .mode_age_ms > 0)' "$R" >/dev/null || fail "JSON report: $(jq -c .sessions[0].functions "$R")"
cmd dump -f text -n budget >/dev/null || fail "dump -f text failed"
T=$(ls "$HS_TMP"/reports/budget-*.txt)
grep -q "^budget:    2% of the target's CPU; the hooks cost 2% of its CPU" "$T" || fail "text report: no budget line"
grep -q "^sampled:   4.5% of the program threads' recent pc samples (400) were in the agent's code" "$T" ||
	fail "text report: no sampled cost line"
grep -Eq "^ +[0-9]+ +~[0-9]+ +~[0-9.]+ .s .* sampled  fake_fn_2 " "$T" || fail "text report: the sampled row is not marked"
grep -Eq "^  counted .* ago +0.2% of the CPU .*fake_fn_1$" "$T" || fail "text report: no demotion line of fake_fn_1"
cmd dump -f trace -n budget >/dev/null || fail "dump -f trace failed"
jq -e '[.traceEvents[] | select(.cat == "budget" and .ph == "i")] | length == 3' \
	"$(ls "$HS_TMP"/reports/budget-*.trace.json)" >/dev/null || fail "trace: not one event per demotion"
curl -sS "http://127.0.0.1:$HS_PORT/metrics" >"$HS_TMP/metrics" || fail "GET /metrics failed"
for want in "hookscope_agent_cost_ratio{pid=\"$FAKE\",target=\"fake-target\"} 0.02" \
	"hookscope_budget_ratio{pid=\"$FAKE\",target=\"fake-target\"} 0.02" \
	"hookscope_agent_sampled_cost_ratio{pid=\"$FAKE\",target=\"fake-target\"} 0.045" \
	"hookscope_functions{pid=\"$FAKE\",target=\"fake-target\",mode=\"off\"} 1" \
	'function="fake_fn_1",module="fake-target",mode="counted",calls="exact",time="estimated"} 1'; do
	grep -qF "$want" "$HS_TMP/metrics" || fail "/metrics has no '$want'"
done

# The command: refusals name what is expected; a good value goes to the agent.
for bad in abc 0 101 -5 1e9 0.00001; do
	cmd budget "$bad" >"$HS_TMP/out" 2>&1 && fail "budget $bad was accepted"
	grep -q "expected a share of the target's CPU over 0 up to 100 percent" "$HS_TMP/out" ||
		fail "budget $bad: $(cat "$HS_TMP/out")"
done
cmd budget >"$HS_TMP/out" 2>&1 && fail "budget without a value was accepted"
grep -q "usage: budget PCT|off" "$HS_TMP/out" || fail "budget without a value: $(cat "$HS_TMP/out")"
grep -c '"t":"budget"' "$HS_TMP/fake.out" | grep -qx 1 || fail "a refused budget reached the agent: $(cat "$HS_TMP/fake.out")"

cmd budget 1 >"$HS_TMP/out" 2>&1 || fail "budget 1 was refused: $(cat "$HS_TMP/out")"
grep -q "budget 1% of the CPU set for pid $FAKE" "$HS_TMP/out" || fail "budget 1 reply: $(cat "$HS_TMP/out")"
wait_for 10 grep -q '"t":"budget","budget_ppm":10000' "$HS_TMP/fake.out"
wait_for 10 jq_once '.budget_ppm == 10000 and .cost_ppm == 10000' --target $FAKE
cmd budget 0.5% >"$HS_TMP/out" 2>&1 || fail "budget 0.5% was refused: $(cat "$HS_TMP/out")"
grep -q "budget 0.5% of the CPU" "$HS_TMP/out" || fail "budget 0.5% reply: $(cat "$HS_TMP/out")"
wait_for 10 jq_once '.budget_ppm == 5000 and .cost_ppm == 5000' --target $FAKE
cmd budget off >"$HS_TMP/out" 2>&1 || fail "budget off was refused: $(cat "$HS_TMP/out")"
grep -q "budget off for pid $FAKE" "$HS_TMP/out" || fail "budget off reply: $(cat "$HS_TMP/out")"
wait_for 10 grep -q '"t":"budget","budget_ppm":0}' "$HS_TMP/fake.out"
wait_for 10 jq_once '.budget_ppm == 0 and .cost_ppm == 30000' --target $FAKE
cmd budget 20 >/dev/null || fail "budget 20 was refused"
wait_for 10 jq_once '.budget_ppm == 200000 and .cost_ppm == 30000' --target $FAKE

# A target whose agent is gone cannot take a budget.
kill "$FAKE_JOB"
wait_for 10 jq_once '.targets[] | select(.pid == '$FAKE' and .state != "live")' --target $FAKE
cmd budget 5 >"$HS_TMP/out" 2>&1 && fail "budget on a target that is not live was accepted"
grep -q "not live: budget needs its agent connected" "$HS_TMP/out" || fail "budget, not live: $(cat "$HS_TMP/out")"
echo "ok: --budget, the budget command, modes, estimates, cost and budget in frames"
