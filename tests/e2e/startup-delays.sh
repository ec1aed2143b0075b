# startup-delays.sh - the start of tests/apps/startup, whose linked library's
# constructor sleeps 200 ms and which dlopens a library whose constructor
# sleeps 150 ms, run by `hookscoped run`: the library's constructors and the
# dlopen within 5% of the delays, as the program measured them around its own
# sleeps (never shorter: ours contain them; nor shorter than the sleeps asked
# for; the dlopen no longer than the program's own timing of it), the time to
# main and to the first wait (its poll) shown, in frames, the text and JSON
# reports (JSON validated against doc/report-schema.json), the Chrome trace
# (slices) and /metrics (promtool accepts it).
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
$PY -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is not installed (run 'make deps')"
command -v promtool >/dev/null || fail "promtool is not installed (prometheus; run 'make deps')"
command -v curl >/dev/null || fail "curl is not installed (run 'make deps')"

start_daemon run -- "$O/apps/startup" --stay 600000
wait_for 20 grep -q "slowinit_ctor_ns=" "$HS_TMP/daemon.log"
wait_for 20 jq_once '.startup.wait_ns > 0'
once_json >"$HS_TMP/once.json"
OWN=$(grep -o "slowinit_ctor_ns=.*" "$HS_TMP/daemon.log" | head -1)
eval "$(echo "$OWN" | tr ' ' '\n' | grep -E '^[a-z_]+=[0-9]+$')"
[ -n "${slowinit_ctor_ns:-}" ] && [ -n "${dlopen_ns:-}" ] && [ -n "${plugin_ctor_ns:-}" ] ||
	fail "the program did not print its figures: $OWN"
jq -e --argjson own_ctor "$slowinit_ctor_ns" --argjson own_dl "$dlopen_ns" \
	--argjson own_plugin "$plugin_ctor_ns" '.startup as $s |
	def within5($v; $want): ($v - $want | fabs) <= $want * 0.05;
	($s.libs[] | select(.name | endswith("/libhs-slowinit.so")) |
		within5(.dur_ns; $own_ctor) and .dur_ns >= $own_ctor and .dur_ns >= 200e6 and
		.funcs >= 1) and
	($s.dlopens[] | select(.name | endswith("/libhs-plugin.so")) |
		within5(.dur_ns; $own_plugin) and .dur_ns >= $own_plugin and .dur_ns >= 150e6 and
		.ok and .dur_ns <= $own_dl) and
	$s.exec_from == "run" and $s.exec_ns > 0 and $s.exec_ns < $s.loaded_ns and
	$s.loaded_ns < $s.agent_ns and $s.agent_ns < $s.ctors_ns and $s.ctors_ns <= $s.main_ns and
	$s.main_ns < $s.wait_ns and $s.wait_call == "poll" and $s.frame_ns == 0 and
	($s.main_ns - $s.exec_ns) >= $own_ctor and ($s.wait_ns - $s.main_ns) >= $own_plugin and
	$s.dlopens_total >= 1 and ($s.attached | not)' "$HS_TMP/once.json" >/dev/null ||
	fail "startup figures wrong (program: $OWN): $(jq -c .startup "$HS_TMP/once.json")"
echo "program: $OWN"
jq -r '.startup | "hookscope: slowinit constructors \([.libs[] | select(.name | endswith("slowinit.so"))][0].dur_ns) ns, dlopen plugin \([.dlopens[] | select(.name | endswith("plugin.so"))][0].dur_ns) ns, to main \(.main_ns - .exec_ns) ns, to first wait \(.wait_ns - .exec_ns) ns"' "$HS_TMP/once.json"

# Text report: the timeline, the library, the dlopen.
dump "$HS_TMP/r.txt"
grep -q "^Startup" "$HS_TMP/r.txt" || fail "no startup section in the text report"
grep -Eq "^  to main +[0-9.]+ ms" "$HS_TMP/r.txt" || fail "no time to main in the text report"
grep -q "libhs-slowinit.so (" "$HS_TMP/r.txt" || fail "no slowinit constructors in the text report"
grep -q "libhs-plugin.so (thread" "$HS_TMP/r.txt" || fail "no plugin dlopen in the text report"

# JSON report: valid, with the phases.
dump "$HS_TMP/r.json"
$PY - "$HS_TMP/r.json" doc/report-schema.json <<'PYEOF' || fail "schema check failed"
import copy, json, sys, jsonschema
doc, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
su = doc["sessions"][0]["startup"]
ph = {p["name"]: p for p in su["phases"]}
assert ph["to main"]["dur_ns"] >= 0.19e9, ph
assert ph["to first frame"]["dur_ns"] is None, ph
bad = copy.deepcopy(doc)
bad["sessions"][0]["startup"]["libs"][0].pop("dur_ns")
try:
    jsonschema.validate(bad, schema)
    sys.exit("the schema accepts a library without its duration")
except jsonschema.ValidationError:
    pass
print("schema ok: %d libraries, %d dlopens" % (len(su["libs"]), len(su["dlopens"])))
PYEOF

# Chrome trace: the library's constructors and the dlopen as slices.
dump "$HS_TMP/r.trace.json"
jq -e --argjson own_ctor "$slowinit_ctor_ns" --argjson own_plugin "$plugin_ctor_ns" \
	'[.traceEvents[] | select(.cat == "startup")] as $e |
	($e[] | select(.name == "constructors libhs-slowinit.so") | .ph == "X" and
		.dur >= $own_ctor / 1000 and .dur <= $own_ctor * 1.05 / 1000) and
	($e[] | select(.name | startswith("dlopen ") and endswith("libhs-plugin.so")) |
		.dur >= $own_plugin / 1000 and .dur <= $own_plugin * 1.05 / 1000) and
	($e[] | select(.name == "to main") | .dur > 190000)' "$HS_TMP/r.trace.json" >/dev/null ||
	fail "startup slices wrong: $(jq -c '[.traceEvents[] | select(.cat == "startup")]' "$HS_TMP/r.trace.json")"

# /metrics: the phases as gauges, promtool accepts.
curl -sf "http://127.0.0.1:$HS_PORT/metrics" >"$HS_TMP/metrics" || fail "GET /metrics failed"
grep -Eq '^hookscope_startup_phase_seconds\{.*phase="to main"\} 0\.[2-9]' "$HS_TMP/metrics" ||
	fail "no to-main gauge: $(grep startup "$HS_TMP/metrics")"
promtool check metrics <"$HS_TMP/metrics" >"$HS_TMP/promtool.out" 2>&1 || fail "promtool: $(cat "$HS_TMP/promtool.out")"
[ -s "$HS_TMP/promtool.out" ] && fail "promtool has remarks: $(cat "$HS_TMP/promtool.out")"
echo "startup-delays: ok"
