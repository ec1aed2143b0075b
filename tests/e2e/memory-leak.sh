# memory-leak.sh - the suspected-leak flag: two programs run side by side
# with a 4 s leak window (":threshold leak 4"):
#   build/apps/memleak grow 30        leak_steady leaks 4 KiB every 50 ms
#   build/apps/memleak growshrink 30  grow_then_shrink takes 80 KiB over a
#                                     second and frees it over the next
# leak_steady's site is flagged (and a "memory-leak" issue raised) within
# the window and a few seconds; after the same time and a whole window
# more, grow_then_shrink's site is not, and its program has no such issue.
. tests/e2e/lib.sh
if [ -n "$HS_SAN_RT" ]; then
	echo "SKIP: under a sanitizer runtime the program's malloc is the sanitizer's, not the agent's"
	exit 0
fi
cmd() { local pid=$1; shift; "$O/hookscope" --cmd "target $pid" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }
site() {   # PID FUNC: the site whose innermost frame is FUNC, as JSON
	once_json --target "$1" | jq -c --arg f "$2" '[.memory.sites[] | select(.stack.frames[0].func == $f)][0]'
}

start_daemon
spawn env HOOKSCOPE_MEMORY=full HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$O/apps/memleak" grow 30
leaker=$SPAWNED
spawn env HOOKSCOPE_MEMORY=full HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$O/apps/memleak" growshrink 30
cycler=$SPAWNED
wait_for 20 jq_once "[.targets[] | select((.pid == $leaker or .pid == $cycler) and .state == \"live\")] | length == 2"
cmd "$leaker" threshold leak 4 >/dev/null || fail "threshold leak 4 was refused"
cmd "$cycler" threshold leak 4 >/dev/null || fail "threshold leak 4 was refused"
wait_for 10 jq_once '.memory.leak_window_ns == 4000000000' --target "$leaker"
wait_for 10 jq_once '.memory.leak_window_ns == 4000000000' --target "$cycler"
t0=$(date +%s)
wait_for 15 jq_once '[.memory.sites[] | select(.stack.frames[0].func == "leak_steady" and .leak)] | length == 1' \
	--target "$leaker"
t1=$(date +%s)
echo "leak_steady flagged after $((t1 - t0)) s: $(site "$leaker" leak_steady | jq -c '{bytes, blocks, growth, leak}')"
wait_for 10 jq_once '[.issues.list[] | select(.type == "memory-leak" and (.title | test("leak_steady")))] | length == 1' \
	--target "$leaker"
# cycle_buffers (allocated and freed at once) is not a leak either
s=$(site "$leaker" cycle_buffers)
echo "cycle_buffers: $s"
[ "$(echo "$s" | jq '.leak')" = false ] || fail "cycle_buffers flagged: $s"

# the cycling site, watched for a whole window more
end=$(( $(date +%s) + 6 ))
while [ "$(date +%s)" -lt "$end" ]; do
	s=$(site "$cycler" grow_then_shrink)
	[ "$(echo "$s" | jq '.leak')" != true ] || fail "grow_then_shrink flagged as a leak: $s"
	sleep 0.5
done
echo "grow_then_shrink never flagged: $s"
n=$(once_json --target "$cycler" | jq '[.issues.list[] | select(.type == "memory-leak")] | length')
[ "$n" = 0 ] || fail "memory-leak issues raised for the cycling program: $n"
echo "memory-leak: ok"
