# commands.sh - commands reach the daemon and the agent: level, reset,
# threshold, sort/top/filter, target, forget, unknown commands.
. tests/e2e/lib.sh

calls_of() {
	once_json --top 200 | jq -e --arg n "$1" '[.funcs[] | select(.name == $n) | .calls][0] // 0'
}
cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }

export HOOKSCOPE_DEBUG=1
start_daemon run -- "$O/apps/demo" --period-ms 10
unset HOOKSCOPE_DEBUG
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work" and .calls > 3)'
# The level's selection comes from the demo alone: the one module built with
# -finstrument-functions (the agent defines the hooks: it imports none).
grep -q 'timing: level 2 selects [1-9][0-9]* functions of 1 -finstrument-functions modules' \
	"$HS_TMP/daemon.log" || fail "the level 2 selection: $(grep 'timing: level' "$HS_TMP/daemon.log")"

# level 0 turns timing off in the agent: counts stop; level 2 turns it back on.
cmd level 0 >/dev/null || fail "level 0 was refused"
wait_for 10 jq_once '.targets[0].level == 0'
# At level 2 slow_work runs every 10 ms, so two reads 0.6 s apart that agree
# show timing is off (the agent may still deliver calls made before the switch).
stable() { a=$(calls_of slow_work); sleep 0.6; b=$(calls_of slow_work); [ "$a" = "$b" ]; }
wait_for 10 stable
cmd level 2 >/dev/null || fail "level 2 was refused"
wait_for 10 sh -c "[ \$(\"$O/hookscope\" --once --json --top 200 ws://127.0.0.1:$HS_PORT | jq '[.funcs[] | select(.name == \"slow_work\") | .calls][0]') -gt $b ]"

# reset zeroes the figures: slow_work starts again from (near) zero.
before=$(calls_of slow_work)
cmd reset >/dev/null || fail "reset was refused"
wait_for 10 sh -c "[ \$(\"$O/hookscope\" --once --json --top 200 ws://127.0.0.1:$HS_PORT | jq '[.funcs[] | select(.name == \"slow_work\") | .calls][0] // 0') -lt $before ]"

# threshold slow 0.5 ms: every ~1 ms slow_work call counts as slow.
cmd threshold slow 0.5 >/dev/null || fail "threshold slow 0.5 was refused"
wait_for 10 jq_once '.funcs[] | select(.name == "slow_work" and .slow > 3)'
cmd threshold nosuch 1 >"$HS_TMP/out" 2>&1 && fail "an unknown threshold was accepted"
grep -q slow "$HS_TMP/out" || fail "unknown threshold error does not list the known ones: $(cat "$HS_TMP/out")"
cmd level 9 >/dev/null 2>&1 && fail "level 9 was accepted"
cmd frobnicate >"$HS_TMP/out" 2>&1 && fail "an unknown command was accepted"
grep -q level "$HS_TMP/out" || fail "unknown command error does not list the commands: $(cat "$HS_TMP/out")"

# sort, top and filter shape the client's frames.
jq_once '.sort == "calls" and (.funcs | length) == 2 and .funcs[0].name == "fast_hash"' --sort calls --top 2 >/dev/null ||
	fail "--sort calls --top 2: $(once_json --sort calls --top 2 | jq -c '[.sort, [.funcs[].name]]')"
jq_once '(.funcs | length) >= 1 and (.funcs | all(.name | contains("hash")))' --filter hash >/dev/null ||
	fail "--filter hash: $(once_json --filter hash | jq -c '[.funcs[].name]')"
jq_once '.sort == "name" and ([.funcs[].name] == ([.funcs[].name] | sort))' --sort name >/dev/null ||
	fail "--sort name is not sorted by name"
cmd target 1 >/dev/null 2>&1 && fail "target 1 (not a session) was accepted"
echo "ok: level, reset, threshold, sort, top, filter and errors"
