# issues-sinks.sh - the demo's problems reach every issue sink: a syslog
# receiver (a unix datagram socket read by socat) and an HTTP receiver on
# loopback (tests/e2e/data/issue-receiver.py) get each new issue once; the
# receiver is then stopped, the daemon restarted with a new demo, and the
# issues raised meanwhile wait in the store's queue; started again, the
# receiver gets them in raise order, none lost, none twice
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

# Issues of the demo of pid $1 and type $2 in the syslog lines / the received bodies.
logged() { grep -a -o "type=\"$2\" severity=\"[a-z]*\" pid=\"$1\"" "$RAW" | grep -q .; }
received() { jq -e --argjson p "$1" --arg t "$2" 'select(.body.pid == $p and .body.type == $t)' "$OUT" | grep -q .; }
demo_pid() { jq_once '.pid > 0' >/dev/null && once_json | jq -r .pid; }

start_demo() {
	start_daemon --issue-dir "$D" --issue-max-files 200 --syslog="$SL" --upload "$URL" \
		--upload-token-file "$HS_TMP/token" --upload-backoff-max 1 \
		run -- "$O/apps/demo" --scenario all:2
	wait_for 10 demo_pid
	PID=$(demo_pid)
	# leaked = held past 1 s, so the wakelock the demo never releases is one soon
	"$O/hookscope" --cmd "threshold hold 1" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
		fail "threshold hold refused"
}

start_demo
for t in ui-block wakelock-leak; do
	wait_for 30 logged "$PID" "$t"
	wait_for 30 received "$PID" "$t"
	ls "$D"/*.json | xargs grep -l "\"type\":\"$t\"" | grep -q . || fail "no $t issue in $D"
done

# The receiver goes away; a new daemon with a new demo raises new issues.
kill "$RECV"
wait "$RECV" 2>/dev/null
stop_daemon
start_demo
for t in ui-block wakelock-leak; do
	wait_for 30 logged "$PID" "$t"
done
wait_for 10 jq_once '.issues.sinks[] | select(.name == "upload" and .queued > 0 and .failed > 0)'
received "$PID" ui-block && fail "an issue was received while the receiver was down"

# Back again: everything queued arrives.
receiver
wait_for 30 jq_once '.issues.sinks[] | select(.name == "upload" and .queued == 0)'
wait_for 10 received "$PID" wakelock-leak
stop_daemon
python3 tests/e2e/data/issue-check.py "$RAW" "$OUT" "$D" ui-block wakelock-leak slow-ipc \
	janky-frames || fail "the sinks' output is wrong"
