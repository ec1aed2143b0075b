# ipc-unix.sh - the IPC collector against strace on unix sockets.  Each
# program runs once, under the agent AND strace -ff at the same time, so
# both count the very same calls; strace's lines on the program's own
# socket fd (found from its connect/accept) are the oracle:
#   1. build/apps/ipcpeer, stream: client (send/recv) and server
#      (read/write on the accepted socket), both under the agent: sends,
#      recvs, bytes each way equal strace's sendto/recvfrom (client) and
#      write/read (server) counts and return-value sums; the peer process
#      (SO_PEERCRED) is named.
#   2. ipcpeer, datagram: sendto a server path / recv.
#   3. Debian's socat relaying a file to an echo server over a unix socket.
. tests/e2e/lib.sh
command -v strace >/dev/null || fail "strace is not installed (a test dependency: make deps)"
command -v socat >/dev/null || fail "socat is not installed (a test dependency: make deps)"

# strace_fd PREFIX START FDAT: "OUTS INS BYTES_OUT BYTES_IN" of one socket
# in the per-thread strace files PREFIX.* merged in time order: the socket
# is the fd of the first line matching the regex START (FDAT "arg": its
# first argument, "ret": its result), counted from there to its close (the
# number is reused after).  write/sendto/sendmsg are out,
# read/recvfrom/recvmsg in; bytes are the sums of positive results.
strace_fd() {
	# The regex through the environment: awk -v would take its backslashes
	# as escapes (gawk drops the one in "\(").
	program_strace "$1" | sort -n | cut -d' ' -f2- | START=$2 awk -v fdat="$3" '
	function ret(line) { match(line, / = -?[0-9]+( .*)?$/); split(substr(line, RSTART + 3), r, " "); return r[1] + 0 }
	!on { if ($0 ~ ENVIRON["START"]) { on = 1
			if (fdat == "ret") fd = ret($0); else { fd = $0; sub(/^[a-z0-9]+\(/, "", fd); sub(/,.*/, "", fd) }
			if ($0 ~ /^sendto\(/) { no++; if (ret($0) > 0) bo += ret($0) } }
		next }
	$0 ~ ("^close\\(" fd "\\)") { exit }
	$0 ~ ("^(write|sendto|sendmsg)\\(" fd ",") { no++; if (ret($0) > 0) bo += ret($0) }
	$0 ~ ("^(read|recvfrom|recvmsg)\\(" fd ",") { ni++; if (ret($0) > 0) bi += ret($0) }
	END { printf "%d %d %d %d\n", no, ni, bo, bi }'
}

# hookscope's "SENDS RECVS BYTES_OUT BYTES_IN" for endpoint NAME of pid PID.
hs_ep() {
	once_json --target "$1" | jq -r --arg n "$2" \
		'[.ipc.endpoints[] | select(.name == $n)][0] | "\(.sends) \(.recvs) \(.bytes_out) \(.bytes_in)"'
}

# under_agent_strace PREFIX CMD...: CMD with the agent preloaded, traced.
under_agent_strace() {
	local prefix=$1; shift
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD \
		strace -ff -qq -ttt -o "$prefix" \
		-e trace=close_range,connect,accept,accept4,close,read,write,recvfrom,sendto,recvmsg,sendmsg "$@"
}

start_daemon
S=$HS_TMP/echo.sock
N=300 SIZE=3000

# 1. stream client and server, both under the agent and strace.
spawn under_agent_strace "$HS_TMP/srv" "$O/apps/ipcpeer" server "$S"
srv_strace=$SPAWNED
wait_for 10 test -S "$S"
spawn under_agent_strace "$HS_TMP/cli" "$O/apps/ipcpeer" client "$S" $N $SIZE --wait-file "$HS_TMP/go1"
cli_strace=$SPAWNED
wait_for 30 jq_once "[.targets[] | select(.name == \"ipcpeer\")] | length == 2"
cli=$(once_json | jq -e '[.targets[] | select(.name == "ipcpeer")] | max_by(.started_ms) | .pid') || fail "no client target"
srv=$(once_json | jq -e '[.targets[] | select(.name == "ipcpeer")] | min_by(.pid) | .pid') || fail "no server target"
wait_for 30 jq_once "[.ipc.endpoints[] | select(.name == \"$S\")][0].sends == $N" --target "$cli"
touch "$HS_TMP/go1"
wait "$cli_strace"
wait_for 20 jq_once ".targets[] | select(.pid == $srv) | .state == \"exited\""
wait_for 20 jq_once ".targets[] | select(.pid == $cli) | .state == \"exited\""
# The server's trace is whole only once strace itself has ended: the agent's
# goodbye can reach the daemon before strace has written its last lines.
wait "$srv_strace"
hs=$(hs_ep "$cli" "$S")
st=$(strace_fd "$HS_TMP/cli" "^connect\\(.*sun_path=\"$S\".* = 0$" arg)
echo "stream client: hookscope sends recvs bytes_out bytes_in = $hs; strace on its socket = $st"
[ "$hs" = "$st" ] || fail "stream client: hookscope $hs, strace $st"
[ "$(echo "$hs" | cut -d' ' -f1,3)" = "$N $((N * SIZE))" ] || fail "stream client: not $N sends of $SIZE bytes"
once_json --target "$cli" | jq -e --arg n "$S" '.ipc.endpoints[] | select(.name == $n) |
	.kind == "unix" and .connects == 1 and .peer_comm == "ipcpeer" and .peer_pid > 0 and .ui_calls > 0' \
	>/dev/null || fail "stream client endpoint: kind, connect, peer process or UI-thread calls wrong"
hs=$(hs_ep "$srv" "<- $S")
st=$(strace_fd "$HS_TMP/srv" "^accept4?\\(" ret)
echo "stream server: hookscope = $hs; strace on the accepted socket = $st"
[ "$hs" = "$st" ] || fail "stream server: hookscope $hs, strace $st"

# 2. datagram: the client sends to the server's path, receives on its own.
spawn "$O/apps/ipcpeer" server "$S" --dgram
wait_for 10 test -S "$S"
rm -f "$HS_TMP"/cli.*
spawn under_agent_strace "$HS_TMP/cli" "$O/apps/ipcpeer" client "$S" $N 500 --dgram --wait-file "$HS_TMP/go2"
cli_strace=$SPAWNED
wait_for 30 sh -c "'$O/hookscope' --once --json ws://127.0.0.1:$HS_PORT | jq -e '[.targets[] | select(.name == \"ipcpeer\" and .state == \"live\")] | length == 1'"
cli=$(once_json | jq -e '[.targets[] | select(.name == "ipcpeer" and .state == "live")][0].pid')
wait_for 30 jq_once "[.ipc.endpoints[] | select(.name == \"$S\")][0].sends == $((N + 1))" --target "$cli"
touch "$HS_TMP/go2"
wait "$cli_strace"
wait_for 20 jq_once ".targets[] | select(.pid == $cli) | .state == \"exited\""
once_json --target "$cli" >"$HS_TMP/d.json"
out=$(jq -r --arg n "$S" '[.ipc.endpoints[] | select(.name == $n)][0] | "\(.kind) \(.sends) \(.bytes_out)"' "$HS_TMP/d.json")
in=$(jq -r --arg n "<- $S.client" '[.ipc.endpoints[] | select(.name == $n)][0] | "\(.recvs) \(.bytes_in)"' "$HS_TMP/d.json")
st=$(strace_fd "$HS_TMP/cli" "^sendto\\(.*sun_path=\"$S\"" arg)
echo "datagram client: hookscope to $S: $out, from it: $in; strace on its socket = $st"
[ "unix-dgram $(echo "$st" | cut -d' ' -f1,3)" = "$out" ] || fail "datagram sends: hookscope $out, strace $st"
[ "$(echo "$st" | cut -d' ' -f2,4)" = "$in" ] || fail "datagram receives: hookscope $in, strace $st"

# 3. socat relays a file to an echo server and the echoes to a file.
spawn "$O/apps/ipcpeer" server "$S"
wait_for 10 test -S "$S"
head -c 200000 /dev/urandom >"$HS_TMP/in.bin"
rm -f "$HS_TMP"/cli.*
under_agent_strace "$HS_TMP/cli" socat -t 2 - "UNIX-CONNECT:$S" <"$HS_TMP/in.bin" >"$HS_TMP/out.bin" ||
	fail "socat failed"
cmp -s "$HS_TMP/in.bin" "$HS_TMP/out.bin" || fail "socat did not relay the data back (echo server)"
wait_for 20 jq_once '[.targets[] | select(.name == "socat" and .state == "exited")] | length == 1'
sp=$(once_json | jq -e '[.targets[] | select(.name == "socat")][0].pid')
hs=$(hs_ep "$sp" "$S")
st=$(strace_fd "$HS_TMP/cli" "^connect\\(.*sun_path=\"$S\".* = 0$" arg)
echo "socat: hookscope sends recvs bytes_out bytes_in = $hs; strace on its socket = $st"
[ "$hs" = "$st" ] || fail "socat: hookscope $hs, strace $st"
[ "$(echo "$hs" | cut -d' ' -f3,4)" = "200000 200000" ] || fail "socat: not 200000 bytes each way"
stop_daemon
echo "ok"
