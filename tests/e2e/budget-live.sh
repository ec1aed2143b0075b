# budget-live.sh - the agent changes how it watches a running program when the
# budget changes, without a restart: tests/apps/tinyfuncs (plain cc -O2 -g:
# the hook engine) at level 4 with the default budget demotes functions;
# `budget off` makes every function timed again (the frame says budget 0 and
# every row "timed"), then `budget 5` demotes again, and the hooks' cost
# stays within it (cost_ppm, measured by the agent over its last window).
. tests/e2e/lib.sh

cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }
tinyfuncs_start 1000000
rows=$TF_ROWS
wait_for 20 jq_once "$rows | length == 51" --top 200
wait_for 20 jq_once "$rows | map(select(.mode != \"timed\")) | length > 0" --top 200
cmd budget off >"$HS_TMP/out" || fail "budget off refused: $(cat "$HS_TMP/out")"
wait_for 20 jq_once ".budget_ppm == 0 and ($rows | all(.mode == \"timed\"))" --top 200
off_cost=$(once_json | jq .cost_ppm)
cmd budget 5 >"$HS_TMP/out" || fail "budget 5 refused: $(cat "$HS_TMP/out")"
wait_for 20 jq_once ".budget_ppm == 50000 and ($rows | map(select(.mode != \"timed\")) | length > 0)" --top 200
# The cost follows within a few windows (each is the last 5 ms of CPU or more).
wait_for 20 jq_once '.cost_ppm > 0 and .cost_ppm <= 50000'
echo "ok: demoted at 5%, every function timed again at 'budget off', demoted again at 'budget 5'; cost $(once_json | jq .cost_ppm) ppm (the last window before 'budget off': $off_cost)"
