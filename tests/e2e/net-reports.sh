# net-reports.sh - the network section in the report formats and /metrics,
# on a libcurl program (tests/apps/netcurl, held live) that makes 12
# distinct requests (404s) to python3's http.server and a refused one, and
# Debian's python3 sending datagrams to 12 UDP ports:
#   - the JSON report validates against doc/report-schema.json
#     (python3-jsonschema) and carries the rows and events of the snapshot;
#   - the text report lists the refused endpoint with its reason;
#   - the Chrome trace has a "net http" slice per kept event, each on its
#     thread with its length;
#   - /metrics passes `promtool check metrics` with every network family,
#     and its labels stay bounded: at most 10 series plus "other" per target
#     and family, the "other" series summing the rest to the snapshot's total.
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
command -v promtool >/dev/null || fail "promtool is not installed (prometheus; run 'make deps')"
$PY -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is not installed (run 'make deps')"

start_daemon
WEB=$(free_port)
CLOSED=$(free_port)
mkdir -p "$HS_TMP/www"
(cd "$HS_TMP/www" && exec python3 -m http.server --bind 127.0.0.1 "$WEB") >"$HS_TMP/http.log" 2>&1 &
HS_PIDS="$HS_PIDS $!"
wait_for 20 port_listening "$WEB"
urls="http://127.0.0.1:$CLOSED/"
for i in $(seq 1 12); do urls="$urls http://127.0.0.1:$WEB/page$i"; done
HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD spawn "$O/apps/netcurl" easy --hold "$HS_TMP/go" $urls \
	>"$HS_TMP/netcurl.log" 2>&1
wait_for 30 sh -c "[ \$(wc -l <'$HS_TMP/netcurl.log') -eq 13 ]"
HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD spawn /usr/bin/python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in range($CLOSED, $CLOSED + 12):
    s.sendto(b'x' * (p - $CLOSED + 1), ('127.0.0.1', p))
print('sent', flush=True)
time.sleep(600)" >"$HS_TMP/py.log" 2>&1
wait_for 20 grep -q sent "$HS_TMP/py.log"
NP=$(once_json | jq -e '[.targets[] | select(.name == "netcurl")][0].pid') || fail "no netcurl target"
PP=$(once_json | jq -e '[.targets[] | select(.name == "python3")][0].pid') || fail "no python3 target"
wait_for 10 jq_once '[.network.http[].requests] | add == 13' --target "$NP"
wait_for 10 jq_once '(.network.endpoints | length) == 12' --target "$PP"

# JSON report: valid, and the snapshot's rows.
dump "$HS_TMP/r.json" --all --format json
$PY - doc/report-schema.json "$HS_TMP/r.json" <<'PYEOF' || fail "the JSON report does not validate"
import json, sys, jsonschema
schema, doc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
PYEOF
once_json --target "$NP" >"$HS_TMP/snap.json"
jq -e --slurpfile s "$HS_TMP/snap.json" --argjson p "$NP" '.sessions[] | select(.pid == $p) | .network |
	([.http[] | {path, requests, status, bytes_in, total_ns}] | sort_by(.path)) ==
	([$s[0].network.http[] | {path, requests, status, bytes_in, total_ns}] | sort_by(.path)) and
	(.endpoints | length) == 2 and
	([.events[] | select(.op == "connect" and (.error | test("ECONNREFUSED")) and (.stack | length) > 0)] | length) == 1' \
	"$HS_TMP/r.json" >/dev/null || fail "report's network section differs from the snapshot"

# Text report.
dump "$HS_TMP/r.txt" --target "$NP" --format text
grep -q "^Network" "$HS_TMP/r.txt" || fail "no Network section in the text report"
grep -Eq "^tcp +127\\.0\\.0\\.1:$CLOSED +1 +1 .*Connection refused \\(ECONNREFUSED\\)\$" "$HS_TMP/r.txt" ||
	fail "the refused endpoint is not in the text report: $(sed -n '/^Network/,$p' "$HS_TMP/r.txt" | head -20)"

# Chrome trace: a slice per kept http event, on its thread, with its length.
dump "$HS_TMP/r.trace.json" --target "$NP" --format trace
jq -e --slurpfile s "$HS_TMP/snap.json" '
	[.traceEvents[] | select(.name == "net http" and .ph == "X" and .cat == "network")] as $x |
	($x | length) == ([$s[0].network.events[] | select(.op == "http")] | length) and ($x | length) > 0 and
	all($x[]; .tid > 0 and .dur > 0 and (.args.error | test("HTTP status 404|connect")))' \
	"$HS_TMP/r.trace.json" >/dev/null || fail "trace slices of the network events wrong"

# /metrics.
M=$HS_TMP/metrics.txt
curl -sS -o "$M" "http://127.0.0.1:$HS_PORT/metrics" || fail "GET /metrics failed"
promtool check metrics <"$M" >"$HS_TMP/promtool.out" 2>&1 || fail "promtool: $(cat "$HS_TMP/promtool.out")"
[ -s "$HS_TMP/promtool.out" ] && fail "promtool has remarks: $(cat "$HS_TMP/promtool.out")"
for f in hookscope_net_connects_total hookscope_net_connect_failures_total hookscope_net_sent_bytes_total \
	hookscope_net_received_bytes_total hookscope_net_errors_total hookscope_net_dns_lookups_total \
	hookscope_net_dns_failures_total hookscope_net_http_requests_total hookscope_net_http_failures_total \
	hookscope_net_http_error_status_total hookscope_net_http_received_bytes_total hookscope_net_http_seconds_total; do
	grep -q "^# HELP $f " "$M" && grep -q "^# TYPE $f " "$M" || fail "no HELP/TYPE for $f"
done
series() { grep -c "^$1{pid=\"$2\"" "$M"; }
sum() { awk -v f="$1{pid=\"$2\"" 'index($0, f) == 1 {s += $2} END {print s + 0}' "$M"; }
n=$(series hookscope_net_http_requests_total "$NP")
[ "$n" = 11 ] || fail "$n request series for 13 rows (want 10 + other)"
grep -q "^hookscope_net_http_requests_total{pid=\"$NP\",.*method=\"other\",host=\"other\",path=\"other\"} 3\$" "$M" ||
	fail "the other request series does not sum the 3 rows past the top 10: $(grep "^hookscope_net_http_requests_total{pid=\"$NP\"" "$M")"
[ "$(sum hookscope_net_http_requests_total "$NP")" = 13 ] || fail "request series do not add up to 13"
n=$(series hookscope_net_sent_bytes_total "$PP")
[ "$n" = 11 ] || fail "$n endpoint series for 12 endpoints (want 10 + other)"
[ "$(sum hookscope_net_sent_bytes_total "$PP")" = 78 ] || fail "sent bytes do not add up to 1 + 2 + ... + 12"
touch "$HS_TMP/go"
stop_daemon
echo "ok"
