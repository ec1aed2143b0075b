# attach-ipc.sh - the IPC collector in a process hookscope did not start:
#   1. Debian's socat relays a FIFO to an echo server over a unix socket and
#      the echoes to a file; it runs unobserved for 100 kB, is attached
#      (hookscoped attach), then strace is attached too and 200 kB more go
#      through: hookscope's calls and bytes on the socket equal strace's
#      count of socat's read/write calls on it and the sums of their results
#      (nothing moves between the attach and strace's start: socat waits in
#      select for the next bytes);
#   2. Debian's python3 serving a unix socket, attached while it waits in
#      recv (bound to the agent's wrapper: its recvs are counted), detached
#      while it still waits there: the detach completes within a second
#      (hookscoped detach says how long it took), the agent leaves
#      /proc/PID/maps, and the recv returns the next bytes the client sends.
. tests/e2e/lib.sh
command -v strace >/dev/null || fail "strace is not installed (a test dependency: make deps)"
command -v socat >/dev/null || fail "socat is not installed (a test dependency: make deps)"

no_agent() { [ -e "/proc/$1" ] && ! grep -q libhookscope "/proc/$1/maps"; }
size_is() { [ "$(stat -c %s "$1" 2>/dev/null)" = "$2" ]; }
# hs_ep PID NAME: hookscope's "SENDS RECVS BYTES_OUT BYTES_IN" for an endpoint.
hs_ep() {
	once_json --target "$1" | jq -r --arg n "$2" \
		'[.ipc.endpoints[] | select(.name == $n)][0] | "\(.sends) \(.recvs) \(.bytes_out) \(.bytes_in)"'
}
# bytes_are PID NAME "OUT IN": the endpoint's bytes out and in.
bytes_are() {
	[ "$(once_json --target "$1" | jq -r --arg n "$2" \
		'[.ipc.endpoints[] | select(.name == $n)][0] | "\(.bytes_out) \(.bytes_in)"')" = "$3" ]
}
attach() {   # attach PID: at level 1, live in the daemon
	"$O/hookscoped" --socket "$HS_SOCK" attach "$1" --level 1 >"$HS_TMP/attach.txt" 2>&1 ||
		fail "attach failed: $(cat "$HS_TMP/attach.txt")"
	wait_for 20 jq_once "[.targets[] | select(.pid == $1 and .state == \"live\" and .level == 1)] | length == 1"
}

start_daemon
S=$HS_TMP/echo.sock

# 1. socat, attached mid-stream, against strace over the same interval
spawn "$O/apps/ipcpeer" server "$S"
wait_for 10 test -S "$S"
mkfifo "$HS_TMP/feed"
exec 3<>"$HS_TMP/feed"
spawn_attachable socat -b 8192 "OPEN:$HS_TMP/feed,rdonly!!CREATE:$HS_TMP/out.bin" "UNIX-CONNECT:$S"
SP=$SPAWNED
head -c 100000 /dev/urandom >"$HS_TMP/a.bin"
head -c 200000 /dev/urandom >"$HS_TMP/b.bin"
cat "$HS_TMP/a.bin" >&3
wait_for 20 size_is "$HS_TMP/out.bin" 100000
# socat's stream socket (it also has a datagram one), by inode
fd=$(for f in /proc/$SP/fd/*; do
	ino=$(readlink "$f" | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p')
	[ -n "$ino" ] && awk -v i="$ino" '$7 == i && $5 == "0001" {found = 1} END {exit !found}' /proc/net/unix &&
		basename "$f"
done)
[ -n "$fd" ] || fail "socat has no unix stream socket"
attach "$SP"
grep -q libhookscope "/proc/$SP/maps" || fail "no agent in socat after the attach"
strace -qq -p "$SP" -e trace=read,write,recvfrom,sendto,recvmsg,sendmsg -o "$HS_TMP/st.txt" &
ST=$!
HS_PIDS="$HS_PIDS $ST"
wait_for 10 sh -c "grep -Eq 'TracerPid:[[:space:]]+$ST\$' /proc/$SP/status"
cat "$HS_TMP/b.bin" >&3
wait_for 30 size_is "$HS_TMP/out.bin" 300000
cat "$HS_TMP/a.bin" "$HS_TMP/b.bin" | cmp -s - "$HS_TMP/out.bin" || fail "socat did not relay the data back"
wait_for 10 bytes_are "$SP" "$S" "200000 200000"
kill -INT "$ST"
wait "$ST"
st=$(awk -v fd="$fd" '
	function ret(line) { match(line, / = -?[0-9]+( .*)?$/); split(substr(line, RSTART + 3), r, " "); return r[1] + 0 }
	$0 ~ ("^(write|sendto|sendmsg)\\(" fd ",") { no++; if (ret($0) > 0) bo += ret($0) }
	$0 ~ ("^(read|recvfrom|recvmsg)\\(" fd ",") { ni++; if (ret($0) > 0) bi += ret($0) }
	END { printf "%d %d %d %d\n", no, ni, bo, bi }' "$HS_TMP/st.txt")
hs=$(hs_ep "$SP" "$S")
echo "socat after the attach: hookscope sends recvs bytes_out bytes_in = $hs; strace on fd $fd = $st"
[ "$hs" = "$st" ] || fail "socat: hookscope $hs, strace $st"
"$O/hookscoped" detach "$SP" >"$HS_TMP/detach.txt" 2>&1 || fail "detach from socat: $(cat "$HS_TMP/detach.txt")"
no_agent "$SP" || fail "agent still mapped in socat"
cat "$HS_TMP/a.bin" >&3
wait_for 20 size_is "$HS_TMP/out.bin" 400000
exec 3>&-

# 2. /usr/bin/python3 waiting in recv inside the agent's wrapper at detach time
P=$HS_TMP/py.sock
spawn_attachable /usr/bin/python3 -u -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
c, _ = s.accept()
while True:
    d = c.recv(100)
    if not d:
        break
    print("got", d.decode().strip())
' "$P" >"$HS_TMP/py.txt"
PY=$SPAWNED
wait_for 10 test -S "$P"
mkfifo "$HS_TMP/feed2"
exec 4<>"$HS_TMP/feed2"
spawn socat -u "OPEN:$HS_TMP/feed2,rdonly" "UNIX-CONNECT:$P" 4>&-   # the only writer: the test
echo one >&4
wait_for 10 grep -q "got one" "$HS_TMP/py.txt"
attach "$PY"
# "two" ends the recv python3 entered before the attach (unseen); the next
# recv goes through the wrapper: "three" is counted, then python3 waits in
# the wrapper's recv (recvfrom, system call 45).
echo two >&4
wait_for 10 grep -q "got two" "$HS_TMP/py.txt"
echo three >&4
wait_for 10 grep -q "got three" "$HS_TMP/py.txt"
wait_for 10 bytes_are "$PY" "<- $P" "0 6"
wait_for 10 awk '{exit !($1 == 45)}' "/proc/$PY/syscall"
"$O/hookscoped" detach "$PY" >"$HS_TMP/detach2.txt" 2>&1 || fail "detach: $(cat "$HS_TMP/detach2.txt")"
cat "$HS_TMP/detach2.txt"
ms=$(sed -n 's/.*agent unloaded in \([0-9]*\) ms.*/\1/p' "$HS_TMP/detach2.txt")
[ -n "$ms" ] && [ "$ms" -lt 1000 ] || fail "detach took ${ms:-?} ms (a second at most)"
no_agent "$PY" || fail "agent still mapped in python3 after the detach"
echo four >&4
wait_for 10 grep -q "got four" "$HS_TMP/py.txt"
exec 4>&-
wait_for 10 sh -c "! kill -0 $PY 2>/dev/null"
wait "$PY" || fail "python3 exited with status $? after the detach"
stop_daemon
echo "attach-ipc: ok"
