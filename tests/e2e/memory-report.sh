# memory-report.sh - the memory section in every report format, on
# build/apps/memleak exit under the agent in full mode (its figures at exit):
#   json     validates against doc/report-schema.json; the same heap figures
#            as the frame; the schema refuses a negative heap
#   folded   one "[heap];frame;...;frame BYTES" line per site holding memory,
#            root first (main before the allocating function); the bytes add up
#            to the heap plus the mapping (flamegraph.pl's input form)
#   trace    "heap in use" counter events
#   text     "what it never freed", the sites with their stacks
#   metrics  hookscope_memory_heap_bytes and _blocks equal the frame's
. tests/e2e/lib.sh
PY=${PYTHON:-python3}
$PY -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is not installed (run 'make deps')"
if [ -n "$HS_SAN_RT" ]; then
	echo "SKIP: under a sanitizer runtime the program's malloc is the sanitizer's, not the agent's"
	exit 0
fi
dump() {
	local file=$1; shift
	"$O/hookscope" --dump "$file" "$@" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "hookscope --dump $file $* failed"
}

start_daemon
HOOKSCOPE_MEMORY=full HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$O/apps/memleak" exit >/dev/null ||
	fail "memleak under the agent failed"
wait_for 20 jq_once '[.targets[] | select(.name == "memleak" and .state == "exited")] | length == 1'
sleep 1.2                                       # a tick samples the heap: one trace counter event at least
once_json >"$HS_TMP/frame.json"
heap=$(jq -r '.memory | "\(.heap_bytes) \(.heap_blocks) \(.mmap_bytes)"' "$HS_TMP/frame.json")
set -- $heap
echo "frame: heap $1 bytes in $2 blocks, mapped $3"

dump "$HS_TMP/r.json" --format json
$PY - "$HS_TMP/r.json" doc/report-schema.json "$1" "$2" <<'PYEOF' || fail "the JSON report's memory section"
import copy, json, sys, jsonschema
doc, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
m = doc["sessions"][0]["memory"]
assert m["mode"] == "full" and m["exited"], m["mode"]
assert (m["heap_bytes"], m["heap_blocks"]) == (int(sys.argv[3]), int(sys.argv[4])), (m["heap_bytes"], m["heap_blocks"])
assert any(s["stack"]["frames"][0]["func"] == "leak_direct" and s["bytes"] == 1000 for s in m["sites"])
bad = copy.deepcopy(doc)
bad["sessions"][0]["memory"]["heap_bytes"] = -1
try:
    jsonschema.validate(bad, schema)
    sys.exit("the schema accepts a negative heap")
except jsonschema.ValidationError:
    pass
print("json: valid, %d sites" % len(m["sites"]))
PYEOF

dump "$HS_TMP/r.folded" --format folded
grep '^\[heap\];' "$HS_TMP/r.folded" >"$HS_TMP/heap.folded" || fail "no [heap] lines in the folded report"
bad=$(grep -Ev '^\[heap\](;[^; ]+)+ [0-9]+$' "$HS_TMP/heap.folded" | head -n 1)
[ -z "$bad" ] || fail "a folded line not in flamegraph.pl's form: $bad"
grep -q ';main;leak_direct 1000$' "$HS_TMP/heap.folded" || fail "no main;leak_direct 1000 line: $(cat "$HS_TMP/heap.folded")"
sum=$(awk '{ s += $NF } END { print s }' "$HS_TMP/heap.folded")
echo "folded: $(wc -l <"$HS_TMP/heap.folded") lines, $sum bytes"
[ "$sum" = $(( $1 + $3 )) ] || fail "folded bytes $sum, heap $1 + mapped $3"

dump "$HS_TMP/r.trace.json" --format trace
n=$(jq '[.traceEvents[] | select(.ph == "C" and .name == "heap in use" and .args.bytes >= 0)] | length' "$HS_TMP/r.trace.json")
[ "$n" -ge 1 ] || fail "no heap in use counter in the trace"

dump "$HS_TMP/r.txt"
grep -q 'heap in use [0-9]* bytes in [0-9]* blocks at exit (never freed)' "$HS_TMP/r.txt" || fail "no exit figures in the text report"
grep -q 'leak_direct' "$HS_TMP/r.txt" || fail "no leak_direct site in the text report"

curl -sS "http://127.0.0.1:$HS_PORT/metrics" >"$HS_TMP/metrics" || fail "GET /metrics failed"
mb=$(awk '/^hookscope_memory_heap_bytes\{/ { print $NF }' "$HS_TMP/metrics")
mk=$(awk '/^hookscope_memory_heap_blocks\{/ { print $NF }' "$HS_TMP/metrics")
echo "metrics: heap $mb bytes in $mk blocks"
[ "$mb $mk" = "$1 $2" ] || fail "metrics: $mb $mk, frame $1 $2"
grep -q '^hookscope_memory_site_bytes{.*function="leak_direct"} 1000$' "$HS_TMP/metrics" ||
	fail "no leak_direct site gauge: $(grep site_bytes "$HS_TMP/metrics")"
echo "memory-report: ok"
