# report-json.sh - the JSON report read by real consumers: python3 -m
# json.tool, and the JSON Schema validator (python3-jsonschema) against
# doc/report-schema.json, which must also refuse a broken report.  The figures
# must be the session's: the demo's functions, its 60 Hz stream, its block.
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
$PY -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is not installed (run 'make deps')"
start_report_demo
dump "$HS_TMP/r.json"
$PY -m json.tool "$HS_TMP/r.json" >/dev/null || fail "json.tool refuses the report"
$PY - "$HS_TMP/r.json" doc/report-schema.json <<'PYEOF' || fail "schema check failed"
import copy, json, sys, jsonschema
doc, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.validate(doc, schema)
bad = copy.deepcopy(doc)
bad["sessions"][0]["fps"]["streams"][0]["frames"] = -1
try:
    jsonschema.validate(bad, schema)
    sys.exit("the schema accepts a negative frame count")
except jsonschema.ValidationError:
    pass
s = doc["sessions"][0]
print("schema ok: version %d, %d functions, %d streams, %d blocks" % (doc["version"],
      len(s["functions"]["list"]), len(s["fps"]["streams"]), len(s["blocks"]["list"])))
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
echo "ok: JSON report valid against doc/report-schema.json, figures match the demo"
