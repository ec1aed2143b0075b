# malformed.sh - malformed websocket messages and agent records get an error
# reply or a closed connection, and hookscoped keeps serving everyone else.
. tests/e2e/lib.sh
ws() { "$O/tools/hs-wsclient" -p "$HS_PORT" "$@"; }

start_daemon run -- "$O/apps/demo" --period-ms 20
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work")'
demo=$(once_json | jq -e .pid) || fail "no target"

# A bystander client collects frames through everything below.
ws -n 40 -t 30 >"$HS_TMP/bystander" 2>&1 &
bystander=$!
HS_PIDS="$HS_PIDS $bystander"

# Websocket: not a map, reserved byte, missing id, trailing bytes, huge count,
# bad argument type, wrong version: each an error/reply; the connection lives on.
ws --no-frames --replies 'raw 93010203' 'raw c1' 'raw 81a17601' 'raw 81a17601c0' \
	'raw 81a176dd7fffffff' 'raw 85a17601a174a3636d64a2696405a3636d64a56c6576656ca46172677391cc03' \
	'raw 81a17602' 'cmd targets' >"$HS_TMP/bad" 2>&1 || fail "client with bad messages: $(cat "$HS_TMP/bad")"
[ "$(grep -c '"t":"error"' "$HS_TMP/bad")" -eq 6 ] || fail "want 6 error messages: $(cat "$HS_TMP/bad")"
grep -q '"id":5,"ok":false.*argument 1' "$HS_TMP/bad" || fail "bad argument not answered with a reply for id 5"
grep -q 'version 2' "$HS_TMP/bad" || fail "wrong version not named"
grep -q '"id":1,"ok":true' "$HS_TMP/bad" || fail "the connection was not usable after bad messages"
# Over the size cap: closed with 1009.
ws --no-frames -t 5 'junk 1048577' >"$HS_TMP/big" 2>&1
grep -q '"code":1009' "$HS_TMP/big" || fail "oversized message not closed with 1009: $(cat "$HS_TMP/big")"

# Agent socket: garbage record, oversized record, absurd length prefix,
# trailing bytes: each connection closed, the demo's session untouched.
"$O/tools/hs-fakeagent" --socket "$HS_SOCK" --pid 999999 --garbage --duration 3 >/dev/null 2>&1
"$O/tools/hs-fakeagent" --socket "$HS_SOCK" --pid 999998 --oversize --duration 3 >/dev/null 2>&1
printf '\377\377\377\377xxxx' | socat -t1 - "UNIX-CONNECT:$HS_SOCK"
printf '\000\000\000\003abc' | socat -t1 - "UNIX-CONNECT:$HS_SOCK"
wait_for 10 grep -q 'trailing bytes' "$HS_TMP/daemon.log"
grep -q 'pid 999999 sent a malformed record' "$HS_TMP/daemon.log" || fail "garbage agent record not reported"
grep -q '4294967295 bytes' "$HS_TMP/daemon.log" || fail "absurd record length not reported"

kill -0 "$DAEMON_PID" || fail "hookscoped died"
wait "$bystander" || fail "the bystander client stopped getting frames: $(tail -3 "$HS_TMP/bystander")"
[ "$(grep -c '"t":"frame"' "$HS_TMP/bystander")" -ge 39 ] || fail "bystander got too few frames"
c1=$(once_json | jq -e '.funcs[] | select(.name == "slow_work") | .calls')
wait_for 10 jq_once ".pid == $demo and (.funcs[] | select(.name == \"slow_work\") | .calls > $c1)"
echo "ok: 7 bad websocket messages, 1 oversized, 4 bad agent streams; daemon and demo unharmed"
