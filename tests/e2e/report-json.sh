# report-json.sh - the JSON report read by real consumers: python3 -m
# json.tool, and the JSON Schema validator (python3-jsonschema) against
# doc/report-schema.json, which must also refuse a broken report.  The figures
# must be the session's: the demo's functions, its 60 Hz stream, its block,
# its slow IPC calls to its helper with their stacks, its wakelock held about
# a second and priced, its other wakelock and its sensor leaked
# (tests/e2e/data/report-demo.sh).
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
$PY -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is not installed (run 'make deps')"
start_report_demo_ipc_power
dump "$HS_TMP/r.json"
$PY -m json.tool "$HS_TMP/r.json" >/dev/null || fail "json.tool refuses the report"
$PY - "$HS_TMP/r.json" doc/report-schema.json <<'PYEOF' || fail "schema check failed"
import copy, json, sys, jsonschema
doc, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.validate(doc, schema)
s = doc["sessions"][0]
assert s["ipc"]["endpoints"] and s["ipc"]["slow"], "no IPC data to check: %r" % s["ipc"]
assert len(s["power"]["resources"]) >= 2 and s["power"]["categories"], "no power data: %r" % s["power"]
def refused(what, change):
    bad = copy.deepcopy(doc)
    change(bad["sessions"][0])
    try:
        jsonschema.validate(bad, schema)
        sys.exit("the schema accepts " + what)
    except jsonschema.ValidationError:
        pass
refused("a negative frame count", lambda b: b["fps"]["streams"][0].update(frames=-1))
refused("a negative IPC send count", lambda b: b["ipc"]["endpoints"][0].update(sends=-1))
refused("a slow call without its stack", lambda b: b["ipc"]["slow"][0].pop("stack"))
refused("a resource without its holder", lambda b: b["power"]["resources"][0].pop("holder"))
refused("a charge given as text", lambda b: b["power"]["categories"][0].update(mah="1"))
print("schema ok: version %d, %d functions, %d streams, %d blocks, %d IPC endpoints, %d slow calls, "
      "%d power resources" % (doc["version"], len(s["functions"]["list"]), len(s["fps"]["streams"]),
      len(s["blocks"]["list"]), len(s["ipc"]["endpoints"]), len(s["ipc"]["slow"]),
      len(s["power"]["resources"])))
PYEOF
jq -e --argjson pid "$DEMO_PID" '.schema == "hookscope-report" and .version == 1 and
	(.sessions | length) == 1 and .sessions[0].pid == $pid and .sessions[0].name == "demo"' \
	"$HS_TMP/r.json" >/dev/null || fail "wrong header or session"
jq -e '.sessions[0].functions.list | map(.name) | index("slow_work") != null' "$HS_TMP/r.json" \
	>/dev/null || fail "slow_work missing from the functions"
jq -e '.sessions[0].fps.streams[] | select(.name == "demo" and .fps >= 40 and .fps <= 70)' \
	"$HS_TMP/r.json" >/dev/null || fail "no 60 Hz demo stream: $(jq -c '.sessions[0].fps.streams' "$HS_TMP/r.json")"
jq -e '.sessions[0].blocks.list[] | select(.ended and .dur_ns >= 270e6 and .dur_ns <= 330e6)' \
	"$HS_TMP/r.json" >/dev/null || fail "no 300 ms block"
# IPC: the helper's endpoint with its peer and figures; each slow call a
# 250 ms recv on the main thread in demo_ipc_fetch_settings, on that endpoint.
jq -e --argjson pid "$DEMO_PID" '.sessions[0].ipc as $i | $i.threshold_ns == 100e6 and
	$i.slow_count >= 2 and ($i.slow | length) >= 2 and ($i.slow | length) <= $i.slow_count and
	($i.endpoints[] | select(.name == "@hookscope-demo-\($pid)") | . as $e |
	.kind == "unix" and .peer_comm == "demo" and .peer_pid > 0 and .sends >= 10 and .recvs >= 10 and
	.bytes_out > 0 and .bytes_in > 0 and .slow >= 2 and .total_ns >= .slow * 240e6 and
	($i.slow | all(.ep == $e.id and .op == "recv" and .tid == $pid and .dur_ns >= 240e6 and
	.dur_ns <= 400e6 and .start_ns > 0 and .stack[0].func == "demo_ipc_fetch_settings")))' \
	"$HS_TMP/r.json" >/dev/null || fail "IPC section wrong: $(jq -c '.sessions[0].ipc | .slow |= map(del(.stack))' "$HS_TMP/r.json")"
# Power: demo-wakelock held about 1 s by the main thread, priced at cpu.idle
# (28.6 mA in the sample profile); demo-leaked and the sensor held on, leaked
# past the 1 s threshold, the sensor not priced; the categories sum them
# (floats are written with 6 significant digits).
jq -e --argjson pid "$DEMO_PID" '.sessions[0].power as $p | $p.hold_ns == 1e9 and
	($p.table | endswith("power-apis.table")) and ($p.profile | endswith("power_profile.sample.xml")) and
	($p.resources[] | select(.name == "demo-wakelock") | .category == "wakelock" and (.held | not) and
	(.leaked | not) and .acquires == 1 and .releases == 1 and .total_ns >= 0.9e9 and .total_ns <= 1.5e9 and
	.price_from == "cpu.idle" and .price_ma == 28.6 and
	((.mah - .total_ns / 1e6 * 28.6 / 3.6e6) | fabs) < 1e-6 and .holder_tid == $pid and
	any(.holder[]; startswith("demo_power_scenario+")) and any(.releaser[]; startswith("demo_power_scenario+"))) and
	($p.resources[] | select(.name == "demo-leaked") | .category == "wakelock" and .held and .leaked and
	.acquires == 1 and .releases == 0 and .releaser == [] and .total_ns >= 3e9 and .price_from == "cpu.idle" and
	((.mah - .total_ns / 1e6 * 28.6 / 3.6e6) | fabs) < 1e-6) and
	($p.resources[] | select(.category == "sensor") | .held and .leaked and .releases == 0 and
	.mah == null and .price_ma == null and .total_ns >= 3e9) and
	([$p.resources[] | select(.category == "wakelock")] as $w | $p.categories[] | select(.category == "wakelock") |
	.held == 1 and .leaks == 1 and .acquires == 2 and .releases == 1 and .total_ns == ([$w[].total_ns] | add) and
	((.mah - ([$w[].mah] | add)) | fabs) <= .mah * 1e-5) and
	($p.categories[] | select(.category == "sensor") | .held == 1 and .leaks == 1 and .mah == null)' \
	"$HS_TMP/r.json" >/dev/null || fail "power section wrong: $(jq -c '.sessions[0].power' "$HS_TMP/r.json")"
# Ranking: functions in decreasing total (+ running) time.
jq -e '.sessions[0].functions.list | [.[] | .total_ns + .running_ns] as $t |
	[range(1; $t | length) | $t[. - 1] >= $t[.]] | all' "$HS_TMP/r.json" >/dev/null ||
	fail "functions are not ranked by total time"
# --all: every session; the file in the report dir is the same report.
dump "$HS_TMP/all.json" --all
jq -e '.sessions | length >= 1' "$HS_TMP/all.json" >/dev/null || fail "--all has no sessions"
ls "$HS_TMP/reports" | grep -q '^hookscope-all-[0-9-]*\.json$' || fail "no hookscope-all-*.json: $(ls "$HS_TMP/reports")"
cmp -s "$HS_TMP/all.json" "$HS_TMP/reports"/hookscope-all-*.json || fail "saved and sent reports differ"
# --dump -: the report on standard output, nothing else there.
"$O/hookscope" --dump - --format json "ws://127.0.0.1:$HS_PORT" >"$HS_TMP/stdout.json" ||
	fail "--dump - failed"
jq -e '.schema == "hookscope-report"' "$HS_TMP/stdout.json" >/dev/null || fail "--dump - is not the report"
echo "ok: JSON report valid against doc/report-schema.json, figures match the demo:" \
	"$(jq -r '.sessions[0] | "\(.ipc.slow_count) slow IPC calls, demo-wakelock held \(.power.resources[] |
	select(.name == "demo-wakelock") | .total_ns / 1e9) s, wakelocks \(.power.categories[] |
	select(.category == "wakelock") | .mah) mAh"' "$HS_TMP/r.json")"
