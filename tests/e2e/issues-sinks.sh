# issues-sinks.sh - the demo's problems reach every issue sink: a syslog
# receiver (a unix datagram socket read by socat) and an HTTP receiver on
# loopback (tests/e2e/data/issue-receiver.py) get each new issue once.  Then
# the receiver stops; the daemon restarts while the demo runs on (its agent
# reconnects and sends its blocks and leaks again: not new issues) and a
# second demo raises new ones, which wait in the store's queue; started
# again, the receiver gets them in raise order, none lost, none twice
# (tests/e2e/data/issue-check.py parses all of it independently).
. tests/e2e/lib.sh

command -v socat >/dev/null || fail "socat is missing (make deps)"
command -v python3 >/dev/null || fail "python3 is missing (make deps)"
D=$HS_TMP/issues
SL=$HS_TMP/syslog.sock
RAW=$HS_TMP/syslog.raw
PF=$HS_TMP/receiver.port
OUT=$HS_TMP/received.jsonl
: >"$OUT"
echo "issue-test-token-0123456789" >"$HS_TMP/token"

spawn socat -u "UNIX-RECV:$SL" "OPEN:$RAW,creat,append"
wait_for 5 test -S "$SL"
receiver() {
	spawn python3 tests/e2e/data/issue-receiver.py "$PF" "$OUT"
	RECV=$SPAWNED
	wait_for 10 test -s "$PF"
}
receiver
URL=http://127.0.0.1:$(cat "$PF")/v1/issues

# Issues of pid $1 and type $2 in the syslog lines / the received bodies.
logged() { grep -a -o "type=\"$2\" severity=\"[a-z]*\" pid=\"$1\"" "$RAW" | grep -q .; }
received() { jq -e --argjson p "$1" --arg t "$2" 'select(.body.pid == $p and .body.type == $t)' "$OUT" | grep -q .; }
daemon() {
	start_daemon --issue-dir "$D" --issue-max-files 200 --syslog="$SL" --upload "$URL" \
		--upload-token-file "$HS_TMP/token" --upload-backoff-max 1
}
known() { jq_once "[.targets[] | select(.pid == $1 and .state == \"live\")] | length == 1"; }
# demo: a demo of its own (it outlives the daemon), leaks past a 1 s hold
demo() {
	HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD spawn "$O/apps/demo" --scenario all:2 \
		>>"$HS_TMP/demo.log" 2>&1
	PID=$SPAWNED
	wait_for 20 known "$PID"
	"$O/hookscope" --target "$PID" --cmd "threshold hold 1" "ws://127.0.0.1:$HS_PORT" \
		>/dev/null || fail "threshold hold refused"
}

daemon
demo
PID1=$PID
for t in ui-block wakelock-leak; do
	wait_for 30 logged "$PID1" "$t"
	wait_for 30 received "$PID1" "$t"
	ls "$D"/*.json | xargs grep -l "\"type\":\"$t\"" | grep -q . || fail "no $t issue in $D"
done

# The receiver goes away; the daemon restarts under the running demo; a
# second demo raises new issues.
kill "$RECV"
wait "$RECV" 2>/dev/null
stop_daemon
daemon
wait_for 20 known "$PID1"
demo
PID2=$PID
for t in ui-block wakelock-leak; do
	wait_for 30 logged "$PID2" "$t"
done
wait_for 10 jq_once '.issues.sinks[] | select(.name == "upload" and .queued > 0 and .failed > 0)'
received "$PID2" ui-block && fail "an issue was received while the receiver was down"

# Back again: everything queued arrives.
receiver
wait_for 30 jq_once '.issues.sinks[] | select(.name == "upload" and .queued == 0)'
wait_for 10 received "$PID2" wakelock-leak
stop_daemon
python3 tests/e2e/data/issue-check.py "$RAW" "$OUT" "$D" ui-block wakelock-leak slow-ipc \
	janky-frames || fail "the sinks' output is wrong"
