# net-tls.sh - TLS handshakes through OpenSSL against `openssl s_server` on
# loopback, serving a self-signed certificate for another name:
#   1. curl with verification fails the handshake: the endpoint counts a failed
#      handshake whose reason is the one `openssl verify` gives for the same
#      certificate, the event keeps it with a stack, and the request row has
#      curl's transfer error.
#   2. curl -k completes it: one handshake, no failure, its time within curl's
#      own connect-to-appconnect span, and the request row's TLS phase equal
#      to curl's -w figures.
#   Under a sanitizer build the libcurl client is tests/apps/netcurl
#   (data/net-client.sh).
. tests/e2e/lib.sh
command -v openssl >/dev/null || fail "openssl is not installed (a test dependency: make deps)"
. tests/e2e/data/net-client.sh

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$HS_TMP/key.pem" -out "$HS_TMP/cert.pem" -days 2 \
	-subj /CN=wrong.example >/dev/null 2>&1 || fail "openssl req failed"
why=$(openssl verify "$HS_TMP/cert.pem" 2>&1 | sed -n 's/^error [0-9]* at [0-9]* depth lookup: //p')
[ -n "$why" ] || fail "openssl verify found nothing wrong with a self-signed certificate"
start_daemon
TP=$(free_port)
spawn openssl s_server -accept "127.0.0.1:$TP" -cert "$HS_TMP/cert.pem" -key "$HS_TMP/key.pem" -www -quiet
wait_for 20 port_listening "$TP"

under_agent() {
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$@"
}
exited_pid() {
	wait_for 20 jq_once "[.targets[] | select(.name == \"$NET_CLIENT\" and .state == \"exited\")] | length >= $1"
	once_json | jq -e "[.targets[] | select(.name == \"$NET_CLIENT\")] | max_by(.started_ms) | .pid"
}

# 1. verification on: the handshake fails.
w=$(net_fetch under_agent /dev/null "https://127.0.0.1:$TP/")
echo "$NET_CLIENT: $w (60: CURLE_PEER_FAILED_VERIFICATION); openssl verify: $why"
[ "${w##* }" = 60 ] || fail "$NET_CLIENT did not fail on the certificate: $w"
p=$(exited_pid 1)
once_json --target "$p" >"$HS_TMP/bad.json"
jq -e --arg a "127.0.0.1:$TP" --arg why "$why" '.network.endpoints[] | select(.addr == $a) |
	.connects == 1 and .tls == 1 and .tls_fails == 1 and .errors == 1 and .error == $why' \
	"$HS_TMP/bad.json" >/dev/null || fail "failed handshake not counted with its reason: $(jq -c .network.endpoints "$HS_TMP/bad.json")"
jq -e --arg e "certificate verify failed: $why" --arg a "tcp 127.0.0.1:$TP" '[.network.events[] |
	select(.op == "tls" and .what == $a and .error == $e and (.stack.frames | length) > 0)] | length == 1' \
	"$HS_TMP/bad.json" >/dev/null || fail "no tls event: $(jq -c '.network.events | del(.[].stack)' "$HS_TMP/bad.json")"
jq -e '.network.http[0] | .scheme == "https" and .fails == 1 and .status == 0 and
	.error == "SSL peer certificate or SSH remote key was not OK"' "$HS_TMP/bad.json" >/dev/null ||
	fail "request row of the failed handshake: $(jq -c .network.http "$HS_TMP/bad.json")"

# 2. -k: the handshake completes.
w=$(net_fetch under_agent /dev/null "https://127.0.0.1:$TP/" insecure)
set -- $w
[ "$1" = 200 ] || fail "$NET_CLIENT without the certificate check: $w"
span=$((($5 - $4) * 1000))
p=$(exited_pid 2)
once_json --target "$p" >"$HS_TMP/ok.json"
echo "$NET_CLIENT -k: connect $4 us, appconnect $5 us: $span ns; hookscope: $(jq -c '[.network.endpoints[0].tls_ns, .network.http[0].tls_ns]' "$HS_TMP/ok.json")"
jq -e --arg a "127.0.0.1:$TP" --argjson s "$span" '.network.endpoints[] | select(.addr == $a) |
	.tls == 1 and .tls_fails == 0 and .errors == 0 and .tls_ns > 0 and .tls_ns <= $s' \
	"$HS_TMP/ok.json" >/dev/null || fail "handshake not counted within curl's span: $(jq -c .network.endpoints "$HS_TMP/ok.json")"
jq -e --argjson s "$span" '.network.http[0] | .scheme == "https" and .status == 200 and .tls_ns == $s' \
	"$HS_TMP/ok.json" >/dev/null || fail "request row's TLS phase is not curl's: $(jq -c .network.http "$HS_TMP/ok.json")"
stop_daemon
echo "ok"
