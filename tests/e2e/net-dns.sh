# net-dns.sh - name resolution through a test resolver: dnsmasq on a loopback
# address answers hs-test.example (and NXDOMAIN under .invalid); the clients
# run in a private mount namespace whose /etc/resolv.conf names it (a bind
# mount, the machine's file untouched), under the agent and strace:
#   1. getent ahosts (getaddrinfo) and getent hosts (gethostbyname2, IPv6 then
#      IPv4) resolve hs-test.example: the calls and failures the program
#      made (dnsmasq refuses AAAA: the IPv6 one fails), a latency at least the span
#      strace saw between the resolver's socket() and its last recvfrom() of
#      the answer, and dnsmasq logged the query.
#   2. an unknown name fails with the resolver's reason ("Name or service not
#      known") and is an event with a stack.
#   3. curl resolves the name in its resolver thread and fetches from it
#      (under a sanitizer build: tests/apps/netcurl, data/net-client.sh).
. tests/e2e/lib.sh
command -v dnsmasq >/dev/null || fail "dnsmasq is not installed (dnsmasq-base, a test dependency: make deps)"
command -v strace >/dev/null || fail "strace is not installed (a test dependency: make deps)"
command -v unshare >/dev/null || fail "unshare is not installed (util-linux: make deps)"
. tests/e2e/data/net-client.sh

NS=127.0.$((RANDOM % 200 + 20)).$((RANDOM % 200 + 20))
printf 'nameserver %s\noptions attempts:1 timeout:2\n' "$NS" >"$HS_TMP/resolv.conf"
spawn dnsmasq --no-daemon --port=53 --listen-address="$NS" --bind-interfaces --no-resolv --no-hosts \
	--host-record=hs-test.example,127.0.0.1 --address=/invalid/ --log-queries --log-facility="$HS_TMP/dns.log" \
	--pid-file="$HS_TMP/dnsmasq.pid" --user=root
wait_for 10 sh -c "ss -Hlun 'src $NS:53' | grep -q ."
unshare -m true 2>/dev/null || fail "unshare -m is refused here (the test needs a private mount namespace)"

# in_ns PREFIX CMD...: CMD in a mount namespace seeing our resolv.conf, with
# the agent preloaded, under strace -ff -ttt -T (files PREFIX.TID).
in_ns() {
	local out=$1; shift
	unshare -m sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"' "$HS_TMP/resolv.conf" \
		env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" HOOKSCOPE_SOCKET="$HS_SOCK" LD_PRELOAD="$HS_PRELOAD" \
		strace -ff -ttt -T -qq -o "$out" -e trace=close_range,socket,connect,sendto,sendmmsg,recvfrom,close "$@"
}

# The resolver's exchanges in PREFIX.*: from its first UDP socket() to the
# end of its last recvfrom() on port-53 sockets, in ns.
dns_span() {
	program_strace "$1" | sort -n | awk '
	/^[0-9.]+ socket\(AF_INET, SOCK_DGRAM/ && first == "" { first = $1 }
	/^[0-9.]+ recvfrom\(/ { match($0, /<[0-9.]+>$/); last = $1 + substr($0, RSTART + 1, RLENGTH - 2) }
	END { printf "%.0f\n", (last - first) * 1e9 }'
}

# The newest exited target called NAME once there are N.
exited_pid() {
	wait_for 20 jq_once "[.targets[] | select(.name == \"$1\" and .state == \"exited\")] | length >= $2"
	once_json | jq -e "[.targets[] | select(.name == \"$1\")] | max_by(.started_ms) | .pid"
}

start_daemon
# 1. getaddrinfo and gethostbyname2.
in_ns "$HS_TMP/gai.st" getent ahosts hs-test.example >"$HS_TMP/gai.out" || fail "getent ahosts failed"
grep -q "^127.0.0.1 " "$HS_TMP/gai.out" || fail "getent ahosts did not resolve through dnsmasq"
p1=$(exited_pid getent 1)
span=$(dns_span "$HS_TMP/gai.st")
row=$(once_json --target "$p1" | jq -c '.network.dns[] | select(.name == "hs-test.example")')
echo "getent ahosts: $row; strace's resolver exchange $span ns"
echo "$row" | jq -e --argjson s "$span" '.calls == 1 and .fails == 0 and .error == "" and
	.total_ns >= $s and .total_ns < 1000000000 and .max_ns == .total_ns' >/dev/null ||
	fail "getaddrinfo row wrong (want 1 call, latency >= $span ns): $row"
grep -q "query\\[A\\] hs-test.example from" "$HS_TMP/dns.log" || fail "dnsmasq saw no query"
grep -q "config error is REFUSED" "$HS_TMP/dns.log" || fail "dnsmasq did not refuse the AAAA query"

in_ns "$HS_TMP/ghb.st" getent hosts hs-test.example >/dev/null || fail "getent hosts failed"
p2=$(exited_pid getent 2)
span=$(dns_span "$HS_TMP/ghb.st")
row=$(once_json --target "$p2" | jq -c '.network.dns[] | select(.name == "hs-test.example")')
echo "getent hosts: $row; strace's resolver exchange $span ns"
# getent hosts asks for an IPv6 address first (gethostbyname2(AF_INET6)):
# dnsmasq, with no upstream, answers REFUSED (its log says so), which glibc
# reports as TRY_AGAIN, "Host name lookup failure"; then IPv4 succeeds.
echo "$row" | jq -e --argjson s "$span" '.calls == 2 and .fails == 1 and
	.error == "Host name lookup failure" and .total_ns >= $s' >/dev/null ||
	fail "gethostbyname2 row wrong: $row"

# 2. an unknown name.
in_ns "$HS_TMP/bad.st" getent ahosts nope.hs-test.invalid && fail "an unknown name resolved"
p3=$(exited_pid getent 3)
once_json --target "$p3" >"$HS_TMP/bad.json"
jq -e '.network.dns[] | select(.name == "nope.hs-test.invalid") |
	.calls == 1 and .fails == 1 and .error == "Name or service not known"' "$HS_TMP/bad.json" >/dev/null ||
	fail "unknown name not a failure with its reason: $(jq -c .network.dns "$HS_TMP/bad.json")"
jq -e '[.network.events[] | select(.op == "dns" and .what == "nope.hs-test.invalid" and
	.error == "Name or service not known" and (.stack.frames | length) > 0)] | length == 1' \
	"$HS_TMP/bad.json" >/dev/null || fail "no dns event with a stack: $(jq -c '.network.events' "$HS_TMP/bad.json")"
grep -q "query\\[A\\] nope.hs-test.invalid" "$HS_TMP/dns.log" || fail "dnsmasq saw no query for the unknown name"

# 3. curl's resolver thread, then the fetch from the resolved address.
WEB=$(free_port)
mkdir -p "$HS_TMP/www" && echo hello >"$HS_TMP/www/index.html"
(cd "$HS_TMP/www" && exec python3 -m http.server --bind 127.0.0.1 "$WEB") >"$HS_TMP/http.log" 2>&1 &
HS_PIDS="$HS_PIDS $!"
wait_for 20 port_listening "$WEB"
net_fetch "in_ns $HS_TMP/curl.st" /dev/null "http://hs-test.example:$WEB/index.html" >"$HS_TMP/code"
p4=$(exited_pid "$NET_CLIENT" 1)
once_json --target "$p4" >"$HS_TMP/curl.json"
jq -e --arg h "hs-test.example:$WEB" --arg a "127.0.0.1:$WEB" '
	([.network.dns[] | select(.name == "hs-test.example" and .calls >= 1 and .fails == 0)] | length == 1) and
	([.network.http[] | select(.host == $h and .status == 200 and .path == "/index.html")] | length == 1) and
	([.network.endpoints[] | select(.addr == $a and .connects == 1 and .bytes_in > 0)] | length == 1)' \
	"$HS_TMP/curl.json" >/dev/null || fail "curl by name: $(jq -c '.network | del(.events)' "$HS_TMP/curl.json")"
[ "$(cut -d' ' -f1 "$HS_TMP/code")" = 200 ] || fail "$NET_CLIENT got $(cat "$HS_TMP/code")"
stop_daemon
echo "ok"
