# memory-leaks.sh - `:leaks` against valgrind memcheck's leak check on the
# same program: build/apps/memleak hold FILE (memleak exit's known
# allocations: freed, leaked, reachable only through a freed block, held by
# a global, realloc'd, aligned, an anonymous mapping; then it waits for
# FILE) runs once under valgrind --leak-check=full (FILE already there:
# checked at exit) and once under the agent in full-tracking mode, where
# the scan runs while it waits.  The blocks definitely lost must be
# valgrind's: bytes, blocks and, per allocating function (the first frame
# below the allocator), bytes and blocks; the reachable total too.  The
# same run in sampled mode gets a clear refusal.  memleak clears its dead
# stack before it waits (valgrind's check at exit sees no dead frames).
. tests/e2e/lib.sh
command -v valgrind >/dev/null || fail "valgrind is not installed (a test dependency: make deps)"
if [ -n "$HS_SAN_RT" ]; then
	echo "SKIP: under a sanitizer runtime the program's malloc is the sanitizer's, not the agent's"
	echo "(the agent says so: mode \"replaced\"); the scan is tested in the plain build"
	exit 0
fi
cmd() { local pid=$1; shift; "$O/hookscope" --cmd "target $pid" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }

touch "$HS_TMP/now"
valgrind --run-libc-freeres=no --leak-check=full "$O/apps/memleak" hold "$HS_TMP/now" \
	>"$HS_TMP/vg.out" 2>"$HS_TMP/vg.log" || fail "memleak under valgrind failed"
vg=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' "$HS_TMP/vg.log" | tr -d ,)
vg_ind=$(sed -n 's/.*indirectly lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' "$HS_TMP/vg.log" | tr -d ,)
vg_reach=$(sed -n 's/.*still reachable: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' "$HS_TMP/vg.log" | tr -d ,)
[ -n "$vg" ] || fail "no 'definitely lost' line from valgrind: $(cat "$HS_TMP/vg.log")"

start_daemon
HOOKSCOPE_MEMORY=full HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD spawn "$O/apps/memleak" hold "$HS_TMP/go" \
	>"$HS_TMP/hs.out"
pid=$SPAWNED
wait_for 20 grep -q held "$HS_TMP/hs.out"
wait_for 20 jq_once "[.targets[] | select(.pid == $pid and .state == \"live\")] | length == 1"
cmd "$pid" leaks >/dev/null || fail "leaks was refused"
wait_for 20 jq_once '.memory.leaks.seq == 1 and ([.memory.leaks.lost[] | select(.stack.frames | length > 0)] | length) == (.memory.leaks.lost | length)' --target "$pid"
once_json --target "$pid" >"$HS_TMP/frame.json"
jq -e '.memory.leaks.error == ""' "$HS_TMP/frame.json" >/dev/null ||
	fail "the scan failed: $(jq -r .memory.leaks.error "$HS_TMP/frame.json")"
hs=$(jq -r '.memory.leaks | "\(.lost_bytes) \(.lost_blocks)"' "$HS_TMP/frame.json")
hs_ind=$(jq -r '.memory.leaks | "\(.indirect_bytes) \(.indirect_blocks)"' "$HS_TMP/frame.json")
hs_reach=$(jq -r '.memory.leaks | "\(.reachable_bytes) \(.reachable_blocks)"' "$HS_TMP/frame.json")
echo "definitely lost: hookscope $hs, valgrind $vg; indirectly: hookscope $hs_ind, valgrind $vg_ind; reachable: hookscope $hs_reach, valgrind $vg_reach (bytes blocks)"
echo "scan: $(jq -c '.memory.leaks | {threads, stopped_ns, root_bytes, heap_bytes, possible_bytes, indirect_bytes}' "$HS_TMP/frame.json")"
[ "$hs" = "$vg" ] || fail "definitely lost: hookscope $hs, valgrind $vg"
[ "$hs_ind" = "$vg_ind" ] || fail "indirectly lost: hookscope $hs_ind, valgrind $vg_ind"
[ "$hs_reach" = "$vg_reach" ] || fail "reachable: hookscope $hs_reach, valgrind $vg_reach"

# per allocating function: valgrind's "definitely lost" records against the groups
first_fn='function first_fn() { do getline; while ($0 ~ /vgpreload/); sub(/.*(by|at) 0x[0-9A-F]+: /, ""); sub(/ \(.*/, ""); return $0 }'
vg_funcs=$(awk "$first_fn"' /blocks are definitely lost/ { print first_fn() }' "$HS_TMP/vg.log" | sort -u | tr '\n' ' ')
hs_funcs=$(jq -r '.memory.leaks.lost[] | select(.blocks > 0) | .stack.frames[0].func' "$HS_TMP/frame.json" |
	sort -u | tr '\n' ' ')
echo "allocating functions: hookscope: $hs_funcs; valgrind: $vg_funcs"
[ -n "$vg_funcs" ] && [ "$hs_funcs" = "$vg_funcs" ] || fail "allocating functions differ: hookscope '$hs_funcs', valgrind '$vg_funcs'"
for f in $vg_funcs; do
	# "B bytes in K blocks", or "T (B direct, I indirect) bytes in K blocks"
	v=$(awk -v f="$f" "$first_fn"' /blocks are definitely lost/ { b = $2; if ($3 ~ /^\(/) b = substr($3, 2);
		k = $0; sub(/ blocks are definitely.*/, "", k); sub(/.* in /, "", k); gsub(",", "", b); gsub(",", "", k);
		if (first_fn() == f) { B += b; K += k } } END { print B + 0, K + 0 }' "$HS_TMP/vg.log")
	h=$(jq -r --arg f "$f" '[.memory.leaks.lost[] | select(.stack.frames[0].func == $f)] |
		"\(map(.bytes) | add) \(map(.blocks) | add)"' "$HS_TMP/frame.json")
	echo "  $f: hookscope $h, valgrind $v"
	[ "$h" = "$v" ] || fail "$f: hookscope $h, valgrind $v"
done
# the text report names them
"$O/hookscope" --dump "$HS_TMP/report.txt" --format text --target "$pid" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
	fail "hookscope --dump failed"
grep -q "definitely lost $(echo "$vg" | cut -d' ' -f1) bytes in $(echo "$vg" | cut -d' ' -f2) blocks" "$HS_TMP/report.txt" ||
	fail "the text report has no leak scan: $(grep -A3 'leak scan' "$HS_TMP/report.txt")"
touch "$HS_TMP/go"
wait_for 10 grep -q done "$HS_TMP/hs.out"
cmp -s "$HS_TMP/vg.out" "$HS_TMP/hs.out" || fail "the program's output changed under the agent"

# sampled mode: a clear refusal, no figures
HOOKSCOPE_MEMORY=sampled HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD spawn "$O/apps/memleak" hold "$HS_TMP/go2" \
	>"$HS_TMP/hs2.out"
pid2=$SPAWNED
wait_for 20 grep -q held "$HS_TMP/hs2.out"
wait_for 20 jq_once "[.targets[] | select(.pid == $pid2 and .state == \"live\")] | length == 1"
cmd "$pid2" leaks >/dev/null || fail "leaks was refused"
wait_for 20 jq_once '.memory.leaks.seq == 1' --target "$pid2"
once_json --target "$pid2" | jq -e '.memory.leaks.error | test("needs full tracking")' >/dev/null ||
	fail "sampled mode: $(once_json --target "$pid2" | jq -c .memory.leaks)"
echo "sampled: $(once_json --target "$pid2" | jq -r .memory.leaks.error)"
touch "$HS_TMP/go2"
echo "memory-leaks: ok"
