# access.sh - access control (doc/protocol.md "Access control"): a daemon
# listening beyond loopback needs a token; clients without it are refused
# before any data; remote clients may not attach, ps or dump unless
# --allow-remote-control; the agent socket is owner-only and refuses other users.
# The non-loopback address is a second address on lo (10.77.x.y/32): needs
# root (CI runs as root), removed at exit.
. tests/e2e/lib.sh
[ "$(id -u)" -eq 0 ] || fail "access.sh needs root to add an address to lo (ip addr add)"
command -v setpriv >/dev/null || fail "setpriv is not installed (util-linux)"
ADDR=10.77.$(( $(od -An -N1 -tu1 /dev/urandom) % 250 )).$(( $(od -An -N1 -tu1 /dev/urandom) % 250 + 1 ))
ip addr add "$ADDR/32" dev lo || fail "cannot add $ADDR to lo"
trap 'ip addr del "$ADDR/32" dev lo 2>/dev/null; hs_cleanup' EXIT
TOKEN=hs-test-token-$(od -An -N8 -tx1 /dev/urandom | tr -d ' ')
printf '%s\n' "$TOKEN" >"$HS_TMP/token"
ws() { "$O/tools/hs-wsclient" -H "$ADDR" -p "$HS_PORT" "$@"; }

# 1. Beyond loopback without a token: refused at start, with what to do.
"$O/hookscoped" --listen "$ADDR" --port "$HS_PORT" --socket "$HS_SOCK" >"$HS_TMP/notoken" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "hookscoped --listen $ADDR without a token exited $rc (want 2)"
grep -q "not a loopback address.*--token-file" "$HS_TMP/notoken" || fail "no clear message: $(cat "$HS_TMP/notoken")"
"$O/hookscoped" --listen "$ADDR" --token short --socket "$HS_SOCK" >"$HS_TMP/short" 2>&1 &&
	fail "a 5-character token was accepted"
grep -q "16 to 256 characters" "$HS_TMP/short" || fail "short token: $(cat "$HS_TMP/short")"

# 2. With a token: listens on that address only.
mkdir -p "$HS_TMP/reports"
spawn "$O/hookscoped" --listen "$ADDR" --port "$HS_PORT" --socket "$HS_SOCK" \
	--token-file "$HS_TMP/token" --report-dir "$HS_TMP/reports" \
	run -- "$O/apps/demo" --period-ms 20 >>"$HS_TMP/daemon.log" 2>&1
DAEMON_PID=$SPAWNED
wait_for 10 grep -q "listening on ws://$ADDR:$HS_PORT" "$HS_TMP/daemon.log"
addrs=$(ss -Hltn "sport = :$HS_PORT" | awk '{print $4}' | sort -u)
[ "$addrs" = "$ADDR:$HS_PORT" ] || fail "listening on: $addrs"

# 3. No token, a wrong one: refused before any data (no hello), logged.
ws -n 1 -t 5 >"$HS_TMP/c1" 2>&1 && fail "client without a token got in: $(cat "$HS_TMP/c1")"
ws -n 1 -t 5 --token "wrong-token-0123456789" >"$HS_TMP/c2" 2>&1 && fail "wrong token got in"
grep -q unauthorized "$HS_TMP/c1" || fail "no 401 for a client without a token: $(cat "$HS_TMP/c1")"
grep -q '"t"' "$HS_TMP/c1" "$HS_TMP/c2" && fail "a refused client got data"
grep -q "client from $ADDR refused: no access token" "$HS_TMP/daemon.log" || fail "no-token refusal not logged"
grep -q "client from $ADDR refused: wrong access token" "$HS_TMP/daemon.log" || fail "wrong-token refusal not logged"
# Plain HTTP gets 401 too (anything else served on the port is behind the token).
exec 3<>"/dev/tcp/$ADDR/$HS_PORT" && printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' >&3
head -1 <&3 | grep -q "401" || fail "plain HTTP without a token not answered 401"
exec 3<&-
"$O/hookscope" --once --json -t 3 "ws://$ADDR:$HS_PORT" >/dev/null 2>"$HS_TMP/tui1" && fail "TUI without a token got in"
grep -q "needs an access token.*--token-file" "$HS_TMP/tui1" || fail "TUI refusal unclear: $(cat "$HS_TMP/tui1")"

# 4. With the token (option, file, environment): served.
ws -n 2 -t 10 --token "$TOKEN" >"$HS_TMP/c3" || fail "client with the token refused: $(cat "$HS_TMP/c3")"
grep -q '"t":"hello"' "$HS_TMP/c3" || fail "no hello with the token"
wait_for 20 sh -c "'$O/hookscope' --once --json --token-file '$HS_TMP/token' ws://$ADDR:$HS_PORT | jq -e '.funcs[] | select(.name == \"slow_work\")'"
HOOKSCOPE_TOKEN=$TOKEN "$O/hookscope" --once --json "ws://$ADDR:$HS_PORT" | jq -e '.pid > 0' >/dev/null ||
	fail "HOOKSCOPE_TOKEN not used"

# 5. A remote client: no attach, ps or dump; viewing commands work.
ws --replies --no-frames -t 10 --token "$TOKEN" 'cmd dump' 'cmd ps' 'cmd attach 1' 'cmd detach 1' 'cmd level 2' \
	>"$HS_TMP/c4" 2>&1 || fail "remote commands: $(cat "$HS_TMP/c4")"
[ "$(grep -c 'is refused from a client that is not on loopback.*--allow-remote-control' "$HS_TMP/c4")" -eq 4 ] ||
	fail "dump/ps/attach/detach not all refused: $(cat "$HS_TMP/c4")"
grep -q '"id":5,"ok":true' "$HS_TMP/c4" || fail "level refused from a remote client: $(cat "$HS_TMP/c4")"
[ -z "$(ls "$HS_TMP/reports")" ] || fail "a refused dump wrote a report"

# 6. The agent socket: owner only (umask 077 at bind), and a peer of another uid is refused (the
# socket opened up by hand so that connect() itself succeeds).
case $(stat -c %a "$HS_SOCK") in ?00) ;; *) fail "agent socket mode $(stat -c %a "$HS_SOCK") (want no group/other bits)" ;; esac
chmod 711 "$HS_TMP"
chmod 666 "$HS_SOCK"
setpriv --reuid=65534 --regid=65534 --clear-groups "$O/tools/hs-fakeagent" --socket "$HS_SOCK" \
	--pid 999991 --duration 2 >"$HS_TMP/nobody" 2>&1
wait_for 10 grep -q "agent connection from pid [0-9]* refused: it runs as uid 65534" "$HS_TMP/daemon.log"
"$O/hookscope" --once --json --token "$TOKEN" "ws://$ADDR:$HS_PORT" | jq -e '[.targets[] | select(.pid == 999991)] | length == 0' >/dev/null ||
	fail "an agent of another uid made a session"
stop_daemon

# 7. --allow-remote-control: the same remote client may dump.
spawn "$O/hookscoped" --listen "$ADDR" --port "$HS_PORT" --socket "$HS_SOCK" --token "$TOKEN" \
	--allow-remote-control --report-dir "$HS_TMP/reports" run -- "$O/apps/demo" --period-ms 20 \
	>>"$HS_TMP/daemon2.log" 2>&1
DAEMON_PID=$SPAWNED
wait_for 10 grep -q "listening on ws://$ADDR:$HS_PORT" "$HS_TMP/daemon2.log"
wait_for 20 sh -c "'$O/tools/hs-wsclient' -H $ADDR -p $HS_PORT --token '$TOKEN' --replies --no-frames -t 5 'cmd dump' | grep -q '\"ok\":true'"
[ -n "$(ls "$HS_TMP/reports")" ] || fail "remote dump with --allow-remote-control wrote no report"
echo "ok: $ADDR refused without a token (start, websocket, HTTP, TUI), served with it; remote control refused unless allowed; agent socket owner-only and uid-checked"
