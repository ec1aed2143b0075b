# engine-stacks.sh - stacks through timed calls.  tests/e2e/data/pathblock.c
# (plain -O2 -g: an epoll loop whose timer callback blocks three calls below
# itself) is built for the three back-ends: relocated prologues (gcc),
# entry NOPs (clang -fpatchable-function-entry=5), -finstrument-functions.
# At levels 1 (the callback named by HOOKSCOPE_FUNCS), 2 and 4:
#   1. without a daemon, the program's own backtrace() prints the same
#      frames with the agent as without it (the engine's return points must
#      not show, nor end the walk);
#   2. under hookscoped, a 300 ms sleep (the watchdog walks the sleeping
#      thread from outside) and a 300 ms spin (the thread walks itself in a
#      signal handler) are blocks whose stack names every frame from the
#      blocking one down to main: store_result parse_body handle_request
#      on_timer loop_run main.
. tests/e2e/lib.sh

command -v clang >/dev/null ||
	fail "clang is missing: it builds the NOP back-end's target (apt-get install clang; mk/deps.sh lists it)"
src=tests/e2e/data/pathblock.c
cc -O2 -g -o "$HS_TMP/pb-patch" $src || fail "cannot build $src with cc -O2 -g"
clang -O2 -g -fpatchable-function-entry=5 -o "$HS_TMP/pb-nop" $src ||
	fail "cannot build $src with clang -O2 -fpatchable-function-entry=5"
cc -O2 -g -finstrument-functions -o "$HS_TMP/pb-fi" $src ||
	fail "cannot build $src with cc -O2 -g -finstrument-functions"

# What the agent needs preloaded besides itself (a sanitizer runtime, whose
# backtrace interceptor adds a frame), for the reference runs.
base=$(echo "$HS_PRELOAD" | sed 's|[^:]*libhookscope\.so$||; s|:$||')
chain='"store_result","parse_body","handle_request","on_timer","loop_run","main"'
# The block's first stack, function names from the blocking frame down.
names='[.stacks[0].frames[] | .func] | . as $f | ($f | index("store_result")) as $i |
	if $i == null then $f else $f[$i:] end'

for be in patch nop fi; do
	prog=$HS_TMP/pb-$be
	plain=$(LD_PRELOAD="$base" "$prog" bt) || fail "$be: pathblock bt fails without the agent"
	n=$(echo "$plain" | grep -c "pb-$be(")
	[ "$n" -ge 6 ] || fail "$be: only $n frames of the program without the agent: $plain"
	for level in 1 2 4; do
		funcs=; [ $level = 1 ] && funcs=on_timer
		hooked=$(HOOKSCOPE_LEVEL=$level HOOKSCOPE_FUNCS=$funcs HOOKSCOPE_SOCKET="$HS_TMP/none.sock" \
			LD_PRELOAD="$HS_PRELOAD" "$prog" bt) || fail "$be level $level: pathblock bt fails"
		[ "$hooked" = "$plain" ] ||
			fail "$be level $level: backtrace() with the agent:
$hooked
without:
$plain"

		: >"$HS_TMP/daemon.log"
		HOOKSCOPE_FUNCS=$funcs start_daemon run --level $level -- "$prog" sleep:300 spin:300
		wait_for 30 grep -q "pathblock: done spin:300" "$HS_TMP/daemon.log"
		wait_for 30 jq_once '.blocks.count == 2 and (.blocks.list | all(.ended))'
		once_json >"$HS_TMP/f.json" || fail "$be level $level: no frame"
		jq -e --argjson c "[$chain]" ".blocks.list | length == 2 and
			all(($names) | .[0:6] == \$c)" "$HS_TMP/f.json" >/dev/null ||
			fail "$be level $level: a block's stack is cut: $(jq -c "[.blocks.list[] | $names]" "$HS_TMP/f.json")"
		jq -e '.funcs | any(.name == "on_timer" and .calls == 2)' "$HS_TMP/f.json" >/dev/null ||
			fail "$be level $level: on_timer was not timed: $(jq -c '[.funcs[] | {name, calls}]' "$HS_TMP/f.json")"
		echo "$be level $level: backtrace() as without the agent ($n frames); blocks:" \
			"$(jq -c "[.blocks.list[] | $names | .[0:6] | join(\"<-\")] | unique" "$HS_TMP/f.json")"
		stop_daemon
	done
done
echo "ok: whole stacks through timed calls at levels 1, 2, 4 with the patch, NOP and finstrument back-ends"
