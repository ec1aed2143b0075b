# memory-sampled.sh - sampled mode's estimate against the exact figure, and
# the mode switched live:
#   1. build/apps/memleak many 30000 (the same sizes on every run: 1 .. 4096
#      bytes, a third freed; about 41 MB in use at exit) in full mode gives
#      the exact heap in use; sampled with a 16 KiB mean interval (some 2500
#      sample points: a 2% standard error) the estimate is within 10% of it.
#   2. a running memleak grow in sampled mode: "threshold memory 0" makes
#      the agent track every allocation, "threshold memory 65536" samples
#      again with that interval; each shows in its next record.
. tests/e2e/lib.sh
if [ -n "$HS_SAN_RT" ]; then
	echo "SKIP: under a sanitizer runtime the program's malloc is the sanitizer's, not the agent's"
	exit 0
fi
cmd() { local pid=$1; shift; "$O/hookscope" --cmd "target $pid" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }

start_daemon
heap_at_exit() {   # MODE: the heap in use at exit of memleak many 30000, "bytes blocks"
	local n pid
	n=$(once_json | jq '[.targets[] | select(.name == "memleak")] | length')
	HOOKSCOPE_MEMORY=$1 HOOKSCOPE_MEMORY_SAMPLE=16384 HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD \
		"$O/apps/memleak" many 30000 >/dev/null || fail "memleak many under the agent failed"
	wait_for 20 jq_once "[.targets[] | select(.name == \"memleak\" and .state == \"exited\")] | length == $((n + 1))"
	pid=$(once_json | jq -r '[.targets[] | select(.name == "memleak")] | max_by(.started_ms) | .pid')
	once_json --target "$pid" | jq -r --arg m "$1" '.memory | select(.mode == $m) | "\(.heap_bytes) \(.heap_blocks)"'
}
exact=$(heap_at_exit full)
est=$(heap_at_exit sampled)
[ -n "$exact" ] && [ -n "$est" ] || fail "no figures: full '$exact', sampled '$est'"
echo "heap in use at exit (bytes blocks): exact $exact, sampled estimate $est"
echo "$exact $est" | awk '{ e = ($3 - $1) / $1; if (e < 0) e = -e; printf "bytes: off by %.2f%%\n", 100 * e; exit !(e <= 0.10) }' ||
	fail "the sampled estimate $est is more than 10% off the exact $exact"

# 2. switched live
spawn env HOOKSCOPE_MEMORY=sampled HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$O/apps/memleak" grow 60
pid=$SPAWNED
wait_for 20 jq_once ".targets[] | select(.pid == $pid and .state == \"live\")"
wait_for 20 jq_once '.memory.mode == "sampled" and .memory.sample_bytes == 262144' --target "$pid"
cmd "$pid" threshold memory 0 >/dev/null || fail "threshold memory 0 was refused"
wait_for 10 jq_once '.memory.mode == "full"' --target "$pid"
# exact now: every new leak_steady block is counted, 4096 bytes each
a=$(once_json --target "$pid" | jq '[.memory.sites[] | select(.stack.frames[0].func == "leak_steady")][0].allocs // 0')
wait_for 10 sh -c "[ \$(\"$O/hookscope\" --once --json --target $pid ws://127.0.0.1:$HS_PORT |
	jq '[.memory.sites[] | select(.stack.frames[0].func == \"leak_steady\")][0].allocs // 0') -ge $((a + 10)) ]"
cmd "$pid" threshold memory 65536 >/dev/null || fail "threshold memory 65536 was refused"
wait_for 10 jq_once '.memory.mode == "sampled" and .memory.sample_bytes == 65536' --target "$pid"
echo "memory-sampled: ok"
