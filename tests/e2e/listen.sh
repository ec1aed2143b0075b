# listen.sh - hookscoped listens on 127.0.0.1 only (libwebsockets 4.1 with IPv6
# listens on every interface unless told not to: field-notes.md).
. tests/e2e/lib.sh
start_daemon
addrs=$(ss -Hltn "sport = :$HS_PORT" | awk '{print $4}' | sort -u)
[ "$addrs" = "127.0.0.1:$HS_PORT" ] || fail "hookscoped listens on: $(echo $addrs) (want 127.0.0.1:$HS_PORT only)"
hexport=$(printf '%04X' "$HS_PORT")
if grep -q ":$hexport 00000000000000000000000000000000:0000 0A" /proc/net/tcp6 2>/dev/null; then
	fail "hookscoped has an IPv6 listening socket on port $HS_PORT"
fi
grep -q "0100007F:$hexport 00000000:0000 0A" /proc/net/tcp || fail "no listening socket on 127.0.0.1:$HS_PORT in /proc/net/tcp"
# The agent socket is a unix socket only we can use.
[ -S "$HS_SOCK" ] || fail "agent socket $HS_SOCK missing"
echo "ok: listening on $addrs only"
