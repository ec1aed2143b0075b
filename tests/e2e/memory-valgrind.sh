# memory-valgrind.sh - the memory collector's exact mode against valgrind
# memcheck on the same program: build/apps/memleak exit (known allocations
# from known functions: freed, leaked, reachable from a global, reachable
# only through a freed block, realloc'd, aligned, an anonymous mapping)
# run once under valgrind and once under the agent in full-tracking mode.
# The heap in use at exit (bytes and blocks) must equal valgrind's "in use
# at exit" (--run-libc-freeres=no: what a normal exit leaves, as the agent
# sees it); each site holding memory names the function valgrind names
# for those bytes; the mapping is reported apart, not as heap.
. tests/e2e/lib.sh
command -v valgrind >/dev/null || fail "valgrind is not installed (a test dependency: make deps)"
if [ -n "$HS_SAN_RT" ]; then
	echo "SKIP: under a sanitizer runtime the program's malloc is the sanitizer's, not the agent's"
	echo "(the agent says so: mode \"replaced\"); the exact figures are tested in the plain build"
	exit 0
fi

valgrind --run-libc-freeres=no --leak-check=full --show-leak-kinds=all \
	"$O/apps/memleak" exit >"$HS_TMP/vg.out" 2>"$HS_TMP/vg.log" || fail "memleak under valgrind failed"
vg=$(sed -n 's/.*in use at exit: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' "$HS_TMP/vg.log" | tr -d ,)
[ -n "$vg" ] || fail "no 'in use at exit' line from valgrind: $(cat "$HS_TMP/vg.log")"

start_daemon
HOOKSCOPE_MEMORY=full HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$O/apps/memleak" exit \
	>"$HS_TMP/hs.out" || fail "memleak under the agent failed"
cmp -s "$HS_TMP/vg.out" "$HS_TMP/hs.out" || fail "the program's output changed under the agent"
wait_for 20 jq_once '[.targets[] | select(.name == "memleak" and .state == "exited")] | length == 1'
pid=$(once_json | jq -r '[.targets[] | select(.name == "memleak")][0].pid')
once_json --target "$pid" >"$HS_TMP/frame.json"
hs=$(jq -r '.memory | "\(.heap_bytes) \(.heap_blocks)"' "$HS_TMP/frame.json")
echo "in use at exit: hookscope $hs, valgrind $vg (bytes blocks)"
[ "$hs" = "$vg" ] || fail "in use at exit: hookscope $hs, valgrind $vg"
jq -e '.memory.mode == "full" and .memory.mmap_bytes == 65536 and .memory.mmap_regions == 1' \
	"$HS_TMP/frame.json" >/dev/null || fail "the anonymous mapping: $(jq -c '.memory | {mode, mmap_bytes, mmap_regions}' "$HS_TMP/frame.json")"

# The functions holding memory: valgrind's loss records (first frame
# below the allocator) against the sites' innermost frames.
# first_fn: the record's first frame outside valgrind's allocator.
first_fn='function first_fn() { do getline; while ($0 ~ /vgpreload/); sub(/.*(by|at) 0x[0-9A-F]+: /, ""); sub(/ \(.*/, ""); return $0 }'
vg_funcs=$(awk "$first_fn"' / blocks are / && / bytes in / { print first_fn() }' \
	"$HS_TMP/vg.log" | sort -u | tr '\n' ' ')
# (map_kept's site holds the mapping, checked above: not heap)
hs_funcs=$(jq -r '.memory.sites[] | select(.bytes > 0) | .stack.frames[0].func | select(. != "map_kept")' \
	"$HS_TMP/frame.json" | sort -u | tr '\n' ' ')
echo "allocating functions: hookscope: $hs_funcs; valgrind: $vg_funcs"
[ "$hs_funcs" = "$vg_funcs" ] || fail "allocating functions differ: hookscope '$hs_funcs', valgrind '$vg_funcs'"
# and per function, bytes and blocks
for f in $vg_funcs; do
	# "B bytes in K blocks are ...", or "T (B direct, I indirect) bytes in K blocks are ..."
	v=$(awk -v f="$f" "$first_fn"' / blocks are / && / bytes in / { b = $2; if ($3 ~ /^\(/) b = substr($3, 2);
		k = $0; sub(/ blocks are .*/, "", k); sub(/.* in /, "", k); gsub(",", "", b); gsub(",", "", k);
		if (first_fn() == f) { B += b; K += k } } END { print B + 0, K + 0 }' "$HS_TMP/vg.log")
	h=$(jq -r --arg f "$f" '[.memory.sites[] | select(.bytes > 0 and .stack.frames[0].func == $f)] |
		"\(map(.bytes) | add) \(map(.blocks) | add)"' "$HS_TMP/frame.json")
	echo "  $f: hookscope $h, valgrind $v"
	[ "$h" = "$v" ] || fail "$f: hookscope $h, valgrind $v"
done
echo "memory-valgrind: ok"
