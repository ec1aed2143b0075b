# ipc-pipes.sh - the IPC collector on pipes, FIFOs and POSIX message
# queues, each program run once under the agent AND strace -ff, strace's
# calls on the program's descriptor being the oracle:
#   1. Debian's dd writing into a FIFO read by cat: writes and bytes on the
#      FIFO endpoint (named by its path) equal strace's writes on that fd;
#      the reader is found (cat).
#   2. dd between two pipes (a slow feeder | dd | cat): reads and writes on
#      each pipe endpoint equal strace's read(0)/write(1); the writer's peer
#      is cat.
#   3. build/apps/ipcpeer mq: mq_send by the parent, mq_receive by a forked
#      reader: counts and bytes equal strace's mq_timedsend/mq_timedreceive.
. tests/e2e/lib.sh
command -v strace >/dev/null || fail "strace is not installed (a test dependency: make deps)"

# strace_calls PREFIX REGEX [LENARG [FD]]: "COUNT BYTES" of the lines
# matching REGEX in the per-thread files PREFIX.*, merged in time order
# (bytes: sum of positive results; for the mq calls, whose result is 0,
# the length argument LENARG).  With FD, counting stops at close(FD): the
# program's descriptor ends there.  The agent's threads are left out
# (program_strace): their descriptors are numbered apart.
strace_calls() {
	program_strace "$1" | sort -n | cut -d' ' -f2- |
		RE=$2 awk -v lenarg="${3:-0}" -v fd="${4:-}" '
			fd != "" && $0 ~ ("^close\\(" fd "\\)") { exit }
			$0 !~ ENVIRON["RE"] { next }
			{ n++; if (lenarg > 0) { split($0, a, ", "); b += a[lenarg] }
			else { match($0, / = -?[0-9]+( .*)?$/); v = substr($0, RSTART + 3) + 0; if (v > 0) b += v } }
			END { printf "%d %d\n", n, b }'
}
under_agent_strace() {
	local prefix=$1; shift
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD \
		strace -ff -qq -ttt -o "$prefix" -e trace=close_range,openat,close,read,write,mq_timedsend,mq_timedreceive "$@"
}
# slow_feed N: N blocks of 4096 bytes, 50 ms apart (the peers stay up).  dd's
# buffer is aligned_alloc(page, bs): under ASan (whose aligned_alloc the
# agent binds, as the loader does) bs must be a multiple of the page.
slow_feed() { for _ in $(seq 1 "$1"); do head -c 4096 /dev/zero; sleep 0.05; done; }
# The endpoint figures "$2" of target named $1 (the newest), as JSON.
ep_of() {
	local pid
	pid=$(once_json | jq -e --arg n "$1" '[.targets[] | select(.name == $n)] | max_by(.started_ms) | .pid') || return 1
	once_json --target "$pid" | jq -c "$2"
}

start_daemon
F=$HS_TMP/fifo
mkfifo "$F"

# 1. dd into a FIFO
spawn sh -c "cat '$F' >/dev/null"
slow_feed 20 | under_agent_strace "$HS_TMP/dd1" dd of="$F" bs=4096 iflag=fullblock count=20 status=none ||
	fail "dd into the FIFO failed"
wait_for 20 jq_once '[.targets[] | select(.name == "dd" and .state == "exited")] | length == 1'
hs=$(ep_of dd "[.ipc.endpoints[] | select(.name == \"$F\")][0] | \"\(.kind) \(.sends) \(.bytes_out) \(.peer_comm)\"" | tr -d '"')
st=$(strace_calls "$HS_TMP/dd1" "^write\(1," 0 1)   # dd moves of= to its stdout
echo "dd into a FIFO: hookscope kind sends bytes peer = $hs; strace writes on fd 1: $st"
[ "$hs" = "fifo $st cat" ] || fail "FIFO: hookscope $hs, strace $st (expected peer cat)"

# 2. a feeder | dd | cat: dd reads a pipe and writes a pipe
slow_feed 20 | under_agent_strace "$HS_TMP/dd2" dd bs=4096 iflag=fullblock count=20 status=none | cat >/dev/null ||
	fail "dd between pipes failed"
wait_for 20 jq_once '[.targets[] | select(.name == "dd" and .state == "exited")] | length == 2'
hs_out=$(ep_of dd '[.ipc.endpoints[] | select(.kind == "pipe" and .sends > 0)][0] | "\(.sends) \(.bytes_out) \(.peer_comm)"' | tr -d '"')
hs_in=$(ep_of dd '[.ipc.endpoints[] | select(.kind == "pipe" and .recvs > 0)][0] | "\(.recvs) \(.bytes_in)"' | tr -d '"')
st_out=$(strace_calls "$HS_TMP/dd2" "^write\(1," 0 1)
st_in=$(strace_calls "$HS_TMP/dd2" "^read\(0," 0 0)
echo "dd between pipes: hookscope writes $hs_out, reads $hs_in; strace write(1) $st_out, read(0) $st_in"
[ "$hs_out" = "$st_out cat" ] || fail "pipe writes: hookscope $hs_out, strace $st_out (expected peer cat)"
[ "$hs_in" = "$st_in" ] || fail "pipe reads: hookscope $hs_in, strace $st_in"

# 3. POSIX message queue
Q=/hookscope-test-$$
under_agent_strace "$HS_TMP/mq" "$O/apps/ipcpeer" mq "$Q" 40 300 >/dev/null || fail "ipcpeer mq failed"
wait_for 20 jq_once '[.targets[] | select(.name == "ipcpeer" and .state == "exited")] | length == 2'
pids=$(once_json | jq -r '[.targets[] | select(.name == "ipcpeer") | .pid] | sort | .[]')
sender=$(echo "$pids" | head -n 1) reader=$(echo "$pids" | tail -n 1)
hs_s=$(once_json --target "$sender" | jq -r --arg q "$Q" '[.ipc.endpoints[] | select(.kind == "mq" and .name == $q)][0] | "\(.sends) \(.bytes_out)"')
hs_r=$(once_json --target "$reader" | jq -r --arg q "$Q" '[.ipc.endpoints[] | select(.kind == "mq" and .name == $q)][0] | "\(.recvs) \(.bytes_in)"')
st_s=$(strace_calls "$HS_TMP/mq" '^mq_timedsend\(.* = 0$' 3)
st_r=$(strace_calls "$HS_TMP/mq" '^mq_timedreceive\(')
echo "message queue $Q: hookscope sender $hs_s, reader $hs_r; strace mq_timedsend $st_s, mq_timedreceive $st_r"
[ "$hs_s" = "$st_s" ] || fail "mq_send: hookscope $hs_s, strace $st_s"
[ "$hs_r" = "$st_r" ] || fail "mq_receive: hookscope $hs_r, strace $st_r"
stop_daemon
echo "ok"
