# net-tcp.sh - the network collector's sockets against strace and curl's own
# figures.  Each client runs once, under the agent AND strace -f at the same
# time, so both see the very same calls:
#   1. Debian's curl fetches a file from python3's http.server on loopback:
#      connects to 127.0.0.1:PORT, sends, receives and bytes each way equal
#      strace's connect/sendto/recvfrom lines on that socket; the libcurl
#      request row (method, scheme, host, path without the query, status,
#      response bytes, total time) equals curl's -w figures exactly.
#   2. wget fetches the same file (read/write on its socket): the same check.
#   Under a sanitizer build (whose runtime hangs Debian's curl and wget at
#   start) the libcurl client is tests/apps/netcurl (data/net-client.sh) and
#   the second client Debian's python3 (urllib: send/recv).
#   3. a refused port: curl's connect fails with "Connection refused
#      (ECONNREFUSED)" (strace shows the SO_ERROR it read), the request row
#      has the transfer error, and both are events with a stack.
#   4. UDP: python3 sends datagrams with sendto() on an unconnected socket and
#      socat on a connected one: sends and bytes per destination equal strace's.
. tests/e2e/lib.sh
command -v strace >/dev/null || fail "strace is not installed (a test dependency: make deps)"
command -v wget >/dev/null || fail "wget is not installed (a test dependency: make deps)"
. tests/e2e/data/net-client.sh
command -v socat >/dev/null || fail "socat is not installed (a test dependency: make deps)"

# strace_sock PREFIX REGEX: "CONNECTS OUTS INS BYTES_OUT BYTES_IN" of the TCP or
# UDP sockets in the per-thread strace files PREFIX.* merged in time order
# whose connect() or sendto() line matches REGEX: connects counted, then
# every write/sendto/sendmsg (out) and read/recvfrom/recvmsg (in) on that
# fd until its close; bytes are the sums of positive results.
strace_sock() {
	# The regex through the environment: awk -v would take its backslashes
	# as escapes (gawk drops the one in "\(").
	program_strace "$1" | sort -n | cut -d' ' -f2- | RE=$2 awk '
	function ret(line) { match(line, / = -?[0-9]+( .*)?$/); split(substr(line, RSTART + 3), r, " "); return r[1] + 0 }
	function fdof(line) { s = line; sub(/^[a-z0-9]+\(/, "", s); sub(/[,)].*/, "", s); return s }
	{ call = $1; sub(/\(.*/, "", call) }
	$0 ~ ENVIRON["RE"] && (call == "connect" || call == "sendto") { if (call == "connect") nc++; on[fdof($0)] = 1 }
	call == "close" { delete on[fdof($0)]; next }
	fdof($0) in on {
		if (call ~ /^(write|sendto|sendmsg)$/) { no++; if (ret($0) > 0) bo += ret($0) }
		if (call ~ /^(read|recvfrom|recvmsg)$/) { ni++; if (ret($0) > 0) bi += ret($0) }
	}
	END { printf "%d %d %d %d %d\n", nc, no, ni, bo, bi }'
}

# hookscope's "CONNECTS SENDS RECVS BYTES_OUT BYTES_IN" of endpoint ADDR (proto P) of pid PID.
hs_ep() {
	once_json --target "$1" | jq -r --arg p "$2" --arg a "$3" \
		'[.network.endpoints[] | select(.proto == $p and .addr == $a)][0] |
		 "\(.connects) \(.sends) \(.recvs) \(.bytes_out) \(.bytes_in)"'
}

# traced PREFIX CMD...: CMD with the agent preloaded, under strace -ff (one
# file per thread, PREFIX.TID: no call split across lines).
traced() {
	local out=$1; shift
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD \
		strace -ff -ttt -qq -o "$out" -e trace=close_range,connect,getsockopt,close,read,write,recvfrom,sendto,recvmsg,sendmsg "$@"
}

# The pid of the newest exited target called NAME.
exited_pid() {
	wait_for 20 jq_once "[.targets[] | select(.name == \"$1\" and .state == \"exited\")] | length >= $2"
	once_json | jq -e "[.targets[] | select(.name == \"$1\")] | max_by(.started_ms) | .pid"
}

start_daemon
WEB=$(free_port)
mkdir -p "$HS_TMP/www"
head -c 300000 /dev/urandom >"$HS_TMP/www/file.bin"
(cd "$HS_TMP/www" && exec /usr/bin/python3 -m http.server --bind 127.0.0.1 "$WEB") >"$HS_TMP/http.log" 2>&1 &
HS_PIDS="$HS_PIDS $!"
wait_for 20 port_listening "$WEB"
EP="127.0.0.1:$WEB"
RE="^(connect|sendto)\\(.*htons\\($WEB\\).*127\\.0\\.0\\.1"

# 1. curl.
w=$(net_fetch "traced $HS_TMP/curl.st" "$HS_TMP/out.bin" "http://$EP/file.bin?token=secret")
cmp -s "$HS_TMP/out.bin" "$HS_TMP/www/file.bin" || fail "$NET_CLIENT did not fetch the file: $w"
cpid=$(exited_pid "$NET_CLIENT" 1)
hs=$(hs_ep "$cpid" tcp "$EP")
st=$(strace_sock "$HS_TMP/curl.st" "$RE")
echo "curl: hookscope connects sends recvs bytes_out bytes_in = $hs; strace = $st"
[ "$hs" = "$st" ] || fail "curl socket: hookscope $hs, strace $st"
[ "$(echo "$hs" | cut -d' ' -f1)" = 1 ] || fail "curl: not one connect"
set -- $w
want="GET http 127.0.0.1:$WEB /file.bin 1 $1 $2 $(($3 * 1000))"
got=$(once_json --target "$cpid" | jq -r '.network.http[0] |
	"\(.method) \(.scheme) \(.host) \(.path) \(.requests) \(.status) \(.bytes_in) \(.total_ns)"')
echo "$NET_CLIENT request: hookscope $got; libcurl measured $w"
[ "$got" = "$want" ] || fail "request row: hookscope $got, libcurl's figures want $want"
once_json --target "$cpid" | jq -e '.network.endpoints[0].connect_ns > 0 and .network.endpoints[0].errors == 0' \
	>/dev/null || fail "curl: no connect time, or errors"

# 2. wget (read/write on its socket).
if [ -z "$HS_SAN_RT" ]; then
	WGET=wget
	traced "$HS_TMP/wget.st" wget -q -O "$HS_TMP/out2.bin" "http://$EP/file.bin" || fail "wget failed"
else
	WGET=python3
	traced "$HS_TMP/wget.st" /usr/bin/python3 -c "import urllib.request, sys
open(sys.argv[1], 'wb').write(urllib.request.urlopen(sys.argv[2]).read())" "$HS_TMP/out2.bin" \
		"http://$EP/file.bin" || fail "python3 failed"
fi
cmp -s "$HS_TMP/out2.bin" "$HS_TMP/www/file.bin" || fail "$WGET did not fetch the file"
wpid=$(exited_pid "$WGET" 1)
hs=$(hs_ep "$wpid" tcp "$EP")
st=$(strace_sock "$HS_TMP/wget.st" "$RE")
echo "$WGET: hookscope connects sends recvs bytes_out bytes_in = $hs; strace = $st"
[ "$hs" = "$st" ] || fail "wget socket: hookscope $hs, strace $st"
[ "$(echo "$hs" | cut -d' ' -f5)" -gt 300000 ] || fail "wget: not the file's bytes received"

# 3. a refused port.
CLOSED=$(free_port)
w=$(net_fetch "traced $HS_TMP/ref.st" /dev/null "http://127.0.0.1:$CLOSED/")
[ "${w##* }" = 7 ] || fail "a fetch from a closed port did not fail to connect: $w"
grep -Eq "getsockopt\\(.*SO_ERROR, \\[ECONNREFUSED\\]|connect\\(.*htons\\($CLOSED\\).* ECONNREFUSED" "$HS_TMP"/ref.st.* ||
	fail "strace saw no refused connect"
rpid=$(exited_pid "$NET_CLIENT" 2)
once_json --target "$rpid" >"$HS_TMP/ref.json"
jq -e --arg a "127.0.0.1:$CLOSED" '.network.endpoints[] | select(.addr == $a) |
	.connects == 1 and .connect_fails == 1 and .errors == 1 and .error == "Connection refused (ECONNREFUSED)"' \
	"$HS_TMP/ref.json" >/dev/null || fail "refused connect not counted with its reason: $(jq -c .network.endpoints "$HS_TMP/ref.json")"
jq -e '.network.http[0] | .fails == 1 and .status == 0 and .error == "Couldn'"'"'t connect to server"' \
	"$HS_TMP/ref.json" >/dev/null || fail "refused request row wrong: $(jq -c .network.http "$HS_TMP/ref.json")"
jq -e '[.network.events[] | select(.op == "connect" and (.error | test("ECONNREFUSED")) and
	(.stack.frames | length) > 0)] | length == 1' "$HS_TMP/ref.json" >/dev/null ||
	fail "no connect event with a stack: $(jq -c '.network.events' "$HS_TMP/ref.json")"

# 4. UDP: unconnected sendto (python3) and a connected socket (socat).
U=$(free_port)
spawn socat -u "UDP-RECV:$U,bind=127.0.0.1" "OPEN:$HS_TMP/udp.out,creat"
wait_for 10 sh -c "ss -Hlun 'sport = :$U' | grep -q ."
traced "$HS_TMP/py.st" /usr/bin/python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n in (100, 200, 300):
    s.sendto(b'x' * n, ('127.0.0.1', $U))
" || fail "python3 sendto failed"
ppid=$(exited_pid python3 $([ "$WGET" = python3 ] && echo 2 || echo 1))
hs=$(hs_ep "$ppid" udp "127.0.0.1:$U")
st=$(strace_sock "$HS_TMP/py.st" "^sendto\\(.*htons\\($U\\).*127\\.0\\.0\\.1")
echo "python3 udp: hookscope = $hs; strace = $st"
# strace_sock counts the matching sendto lines themselves as sends (no connect).
[ "$hs" = "0 3 0 600 0" ] || fail "python3 udp: hookscope $hs, want 0 3 0 600 0"
[ "$(echo "$st" | cut -d' ' -f2,4)" = "3 600" ] || fail "python3 udp: strace $st"
printf 'hello over udp\n' | traced "$HS_TMP/socat.st" socat -t 0.2 - "UDP:127.0.0.1:$U" || fail "socat failed"
spid=$(exited_pid socat 1)
hs=$(hs_ep "$spid" udp "127.0.0.1:$U")
st=$(strace_sock "$HS_TMP/socat.st" "^connect\\(.*htons\\($U\\).*127\\.0\\.0\\.1")
echo "socat udp: hookscope = $hs; strace = $st"
[ "$hs" = "$st" ] || fail "socat udp: hookscope $hs, strace $st"
stop_daemon
echo "ok"
