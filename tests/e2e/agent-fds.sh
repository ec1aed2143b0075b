# agent-fds.sh - the agent never takes a descriptor number the program is
# about to reuse.  Debian's dash runs `printf ... >>file` as open(file),
# close(1), dup2(file, 1), write(1): an agent thread opening anything between
# the close and the dup2 (its socket, a /proc file of a harvest) gets number
# 1, the dup2 closes it under the agent, and the agent's close then closes
# the program's file (a line lost, "printf: I/O error"), or the program
# writes into the daemon's socket (the daemon drops the agent: "a record of
# 1868981760 bytes", the bytes "off\0").  Here dash writes 100,000 numbered
# lines that way while the agent harvests every 10 ms (it opens /proc files
# each time): every line must arrive, in order, nothing on dash's stderr,
# the agent's stream intact, and the reporter thread has a descriptor
# table of its own (/proc/PID/task/TID/fd).
. tests/e2e/lib.sh
command -v jq >/dev/null || fail "jq is not installed (a test dependency: make deps)"
N=100000
OUT=$HS_TMP/lines
GO=$HS_TMP/go
mkfifo "$GO"

export HOOKSCOPE_INTERVAL_MS=10
start_daemon run -- sh -c \
	"i=0; while [ \$i -lt $N ]; do printf '%s\n' \$i >>'$OUT'; i=\$((i + 1)); done; : >'$HS_TMP/done'; read x <'$GO'"
unset HOOKSCOPE_INTERVAL_MS
wait_for 20 jq_once '[.targets[] | select(.name == "sh")] | length == 1'
pid=$(once_json | jq -e '[.targets[] | select(.name == "sh")][0].pid') || fail "dash is not among the targets"
wait_for 120 test -e "$HS_TMP/done"

if grep -q "I/O error\|Bad file descriptor\|sent a record of" "$HS_TMP/daemon.log"; then
	fail "the program's descriptors were disturbed: $(grep "I/O error\|Bad file\|sent a record" "$HS_TMP/daemon.log" | head -3)"
fi
seq 0 $((N - 1)) | cmp -s - "$OUT" ||
	fail "dash's output differs from its $N lines: $(wc -l <"$OUT") lines, $(seq 0 $((N - 1)) | cmp - "$OUT" 2>&1 | head -1)"
# While dash waits on the FIFO: the reporter thread's table is its own:
# 0 and 1 are /dev/null, 2 too (or, in a sanitizer build, the program's
# stderr, for the sanitizer's reports); it holds the daemon socket, the
# program's table does not.
rep=""
for t in /proc/$pid/task/*; do
	[ "$(cat "$t/comm")" = hookscope ] && rep=${t##*/}
done
[ -n "$rep" ] || fail "no thread named hookscope in dash ($pid)"
for fd in 0 1 2; do
	l=$(readlink "/proc/$pid/task/$rep/fd/$fd")
	[ "$l" = /dev/null ] || { [ $fd = 2 ] && [ "$l" = "$(readlink "/proc/$pid/fd/2")" ]; } ||
		fail "the reporter's fd $fd is $l, not /dev/null"
done
ls -l "/proc/$pid/task/$rep/fd" | grep -q "socket:" || fail "the reporter's table holds no socket"
if ls -l "/proc/$pid/fd" | grep -q "socket:"; then
	fail "the program's table holds a socket: $(ls -l "/proc/$pid/fd")"
fi
echo go >"$GO"
wait_for 20 grep -q "target pid $pid ended" "$HS_TMP/daemon.log"
grep -q "target pid $pid ended: exit status 0" "$HS_TMP/daemon.log" ||
	fail "dash did not exit 0: $(grep ended "$HS_TMP/daemon.log")"
echo "dash wrote $N lines through builtin redirections beside harvests every 10 ms: all arrived, in order; the reporter's own table: 0-2 /dev/null and the socket"

# What the agent keeps in the program's table (the reporter's wake-up
# eventfd; libunwind's pipe, made on a program thread by its first stack
# walk) sits at the top of the numbers: Debian's python3 started with stdin
# closed, recording every allocation with its stack, still finds fd 0
# closed (CPython's own test_posix spawns a child that way and checks it)
# and gets 0 from its next open, as it does without the agent.
[ -x /usr/bin/python3 ] || fail "/usr/bin/python3 is missing: apt-get install python3"
fd0='
import os
blocks = [bytearray(1000) for i in range(2000)]
try:
    os.fstat(0); print("fd 0 open")
except OSError:
    print("fd 0 closed")
print("next", os.open("/dev/null", 0))'
expect=$(/usr/bin/python3 -c "$fd0" 0<&- | tr '\n' ' ')
[ "$expect" = "fd 0 closed next 0 " ] || fail "python3 without the agent: $expect"
for mem in full sampled; do
	got=$(HOOKSCOPE_LEVEL=4 HOOKSCOPE_MEMORY=$mem HOOKSCOPE_MEMORY_SAMPLE=4096 HOOKSCOPE_SOCKET=$HS_SOCK \
		LD_PRELOAD=$HS_PRELOAD /usr/bin/python3 -c "$fd0" 0<&- | tr '\n' ' ')
	[ "$got" = "$expect" ] || fail "python3 with stdin closed under the agent (memory $mem): $got, not $expect"
done
echo "python3 with stdin closed: fd 0 stays closed and is its next number under the agent"
