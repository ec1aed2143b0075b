# ipc-dbus.sh - D-Bus method calls against a real dbus-daemon started here
# (its own config and socket, stopped at exit), a test service
# (build/apps/dbusapp service, not under the agent) and clients under the
# agent: libdbus (blocking calls and the pending-call path) and sd-bus
# (sd_bus_call_method, sd_bus_call).  Each method call appears once under
# its destination and interface.member with the exact count the service
# says it served; the bus's own Hello is there too; a slow call (150 ms,
# over a 100 ms threshold) on the client's main thread is flagged UI with
# a stack naming call_blocking.
. tests/e2e/lib.sh
command -v dbus-daemon >/dev/null || fail "dbus-daemon is not installed (a test dependency: make deps)"

BUS=$HS_TMP/bus
cat >"$HS_TMP/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$BUS</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
spawn dbus-daemon --config-file="$HS_TMP/bus.conf" --nofork --nopidfile
wait_for 10 test -S "$BUS"
ADDR=unix:path=$BUS
NAME=org.hookscope.TestService
P=37 A=23 S=1

start_daemon
spawn "$O/apps/dbusapp" service "$ADDR" "$NAME" >"$HS_TMP/service.out" 2>&1
wait_for 10 grep -q "serving" "$HS_TMP/service.out"
HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$O/apps/dbusapp" client "$ADDR" "$NAME" $P $A $S ||
	fail "the libdbus client failed"
wait_for 10 grep -q "served" "$HS_TMP/service.out"
cat "$HS_TMP/service.out"
grep -q "served Ping=$P Add=$A Slow=$S" "$HS_TMP/service.out" || fail "the service did not serve what was asked"
wait_for 20 jq_once '[.targets[] | select(.name == "dbusapp" and .state == "exited")] | length == 1'
pid=$(once_json | jq -e '[.targets[] | select(.name == "dbusapp")][0].pid')
once_json --target "$pid" >"$HS_TMP/f.json"
calls() {   # KIND DEST METHOD: calls of that endpoint (0 when absent)
	jq -r --arg k "$1" --arg d "$2" --arg m "$3" \
		'[.ipc.endpoints[] | select(.kind == $k and .name == $d and .method == $m) | .calls] | add // 0' "$HS_TMP/f.json"
}
jq -r '.ipc.endpoints[] | select(.kind == "dbus") | "\(.name) \(.method): \(.calls) calls, max \(.max_ns / 1e6) ms"' "$HS_TMP/f.json"
[ "$(calls dbus $NAME org.hookscope.Test.Ping)" = $P ] || fail "libdbus Ping: $(calls dbus $NAME org.hookscope.Test.Ping) calls, not $P"
[ "$(calls dbus $NAME org.hookscope.Test.Add)" = $A ] || fail "libdbus Add (pending-call path): $(calls dbus $NAME org.hookscope.Test.Add) calls, not $A"
[ "$(calls dbus $NAME org.hookscope.Test.Slow)" = $S ] || fail "libdbus Slow: not $S call"
[ "$(calls dbus org.freedesktop.DBus org.freedesktop.DBus.Hello)" = 1 ] || fail "no single Hello to the bus"
# the slow call: on the UI (main) thread, with its stack
jq -e '.ipc.slow[] | select(.op == "dbus_connection_send_with_reply_and_block") |
	.ui and .dur_ns >= 150000000 and ([.stack.frames[].func] | index("call_blocking") != null)' \
	"$HS_TMP/f.json" >/dev/null || fail "the slow Slow call is not flagged UI with call_blocking on its stack"
jq -e --arg n $NAME '.ipc.endpoints[] | select(.method == "org.hookscope.Test.Slow") | .slow == 1 and .ui_calls == 1' \
	"$HS_TMP/f.json" >/dev/null || fail "the Slow endpoint does not count one slow UI-thread call"
# the dump's IPC section lists the endpoints and the slow call with its stack
"$O/hookscope" --target "$pid" --dump "$HS_TMP/report.txt" "ws://127.0.0.1:$HS_PORT" || fail "--dump failed"
grep -q '^IPC$' "$HS_TMP/report.txt" || fail "the dump has no IPC section"
grep -Eq "^dbus +$NAME +org.hookscope.Test.Ping +0 +0 +$P " "$HS_TMP/report.txt" ||
	fail "the dump's IPC section does not list $P Ping calls: $(sed -n '/^IPC$/,$p' "$HS_TMP/report.txt")"
grep -Eq '^slow call [0-9]+ at .*dbus_connection_send_with_reply_and_block 1[5-9][0-9]\.[0-9] ms on .*\(UI thread\)' \
	"$HS_TMP/report.txt" && grep -Eq '#[0-9]+ +0x[0-9a-f]+ call_blocking\+0x' "$HS_TMP/report.txt" ||
	fail "the dump does not show the slow UI-thread call with call_blocking: $(sed -n '/^IPC$/,$p' "$HS_TMP/report.txt")"

# sd-bus on the same bus
spawn "$O/apps/dbusapp" service "$ADDR" "$NAME" >"$HS_TMP/service2.out" 2>&1
svc=$SPAWNED
wait_for 10 grep -q "serving" "$HS_TMP/service2.out"
HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$O/apps/dbusapp" sdclient "$ADDR" "$NAME" $P $A ||
	fail "the sd-bus client failed"
wait_for 20 jq_once '[.targets[] | select(.name == "dbusapp" and .state == "exited")] | length == 2'
pid=$(once_json | jq -e '[.targets[] | select(.name == "dbusapp")] | max_by(.started_ms) | .pid')
once_json --target "$pid" >"$HS_TMP/f.json"
jq -r '.ipc.endpoints[] | select(.kind == "sd-bus") | "\(.name) \(.method): \(.calls) calls"' "$HS_TMP/f.json"
[ "$(calls sd-bus $NAME org.hookscope.Test.Ping)" = $P ] || fail "sd-bus Ping (sd_bus_call_method): not $P calls"
[ "$(calls sd-bus $NAME org.hookscope.Test.Add)" = $A ] || fail "sd-bus Add (sd_bus_call): not $A calls"
kill "$svc"
stop_daemon
echo "ok"
