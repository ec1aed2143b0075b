# attach-glib.sh - UI-thread blocks in a GLib program hookscope did not
# start: tests/e2e/data/loop-glib.c (plain cc -O2 -g, GLib's main loop, as
# block-loops.sh) runs two short callbacks unobserved, is attached, and
# then runs a 50 ms callback, one that sleeps 300 ms and one that spins
# 300 ms: exactly the two long ones are reported as blocks of 300 +- 30 ms
# whose stacks name the callback with its file:line (GLib's poll, called
# from libglib, is bound to the agent's wrapper after the attach).  The 50
# ms one ends the wait GLib entered before the attach, which the agent
# cannot see begin.
. tests/e2e/lib.sh

command -v pkg-config >/dev/null || fail "pkg-config is not installed (run 'make deps')"
pkg-config --exists glib-2.0 || fail "GLib is not installed (libglib2.0-dev; run 'make deps')"
D=tests/e2e/data
cc -O2 -g -o "$HS_TMP/loop-glib" $D/loop-glib.c $(pkg-config --cflags --libs glib-2.0) ||
	fail "cannot build loop-glib.c"
start_daemon
spawn_attachable "$HS_TMP/loop-glib" short:50x2 short:50x1 sleep:300 spin:300 >"$HS_TMP/loop.txt"
LP=$SPAWNED
wait_for 20 grep -q "loop: done short:50x2" "$HS_TMP/loop.txt"
"$O/hookscoped" --socket "$HS_SOCK" attach "$LP" --level 1 >"$HS_TMP/attach.txt" 2>&1 ||
	fail "attach failed: $(cat "$HS_TMP/attach.txt")"
grep -q "loop: done short:50x1" "$HS_TMP/loop.txt" &&
	fail "the attach took more than a second: the next callback already ran"
wait_for 20 grep -q "loop: done spin:300" "$HS_TMP/loop.txt"
two_blocks() { jq_once '.blocks.count == 2 and (.blocks.list | all(.ended))' --target "$LP"; }
wait_for 10 two_blocks
once_json --target "$LP" >"$HS_TMP/b.json"
jq -c '[.blocks.list[] | {id, ms: (.dur_ns / 1e6), ended, samples,
	top: [.stacks[0].frames[] | "\(.func) \(.file | split("/") | last):\(.line)"]}]' "$HS_TMP/b.json"
jq -e '.blocks.list | all(.dur_ns >= 270e6 and .dur_ns <= 330e6)' "$HS_TMP/b.json" >/dev/null ||
	fail "a block is not 300 +- 30 ms"
for f in loop_sleep_callback loop_spin_callback; do
	jq -e --arg f "$f" '.blocks.list | any(.stacks[0].frames |
		any(.func == $f and (.file | endswith("loop-work.h")) and .line > 0))' "$HS_TMP/b.json" \
		>/dev/null || fail "no block's stack names $f with file:line"
done
stop_daemon
echo "attach-glib: ok"
