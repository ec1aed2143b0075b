# attach-memory.sh - the memory collector in a process hookscope did not
# start: build/apps/memleak grow (leak_steady leaks 4 KiB every 50 ms while
# cycle_buffers allocates and frees as much) runs unobserved, is attached
# at level 3 with the overhead budget off (full tracking): the allocations made after the attach are
# tracked (leak_steady's site grows and, with a 4 s leak window, is flagged
# a suspected leak; cycle_buffers holds nothing), then it is detached: the
# agent leaves /proc/PID/maps, the program runs on to its end and its
# output is that of a run without hookscope.  Then memleak release: 3
# blocks allocated before the attach, freed after it: 3 unknown frees, the
# heap in use not changed by them.
. tests/e2e/lib.sh
if [ -n "$HS_SAN_RT" ]; then
	echo "SKIP: under a sanitizer runtime the program's malloc is the sanitizer's, not the agent's"
	exit 0
fi
no_agent() { [ -e "/proc/$1" ] && ! grep -q libhookscope "/proc/$1/maps"; }
full_tracking() {   # PID: level 3 tracks every allocation with the budget off
	"$O/hookscope" --cmd "target $1" --cmd "budget off" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
		fail "budget off was refused"
	wait_for 10 jq_once '.memory.mode == "full"' --target "$1"
}
site() {   # PID FUNC: the site whose innermost frame is FUNC, as JSON
	once_json --target "$1" | jq -c --arg f "$2" '[.memory.sites[] | select(.stack.frames[0].func == $f)][0]'
}

"$O/apps/memleak" grow 1 >"$HS_TMP/alone.out" || fail "memleak grow alone failed"
start_daemon
spawn_attachable "$O/apps/memleak" grow 25 >"$HS_TMP/hs.out"
pid=$SPAWNED
sleep_until=$(( $(date +%s) + 1 ))
while [ "$(date +%s)" -lt "$sleep_until" ]; do sleep 0.2; done   # it leaks a while unobserved
"$O/hookscoped" --socket "$HS_SOCK" attach "$pid" --level 3 >"$HS_TMP/attach.txt" 2>&1 ||
	fail "attach failed: $(cat "$HS_TMP/attach.txt")"
wait_for 20 jq_once "[.targets[] | select(.pid == $pid and .state == \"live\")] | length == 1"
grep -q libhookscope "/proc/$pid/maps" || fail "no agent in memleak after the attach"
full_tracking "$pid"
"$O/hookscope" --cmd "target $pid" --cmd "threshold leak 4" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
	fail "threshold leak 4 was refused"
wait_for 10 jq_once '[.memory.sites[] | select(.stack.frames[0].func == "leak_steady" and .bytes >= 40960)] | length == 1' \
	--target "$pid"
b1=$(site "$pid" leak_steady | jq .bytes)
wait_for 15 jq_once '[.memory.sites[] | select(.stack.frames[0].func == "leak_steady" and .leak)] | length == 1' \
	--target "$pid"
s=$(site "$pid" leak_steady)
echo "leak_steady after the attach: $s" | cut -c1-300
[ "$(echo "$s" | jq .bytes)" -gt "$b1" ] || fail "leak_steady's site did not grow: $b1 then $(echo "$s" | jq .bytes)"
c=$(site "$pid" cycle_buffers)
echo "cycle_buffers: $(echo "$c" | jq -c '{bytes, allocs, frees, leak}')"
[ "$(echo "$c" | jq '.allocs > 0 and .bytes <= 4096 and .leak == false')" = true ] ||
	fail "cycle_buffers: $c"
echo "memory: $(once_json --target "$pid" | jq -c '.memory | {mode, heap_bytes, heap_blocks, unknown_frees}')"
"$O/hookscoped" --socket "$HS_SOCK" detach "$pid" >"$HS_TMP/detach.txt" 2>&1 ||
	fail "detach failed: $(cat "$HS_TMP/detach.txt")"
cat "$HS_TMP/detach.txt"
wait_for 10 no_agent "$pid"
wait_for 40 grep -q done "$HS_TMP/hs.out"
cmp -s "$HS_TMP/alone.out" "$HS_TMP/hs.out" || fail "the program's output changed: $(cat "$HS_TMP/hs.out")"

spawn_attachable "$O/apps/memleak" release "$HS_TMP/go" >"$HS_TMP/rel.out"
pid=$SPAWNED
wait_for 10 grep -q held "$HS_TMP/rel.out"
"$O/hookscoped" --socket "$HS_SOCK" attach "$pid" --level 3 >"$HS_TMP/attach.txt" 2>&1 ||
	fail "attach failed: $(cat "$HS_TMP/attach.txt")"
wait_for 20 jq_once "[.targets[] | select(.pid == $pid and .state == \"live\")] | length == 1"
full_tracking "$pid"
touch "$HS_TMP/go"
wait_for 20 jq_once '.memory.exited' --target "$pid"
m=$(once_json --target "$pid" | jq -c '.memory | {heap_bytes, heap_blocks, frees, unknown_frees}')
echo "release: $m"
[ "$(echo "$m" | jq '.unknown_frees == 3 and .frees == 0')" = true ] || fail "frees of blocks from before the attach: $m"
echo "attach-memory: ok"
